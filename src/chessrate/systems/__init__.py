"""The rating regulations, one module each. Pure functions, no I/O.

:data:`REGISTRY` says what each system is, for everything above the systems (the
ledger, the service, the pages, the samples, the command line): they ask a system's
:class:`SystemInfo` (its ``kind``, its ``pools``) instead of comparing its id.
:func:`get_system` builds a system that rates games one by one; ``fide`` rates rating
periods of tournaments (:class:`~chessrate.systems.fide.FideSystem`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from .arena import ArenaRules, ArenaSystem
from .base import Change, Established, GameRating, ListEntry, RatingSystem
from .corr import CorrRules, CorrSystem
from .fide import FideSystem
from .site import SiteRules, SiteSystem


class SystemKind(StrEnum):
    """How a system rates."""

    GAMES = "games"
    """Game by game, as each is played or submitted (a :class:`RatingSystem`)."""
    PERIODS = "periods"
    """A rating period's tournaments at once, from a starting list to a new list."""


@dataclass(frozen=True, slots=True)
class SystemInfo:
    """What the layers above the systems need to know about one system."""

    id: str
    kind: SystemKind
    pools: tuple[str, ...]
    """Its rating lists, in the system's order (fide's one pool is ``"fide"``)."""
    description: str
    """One line, for people (``--help``, pages)."""
    live_games: bool = False
    """Whether its ledger plays live games (site S7-S9)."""

    @property
    def rates_games(self) -> bool:
        return self.kind is SystemKind.GAMES

    @property
    def rates_periods(self) -> bool:
        return self.kind is SystemKind.PERIODS


REGISTRY: Mapping[str, SystemInfo] = MappingProxyType(
    {
        info.id: info
        for info in (
            SystemInfo(
                "arena", SystemKind.GAMES, ArenaSystem.pools,
                "an online club's official rapid, blitz and bullet ratings on FIDE's tables",
            ),
            SystemInfo(
                "corr", SystemKind.GAMES, CorrSystem.pools,
                "a correspondence site's provisional and established ratings",
            ),
            SystemInfo(
                "site", SystemKind.GAMES, SiteSystem.pools,
                "a chess site's per-type Elo and weighted site Elo, with live games",
                live_games=True,
            ),
            SystemInfo(
                "fide", SystemKind.PERIODS, FideSystem.pools,
                "FIDE rating periods rated from tournament report (TRF) files",
            ),
        )
    }
)  # fmt: skip
"""Every system, by id, in the order they are listed."""

LEDGER_SYSTEMS = tuple(REGISTRY)
"""Every system a ledger can rate by."""

SYSTEM_IDS = tuple(info.id for info in REGISTRY.values() if info.rates_games)
"""The systems that rate games one by one (:func:`get_system`, ``chessrate rate``)."""


def system_info(system_id: str) -> SystemInfo:
    """The registry's entry for ``system_id``; ``ValueError`` naming the known ids."""
    try:
        return REGISTRY[system_id]
    except KeyError:
        known = ", ".join(REGISTRY)
        raise ValueError(f"unknown rating system {system_id!r} (known: {known})") from None


def get_system(system_id: str) -> RatingSystem[Any]:
    """The system with this id, with its default parameters."""
    if system_id == "arena":
        return ArenaSystem(ArenaRules())
    if system_id == "corr":
        return CorrSystem(CorrRules())
    if system_id == "site":
        return SiteSystem(SiteRules())
    raise ValueError(f"unknown rating system {system_id!r} (known: {', '.join(SYSTEM_IDS)})")


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
    "GameRating",
    "ListEntry",
    "RatingSystem",
    "SiteRules",
    "SiteSystem",
    "SystemInfo",
    "SystemKind",
    "get_system",
    "system_info",
]
