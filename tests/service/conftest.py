"""In-process API fixtures: a ledger (SQLite and PostgreSQL, through ``ledger_url``),
the app around it with a controlled clock, a client and tokens of each role."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from chessrate.ledger import Ledger
from chessrate.server import create_app
from tests.support import templates

with warnings.catch_warnings():
    # Starlette's TestClient suggests httpx2 over httpx (a UserWarning): httpx is
    # what the project installs.
    warnings.filterwarnings("ignore", message=".*httpx2")
    from fastapi.testclient import TestClient

__all__ = ["API", "NOW", "Api", "FakeClock", "MakeApi", "TestClient"]

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
API = "/api/v1"


@dataclass
class FakeClock:
    """The app's clock: tests move it."""

    now: datetime = NOW

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@dataclass
class Api:
    """A client on one ledger, with bearer headers of each role."""

    client: TestClient
    ledger: Ledger
    clock: FakeClock
    writer: dict[str, str] = field(default_factory=dict)
    moderator: dict[str, str] = field(default_factory=dict)

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.client.get(API + path, **kwargs)

    def post(self, path: str, json: Any = None, *, auth: str = "writer", **kwargs: Any) -> Any:
        return self.client.post(
            API + path, json=json, headers=self._headers(auth, kwargs), **kwargs
        )

    def patch(self, path: str, json: Any = None, *, auth: str = "writer", **kwargs: Any) -> Any:
        return self.client.patch(
            API + path, json=json, headers=self._headers(auth, kwargs), **kwargs
        )

    def _headers(self, auth: str, kwargs: dict[str, Any]) -> dict[str, str]:
        given = kwargs.pop("headers", {})
        role = {"writer": self.writer, "moderator": self.moderator, "none": {}}[auth]
        return {**role, **given}

    def player(self, player_id: str, **attributes: Any) -> Any:
        answer = self.post("/players", {"id": player_id, **attributes})
        assert answer.status_code == 201, answer.text
        return answer.json()

    def game(self, game_id: str, white: str, black: str, result: str, **fields: Any) -> Any:
        body = {
            "id": game_id,
            "played_at": "2026-03-01T18:00:00Z",
            "white": white,
            "black": black,
            "result": result,
            **fields,
        }
        answer = self.post("/games", body)
        assert answer.status_code in (200, 201), answer.text
        return answer.json()

    def ratings(self, player_id: str) -> dict[str, str | None]:
        answer = self.get(f"/players/{player_id}")
        assert answer.status_code == 200, answer.text
        return {r["pool"]: r["rating"] for r in answer.json()["ratings"]}


MakeApi = Callable[[str], Api]


@pytest.fixture
def make_api(request: pytest.FixtureRequest, ledger_url: str) -> Iterator[MakeApi]:
    """``make_api("site")``: a fresh ledger of that system (once on SQLite, once on
    PostgreSQL) behind the app. The schema is copied from a template (the migrations
    run once per session: :func:`tests.support.templates.migrated`)."""
    opened: list[tuple[Ledger, TestClient]] = []
    templates.migrated(request, ledger_url)

    def make(system: str) -> Api:
        ledger = Ledger.create(ledger_url, system, NOW)
        clock = FakeClock()
        client = TestClient(create_app(ledger, clock=clock, sweep_every=0, pair_every=0))
        client.__enter__()
        opened.append((ledger, client))
        writer = ledger.tokens.create("writer", "test writer", NOW)
        moderator = ledger.tokens.create("moderator", "test moderator", NOW)
        return Api(
            client,
            ledger,
            clock,
            writer={"Authorization": f"Bearer {writer}"},
            moderator={"Authorization": f"Bearer {moderator}"},
        )

    yield make
    for ledger, client in opened:
        client.__exit__(None, None, None)
        ledger.dispose()


@pytest.fixture
def site(make_api: MakeApi) -> Api:
    return make_api("site")


@pytest.fixture
def site_pair(site: Api) -> Api:
    """A site ledger with two new players, alice and bob."""
    site.player("alice", name="Alice")
    site.player("bob", name="Bob")
    return site
