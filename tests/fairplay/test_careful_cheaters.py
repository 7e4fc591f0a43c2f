"""The detector on careful cheaters and on humans it was not fitted on, with a real
Stockfish at the shipped rules and model.

The games are in tests/data/fairplay (SOURCE.md there): a late switcher (a real
human's first twenty moves, then Stockfish at depth 12), a partial cheater's five
games (Stockfish on a share of the moves) and a human game of the held-out part of
the calibration corpus. Each is analysed here, now; nothing is read from a stored
analysis.
"""

from __future__ import annotations

from pathlib import Path

import chess.pgn

from chessrate.fairplay import DetectorRules, StockfishDetector, judge_record
from chessrate.fairplay.detector import Reason
from chessrate.fairplay.screen import read_pgn
from chessrate.systems.site_live import Side

DATA = Path(__file__).parents[1] / "data" / "fairplay"
RULES = DetectorRules()


def cheater_side(path: Path, index: int) -> Side:
    """The ``Cheater`` tag of the file's ``index``-th game."""
    with path.open(encoding="utf-8") as handle:
        for _ in range(index):
            chess.pgn.read_headers(handle)
        headers = chess.pgn.read_headers(handle)
    assert headers is not None
    return Side(headers["Cheater"])


def test_a_late_switcher_is_flagged_by_its_window_not_its_whole_game(
    detector: StockfishDetector,
) -> None:
    path = DATA / "late_switcher.pgn"
    (game,) = read_pgn(path)
    side = cheater_side(path, 0)
    evidence = detector.analyse(list(game.moves), game.ratings)
    mine = evidence.side(side)
    assert mine.score < RULES.game_score  # the whole game is not improbable
    assert mine.choice_score < RULES.choice_score  # nor are its choices
    assert mine.reason is Reason.WINDOW
    # after move 20: the most a window holds of the player's own play is its last move
    assert mine.windows and all(w.from_ply >= 40 for w in mine.windows)
    assert all(w.score >= RULES.window_score for w in mine.windows)
    marked = [m["ply"] for m in evidence.to_json()["moves"] if m["suspicious"]]
    assert marked and min(marked) >= 40
    assert evidence.flagged == (side,)


def test_a_partial_cheater_is_flagged_on_five_games_and_on_none_alone(
    detector: StockfishDetector,
) -> None:
    path = DATA / "partial_cheater.pgn"
    played = []
    for index, game in enumerate(read_pgn(path)):
        side = cheater_side(path, index)
        evidence = detector.analyse(list(game.moves), game.ratings)
        assert not evidence.side(side).flagged, game.id
        played.append((game.id, evidence.side(side)))
    assert len(played) == 5
    record = judge_record(played, RULES, detector.model)
    assert record.score >= RULES.record_score and record.flagged
    assert record.carried_by and set(record.carried_by) <= {gid for gid, _ in played}
    assert not judge_record(played[:1], RULES, detector.model).flagged


def test_a_held_out_human_game_is_not_flagged(detector: StockfishDetector) -> None:
    for game in read_pgn(DATA / "held_out_humans.pgn"):
        evidence = detector.analyse(list(game.moves), game.ratings)
        assert evidence.flagged == (), game.id
        assert min(evidence.white.moves, evidence.black.moves) >= RULES.min_moves
