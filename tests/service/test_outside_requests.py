"""Request by request, every request an outside tester sent to break the service
answers a 4xx naming what was wrong (or the right 2xx), on SQLite and PostgreSQL, and
the ledger verifies afterwards. (The cases of one kind with many values are in
``test_hostile_input.py``; limits, races and long writes have tests of their own.)"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import Api, MakeApi

Request = tuple[str, str, Any, str]
"""(method, path, body: a dict sent as JSON or bytes sent as they are, auth role)."""

SITE_REQUESTS: list[tuple[str, Request, int]] = [
    ("leaderboard offset past 2**63",
     ("GET", "/api/v1/leaderboards/blitz?offset=9223372036854775808", None, "none"), 422),
    ("leaderboard page offset past 2**63",
     ("GET", "/leaderboards/blitz?offset=9223372036854775808", None, "none"), 422),
    ("search of 50,001 characters", ("GET", "/search?q=" + "a" * 50_001, None, "none"), 422),
    ("preview with a lone surrogate in an id",
     ("POST", "/api/v1/preview", b'{"white": "\\ud800", "black": "bob"}', "none"), 422),
    ("preview with a lone surrogate in the query",
     ("GET", "/api/v1/preview?white=%ED%A0%80&black=bob", None, "none"), 422),
    ("a NaN in a game", ("POST", "/api/v1/games",
     b'{"id": "n1", "white": "alice", "black": "bob", "result": "1-0", "plies": NaN,'
     b' "played_at": "2026-02-01T10:00:00Z", "time_control": "300+3"}', "writer"), 422),
    ("an Infinity in a player", ("POST", "/api/v1/players",
     b'{"id": "inf", "bot": true, "bot_rating": Infinity}', "writer"), 422),
    ("a live game with a clock of 10**18 hours", ("POST", "/api/v1/live-games",
     {"id": "L1", "white": "alice", "black": "bob", "time_control": "999999999999999999h"},
     "writer"), 422),
    ("a NUL in a dispute's reason", ("POST", "/api/v1/live-games/L2/dispute",
     {"by": "bob", "reason": "x\x00"}, "writer"), 422),
    ("a lone surrogate in a report", ("POST", "/api/v1/games/g1/reports",
     b'{"by": "bob", "reason": "\\udc00"}', "writer"), 422),
    ("a lone surrogate in a seek's player", ("POST", "/api/v1/seeks",
     b'{"player": "\\ud83d", "time_control": "180+2"}', "writer"), 422),
    ("a NUL in an annulment's reason", ("POST", "/api/v1/games/g1/annul",
     {"reason": "\x00"}, "moderator"), 422),
]  # fmt: skip

FIDE_REQUESTS: list[tuple[str, Request, int]] = [
    ("a period id past 2**63", ("GET", "/api/v1/fide/periods/9223372036854775808", None, "none"),
     404),
    ("a period page past 2**63", ("GET", "/periods/9223372036854775808", None, "none"), 404),
    ("a crosstable number past 2**63",
     ("GET", "/api/v1/fide/periods/1/tournaments/9223372036854775808", None, "none"), 404),
    ("a floor of 2**63", ("POST", "/api/v1/fide/periods", {"name": "p", "floor": 2**63},
     "writer"), 422),
    ("a NUL in a period's name", ("POST", "/api/v1/fide/periods", {"name": "p\x00"}, "writer"),
     422),
    ("a surrogate in a starting list", ("POST", "/api/v1/fide/periods",
     b'{"name": "p", "start_list": "id,name\\n1,\\udfff"}', "writer"), 422),
]  # fmt: skip


def send(api: Api, request: Request) -> Any:
    method, path, body, auth = request
    headers = {"writer": api.writer, "moderator": api.moderator, "none": {}}[auth]
    if body is None:
        return api.client.request(method, path, headers=headers)
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {**headers, "Content-Type": "application/json"}
    return api.client.request(method, path, content=content, headers=headers)


def says_why(answer: Any) -> str:
    """The refusal's words: the API's ``detail`` (each error naming its field) or the
    page's message."""
    if answer.headers["content-type"].startswith("text/html"):
        assert f'data-status="{answer.status_code}"' in answer.text
        assert '<p class="message">' in answer.text
        page: str = answer.text
        return page
    detail = answer.json()["detail"]
    if isinstance(detail, list):
        assert all(error.get("field") and error.get("msg") for error in detail), detail
    return json.dumps(detail)


@pytest.fixture
def site_games(make_api: MakeApi) -> Api:
    """A site ledger with alice and bob, a rated game g1 and an open live game L2."""
    api = make_api("site")
    api.player("alice", name="Alice")
    api.player("bob", name="Bob")
    api.game("g1", "alice", "bob", "1-0", time_control="300+3")
    opened = api.post("/live-games", {"id": "L2", "white": "alice", "black": "bob",
                                      "venue": "otb", "result": "1-0", "by": "alice"})  # fmt: skip
    assert opened.status_code == 201, opened.text
    return api


@pytest.mark.parametrize(
    ("case", "request_", "expected"), SITE_REQUESTS, ids=[c for c, _, _ in SITE_REQUESTS]
)
def test_site_requests_of_issue_17_are_refused_with_reasons(
    site_games: Api, case: str, request_: Request, expected: int
) -> None:
    before = site_games.get("/games/g1").json()
    answer = send(site_games, request_)
    assert answer.status_code == expected, (case, answer.text)
    assert says_why(answer)
    assert site_games.get("/games/g1").json() == before
    assert site_games.ledger.verify() == []


@pytest.mark.parametrize(
    ("case", "request_", "expected"), FIDE_REQUESTS, ids=[c for c, _, _ in FIDE_REQUESTS]
)
def test_fide_requests_of_issue_17_are_refused_with_reasons(
    make_api: MakeApi, case: str, request_: Request, expected: int
) -> None:
    api = make_api("fide")
    answer = send(api, request_)
    assert answer.status_code == expected, (case, answer.text)
    assert says_why(answer)
    assert api.get("/fide/periods").json()["periods"] == []
    assert api.ledger.verify() == []


def test_a_moment_with_an_offset_reads_back_in_utc(site_games: Api) -> None:
    """Item 2: 10:00 at +02:00 is 08:00 UTC on both databases."""
    site_games.game("tz", "alice", "bob", "0-1", played_at="2026-02-01T10:00:00+02:00",
                    time_control="300+3")  # fmt: skip
    assert site_games.get("/games/tz").json()["played_at"] == "2026-02-01T08:00:00Z"
