"""``chessrate fide rate``: the seed's round robin end to end, files out, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from chessrate.cli import main

DATA = Path(__file__).parent / "data"
SEED_TRF = DATA / "trf" / "seed_round_robin.trf"
SEED_LIST = DATA / "fide" / "seed_round_robin_list.csv"


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_fide_rate_reproduces_the_seed_round_robin_with_bonus_15(tmp_path: Path) -> None:
    """fide F2-F8 end to end: spec fide.md "The seed's worked example"."""
    report = tmp_path / "report.txt"
    code, out, err = invoke(
        "fide", "rate", SEED_TRF, "--list", SEED_LIST, "--bonus", "15", "--report", report
    )
    assert code == 0, err
    shown = dict(re.findall(r"│ Player (\w) +│[^│]*│[^│]*│ +(\d+) │", out))
    assert shown == {
        "A": "2613", "B": "2510", "D": "2412", "F": "2194", "G": "2264", "J": "2204",
        "C": "2423", "E": "2393", "H": "2144", "I": "2006",
    }  # fmt: skip
    text = report.read_text()
    expected = re.findall(r"expected (\d+\.\d\d)\)", text)
    assert expected == ["7.36", "6.48", "5.40", "4.21", "4.21", "2.55"]
    assert "K 20 × +0.64 = +12.80; 2600 → 2613" in text
    assert "K 30 × -3.21 = -96.30; 2300 → 2204" in text
    assert "Ra = Rar − dpa × 9/10 = 2348.45 → Rc 2348" in text
    assert "1 rated opponent(s) over Ru + 400 = 2550 count as 2550: Rc = 2348 − 50/9 = 2342" in text
    assert (
        "2 rated opponent(s) over Ru + 400 = 2432 count as 2432: Rc = 2348 − 236/9 = 2322" in text
    )
    assert "p = 0.78: Ru = Rc + 75 = 2423" in text


def test_fide_rate_default_bonus_is_12_5(tmp_path: Path) -> None:
    """fide F4 Decision: B defaults to 12.5: C scores 2.5 over 50 % → 2348 + 62.5 → 2411."""
    out_path = tmp_path / "new.json"
    code, _, err = invoke("fide", "rate", SEED_TRF, "--list", SEED_LIST, "--out", out_path)
    assert code == 0, err
    rows = {row["player"]: row for row in json.loads(out_path.read_text())}
    assert rows["Player C"] == {"player": "Player C", "pool": "fide", "rating": "2411.00",
                                "display": "2411", "state": "rated", "games": 9}  # fmt: skip
    # E: 2348 + 3 x 12.5 = 2385.5 -> 2386. A meets C at D 189 (PD .75, not .73) and E at
    # D 214 (.77 as before): expected 7.38, +0.62 x K 20 = +12.40 -> 2612.40 -> 2612.
    assert rows["Player E"]["rating"] == "2386.00"
    assert rows["9000001"]["rating"] == "2612.00"


def test_fide_rate_writes_csv_list_and_json_report(tmp_path: Path) -> None:
    out_path, report = tmp_path / "new.csv", tmp_path / "report.json"
    code, _, err = invoke(
        "fide", "rate", SEED_TRF, "--list", SEED_LIST, "--bonus", "15",
        "--out", out_path, "--report", report,
    )  # fmt: skip
    assert code == 0, err
    lines = out_path.read_text().splitlines()
    assert lines[0] == "player,pool,rating,display,state,games"
    assert lines[1] == "9000001,fide,2613.00,2613,rated,129"
    reports = {r["player"]: r for r in json.loads(report.read_text())}
    assert reports["9000006"]["expected"] == "2.55"
    assert reports["9000006"]["change"] == "43.50"
    assert reports["Player I"]["first_rating"][0]["ru"] == 2006


def test_fide_rate_truncated_trf_exits_2_with_file_line_and_reason(tmp_path: Path) -> None:
    lines = SEED_TRF.read_text().splitlines()
    cut = tmp_path / "cut.trf"
    cut.write_text("\n".join([*lines[:-3], lines[-3][:70]]) + "\n")
    out_path = tmp_path / "new.json"
    code, out, err = invoke(
        "fide", "rate", cut, "--list", SEED_LIST, "--bonus", "15", "--out", out_path
    )
    assert code == 2
    assert err.startswith(f"error: {cut}:")
    assert re.search(rf"{re.escape(str(cut))}:\d+: [\w ]+: ", err)
    assert out == ""
    assert not out_path.exists()


def test_fide_rate_malformed_trf_line_names_the_field(tmp_path: Path) -> None:
    text = SEED_TRF.read_text().replace("2150 FID", "21x0 FID")
    bad = tmp_path / "bad.trf"
    bad.write_text(text)
    code, _, err = invoke("fide", "rate", bad, "--list", SEED_LIST)
    assert code == 2
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "21x0" in t)
    assert f"{bad}:{line}: rating:" in err


def test_fide_rate_needs_the_event_type_when_the_file_does_not_say(tmp_path: Path) -> None:
    text = SEED_TRF.read_text().replace("092 Round Robin", "092 Individual")
    unknown = tmp_path / "unknown.trf"
    unknown.write_text(text)
    code, _, err = invoke("fide", "rate", unknown, "--list", SEED_LIST, "--bonus", "15")
    assert code == 2
    assert "--round-robin or --swiss" in err
    code, out, err = invoke(
        "fide", "rate", unknown, "--list", SEED_LIST, "--bonus", "15", "--round-robin"
    )
    assert code == 0, err
    assert "2613" in out


def test_fide_rate_bad_list_line_names_file_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "list.csv"
    bad.write_text(SEED_LIST.read_text().replace("2500,80", "2500,eighty"))
    code, _, err = invoke("fide", "rate", SEED_TRF, "--list", bad)
    assert code == 2
    assert f"{bad}:3: games: 'eighty' is not a whole number" in err


def test_fide_commands_have_help() -> None:
    for command in (["fide", "--help"], ["fide", "rate", "--help"]):
        code, out, _ = invoke(*command)
        assert code == 0
        assert "Usage:" in out


CRETE = DATA / "trf" / "crete_friendship_cup_2024.trf"


def test_fide_rate_without_a_list_rates_a_real_file_with_one_duplicate_warning(
    tmp_path: Path,
) -> None:
    """Swiss-Manager entered one player twice (start ranks 54 and 127, FIDE id
    42143365); the second entry was never paired: it is left out with one warning
    naming both lines, and the file is rated without a starting list."""
    out_path = tmp_path / "new.csv"
    code, _, err = invoke("fide", "rate", CRETE, "--out", out_path)
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: {CRETE}:146: fide_id: '42143365' is entered twice (start ranks 54 at line "
        "73 and 127 at line 146); start rank 127 was never paired and is left out"
    ]
    listed = out_path.read_text().splitlines()
    assert len(listed) == 1 + 128  # 129 entries, one of them twice
    assert sum(line.startswith("42143365,") for line in listed) == 1


def test_fide_rate_refuses_a_player_entered_twice_who_played_in_both_entries(
    tmp_path: Path,
) -> None:
    lines = CRETE.read_text(encoding="utf-8").splitlines()
    # start rank 2 gets the FIDE id of start rank 1: both entries played
    first = next(line for line in lines if line.startswith("001    1 "))
    twice = next(n for n, line in enumerate(lines) if line.startswith("001    2 "))
    fide_id = first[57:68]
    lines[twice] = lines[twice][:57] + fide_id + lines[twice][68:]
    bad = tmp_path / "twice.trf"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = invoke("fide", "rate", bad)
    assert code == 2
    assert f"{bad}:{twice + 1}: fide_id: '{fide_id.strip()}' is also start rank 1" in err
    assert "both entries played" in err
