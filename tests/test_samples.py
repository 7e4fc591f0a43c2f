"""The sample data at run time (``chessrate serve --sample``): shipped in the wheel, read
from the checkout in an editable install, and loaded into a ledger of each system."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from chessrate import samples
from chessrate.cli import main
from chessrate.errors import InvalidInput
from chessrate.ledger import Ledger
from chessrate.operations import verify_periods
from chessrate.samples import SAMPLE_FILES, is_empty, load_sample, sample_location, sample_text
from tests.ledger.helpers import NOW

ROOT = Path(__file__).parent.parent


def test_every_sample_file_is_in_examples_and_in_the_wheel_mapping() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for names in SAMPLE_FILES.values():
        for name in names:
            assert (ROOT / "examples" / name).is_file(), name
            assert f'"examples/{name}" = "chessrate/sample_data/{name}"' in pyproject, name


def test_the_fide_sample_is_the_seed_round_robin_of_the_tests() -> None:
    data = ROOT / "tests" / "data"
    assert sample_text("fide_seed_round_robin.trf") == (
        data / "trf" / "seed_round_robin.trf"
    ).read_text(encoding="utf-8")
    assert sample_text("fide_start_list.csv") == (
        data / "fide" / "seed_round_robin_list.csv"
    ).read_text(encoding="utf-8")


def test_a_checkout_reads_the_examples_folder() -> None:
    """The editable install (what ./run makes) has no sample_data/ in the package."""
    location = sample_location("site_games.jsonl")
    assert Path(str(location)) == ROOT / "examples" / "site_games.jsonl"


def test_a_missing_sample_file_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(samples, "CHECKOUT_FOLDER", tmp_path)
    with pytest.raises(InvalidInput, match=r"sample file site_games\.jsonl is missing"):
        sample_text("site_games.jsonl")


@pytest.mark.slow  # builds and installs the wheel
def test_the_wheel_carries_the_samples_and_an_install_reads_them(tmp_path: Path) -> None:
    """Build the wheel, install it into a bare folder, and read the samples from there
    (no checkout next to it)."""
    # Without build isolation when hatchling is at hand (no download); else pip fetches it.
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("hatchling") else []
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check",
         "--no-deps", *isolation, "-w", str(tmp_path / "dist"), str(ROOT)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    (wheel,) = (tmp_path / "dist").glob("chessrate-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for files in SAMPLE_FILES.values():
        for name in files:
            assert f"chessrate/sample_data/{name}" in names
    target = tmp_path / "installed"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-deps", "--target", str(target), str(wheel)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    probe = (
        "from chessrate import samples\n"
        "assert not samples.CHECKOUT_FOLDER.exists(), samples.CHECKOUT_FOLDER\n"
        "for names in samples.SAMPLE_FILES.values():\n"
        "    for name in names:\n"
        "        print(samples.sample_location(name), len(samples.sample_text(name)))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False,
        cwd=tmp_path, env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == sum(len(files) for files in SAMPLE_FILES.values())
    assert all(line.startswith(f"{target}/chessrate/sample_data/") for line in lines)


@pytest.mark.slow  # each sample loaded
@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_is_empty_until_the_sample_is_loaded(ledger_url: str, system_id: str) -> None:
    ledger = Ledger.create(ledger_url, system_id, NOW)
    assert is_empty(ledger)
    message = load_sample(ledger, NOW)
    assert message.startswith(f"loaded the {system_id} sample: ")
    assert not is_empty(ledger)
    assert ledger.verify() == []


@pytest.mark.slow  # the site sample loaded
def test_the_site_sample_brings_its_annulments_by_sample(ledger_url: str) -> None:
    ledger = Ledger.create(ledger_url, "site", NOW)
    assert load_sample(ledger, NOW) == "loaded the site sample: 43 players, 485 games, 3 annulments"
    assert [(a.game_id, a.by) for a in ledger.annulments.list()] == [
        ("s0154", "sample"), ("s0164", "sample"), ("s0222", "sample")
    ]  # fmt: skip


def test_the_fide_sample_is_a_closed_period_of_each_list(ledger_url: str) -> None:
    ledger = Ledger.create(ledger_url, "fide", NOW)
    assert is_empty(ledger)
    message = load_sample(ledger, NOW)
    assert message == (
        "loaded the fide sample: period 1 (sample: the seed's ten-player round robin), 10 "
        "players; a rapid and a blitz period"
    )
    assert not is_empty(ledger)
    periods = ledger.periods
    period, rapid, blitz = periods.all()
    assert [p.list_kind for p in (period, rapid, blitz)] == ["standard", "rapid", "blitz"]
    assert all(p.closed_at is not None and p.rules == "fide-2024" for p in (rapid, blitz))
    assert rapid.files == ("fide_rapid_round_robin.trf",)
    assert len(periods.new_list(rapid.id)) == len(periods.new_list(blitz.id)) == 6
    assert period.closed_at is not None
    assert period.bonus == 15
    assert period.files == ("fide_seed_round_robin.trf",)
    assert len(periods.new_list(period.id)) == 10
    assert verify_periods(ledger) == ([], 3)
    board, total = ledger.boards.leaderboard("fide", limit=100)
    assert total == sum(1 for e in periods.new_list(period.id) if e.new_rating is not None)
    assert board[0].player == "9000001"  # Player A, 2600 before the period


def test_verify_of_a_fide_ledger_re_rates_its_periods(
    ledger_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    runner = CliRunner()
    result = runner.invoke(main, ["serve", "--sample", "--system", "fide", "--db", ledger_url])
    assert result.exit_code == 0, result.stderr
    assert "loaded the fide sample: period 1" in result.stderr
    result = runner.invoke(main, ["verify", "--db", ledger_url])
    assert (result.exit_code, result.stdout) == (
        0, "OK: 3 closed periods; every stored rating matches the replay to the hundredth\n"
    )  # fmt: skip
    ledger = Ledger(ledger_url)
    with ledger.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE fide_results SET new_rating = new_rating + 1 "
                             "WHERE player_id = '9000002'")  # fmt: skip
    result = runner.invoke(main, ["verify", "--db", ledger_url])
    assert result.exit_code == 1
    assert result.stdout.startswith("period 1 9000002: stored (rating, games, position)")


def test_verify_of_a_fide_ledger_compares_the_current_ratings_to_the_hundredth(
    ledger_url: str,
) -> None:
    ledger = Ledger.create(ledger_url, "fide", NOW)
    try:
        load_sample(ledger, NOW)
        assert verify_periods(ledger) == ([], 3)
        entry = next(e for e in ledger.periods.new_list(1) if e.player == "9000002")
        with ledger.engine.begin() as conn:
            conn.exec_driver_sql("UPDATE ratings SET rating_cents = rating_cents + 1 "
                                 "WHERE player_id = '9000002' AND pool = 'fide'")  # fmt: skip
        assert verify_periods(ledger) == (
            [
                f"9000002 fide: stored {entry.new_rating}.01 ({entry.games} games), "
                f"period 1 published {entry.new_rating} ({entry.games} games)"
            ],
            3,
        )
    finally:
        ledger.dispose()
