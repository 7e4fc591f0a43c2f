"""One validation layer for every way in. Each request an
outside tester sent to make a 500 (or to poison the ledger) is a 4xx naming the field,
on SQLite and PostgreSQL, and the ledger still verifies afterwards."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi import FastAPI

from .conftest import Api

GAME: dict[str, Any] = {
    "id": "g1", "white": "alice", "black": "bob", "result": "1-0",
    "played_at": "2026-02-01T10:00:00Z", "time_control": "300+3",
}  # fmt: skip


def send(api: Api, path: str, body: dict[str, Any]) -> Any:
    """POST ``body`` as a client would write it: JSON with escapes (a lone surrogate is
    ``"\\ud800"``), as a writer."""
    return api.client.post(
        f"/api/v1{path}", content=json.dumps(body).encode(),
        headers={**api.writer, "Content-Type": "application/json"},
    )  # fmt: skip


def refused(answer: Any, field: str) -> str:
    assert answer.status_code == 422, answer.text
    errors = answer.json()["detail"]
    assert any(e.get("field") == field for e in errors), errors
    return json.dumps(errors)


@pytest.mark.parametrize(
    "played_at",
    [
        "9999-12-31T23:59:59-14:00",
        "0001-01-01T00:00:00+14:00",
        "1799-12-31T23:59:59Z",
        "2200-01-01T00:00:00Z",
    ],
)
def test_a_timestamp_out_of_range_is_refused(site_pair: Api, played_at: str) -> None:
    reason = refused(send(site_pair, "/games", {**GAME, "played_at": played_at}), "played_at")
    assert "out of range" in reason
    assert site_pair.ledger.verify() == []
    assert site_pair.get("/players/alice").status_code == 200


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("id", "tab\there", "control characters"),
        ("id", "x\x00y", "NUL"),
        ("id", "\ud800", "surrogate"),
        ("id", "x" * 201, "at most 200"),
        ("white", "bad\x7fid", "control characters"),
        ("time_control", "999999999999999999h", "too long a clock"),
        ("time_control", "99999d", "days per move"),
        ("moves", ["e4", "\ud800"], "ply 2"),
        ("moves", ["e4", "e5\x00"], "ply 2"),
        ("moves", [["e4"]], "ply 1: must be a string"),
        ("moves", [None], "ply 1: must be a string"),
        ("moves", ["e4"] * 100_000, "at most 600"),
        ("moves", 1e308, "must be a list of moves"),
        ("movetext", "\ud800", "surrogate"),
        ("movetext", "{" * 90_000, "is not a move"),
        ("movetext", "(" * 90_000 + "e4 Ke7", "ply 2"),
        ("movetext", '[Variant "crazyhouse"]\n1. e4', "standard position"),
        ("movetext", '[Variant "crazyhouse"] 1. e4', "a line of its own"),
        ("movetext", '1. e4 [Event "x"]\n e5', "a line of its own"),
        ("movetext", "Nf3 Nf6 Ng1 Ng8 " * 160, "more than 600 plies"),
        ("movetext", {"1": "e4"}, "must be a string"),
    ],
)
def test_a_game_field_out_of_its_set_is_refused(
    site_pair: Api, field: str, value: Any, words: str
) -> None:
    reason = refused(send(site_pair, "/games", {**GAME, field: value}), field)
    assert words in reason
    assert site_pair.ledger.counts()["games"] == 0


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("name", "N\x00", "NUL"),
        ("name", "x" * 201, "at most 200"),
        ("name", "\udfff", "surrogate"),
        ("rating_blitz", "1e17", "out of range"),
        ("rating_blitz", 1e17, "out of range"),
        ("games_blitz", 2**63, "at most"),
        ("games_blitz", "99999999999999999999999999999999999", "not a whole number"),
    ],
)
def test_a_player_field_out_of_its_set_is_refused(
    site: Api, field: str, value: object, words: str
) -> None:
    body = {"id": "carol", field: value}
    reason = refused(send(site, "/players", body), field)
    assert words in reason
    assert site.get("/players/carol").status_code in (404, 200)
    assert site.ledger.verify() == []


def test_a_bot_rating_out_of_range_is_refused(site: Api) -> None:
    body = {"id": "robo", "bot": True, "bot_rating": 1e308}
    assert "out of range" in refused(send(site, "/players", body), "bot_rating")


def test_a_batch_line_with_nan_or_deep_nesting_names_the_line(site_pair: Api) -> None:
    lines = [json.dumps(GAME), '{"id": "g2", "white": "alice", "plies": NaN}']
    answer = site_pair.client.post(
        "/api/v1/games/batch", content="\n".join(lines).encode(),
        headers={**site_pair.writer, "Content-Type": "application/x-ndjson"},
    )  # fmt: skip
    assert answer.status_code == 422, answer.text
    assert "batch:2" in answer.text and "NaN is not a JSON number" in answer.text
    deep = "[" * 100_000 + "]" * 100_000
    answer = site_pair.client.post(
        "/api/v1/games/batch", content=deep.encode(),
        headers={**site_pair.writer, "Content-Type": "application/x-ndjson"},
    )  # fmt: skip
    assert answer.status_code == 422, answer.text
    assert "batch:1" in answer.text
    assert site_pair.get("/games/g1").status_code == 404  # nothing half applied


def test_a_batch_splits_lines_on_newline_only(site_pair: Api) -> None:
    """U+2028 inside a line is text, not a line break (Python's ``splitlines`` would
    cut the line there): an id holding it is posted and read back whole."""
    game = {**GAME, "id": "g\u2028x"}
    answer = site_pair.client.post(
        "/api/v1/games/batch", content=(json.dumps(game, ensure_ascii=False) + "\n").encode(),
        headers={**site_pair.writer, "Content-Type": "application/x-ndjson"},
    )  # fmt: skip
    assert answer.status_code in (200, 201), answer.text
    assert site_pair.get("/games/g%E2%80%A8x").json()["id"] == "g\u2028x"


# -- ids without "/": the single-id routes reach every new id ---------------------


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/players", {"id": "a/b"}, "id"),
        ("/games", {**GAME, "id": "chess.com/game/1"}, "id"),
        ("/games", {**GAME, "white": "al/ice"}, "white"),
        ("/games", {**GAME, "black": "/"}, "black"),
        ("/preview", {"white": "alice", "black": "bob", "id": "p/1"}, "id"),
        ("/live-games", {"id": "L/1", "white": "alice", "black": "bob", "time_control": "3+2"},
         "id"),
        ("/live-games", {"id": "L1", "white": "alice", "black": "b/ob", "time_control": "3+2"},
         "black"),
        ("/seeks", {"player": "ali/ce", "time_control": "3+2"}, "player"),
    ],
)  # fmt: skip
def test_an_id_with_a_slash_is_refused_in_every_body(
    site_pair: Api, path: str, body: dict[str, Any], field: str
) -> None:
    reason = refused(send(site_pair, path, body), field)
    assert "'/' is not allowed in an id" in reason
    assert site_pair.ledger.verify() == []


def test_an_id_with_a_slash_is_refused_in_a_batch(site_pair: Api) -> None:
    lines = [json.dumps(GAME), json.dumps({**GAME, "id": "g/2"})]
    answer = site_pair.client.post(
        "/api/v1/games/batch", content="\n".join(lines).encode(),
        headers={**site_pair.writer, "Content-Type": "application/x-ndjson"},
    )  # fmt: skip
    assert answer.status_code == 422, answer.text
    assert "batch:2: id: 'g/2' is not a valid id: '/' is not allowed" in answer.text
    assert site_pair.get("/games/g1").status_code == 404  # nothing half applied


def test_the_location_of_a_new_game_and_player_answers(site_pair: Api) -> None:
    """The reason for the rule: ``Location`` points to the single-id route, which
    reaches any id the API accepts (here with characters that need escaping)."""
    for path, body in (
        ("/players", {"id": "d'Artagnan ?#%:1"}),
        ("/games", {**GAME, "id": "chess.com:game:live:1 ?#%"}),
    ):
        answer = send(site_pair, path, body)
        assert answer.status_code == 201, answer.text
        found = site_pair.client.get(answer.headers["location"])
        assert found.status_code == 200, answer.headers["location"]
        assert found.json()["id"] == body["id"]


# -- a NUL in the address or a stored text: 422, never PostgreSQL's 500 ----------


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/v1/players?q=%00", "q"),
        ("/api/v1/players?q=a%00b&limit=5", "q"),
        ("/api/v1/players/a%00b", "player_id"),
        ("/api/v1/players/alice/games?offset=%00", "offset"),
        ("/api/v1/games/g%00", "game_id"),
        ("/api/v1/live-games?player=a%00", "player"),
        ("/api/v1/seeks?player=%00", "player"),
        ("/api/v1/leaderboards/site/players/a%00", "player_id"),
    ],
)
def test_a_nul_in_the_path_or_the_query_is_a_422(site_pair: Api, url: str, field: str) -> None:
    answer = site_pair.client.get(url)
    assert answer.status_code == 422, answer.text
    item = answer.json()["detail"][0]
    assert (item["field"], item["msg"]) == (field, "must not contain a NUL character")
    assert item["loc"][0] == ("query" if "?" in url else "path")


@pytest.mark.parametrize("url", ["/search?q=%00", "/players/a%00b", "/games/g%00", "/live/x%00"])
def test_a_nul_in_a_page_address_is_the_422_page(site_pair: Api, url: str) -> None:
    answer = site_pair.client.get(url)
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"].startswith("text/html")
    assert "must not contain a NUL character" in answer.text


def test_no_route_answers_500_to_a_nul_in_its_path_or_query(site_pair: Api) -> None:
    """Every route of the app (API and pages, every method), each path parameter and
    each query parameter given ``%00``: a 4xx on both databases."""
    api = site_pair
    api.game("g1", "alice", "bob", "1-0", time_control="300+3")
    app = api.client.app
    assert isinstance(app, FastAPI)
    routes = [
        context
        for route in app.routes
        if hasattr(route, "effective_route_contexts")
        for context in route.effective_route_contexts()
    ]
    assert len(routes) > 60
    asked = 0
    for route in routes:
        names = [q.alias for q in route.dependant.query_params]
        urls = [re.sub(r"\{[^}]+\}", "a%00b", route.path)] if "{" in route.path else []
        urls += [f"{re.sub(r'{[^}]+}', 'g1', route.path)}?{name}=%00" for name in names]
        for method in route.methods:
            for url in urls:
                asked += 1
                answer = api.client.request(method, url, headers=api.moderator)
                assert 400 <= answer.status_code < 500, (method, url, answer.text[:200])
    assert asked > 60


def test_a_nul_in_a_stored_text_is_a_422(site_pair: Api) -> None:
    """Reasons, notes and moves reach the database whole: PostgreSQL refuses a NUL."""
    api = site_pair
    api.game("g1", "alice", "bob", "1-0", time_control="300+3")
    assert refused(api.post("/games/g1/annul", {"reason": "a\x00b"}, auth="moderator"),
                   "reason")  # fmt: skip
    assert refused(send(api, "/games/g1/reports", {"by": "alice", "reason": "a\x00"}), "reason")
    answer = send(api, "/live-games", {"id": "L1", "white": "alice", "black": "bob",
                                       "time_control": "3+2"})  # fmt: skip
    assert answer.status_code == 201, answer.text
    assert refused(send(api, "/live-games/L1/moves", {"ply": 1, "move": "e\x004"}), "move")
    assert api.ledger.verify() == []
