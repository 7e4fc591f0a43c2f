"""The sample data: reproducible from its generator, valid, and covering its stories."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from chessrate.cli import main

EXAMPLES = Path(__file__).parent.parent / "examples"


SAMPLES = {
    "arena": ("arena_games.jsonl", "arena_players.csv"),
    "corr": ("corr_games.jsonl", "corr_players.csv"),
    "site": ("site_games.jsonl", "site_players.csv", "site_annulments.txt"),
}


@pytest.mark.parametrize("system", sorted(SAMPLES))
def test_sample_is_regenerated_identically_and_covers_every_story(
    system: str, tmp_path: Path
) -> None:
    """The generator writes exactly the committed files, replays them through the engine
    and checks that every scripted story and rule happened (it exits 1 otherwise)."""
    script = shutil.copy(EXAMPLES / f"make_{system}_sample.py", tmp_path)
    run = subprocess.run(
        [sys.executable, script], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "MISSING" not in run.stdout
    for name in SAMPLES[system]:
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


def test_site_sample_lists_the_site_elo_and_every_type_with_annulments() -> None:
    result = CliRunner().invoke(
        main,
        [
            "rate", str(EXAMPLES / "site_games.jsonl"), "--system", "site",
            "--players", str(EXAMPLES / "site_players.csv"),
            "--annul", str(EXAMPLES / "site_annulments.txt"),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "site · site Elo (" in result.stdout
    for pool in ("bullet", "blitz", "rapid", "classical", "unclocked", "correspondence", "otb",
                 "bots"):  # fmt: skip
        assert f"site · {pool} (" in result.stdout
    assert result.stdout.count("annulled s0") == 3
    assert "bot-" not in result.stdout


def test_corr_sample_rates() -> None:
    result = CliRunner().invoke(
        main,
        [
            "rate", str(EXAMPLES / "corr_games.jsonl"), "--system", "corr",
            "--players", str(EXAMPLES / "corr_players.csv"),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "corr · corr (" in result.stdout
    assert "P (" in result.stdout  # provisional ratings shown as 1450P (7)
