"""The service's Prometheus metrics (``GET /metrics``), defined once per process.

Every layer records into these module-level metrics (the ledger its write-lock waits,
its database errors and the games it commits; the group committer its groups; the
server each request and each failed background pass); :func:`exposition` writes them
in Prometheus' text format, with the gauges an app computes at scrape time.

Several workers (``chessrate serve --workers N``): prometheus-client's multiprocess
mode. ``PROMETHEUS_MULTIPROC_DIR`` names a directory where each worker keeps its
values in files; it must be set before this module is first imported (``chessrate
serve`` sets it, and empties it at each start), and then any worker's ``/metrics``
reports the sum over every worker, those that exited included. Without it (one
worker, the tests) the values live in the process's memory and ``/metrics`` adds the
process' own metrics (``process_*``, ``python_gc_*``).

Recording is cheap: a request costs two clock readings, a dictionary lookup and two
updates of values already labelled (:func:`request_done`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

__all__ = [
    "CONTENT_TYPE",
    "DATABASE_ERRORS",
    "GAMES",
    "GROUP_SIZE",
    "MULTIPROCESS_VARIABLE",
    "REQUESTS",
    "WRITE_LOCK_WAIT",
    "background_failure",
    "database_error",
    "exposition",
    "games_committed",
    "request_done",
]

MULTIPROCESS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
MULTIPROCESS = bool(
    os.environ.get(MULTIPROCESS_VARIABLE) or os.environ.get(MULTIPROCESS_VARIABLE.lower())
)
"""Whether this process keeps its values in files (prometheus-client decides so when it
is imported, from the same variable)."""
CONTENT_TYPE = CONTENT_TYPE_LATEST
"""``text/plain; version=…; charset=utf-8``: Prometheus' text format."""

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Seconds: a read answers in a millisecond or two, a group commit in tens, a busy
database in ``CHESSRATE_BUSY_SECONDS`` (5 s) before its 503."""

REQUESTS = Counter(
    "chessrate_http_requests",
    "HTTP requests answered, by method, route (the route's path template, "
    "'unmatched' when no route matched) and status.",
    ["method", "route", "status"],
)
LATENCY = Histogram(
    "chessrate_http_request_duration_seconds",
    "Time from a request's arrival in the app until its answer's last byte was handed "
    "to the server, by method and route (the route's path template).",
    ["method", "route"],
    buckets=LATENCY_BUCKETS,
)
GAMES = Counter(
    "chessrate_games_committed",
    "Games rated and stored by this service (POST /games, batches, live games ended), "
    "counted when their transaction committed, by system, pool and outcome "
    "(rated, unrated, void).",
    ["system", "pool", "outcome"],
)
GROUP_SIZE = Histogram(
    "chessrate_group_commit_games",
    "Games in each group the group committer (POST /games) handed to one transaction.",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
)
WRITE_LOCK_WAIT = Histogram(
    "chessrate_write_lock_wait_seconds",
    "Time from asking for a write transaction until it held the ledger's write lock: a "
    "pooled connection, then SQLite's BEGIN IMMEDIATE (which waits while another "
    "writer holds the database) or PostgreSQL's shared writers' advisory lock (which "
    "waits only for a bulk import). Row locks taken later (FOR UPDATE) are not in it; "
    "a wait that timed out is a database error, not an observation.",
    ["database"],
    buckets=(0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
             1.0, 2.5, 5.0, 10.0, 30.0),
)  # fmt: skip
DATABASE_ERRORS = Counter(
    "chessrate_database_errors",
    "Exceptions the database (its driver or SQLAlchemy's pool) raised to the ledger, "
    "by database and kind (the driver's exception class, e.g. OperationalError for a "
    "database that does not answer or a lock not had in time, IntegrityError for two "
    "workers storing one id at once, which the ledger then retries; PoolTimeout: no "
    "pooled connection free in time).",
    ["database", "kind"],
)
BACKGROUND_FAILURES = Counter(
    "chessrate_background_failures",
    "Background passes (sweep, pairing pass, detect) that failed, by job and why "
    "(database: the database was unavailable; error: anything else, logged with its "
    "traceback).",
    ["job", "why"],
)

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""Methods labelled as themselves; any other is ``OTHER`` (the label set stays bounded)."""

_requests: dict[tuple[str, str, int], tuple[Any, Any]] = {}


def request_done(method: str, route: str, status: int, seconds: float) -> None:
    """Count one answered request and its duration (``route``: its path template)."""
    key = (method, route, status)
    children = _requests.get(key)
    if children is None:
        shown = method if method in METHODS else "OTHER"
        children = (REQUESTS.labels(shown, route, str(status)), LATENCY.labels(shown, route))
        _requests[key] = children
    children[0].inc()
    children[1].observe(seconds)


_games: dict[tuple[str, str, str], Any] = {}


def games_committed(system: str, games: Iterable[tuple[str, str]]) -> None:
    """Count committed games: (pool, outcome) each."""
    for pool, outcome in games:
        key = (system, pool, outcome)
        child = _games.get(key)
        if child is None:
            child = _games[key] = GAMES.labels(system, pool, outcome)
        child.inc()


def database_error(database: str, error: BaseException) -> None:
    """Count an exception the database raised (``error``: the driver's, when known)."""
    DATABASE_ERRORS.labels(database, type(error).__name__).inc()


def background_failure(job: str, why: str) -> None:
    BACKGROUND_FAILURES.labels(job, why).inc()


def exposition(collectors: Sequence[Collector] = ()) -> bytes:
    """Every metric in Prometheus' text format: this process's (or, in multiprocess
    mode, every worker's), then those of ``collectors`` (computed now)."""
    scraped = CollectorRegistry(auto_describe=False)
    for collector in collectors:
        scraped.register(collector)
    if MULTIPROCESS:
        multiprocess.MultiProcessCollector(scraped)  # type: ignore[no-untyped-call]
        return generate_latest(scraped)
    return generate_latest(REGISTRY) + generate_latest(scraped)
