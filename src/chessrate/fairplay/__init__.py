"""Fair play: the detector of suspicious moves.

:mod:`.analysis` asks the engine about a game's positions; :mod:`.model` says how
surprising the moves played are for a human of the player's rating; :mod:`.detector`
judges a game (its whole and its runs of moves) and a player's record of games;
:mod:`.job` runs it over the ledger's games and stores what it found.
"""

from .detector import (
    DEFAULT_STOCKFISH,
    Detector,
    DetectorRules,
    Evidence,
    PlayerGame,
    Record,
    StockfishDetector,
    UnanalysableGame,
    judge,
    judge_record,
    stockfish_path,
)
from .model import HumanModel, default_model

__all__ = [
    "DEFAULT_STOCKFISH",
    "Detector",
    "DetectorRules",
    "Evidence",
    "HumanModel",
    "PlayerGame",
    "Record",
    "StockfishDetector",
    "UnanalysableGame",
    "default_model",
    "judge",
    "judge_record",
    "stockfish_path",
]
