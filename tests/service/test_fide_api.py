"""fide rating periods over HTTP: the seed's worked round robin (B = 15), on SQLite and
PostgreSQL; other ledgers have no periods, fide ledgers take no single games."""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path
from typing import Any

from chessrate.io.fide import read_events
from chessrate.samples import sample_text
from chessrate.systems.fide import FideSystem, ListedPlayer

from .conftest import Api, MakeApi
from .test_api import GAME, single_error

DATA = Path(__file__).parent.parent / "data"
SEED_TRF = (DATA / "trf" / "seed_round_robin.trf").read_text()
SEED_LIST = (DATA / "fide" / "seed_round_robin_list.csv").read_text()
TEXT = {"Content-Type": "text/plain; charset=utf-8"}

# fide F8, the seed's worked example with a bonus of 15 per half point.
NEW_RATINGS = {
    "Player A": 2613,
    "Player B": 2510,
    "Player D": 2412,
    "Player F": 2194,
    "Player G": 2264,
    "Player J": 2204,
    "Player C": 2423,
    "Player E": 2393,
    "Player H": 2144,
    "Player I": 2006,
}


def open_period(fide: Api, **fields: Any) -> dict[str, Any]:
    body = {"name": "2026-01", "bonus": "15", "floor": 1000, "start_list": SEED_LIST, **fields}
    answer = fide.post("/fide/periods", body)
    assert answer.status_code == 201, answer.text
    period: dict[str, Any] = answer.json()
    return period


def test_fide_period_reproduces_the_seed_round_robin(make_api: MakeApi) -> None:
    fide = make_api("fide")
    period = open_period(fide)
    assert (period["name"], period["bonus"], period["floor"]) == ("2026-01", "15", 1000)
    assert (period["closed"], period["closed_at"], period["files"]) == (False, None, [])
    pid = period["id"]

    upload = fide.post(
        f"/fide/periods/{pid}/files",
        params={"name": "seed_round_robin.trf"},
        content=SEED_TRF.encode(),
        headers=TEXT,
    )
    assert upload.status_code == 201, upload.text
    assert upload.json()["files"] == ["seed_round_robin.trf"]
    assert fide.get(f"/fide/periods/{pid}").json()["files"] == ["seed_round_robin.trf"]
    assert [p["id"] for p in fide.get("/fide/periods").json()["periods"]] == [pid]
    assert fide.get(f"/fide/periods/{pid}/list").status_code == 409  # not closed yet

    closed_at = fide.clock.advance(days=30)
    closed = fide.post(f"/fide/periods/{pid}/close")
    assert closed.status_code == 200, closed.text
    assert closed.json()["closed"] is True
    assert closed.json()["closed_at"].startswith(closed_at.isoformat().replace("+00:00", ""))

    entries = fide.get(f"/fide/periods/{pid}/list").json()["entries"]
    assert {e["name"]: e["new_rating"] for e in entries} == NEW_RATINGS
    assert entries[0] == {
        "position": 1,
        "player": "9000001",
        "name": "Player A",
        "old_rating": 2600,
        "new_rating": 2613,
        "games": 129,
        "change": "12.80",
        "k": 20,
        "period_games": 9,
        "flag": "",
    }
    assert [e["position"] for e in entries] == list(range(1, 11))

    report = fide.get(f"/fide/periods/{pid}/reports/Player I")
    assert report.status_code == 200, report.text
    first = report.json()["first_rating"][0]
    assert (first["ru"], first["rc"], first["p"], first["dp"]) == (2006, 2322, "0.11", "-315.9")
    f_report = fide.get(f"/fide/periods/{pid}/reports/9000006").json()
    assert (f_report["expected"], f_report["change"], f_report["k"]) == ("2.55", "43.50", 30)
    assert fide.get(f"/fide/periods/{pid}/reports/nobody").status_code == 404

    # The new list is the ledger's fide rating list.
    board = fide.get("/leaderboards/fide").json()
    assert board["total"] == 10
    assert board["entries"][0]["player"] == "9000001"
    assert board["entries"][0]["rating"] == "2613.00"
    player = fide.get("/players/9000001").json()
    assert player["name"] == "Player A"
    assert [(r["pool"], r["rating"], r["display"]) for r in player["ratings"]] == [
        ("fide", "2613.00", "2613")
    ]
    assert [p["pool"] for p in fide.get("/leaderboards").json()["pools"]] == [
        "fide",
        "fide-rapid",
        "fide-blitz",
    ]  # a leaderboard per list

    # A closed period takes no more files and is not closed twice.
    late = fide.post(
        f"/fide/periods/{pid}/files", params={"name": "late.trf"}, content=SEED_TRF.encode()
    )
    assert late.status_code == 409
    assert fide.post(f"/fide/periods/{pid}/close").status_code == 409


def test_fide_period_refusals(make_api: MakeApi) -> None:
    fide = make_api("fide")
    bad_list = single_error(
        fide.post("/fide/periods", {"name": "p", "start_list": "id,name,rating\nx,X,abc\n"})
    )
    assert bad_list["field"] == "rating"
    assert "not a whole number" in bad_list["msg"]
    bad_bonus = single_error(
        fide.post("/fide/periods", {"name": "p", "start_list": "", "bonus": -1})
    )
    assert bad_bonus["field"] == "bonus"
    assert fide.get("/fide/periods").json() == {
        "periods": [], "total": 0, "offset": 0, "limit": 1000
    }  # fmt: skip

    pid = open_period(fide)["id"]
    assert single_error(fide.post(f"/fide/periods/{pid}/close"))["field"] is None  # no files

    unclear = SEED_TRF.replace("092 Round Robin", "092 Individual")
    refused = single_error(
        fide.post(f"/fide/periods/{pid}/files", params={"name": "u.trf"}, content=unclear.encode())
    )
    assert (refused["field"], refused["where"]) == ("round_robin", "u.trf")
    assert "round_robin=true" in refused["msg"]
    accepted = fide.post(
        f"/fide/periods/{pid}/files",
        params={"name": "u.trf", "round_robin": "true"},
        content=unclear.encode(),
        headers=TEXT,
    )
    assert accepted.status_code == 201, accepted.text

    cut = "\n".join(SEED_TRF.splitlines()[:14]) + "\n001  oops\n"
    broken = single_error(
        fide.post(f"/fide/periods/{pid}/files", params={"name": "cut.trf"}, content=cut.encode())
    )
    assert broken["where"].startswith("cut.trf:")
    missing_name = single_error(fide.post(f"/fide/periods/{pid}/files", content=SEED_TRF.encode()))
    assert missing_name["field"] == "name"
    as_json = fide.post(
        f"/fide/periods/{pid}/files",
        params={"name": "a.trf"},
        content=SEED_TRF.encode(),
        headers={"Content-Type": "application/json"},
    )
    assert as_json.status_code == 415
    assert fide.get(f"/fide/periods/{pid}").json()["files"] == ["u.trf"]
    assert fide.get("/fide/periods/99").status_code == 404
    assert fide.post("/fide/periods/99/close").status_code == 404


def test_a_fide_ledger_refuses_single_games_and_previews(make_api: MakeApi) -> None:
    fide = make_api("fide")
    game = single_error(fide.post("/games", GAME))
    assert "rating period" in game["msg"]
    batch = fide.post("/games/batch", content=b"{}", headers=TEXT)
    assert batch.status_code == 422
    preview = fide.get("/preview", params={"white": "a", "black": "b"})
    assert preview.status_code == 422
    assert fide.ledger.counts()["games"] == 0


def test_other_ledgers_have_no_fide_periods(make_api: MakeApi) -> None:
    site = make_api("site")
    assert site.get("/fide/periods").status_code == 404
    assert site.get("/fide/periods/1").status_code == 404
    answer = site.post("/fide/periods", {"name": "p", "bonus": "15", "start_list": SEED_LIST})
    assert answer.status_code == 404
    assert "fide ledger" in answer.json()["detail"]
    upload = site.post("/fide/periods/1/files", params={"name": "a.trf"}, content=SEED_TRF.encode())
    assert upload.status_code == 404
    assert site.post("/fide/periods/1/close").status_code == 404
    assert site.get("/fide/periods/1/list").status_code == 404
    assert site.get("/fide/periods/1/reports/x").status_code == 404


# -- the new list's change, K and games; the CSV; crosstables; a player's periods

with (DATA / "fide" / "seed_round_robin_expected.csv").open(encoding="utf-8") as _file:
    SEED = {row["name"]: row for row in csv.DictReader(_file)}
"""The seed 003 worked example (rating, W, expected, change, K, new rating)."""

SAMPLE_CSV = """\
position,id,name,old_rating,new_rating,change,k,games
1,9000001,Player A,2600,2613,12.80,20,9
2,9000002,Player B,2500,2510,10.40,20,9
3,Player C,Player C,,2423,,,9
4,9000004,Player D,2400,2412,12.00,20,9
5,Player E,Player E,,2393,,,9
6,9000007,Player G,2300,2264,-36.30,30,9
7,9000010,Player J,2300,2204,-96.30,30,9
8,9000006,Player F,2150,2194,43.50,30,9
9,Player H,Player H,,2144,,,9
10,Player I,Player I,,2006,,,9
"""
"""The seed's round robin's new list as CSV: the seed's changes (K × ΣΔR) with two
decimals, K 20 for A, B, D (2400 reached, 30+ games), 30 for F, G, J."""


def seed_period(fide: Api, name: str = "2026-01", close: bool = True) -> int:
    pid = int(open_period(fide, name=name)["id"])
    upload = fide.post(
        f"/fide/periods/{pid}/files",
        params={"name": "seed_round_robin.trf"},
        content=SEED_TRF.encode(),
        headers=TEXT,
    )
    assert upload.status_code == 201, upload.text
    if close:
        fide.clock.advance(days=30)
        assert fide.post(f"/fide/periods/{pid}/close").status_code == 200
    return pid


def test_new_list_entries_carry_the_seeds_change_k_and_games(make_api: MakeApi) -> None:
    fide = make_api("fide")
    pid = seed_period(fide)
    entries = fide.get(f"/fide/periods/{pid}/list").json()["entries"]
    assert len(entries) == len(SEED)
    for entry in entries:
        seed = SEED[entry["name"]]
        assert entry["new_rating"] == int(seed["new_rating"])
        assert entry["period_games"] == 9  # a ten-player round robin
        if seed["rating"]:  # fide F2, F3: the seed's Kchg and K
            assert entry["old_rating"] == int(seed["rating"])
            assert Decimal(entry["change"]) == Decimal(seed["change"])
            assert len(entry["change"].split(".")[1]) == 2  # exact, two decimals
            assert entry["k"] == int(seed["k"])
            assert entry["games"] - entry["period_games"] > 0  # on the starting list
        else:  # a first rating (F4, F8): no K × ΣΔR
            assert (entry["old_rating"], entry["change"], entry["k"]) == (None, None, None)
            assert entry["games"] == entry["period_games"]


def test_new_list_as_csv(make_api: MakeApi) -> None:
    fide = make_api("fide")
    pid = seed_period(fide)
    answer = fide.get(f"/fide/periods/{pid}/list.csv")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "text/csv; charset=utf-8"
    assert answer.headers["content-disposition"] == (
        f'attachment; filename="fide-period-{pid}-list.csv"'
    )
    assert answer.text == SAMPLE_CSV
    rows = list(csv.DictReader(answer.text.splitlines()))
    entries = fide.get(f"/fide/periods/{pid}/list").json()["entries"]
    assert [r["id"] for r in rows] == [e["player"] for e in entries]

    # an open period has no list yet (as /list), an unknown one is not found
    still_open = seed_period(fide, "2026-02", close=False)
    refused = fide.get(f"/fide/periods/{still_open}/list.csv")
    assert refused.status_code == 409
    assert refused.json() == {"detail": f"period {still_open}: not closed yet"}
    missing = fide.get("/fide/periods/99/list.csv")
    assert missing.status_code == 404
    assert missing.json() == {"detail": "period 99: no such period"}


def test_crosstable_from_the_stored_trf(make_api: MakeApi) -> None:
    fide = make_api("fide")
    pid = seed_period(fide)
    answer = fide.get(f"/fide/periods/{pid}/tournaments/1")
    assert answer.status_code == 200, answer.text
    table = answer.json()
    assert (table["period"], table["number"], table["file"]) == (pid, 1, "seed_round_robin.trf")
    assert table["name"] == "Seed 003 worked example: ten-player round robin"
    assert (table["kind"], table["round_robin"], table["rounds"]) == ("Round Robin", True, 9)
    players = table["players"]
    assert [p["start_rank"] for p in players] == list(range(1, 11))
    # the totals: the seed's W column
    assert {p["name"]: Decimal(p["points"]) for p in players} == {
        name: Decimal(row["points"]) for name, row in SEED.items()
    }
    first = players[0]
    assert (first["player"], first["rating"], first["federation"], first["rank"]) == (
        "9000001", 2600, "FID", 1,
    )  # fmt: skip
    assert first["report"] == f"/api/v1/fide/periods/{pid}/reports/9000001"
    assert first["rounds"][0] == {
        "round": 1, "opponent": 10, "colour": "b", "code": "0", "result": "0", "points": "0",
        "text": "10b 0", "note": "",
    }  # fmt: skip
    unrated = players[2]
    assert (unrated["player"], unrated["rating"]) == ("Player C", None)
    assert unrated["report"] == f"/api/v1/fide/periods/{pid}/reports/Player%20C"
    # each row's points are its rounds' points
    for player in players:
        total = sum(Decimal(c["points"]) for c in player["rounds"])
        assert total == Decimal(player["points"]), player["name"]

    for number, why in ((2, "its tournaments are 1 to 1"), (0, "its tournaments are 1 to 1")):
        missing = fide.get(f"/fide/periods/{pid}/tournaments/{number}")
        assert missing.status_code == 404
        assert missing.json() == {"detail": f"period {pid}: no tournament {number} ({why})"}
    empty = int(open_period(fide, name="empty")["id"])
    assert fide.get(f"/fide/periods/{empty}/tournaments/1").json() == {
        "detail": f"period {empty}: no tournament 1 (it has none)"
    }
    # an open period's crosstable: no reports yet
    still_open = seed_period(fide, "2026-02", close=False)
    rows = fide.get(f"/fide/periods/{still_open}/tournaments/1").json()["players"]
    assert {r["report"] for r in rows} == {None}


def test_crosstable_cells_read_as_players_read_them(make_api: MakeApi) -> None:
    """Byes and forfeits (TRF-16 codes) in a Swiss file: lichess's 2020_06.trf."""
    fide = make_api("fide")
    pid = int(open_period(fide)["id"])
    swiss = (DATA / "trf" / "2020_06.trf").read_text(encoding="utf-8")
    upload = fide.post(
        f"/fide/periods/{pid}/files",
        params={"name": "2020_06.trf", "round_robin": "false"},
        content=swiss.encode(),
        headers=TEXT,
    )
    assert upload.status_code == 201, upload.text
    table = fide.get(f"/fide/periods/{pid}/tournaments/1").json()
    assert table["round_robin"] is False
    fifth = table["players"][4]  # "defrank": a half-point bye, then absent (TRF-16 "-")
    assert fifth["name"] == "defrank" and fifth["points"] == "5.5" and fifth["rank"] is None
    half_bye, absent, game = fifth["rounds"][:3]
    assert (half_bye["opponent"], half_bye["text"], half_bye["points"], half_bye["note"]) == (
        None, "bye ½", "0.5", "half-point bye",
    )  # fmt: skip
    assert (absent["opponent"], absent["text"], absent["points"]) == (None, "-", "0")
    assert (game["text"], game["result"]) == ("10w 1", "1")
    allocated = table["players"][5]["rounds"][1]  # a pairing-allocated bye
    assert (allocated["code"], allocated["text"], allocated["points"]) == ("u", "bye 1", "1")
    draw = table["players"][0]["rounds"][3]
    assert (draw["text"], draw["result"], draw["points"]) == ("6b ½", "½", "0.5")
    for player in table["players"]:
        shown = sum(Decimal(c["points"]) for c in player["rounds"] if c["points"] is not None)
        assert shown == Decimal(player["points"]), player["name"]


def test_report_lines_name_the_opponents(make_api: MakeApi) -> None:
    fide = make_api("fide")
    pid = seed_period(fide)
    games = fide.get(f"/fide/periods/{pid}/reports/9000001").json()["games"]
    assert [(g["opponent"], g["opponent_name"]) for g in games[:3]] == [
        ("9000010", "Player J"), ("Player C", "Player C"), ("Player E", "Player E"),
    ]  # fmt: skip


def test_player_periods(make_api: MakeApi) -> None:
    fide = make_api("fide")
    first = seed_period(fide, "2026-01")
    second = seed_period(fide, "2026-02")  # the same start list and file again
    answer = fide.get("/players/9000006/periods")
    assert answer.status_code == 200, answer.text
    found = answer.json()
    assert (found["player"], found["name"]) == ("9000006", "Player F")
    assert [p["period"] for p in found["periods"]] == [first, second]  # oldest first
    line = found["periods"][0]
    closed_at = line.pop("closed_at")
    assert closed_at < found["periods"][1]["closed_at"]
    assert line == {
        "period": first,
        "period_name": "2026-01",
        "list_kind": "standard",
        "position": 8,
        "old_rating": 2150,
        "new_rating": 2194,
        "change": "43.50",
        "k": 30,
        "games": 69,
        "period_games": 9,
        "report": f"/api/v1/fide/periods/{first}/reports/9000006",
        "report_page": f"/periods/{first}/reports/9000006",
        "list_date": None,
    }
    unrated = fide.get("/players/Player%20C/periods").json()["periods"][0]
    assert (unrated["old_rating"], unrated["new_rating"], unrated["change"], unrated["k"]) == (
        None, 2423, None, None,
    )  # fmt: skip
    assert unrated["report"] == f"/api/v1/fide/periods/{first}/reports/Player%20C"
    assert fide.get(unrated["report"].removeprefix("/api/v1")).status_code == 200

    unknown = fide.get("/players/nobody/periods")
    assert unknown.status_code == 404
    assert unknown.json() == {"detail": "player nobody: no such player"}


def test_other_ledgers_have_no_fide_lists_crosstables_or_periods(make_api: MakeApi) -> None:
    site = make_api("site")
    site.player("alice", name="Alice")
    for path in (
        "/fide/periods/1/list.csv",
        "/fide/periods/1/tournaments/1",
        "/players/alice/periods",
    ):
        answer = site.get(path)
        assert answer.status_code == 404, path
        assert answer.json() == {
            "detail": "rating periods belong to a fide ledger; this ledger rates by site"
        }, path


CHAIN = ["example1.trf", "crete_friendship_cup_2024.trf", "crete_team_championship_2025.trf"]


def _upload(fide: Api, pid: int, name: str) -> dict[str, Any]:
    answer = fide.post(
        f"/fide/periods/{pid}/files",
        params={"name": name},
        content=(DATA / "trf" / name).read_bytes(),
        headers=TEXT,
    )
    assert answer.status_code == 201, answer.text
    return answer.json()  # type: ignore[no-any-return]


def test_periods_chain_in_the_ledger_as_on_the_command_line(make_api: MakeApi) -> None:
    """Three periods of real TRF files, each opened without a starting list,
    start from the last closed period's new list; the last list equals rating the
    files one after another, each period from the one before's next list."""
    fide = make_api("fide")
    warnings = []
    for n, name in enumerate(CHAIN, start=1):
        answer = fide.post("/fide/periods", {"name": f"P{n}"})
        assert answer.status_code == 201, answer.text
        pid = answer.json()["id"]
        warnings += _upload(fide, pid, name)["warnings"]
        assert fide.post(f"/fide/periods/{pid}/close").status_code == 200
    # the Heraklion cup is rapid: the seed's one list rates it all the same, and says so
    assert len(warnings) == 2 and "'42143365' is entered twice" in warnings[1]
    assert warnings[0].startswith("crete_friendship_cup_2024.trf:13: 122: the rate of play")
    assert warnings[0].endswith("rated on the seed's one list all the same")
    listed = fide.get(f"/fide/periods/{pid}/list").json()["entries"]

    system = FideSystem()
    start: dict[str, ListedPlayer] = {}
    for name in CHAIN:
        result = system.rate_period(start, read_events([DATA / "trf" / name]))
        start = system.next_list(result)
    expected = {r.player: r.new_rating for r in result.reports}
    assert {e["player"]: e["new_rating"] for e in listed} == expected
    assert len(expected) == 528
    # a player's rating by period: Heraklion 2024 then 2025
    periods = fide.get("/players/4201175/periods").json()["periods"]
    assert [p["period_name"] for p in periods] == ["P2", "P3"]
    assert periods[0]["new_rating"] == periods[1]["old_rating"]


def test_a_period_by_todays_rules_with_the_date_of_its_list(make_api: MakeApi) -> None:
    fide = make_api("fide")
    answer = fide.post(
        "/fide/periods",
        {
            "name": "June 2024",
            "rules": "fide-2024",
            "list_date": "2024-06-01",
            "list_kind": "rapid",
        },
    )
    assert answer.status_code == 201, answer.text
    period = answer.json()
    assert (period["rules"], period["list_date"], period["floor"], period["list_kind"]) == (
        "fide-2024", "2024-06-01", 1400, "rapid"
    )  # fmt: skip
    assert period["rules_by_date"] is True
    _upload(fide, period["id"], "crete_friendship_cup_2024.trf")
    assert fide.post(f"/fide/periods/{period['id']}/close").status_code == 200
    listed = fide.get(f"/fide/periods/{period['id']}/list").json()["entries"]
    rated = [e["new_rating"] for e in listed if e["new_rating"] is not None]
    assert rated and min(rated) >= 1400
    refused = fide.post("/fide/periods", {"name": "x", "rules": "fide-1990"})
    assert refused.status_code == 422 and single_error(refused)["field"] == "rules"


# -- the three lists ------------------------------------------------------------------

RAPID_TRF = sample_text("fide_rapid_round_robin.trf")
BLITZ_TRF = sample_text("fide_blitz_round_robin.trf")


def _period(fide: Api, trf: str, name: str, **fields: Any) -> int:
    answer = fide.post("/fide/periods", {"name": name, **fields})
    assert answer.status_code == 201, answer.text
    pid = int(answer.json()["id"])
    upload = fide.post(
        f"/fide/periods/{pid}/files", params={"name": f"{name}.trf"}, content=trf.encode(),
        headers=TEXT,
    )  # fmt: skip
    assert upload.status_code == 201, upload.text
    fide.clock.advance(days=1)
    assert fide.post(f"/fide/periods/{pid}/close").status_code == 200
    return pid


def test_the_list_kind_field_and_its_refusals(make_api: MakeApi) -> None:
    fide = make_api("fide")
    schema = fide.client.get("/openapi.json").json()["components"]["schemas"]
    field = schema["PeriodCreate"]["properties"]["list_kind"]
    kinds = schema[field["$ref"].rsplit("/", 1)[-1]] if "$ref" in field else field
    assert kinds["enum"] == ["standard", "rapid", "blitz"]
    assert fide.get("/fide/periods").json()["total"] == 0
    default = open_period(fide)
    assert (default["list_kind"], default["rules_by_date"]) == ("standard", True)

    seed_rapid = single_error(fide.post("/fide/periods", {"name": "p", "list_kind": "rapid"}))
    assert seed_rapid["field"] == "list_kind"
    assert "no rapid or blitz rules" in seed_rapid["msg"]
    unknown = fide.post("/fide/periods", {"name": "p", "list_kind": "classical"})
    assert unknown.status_code == 422 and single_error(unknown)["type"] == "literal_error"
    early = single_error(
        fide.post("/fide/periods", {"name": "p", "rules": "fide-2024", "list_date": "2024-02-01",
                                    "list_kind": "blitz"})
    )  # fmt: skip
    assert early["field"] == "list_date" and "before 1 March 2024" in early["msg"]
    assert fide.get("/fide/periods").json()["total"] == 1

    # a rapid file in a standard period (fide-2024) is refused, naming line 122
    standard = fide.post(
        "/fide/periods", {"name": "s", "rules": "fide-2024", "list_date": "2026-02-01"}
    ).json()["id"]
    refused = single_error(
        fide.post(f"/fide/periods/{standard}/files", params={"name": "r.trf"},
                  content=RAPID_TRF.encode(), headers=TEXT)
    )  # fmt: skip
    assert (refused["where"], refused["field"]) == ("r.trf:11", "122")
    assert "a rapid game; the standard list needs" in refused["msg"]
    assert fide.get(f"/fide/periods/{standard}").json()["files"] == []


def test_a_player_on_the_three_lists(make_api: MakeApi) -> None:
    fide = make_api("fide")
    standard = _period(fide, SEED_TRF, "S", start_list=SEED_LIST, bonus="15")
    faster = {"rules": "fide-2024", "list_date": "2026-02-01"}
    rapid = _period(fide, RAPID_TRF, "R", list_kind="rapid",
                    start_list=sample_text("fide_rapid_list.csv"), **faster)  # fmt: skip
    found = fide.get("/players/Player C/periods").json()
    assert [p["period"] for p in found["periods"]] == [standard, rapid]
    lists = {entry.pop("list_kind"): entry for entry in found["lists"]}
    assert list(lists) == ["standard", "rapid", "blitz"]
    assert {k: (v["rating"], v["games"], v["k"], v["period"]) for k, v in lists.items()} == {
        "standard": (2423, 9, 30, standard),
        "rapid": (2439, 5, 10, rapid),  # rated with his standard 2423 (R&B 7.2.1)
        "blitz": (None, 0, None, None),
    }
    assert [p["period"] for p in lists["rapid"]["periods"]] == [rapid]
    assert lists["rapid"]["periods"][0]["old_rating"] == 2423
    assert lists["blitz"]["periods"] == []
    ratings = fide.get("/players/Player C").json()["ratings"]
    assert {(r["pool"], r["display"]) for r in ratings} == {
        ("fide", "2423"), ("fide-rapid", "2439"),
    }  # fmt: skip
    # the standard leaderboard is the standard list only
    board = fide.get("/leaderboards/fide").json()
    assert board["total"] == 10
    assert {e["player"]: e["rating"] for e in board["entries"]}["9000001"] == "2613.00"


def test_crosstable_ranks_tiebreaks_performance_and_changes(make_api: MakeApi) -> None:
    """The seed's round robin: unique ranks by points, Buchholz and Sonneborn–Berger;
    Player A's performance from his rated opponents only (his four unrated ones left
    out); the period's change new − old (2600 → 2613)."""
    fide = make_api("fide")
    pid = seed_period(fide)
    table = fide.get(f"/fide/periods/{pid}/tournaments/1").json()
    assert [t["code"] for t in table["tiebreaks"]] == ["BH", "SB"]
    assert (table["declared"], table["not_computed"], table["closed"]) == (None, [], True)
    players = {p["name"]: p for p in table["players"]}
    assert sorted(p["place"] for p in players.values()) == list(range(1, 11))
    first = players["Player A"]
    assert first["place"] == 1 and first["rating_change"] == 13
    # A met B 2500 (1), D 2400 (1), F 2150 (1), G 2300 (1), J 2300 (0): 4 of 5,
    # Ra = 11650 / 5 = 2330, p 0.80, dp 240: Rp 2570
    assert (first["performance_games"], first["performance_ra"]) == (5, "2330.00")
    assert (first["performance_p"], first["performance_dp"], first["performance"]) == (
        "0.80", 240, 2570,
    )  # fmt: skip
    unrated = players["Player C"]
    assert (unrated["old_rating"], unrated["new_rating"], unrated["rating_change"]) == (
        None, 2423, None,
    )  # fmt: skip
    # B and C both 7: the tiebreaks decide, and no two share a place
    assert {players["Player B"]["place"], players["Player C"]["place"]} == {2, 3}


def test_a_period_says_which_amendments_applied_and_the_lists_flag(make_api: MakeApi) -> None:
    """fide-2024 by date: the list of 2025-06-01 is rated without 8.3.1's 2650 rule (from
    1 October 2025), the list of 2026-02-01 with it; each period says so. A woman (TRF
    sex ``w``) has Flag ``w`` on the new list (7.2.2's column)."""
    fide = make_api("fide")
    woman = SEED_TRF.replace("001    2      Player B", "001    2 w    Player B")
    assert woman != SEED_TRF
    found = {}
    for when in ("2025-06-01", "2026-02-01"):
        pid = _period(fide, woman, when, rules="fide-2024", list_date=when, start_list=SEED_LIST)
        period = fide.get(f"/fide/periods/{pid}").json()
        found[when] = {a["article"]: a["applied"] for a in period["amendments"]}
        flags = {e["player"]: e["flag"] for e in fide.get(f"/fide/periods/{pid}/list").json()[
            "entries"]}  # fmt: skip
        assert flags["9000002"] == "w" and flags["9000001"] == ""
    assert found == {"2025-06-01": {"8.3.1": False}, "2026-02-01": {"8.3.1": True}}
    seed = open_period(fide)
    assert seed["amendments"] == []
