"""chessrate: exact chess ratings for arenas, correspondence sites, chess sites and FIDE."""

from __future__ import annotations

from .engine import Annulment, Engine
from .errors import ChessrateError, InvalidInput, InvalidRecord
from .numbers import display, round_half_away
from .rating import RatedFile, rate_file
from .records import GameRecord, Outcome, Player, Result, Termination, Venue
from .systems import (
    ArenaRules,
    ArenaSystem,
    Change,
    CorrRules,
    CorrSystem,
    GameRating,
    ListEntry,
    SiteRules,
    SiteSystem,
    get_system,
)
from .tables import dp_for_fraction, expected_score, expected_scores
from .timecontrol import TimeControl, parse_time_control

__version__ = "0.1.0"

__all__ = [
    "Annulment",
    "ArenaRules",
    "ArenaSystem",
    "Change",
    "ChessrateError",
    "CorrRules",
    "CorrSystem",
    "Engine",
    "GameRating",
    "GameRecord",
    "InvalidInput",
    "InvalidRecord",
    "ListEntry",
    "Outcome",
    "Player",
    "RatedFile",
    "Result",
    "SiteRules",
    "SiteSystem",
    "Termination",
    "TimeControl",
    "Venue",
    "__version__",
    "display",
    "dp_for_fraction",
    "expected_score",
    "expected_scores",
    "get_system",
    "parse_time_control",
    "rate_file",
    "round_half_away",
]
