"""Real human games are not flagged: lichess games copied into
tests/data/pgn/lichess_human_games.pgn (source in tests/data/README.md)."""

from __future__ import annotations

import pytest

from chessrate.fairplay import DetectorRules, StockfishDetector
from chessrate.systems.site_live import Side

from .conftest import human_games


@pytest.mark.parametrize("index", range(3))
def test_a_real_human_game_is_not_flagged(detector: StockfishDetector, index: int) -> None:
    """Human lichess games (tests/data/pgn/lichess_human_games.pgn), among the most
    engine-like of the calibration sample."""
    game = human_games()[index]
    ratings = {
        Side.WHITE: int(game.headers["WhiteElo"]), Side.BLACK: int(game.headers["BlackElo"]),
    }  # fmt: skip
    moves = [move.uci() for move in game.mainline_moves()]
    evidence = detector.analyse(moves, ratings)
    assert evidence.complete
    assert min(evidence.white.moves, evidence.black.moves) >= DetectorRules().min_moves
    assert evidence.flagged == ()
