"""The service's limits (docs/operations.md "Limits"): the largest request body (413), a write's
token checked before its body is read (401), failed authentications per address
(429 with ``Retry-After``), every list paged (``limit`` above its most: 422)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi import FastAPI

from chessrate.application.common import LIST_PAGE_MAX, MAX_OFFSET
from chessrate.application.limits import FailedAuth
from chessrate.application.settings import MAX_BODY_BYTES, Settings
from chessrate.ledger import Ledger
from chessrate.server import create_app

from .conftest import API, NOW, Api, FakeClock, TestClient
from .test_fide_api import SEED_TRF, TEXT, open_period


@dataclass
class Timer:
    """The limiter's seconds (monotonic): tests move it."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Limited(Api):
    """An :class:`Api` on an app built with chosen settings, the app itself, its
    limiter's timer, and clients from other addresses."""

    app: FastAPI = field(default_factory=FastAPI)
    timer: Timer = field(default_factory=Timer)
    others: list[TestClient] = field(default_factory=list)

    def from_address(self, host: str) -> TestClient:
        client = TestClient(self.app, client=(host, 50000))
        self.others.append(client)
        return client


MakeLimited = Callable[..., Limited]


@pytest.fixture
def make_limited(ledger_url: str) -> Iterator[MakeLimited]:
    """``make_limited("site", max_body_bytes=2000)``: a fresh ledger (SQLite and
    PostgreSQL) behind an app with those settings, players alice and bob."""
    made: list[Limited] = []

    def make(system: str = "site", **settings: Any) -> Limited:
        ledger = Ledger.create(ledger_url, system, NOW)
        clock, timer = FakeClock(), Timer()
        app = create_app(
            ledger, clock=clock, settings=Settings(**settings), sweep_every=0, pair_every=0,
            timer=timer,
        )  # fmt: skip
        client = TestClient(app)
        client.__enter__()
        writer = ledger.tokens.create("writer", "test writer", NOW)
        moderator = ledger.tokens.create("moderator", "test moderator", NOW)
        api = Limited(
            client, ledger, clock, writer={"Authorization": f"Bearer {writer}"},
            moderator={"Authorization": f"Bearer {moderator}"}, app=app, timer=timer,
        )  # fmt: skip
        if system != "fide":
            api.player("alice", name="Alice")
            api.player("bob", name="Bob")
        made.append(api)
        return api

    yield make
    for api in made:
        api.client.__exit__(None, None, None)
        for other in api.others:
            other.close()
        api.ledger.dispose()


def game_line(number: int) -> str:
    return json.dumps({"id": f"g{number}", "played_at": "2026-03-01T10:00:00Z",
                       "white": "alice", "black": "bob", "result": "1-0",
                       "time_control": "5m+3s"})  # fmt: skip


def batch(lines: int) -> bytes:
    return "".join(game_line(n) + "\n" for n in range(lines)).encode()


NDJSON = {"content-type": "application/x-ndjson"}


# -- the largest request body ------------------------------------------------------------


def test_a_body_over_the_limit_is_a_413_naming_it_and_nothing_is_stored(
    make_limited: MakeLimited,
) -> None:
    api = make_limited(max_body_bytes=2000)
    body = batch(30)
    assert len(body) > 2000
    headers = {**api.writer, **NDJSON}
    for content in (body, iter([body[:1000], body[1000:]])):  # a length given; chunked
        answer = api.client.post(f"{API}/games/batch", content=content, headers=headers)
        assert answer.status_code == 413, answer.text
        detail = answer.json()["detail"]
        assert "2000 bytes" in detail and "CHESSRATE_MAX_BODY_BYTES" in detail
    named = api.post("/players", {"id": "carol", "name": "C" * 3000})
    assert named.status_code == 413
    assert api.get("/players/carol").status_code == 404
    assert all(api.get(f"/games/g{n}").status_code == 404 for n in range(30))
    assert api.ledger.verify() == []
    # At the limit exactly: taken (blank lines are skipped).
    exact = batch(10)
    exact += b"\n" * (2000 - len(exact))
    answer = api.client.post(f"{API}/games/batch", content=exact, headers=headers)
    assert answer.status_code == 201, answer.text
    assert answer.json()["created"] == 10


def test_a_page_form_over_the_limit_is_a_413_page(make_limited: MakeLimited) -> None:
    api = make_limited(max_body_bytes=2000)
    answer = api.client.post(
        "/moderation/sign-in", content=b"token=" + b"x" * 3000,
        headers={"content-type": "application/x-www-form-urlencoded"},
    )  # fmt: skip
    assert answer.status_code == 413
    assert answer.headers["content-type"].startswith("text/html")
    assert "Too large" in answer.text and "2000 bytes" in answer.text


def test_the_default_limit_takes_a_batch_of_100000_games() -> None:
    """A ``site`` game of ``bench/generate_stream.py`` is about 193 bytes as JSON Lines
    (19.3 MB for 100,000 games); a longer one than that still fits three times over."""
    assert Settings().max_body_bytes == MAX_BODY_BYTES == 64 * 1024 * 1024
    line = json.dumps({"id": "g0099999", "played_at": "2026-01-01T00:00:18Z",
                       "white": "Dingvera108", "black": "Piafabi2246", "result": "0-1",
                       "rated": True, "time_control": "900+0", "termination": "resign",
                       "plies": 32, "venue": "online"})  # fmt: skip
    assert 3 * 100_000 * (len(line) + 1) < MAX_BODY_BYTES


# -- a write's token before its body ------------------------------------------------------


CHANGING = ("post", "put", "patch", "delete")


def operations(app: FastAPI) -> dict[tuple[str, str], dict[str, Any]]:
    """(method, path under /api/v1) → the OpenAPI operation, for the API's writes."""
    paths = app.openapi()["paths"]
    return {
        (method.upper(), path.removeprefix(API)): operation
        for path, item in paths.items()
        for method, operation in item.items()
        if method in CHANGING and path.startswith(API)
    }


def call_without_reading(
    app: FastAPI, method: str, path: str, headers: dict[str, str]
) -> tuple[int, dict[str, str], bytes]:
    """Call the app with a request whose body must never be read (its ``receive``
    fails the test), and return the answer's status, headers and body."""
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        raise AssertionError(f"{method} {path}: the body was read")

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
        "method": method, "scheme": "http", "path": API + path, "raw_path": (API + path).encode(),
        "query_string": b"", "root_path": "", "client": ("203.0.113.9", 40000),
        "server": ("testserver", 80),
        "headers": [(b"content-length", b"50000000"), (b"content-type", b"application/json"),
                    *raw],
    }  # fmt: skip
    with ThreadPoolExecutor(1) as pool:  # a loop of its own: another may run in this thread
        pool.submit(asyncio.run, app(scope, receive, send)).result()
    start = sent[0]
    answer_headers = {k.decode(): v.decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], answer_headers, body


def test_every_write_without_a_valid_token_is_a_401_before_its_body_is_read(
    make_limited: MakeLimited,
) -> None:
    """Every write of the API that needs a token (its OpenAPI operation says so; all
    but ``POST /preview``) refuses a request without a valid one before reading its
    body, and documents 401 and 429; every operation of the API documents 413 and
    503."""
    api = make_limited(auth_failures=1000)
    writes = operations(api.app)
    secured = {key for key, operation in writes.items() if operation.get("security")}
    assert set(writes) - secured == {("POST", "/preview")}
    assert len(secured) >= 22  # every write of the API as it is
    for method, template in sorted(secured):
        path = re.sub(r"\{[^}]+\}", "x", template)
        for headers in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": "Basic x"}):
            status, answer_headers, body = call_without_reading(api.app, method, path, headers)
            assert status == 401, (method, path, body)
            assert answer_headers["www-authenticate"] == "Bearer"
            assert "detail" in json.loads(body)
        assert {"401", "429"} <= set(writes[method, template]["responses"]), template
    for path, item in api.app.openapi()["paths"].items():
        for method, operation in item.items():
            if path.startswith(API):
                assert {"413", "503"} <= set(operation["responses"]), (method, path)


def test_a_huge_body_without_a_token_is_never_consumed(make_limited: MakeLimited) -> None:
    api = make_limited()
    consumed: list[int] = []

    def stream() -> Iterator[bytes]:
        for n in range(50):
            consumed.append(n)
            yield b"x" * 1_000_000

    for token in (None, "Bearer wrong"):
        headers = {**NDJSON, **({"Authorization": token} if token else {})}
        answer = api.client.post(f"{API}/games/batch", content=stream(), headers=headers)
        assert answer.status_code == 401
    assert consumed == []


def test_the_early_401_is_the_routes_401(make_limited: MakeLimited) -> None:
    """The middleware's answer (a write) and the dependency's (a moderator's read)
    are the same: body and ``WWW-Authenticate``."""
    api = make_limited()
    for headers in ({}, {"Authorization": "Bearer nope"}):
        early = api.client.post(f"{API}/games", json={"id": "x"}, headers=headers)
        late = api.client.get(f"{API}/reviews", headers=headers)
        assert early.status_code == late.status_code == 401
        assert early.json() == late.json()
        assert early.headers["www-authenticate"] == late.headers["www-authenticate"] == "Bearer"


def test_public_writes_and_unknown_paths_are_left_to_the_routes(make_limited: MakeLimited) -> None:
    api = make_limited()
    body = {"white": "alice", "black": "bob", "time_control": "5m+3s"}
    preview = api.post("/preview", body, auth="none")
    assert preview.status_code == 200, preview.text
    assert api.post("/nowhere", {}, auth="none").status_code == 404
    assert api.client.put(f"{API}/games/g1", json={}).status_code == 405


def test_a_writes_token_is_looked_up_once(make_limited: MakeLimited) -> None:
    """Checked before the body, the caller is handed to the route: one lookup per
    request even with the token cache off."""
    api = make_limited(token_cache_seconds=0)
    tokens = api.app.state.tokens
    lookups: list[str] = []
    lookup = tokens.lookup

    def counted(token: str) -> str | None:
        lookups.append(token)
        return lookup(token)  # type: ignore[no-any-return]

    tokens.lookup = counted
    assert api.post("/players", {"id": "carol"}).status_code == 201
    assert len(lookups) == 1


# -- failed authentications per address ----------------------------------------------------


def test_the_21st_bad_token_from_an_address_is_a_429_until_the_window_passes(
    make_limited: MakeLimited,
) -> None:
    api = make_limited()
    for n in range(20):
        bad = {"Authorization": f"Bearer bad-{n}"}
        assert api.post("/players", {"id": f"x{n}"}, headers=bad).status_code == 401
    refused = api.post("/players", {"id": "x20"}, headers={"Authorization": "Bearer bad-20"})
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "60"
    assert "too many failed authentications" in refused.json()["detail"]
    # The address is refused whatever it sends (its token is not looked at)...
    assert api.post("/players", {"id": "carol"}).status_code == 429
    assert api.client.get(f"{API}/reviews", headers=api.moderator).status_code == 429
    # ...but reads without a token go on, and another address is not affected.
    assert api.get("/players/alice").status_code == 200
    other = api.from_address("198.51.100.7")
    assert other.post(f"{API}/players", json={"id": "dave"}, headers=api.writer).status_code == 201
    assert other.get(f"{API}/reviews", headers={"Authorization": "Bearer no"}).status_code == 401
    api.timer.now += 59
    late = api.post("/players", {"id": "carol"})
    assert (late.status_code, late.headers["retry-after"]) == (429, "1")
    api.timer.now += 1
    assert api.post("/players", {"id": "carol"}).status_code == 201
    assert (
        api.post("/players", {"id": "x"}, headers={"Authorization": "Bearer b"}).status_code == 401
    )
    assert api.get("/players/x20").status_code == 404  # nothing refused was stored


def test_successful_requests_are_never_counted(make_limited: MakeLimited) -> None:
    api = make_limited(auth_failures=3, auth_window_seconds=10)
    bad = {"Authorization": "Bearer bad"}
    for n in range(40):
        assert api.post("/players", {"id": f"p{n}"}).status_code == 201
        if n % 20 == 0:  # two failures among forty successes
            assert api.post("/players", {"id": "x"}, headers=bad).status_code == 401
    assert api.post("/players", {"id": "x"}, headers=bad).status_code == 401  # the third
    assert api.post("/players", {"id": "x"}, headers=bad).status_code == 429
    # A writer's token on a moderator's route is a 403, not a failed authentication.
    other = api.from_address("198.51.100.8")
    for _ in range(5):
        assert other.get(f"{API}/audit", headers=api.writer).status_code == 403
    assert other.get(f"{API}/audit", headers=api.moderator).status_code == 200


def test_failed_moderator_sign_ins_are_counted_with_failed_tokens(
    make_limited: MakeLimited,
) -> None:
    api = make_limited(auth_failures=4, auth_window_seconds=30)
    form = {"content-type": "application/x-www-form-urlencoded"}
    for _ in range(2):  # two failed API tokens...
        assert (
            api.post("/players", {"id": "x"}, headers={"Authorization": "Bearer b"}).status_code
            == 401
        )
    for token in ("nope", api.writer["Authorization"].split()[1]):  # ...two failed sign-ins
        page = api.client.post("/moderation/sign-in", content=f"token={token}", headers=form)
        assert page.status_code == 401
    moderator = api.moderator["Authorization"].split()[1]
    page = api.client.post(
        "/moderation/sign-in", content=f"token={moderator}", headers=form, follow_redirects=False
    )
    assert page.status_code == 429
    assert page.headers["retry-after"] == "30"
    assert "Too many failed sign-ins" in page.text
    assert "text/html" in page.headers["content-type"]
    other = api.from_address("198.51.100.9")
    signed = other.post(
        "/moderation/sign-in", content=f"token={moderator}", headers=form, follow_redirects=False
    )
    assert signed.status_code == 303 and "set-cookie" in signed.headers
    api.timer.now += 30
    again = api.client.post(
        "/moderation/sign-in", content=f"token={moderator}", headers=form, follow_redirects=False
    )
    assert again.status_code == 303


def test_the_limiter_slides_and_forgets() -> None:
    timer = Timer()
    failures = FailedAuth(most=2, window=10, timer=timer, max_addresses=3)
    failures.failed("a")
    timer.now += 4
    failures.failed("a")
    assert failures.retry_after("a") == 6  # until the first failure is 10 s old
    timer.now += 6
    assert failures.retry_after("a") is None  # one failure left in the window
    failures.failed("a")
    assert failures.retry_after("a") == 4
    for address in ("b", "c", "d"):
        failures.failed(address)
    assert len(failures._failures) == 3  # the first remembered ("a") forgotten
    assert failures.retry_after("a") is None
    with pytest.raises(ValueError, match="most"):
        FailedAuth(most=0)


# -- every list paged ---------------------------------------------------------------------


LISTS = [  # path, its most, its default
    ("/players?q=a", 200, 20),
    ("/players/alice/history/blitz", LIST_PAGE_MAX, LIST_PAGE_MAX),
    ("/players/alice/games", 200, 50),
    ("/annulments", LIST_PAGE_MAX, LIST_PAGE_MAX),
    ("/live-games", 1000, 100),
    ("/seeks", 500, 50),
    ("/leaderboards/blitz", 500, 50),
    ("/reviews", 200, 50),
    ("/audit", 200, 100),
]
FIDE_LISTS = [
    ("/fide/periods", LIST_PAGE_MAX, LIST_PAGE_MAX),
    ("/fide/periods/1/list", LIST_PAGE_MAX, LIST_PAGE_MAX),
    ("/players/9000001/periods", LIST_PAGE_MAX, LIST_PAGE_MAX),
]


def _page_checks(api: Api, lists: list[tuple[str, int, int]]) -> None:
    for path, most, default in lists:
        join = "&" if "?" in path else "?"
        headers = api.moderator
        assert api.get(f"{path}{join}limit={most + 1}", headers=headers).status_code == 422, path
        assert api.get(f"{path}{join}limit=0", headers=headers).status_code == 422, path
        too_far = api.get(f"{path}{join}offset={MAX_OFFSET + 1}", headers=headers)
        assert too_far.status_code == 422, path
        answer = api.get(path, headers=headers)
        assert answer.status_code == 200, (path, answer.text)
        body = answer.json()
        assert body.get("limit", default) == default, path
        assert api.get(f"{path}{join}limit={most}&offset=3", headers=headers).status_code == 200


def test_every_list_has_a_bounded_limit_and_offset(make_limited: MakeLimited) -> None:
    api = make_limited()
    api.game("g1", "alice", "bob", "1-0", time_control="5m+3s")
    _page_checks(api, LISTS)


def test_the_lists_that_were_whole_are_paged_with_their_total(make_limited: MakeLimited) -> None:
    api = make_limited()
    for n in range(5):
        api.game(f"g{n}", "alice", "bob", "1-0", time_control="5m+3s")
    for n in range(3):
        answer = api.post(f"/games/g{n}/annul", {"reason": f"fair play {n}"}, auth="moderator")
        assert answer.status_code == 200, answer.text
    history = api.get("/players/alice/history/blitz").json()
    assert (history["total"], history["offset"], history["limit"]) == (8, 0, LIST_PAGE_MAX)
    whole = history["items"]
    assert len(whole) == 8
    page = api.get("/players/alice/history/blitz?offset=2&limit=3").json()
    assert page["items"] == whole[2:5] and page["total"] == 8
    annulled = api.get("/annulments").json()
    assert annulled["total"] == 3 and [a["game"] for a in annulled["annulments"]] == [
        "g0", "g1", "g2"
    ]  # fmt: skip
    assert [a["game"] for a in api.get("/annulments?offset=1&limit=1").json()["annulments"]] == [
        "g1"
    ]
    live = api.get("/live-games?limit=1&offset=0").json()
    assert (live["total"], live["count"]) == (0, 0)
    api.player("carol", name="Carol")
    first = api.get("/players?q=&limit=2").json()
    assert ([p["id"] for p in first["players"]], first["truncated"]) == (["alice", "bob"], True)
    last = api.get("/players?q=&limit=2&offset=2").json()
    assert ([p["id"] for p in last["players"]], last["truncated"]) == (["carol"], False)


def test_the_fide_lists_are_paged(make_limited: MakeLimited) -> None:
    api = make_limited("fide")
    period = open_period(api)["id"]
    upload = api.post(f"/fide/periods/{period}/files", params={"name": "seed.trf"},
                      content=SEED_TRF.encode(), headers=TEXT)  # fmt: skip
    assert upload.status_code == 201, upload.text
    assert api.post(f"/fide/periods/{period}/close").status_code == 200
    full = api.get(f"/fide/periods/{period}/list").json()
    assert full["total"] == len(full["entries"]) > 2
    page = api.get(f"/fide/periods/{period}/list?offset=1&limit=2").json()
    assert page["entries"] == full["entries"][1:3]
    assert api.get("/fide/periods?limit=1").json()["total"] == 1
    player = full["entries"][0]["player"]
    periods = api.get(f"/players/{player}/periods?limit=1").json()
    assert (periods["total"], len(periods["periods"])) == (1, 1)
    assert api.get(f"/players/{player}/periods?offset=1").json()["periods"] == []
    _page_checks(api, [(p.replace("/1/", f"/{period}/").replace("9000001", player), m, d)
                       for p, m, d in FIDE_LISTS])  # fmt: skip
