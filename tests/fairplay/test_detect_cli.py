"""``chessrate detect`` over a ledger's finished live games: it stores each analysis,
lists the flagged player (the engine game's White) and does not analyse a game twice;
a game whose moves were not recorded is stored as not analysable; the service's
workers run it when told (``CHESSRATE_DETECT_SECONDS``)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from chessrate.application.settings import Settings
from chessrate.cli import main
from chessrate.fairplay import DetectorRules, StockfishDetector
from chessrate.fairplay.job import DetectionJob
from chessrate.ledger import Ledger
from chessrate.records import Result, Termination
from chessrate.server import create_app
from chessrate.systems.site_live import LiveGame
from chessrate.timecontrol import parse_time_control
from tests.ledger.helpers import NOW, ledger_with


def play(ledger: Ledger, game_id: str, white: str, black: str, moves: list[str | None]) -> None:
    """A rated 10+0 live game: every ply a second apart, then White wins by resignation."""
    live = ledger.live
    live.open(LiveGame(game_id, white, black, NOW, parse_time_control("600+0")), NOW)
    for ply, move in enumerate(moves, 1):
        live.move(game_id, ply, move, None, NOW + timedelta(seconds=ply))
    end = NOW + timedelta(seconds=len(moves) + 1)
    live.finish(game_id, Result.WHITE_WINS, Termination.RESIGN, None, end)


def test_detect_stores_the_analysis_and_lists_the_flag(
    ledger_url: str, engine_game: list[str]
) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben", "cy", "dee")
    play(ledger, "engine", "ana", "ben", list(engine_game))
    play(ledger, "unrecorded", "cy", "dee", [None] * 30)
    open_game = LiveGame("open", "cy", "ana", NOW, parse_time_control("600+0"))
    ledger.live.open(open_game, NOW)  # not finished: not analysed

    runner = CliRunner()
    result = runner.invoke(main, ["detect", "--db", ledger_url])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    # the earliest ended first: the 30-ply game, then the 90-ply one
    assert lines[0] == "unrecorded\tnot analysed: ply 1: the move was not recorded"
    assert lines[1].startswith("engine\twhite ")
    assert lines[1].startswith("engine\twhite (no established rating): score ")
    assert lines[2:] == ["FLAGGED\tengine\tana"]
    assert "2 games analysed, 1 players flagged" in result.stderr

    analyses = ledger.analyses
    stored = analyses.get("engine")
    assert stored.flagged and stored.flags == ("ana",)
    assert stored.engine.startswith("Stockfish")
    assert stored.limits["depth"] == DetectorRules().depth
    assert stored.evidence is not None
    assert stored.evidence["flagged"] == ["white"]
    assert stored.evidence["white"]["match_rate"] >= 0.9
    white = stored.evidence["white"]
    assert f"{round(100 * white['match_rate'])}% match ({white['moves']} moves)" in lines[1]
    assert white["moves"] >= 20  # after the opening, only and forced moves
    assert stored.evidence["white"]["reason"] == "game"
    unrecorded = analyses.get("unrecorded")
    assert not unrecorded.flagged and unrecorded.evidence is None
    assert [view.game_id for view in analyses.list(flagged=True)] == ["engine"]
    # the flag is a report on the moderators' review queue, with the evidence
    case = ledger.reviews.get("engine")
    assert case.status == "open"
    reports = [(r.by, r.source, r.accused) for r in case.reports]
    assert reports == [("detector:stockfish:white", "detector", "ana")]
    assert case.reports[0].reason.startswith("engine-like play by ana")
    assert case.reports[0].evidence == stored.evidence

    again = runner.invoke(main, ["detect", "--db", ledger_url])
    assert again.exit_code == 0 and again.stdout == ""
    assert "0 games analysed" in again.stderr
    assert len(ledger.reviews.get("engine").reports) == 1  # filed once
    listed = runner.invoke(main, ["detect", "--db", ledger_url, "--flagged"])
    assert listed.stdout.startswith("FLAGGED\tengine\tana\twhite ")
    ledger.dispose()


def test_detect_says_when_stockfish_is_missing(ledger_url: str, engine_game: list[str]) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    play(ledger, "engine", "ana", "ben", list(engine_game))
    ledger.dispose()
    result = CliRunner().invoke(main, ["detect", "--db", ledger_url, "--stockfish", "/nowhere"])
    assert result.exit_code == 2
    assert "/nowhere: no Stockfish here" in result.stderr


def test_each_worker_runs_the_detector_when_told(tmp_path: Path) -> None:
    """CHESSRATE_DETECT_SECONDS > 0: the worker's task analyses the finished games (here
    one whose moves were not recorded: stored as not analysable, the engine not
    started; the task runs where an engine is found, here a stand-in)."""
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    play(ledger, "unrecorded", "ana", "ben", [None] * 30)
    engine = tmp_path / "stockfish"
    engine.write_text("#!/bin/sh\n")
    engine.chmod(0o755)
    settings = Settings(
        detect_seconds=0.05, sweep_seconds=0, stockfish=str(engine), runtime_dir=str(tmp_path)
    )
    app = create_app(ledger, settings=settings)
    with TestClient(app):
        deadline = time.monotonic() + 30
        while not ledger.analyses.list() and time.monotonic() < deadline:
            time.sleep(0.05)
    (stored,) = ledger.analyses.list()
    assert stored.game_id == "unrecorded" and stored.note is not None
    ledger.dispose()


def test_the_detector_interval_is_unset_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset: the service runs the detector at its default interval when Stockfish is
    found (tests/service/test_detector_service.py)."""
    monkeypatch.delenv("CHESSRATE_DETECT_SECONDS", raising=False)
    assert Settings().detect_seconds is None


def test_a_run_stops_between_games_when_told(tmp_path: Path) -> None:
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    play(ledger, "unrecorded", "ana", "ben", [None] * 30)
    stop = threading.Event()
    stop.set()
    with StockfishDetector() as detector:
        job = DetectionJob(ledger, detector, lambda: NOW)
        assert job.run(5, stop).analysed == []
        assert [view.game_id for view in job.run(5).analysed] == ["unrecorded"]
    ledger.dispose()


def test_detect_help_gives_the_detectors_own_depth_and_window() -> None:
    result = CliRunner().invoke(main, ["detect", "--help"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    rules = DetectorRules()
    assert f"(default: the detector's, {rules.depth})" in text
    assert f"(default: the detector's, {rules.window})" in text
