"""The detector with a real Stockfish: the analysis of positions on a line a person can
check, forced moves left out, the budget, and a game where White played the engine's
first choice every move is flagged."""

from __future__ import annotations

from dataclasses import replace

import chess
import pytest

from chessrate.errors import InvalidInput
from chessrate.fairplay import DetectorRules, StockfishDetector
from chessrate.fairplay.analysis import MATE_CP, search
from chessrate.fairplay.detector import Reason, parse_moves
from chessrate.fairplay.model import expected
from chessrate.systems.site_live import Side

SCHOLARS_MATE = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


def test_the_positions_of_a_hand_checkable_line(detector: StockfishDetector) -> None:
    """1.e4 e5 2.Bc4 Nc6 3.Qh5 Nf6?? 4.Qxf7#, analysed from ply 6 at the detector's
    depth. Before
    3...Nf6 Black is fine; 3...Nf6 is not among the engine's best (White mates at
    once: its value for Black is read from the next search, a mate against). 4.Qxf7# is
    White's best, a mate, and the only reasonable move: no evidence. The loss of Nf6 is
    the whole expected score, capped."""
    rules = replace(DetectorRules(), opening_plies=5, min_moves=1)
    with StockfishDetector(rules, detector.path) as short:
        analysis = short.positions(SCHOLARS_MATE)
        top = search(short.engine, _board(SCHOLARS_MATE[:5]), rules.depth, rules.candidates)
        evidence = short.analyse(SCHOLARS_MATE, {Side.WHITE: 1500, Side.BLACK: None})
    nf6, qxf7 = analysis.positions
    assert (nf6.ply, nf6.played, nf6.top) == (6, "g8f6", top)
    assert "g8f6" not in [m for m, _ in top] and top[0][1] >= -50
    assert nf6.after is not None and nf6.after <= -(MATE_CP - 5)
    assert (qxf7.ply, qxf7.played, qxf7.top[0][0]) == (7, "h5f7", "h5f7")
    assert qxf7.top[0][1] >= MATE_CP - 5 and qxf7.after is None
    assert analysis.complete
    (black,) = evidence.moves
    assert black.ply == 6 and black.loss == rules.loss_cap and not black.matched
    assert expected(qxf7.top[0][1]) - expected(qxf7.top[1][1]) >= rules.only_move_gap
    assert evidence.engine.startswith("Stockfish")
    assert (evidence.white.moves, evidence.black.moves) == (0, 1)


def test_a_forced_move_carries_no_evidence(detector: StockfishDetector) -> None:
    """1.e4 f5 2.Qh5+ g6 3.Qxg6+ hxg6, from ply 3: 2...g6 and 3...hxg6 are Black's only
    legal moves; White's two moves may count (unless one is the only reasonable one)."""
    rules = replace(DetectorRules(), opening_plies=2, depth=6, min_moves=1)
    line = ["e4", "f5", "Qh5+", "g6", "Qxg6+", "hxg6"]
    with StockfishDetector(rules, detector.path) as short:
        analysis = short.positions(line)
        evidence = short.analyse(line, {Side.WHITE: None, Side.BLACK: None})
    assert [(p.ply, p.legal) for p in analysis.positions if p.ply % 2 == 0] == [(4, 1), (6, 1)]
    assert evidence.black.moves == 0
    assert all(m.ply % 2 == 1 for m in evidence.moves)


def test_moves_are_read_as_uci_or_san_and_must_be_legal() -> None:
    assert [m.uci() for m in parse_moves(["e2e4", "e5", "Nf3", "b8c6"])] == [
        "e2e4", "e7e5", "g1f3", "b8c6",
    ]  # fmt: skip
    with pytest.raises(InvalidInput, match="ply 2: 'e4' is not a legal move"):
        parse_moves(["e4", "e4"])
    with pytest.raises(InvalidInput, match="ply 1: the move was not recorded"):
        parse_moves([None, "e5"])


def test_the_engine_game_flags_white_only(
    detector: StockfishDetector, engine_game: list[str]
) -> None:
    evidence = detector.analyse(engine_game, {Side.WHITE: 1500, Side.BLACK: 1500})
    assert evidence.complete
    assert evidence.white.match_rate >= 0.9  # the same search: almost every move matches
    assert evidence.white.reason is Reason.GAME
    assert evidence.flagged == (Side.WHITE,)
    assert evidence.black.match_rate < 0.8
    data = evidence.to_json()
    assert all(m["suspicious"] for m in data["moves"] if m["ply"] % 2 == 1)


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
        cut = short.positions(line)
    assert [p.ply for p in cut.positions] == [5] and not cut.complete
    no_time = replace(few, max_positions=240, game_seconds=0.0)
    with StockfishDetector(no_time, detector.path) as short:
        late = short.analyse(line, {Side.WHITE: None, Side.BLACK: None})
    assert late.moves == () and not late.complete and late.flagged == ()
