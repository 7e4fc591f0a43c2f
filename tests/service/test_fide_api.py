"""fide rating periods over HTTP: the seed's worked round robin (B = 15), on SQLite and
PostgreSQL; other ledgers have no periods, fide ledgers take no single games."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
    assert [p["pool"] for p in fide.get("/leaderboards").json()["pools"]] == ["fide"]

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
    assert fide.get("/fide/periods").json() == {"periods": []}

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
