"""The composition root: the ONE module that builds the FastAPI app, with the HTTP API
(:mod:`chessrate.service`) and the web pages (:mod:`chessrate.web`) mounted on it.

``create_app(ledger)`` builds the app around a ledger (tests pass their own, and a
clock); ``create_app_from_env()`` reads
:class:`~chessrate.application.settings.Settings` (``CHESSRATE_DATABASE_URL``) for
``uvicorn --factory chessrate.server:create_app_from_env`` (what ``chessrate serve``
runs). The app's lifespan checks that the database holds a ledger, runs the live
games' sweeper, the pairing pass (seeks) and, when Stockfish is found (unless turned
off), the fair-play detector on a ledger that plays live games (logging one line
saying whether it runs and why), stops the worker's group committer
(:mod:`chessrate.application.group`: ``POST /games``) after committing what it holds,
and disposes of a ledger it opened. Around every request: ``HEAD`` as ``GET``, the
security headers, the body limit (:class:`BodyLimit`: 413) and gzip, each request
counted and logged in a line (:class:`Observe`); the failed
authentications' counter (:mod:`chessrate.application.limits`) is on ``app.state``.

Why a module of its own: the API and the pages are two front ends over one
application layer (:mod:`chessrate.application`). Neither should know the other, so
the place that knows both (and the app's life: its ledger, clock, token cache and
sweeper) sits above both. Only :mod:`chessrate.cli` imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, HTTPException, Request, status
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import __version__, metrics
from .application.deps import Clock, TokenCache, utc_now
from .application.group import GroupCommitter
from .application.limits import FailedAuth
from .application.sessions import Sessions
from .application.settings import API_V1, Settings, load_settings
from .errors import LedgerUnavailable
from .fairplay.background import (
    FIRST_ROUND_SECONDS,
    LOCK_NAME,
    DetectorPlan,
    DetectorStatus,
    MachineLock,
    locked_run,
    plan,
    runtime_dir,
)
from .ledger import Ledger
from .ledger import database_url as ledger_url
from .ledger.live import LiveGames
from .ledger.seeks import Seeks
from .service import DESCRIPTION, mount_api
from .service.errors import refuse_nul_in_address
from .systems import system_info
from .web import mount_web

log = logging.getLogger(__name__)
access_log = logging.getLogger("chessrate.access")
"""One line per request (:class:`Observe`); ``chessrate serve`` writes it to stderr."""

__all__ = ["API_V1", "Clock", "Settings", "create_app", "create_app_from_env"]


def create_app(
    ledger: Ledger | None = None,
    *,
    database_url: str | None = None,
    clock: Clock = utc_now,
    settings: Settings | None = None,
    sweep_every: float | None = None,
    pair_every: float | None = None,
    detect_every: float | None = None,
    timer: Callable[[], float] = time.monotonic,
    freeze_heap: bool = False,
) -> FastAPI:
    """The service around ``ledger``, or around the ledger at ``database_url`` (else
    ``CHESSRATE_DATABASE_URL``, else ``./chessrate.db``), which the app then opens and
    disposes of itself. ``clock`` gives the time of submissions, annulments and live
    games' moves and deadlines. On a ledger that plays live games a background task
    sweeps their deadlines every ``sweep_every`` seconds (default: the settings'; 0:
    never), a pairing pass pairs the open seeks every ``pair_every`` seconds
    (default: the settings'; 0: never), and another runs the fair-play detector over
    the finished games with moves every ``detect_every`` seconds (default: the
    settings' ``detect_seconds``, else every 30 s when Stockfish is found; 0: never;
    :mod:`chessrate.fairplay.background`), one analysis at a time on the machine.

    Limits (:class:`BodyLimit`, the settings'): a ledger the app
    opens waits ``busy_seconds`` for a lock; failed authentications are counted per
    address in ``timer``'s seconds (monotonic; tests pass their own).

    ``freeze_heap`` (a server process's app, :func:`create_app_from_env`): once started,
    everything the process holds is collected once and frozen (``gc.freeze()``), so
    Python's oldest-generation collections, which come every few thousand requests,
    scan only what was made since. Without it each of those collections walked the
    whole start-up heap (the app, its models, the libraries): a pause of tens of
    milliseconds that was the API's 99th percentile (about 100 ms at 16 clients
    on SQLite, 30-40 ms with the heap frozen). Unfrozen again at shutdown."""
    settings = settings or load_settings()
    interval = settings.sweep_seconds if sweep_every is None else sweep_every
    pairing_interval = settings.pair_seconds if pair_every is None else pair_every
    pairing = settings.pairing_rules()
    detect_configured = settings.detect_seconds if detect_every is None else detect_every
    owned = ledger is None
    if ledger is None:
        url = ledger_url(database_url or settings.database_url)
        ledger = Ledger(url, busy_seconds=settings.busy_seconds)
    the_ledger = ledger
    committer = GroupCommitter(the_ledger, settings.group_max, settings.group_writers)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # Fail at start-up, not on the first request, when the database holds no
        # ledger (InvalidInput: "run chessrate init").
        system_id = the_ledger.system_id
        stop = threading.Event()  # a detection run stops between games when set
        live = system_info(system_id).live_games
        jobs: list[tuple[float, Callable[[], None], str, float | None]] = []
        if interval > 0 and live:
            jobs.append((interval, _sweeper(the_ledger.live, clock), "sweep", None))
        if pairing_interval > 0 and live:
            seeks = Seeks(the_ledger, pairing)
            jobs.append((pairing_interval, _pairer(seeks, clock), "pairing pass", None))
        detector_plan = plan(system_id, live, detect_configured, settings.stockfish)
        lock: MachineLock | None = None
        if detector_plan.on:
            try:
                lock = MachineLock(runtime_dir(settings.runtime_dir) / LOCK_NAME)
            except OSError as error:
                detector_plan = DetectorPlan(
                    False, f"no directory for its lock file (CHESSRATE_RUNTIME_DIR): {error}",
                    missing=True,
                )  # fmt: skip
        (log.warning if detector_plan.missing else log.info)("%s", detector_plan.line())
        detector = DetectorStatus(the_ledger, detector_plan)
        _app.state.detector = detector
        if lock is not None:
            detect = _detector(the_ledger, clock, settings, stop, lock, detector)
            first = min(FIRST_ROUND_SECONDS, detector_plan.interval)
            jobs.append((detector_plan.interval, detect, "detect", first))
        tasks = [asyncio.create_task(_every(*job)) for job in jobs]
        if freeze_heap:
            gc.collect()
            gc.freeze()
        try:
            yield
        finally:
            if freeze_heap:
                gc.unfreeze()
            stop.set()
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            # The games already queued are committed and answered before the ledger goes.
            await run_in_threadpool(committer.close)
            if owned:
                the_ledger.dispose()

    app = FastAPI(
        title="chessrate",
        summary="Exact chess rating engine and service",
        description=DESCRIPTION,
        version=__version__,
        lifespan=lifespan,
        docs_url=None,  # served by the web pages with vendored assets (works offline)
        dependencies=[Depends(refuse_nul_in_address)],  # every route, the API's and pages'
    )
    app.state.ledger = the_ledger
    app.state.clock = clock
    app.state.active_days = settings.active_days
    app.state.pairing = pairing
    app.state.committer = committer
    app.state.tokens = TokenCache(
        lambda token: the_ledger.tokens.role(token, clock()), ttl=settings.token_cache_seconds
    )
    app.state.auth_failures = FailedAuth(
        settings.auth_failures, settings.auth_window_seconds, timer=timer
    )
    app.state.sessions = Sessions(settings.session_hours)
    app.state.metrics_token = settings.metrics_token
    mount_api(app)
    mount_web(app)
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_FROM, compresslevel=5)
    app.add_middleware(BodyLimit, api=app, max_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(HeadAsGet)
    app.add_middleware(Observe)
    return app


PAGE_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
"""The pages' Content-Security-Policy: everything from the site itself (the charts'
positions are inline styles); no framing. ``/docs`` also allows the inline script
that starts the vendored Swagger UI."""
DOCS_POLICY = PAGE_POLICY.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")


class SecurityHeaders:
    """Headers on every answer: ``X-Content-Type-Options: nosniff``, ``Referrer-Policy:
    same-origin``, ``X-Frame-Options: DENY``; on HTML, the Content-Security-Policy
    (:data:`PAGE_POLICY`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = DOCS_POLICY if scope["path"].startswith("/docs") else PAGE_POLICY

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("x-content-type-options", "nosniff")
                headers.setdefault("referrer-policy", "same-origin")
                headers.setdefault("x-frame-options", "DENY")
                if headers.get("content-type", "").startswith("text/html"):
                    headers.setdefault("content-security-policy", policy)
            await send(message)

        await self.app(scope, receive, with_headers)


class BodyLimit:
    """Request bodies of at most ``max_bytes`` (``CHESSRATE_MAX_BODY_BYTES``): a
    ``Content-Length`` above it is answered 413 before anything is read; a body of
    unknown length (chunked) is counted as it is read, and the read that passes the
    limit raises the 413 (the route never runs, so nothing is stored). The answer is
    the app's for an ``HTTPException``: ``{"detail": …}`` naming the limit, a page for
    a page route."""

    def __init__(self, app: ASGIApp, api: FastAPI, max_bytes: int) -> None:
        self.app = app
        self.api = api
        self.max_bytes = max_bytes

    def too_large(self) -> HTTPException:
        return HTTPException(
            status.HTTP_413_CONTENT_TOO_LARGE,
            f"the request body is larger than the limit of {self.max_bytes} bytes "
            "(CHESSRATE_MAX_BODY_BYTES)",
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            # (a malformed length never gets here under uvicorn, which refuses it)
            await _answer(self.api, scope, receive, send, self.too_large())
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise self.too_large()
            return message

        await self.app(scope, counted, send)


async def _answer(
    api: FastAPI, scope: Scope, receive: Receive, send: Send, error: Exception
) -> None:
    """Answer ``error`` from a middleware as the app's exception handlers answer it
    inside (the same body, headers and page). An error no handler of its own answers
    (a bug) is raised, for the server to log and answer 500."""
    handlers = api.exception_handlers
    kinds = [kind for kind in type(error).__mro__ if kind in handlers and kind is not Exception]
    if not kinds:
        raise error
    response = handlers[kinds[0]](Request(scope, receive), error)
    if inspect.isawaitable(response):
        response = await response
    await response(scope, receive, send)


GZIP_FROM = 1000
"""Answers of at least this many bytes are gzipped for clients that accept it."""


class HeadAsGet:
    """``HEAD`` answered on every ``GET`` route (pages, API, files): the request goes on
    as a ``GET`` and its answer is sent without its body (status and headers, its
    ``Content-Length`` included, as the ``GET``'s).

    The method is changed in the scope itself (the routes write what matched into it,
    which :class:`Observe` reads), and set back to ``HEAD`` before the answer starts:
    the server reads the scope's method then to know that no body follows the
    ``Content-Length`` (as a ``GET``, uvicorn would wait for the body, and log "content
    shorter than Content-Length" and drop the connection)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        ended = False

        async def headers_only(message: Message) -> None:
            nonlocal ended
            if message["type"] == "http.response.start":
                scope["method"] = "HEAD"
            elif message["type"] == "http.response.body":
                if ended or message.get("more_body", False):
                    return
                ended = True
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        scope["method"] = "GET"  # (in place: Observe, outside, reads the route matched)
        await self.app(scope, receive, headers_only)


class Observe:
    """Each request counted (:func:`chessrate.metrics.request_done`: by method, route
    and status, and its duration) and logged in one line at INFO on
    ``chessrate.access``: the client's address, the method, the path (as sent,
    without its query string), the status, the milliseconds and the route's path
    template (``unmatched`` when no route matched); a JSON log line has them as
    ``client``, ``method``, ``path``, ``status``, ``duration_ms``, ``route``. The route is
    the template, never the path, so that the metrics' labels stay few. A request
    that raised counts as the 500 it is answered."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        method = scope["method"]
        root = scope.get("root_path", "")
        answered = 500

        async def noted(message: Message) -> None:
            nonlocal answered
            if message["type"] == "http.response.start":
                answered = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, noted)
        finally:
            seconds = time.perf_counter() - began
            route = _route_template(scope, root)
            metrics.request_done(method, route, answered, seconds)
            if access_log.isEnabledFor(logging.INFO):
                _log_request(scope, method, route, answered, seconds)


def _route_template(scope: Scope, root: str) -> str:
    """The path template of the route that answered (``unmatched``: none). FastAPI
    keeps a route of an included router with its prefix in its own part of the scope
    (``scope["route"]`` is then the route as declared, without the prefix); a mount
    (``/static``) adds its prefix to the scope's ``root_path`` (was ``root``)."""
    included = (scope.get("fastapi") or {}).get("effective_route_context")
    path = getattr(included, "path", None)
    if isinstance(path, str) and path:
        return path
    route = getattr(scope.get("route"), "path", None)
    if isinstance(route, str) and route:
        return route
    mounted = str(scope.get("root_path", ""))
    if mounted != root and mounted.startswith(root):
        return mounted[len(root) :] + "/{path}"
    return "unmatched"


def _log_request(scope: Scope, method: str, route: str, answered: int, seconds: float) -> None:
    client = scope.get("client")
    address = f"{client[0]}:{client[1]}" if client else "-"
    raw = scope.get("raw_path")
    # As sent (still percent-encoded): a decoded path could hold a line break.
    path = raw.decode("ascii", "backslashreplace") if raw else repr(scope["path"])[1:-1]
    path = path.partition("?")[0]
    milliseconds = round(seconds * 1000, 1)
    access_log.info(
        '%s "%s %s" %s %.1f ms (route %s)', address, method, path, answered, milliseconds, route,
        extra={"request": {"client": address, "method": method, "path": path,
                           "status": answered, "duration_ms": milliseconds, "route": route}},
    )  # fmt: skip


async def _every(
    interval: float, job: Callable[[], None], name: str, first: float | None = None
) -> None:
    """A worker's background task: every ``interval`` seconds (the first time after
    ``first`` seconds, when given), run ``job`` in a thread (it logs what it did); a
    failure is logged and the next run comes ``interval`` seconds later, so nothing
    stops the task but its cancellation at shutdown. A database that is unavailable
    (:class:`LedgerUnavailable`: down, locked past the wait) is one warning line a pass,
    without a traceback, and one line once a pass succeeds again; any other failure (a
    missing engine, a bug) is logged with its traceback. Each failure is counted
    (:data:`chessrate.metrics.BACKGROUND_FAILURES`)."""
    delay = interval if first is None else first
    unavailable = False
    while True:
        await asyncio.sleep(delay)
        delay = interval
        try:
            await run_in_threadpool(job)
        except LedgerUnavailable as error:
            metrics.background_failure(name, "database")
            unavailable = True
            log.warning(
                "%s: the database is unavailable (%s); trying again in %s s",
                name, (str(error).splitlines() or [type(error).__name__])[0], interval,
            )  # fmt: skip
            continue
        except Exception:
            metrics.background_failure(name, "error")
            log.exception("%s failed; trying again in %s s", name, interval)
            continue
        if unavailable:
            unavailable = False
            log.warning("%s: the database answers again", name)


def _sweeper(live: LiveGames, clock: Clock) -> Callable[[], None]:
    """End the live games whose deadline has passed. Several workers' sweepers end each
    game once."""

    def sweep() -> None:
        for view in live.sweep(clock()).ended:
            log.info("sweep: live game %s ended: %s", view.game.id, view.ending)

    return sweep


def _pairer(seeks: Seeks, clock: Clock) -> Callable[[], None]:
    """Pair the open seeks. Several workers' passes pair each seek once."""

    def pair() -> None:
        for first, second, game in seeks.pair(clock()).pairs:
            log.info("pair: seeks %s and %s: live game %s", first.id, second.id, game.game.id)

    return pair


def _detector(
    ledger: Ledger,
    clock: Clock,
    settings: Settings,
    stop: threading.Event,
    lock: MachineLock,
    status: DetectorStatus,
) -> Callable[[], None]:
    """Analyse at most ``settings.detect_games`` finished games with moves
    (:mod:`chessrate.fairplay.job`) holding the machine's detector lock
    (:mod:`chessrate.fairplay.background`: a round another process holds it for is
    skipped); the engine runs while the round does. At shutdown ``stop`` is set first:
    the round ends after its current game (a thread cannot be cancelled)."""
    from .fairplay import StockfishDetector
    from .fairplay.job import DetectionJob, DetectReport

    def analyse() -> DetectReport:
        with StockfishDetector(path=settings.stockfish) as detector:
            return DetectionJob(ledger, detector, clock).run(settings.detect_games, stop)

    def detect() -> None:
        try:
            report = locked_run(analyse, lock)
        except Exception as error:
            status.failed(clock(), error)
            raise  # logged by the task, which tries again an interval later
        status.ran(clock(), report)
        if report is not None and report.analysed:
            log.info("detect: %s games analysed", len(report.analysed))

    return detect


def create_app_from_env() -> FastAPI:
    """The app configured from the environment (``uvicorn --factory``): a server
    process's, its start-up heap frozen (:func:`create_app`'s ``freeze_heap``)."""
    return create_app(settings=load_settings(), freeze_heap=True)
