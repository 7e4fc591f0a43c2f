"""The app's wiring: settings from the environment, the uvicorn factory, the token
cache, the health check when the database holds no ledger."""

from __future__ import annotations

import gc
from datetime import UTC, datetime
from pathlib import Path

import pytest

from chessrate.application.deps import TokenCache
from chessrate.errors import InvalidInput
from chessrate.ledger import Ledger
from chessrate.server import Settings, create_app, create_app_from_env

from .conftest import NOW, TestClient


def test_settings_read_chessrate_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHESSRATE_DATABASE_URL", raising=False)
    assert Settings().database_url == "chessrate.db"
    monkeypatch.setenv("CHESSRATE_DATABASE_URL", "postgresql://db/chess")
    monkeypatch.setenv("CHESSRATE_TOKEN_CACHE_SECONDS", "0.5")
    settings = Settings()
    assert (settings.database_url, settings.token_cache_seconds) == ("postgresql://db/chess", 0.5)


def test_create_app_from_env_opens_the_configured_ledger(
    ledger_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = Ledger.create(ledger_url, "corr", NOW)
    token = ledger.tokens.create("writer", "factory", NOW)
    ledger.dispose()
    monkeypatch.setenv("CHESSRATE_DATABASE_URL", ledger_url)
    with TestClient(create_app_from_env()) as client:
        health = client.get("/healthz").json()
        assert (health["status"], health["system"]) == ("ok", "corr")
        assert health["detector"]["why"].startswith("not a site ledger (system corr")
        answer = client.post(
            "/api/v1/players", json={"id": "cat"}, headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 201, answer.text
        created = client.app.state.ledger  # type: ignore[attr-defined]
    # The app opened the ledger, so it disposed of it at shutdown; the player is stored.
    assert created is not ledger
    again = Ledger(ledger_url)
    try:
        assert again.players.get("cat").player.id == "cat"
    finally:
        again.dispose()


def test_a_server_processs_app_freezes_its_start_up_heap_until_shutdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The oldest generation's collections then skip the start-up heap (create_app's
    ``freeze_heap``): the pause they made was the API's 99th percentile."""
    url = f"sqlite:///{tmp_path / 'corr.db'}"
    Ledger.create(url, "corr", NOW).dispose()
    monkeypatch.setenv("CHESSRATE_DATABASE_URL", url)
    assert gc.get_freeze_count() == 0
    with TestClient(create_app_from_env()) as client:
        assert client.get("/healthz").status_code == 200
        assert gc.get_freeze_count() > 1000  # the app, its models, the libraries
    assert gc.get_freeze_count() == 0  # unfrozen at shutdown
    with TestClient(create_app(database_url=url)) as client:  # an app made in a test
        assert client.get("/healthz").status_code == 200
        assert gc.get_freeze_count() == 0


def test_create_app_with_a_database_url_and_a_clock(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'site.db'}"
    Ledger.create(url, "site", NOW).dispose()
    moment = datetime(2030, 1, 2, 3, 4, tzinfo=UTC)
    with TestClient(create_app(database_url=url, clock=lambda: moment)) as client:
        assert client.get("/healthz").json()["system"] == "site"
        assert client.app.state.clock() == moment  # type: ignore[attr-defined]


def test_the_app_refuses_to_start_on_a_database_without_a_ledger(tmp_path: Path) -> None:
    app = create_app(database_url=str(tmp_path / "empty.db"))
    with pytest.raises(InvalidInput, match="not a chessrate ledger"), TestClient(app):
        pass


def test_healthz_is_503_when_the_database_holds_no_ledger(tmp_path: Path) -> None:
    ledger = Ledger(f"sqlite:///{tmp_path / 'empty.db'}")
    try:
        answer = TestClient(create_app(ledger)).get("/healthz")  # no lifespan: no start check
        assert answer.status_code == 503
        assert answer.json()["status"] == "unavailable"
        assert "not a chessrate ledger" in answer.json()["detail"]
    finally:
        ledger.dispose()


def test_a_database_that_does_not_answer_is_503_everywhere(tmp_path: Path) -> None:
    ledger = Ledger(f"postgresql+psycopg://nobody@/x?host={tmp_path}&port=1")
    try:
        client = TestClient(create_app(ledger))  # no lifespan: no start check
        for path in ("/healthz", "/api/v1/players/ana", "/api/v1/leaderboards"):
            answer = client.get(path)
            assert answer.status_code == 503, path
            assert answer.json()["status"] == "unavailable"
            assert answer.json()["detail"].startswith("database: ")
    finally:
        ledger.dispose()


class Lookups:
    def __init__(self, roles: dict[str, str]) -> None:
        self.roles = roles
        self.calls: list[str] = []

    def __call__(self, token: str) -> str | None:
        self.calls.append(token)
        return self.roles.get(token)


def test_token_cache_keeps_a_known_role_for_its_ttl() -> None:
    lookups = Lookups({"t1": "writer"})
    clock = [100.0]
    cache = TokenCache(lookups, ttl=5.0, timer=lambda: clock[0])
    assert cache.role("t1") == "writer"
    clock[0] += 4.9
    assert cache.role("t1") == "writer"
    assert lookups.calls == ["t1"]
    clock[0] += 0.2
    lookups.roles["t1"] = "moderator"
    assert cache.role("t1") == "moderator"
    assert lookups.calls == ["t1", "t1"]


def test_token_cache_does_not_remember_unknown_tokens_and_stays_bounded() -> None:
    lookups = Lookups({})
    cache = TokenCache(lookups, ttl=5.0, max_entries=3, timer=lambda: 0.0)
    assert cache.role("new") is None
    lookups.roles["new"] = "writer"
    assert cache.role("new") == "writer"  # a token created since works at once
    for n in range(10):
        lookups.roles[f"t{n}"] = "writer"
        cache.role(f"t{n}")
    assert len(cache._entries) <= 3
