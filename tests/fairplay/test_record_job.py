"""The detector's job on a ledger: a player's record is judged after each analysed game,
and a record flag files one report, accusing them, on the newest game, naming the
games that carry it; a game flagged alone files its own report per accused side. The
detector here is scripted (its evidence worked out from written positions, no
engine): what is tested is the job's bookkeeping."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from chessrate.fairplay import DetectorRules, Evidence, PlayerGame, judge, judge_record
from chessrate.fairplay.analysis import Position
from chessrate.fairplay.job import DetectionJob
from chessrate.fairplay.model import expected
from chessrate.records import GameRecord, Result
from chessrate.systems.site_live import Side
from chessrate.timecontrol import parse_time_control
from tests.ledger.helpers import NOW, ledger_with

from .test_model import flat

RULES = replace(
    DetectorRules(), opening_plies=10, min_moves=10, game_score=4.0, window=50,
    window_score=4.5, record_games=10, record_min_moves=40, record_score=4.0,
    record_choice_score=4.0,
)  # fmt: skip
LINE = tuple(
    "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8 "  # noqa: SIM905
    "h2h3 c6a5 b3c2 c7c5 d2d4 d8c7 b1d2 c5d4 c3d4 a5c6 d2b3 a6a5 c1e3 a5a4 b3d2 c8d7".split()
)
TOP = (("e2e4", 20), ("d2d4", 10), ("g1f3", 0), ("c2c4", -10))


class Scripted:
    """White matches 12 of its 20 moves in every game (a human of the flat model
    matches 8), Black none: no game is improbable alone, White's games together are."""

    rules = RULES
    model = flat()

    def __init__(self, white_matches: int = 12) -> None:
        self.white_matches = white_matches

    def analyse(self, moves: Sequence[str | None], ratings: Mapping[Side, int | None]) -> Evidence:
        positions = []
        for i in range(40):
            ply = 11 + i
            white = ply % 2 == 1
            matched = white and i // 2 < self.white_matches
            played = "e2e4" if matched else "b1c3"
            positions.append(Position(ply, 30, TOP, played, None if matched else -30))
        return judge(positions, ratings, self.rules, self.model, "scripted")

    def close(self) -> None:
        pass


def submit(ledger: object, game_id: str, minutes: int) -> None:
    ledger.games.submit(  # type: ignore[attr-defined]
        GameRecord(
            id=game_id, played_at=NOW + timedelta(minutes=minutes), white="ana", black="ben",
            result=Result.DRAW, time_control=parse_time_control("5m+3s"),
            plies=len(LINE), moves=tuple(LINE),
        ),
        NOW,
    )  # fmt: skip


def test_a_record_flag_files_one_report_on_the_newest_game(tmp_path: Path) -> None:
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    job = DetectionJob(ledger, Scripted(), lambda: NOW, RULES)
    flagged_at = None
    for number in range(1, 7):
        submit(ledger, f"g{number}", number * 10)
        report = job.run(5)
        assert [view.game_id for view in report.analysed] == [f"g{number}"]
        record = job.record_of("ana")
        assert record is not None and len(record.games) == number
        assert not any(game.flagged for _, game in record.games)  # none alone
        if flagged_at is not None:  # flagged already: the case is open, nothing more
            assert report.flags == [] and record.flagged
        elif report.flags:
            flagged_at = number
            assert report.flags == [(f"g{number}", "ana")]
            assert record.flagged and record.score >= RULES.record_score
    assert flagged_at is not None and flagged_at > 1
    first = f"g{flagged_at}"
    (filed,) = ledger.reviews.get(first).reports
    assert (filed.by, filed.source, filed.accused) == (
        "detector:stockfish:white",
        "detector",
        "ana",
    )
    assert filed.evidence is not None and filed.evidence["kind"] == "record"
    assert [g["game"] for g in filed.evidence["games"]] == [
        f"g{n}" for n in range(1, flagged_at + 1)
    ]
    assert all(g["carries"] for g in filed.evidence["games"])
    assert "over their last" in filed.reason
    assert ledger.analyses.get(first).flags == ("ana",)
    later = [f"g{n}" for n in range(flagged_at + 1, 7)]
    assert later and all(ledger.analyses.get(g).flags == () for g in later)
    assert job.record_of("ben") is not None and not job.record_of("ben").flagged  # type: ignore[union-attr]
    ledger.dispose()


def test_a_game_flagged_alone_is_reported_per_accused_side(tmp_path: Path) -> None:
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    submit(ledger, "g1", 10)
    report = DetectionJob(ledger, Scripted(white_matches=20), lambda: NOW, RULES).run(5)
    assert report.flags == [("g1", "ana")]
    (filed,) = ledger.reviews.get("g1").reports
    assert filed.by == "detector:stockfish:white" and filed.accused == "ana"
    assert filed.evidence is not None and filed.evidence["white"]["reason"] == "game"
    ledger.dispose()


class Inside(Scripted):
    """White, over 50 moves, takes the engine's first choice as often as a human (2 in
    5) and its second every other time, never a move outside its two best (a human of
    this model: 40 % of the time); Black plays outside them every time."""

    model = flat(q=0.4)
    plies = 100

    def analyse(self, moves: Sequence[str | None], ratings: Mapping[Side, int | None]) -> Evidence:
        positions = []
        for i in range(self.plies):
            ply = 11 + i
            if ply % 2 == 1:
                played = "e2e4" if (i // 2) % 5 < 2 else "d2d4"
                positions.append(Position(ply, 30, TOP, played))
            else:
                positions.append(Position(ply, 30, TOP, "b1c3", -30))
        return judge(positions, ratings, self.rules, self.model, "scripted")


def test_a_game_flagged_by_its_choices_is_reported_in_those_words(tmp_path: Path) -> None:
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    submit(ledger, "g1", 10)
    report = DetectionJob(ledger, Inside(), lambda: NOW, RULES).run(5)
    assert report.flags == [("g1", "ana")]
    (filed,) = ledger.reviews.get("g1").reports
    assert filed.evidence is not None
    white = filed.evidence["white"]
    assert (white["reason"], white["choice_score"]) == ("choices", 4.17)
    assert white["score"] < RULES.game_score  # the score alone would not flag it
    assert filed.reason == (
        "engine-like play by ana: choice score 4.2 over the whole game (score "
        f"{white['score']:.1f}; 0% of moves outside the engine's two best), 50 moves, "
        "40% engine matches"
    )
    ledger.dispose()


class InsideRecord(Inside):
    """As :class:`Inside` over 20 moves a game, losing as much as a human of this model
    in all: each game's choice score is 2.64, three games' 4.57, and their score 0."""

    model = flat(q=0.4, mu=0.6 * (expected(20) - expected(10)))
    plies = 40


def test_a_record_flagged_by_its_choices_is_reported_in_those_words(tmp_path: Path) -> None:
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    job = DetectionJob(ledger, InsideRecord(), lambda: NOW, RULES)
    for number in range(1, 4):
        submit(ledger, f"g{number}", number * 10)
        report = job.run(5)
        assert report.flags == ([("g3", "ana")] if number == 3 else [])
    (filed,) = ledger.reviews.get("g3").reports
    evidence = filed.evidence
    assert evidence is not None and evidence["kind"] == "record"
    assert (evidence["by"], evidence["choice_score"]) == ("choices", 4.57)
    assert abs(evidence["score"]) < 0.05
    assert [g["choice_score"] for g in evidence["games"]] == [2.64, 2.64, 2.64]
    assert filed.reason == (
        "engine-like play by ana over their last 3 games: choice score 4.6 (score "
        f"{evidence['score']:.1f}; 60 moves); carried by g1, g2, g3"
    )
    ledger.dispose()


def test_a_record_adds_up_only_analyses_of_the_same_search(tmp_path: Path) -> None:
    """Games analysed at another depth (an earlier release's, say) stay listed but are
    not added to the record: their matches are not on the model's scale."""
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    shallow = Scripted()
    shallow.rules = replace(RULES, depth=9)
    for number in range(1, 6):
        submit(ledger, f"g{number}", number * 10)
    assert len(DetectionJob(ledger, shallow, lambda: NOW, RULES).run(5).analysed) == 5
    assert ledger.analyses.get("g1").limits["depth"] == 9
    job = DetectionJob(ledger, Scripted(), lambda: NOW, RULES)
    assert job.record_of("ana") is None  # nothing of today's search yet
    assert DetectionJob(ledger, shallow, lambda: NOW, RULES).record_of("ana") is not None
    submit(ledger, "g6", 60)
    report = job.run(5)
    assert [view.game_id for view in report.analysed] == ["g6"]
    record = job.record_of("ana")
    assert record is not None and [gid for gid, _ in record.games] == ["g6"]
    assert not record.flagged and report.flags == []
    views = list(reversed(ledger.analyses.recent_of("ana")))
    assert len(views) == 6
    every = []
    for view in views:
        assert view.evidence is not None
        found = PlayerGame.from_json(view.evidence["white"])  # ana is White in every game
        assert found is not None
        every.append((view.game_id, found))
    assert judge_record(every, RULES, Scripted.model).flagged  # all six added up would be
    ledger.dispose()
