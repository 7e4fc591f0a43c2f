"""Seeks and the pairing pass: a player (the writer acting for them) seeks a
game; the pass pairs compatible seeks by site Elo and opens their live games. Times
are the service's clock."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query, Response, status

from ...application import seeks
from ...application.common import MAX_OFFSET, request_body
from ...application.deps import LedgerDep, Now, Pairing, Writer
from ...application.settings import API_V1
from ...ledger.seeks import SeekStatus
from .guard import TokenFirstRoute
from .paging import Offset
from .responses import CONFLICT, INVALID, NOT_FOUND, WRITE

router = APIRouter(tags=["seeks"], route_class=TokenFirstRoute)


@router.post(
    "/seeks",
    status_code=status.HTTP_201_CREATED,
    response_model=seeks.SeekPublic,
    openapi_extra=request_body(seeks.SeekCreate),
    responses={
        200: {"model": seeks.SeekPublic, "description": "the seek of this key, sent before"},
        **WRITE,
        **INVALID,
        **CONFLICT,
    },
)
def create_seek(
    _: Writer,
    body: Annotated[dict[str, Any], Body()],
    ledger: LedgerDep,
    now: Now,
    rules: Pairing,
    response: Response,
) -> seeks.SeekPublic:
    """Seek a game (201): the pairing pass pairs it with the closest compatible seek
    by site Elo. At most one open seek per player and time control (409 names it); a
    player in a live game waits for it to end. ``bot: true`` pairs at once with the bot
    closest to the player's site Elo and opens the live game (``live_game``). A seek
    sent again with its ``key`` answers the stored seek (200), as it is now."""
    seek, created = seeks.create_seek(ledger, body, now, rules)
    response.headers["Location"] = f"{API_V1}/seeks/{seek.id}"
    if not created:
        response.status_code = status.HTTP_200_OK
    return seek


@router.get("/seeks", response_model=seeks.SeeksPublic, responses=INVALID)
def list_seeks(
    ledger: LedgerDep,
    now: Now,
    rules: Pairing,
    player: Annotated[str | None, Query(description="this player's seeks")] = None,
    status: Annotated[
        str,
        Query(
            description="open (default), paired, cancelled, expired or all",
            json_schema_extra={"enum": [*(s.value for s in SeekStatus), "all"]},
        ),
    ] = "open",
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=500, description="1 to 500")] = 50,
) -> seeks.SeeksPublic:
    """Seeks: the open ones oldest first, each with its player's site Elo, its wait and
    the difference it accepts now; with ``player``, the newest first. Paged: at most
    ``limit`` (500; default 50) from ``offset``, with the ``total``."""
    return seeks.list_seeks(ledger, now, rules, player, status, offset, limit)


@router.get("/seeks/{seek_id}", response_model=seeks.SeekPublic, responses=NOT_FOUND)
def get_seek(
    seek_id: Annotated[int, Path(ge=1, le=MAX_OFFSET)],
    ledger: LedgerDep,
    now: Now,
    rules: Pairing,
) -> seeks.SeekPublic:
    """One seek, and the live game it was paired into."""
    return seeks.get_seek(ledger, seek_id, now, rules)


@router.delete(
    "/seeks/{seek_id}",
    response_model=seeks.SeekPublic,
    responses={**WRITE, **NOT_FOUND, **CONFLICT},
)
def cancel_seek(
    _: Writer,
    seek_id: Annotated[int, Path(ge=1, le=MAX_OFFSET)],
    ledger: LedgerDep,
    now: Now,
    rules: Pairing,
) -> seeks.SeekPublic:
    """Cancel an open seek; 409 when it was paired, cancelled or has expired."""
    return seeks.cancel_seek(ledger, seek_id, now, rules)


@router.post("/pair", response_model=seeks.PairPublic, responses=WRITE)
def pair(_: Writer, ledger: LedgerDep, now: Now, rules: Pairing) -> seeks.PairPublic:
    """Run one pairing pass now. The service also pairs by itself every few seconds,
    and ``chessrate pair`` does it from cron."""
    return seeks.pair(ledger, now, rules)
