"""Smoke test of the benchmarks (bench/): they run and print their tables.

Nothing here is timed: the benchmark's numbers are measurements, not assertions.
The PyPI rating libraries of the ``bench`` extra are optional here: without them their
rows say "not installed" (``./test`` installs the extra, so the suite runs them).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the benchmarks run in processes of their own, each a minute

BENCH = Path(__file__).resolve().parent.parent / "bench"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # The timeout only stops a hung benchmark: `run.py --quick` takes ~20 s of CPU, and on
    # a loaded machine (the suite runs in parallel processes) over a minute.
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, check=False, cwd=cwd, timeout=600
    )


def test_generator_writes_every_file_and_the_engine_rates_every_game(tmp_path: Path) -> None:
    """A tiny stream: every file is written, deterministic, and every game is valid for
    its system (the reference engine refuses none)."""
    out = tmp_path / "stream"
    done = run(
        str(BENCH / "generate_stream.py"), "--games", "2000", "--players", "200",
        "--pgn-games", "200", "--format", "both", "--out", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    names = {p.name for p in out.iterdir()}
    for system in ("arena", "corr", "site"):
        assert {f"{system}_games.csv", f"{system}_games.jsonl", f"{system}_players.csv"} <= names
    assert {"site_annulments.txt", "pairs.bin", "lichess.pgn", "manifest.json"} <= names
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["games"] == 2000
    assert manifest["pgn_games"] == 200
    again = tmp_path / "again"
    run(
        str(BENCH / "generate_stream.py"), "--games", "2000", "--players", "200",
        "--pgn-games", "200", "--out", str(again), cwd=tmp_path,
    )  # fmt: skip
    for name in ("site_games.csv", "arena_players.csv", "pairs.bin", "lichess.pgn"):
        assert (again / name).read_bytes() == (out / name).read_bytes(), name

    from chessrate import Engine
    from chessrate.io.games import read_annulments, read_games, read_players
    from chessrate.systems import get_system

    for system in ("arena", "corr", "site"):
        engine: Engine[object] = Engine(
            get_system(system), read_players(out / f"{system}_players.csv")
        )
        games = read_games(out / f"{system}_games.jsonl")  # the JSON Lines form too
        assert len(engine.replay(games)) == 2000  # raises on a refused game
    for _where, game_id, reason in read_annulments(out / "site_annulments.txt"):
        engine.annul(game_id, reason, engine.ratings[-1].game.played_at)


def test_run_quick_prints_its_tables(tmp_path: Path) -> None:
    done = run(str(BENCH / "run.py"), "--quick", "--data", str(tmp_path / "data"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    text = done.stdout
    assert text.startswith("machine: ")
    assert "command: `python bench/run.py --quick" in text
    assert (
        "| measurement | system / file | processed | seconds | per second | check | note |" in text
    )
    assert "| system | pools | bytes per (player, pool) |" in text
    for row in (
        "reference Engine.replay",
        "chessrate.fast.replay",
        "C loop",
        "PyPI elote",
        "python-chess chess.pgn.read_headers",
        "chessrate.io.pgn.scan_headers",
    ):
        assert row in text, row
    assert "DIFFERS" not in text


def test_rate_cli_benchmark_runs_and_measures_the_printing(tmp_path: Path) -> None:
    """bench/rate_cli.py on a tiny stream: every row is there, the stages included."""
    done = run(
        str(BENCH / "rate_cli.py"), "--games", "3000", "--players", "300", "--repeat", "1",
        "--data", str(tmp_path / "stream"), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    for row in ("hand-written: csv module", "stdout to a file", "on a terminal",
                "stage: printing", "stage: players file", "stage: the whole command"):  # fmt: skip
        assert row in done.stdout, row


def test_evaluate_benchmark_runs_every_measurement(tmp_path: Path) -> None:
    """bench/evaluate.py on tiny streams: the 50 variants at two jobs and at one (the
    same JSON, which it checks), one variant against rate, and the deviance table of
    every system, fide's on the real tournaments."""
    done = run(
        str(BENCH / "evaluate.py"), "--games", "2000", "--players", "200",
        "--deviance-games", "2500", "--one-job", "--data", str(tmp_path / "streams"),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert out.startswith("machine: ") and "cores (nproc)" in out
    for row in ("| evaluate: base + 50 variants, --jobs 2 |", "| evaluate: base + 50 variants, "
                "--jobs 1 |", "| evaluate: the base rules alone (one variant) |",
                "| rate: the same file and players |"):  # fmt: skip
        assert row in out, row
    assert "51 variants measured" in out
    for system in ("arena", "corr", "site"):
        assert f"| {system} | 2,500 | " in out, system
    fwwrc = "| lab/fwwrc_2024_rapid.pgn | FIDE Women's World Rapid 2024, 110 players |"
    assert f"{fwwrc} site | 605 | 0 | 1,210 | " in out  # two pools a game, none refused
    assert f"{fwwrc} arena | 605 | 605 | 0 | - |" in out  # no arena member played
    for ruleset in ("seed", "fide-2024"):  # fide's real tournaments, under each ruleset
        assert f"| {ruleset} | 1,492 | 559 | " in out, ruleset
    stream = out.split("made a chain of fide periods", 1)[1]  # and the stream's months
    for ruleset in ("seed", "fide-2024"):
        assert f"| {ruleset} | 1,457 | 86 | 0.2183" in stream, ruleset


def test_detector_eval_judges_the_stored_corpus(tmp_path: Path) -> None:
    """The fair-play benchmark on the corpus's stored analyses (``--cached``: no
    engine): every table is printed, and the held-out humans are judged."""
    done = run(str(BENCH / "detector_eval.py"), "--cached", "--scores", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for title in ("Human games, held out part", "Human games, fitted on part",
                  "Made-up cheaters", "Analysis time"):  # fmt: skip
        assert f"### {title}" in out
    assert "| 2600+ |" in out and "| full |" in out and "| late |" in out


def test_detector_statistics_compares_every_statistic_on_the_stored_corpus(
    tmp_path: Path,
) -> None:
    """The comparison of fair-play statistics reads the stored analyses (no engine)
    and prints both tables with a row for each statistic at each human limit."""
    done = run(str(BENCH / "detector_statistics.py"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "### Per game" in out and "### Players of five games" in out
    for name in ("shipped", "rank z", "LR", "mixture LR"):
        for limit in ("p99 of", "p99.7 of", "max of"):
            assert f"| {name} | {limit} " in out, (name, limit)
        assert out.count(f"| {name} | ") == 4, name  # three per-game limits, one of players


@pytest.mark.stockfish
def test_detector_agreement_measures_each_judge_setting(tmp_path: Path) -> None:
    """The judge-against-engine table on one made-up full-engine game at shallow
    depths: a row per setting, and the cheater's own settings (depth 12, one candidate,
    hash cleared) agreeing on every engine move."""
    done = run(
        str(BENCH / "detector_agreement.py"), "--games", "1",
        "--settings", "6:2:kept,12:1:clear", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| depth")]
    assert [row.split(" | ")[0] for row in rows] == [
        "| depth 6, 2 candidates, hash kept",
        "| depth 12, 1 candidates, hash clear",
    ]
    replica = rows[1].split(" | ")
    assert int(replica[1]) > 0 and replica[2] == "1.000"  # the same search, the same move


@pytest.mark.stockfish
def test_detector_unseen_leaves_out_the_corpus_and_tabulates_by_band(tmp_path: Path) -> None:
    """Of three corpus games and one made-up game, only the made-up one is screened
    (its two players in their bands); the corpus's games are left out by their tags."""
    folder = Path(__file__).parent / "data" / "fairplay"
    source = tmp_path / "source.pgn"
    source.write_text(
        (folder / "held_out_humans.pgn").read_text(encoding="utf-8")
        + "\n\n" + (folder / "late_switcher.pgn").read_text(encoding="utf-8"),
        encoding="utf-8",
    )  # fmt: skip
    done = run(
        str(BENCH / "detector_unseen.py"), str(source), "--bands", "1000-2000",
        "--games", "5", "--jobs", "1", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("1 games of source.pgn not in the corpus"), done.stdout
    assert "; 2 player-games;" in done.stdout
    rows = [line for line in done.stdout.splitlines() if line.startswith("| 1")]
    assert [row.split(" | ")[0] for row in rows] == ["| 1200-1399"], rows
    assert rows[0].split(" | ")[1] == "2"
