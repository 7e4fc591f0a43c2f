"""Seeks and the pairing pass: a player (the writer acting for them) seeks a
game; the pass pairs compatible seeks by site Elo and opens their live games. Times
are the service's clock."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query, Response, status

from ...application import schemas, services
from ...application.deps import LedgerDep, Now, Pairing, Writer
from ...application.settings import API_V1
from .guard import TokenFirstRoute
from .paging import Offset
from .responses import CONFLICT, INVALID, NOT_FOUND, WRITE

router = APIRouter(tags=["seeks"], route_class=TokenFirstRoute)


@router.post(
    "/seeks",
    status_code=status.HTTP_201_CREATED,
    response_model=schemas.SeekPublic,
    openapi_extra=schemas.request_body(schemas.SeekCreate),
    responses={**WRITE, **INVALID, **CONFLICT},
)
def create_seek(
    _: Writer,
    body: Annotated[dict[str, Any], Body()],
    ledger: LedgerDep,
    now: Now,
    rules: Pairing,
    response: Response,
) -> schemas.SeekPublic:
    """Seek a game (201): the pairing pass pairs it with the closest compatible seek
    by site Elo. At most one open seek per player and time control (409 names it); a
    player in a live game waits for it to end. ``bot: true`` pairs at once with the bot
    closest to the player's site Elo and opens the live game (``live_game``)."""
    seek = services.create_seek(ledger, body, now, rules)
    response.headers["Location"] = f"{API_V1}/seeks/{seek.id}"
    return seek


@router.get("/seeks", response_model=schemas.SeeksPublic, responses=INVALID)
def list_seeks(
    ledger: LedgerDep,
    now: Now,
    rules: Pairing,
    player: Annotated[str | None, Query(description="this player's seeks")] = None,
    status: Annotated[
        str, Query(description="open (default), paired, cancelled, expired or all")
    ] = "open",
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=500, description="1 to 500")] = 50,
) -> schemas.SeeksPublic:
    """Seeks: the open ones oldest first, each with its player's site Elo, its wait and
    the difference it accepts now; with ``player``, the newest first. Paged: at most
    ``limit`` (500; default 50) from ``offset``, with the ``total``."""
    return services.list_seeks(ledger, now, rules, player, status, offset, limit)


@router.get("/seeks/{seek_id}", response_model=schemas.SeekPublic, responses=NOT_FOUND)
def get_seek(
    seek_id: Annotated[int, Path(ge=1, le=schemas.MAX_OFFSET)],
    ledger: LedgerDep,
    now: Now,
    rules: Pairing,
) -> schemas.SeekPublic:
    """One seek, and the live game it was paired into."""
    return services.get_seek(ledger, seek_id, now, rules)


@router.delete(
    "/seeks/{seek_id}",
    response_model=schemas.SeekPublic,
    responses={**WRITE, **NOT_FOUND, **CONFLICT},
)
def cancel_seek(
    _: Writer,
    seek_id: Annotated[int, Path(ge=1, le=schemas.MAX_OFFSET)],
    ledger: LedgerDep,
    now: Now,
    rules: Pairing,
) -> schemas.SeekPublic:
    """Cancel an open seek; 409 when it was paired, cancelled or has expired."""
    return services.cancel_seek(ledger, seek_id, now, rules)


@router.post("/pair", response_model=schemas.PairPublic, responses=WRITE)
def pair(_: Writer, ledger: LedgerDep, now: Now, rules: Pairing) -> schemas.PairPublic:
    """Run one pairing pass now. The service also pairs by itself every few seconds,
    and ``chessrate pair`` does it from cron."""
    return services.pair(ledger, now, rules)
