"""The ``chessrate evaluate`` command: text, JSON, and --vary's errors (exit 2)."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from chessrate.cli import main

LICHESS = Path(__file__).parent / "data" / "pgn" / "lichess_cmrade.pgn"


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_text_output_on_a_real_file() -> None:
    code, out, err = invoke("evaluate", LICHESS, "--system", "site", "--vary", "k=10,40")
    assert code == 0, err
    assert out.startswith("site · 46 games from ")
    lines = out.splitlines()
    assert lines[2].split() == ["variant", "pool", "games", "deviance", "brier", "expected"]
    assert "elo-k20 (not a regulation)" in out
    assert "glicko2-lichess (not a regulation)" in out
    assert "calibration (bin: games, mean expected → mean observed):" in out
    assert "k=40 · site: " in out and "Spearman" in out


def test_json_shape() -> None:
    code, out, err = invoke("evaluate", LICHESS, "--system", "site", "--vary", "k=40", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["system", "source", "games", "variants", "predictors"]
    assert data["system"] == "site" and data["games"] == 46
    labels = [v["label"] for v in data["variants"]]
    assert sorted(labels) == ["base", "k=40"]
    for variant in data["variants"]:
        assert list(variant) == ["label", "varied", "deviance", "pools"]
        pool = variant["pools"][0]
        assert list(pool) == ["pool", "quality", "against_base"]
        quality = pool["quality"]
        assert list(quality) == [
            "games", "expectation", "deviance", "brier", "calibration", "by_games",
        ]  # fmt: skip
        assert len(quality["calibration"]) == 10
        assert [b["low"] for b in quality["by_games"]] == [0, 1, 5, 10, 20, 50, 100]
        assert list(quality["calibration"][0]) == [
            "low", "high", "count", "mean_expected", "mean_observed",
        ]  # fmt: skip
        if variant["label"] == "base":
            assert pool["against_base"] is None
            assert variant["varied"] == {}
        else:
            assert variant["varied"] == {"k": "40"}
            against = pool["against_base"]
            assert list(against) == ["players", "spearman", "risers", "fallers", "state_changed"]
            for mover in against["risers"] + against["fallers"]:
                assert list(mover) == ["player", "base", "variant", "change"]
                assert isinstance(mover["base"], str)
    assert [p["label"] for p in data["predictors"]] == ["elo-k20", "glicko2-lichess"]
    assert all(p["regulation"] is False for p in data["predictors"])


def test_unknown_field_exits_2_naming_it() -> None:
    code, out, err = invoke("evaluate", LICHESS, "--system", "site", "--vary", "kk=10")
    assert code == 2
    assert out == ""
    assert "error: --vary kk: the SiteRules has no field 'kk'" in err


def test_refused_value_exits_2_naming_field_and_value() -> None:
    code, _, err = invoke("evaluate", LICHESS, "--system", "site", "--vary", "k=ten")
    assert code == 2
    assert "error: --vary k: 'ten' is not a whole number" in err
    code, _, err = invoke("evaluate", LICHESS, "--system", "arena", "--vary", "k.blitz=-5")
    assert code == 2
    assert "--vary k.blitz: '-5'" in err


def test_invalid_records_are_skipped_when_asked() -> None:
    code, _, err = invoke("evaluate", LICHESS, "--system", "arena")
    assert code == 2 and "lichess_cmrade.pgn:" in err
    code, out, err = invoke("evaluate", LICHESS, "--system", "arena", "--skip-invalid")
    assert code == 0
    assert "skipped " in err and out.startswith("arena · ")


@pytest.mark.parametrize(
    ("doc_path", "heading"),
    [
        ("docs/evaluate.md", "## A real run"),
        ("README.md", "## Choosing your rules"),
        ("README.md", "### For a rating officer: FIDE's periods"),
    ],
)
def test_the_docs_run_is_a_real_run(
    monkeypatch: pytest.MonkeyPatch, doc_path: str, heading: str
) -> None:
    """docs/evaluate.md's "A real run" and the README's "Choosing your rules" show
    their command's output (their "…" lines stand for what they leave out)."""
    root = Path(__file__).parents[1]
    monkeypatch.chdir(root)  # the doc's paths are relative to the repository
    doc = (root / doc_path).read_text()
    block = doc.split(heading, 1)[1].split("```", 2)[1]
    command, *shown = block.strip("\n").splitlines()
    assert command.startswith("$ chessrate evaluate ")
    args = command.removeprefix("$ chessrate ").split()
    code, out, err = invoke(*args)
    assert code == 0, err
    lines = out.splitlines()
    for line in shown:
        if line.strip() not in ("…", ""):
            assert line in lines, line


def test_a_record_a_variant_refuses_names_the_variant(tmp_path: Path) -> None:
    players = tmp_path / "players.csv"
    players.write_text("id,rating_blitz,games_blitz\nalice,1600.00,40\n")
    code, _, err = invoke(
        "evaluate", LICHESS, "--system", "site", "--players", players, "--vary", "floor=1700"
    )
    assert code == 2
    assert f"{players}:2: rating_blitz: " in err
    assert "(under --vary floor=1700)" in err


def close(reference: Any, other: Any, where: str = "") -> None:
    """Equal JSON, the metrics up to their printed rounding (6 places): what the two
    engines print."""
    if isinstance(reference, dict):
        assert isinstance(other, dict) and list(other) == list(reference), where
        for key in reference:
            close(reference[key], other[key], f"{where}.{key}")
    elif isinstance(reference, list):
        assert isinstance(other, list) and len(other) == len(reference), where
        for n, (a, b) in enumerate(zip(reference, other, strict=True)):
            close(a, b, f"{where}[{n}]")
    elif isinstance(reference, float):
        assert other == pytest.approx(reference, abs=2e-6), where
    else:
        assert other == reference, where


VARY = ("--vary", "k=10,20,40", "--vary", "k_new=16,40")


def test_both_engines_print_the_same_evaluation() -> None:
    args = ("evaluate", LICHESS, "--system", "site", *VARY, "--json")
    code, reference, err = invoke(*args, "--engine", "reference")
    assert code == 0, err
    code, compiled, err = invoke(*args, "--engine", "compiled")
    assert code == 0, err
    close(json.loads(reference), json.loads(compiled))
    code, auto, err = invoke(*args)  # auto: site has a compiled half
    assert code == 0, err
    assert auto == compiled
    assert len(json.loads(auto)["variants"]) == 7


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_jobs_give_the_same_json_as_one_job(engine: str) -> None:
    args = ("evaluate", LICHESS, "--system", "site", *VARY, "--json", "--engine", engine)
    code, one, err = invoke(*args, "--jobs", "1")
    assert code == 0, err
    code, two, err = invoke(*args, "--jobs", "2")
    assert code == 0, err
    assert two == one
    code, every, err = invoke(*args, "--jobs", "0")  # one per core
    assert code == 0, err
    assert every == one


def test_jobs_skip_and_refuse_as_one_job(tmp_path: Path) -> None:
    """A record refused under some variant: with --skip-invalid each job's refusals are
    listed once, as one job lists them; without, exit 2 naming the variant."""
    games = tmp_path / "games.csv"
    games.write_text(
        "id,played_at,white,black,result,time_control,plies\n"
        "g1,2026-01-01T10:00:00Z,a,b,1-0,300+3,40\n"
        "g2,2026-01-01T11:00:00Z,b,a,0-1,300+3,3\n"
        "g3,2026-01-01T12:00:00Z,a,b,1/2-1/2,300+3,40\n",
        encoding="utf-8",
    )
    players = tmp_path / "players.csv"
    players.write_text("id,rating_blitz,games_blitz\na,1200.00,30\n", encoding="utf-8")
    args = ("evaluate", games, "--system", "site", "--players", players, "--json",
            "--vary", "floor=100,1300")  # fmt: skip
    code, _, err = invoke(*args, "--jobs", "2")
    assert code == 2
    assert "players.csv" in err and "below the floor of 1300" in err
    code, one, err_one = invoke(*args[:-2], "--vary", "k=10,40", "--jobs", "1")
    assert code == 0, err_one
    code, two, err_two = invoke(*args[:-2], "--vary", "k=10,40", "--jobs", "2")
    assert code == 0, err_two
    assert two == one and err_two == err_one


def test_no_progress_bar_when_stderr_is_not_a_terminal() -> None:
    code, _, err = invoke("evaluate", LICHESS, "--system", "site", *VARY)
    assert code == 0
    assert err == ""


def test_a_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    """stderr a pseudo-terminal: rich draws the variants bar there (and erases it at the
    end); stdout, a pipe, has the table only."""
    controller, terminal = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "chessrate", "evaluate", str(LICHESS), "--system", "site",
         *VARY, "--engine", "reference"],
        stdout=subprocess.PIPE, stderr=terminal, stdin=subprocess.DEVNULL, env=env,
        cwd=tmp_path,
    )  # fmt: skip
    os.close(terminal)
    drawn = b""
    while True:
        try:
            part = os.read(controller, 65536)
        except OSError:  # the process ended and closed the terminal
            break
        if not part:
            break
        drawn += part
    out, _ = process.communicate(timeout=300)
    os.close(controller)
    assert process.returncode == 0
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn.decode("utf-8", "replace"))
    assert re.search(r"variants ━+ 7/7", text), text  # the last frame: every variant done
    assert out.decode().startswith("site · 46 games from ")
    assert b"variants" not in out
