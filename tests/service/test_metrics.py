"""``/metrics`` (Prometheus' text format) and the log line of each request, in process
on SQLite; and through ``chessrate serve --workers 2``: any worker reports them all."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.exc import OperationalError

from chessrate.application.settings import Settings
from chessrate.errors import LedgerUnavailable
from chessrate.ledger import Ledger
from chessrate.ledger.connection import connection_errors
from chessrate.logs import JsonFormatter
from chessrate.server import create_app
from tests.service.conftest import NOW, FakeClock, TestClient
from tests.support.server import server_process, written

LOOPBACK = ("127.0.0.1", 50000)


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of an exposition: (name, labels) → value."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, frozenset(labels.items())), 0.0)


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    ledger = Ledger.create(f"sqlite:///{tmp_path / 'ledger.db'}", "site", NOW)
    yield ledger
    ledger.dispose()


def client(ledger: Ledger, settings: Settings | None = None, **kwargs: object) -> TestClient:
    app = create_app(
        ledger, clock=FakeClock(), settings=settings, sweep_every=0, pair_every=0,
        detect_every=0,
    )  # fmt: skip
    return TestClient(app, **kwargs)  # type: ignore[arg-type]


def test_metrics_count_requests_by_route_template_games_and_queues(ledger: Ledger) -> None:
    token = ledger.tokens.create("writer", "test", NOW)
    auth = {"Authorization": f"Bearer {token}"}
    route = "/api/v1/players/{player_id}"
    with client(ledger, client=LOOPBACK) as http:
        before = http.get("/metrics")
        assert before.status_code == 200
        assert before.headers["content-type"].startswith("text/plain; version=")
        seen = value(before.text, "chessrate_http_requests_total", method="GET", route=route,
                     status="404")  # fmt: skip
        rated = value(before.text, "chessrate_games_committed_total", system="site",
                      pool="blitz", outcome="rated")  # fmt: skip
        groups = value(before.text, "chessrate_group_commit_games_count")
        for name in ("ann", "ben"):
            assert http.post("/api/v1/players", json={"id": name}, headers=auth).status_code == 201
        assert http.get("/api/v1/players/nobody").status_code == 404
        assert http.get("/api/v1/players/nobody-else").status_code == 404
        game = {"id": "g1", "played_at": "2026-03-01T18:00:00Z", "white": "ann",
                "black": "ben", "result": "1-0", "time_control": "5m+3s", "plies": 61}  # fmt: skip
        assert http.post("/api/v1/games", json=game, headers=auth).status_code == 201
        assert http.post("/api/v1/games", json=game, headers=auth).status_code == 200
        after = http.get("/metrics").text

    # Two paths, one route: labelled by the template.
    assert value(after, "chessrate_http_requests_total", method="GET", route=route,
                 status="404") == seen + 2  # fmt: skip
    assert not [key for key in samples(after) if ("route", "/api/v1/players/nobody") in key[1]]
    assert value(after, "chessrate_http_request_duration_seconds_count", method="GET",
                 route=route) >= seen + 2  # fmt: skip
    # The game sent twice is committed once.
    assert value(after, "chessrate_games_committed_total", system="site", pool="blitz",
                 outcome="rated") == rated + 1  # fmt: skip
    assert value(after, "chessrate_group_commit_games_count") == groups + 2
    assert value(after, "chessrate_write_lock_wait_seconds_count", database="sqlite") > 0
    assert value(after, "chessrate_database_up") == 1
    for gauge in ("chessrate_live_games_open", "chessrate_seeks_open"):
        assert (gauge, frozenset()) in samples(after)


def test_metrics_answer_loopback_or_the_bearer_of_the_metrics_token(ledger: Ledger) -> None:
    with client(ledger) as http:  # the test client's address: "testclient"
        refused = http.get("/metrics")
        assert refused.status_code == 403
        assert "CHESSRATE_METRICS_TOKEN" in refused.json()["detail"]
    with client(ledger, Settings(metrics_token="s3cret")) as http:
        assert http.get("/metrics").status_code == 403
        wrong = http.get("/metrics", headers={"Authorization": "Bearer s3cre"})
        assert wrong.status_code == 403
        right = http.get("/metrics", headers={"Authorization": "bearer s3cret"})
        assert right.status_code == 200
        assert "chessrate_http_requests_total" in right.text
    # Wrong tokens count as failed authentications of the address.
    with client(ledger, Settings(metrics_token="s3cret", auth_failures=2)) as http:
        for _ in range(2):
            assert http.get("/metrics", headers={"Authorization": "Bearer x"}).status_code == 403
        limited = http.get("/metrics", headers={"Authorization": "Bearer s3cret"})
        assert limited.status_code == 429
        assert "Retry-After" in limited.headers


def test_metrics_still_answer_while_the_database_does_not(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    ledger = Ledger.create(f"sqlite:///{path}", "site", NOW)
    with client(ledger, client=LOOPBACK) as http:
        before = http.get("/metrics").text
        assert value(before, "chessrate_database_up") == 1
        ledger.dispose()  # (its pooled connections hold the file open)
        path.rename(tmp_path / "elsewhere.db")
        path.mkdir()  # a directory where the ledger was: SQLite cannot open it
        try:
            assert http.get("/api/v1/players/ann").status_code == 503
            answer = http.get("/metrics")
        finally:
            ledger.dispose()
            path.rmdir()
            (tmp_path / "elsewhere.db").rename(path)
    assert answer.status_code == 200
    assert value(answer.text, "chessrate_database_up") == 0
    assert "chessrate_seeks_open" not in answer.text
    kind = {"database": "sqlite", "kind": "OperationalError"}
    assert value(answer.text, "chessrate_database_errors_total", **kind) > value(
        before, "chessrate_database_errors_total", **kind
    )
    ledger.dispose()


def test_database_errors_are_counted_by_kind() -> None:
    def errors(text: str) -> float:
        return value(text, "chessrate_database_errors_total", database="sqlite",
                     kind="ConnectionRefusedError")  # fmt: skip

    from chessrate import metrics

    before = errors(metrics.exposition().decode())
    with pytest.raises(LedgerUnavailable, match="database: refused"), connection_errors("sqlite"):
        raise OperationalError("SELECT 1", {}, ConnectionRefusedError("refused"))
    assert errors(metrics.exposition().decode()) == before + 1


def test_one_log_line_per_request(ledger: Ledger, caplog: pytest.LogCaptureFixture) -> None:
    with client(ledger, client=LOOPBACK) as http, caplog.at_level(logging.INFO, "chessrate"):
        http.get("/api/v1/players/nobody%0Aforged?q=secret")
        http.head("/healthz")
    lines = [r for r in caplog.records if r.name == "chessrate.access"]
    assert len(lines) == 2
    first, second = lines
    message = first.getMessage()
    assert message.startswith('127.0.0.1:50000 "GET /api/v1/players/nobody%0Aforged" 404 ')
    assert message.endswith(" ms (route /api/v1/players/{player_id})")
    assert "\n" not in message and "secret" not in message
    assert second.getMessage().startswith('127.0.0.1:50000 "HEAD /healthz" 200 ')
    shown = json.loads(JsonFormatter().format(first))
    assert shown["logger"] == "chessrate.access"
    assert shown["level"] == "INFO"
    assert shown["method"] == "GET"
    assert shown["route"] == "/api/v1/players/{player_id}"
    assert shown["path"] == "/api/v1/players/nobody%0Aforged"
    assert shown["status"] == 404
    assert shown["client"] == "127.0.0.1:50000"
    assert isinstance(shown["duration_ms"], float) and shown["duration_ms"] >= 0
    assert shown["time"].endswith("Z")


@pytest.mark.slow
def test_two_workers_report_every_worker_and_log_json(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    Ledger.create(url, "site", NOW).dispose()
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "counter_1.db").write_bytes(b"left by an earlier run")
    env: dict[str, str | None] = {
        "PROMETHEUS_MULTIPROC_DIR": str(folder),
        "CHESSRATE_LOG_FORMAT": "json",
        "CHESSRATE_DETECT_SECONDS": "0",
    }
    route = "/api/v1/leaderboards/{pool}"
    with tmp_path.joinpath("log").open("w+b") as log:
        with server_process(url, workers=2, env=env, log=log) as (base, _):
            assert not (folder / "counter_1.db").exists()  # emptied at start
            sent = 0
            # Each request on a connection of its own, until both workers answered some.
            while len({p.stem.rpartition("_")[2] for p in folder.glob("counter_*.db")}) < 2:
                assert httpx.get(f"{base}/api/v1/leaderboards/blitz").status_code == 200
                sent += 1
                assert sent < 2000, "one worker answered every request"
            scrapes = [httpx.get(f"{base}/metrics").text for _ in range(8)]
        output = written(log).decode()
    totals = {
        value(text, "chessrate_http_requests_total", method="GET", route=route, status="200")
        for text in scrapes
    }
    assert totals == {float(sent)}  # every scrape, whichever worker: the sum
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    requests = [line for line in lines if line["logger"] == "chessrate.access"]
    assert sum(1 for line in requests if line["route"] == route) == sent
    assert not [line for line in lines if line["logger"] == "uvicorn.access"]
