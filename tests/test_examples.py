"""The sample data: reproducible from its generator, valid, and covering its stories."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from chessrate.cli import main

EXAMPLES = Path(__file__).parent.parent / "examples"


def test_sample_is_regenerated_identically_and_covers_every_story(tmp_path: Path) -> None:
    script = shutil.copy(EXAMPLES / "make_arena_sample.py", tmp_path)
    run = subprocess.run(
        [sys.executable, script], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "MISSING" not in run.stdout
    for name in ("arena_games.jsonl", "arena_players.csv"):
        assert (tmp_path / name).read_bytes() == (EXAMPLES / name).read_bytes(), name


def test_sample_rates_into_three_lists() -> None:
    result = CliRunner().invoke(
        main,
        [
            "rate",
            str(EXAMPLES / "arena_games.jsonl"),
            "--system",
            "arena",
            "--players",
            str(EXAMPLES / "arena_players.csv"),
        ],
    )
    assert result.exit_code == 0, result.stderr
    for pool in ("rapid", "blitz", "bullet"):
        assert f"arena · {pool} (" in result.stdout
    assert "419 games from" in result.stderr
    assert "368 rated, 43 unrated, 8 void" in result.stderr
