"""Fixtures of the detector tests: Stockfish (``/usr/games/stockfish``, else
``$CHESSRATE_STOCKFISH``; ``./test`` installs Debian's package), a game in which White
played the engine's first choice every move, and real human games."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import pytest

from chessrate.fairplay import DetectorRules, StockfishDetector, stockfish_path
from chessrate.fairplay.analysis import search

PGN = Path(__file__).parents[1] / "data" / "pgn" / "lichess_human_games.pgn"

OPENING = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8"
"""The Ruy Lopez, closed, to ply 16: both sides' moves up to here are not analysed."""

ENGINE_GAME_PLIES = 90


@pytest.fixture(scope="session")
def detector() -> Iterator[StockfishDetector]:
    """The built-in detector at the calibrated rules."""
    path = stockfish_path()
    assert Path(path).is_file(), f"{path}: install Debian's stockfish (./test does)"
    with StockfishDetector(DetectorRules()) as found:
        yield found


@pytest.fixture(scope="session")
def engine_game(detector: StockfishDetector) -> list[str]:
    """After the opening White plays the detector's own first choice every move: the
    same searches in the same order as its analysis (its depth and candidates, every
    position from its first analysed one, the hash kept between them); Black picks at
    random (seed 16) among the three best moves of a depth-4 search of a second
    engine, a club player's game. UCI moves, to ply 90 or the end."""
    rng = random.Random(16)
    rules = detector.rules
    board = chess.Board()
    weak = chess.engine.SimpleEngine.popen_uci(stockfish_path())
    game = object() if rules.keep_hash else None
    try:
        for uci in OPENING.split():
            if len(board.move_stack) >= rules.opening_plies:
                search(detector.engine, board, rules.depth, rules.candidates, game)
            board.push_uci(uci)
        while len(board.move_stack) < ENGINE_GAME_PLIES and not board.is_game_over():
            top = search(detector.engine, board, rules.depth, rules.candidates, game)
            if board.turn == chess.WHITE:
                board.push_uci(top[0][0])
            else:
                infos = weak.analyse(board, chess.engine.Limit(depth=4), multipv=3)
                board.push(rng.choice([info["pv"][0] for info in infos]))
    finally:
        weak.quit()
    return [move.uci() for move in board.move_stack]


def human_games() -> list[chess.pgn.Game]:
    games = []
    with PGN.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games
