"""The model of human play and the detector's judgement, on numbers a person can check:
which moves carry evidence, the sums and scores, the windows inside a game and a
player's record. No engine: the positions are written out."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from chessrate.fairplay import DetectorRules, judge, judge_record
from chessrate.fairplay.analysis import MATE_CP, Position
from chessrate.fairplay.detector import Reason, judge_side
from chessrate.fairplay.model import (
    BAND_EDGES,
    SPREAD_EDGES,
    Cell,
    HumanModel,
    Move,
    Tally,
    default_model,
    evidence_move,
    expected,
    fit,
)
from chessrate.systems.site_live import Side

RULES = replace(
    DetectorRules(), min_moves=10, game_score=4.0, window=15, window_score=4.5,
    record_games=10, record_min_moves=40, record_score=4.0, record_choice_score=4.0,
)  # fmt: skip
"""The flag limits these tests' numbers are worked out for (the shipped ones are the
calibrated ones, tested on real games in test_detector.py)."""


def flat(
    p: float = 0.4, mu: float = 0.05, var: float = 0.0064, rho: float = 0.5, q: float = 0.0
) -> HumanModel:
    """Every cell the same: a human matches 40 % and loses 0.05 (sd 0.08) a move (and
    plays outside the engine's two best ``q`` of the time; 0: no choice score)."""
    cells = {
        (b, s, d): Cell(p, mu, var, 100, q)
        for b in range(len(BAND_EDGES) + 1)
        for s in range(len(SPREAD_EDGES) + 1)
        for d in (False, True)
    }
    return HumanModel(cells, rho, "test")


def move(ply: int, matched: bool, loss: float = 0.0, outside: bool = False) -> Move:
    return Move(ply, "e2e4", "e2e4" if matched else "d2d4", matched, loss, 1, False, outside)


def test_expected_score_is_lichess_winning_chances_curve() -> None:
    assert expected(0) == 0.5
    assert expected(100) == pytest.approx(1 / (1 + math.exp(-0.368208)))
    assert expected(MATE_CP) == pytest.approx(1.0, abs=1e-6)
    assert expected(-MATE_CP) == pytest.approx(0.0, abs=1e-6)
    assert expected(300) + expected(-300) == pytest.approx(1.0)


def test_which_moves_carry_evidence() -> None:
    s = RULES.moves
    top = (("e2e4", 30), ("d2d4", 20), ("g1f3", 10), ("c2c4", 0))
    book = Position(RULES.opening_plies, 20, top, "e2e4")
    forced = Position(21, 1, (("e1f1", -50),), "e1f1")
    only = Position(21, 30, (("d1h5", 900), ("a2a3", 0)), "d1h5")  # the rest lose a queen
    assert evidence_move(book, s) is None
    assert evidence_move(forced, s) is None
    assert evidence_move(only, s) is None
    played = evidence_move(Position(21, 30, top, "h2h3", after=-100), s)
    assert played is not None and not played.matched
    assert played.loss == pytest.approx(expected(30) - expected(-100))
    assert played.spread == 1  # the second choice loses 0.0092 of the expected score
    tie = evidence_move(Position(22, 30, (("e2e4", 30), ("d2d4", 30)), "d2d4"), s)
    assert tie is not None and tie.matched and tie.loss == 0.0 and tie.spread == 0
    blunder = evidence_move(Position(23, 30, top, "d1h5", after=-900), s)
    assert blunder is not None and blunder.loss == RULES.loss_cap  # capped


def test_a_move_outside_the_engines_two_best() -> None:
    """The engine's first choice and its second are inside; any other move, or a move
    the engine did not list, is outside."""
    s = RULES.moves
    top = (("e2e4", 30), ("d2d4", 20))
    first = evidence_move(Position(21, 30, top, "e2e4"), s)
    second = evidence_move(Position(21, 30, top, "d2d4"), s)
    other = evidence_move(Position(21, 30, top, "g1f3", after=10), s)
    assert first is not None and first.matched and not first.outside
    assert second is not None and not second.matched and not second.outside
    assert other is not None and not other.matched and other.outside


def test_the_score_of_a_set_of_moves_by_hand() -> None:
    """Ten moves, eight matched and no loss, against a human's 40 % and 0.05 a move:
    z_match = (8 − 4) / √(10 · 0.24) = 2.582, z_loss = (0.5 − 0) / √(10 · 0.0064) =
    1.976; the score is their sum over √(2 · 1.5)."""
    model = flat()
    tally = model.tally([move(21 + 2 * i, i < 8) for i in range(10)], 1500)
    assert (tally.moves, tally.matches) == (10, 8)
    assert tally.z_match() == pytest.approx(4 / math.sqrt(2.4))
    assert tally.z_loss() == pytest.approx(0.5 / math.sqrt(0.064))
    assert tally.score(0.5) == pytest.approx((4 / math.sqrt(2.4) + 0.5 / 0.252982) / math.sqrt(3))
    again = Tally.from_json(tally.to_json())  # as stored: rounded
    assert again.score(0.5) == pytest.approx(tally.score(0.5), abs=1e-3)
    assert Tally().score(0.5) == 0.0


def test_the_choice_score_of_a_set_of_moves_by_hand() -> None:
    """Ten moves, 5 first choices, 5 second, none outside, against a human's 40 % first
    choices and 40 % outside: (5 − 4) + 2 (4 − 0) = 9 over √(10 (0.24 + 4 · 0.24 + 4 ·
    0.16)) = √18.4."""
    model = flat(q=0.4)
    tally = model.tally([move(21 + 2 * i, i < 5) for i in range(10)], 1500)
    assert tally.outside == 0 and tally.expected_outside == pytest.approx(4.0)
    assert tally.choice_score() == pytest.approx(9 / math.sqrt(18.4))
    again = Tally.from_json(tally.to_json())  # as stored: rounded
    assert again.choice_score() == pytest.approx(tally.choice_score(), abs=1e-3)
    # a tally stored before the choice score has none of its sums: 0, not a guess
    old = {k: v for k, v in tally.to_json().items()
           if k not in ("outside", "expected_outside", "outside_var", "cross")}  # fmt: skip
    assert Tally.from_json(old).choice_score() == 0.0
    assert Tally.from_json(old).score(0.5) == pytest.approx(again.score(0.5))
    # every move outside the two best: far below a human
    worse = model.tally([move(21 + 2 * i, False, 0.05, outside=True) for i in range(10)], 1500)
    assert worse.choice_score() < -3


def test_a_game_inside_the_engines_two_best_is_flagged_by_its_choices() -> None:
    """Fifty moves that match as often as a human's and lose as much in all (20 first
    choices, 30 second choices losing 1/12 each: 0.05 a move), but none outside the two
    best where a human is 40 % of the time: the score says nothing, the choice score
    (2 · 20 / √(50 · 1.84) = 4.17) flags the game; the same moves with a human's share
    outside do not."""
    model = flat(q=0.4)
    inside = [move(21 + 2 * i, i % 5 < 2, 0.0 if i % 5 < 2 else 0.05 / 0.6) for i in range(50)]
    verdict = judge_side(Side.WHITE, 1500, inside, RULES, model)
    assert abs(verdict.score) < 0.01
    assert verdict.choice_score == pytest.approx(40 / math.sqrt(50 * 1.84))
    assert verdict.reason is Reason.CHOICES and verdict.flagged
    data = verdict.to_json()
    assert (data["reason"], data["choice_score"], data["outside_rate"]) == ("choices", 4.17, 0.0)
    assert data["expected_outside_rate"] == 0.4
    stored = type(verdict).from_json(data)
    assert stored is not None and stored.choice_score == pytest.approx(4.17)
    assert stored.reason is Reason.CHOICES
    human = [replace(m, outside=i % 5 >= 3) for i, m in enumerate(inside)]
    assert judge_side(Side.WHITE, 1500, human, RULES, model).reason is None
    # under the minimum of moves a game is not judged whole
    assert judge_side(Side.WHITE, 1500, inside[:9], RULES, model).reason is None


def test_a_rating_between_two_band_centres_blends_their_cells() -> None:
    cells = dict(flat().cells)
    cells[(2, 1, False)] = Cell(0.40, 0.06, 0.01, 50)  # 1400-1599, centre 1500
    cells[(3, 1, False)] = Cell(0.50, 0.04, 0.01, 50)  # 1600-1799, centre 1700
    model = HumanModel(cells, 0.5, "test")
    assert model.cell(1500, 1, False).p == pytest.approx(0.40)
    assert model.cell(1550, 1, False).p == pytest.approx(0.425)
    assert model.cell(1650, 1, False).mu == pytest.approx(0.045)
    assert model.cell(None, 1, False) == cells[(len(BAND_EDGES), 1, False)]  # the top band
    assert model.cell(600, 1, False) == cells[(0, 1, False)]


def test_a_late_switch_is_caught_by_its_window_not_its_game() -> None:
    """Twenty moves like a human's (4 in 10 matched, 0.05 lost), then twenty engine
    moves: the whole game's score stays under the game limit, the run of the last
    twenty passes the window limit; the evidence names those moves."""
    own = [move(21 + 2 * i, i % 5 in (0, 3), 0.0 if i % 5 in (0, 3) else 0.0833) for i in range(20)]
    engine = [move(61 + 2 * i, True) for i in range(20)]
    model = flat()
    rules = replace(RULES, window=20)
    verdict = judge_side(Side.WHITE, 1500, own + engine, rules, model)
    assert verdict.score < rules.game_score
    assert verdict.reason is Reason.WINDOW
    assert [(w.from_ply, w.to_ply) for w in verdict.windows] == [(61, 99)]
    assert verdict.window is not None and verdict.window.score >= rules.window_score
    human = judge_side(Side.WHITE, 1500, own, rules, model)
    assert human.reason is None and human.windows == ()


def test_a_partial_cheater_is_caught_by_the_record_not_one_game() -> None:
    """Five games of 20 moves, 12 matched in each (a human matches 8): no game reaches
    the game limit, the five together reach the record limit, and every game with a
    positive score carries the flag."""
    model = flat()
    rules = replace(RULES, window=50)
    games = []
    for g in range(5):
        moves = [move(21 + 2 * i, i < 12, 0.0 if i < 12 else 0.06) for i in range(20)]
        games.append((f"g{g}", judge_side(Side.WHITE, 1500, moves, rules, model)))
    assert all(not v.flagged and v.score < rules.game_score for _, v in games)
    assert not judge_record(games[:1], rules, model).flagged
    record = judge_record(games, rules, model)
    assert record.score >= rules.record_score and record.flagged
    assert record.carried_by == ("g0", "g1", "g2", "g3", "g4")
    assert record.tally.moves == 100


def test_a_record_inside_the_engines_two_best_is_flagged_by_its_choices() -> None:
    """Five games of 20 moves, each as a human's in matches and in loss (8 first
    choices, 12 second choices losing 1/12 each: 0.05 a move) but never outside the
    engine's two best, where a human is 40 % of the time: no game reaches a limit
    (choice score 2 · 8 / √(20 · 1.84) = 2.64), the five together do (80 / √184 = 5.90)
    with a score of 0; the same games with a human's share outside do not."""
    model = flat(q=0.4)
    rules = replace(RULES, window=50)
    inside = [move(21 + 2 * i, i % 5 < 2, 0.0 if i % 5 < 2 else 0.05 / 0.6) for i in range(20)]
    human = [replace(m, outside=i % 5 >= 3) for i, m in enumerate(inside)]
    games = [(f"g{g}", judge_side(Side.WHITE, 1500, inside, rules, model)) for g in range(5)]
    assert all(not v.flagged for _, v in games)
    assert games[0][1].choice_score == pytest.approx(16 / math.sqrt(36.8))
    record = judge_record(games, rules, model)
    assert record.flagged and record.by == "choices" and record.by_choices
    assert record.choice_score == pytest.approx(80 / math.sqrt(184))
    assert abs(record.score) < 0.01
    assert record.carried_by == ("g0", "g1", "g2", "g3", "g4")
    assert not judge_record(games[:2], rules, model).flagged  # under record_min_games
    plain = [(f"h{g}", judge_side(Side.WHITE, 1500, human, rules, model)) for g in range(5)]
    assert judge_record(plain, rules, model).by is None
    # the score first: a record both reach is said to be flagged by its score
    strong = [move(21 + 2 * i, i < 12) for i in range(20)]
    both = [(f"s{g}", judge_side(Side.WHITE, 1500, strong, rules, model)) for g in range(5)]
    judged = judge_record(both, rules, model)
    assert judged.by == "score" and judged.choice_score >= rules.record_choice_score


def test_the_record_is_the_last_games_only() -> None:
    model = flat()
    clean = judge_side(Side.WHITE, 1500, [move(21 + 2 * i, i < 8) for i in range(20)], RULES, model)
    history = [(f"g{i}", clean) for i in range(15)]
    record = judge_record(history, RULES, model)
    assert [gid for gid, _ in record.games] == [f"g{i}" for i in range(5, 15)]


def test_judge_names_the_suspicious_moves_of_a_flagged_player() -> None:
    top = (("e2e4", 20), ("d2d4", 10), ("g1f3", 0), ("c2c4", -10))
    positions = [Position(11 + i, 30, top, "e2e4" if i % 2 == 0 else "d2d4") for i in range(60)]
    evidence = judge(positions, {Side.WHITE: 1200, Side.BLACK: 1200}, RULES, flat())
    assert evidence.flagged == (Side.WHITE,)  # White matched all 30, Black none
    data = evidence.to_json()
    assert data["version"] == 2 and data["flagged"] == ["white"]
    assert data["white"]["reason"] == "game" and data["black"]["flagged"] is False
    suspicious = [m["ply"] for m in data["moves"] if m["suspicious"]]
    assert suspicious == list(range(11, 71, 2))


def test_the_fit_counts_each_cell_and_lends_to_thin_ones() -> None:
    samples = [
        (1500, [move(21, True), move(23, False, 0.1, outside=True)]), (2700, [move(21, True)]),
    ]  # fmt: skip
    model = fit(samples, "two games", prior_moves=0.0)
    assert model.cells[(2, 1, False)] == Cell(0.5, 0.05, pytest.approx(0.0025), 2, 0.5)  # type: ignore[arg-type]
    assert model.cells[(8, 1, False)].q == 0.005  # none outside: kept off 0
    assert model.cells[(8, 1, False)].p == 0.995  # all matched: kept off 1
    assert model.cells[(0, 1, False)].n == 0


def test_the_shipped_model_is_fitted_on_every_band() -> None:
    model = default_model()
    assert "held out" in model.fitted_on
    for band in range(len(BAND_EDGES) + 1):
        assert model.cells[(band, 1, False)].n > 0
    # stronger players find the best move more often in the same kind of position, and
    # play outside the engine's two best less often
    assert model.cell(2700, 1, False).p > model.cell(1100, 1, False).p
    assert 0 < model.cell(2700, 1, False).q < model.cell(1100, 1, False).q < 1
