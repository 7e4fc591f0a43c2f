"""Live games (site S7-S9): open, move, finish, abort; otb registration, confirmation
and dispute; the sweeper that applies the deadlines. Times are the service's clock."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Body, Query, Response, status

from ...application import live
from ...application.common import request_body
from ...application.deps import LedgerDep, Now, Writer
from ...application.settings import API_V1
from ...systems.site_live import LiveStatus
from .guard import TokenFirstRoute
from .paging import Offset
from .responses import CONFLICT, INVALID, NOT_FOUND, WRITE

router = APIRouter(tags=["live games"], route_class=TokenFirstRoute)

ACTION = {**WRITE, **INVALID, **NOT_FOUND, **CONFLICT}


@router.post(
    "/live-games",
    status_code=status.HTTP_201_CREATED,
    response_model=live.LiveGamePublic,
    openapi_extra=request_body(live.LiveGameCreate),
    responses={
        200: {"model": live.LiveGamePublic, "description": "opened before, the same game"},
        **WRITE,
        **INVALID,
        **CONFLICT,
    },
)
def open_live_game(
    _: Writer,
    body: Annotated[dict[str, Any], Body()],
    ledger: LedgerDep,
    now: Now,
    response: Response,
) -> live.LiveGamePublic:
    """Open a game now (201): its first-move deadlines start (S8). With ``venue: otb``,
    ``result`` and ``by``: register an over-the-board result, which the other player
    confirms (then it is rated) or disputes (S2)."""
    game, created = live.open_live_game(ledger, body, now)
    response.status_code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
    response.headers["Location"] = f"{API_V1}/live-games/{quote(game.id, safe='')}"
    return game


@router.post("/live-games/{game_id}/moves", response_model=live.LiveGamePublic, responses=ACTION)
def live_move(
    _: Writer, game_id: str, body: live.LiveMoveCreate, ledger: LedgerDep, now: Now
) -> live.LiveGamePublic:
    """Record the next ply at the service's time. The same ply again changes nothing.
    A move after the game's deadline ends the game by that deadline and answers 409.
    When every ply carried its move, a move that checkmates, stalemates or leaves
    neither side the material to mate ends the game with that result: the answer is
    the ended game."""
    return live.live_move(ledger, game_id, body, now)


@router.post("/live-games/{game_id}/finish", response_model=live.LiveGamePublic, responses=ACTION)
def finish_live_game(
    _: Writer, game_id: str, body: live.LiveFinish, ledger: LedgerDep, now: Now
) -> live.LiveGamePublic:
    """End the game (result, termination) and rate it like a submitted game: void
    before both sides moved, a rated loss after (S8); a bot never loses on time or by
    abandonment (S7). With the moves known, the result must be the one their last
    position makes, and a loss on time cannot be against a side without mating
    material (422); after a move that ended the game, the same result answers the
    ended game."""
    return live.finish_live_game(ledger, game_id, body, now)


@router.post("/live-games/{game_id}/abort", response_model=live.LiveGamePublic, responses=ACTION)
def abort_live_game(
    _: Writer, game_id: str, body: live.LiveBy, ledger: LedgerDep, now: Now
) -> live.LiveGamePublic:
    """Either player aborts the game before both sides have moved: void (S8)."""
    return live.abort_live_game(ledger, game_id, body, now)


@router.post("/live-games/{game_id}/confirm", response_model=live.LiveGamePublic, responses=ACTION)
def confirm_live_game(
    _: Writer, game_id: str, body: live.LiveBy, ledger: LedgerDep, now: Now
) -> live.LiveGamePublic:
    """The other player confirms a registered otb result: the game is rated (S2)."""
    return live.confirm_live_game(ledger, game_id, body, now)


@router.post("/live-games/{game_id}/dispute", response_model=live.LiveGamePublic, responses=ACTION)
def dispute_live_game(
    _: Writer, game_id: str, body: live.LiveDispute, ledger: LedgerDep, now: Now
) -> live.LiveGamePublic:
    """The other player disputes a registered otb result: it is never rated (S2)."""
    return live.dispute_live_game(ledger, game_id, body, now)


@router.get("/live-games", response_model=live.LiveGamesPublic, responses=INVALID)
def list_live_games(
    ledger: LedgerDep,
    status: Annotated[
        str | None,
        Query(
            description="open, awaiting_confirmation, disputed or ended",
            json_schema_extra={"enum": [s.value for s in LiveStatus]},
        ),
    ] = None,
    player: Annotated[str | None, Query(description="games of this player")] = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=1000, description="1 to 1,000; default 100")] = 100,
) -> live.LiveGamesPublic:
    """Live games, the most recently opened first, with their deadlines and endings.
    Paged: at most ``limit`` (1,000; default 100) from ``offset``, with the
    ``total``."""
    return live.list_live_games(ledger, status, player, limit, offset)


@router.get("/live-games/{game_id}", response_model=live.LiveGamePublic, responses=NOT_FOUND)
def get_live_game(game_id: str, ledger: LedgerDep) -> live.LiveGamePublic:
    """One live game: moves with their times, the next deadline, how it ended."""
    return live.get_live_game(ledger, game_id)


@router.post("/sweep", response_model=live.SweepPublic, responses=WRITE)
def sweep(_: Writer, ledger: LedgerDep, now: Now) -> live.SweepPublic:
    """Apply every deadline that has passed (S7-S9) now. The service also sweeps by
    itself every few seconds, and ``chessrate sweep`` does it from cron."""
    return live.sweep(ledger, now)
