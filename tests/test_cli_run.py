"""The ``chessrate`` program (``chessrate.cli.run``): after ``rate`` it ends without the
interpreter's teardown, with everything printed and written; errors exit as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def chessrate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "chessrate", *args], capture_output=True,
                          text=True, check=False, timeout=120)  # fmt: skip


def test_rate_prints_and_writes_everything_before_its_quick_exit(tmp_path: Path) -> None:
    out = tmp_path / "list.json"
    done = chessrate("rate", str(EXAMPLES / "site_games.jsonl"), "--system", "site",
                     "--players", str(EXAMPLES / "site_players.csv"), "--out", str(out),
                     "--all")  # fmt: skip
    assert done.returncode == 0, done.stderr
    entries = json.loads(out.read_text(encoding="utf-8"))
    assert entries and done.stdout.count("\n") >= len(entries)  # every entry printed
    assert "games from" in done.stderr.rstrip().splitlines()[-1]


def test_errors_exit_with_their_code(tmp_path: Path) -> None:
    done = chessrate("rate", str(EXAMPLES / "arena_games.jsonl"), "--system", "arena")
    assert done.returncode == 2 and "only members play rated games" in done.stderr
    assert chessrate("--version").stdout.startswith("chessrate")
