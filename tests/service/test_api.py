"""The HTTP API in-process, on SQLite and on PostgreSQL: players, games (idempotent,
atomic batches), history, leaderboards, preview, annulments, errors and access."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import API, NOW, Api, MakeApi

GAME = {
    "id": "g1",
    "played_at": "2026-03-01T18:00:00Z",
    "white": "alice",
    "black": "bob",
    "result": "1-0",
    "time_control": "5m+3s",
    "plies": 61,
}


def changes_by(answer: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {(c["player"], c["pool"]): c["after"] for c in answer["changes"]}


def games_stored(api: Api) -> int:
    return api.ledger.counts()["games"]


def jsonl(*records: dict[str, Any]) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def single_error(answer: Any) -> dict[str, Any]:
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert len(detail) == 1, detail
    item: dict[str, Any] = detail[0]
    return item


# -- the app ----------------------------------------------------------------------------


def test_openapi_lists_every_route_under_api_v1(site: Api) -> None:
    schema = site.client.get("/openapi.json").json()
    paths = set(schema["paths"])
    assert paths == {
        "/healthz",
        *(
            API + p
            for p in (
                "/players",
                "/players/{player_id}",
                "/players/{player_id}/history/{pool}",
                "/players/{player_id}/games",
                "/players/{player_id}/stats",
                "/games",
                "/games/batch",
                "/games/{game_id}",
                "/games/{game_id}/annul",
                "/annulments",
                "/games/{game_id}/reports",
                "/reviews",
                "/reviews/{game_id}",
                "/reviews/{game_id}/confirm",
                "/reviews/{game_id}/dismiss",
                "/reviews/{game_id}/reopen",
                "/players/{player_id}/mark",
                "/players/{player_id}/marks",
                "/audit",
                "/leaderboards",
                "/leaderboards/{pool}",
                "/leaderboards/{pool}/players/{player_id}",
                "/preview",
                "/fide/periods",
                "/fide/periods/{period_id}",
                "/fide/periods/{period_id}/files",
                "/fide/periods/{period_id}/close",
                "/fide/periods/{period_id}/list",
                "/fide/periods/{period_id}/list.csv",
                "/fide/periods/{period_id}/tournaments/{number}",
                "/fide/periods/{period_id}/reports/{player_id}",
                "/players/{player_id}/periods",
                "/live-games",
                "/live-games/{game_id}",
                "/live-games/{game_id}/moves",
                "/live-games/{game_id}/finish",
                "/live-games/{game_id}/abort",
                "/live-games/{game_id}/confirm",
                "/live-games/{game_id}/dispute",
                "/sweep",
                "/seeks",
                "/seeks/{seek_id}",
                "/pair",
            )
        ),
    }
    games = schema["paths"][API + "/games"]["post"]
    body = games["requestBody"]["content"]["application/json"]["schema"]
    assert {"id", "white", "black", "result", "time_control"} <= set(body["properties"])
    batch = schema["paths"][API + "/games/batch"]["post"]["requestBody"]["content"]
    assert "application/x-ndjson" in batch
    assert set(schema["paths"][API + "/preview"]) == {"get", "post"}
    assert site.client.get("/docs").status_code == 200


def test_root_serves_the_leaderboards_page(site: Api) -> None:
    answer = site.client.get("/", follow_redirects=False)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert "Leaderboards" in answer.text


def test_healthz_checks_the_database_and_names_the_system(site: Api) -> None:
    answer = site.client.get("/healthz")
    assert answer.status_code == 200
    health = answer.json()
    assert (health["status"], health["system"]) == ("ok", "site")
    assert health["detector"]["state"] == "off"  # the suite turns it off
    assert health["detector"]["why"] == "turned off by CHESSRATE_DETECT_SECONDS=0"


# -- players ----------------------------------------------------------------------------


def test_players_create_read_update_search(site: Api) -> None:
    created = site.post("/players", {"id": "alice", "name": "Alice Liddell"})
    assert created.status_code == 201, created.text
    assert created.headers["location"] == f"{API}/players/alice"
    assert created.json()["ratings"] == []
    site.player("bob", rating_blitz="1800", games_blitz=20)

    bob = site.get("/players/bob").json()
    assert bob["imported"] == {"blitz": {"rating": "1800.00", "games": 20}}
    # The imported rating shows in its pool before any game (site S6: 20 games, no ?).
    assert bob["ratings"] == [
        {
            "player": "bob",
            "name": None,
            "pool": "blitz",
            "rating": "1800.00",
            "display": "1800",
            "state": "rated",
            "games": 20,
            "listed": True,
        }
    ]

    assert site.post("/players", {"id": "alice"}).status_code == 409

    changed = site.patch("/players/alice", {"name": "Alice L."})
    assert changed.status_code == 200, changed.text
    assert changed.json()["name"] == "Alice L."
    refused = single_error(site.patch("/players/bob", {"bot": True, "bot_rating": "2000"}))
    assert (refused["field"], refused["where"]) == ("bot", "player bob")
    removed = site.patch("/players/bob", {"rating_blitz": None, "games_blitz": None})
    assert removed.status_code == 200, removed.text
    assert (removed.json()["imported"], removed.json()["ratings"]) == ({}, [])
    botted = site.patch("/players/bob", {"bot": True, "bot_rating": "2000"})
    assert botted.status_code == 200, botted.text
    assert (botted.json()["bot"], botted.json()["bot_rating"]) == (True, "2000.00")
    assert botted.json()["name"] is None
    unbotted = site.patch("/players/bob", {"bot": False, "bot_rating": None})
    assert unbotted.json()["bot"] is False

    found = site.get("/players", params={"q": "ALICE L"}).json()
    assert [p["id"] for p in found["players"]] == ["alice"]
    assert found["count"] == 1
    assert [p["id"] for p in site.get("/players").json()["players"]] == ["alice", "bob"]
    assert site.get("/players", params={"q": "zzz"}).json() == {
        "players": [],
        "count": 0,
        "truncated": False,
    }

    assert site.get("/players/nobody").status_code == 404
    assert site.patch("/players/nobody", {"name": "X"}).status_code == 404


@pytest.mark.parametrize(
    ("body", "field", "reason"),
    [
        ({"id": "carol", "bot": True}, "bot_rating", "is required for a bot"),
        ({"id": "carol", "colour": "red"}, "colour", "unknown field"),
        ({"id": "carol", "rating_blitz": "abc", "games_blitz": 3}, "rating_blitz", "not a number"),
        ({"id": "carol", "rating_moon": "1800", "games_moon": 3}, "rating_moon", "no pool"),
        ({"name": "Carol"}, "id", "is required"),
        ({"id": "carol", "membership_until": "soon"}, "membership_until", "not a date"),
    ],
)
def test_invalid_player_is_422_naming_the_field(
    site: Api, body: dict[str, Any], field: str, reason: str
) -> None:
    error = single_error(site.post("/players", body))
    assert error["field"] == field
    assert reason in error["msg"]
    assert error["loc"] == ["body", field]
    assert site.ledger.counts()["players"] == 0


def test_player_update_cannot_change_the_id(site_pair: Api) -> None:
    error = single_error(site_pair.patch("/players/alice", {"id": "eve"}))
    assert error["field"] == "id"
    assert site_pair.get("/players/eve").status_code == 404


# -- games ------------------------------------------------------------------------------


def test_submit_game_rates_it_and_reads_it_back(site_pair: Api) -> None:
    answer = site_pair.post("/games", GAME)
    assert answer.status_code == 201, answer.text
    assert answer.headers["location"] == f"{API}/games/g1"
    game = answer.json()
    assert game["outcome"] == "rated"
    assert game["submitted_at"].startswith(NOW.isoformat().replace("+00:00", ""))
    assert (game["time_control"], game["plies"], game["result"]) == ("300+3", 61, "1-0")
    # site example: two new players, blitz 5m+3s, white wins.
    assert changes_by(game) == {
        ("alice", "blitz"): "1516.00",
        ("bob", "blitz"): "1484.00",
        ("alice", "site"): "1512.00",
        ("bob", "site"): "1488.00",
    }
    first = game["changes"][0]
    assert (first["rule"], first["k"], first["pd"], first["change"]) == (
        "site S3",
        32,
        "0.50",
        "16.00",
    )
    assert "K 32" in first["note"]
    assert game["explanation"][0] == game["reason"]
    assert "alice blitz: 1500.00 → 1516.00" in game["explanation"][1]

    assert site_pair.get("/games/g1").json() == game
    assert site_pair.get("/games/nothing").status_code == 404
    assert site_pair.ratings("alice") == {"site": "1512.00", "blitz": "1516.00"}
    alice = site_pair.get("/players/alice").json()["ratings"]
    assert alice[0] == {
        "player": "alice",
        "name": "Alice",
        "pool": "site",
        "rating": "1512.00",
        "display": "1512?",
        "state": "rated",
        "games": 1,
        "listed": True,
    }


def test_resubmitting_the_same_game_returns_the_same_answer_and_changes_nothing(
    site_pair: Api,
) -> None:
    first = site_pair.post("/games", GAME)
    assert first.status_code == 201
    ratings = site_pair.ratings("alice"), site_pair.ratings("bob")
    history = site_pair.get("/players/alice/history/blitz").json()

    site_pair.clock.advance(hours=1)
    again = site_pair.post("/games", dict(GAME))
    assert again.status_code == 200, again.text
    assert again.json() == first.json()
    # The same content written differently is the same game.
    same = site_pair.post("/games", {**GAME, "time_control": "300+3", "rated": True})
    assert same.status_code == 200
    assert same.json() == first.json()

    assert (site_pair.ratings("alice"), site_pair.ratings("bob")) == ratings
    assert site_pair.get("/players/alice/history/blitz").json() == history
    assert len(history["items"]) == 1
    assert games_stored(site_pair) == 1
    assert site_pair.ledger.verify() == []


def test_same_id_with_different_content_is_409_and_changes_nothing(site_pair: Api) -> None:
    site_pair.post("/games", GAME)
    ratings = site_pair.ratings("alice")
    answer = site_pair.post("/games", {**GAME, "result": "0-1"})
    assert answer.status_code == 409
    assert "g1" in answer.json()["detail"]
    assert site_pair.ratings("alice") == ratings
    assert site_pair.get("/games/g1").json()["result"] == "1-0"
    assert games_stored(site_pair) == 1


@pytest.mark.parametrize(
    ("body", "field", "reason"),
    [
        ({**GAME, "black": "nobody"}, "black", "unknown player 'nobody'"),
        ({**GAME, "white": "ghost"}, "white", "unknown player 'ghost'"),
        ({**GAME, "time_control": "5 minutes"}, "time_control", "is not a time control"),
        ({k: v for k, v in GAME.items() if k != "result"}, "result", "is required"),
        ({k: v for k, v in GAME.items() if k != "played_at"}, "played_at", "is required"),
        ({**GAME, "played_at": "yesterday"}, "played_at", "not an ISO 8601 timestamp"),
        ({**GAME, "plies": "many"}, "plies", "not a whole number"),
        ({**GAME, "result": "2-0"}, "result", "is not one of"),
        ({**GAME, "white": {"id": "alice"}}, "white", "must be a string"),
        ({**GAME, "colour": "blue"}, "colour", "unknown field"),
        ({**GAME, "black": "alice"}, "black", "cannot play himself"),
    ],
)
def test_invalid_game_is_422_naming_the_field_and_nothing_is_stored(
    site_pair: Api, body: dict[str, Any], field: str, reason: str
) -> None:
    error = single_error(site_pair.post("/games", body))
    assert error["field"] == field
    assert reason in error["msg"]
    assert error["where"] == "game g1"
    assert error["loc"] == ["body", field]
    assert games_stored(site_pair) == 0
    assert site_pair.ratings("alice") == {}


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"id": "g1", "white": ', "malformed JSON"),
        (b"not json at all", "malformed JSON"),
        (b'[{"id": "g1"}]', "valid dictionary"),
        (b'"g1"', "valid dictionary"),
    ],
)
def test_malformed_json_is_422_naming_the_body(site_pair: Api, content: bytes, reason: str) -> None:
    answer = site_pair.post("/games", content=content, headers={"Content-Type": "application/json"})
    error = single_error(answer)
    assert error["field"] == "body"
    assert reason in error["msg"]
    assert games_stored(site_pair) == 0


# -- batches ----------------------------------------------------------------------------


def batch_games() -> list[dict[str, Any]]:
    return [
        {**GAME, "id": "b1"},
        {**GAME, "id": "b2", "result": "1/2-1/2", "played_at": "2026-03-01T19:00:00Z"},
        {**GAME, "id": "b3", "result": "0-1", "played_at": "2026-03-01T20:00:00Z"},
    ]


@pytest.mark.parametrize("content_type", ["application/x-ndjson", "text/plain; charset=utf-8"])
def test_batch_stores_every_game_in_line_order(site_pair: Api, content_type: str) -> None:
    content = jsonl(*batch_games()) + b"\n\n"
    answer = site_pair.post("/games/batch", content=content, headers={"Content-Type": content_type})
    assert answer.status_code == 201, answer.text
    batch = answer.json()
    assert (batch["created"], batch["existing"]) == (3, 0)
    assert [(g["line"], g["id"], g["outcome"]) for g in batch["games"]] == [
        (1, "b1", "rated"),
        (2, "b2", "rated"),
        (3, "b3", "rated"),
    ]
    seqs = [g["seq"] for g in batch["games"]]
    assert seqs == sorted(seqs)
    history = site_pair.get("/players/alice/history/blitz").json()["items"]
    assert [i["change"]["game"] for i in history] == ["b1", "b2", "b3"]
    assert games_stored(site_pair) == 3
    # The same batch again: nothing new.
    again = site_pair.post(
        "/games/batch", content=content, headers={"Content-Type": "application/x-ndjson"}
    )
    assert again.status_code == 200
    assert (again.json()["created"], again.json()["existing"]) == (0, 3)
    assert games_stored(site_pair) == 3
    assert site_pair.ledger.verify() == []


@pytest.mark.parametrize(
    ("third", "field", "reason"),
    [
        # refused by the ledger inside the transaction, after two games were rated
        ({"black": "nobody"}, "black", "unknown player 'nobody'"),
        # refused while reading the batch
        ({"time_control": "fast"}, "time_control", "is not a time control"),
        ({"result": None}, "result", "is required"),
    ],
)
def test_batch_with_a_bad_third_line_stores_nothing(
    site_pair: Api, third: dict[str, Any], field: str, reason: str
) -> None:
    games = batch_games()
    games[2] = {**games[2], **third}
    answer = site_pair.post(
        "/games/batch", content=jsonl(*games), headers={"Content-Type": "application/x-ndjson"}
    )
    error = single_error(answer)
    assert (error["where"], error["field"]) == ("batch:3", field)
    assert reason in error["msg"]
    assert games_stored(site_pair) == 0
    assert site_pair.ratings("alice") == {}
    assert site_pair.get("/games/b1").status_code == 404


def test_batch_with_a_malformed_line_names_it(site_pair: Api) -> None:
    content = jsonl(batch_games()[0]) + b"\n{oops\n" + jsonl(batch_games()[2])
    answer = site_pair.post(
        "/games/batch", content=content, headers={"Content-Type": "application/x-ndjson"}
    )
    error = single_error(answer)
    assert (error["where"], error["field"]) == ("batch:2", "line")
    assert "malformed JSON" in error["msg"]
    not_object = site_pair.post(
        "/games/batch", content=b"[1, 2]\n", headers={"Content-Type": "text/plain"}
    )
    assert single_error(not_object)["where"] == "batch:1"
    empty = site_pair.post("/games/batch", content=b"\n", headers={"Content-Type": "text/plain"})
    assert single_error(empty)["field"] == "body"
    assert games_stored(site_pair) == 0


def test_batch_of_a_duplicate_id_with_other_content_is_409_and_stores_nothing(
    site_pair: Api,
) -> None:
    games = batch_games()
    games[2] = {**games[0], "result": "0-1"}
    answer = site_pair.post(
        "/games/batch", content=jsonl(*games), headers={"Content-Type": "application/x-ndjson"}
    )
    assert answer.status_code == 409
    assert games_stored(site_pair) == 0


def test_batch_as_json_is_415(site_pair: Api) -> None:
    answer = site_pair.post(
        "/games/batch", content=jsonl(*batch_games()), headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 415
    assert games_stored(site_pair) == 0


# -- access -----------------------------------------------------------------------------

WRITES = [
    ("post", "/players", {"id": "carol"}),
    ("patch", "/players/alice", {"name": "A"}),
    ("post", "/games", GAME),
    ("post", "/games/batch", None),
    ("post", "/games/g1/annul", {"reason": "engine"}),
    ("post", "/fide/periods", {"name": "p", "start_list": "id,name,rating,games\n"}),
    ("post", "/fide/periods/1/files?name=a.trf", None),
    ("post", "/fide/periods/1/close", None),
]


def test_every_write_without_a_valid_token_is_401(site_pair: Api) -> None:
    for method, path, body in WRITES:
        for headers in (
            {},
            {"Authorization": "Bearer cr_not_a_token"},
            {"Authorization": "Basic x"},
        ):
            answer = getattr(site_pair, method)(path, body, auth="none", headers=headers)
            assert answer.status_code == 401, (method, path, headers, answer.text)
            assert answer.headers["www-authenticate"] == "Bearer"
    assert games_stored(site_pair) == 0
    assert site_pair.ledger.counts()["players"] == 2


def test_reads_are_public(site_pair: Api) -> None:
    site_pair.game("g1", "alice", "bob", "1-0", time_control="5m+3s")
    for path in (
        "/players/alice",
        "/players?q=a",
        "/players/alice/history/blitz",
        "/games/g1",
        "/leaderboards",
        "/leaderboards/site",
        "/annulments",
        "/preview?white=alice&black=bob&time_control=5m%2B3s",
    ):
        assert site_pair.get(path).status_code == 200, path


# -- history and leaderboards -----------------------------------------------------------


def test_history_lists_a_players_changes_in_order(site_pair: Api) -> None:
    site_pair.player("carol")
    site_pair.game("g1", "alice", "bob", "1-0", time_control="5m+3s")
    site_pair.game("g2", "carol", "alice", "1-0", time_control="5m+3s")
    site_pair.game("g3", "bob", "carol", "1/2-1/2", time_control="1m+0s")
    history = site_pair.get("/players/alice/history/blitz").json()
    assert (history["player"], history["pool"]) == ("alice", "blitz")
    items = history["items"]
    assert [(i["kind"], i["change"]["game"]) for i in items] == [("game", "g1"), ("game", "g2")]
    assert [i["change"]["after"] for i in items] == ["1516.00", items[1]["change"]["after"]]
    assert items[1]["change"]["before"] == "1516.00"
    assert items[0]["at"].startswith("2026-03-01T18:00:00")
    assert site_pair.get("/players/alice/history/bullet").json()["items"] == []
    assert site_pair.get("/players/alice/history/moon").status_code == 404
    assert site_pair.get("/players/nobody/history/blitz").status_code == 404


def test_leaderboard_pages_with_total(site: Api) -> None:
    for n in range(1, 7):
        site.player(f"p{n}")
    site.game("g1", "p1", "p2", "1-0", time_control="5m+3s")
    site.game("g2", "p3", "p4", "1-0", time_control="5m+3s")
    site.game("g3", "p5", "p6", "1/2-1/2", time_control="5m+3s")
    site.game("g4", "p1", "p3", "1-0", time_control="5m+3s")

    # by default a list shows established players: nobody has 10 games yet (site S6)
    default = site.get("/leaderboards/blitz").json()
    assert (default["entries"], default["total"], default["established_only"]) == ([], 0, True)

    everyone = {"all": "true"}
    full = site.get("/leaderboards/blitz", params=everyone).json()
    assert full["established_only"] is False
    order = [e["player"] for e in full["entries"]]
    assert order == ["p1", "p3", "p5", "p6", "p2", "p4"]
    assert [e["rank"] for e in full["entries"]] == [1, 2, 3, 4, 5, 6]
    assert (full["total"], full["offset"], full["limit"], full["system"]) == (6, 0, 50, "site")

    page = site.get("/leaderboards/blitz", params={**everyone, "offset": 2, "limit": 2}).json()
    assert [(e["rank"], e["player"]) for e in page["entries"]] == [(3, "p5"), (4, "p6")]
    assert page["total"] == 6
    last = site.get("/leaderboards/blitz", params={**everyone, "offset": 5, "limit": 2}).json()
    assert [e["player"] for e in last["entries"]] == ["p4"]
    beyond = site.get("/leaderboards/blitz", params={**everyone, "offset": 10}).json()
    assert (beyond["entries"], beyond["total"]) == ([], 6)

    assert single_error(site.get("/leaderboards/blitz", params={"limit": 0}))["field"] == "limit"
    assert single_error(site.get("/leaderboards/blitz", params={"offset": -1}))["field"] == "offset"
    assert site.get("/leaderboards/moon").status_code == 404

    pools = site.get("/leaderboards").json()
    assert pools["system"] == "site"
    totals = {p["pool"]: p["everyone"] for p in pools["pools"]}
    assert totals["blitz"] == 6 and totals["site"] == 6 and totals["bullet"] == 0
    assert {p["pool"]: (p["total"], p["established"]) for p in pools["pools"]}["blitz"] == (0, 0)
    assert next(iter(totals)) == "site"


# -- preview ----------------------------------------------------------------------------


def test_preview_gives_the_site_example_for_win_draw_and_loss(site_pair: Api) -> None:
    params = {"white": "alice", "black": "bob", "time_control": "5m+3s"}
    answer = site_pair.get("/preview", params=params)
    assert answer.status_code == 200, answer.text
    preview = answer.json()
    assert (preview["white"], preview["black"]) == ("alice", "bob")
    results = preview["results"]
    assert list(results) == ["1-0", "1/2-1/2", "0-1"]
    assert changes_by(results["1-0"]) == {
        ("alice", "blitz"): "1516.00",
        ("bob", "blitz"): "1484.00",
        ("alice", "site"): "1512.00",
        ("bob", "site"): "1488.00",
    }
    assert set(changes_by(results["1/2-1/2"]).values()) == {"1500.00"}
    assert changes_by(results["0-1"]) == {
        ("alice", "blitz"): "1484.00",
        ("bob", "blitz"): "1516.00",
        ("alice", "site"): "1488.00",
        ("bob", "site"): "1512.00",
    }
    assert results["1-0"]["outcome"] == "rated"
    assert "weight 0.75" in results["1-0"]["reason"]

    posted = site_pair.client.post(API + "/preview", json=params)
    assert posted.status_code == 200, posted.text
    assert posted.json() == preview
    # A preview stores nothing.
    assert games_stored(site_pair) == 0
    assert site_pair.ratings("alice") == {}


def test_preview_refuses_unknown_players_and_bad_fields(site_pair: Api) -> None:
    base = {"white": "alice", "black": "bob", "time_control": "5m+3s"}
    unknown = single_error(site_pair.get("/preview", params={**base, "black": "nobody"}))
    assert (unknown["field"], unknown["loc"]) == ("black", ["query", "black"])
    assert "unknown player 'nobody'" in unknown["msg"]
    bad_control = single_error(site_pair.get("/preview", params={**base, "time_control": "x"}))
    assert bad_control["field"] == "time_control"
    missing = single_error(site_pair.get("/preview", params={"white": "alice"}))
    assert missing["field"] == "black"
    with_result = site_pair.client.post(API + "/preview", json={**base, "result": "1-0"})
    assert single_error(with_result)["field"] == "result"
    bad_venue = site_pair.client.post(API + "/preview", json={**base, "venue": "moon"})
    assert single_error(bad_venue)["field"] == "venue"


# -- annulments -------------------------------------------------------------------------


def test_annulment_needs_a_moderator_and_restores_the_ratings(site_pair: Api) -> None:
    site_pair.game("g1", "alice", "bob", "1-0", time_control="5m+3s")
    assert site_pair.ratings("alice") == {"site": "1512.00", "blitz": "1516.00"}

    denied = site_pair.post("/games/g1/annul", {"reason": "engine use"}, auth="writer")
    assert denied.status_code == 403
    anonymous = site_pair.post("/games/g1/annul", {"reason": "engine use"}, auth="none")
    assert anonymous.status_code == 401

    at = site_pair.clock.advance(days=2)
    answer = site_pair.post("/games/g1/annul", {"reason": "engine use"}, auth="moderator")
    assert answer.status_code == 200, answer.text
    annulment = answer.json()
    assert (annulment["game"], annulment["reason"], annulment["by"]) == (
        "g1",
        "engine use",
        "test moderator",
    )
    assert annulment["at"].startswith(at.isoformat().replace("+00:00", ""))
    assert changes_by(annulment) == {
        ("alice", "blitz"): "1500.00",
        ("bob", "blitz"): "1500.00",
        ("alice", "site"): "1500.00",
        ("bob", "site"): "1500.00",
    }

    assert site_pair.ratings("alice") == {"site": "1500.00", "blitz": "1500.00"}
    assert site_pair.ratings("bob") == {"site": "1500.00", "blitz": "1500.00"}
    game = site_pair.get("/games/g1").json()
    assert (game["annulled"], game["outcome"]) == (True, "void")
    assert (game["annulment"]["reason"], game["annulment"]["by"]) == (
        "engine use",
        "test moderator",
    )
    assert "annulled by test moderator (engine use)" in game["explanation"][-1]
    page = site_pair.client.get("/games/g1").text
    assert "engine use" in page and "by test moderator" in page

    history = site_pair.get("/players/alice/history/blitz").json()["items"]
    assert [(i["kind"], i["change"]["after"]) for i in history] == [
        ("game", "1516.00"),
        ("annulment", "1500.00"),
    ]
    assert history[1]["at"].startswith(at.isoformat().replace("+00:00", ""))

    listed = site_pair.get("/annulments").json()["annulments"]
    assert [(a["game"], a["by"]) for a in listed] == [("g1", "test moderator")]

    again = site_pair.post("/games/g1/annul", {"reason": "twice"}, auth="moderator")
    assert again.status_code == 409
    assert site_pair.post("/games/g9/annul", {"reason": "x"}, auth="moderator").status_code == 404
    assert single_error(site_pair.post("/games/g1/annul", {}, auth="moderator"))["field"] == (
        "reason"
    )
    assert site_pair.ledger.verify() == []


def test_an_unrated_game_cannot_be_annulled(site_pair: Api) -> None:
    site_pair.game("g1", "alice", "bob", "1-0", time_control="5m+3s", rated=False)
    error = single_error(site_pair.post("/games/g1/annul", {"reason": "x"}, auth="moderator"))
    assert error["field"] == "id"
    assert "unrated" in error["msg"]


# -- other systems ----------------------------------------------------------------------


def test_arena_membership_set_through_the_api_lets_a_rated_game_in(make_api: MakeApi) -> None:
    arena = make_api("arena")
    arena.player("ann", rating_blitz="1800", games_blitz=40)
    arena.player("ben", rating_blitz="1700", games_blitz=40)
    game = {**GAME, "white": "ann", "black": "ben", "time_control": "5m"}

    refused = single_error(arena.post("/games", game))
    assert refused["field"] == "white"
    assert "membership" in refused["msg"]
    assert games_stored(arena) == 0

    for player in ("ann", "ben"):
        answer = arena.patch(f"/players/{player}", {"membership_until": "2026-12-31"})
        assert answer.status_code == 200, answer.text
        assert answer.json()["membership_until"] == "2026-12-31"
    rated = arena.post("/games", game)
    assert rated.status_code == 201, rated.text
    assert rated.json()["outcome"] == "rated"
    assert rated.json()["changes"][0]["rule"].startswith("arena A7")

    bad_control = single_error(arena.post("/games", {**game, "id": "g2", "time_control": "7m"}))
    assert bad_control["field"] == "time_control"
    # arena has no fair-play annulment (that is site S10)
    no_annul = single_error(arena.post("/games/g1/annul", {"reason": "x"}, auth="moderator"))
    assert no_annul["field"] == "id"
    pools = [p["pool"] for p in arena.get("/leaderboards").json()["pools"]]
    assert pools == ["rapid", "blitz", "bullet"]


def test_corr_ledger_rates_a_correspondence_game(make_api: MakeApi) -> None:
    corr = make_api("corr")
    corr.player("cat")
    corr.player("dog")
    answer = corr.post("/games", {**GAME, "white": "cat", "black": "dog", "time_control": "3d"})
    assert answer.status_code == 201, answer.text
    assert corr.get("/leaderboards").json()["pools"][0]["pool"] == "corr"
    assert corr.get("/players/cat/history/corr").status_code == 200
    preview = corr.get("/preview", params={"white": "cat", "black": "dog", "time_control": "3d"})
    assert preview.status_code == 200, preview.text
