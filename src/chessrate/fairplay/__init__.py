"""Fair play: the detector of suspicious moves.

:mod:`.detector` analyses a game's moves and says whether a player's play is
improbable for their rating; :mod:`.job` runs it over the ledger's finished live games
and stores what it found.
"""

from .detector import (
    DEFAULT_STOCKFISH,
    Detector,
    DetectorRules,
    Evidence,
    PlayerStats,
    StockfishDetector,
    UnanalysableGame,
    stockfish_path,
)

__all__ = [
    "DEFAULT_STOCKFISH",
    "Detector",
    "DetectorRules",
    "Evidence",
    "PlayerStats",
    "StockfishDetector",
    "UnanalysableGame",
    "stockfish_path",
]
