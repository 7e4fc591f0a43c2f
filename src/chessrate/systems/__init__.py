"""The rating regulations, one module each. Pure functions, no I/O."""

from __future__ import annotations

from typing import Any

from .arena import ArenaRules, ArenaSystem
from .base import Change, GameRating, ListEntry, RatingSystem
from .corr import CorrRules, CorrSystem
from .site import SiteRules, SiteSystem

SYSTEM_IDS = ("arena", "corr", "site")


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
    "SYSTEM_IDS",
    "ArenaRules",
    "ArenaSystem",
    "Change",
    "CorrRules",
    "CorrSystem",
    "GameRating",
    "ListEntry",
    "RatingSystem",
    "SiteRules",
    "SiteSystem",
    "get_system",
]
