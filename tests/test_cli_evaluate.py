"""The ``chessrate evaluate`` command: text, JSON, and --vary's errors (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

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
    [("docs/evaluate.md", "## A real run"), ("README.md", "## Choosing your rules")],
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
