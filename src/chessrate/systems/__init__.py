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
from .fide import POOL_LABELS as FIDE_POOL_LABELS
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


def _ids(letter: str, count: int) -> tuple[str, ...]:
    """A spec's rule ids: ``A1`` … ``A11``."""
    return tuple(f"{letter}{n}" for n in range(1, count + 1))


ARENA = SystemInfo(
    id="arena",
    kind=SystemKind.GAMES,
    pools=ArenaSystem.pools,
    description="an online club's official rapid, blitz and bullet ratings on FIDE's tables",
    build=ArenaSystem,
    rules=ArenaRules(),
    codec=ArenaCodec(),
    compiled="chessrate.fast.arena:COMPILED",
    rule_ids=_ids("A", 11),
    folded_rules=("arena A6",),
)
CORR = SystemInfo(
    id="corr",
    kind=SystemKind.GAMES,
    pools=CorrSystem.pools,
    description="a correspondence site's provisional and established ratings",
    build=CorrSystem,
    rules=CorrRules(),
    codec=CorrCodec(),
    compiled="chessrate.fast.corr:COMPILED",
    rule_ids=_ids("C", 7),
)
SITE = SystemInfo(
    id="site",
    kind=SystemKind.GAMES,
    pools=SiteSystem.pools,
    description="a chess site's per-type Elo and weighted site Elo, with live games",
    build=SiteSystem,
    rules=SiteRules(),
    codec=SiteCodec(),
    compiled="chessrate.fast.site:COMPILED",
    rule_ids=_ids("S", 10),
    live_games=True,
    annulments=True,
    pool_labels={SiteSystem.pools[0]: "site Elo"},
)
FIDE = SystemInfo(
    id="fide",
    kind=SystemKind.PERIODS,
    pools=FideSystem.pools,
    description="FIDE rating periods rated from tournament report (TRF) files",
    build=FideSystem,
    rules=FideRules(),
    rule_ids=_ids("F", 8),
    pool_labels=FIDE_POOL_LABELS,
)
for _info in (ARENA, CORR, SITE, FIDE):
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
