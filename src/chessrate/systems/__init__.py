"""The rating regulations, one module each. Pure functions, no I/O.

Each system is one entry of :mod:`.registry` (:data:`REGISTRY`): its reference system,
its ``Rules``, its stored-state codec and its compiled half. Everything above the
systems (the ledger, the compiled replay, the service, the pages, the samples and the
command line) asks a system's entry instead of comparing its id. :func:`get_system`
builds a system that rates games one by one; ``fide`` rates rating periods of
tournaments (:class:`~chessrate.systems.fide.FideSystem`).
"""

from __future__ import annotations

from .arena import ArenaCodec, ArenaRules, ArenaSystem
from .base import Change, Established, GameRating, ListEntry, RatingSystem, Rules, StateCodec
from .corr import CorrCodec, CorrRules, CorrSystem
from .fide import FideRules, FideSystem
from .registry import (
    REGISTRY,
    SystemInfo,
    SystemKind,
    get_system,
    register,
    registered,
    system_info,
    system_of,
)
from .site import SiteCodec, SiteRules, SiteSystem

for _info in (
    SystemInfo(
        "arena",
        SystemKind.GAMES,
        ArenaSystem.pools,
        "an online club's official rapid, blitz and bullet ratings on FIDE's tables",
        ArenaSystem,
        ArenaRules(),
        ArenaCodec(),
        "chessrate.fast.arena:COMPILED",
    ),
    SystemInfo(
        "corr",
        SystemKind.GAMES,
        CorrSystem.pools,
        "a correspondence site's provisional and established ratings",
        CorrSystem,
        CorrRules(),
        CorrCodec(),
        "chessrate.fast.corr:COMPILED",
    ),
    SystemInfo(
        "site",
        SystemKind.GAMES,
        SiteSystem.pools,
        "a chess site's per-type Elo and weighted site Elo, with live games",
        SiteSystem,
        SiteRules(),
        SiteCodec(),
        "chessrate.fast.site:COMPILED",
        live_games=True,
        pool_labels={SiteSystem.pools[0]: "site Elo"},
    ),
    SystemInfo(
        "fide",
        SystemKind.PERIODS,
        FideSystem.pools,
        "FIDE rating periods rated from tournament report (TRF) files",
        FideSystem,
        FideRules(),
    ),
):
    register(_info)

LEDGER_SYSTEMS = tuple(REGISTRY)
"""The systems this package ships, in the order they are listed."""

SYSTEM_IDS = tuple(info.id for info in REGISTRY.values() if info.rates_games)
"""The shipped systems that rate games one by one (:func:`get_system`, ``chessrate rate``)."""


__all__ = [
    "LEDGER_SYSTEMS",
    "REGISTRY",
    "SYSTEM_IDS",
    "ArenaRules",
    "ArenaSystem",
    "Change",
    "CorrRules",
    "CorrSystem",
    "Established",
    "FideRules",
    "FideSystem",
    "GameRating",
    "ListEntry",
    "RatingSystem",
    "Rules",
    "SiteRules",
    "SiteSystem",
    "StateCodec",
    "SystemInfo",
    "SystemKind",
    "get_system",
    "register",
    "registered",
    "system_info",
    "system_of",
]
