"""The detector: exact statistics on a line a person can check, the flag rule, and a
game where White played the engine's first choice every move is flagged."""

from __future__ import annotations

from dataclasses import replace

import chess
import pytest

from chessrate.errors import InvalidInput
from chessrate.fairplay import DetectorRules, StockfishDetector
from chessrate.fairplay.detector import Band, MoveCheck, PlayerStats, parse_moves
from chessrate.systems.site_live import Side

SCHOLARS_MATE = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


def test_exact_statistics_on_a_hand_checkable_line(detector: StockfishDetector) -> None:
    """1.e4 e5 2.Bc4 Nc6 3.Qh5 Nf6?? 4.Qxf7#, analysed from ply 6 at depth 6. Before
    3...Nf6 Black is fine (evaluation >= 0 for Black); after it White mates in one, which
    is -1000 for Black: the loss is at least 1000, capped at 1000. 4.Qxf7# is the mate in
    one, the engine's first choice: a match, no loss."""
    rules = replace(DetectorRules(), opening_plies=5, depth=6, min_moves=1)
    with StockfishDetector(rules, detector.path) as short:
        best, black_eval = short.best(_board(SCHOLARS_MATE[:5]))
        evidence = short.analyse(SCHOLARS_MATE, {Side.WHITE: 1500, Side.BLACK: None})
    assert best is not None and best.uci() != "g8f6"
    assert black_eval >= 0
    assert evidence.checks == (
        MoveCheck(6, "g8f6", best.uci(), 1000),
        MoveCheck(7, "h5f7", "h5f7", 0),
    )
    assert evidence.white == PlayerStats(Side.WHITE, 1500, moves=1, matches=1, total_loss=0)
    assert evidence.black == PlayerStats(Side.BLACK, None, moves=1, matches=0, total_loss=1000)
    assert (evidence.white.match_rate, evidence.white.acpl) == (1.0, 0.0)
    assert (evidence.black.match_rate, evidence.black.acpl) == (0.0, 1000.0)
    assert evidence.complete
    assert evidence.engine.startswith("Stockfish")
    assert evidence.flagged == (Side.WHITE,)  # min_moves 1: one perfect move is enough here
    assert evidence.to_json()["white"] == {
        "side": "white", "rating": 1500, "moves": 1, "matches": 1, "match_rate": 1.0,
        "acpl": 0.0,
    }  # fmt: skip


def test_a_forced_move_is_not_counted(detector: StockfishDetector) -> None:
    """1.e4 f5 2.Qh5+ g6 3.Qxg6+ hxg6, from ply 3: 2...g6 and 3...hxg6 are Black's only
    legal moves and are left out; White's two moves count."""
    rules = replace(DetectorRules(), opening_plies=2, depth=6, min_moves=1)
    line = ["e4", "f5", "Qh5+", "g6", "Qxg6+", "hxg6"]
    with StockfishDetector(rules, detector.path) as short:
        evidence = short.analyse(line, {Side.WHITE: None, Side.BLACK: None})
    assert [check.ply for check in evidence.checks] == [3, 5]
    assert (evidence.white.moves, evidence.black.moves) == (2, 0)
    assert evidence.black.match_rate == 0.0 and evidence.black.acpl == 0.0


def test_moves_are_read_as_uci_or_san_and_must_be_legal() -> None:
    assert [m.uci() for m in parse_moves(["e2e4", "e5", "Nf3", "b8c6"])] == [
        "e2e4", "e7e5", "g1f3", "b8c6",
    ]  # fmt: skip
    with pytest.raises(InvalidInput, match="ply 2: 'e4' is not a legal move"):
        parse_moves(["e4", "e4"])
    with pytest.raises(InvalidInput, match="ply 1: the move was not recorded"):
        parse_moves([None, "e5"])


def test_the_flag_rule_by_rating_band() -> None:
    rules = DetectorRules(min_moves=20, bands=(Band(1600, 0.80, 20.0), Band(None, 0.90, 10.0)))

    def stats(rating: int | None, moves: int, matches: int, loss: int) -> PlayerStats:
        return PlayerStats(Side.WHITE, rating, moves, matches, loss)

    assert rules.improbable(stats(1500, 20, 16, 400))  # 80 %, ACPL 20: both limits met
    assert not rules.improbable(stats(1500, 20, 15, 0))  # 75 %
    assert not rules.improbable(stats(1500, 20, 20, 420))  # ACPL 21
    assert not rules.improbable(stats(1500, 19, 19, 0))  # too few moves
    assert not rules.improbable(stats(1700, 20, 16, 400))  # the upper band wants more
    assert rules.improbable(stats(1700, 20, 18, 200))
    assert not rules.improbable(stats(None, 20, 17, 0))  # unknown: the hardest band
    assert rules.band(1599).below == 1600 and rules.band(1600).below is None


def test_the_engine_game_flags_white_only(
    detector: StockfishDetector, engine_game: list[str]
) -> None:
    evidence = detector.analyse(engine_game, {Side.WHITE: 1500, Side.BLACK: 1500})
    assert evidence.complete
    assert evidence.white.moves >= DetectorRules().min_moves
    assert evidence.white.match_rate == 1.0
    assert evidence.white.acpl == 0.0
    assert evidence.flagged == (Side.WHITE,)
    assert evidence.black.match_rate < 0.8


def _board(san: list[str]) -> chess.Board:
    board = chess.Board()
    for move in san:
        board.push_san(move)
    return board


def test_the_analysis_of_a_game_is_bounded(detector: StockfishDetector) -> None:
    """The position limit and the time budget cut the analysis short, and say so."""
    line = [*SCHOLARS_MATE[:6], "Qxf7+"]  # 4.Qxf7+ is mate: the same line
    few = replace(DetectorRules(), opening_plies=4, depth=4, max_positions=1, min_moves=1)
    with StockfishDetector(few, detector.path) as short:
        cut = short.analyse(line, {Side.WHITE: None, Side.BLACK: None})
    assert [check.ply for check in cut.checks] == [5] and not cut.complete
    no_time = replace(few, max_positions=240, game_seconds=0.0)
    with StockfishDetector(no_time, detector.path) as short:
        late = short.analyse(line, {Side.WHITE: None, Side.BLACK: None})
    assert late.checks == () and not late.complete and late.flagged == ()
