"""The fair-play detector in the service: games submitted with moves wait for it (with
each side's rating before the game), ``chessrate serve`` runs it by default when
Stockfish is found and says so in one line, one analysis at a time on the machine,
and ``/healthz`` shows the queue."""

from __future__ import annotations

import logging
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from chessrate.application.settings import Settings
from chessrate.fairplay import DetectorRules, Evidence, default_model, judge, stockfish_path
from chessrate.fairplay.background import MachineLock, locked_run, plan
from chessrate.fairplay.job import DetectionJob
from chessrate.ledger import Ledger
from chessrate.ledger.analyses import AnalysisCounts
from chessrate.records import GameRecord, Result
from chessrate.server import create_app
from chessrate.systems.site_live import Side
from chessrate.timecontrol import parse_time_control
from tests.ledger.helpers import NOW, ledger_with
from tests.service.conftest import TestClient
from tests.support.server import server_process, written

MOVETEXT = (
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O "
    "9. h3 Nb8 10. d4 Nbd7 1/2-1/2"
)
"""A short game (20 plies): the detector analyses its plies from 17 on."""
UCI = [
    "e2e4",
    "e7e5",
    "g1f3",
    "b8c6",
    "f1b5",
    "a7a6",
    "b5a4",
    "g8f6",
    "e1g1",
    "f8e7",
    "f1e1",
    "b7b5",
    "a4b3",
    "d7d6",
    "c2c3",
    "e8g8",
    "h2h3",
    "c6b8",
    "d2d4",
    "b8d7",
]


def record(
    game_id: str, minutes: int, moves: Sequence[str] | None = UCI, **fields: Any
) -> GameRecord:
    return GameRecord(
        id=game_id, played_at=NOW + timedelta(minutes=minutes), white="ana", black="ben",
        result=Result.DRAW, time_control=parse_time_control("5m+3s"),
        plies=None if moves is None else len(moves),
        moves=None if moves is None else tuple(moves), **fields,
    )  # fmt: skip


class Stub:
    """A detector that needs no engine: it finds nothing, and may wait to be let go."""

    def __init__(self, release: threading.Event | None = None) -> None:
        self.release = release
        self.rules = DetectorRules()
        self.model = default_model()
        self.started = threading.Event()
        self.seen: list[tuple[tuple[str | None, ...], dict[Side, int | None]]] = []

    def analyse(self, moves: Sequence[str | None], ratings: Mapping[Side, int | None]) -> Evidence:
        self.started.set()
        if self.release is not None:
            assert self.release.wait(30)
        self.seen.append((tuple(moves), dict(ratings)))
        return judge((), ratings, self.rules, self.model, "stub")  # no moves: nothing found

    def close(self) -> None:
        pass


# -- the queue --------------------------------------------------------------------------


def test_games_submitted_with_moves_wait_for_the_detector(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    try:
        ledger.games.submit(record("warm-up", 0, moves=None), NOW)  # rates both: 1500 → …
        ledger.games.submit(record("posted", 10), NOW)
        opening = DetectorRules().opening_plies
        ledger.games.submit(record("short", 20, moves=UCI[:opening]), NOW)  # nothing after it
        ledger.games.submit(record("unrated", 30, rated=False), NOW)
        ledger.games.submit(record("annulled", 40), NOW)
        ledger.annulments.annul("annulled", "test", None, NOW)
        min_plies = DetectorRules().opening_plies + 1
        (waiting,) = ledger.analyses.pending(10, min_plies)
        assert (waiting.id, waiting.moves) == ("posted", tuple(UCI))
        before = {c.player: int(c.before or 0) for c in ledger.games.get("posted").changes}
        assert waiting.ratings == {
            Side.WHITE: before["ana"],
            Side.BLACK: before["ben"],
        }
        assert waiting.player(Side.BLACK) == "ben"
        assert ledger.analyses.counts(min_plies) == AnalysisCounts(1, 0, 0)
        stub = Stub()
        report = DetectionJob(ledger, stub, lambda: NOW).run(10)
        assert [view.game_id for view in report.analysed] == ["posted"]
        assert waiting.games == {Side.WHITE: 1, Side.BLACK: 1}  # the warm-up
        # one rated game is too few to tell a player's strength: judged as the top band
        assert stub.seen == [(tuple(UCI), {Side.WHITE: None, Side.BLACK: None})]
        assert ledger.analyses.pending(10, min_plies) == []
        assert ledger.analyses.counts(min_plies) == AnalysisCounts(0, 1, 0)
    finally:
        ledger.dispose()


# -- one analysis at a time --------------------------------------------------------------


def test_one_analysis_at_a_time_a_second_job_skips_its_round(tmp_path: Path) -> None:
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    ledger.games.submit(record("g1", 0), NOW)
    ledger.games.submit(record("g2", 1), NOW)
    path = tmp_path / "detector.lock"
    release = threading.Event()
    slow = Stub(release)
    first: list[Any] = []

    def run_first() -> None:
        job = DetectionJob(ledger, slow, lambda: NOW)
        first.append(locked_run(lambda: job.run(1), MachineLock(path)))

    thread = threading.Thread(target=run_first)
    thread.start()
    try:
        assert slow.started.wait(30)
        other = Stub()
        job = DetectionJob(ledger, other, lambda: NOW)
        assert locked_run(lambda: job.run(1), MachineLock(path)) is None  # skipped
        assert other.seen == []
    finally:
        release.set()
        thread.join(30)
    assert [view.game_id for view in first[0].analysed] == ["g1"]
    # The lock is free again: the next round runs.
    report = locked_run(lambda: job.run(1), MachineLock(path))
    assert report is not None and [view.game_id for view in report.analysed] == ["g2"]
    ledger.dispose()


# -- on or off, and why ------------------------------------------------------------------


def test_the_plan_says_why_the_detector_is_on_or_off(tmp_path: Path) -> None:
    engine = tmp_path / "stockfish"
    engine.write_text("#!/bin/sh\n")
    engine.chmod(0o755)
    on = plan("site", True, None, str(engine))
    assert (on.on, on.interval, on.engine) == (True, 30.0, str(engine))
    assert on.line() == (
        f"fair-play detector on: {engine}, every 30 s, one analysis at a time on this "
        "machine (the default)"
    )
    assert plan("site", True, 5, str(engine)).interval == 5
    assert plan("site", True, 0, str(engine)).line() == (
        "fair-play detector off: turned off by CHESSRATE_DETECT_SECONDS=0"
    )
    missing = plan("site", True, None, "/nonexistent")
    assert not missing.on and "no Stockfish at /nonexistent" in missing.why
    assert "not a site ledger" in plan("fide", False, None, str(engine)).why


def test_healthz_shows_the_detector_and_its_queue(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    ledger.games.submit(record("g1", 0), NOW)
    settings = Settings(stockfish="/nonexistent", detect_seconds=None)
    with (
        caplog.at_level(logging.INFO, "chessrate"),
        TestClient(create_app(ledger, settings=settings)) as client,
    ):
        health = client.get("/healthz").json()
    assert health["status"] == "ok"
    detector = health["detector"]
    assert detector["state"] == "off"
    assert detector["why"].startswith("no Stockfish at /nonexistent")
    assert (detector["pending"], detector["analysed"], detector["flagged"]) == (1, 0, 0)
    assert detector["last_run"] is None
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("fair-play")]
    assert lines == [f"fair-play detector off: {detector['why']}"]
    ledger.dispose()


def test_serve_says_at_start_up_when_stockfish_is_missing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    Ledger.create(url, "site", NOW).dispose()
    env: dict[str, str | None] = {
        "CHESSRATE_STOCKFISH": "/nonexistent", "CHESSRATE_DETECT_SECONDS": None,
    }  # fmt: skip
    with tempfile.TemporaryFile() as log, server_process(url, env=env, log=log) as (base, _):
        detector = httpx.get(f"{base}/healthz", timeout=10).json()["detector"]
        output = written(log).decode()
    assert detector["state"] == "off"
    assert "fair-play detector off: no Stockfish at /nonexistent (install" in output


# -- the real service, with Stockfish ----------------------------------------------------


@pytest.mark.stockfish
def test_a_game_posted_with_moves_is_analysed_by_the_service_without_any_setting(
    tmp_path: Path,
) -> None:
    assert Path(stockfish_path()).is_file(), "install Debian's stockfish (./test does)"
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = ledger_with(url, "site", "ana", "ben")
    token = ledger.tokens.create("writer", "test", NOW)
    ledger.dispose()
    env: dict[str, str | None] = {"CHESSRATE_DETECT_SECONDS": None, "CHESSRATE_STOCKFISH": None}
    with tempfile.TemporaryFile() as log, server_process(url, env=env, log=log) as (base, _):
        assert "fair-play detector on: " in written(log).decode()
        game = {
            "id": "posted", "played_at": "2026-03-01T18:00:00Z", "white": "ana",
            "black": "ben", "result": "1/2-1/2", "time_control": "5m+3s",
            "movetext": MOVETEXT,
        }  # fmt: skip
        answer = httpx.post(
            f"{base}/api/v1/games", json=game, headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 201, answer.text
        deadline = time.monotonic() + 180  # the first round comes 5 s after start-up
        detector: dict[str, Any] = {}
        while time.monotonic() < deadline:
            detector = httpx.get(f"{base}/healthz", timeout=10).json()["detector"]
            if detector["analysed"] >= 1:
                break
            time.sleep(1)
        assert detector["state"] == "on", detector
        assert (detector["pending"], detector["analysed"]) == (0, 1), detector
    ledger = Ledger(url)
    try:
        analysis = ledger.analyses.get("posted")
        assert analysis.note is None and analysis.evidence is not None
        assert analysis.evidence["version"] == 2
        plies = [move["ply"] for move in analysis.evidence["moves"]]
        assert plies and min(plies) > DetectorRules().opening_plies and max(plies) <= 20
        assert analysis.engine.lower().startswith("stockfish")
    finally:
        ledger.dispose()


def test_posted_games_keep_the_record_shape(tmp_path: Path) -> None:
    """A submitted game's moves are part of its record: the same game again is the
    same, the same id with other moves another game."""
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    view, created = ledger.games.submit(record("g1", 0), NOW)
    assert created and view.record.moves == tuple(UCI)
    assert ledger.games.submit(record("g1", 0), NOW)[1] is False
    assert ledger.games.get("g1").record == replace(record("g1", 0), source="")
    ledger.dispose()


def test_without_a_directory_for_its_lock_the_detector_is_off(tmp_path: Path) -> None:
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    engine = tmp_path / "stockfish"
    engine.write_text("#!/bin/sh\n")
    engine.chmod(0o755)
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    settings = Settings(
        stockfish=str(engine), detect_seconds=None, runtime_dir=str(not_a_directory)
    )
    with TestClient(create_app(ledger, settings=settings)) as client:
        detector = client.get("/healthz").json()["detector"]
    assert detector["state"] == "off"
    assert detector["why"].startswith("no directory for its lock file (CHESSRATE_RUNTIME_DIR)")
    ledger.dispose()


def test_a_round_that_fails_is_shown_on_healthz_and_tried_again(tmp_path: Path) -> None:
    """An engine that does not start (here a script that exits at once): the round
    fails, /healthz says so, no analysis is stored, the game still waits."""
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    ledger.games.submit(record("g1", 0), NOW)
    engine = tmp_path / "stockfish"
    engine.write_text("#!/bin/sh\nexit 1\n")
    engine.chmod(0o755)
    settings = Settings(
        stockfish=str(engine), detect_seconds=0.05, sweep_seconds=0, runtime_dir=str(tmp_path)
    )
    with TestClient(create_app(ledger, settings=settings)) as client:
        deadline = time.monotonic() + 30
        detector = client.get("/healthz").json()["detector"]
        while not (detector["last_outcome"] or "").startswith("failed") and (
            time.monotonic() < deadline
        ):
            time.sleep(0.05)
            detector = client.get("/healthz").json()["detector"]
    assert detector["state"] == "on"
    assert detector["last_outcome"].startswith("failed: "), detector
    assert detector["pending"] == 1 and ledger.analyses.list() == []
    ledger.dispose()
