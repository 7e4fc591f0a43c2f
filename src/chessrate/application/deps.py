"""Typed dependencies: the ledger, the clock, the caller's role (bearer tokens).

The app keeps its ledger, clock and token cache on ``app.state`` (set by
:func:`chessrate.server.create_app`); routes and pages receive them through the
``Annotated`` aliases below (``LedgerDep``, ``Now``, ``Writer``, …). The dependencies
are coroutines that never block: FastAPI runs a plain function dependency in a thread,
a hop per dependency per request; a token the cache does not know is looked up in a
thread.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, cast

from fastapi import Depends, HTTPException, Request, status
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.security.utils import get_authorization_scheme_param
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from ..fairplay.background import DetectorStatus
from ..ledger import Ledger
from ..systems.site_pairing import PairingRules
from .group import GroupCommitter
from .limits import FailedAuth, client_address

Clock = Callable[[], datetime]
"""The service's time: ``submitted_at`` of games, the time of annulments and periods."""

WRITER = "writer"
MODERATOR = "moderator"
CALLER = "caller"
"""The request state's name for a caller already authenticated (``request.state``)."""


def utc_now() -> datetime:
    return datetime.now(UTC)


class TokenCache:
    """token → role, trusted for ``ttl`` seconds per worker process so that the hot path
    (a game submission) does not ask the database about the token every time. Only
    known, valid tokens are cached (a new token works at once); the cache is bounded.
    So a token revoked (or expiring) is refused by every worker within ``ttl`` seconds
    (``CHESSRATE_TOKEN_CACHE_SECONDS``, 5 by default; 0: at once)."""

    def __init__(
        self,
        lookup: Callable[[str], str | None],
        ttl: float = 5.0,
        max_entries: int = 4096,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lookup = lookup
        self.ttl = ttl
        self.max_entries = max_entries
        self.timer = timer
        self._entries: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def cached(self, token: str) -> str | None:
        """The token's role while it is trusted; None when the ledger must be asked
        (:meth:`role`). Never touches the database."""
        key = hashlib.sha256(token.encode()).hexdigest()
        with self._lock:
            entry = self._entries.get(key)
        return entry[0] if entry is not None and entry[1] > self.timer() else None

    def role(self, token: str) -> str | None:
        key = hashlib.sha256(token.encode()).hexdigest()
        now = self.timer()
        with self._lock:
            entry = self._entries.get(key)
        if entry is not None and entry[1] > now:
            return entry[0]
        role = self.lookup(token)
        with self._lock:
            if role is None:
                self._entries.pop(key, None)
            else:
                if len(self._entries) >= self.max_entries:
                    self._entries.clear()
                self._entries[key] = (role, now + self.ttl)
        return role


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is writing: the role of the bearer token, and the token itself (its label is
    looked up when an annulment records who made it)."""

    role: str
    token: str


async def get_ledger(request: Request) -> Ledger:
    return cast(Ledger, request.app.state.ledger)


async def get_committer(request: Request) -> GroupCommitter:
    return cast(GroupCommitter, request.app.state.committer)


async def get_clock(request: Request) -> Clock:
    return cast(Clock, request.app.state.clock)


async def get_now(request: Request) -> datetime:
    """The request's time, read once from the app's clock."""
    return cast(Clock, request.app.state.clock)()


async def get_active_days(request: Request) -> int:
    """``Settings.active_days``: how recent a ``site`` player's last rated game in a
    pool must be for the pool's list of established players."""
    return cast(int, request.app.state.active_days)


async def get_pairing(request: Request) -> PairingRules:
    """The pairing's numbers (``Settings.pairing_rules()``)."""
    return cast(PairingRules, request.app.state.pairing)


async def get_detector(request: Request) -> DetectorStatus | None:
    """The fair-play detector's status in this worker (None before start-up)."""
    return cast(DetectorStatus | None, getattr(request.app.state, "detector", None))


LedgerDep = Annotated[Ledger, Depends(get_ledger)]
DetectorDep = Annotated[DetectorStatus | None, Depends(get_detector)]
Pairing = Annotated[PairingRules, Depends(get_pairing)]
ActiveDays = Annotated[int, Depends(get_active_days)]
ClockDep = Annotated[Clock, Depends(get_clock)]
CommitterDep = Annotated[GroupCommitter, Depends(get_committer)]
Now = Annotated[datetime, Depends(get_now)]

bearer = HTTPBearer(
    auto_error=False,
    description="A ledger token (`chessrate token create --role writer|moderator`).",
)


def _unauthorized(reason: str) -> HTTPException:
    return HTTPException(
        status_code=status.HTTP_401_UNAUTHORIZED,
        detail=reason,
        headers={"WWW-Authenticate": "Bearer"},
    )


def too_many_failures(seconds: int) -> HTTPException:
    """429: the client's address failed to authenticate too often (:mod:`.limits`)."""
    return HTTPException(
        status_code=status.HTTP_429_TOO_MANY_REQUESTS,
        detail=f"too many failed authentications from your address; try again in {seconds} s",
        headers={"Retry-After": str(seconds)},
    )


def bearer_token(connection: HTTPConnection) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (None without one), read
    as :data:`bearer` reads it."""
    scheme, token = get_authorization_scheme_param(connection.headers.get("Authorization"))
    return token if scheme.lower() == "bearer" and token else None


async def authenticate(connection: HTTPConnection, token: str | None) -> Caller:
    """The caller holding ``token``: 401 without a token or with one the ledger does not
    know as valid (a failure counted against the client's address); 429 while that
    address has failed too often (the token is then not looked at). A token the cache
    knows costs no database query; another is looked up in a thread."""
    if not token:
        raise _unauthorized("a write needs an Authorization: Bearer <token> header")
    failures = cast(FailedAuth, connection.app.state.auth_failures)
    address = client_address(connection)
    wait = failures.retry_after(address)
    if wait is not None:
        raise too_many_failures(wait)
    cache = cast(TokenCache, connection.app.state.tokens)
    role = cache.cached(token)
    if role is None:  # ask the ledger, off the event loop
        role = await run_in_threadpool(cache.role, token)
    if role is None:
        failures.failed(address)
        raise _unauthorized("unknown or invalid token")
    return Caller(role, token)


async def get_caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Caller:
    """The caller of a write: 401 without a valid bearer token, 429 after too many
    failures from the client's address. A write's token was checked before its body was
    read (:class:`chessrate.service.routes.guard.TokenFirstRoute`), which left the
    caller here."""
    token = credentials.credentials if credentials is not None else None
    checked = getattr(request.state, CALLER, None)
    if isinstance(checked, Caller) and checked.token == token:
        return checked
    return await authenticate(request, token)


def requires_token(route: APIRoute) -> bool:
    """Whether the route's dependencies ask for the caller (:func:`get_caller`)."""

    def asks(dependant: Dependant) -> bool:
        return dependant.call is get_caller or any(asks(d) for d in dependant.dependencies)

    return asks(route.dependant)


async def require_writer(caller: Annotated[Caller, Depends(get_caller)]) -> Caller:
    """A writer or a moderator (a moderator may do everything a writer does)."""
    if caller.role not in (WRITER, MODERATOR):
        raise HTTPException(status.HTTP_403_FORBIDDEN, f"the {caller.role} role cannot write")
    return caller


async def require_moderator(caller: Annotated[Caller, Depends(get_caller)]) -> Caller:
    if caller.role != MODERATOR:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN, f"this needs a moderator token (yours is {caller.role})"
        )
    return caller


Writer = Annotated[Caller, Depends(require_writer)]
Moderator = Annotated[Caller, Depends(require_moderator)]
