"""``chessrate fide rate``: the seed's round robin end to end, files out, errors."""

from __future__ import annotations

import csv
import json
import re
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from chessrate.cli import main
from chessrate.io.fide import event_from_tournament, read_start_list
from chessrate.io.trf import parse_trf
from chessrate.systems.fide import ListedPlayer

DATA = Path(__file__).parent / "data"
SEED_TRF = DATA / "trf" / "seed_round_robin.trf"
SEED_LIST = DATA / "fide" / "seed_round_robin_list.csv"


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_fide_rate_reproduces_the_seed_round_robin_with_bonus_15(tmp_path: Path) -> None:
    """fide F2-F8 end to end: the spec's fide system "The seed's worked example"."""
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
    rows = {row["id"]: row for row in json.loads(out_path.read_text())}
    assert rows["Player C"] == {
        "id": "Player C", "name": "Player C", "rating": 2411, "games": 9,
        "reached_2400": True, "k": 30, "birth_year": None, "met_rated": True, "pending": "",
        "sex": "", "federation": "FID", "title": "", "last_played": None,
        "old_rating": None, "change": None, "period_games": 9, "period_k": None, "flag": "",
    }  # fmt: skip
    # E: 2348 + 3 x 12.5 = 2385.5 -> 2386. A meets C at D 189 (PD .75, not .73) and E at
    # D 214 (.77 as before): expected 7.38, +0.62 x K 20 = +12.40 -> 2612.40 -> 2612.
    assert rows["Player E"]["rating"] == 2386
    assert (rows["9000001"]["rating"], rows["9000001"]["change"]) == (2612, 12)


def test_fide_rate_writes_csv_list_and_json_report(tmp_path: Path) -> None:
    out_path, report = tmp_path / "new.csv", tmp_path / "report.json"
    code, _, err = invoke(
        "fide", "rate", SEED_TRF, "--list", SEED_LIST, "--bonus", "15",
        "--out", out_path, "--report", report,
    )  # fmt: skip
    assert code == 0, err
    lines = out_path.read_text().splitlines()
    assert lines[0] == (
        "id,name,rating,games,reached_2400,k,birth_year,met_rated,pending,sex,federation,title,"
        "last_played,old_rating,change,period_games,period_k,flag"
    )
    assert lines[1] == "9000001,Player A,2613,129,true,20,,true,,,FID,,,2600,13,9,20,"
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
        # a rapid file: the seed's edition has one list and rates it there, saying so
        f"warning: {CRETE}:13: 122: the rate of play '15 minutes plus 10 sec per move' gives "
        "25 minutes for 60 moves, a rapid game; the standard list needs at least 60 minutes "
        "for 60 moves (1.1); rated on the seed's one list all the same",
        f"warning: {CRETE}:146: fide_id: '42143365' is entered twice (start ranks 54 at line "
        "73 and 127 at line 146); start rank 127 was never paired and is left out",
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


CHAIN = [DATA / "trf" / "example1.trf", CRETE, DATA / "trf" / "crete_team_championship_2025.trf"]


def _by_hand(report_path: Path, typed: Path) -> None:
    """The next starting list as an officer types it from the published report: id,
    name, the new rating and games, whether the rating has reached 2400, whether the
    player has met rated opponents, the birth year (five columns and three more)."""
    reports = json.loads(report_path.read_text())
    with typed.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "name", "rating", "games", "reached_2400", "met_rated",
                         "birth_year"])  # fmt: skip
        for r in reports:
            writer.writerow(
                [r["player"], r["name"], r["new_rating"] or "", r["new_games"],
                 str(r["reached_2400"]).lower(), str(r["met_rated"]).lower(),
                 r["birth_year"] or ""]
            )  # fmt: skip


def _ratings(path: Path) -> dict[str, tuple[str, str]]:
    with path.open(newline="") as handle:
        return {row["id"]: (row["rating"], row["games"]) for row in csv.DictReader(handle)}


def test_periods_chain_through_the_written_list_as_through_lists_typed_by_hand(
    tmp_path: Path,
) -> None:
    """Three periods of real TRF files (Frankfurt 2005, Heraklion 2024, Heraklion 2025):
    each period's --out list (CSV, then JSON) is the next period's --list as it is,
    and gives the same ratings as lists typed by hand from the reports."""
    chained: Path | None = None
    typed: Path | None = None
    for n, trf in enumerate(CHAIN, start=1):
        out = tmp_path / f"chained{n}.{'json' if n == 2 else 'csv'}"
        args: list[str | Path] = ["fide", "rate", trf, "--out", out, "--report",
                                  tmp_path / f"report{n}.json"]  # fmt: skip
        given: list[str | Path] = ["--list", chained] if chained else []
        code, _, err = invoke(*args, *given)
        assert code == 0, err
        chained = out
        report = tmp_path / f"hand{n}.json"
        hand_out = tmp_path / f"hand{n}.csv"
        args = ["fide", "rate", trf, "--out", hand_out, "--report", report]
        given = ["--list", typed] if typed else []
        code, _, err = invoke(*args, *given)
        assert code == 0, err
        typed = tmp_path / f"typed{n}.csv"
        _by_hand(report, typed)
    final = tmp_path / "chained3.csv"
    assert _ratings(final) == _ratings(tmp_path / "hand3.csv")
    # the chain carried players over: Heraklion 2024's players are rated in 2025 from
    # their 2024 ratings, and the 2005 list is all there
    ratings = _ratings(final)
    assert len(ratings) == 528
    rated = [r for r, _ in ratings.values() if r]
    assert len(rated) > 250


def test_a_written_json_list_reads_back_equal(tmp_path: Path) -> None:
    for suffix in ("csv", "json", "jsonl"):
        out = tmp_path / f"new.{suffix}"
        code, _, err = invoke("fide", "rate", SEED_TRF, "--list", SEED_LIST, "--out", out)
        assert code == 0, err
        again = tmp_path / f"again.{suffix}"
        code, _, err = invoke("fide", "rate", "--list", out, "--out", again, SEED_TRF)
        assert code == 0, err

    def read(path: Path) -> list[ListedPlayer]:
        return [replace(p, source="") for p in read_start_list(path).values()]

    assert read(tmp_path / "new.csv") == read(tmp_path / "new.json")
    assert read(tmp_path / "new.csv") == read(tmp_path / "new.jsonl")


def test_a_list_with_bad_pending_results_names_the_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "list.csv"
    bad.write_text("id,name,rating,games,reached_2400,pending\nx1,X,,0,false,2024-04-01:1950:2\n")
    code, _, err = invoke("fide", "rate", SEED_TRF, "--list", bad)
    assert code == 2
    assert f"{bad}:2: pending:" in err and "the score must be 1, 0.5 or 0" in err


def test_the_new_list_in_fides_fixed_width_layout(tmp_path: Path) -> None:
    out = tmp_path / "list.txt"
    code, _, err = invoke(
        "fide", "rate", SEED_TRF, "--list", SEED_LIST, "--bonus", "15", "--out", out,
        "--period", "2024-04-01",
    )  # fmt: skip
    assert code == 0, err
    lines = out.read_text().splitlines()
    assert lines[0] == (
        "ID Number      Name                                                         Fed Sex "
        "Tit  WTit OTit           FOA APR24 Gms K  B-day Flag"
    )
    first = lines[1]
    # the seed's player A: 2600 -> 2613 over 9 games, K 20 (FIDE's columns 1, 16, 114,
    # 120, 124)
    assert (first[:15].strip(), first[15:76].strip()) == ("9000001", "Player A")
    assert (first[113:119].strip(), first[119:123].strip(), first[123:126].strip()) == (
        "2613",
        "9",
        "20",
    )
    assert len(lines) == 1 + 10  # the rated players


def test_fide_2024_rules_from_the_command_line(tmp_path: Path) -> None:
    """--rules fide-2024 on a real file: the 1400 floor and pending results (a first
    rating needs 5 games against rated opponents) go on the written list."""
    out = tmp_path / "new.csv"
    code, _, err = invoke(
        "fide", "rate", CRETE, "--rules", "fide-2024", "--period", "2024-06-01", "--out", out,
        "--report", tmp_path / "report.json",
    )  # fmt: skip
    assert code == 0, err
    listed = read_start_list(out)
    assert all(p.rating is None or p.rating >= 1400 for p in listed.values())
    assert any(p.pending for p in listed.values())
    again = tmp_path / "again.csv"
    code, _, err = invoke(
        "fide", "rate", DATA / "trf" / "crete_team_championship_2025.trf", "--rules",
        "fide-2024", "--period", "2025-06-01", "--list", out, "--out", again,
    )  # fmt: skip
    assert code == 0, err


def test_the_2024_adjustment_rewrites_a_list(tmp_path: Path) -> None:
    listed = tmp_path / "list.csv"
    listed.write_text(
        "id,name,rating,games,reached_2400\n1,A,1000,40,false\n2,B,1500,40,false\n"
        "3,C,1999,40,false\n4,D,2000,40,false\n5,E,,0,false\n6,F,999,40,false\n"
    )
    out = tmp_path / "adjusted.csv"
    code, _, err = invoke("fide", "adjust-2024", listed, "--out", out)
    assert code == 0, err
    # R + 0.4 x (2000 - R), rounded: 1000 -> 1400, 1500 -> 1700, 1999 -> 1999.4 -> 1999
    assert {p.id: p.rating for p in read_start_list(out).values()} == {
        "1": 1400, "2": 1700, "3": 1999, "4": 2000, "5": None, "6": 999,
    }  # fmt: skip
    assert "6 players, 2 ratings raised" in err


def test_a_trf_name_that_keys_a_player_is_an_id_without_a_slash(tmp_path: Path) -> None:
    """A player without a FIDE id is named by his name, which is then his id:
    a ``/`` (or a NUL anywhere in the file) is refused naming FILE:LINE; a player with
    a FIDE id may have any name. A file the ledger stored before the rule is read with
    ``stored=True``."""
    text = SEED_TRF.read_text()
    slashed = tmp_path / "slash.trf"
    slashed.write_text(text.replace("Player C ", "Player/C "))
    code, _, err = invoke("fide", "rate", slashed, "--list", SEED_LIST)
    assert code == 2
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "Player C " in row)
    assert err.startswith(
        f"error: {slashed}:{line}: name: 'Player/C' is not a valid id: '/' is not allowed"
    )
    tournament = parse_trf(slashed.read_text(), "stored.trf")
    keys = {e.player for e in event_from_tournament(tournament, stored=True).entries}
    assert "Player/C" in keys
    named = tmp_path / "named.trf"
    named.write_text(text.replace("Player A ", "Player/A "))  # A has a FIDE id
    assert invoke("fide", "rate", named, "--list", SEED_LIST)[0] == 0
    nul = tmp_path / "nul.trf"
    nul.write_text(text.replace("Player C ", "Player\x00C"))
    code, _, err = invoke("fide", "rate", nul, "--list", SEED_LIST)
    assert (code, err) == (2, f"error: {nul}:{line}: record: must not contain a NUL character\n")
