"""The rating regulations, one module each. Pure functions, no I/O."""

from __future__ import annotations

from typing import Any

from .arena import ArenaRules, ArenaSystem
from .base import Change, GameRating, ListEntry, RatingSystem

SYSTEM_IDS = ("arena",)


def get_system(system_id: str) -> RatingSystem[Any]:
    """The system with this id, with its default parameters."""
    if system_id == "arena":
        return ArenaSystem(ArenaRules())
    raise ValueError(f"unknown rating system {system_id!r} (known: {', '.join(SYSTEM_IDS)})")


__all__ = [
    "SYSTEM_IDS",
    "ArenaRules",
    "ArenaSystem",
    "Change",
    "GameRating",
    "ListEntry",
    "RatingSystem",
    "get_system",
]
