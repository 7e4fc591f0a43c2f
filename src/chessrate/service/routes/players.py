"""Players: create, change attributes, read (every pool), search, history."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Body, Query, Response, status

from ...application import players
from ...application.common import LIST_PAGE_MAX, request_body
from ...application.deps import ActiveDays, LedgerDep, Now, Writer
from ...application.settings import API_V1
from .guard import TokenFirstRoute
from .paging import ListLimit, Offset
from .responses import INVALID, NOT_FOUND, WRITE

router = APIRouter(prefix="/players", tags=["players"], route_class=TokenFirstRoute)

JsonObject = Annotated[dict[str, Any], Body()]


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=players.PlayerPublic,
    openapi_extra=request_body(players.PlayerCreate),
    responses={**WRITE, **INVALID, 409: {"description": "the player id exists"}},
)
def create_player(
    body: JsonObject, ledger: LedgerDep, now: Now, _: Writer, response: Response
) -> players.PlayerPublic:
    """Register a player with their attributes (membership, bot, imported ratings)."""
    player = players.create_player(ledger, body, now)
    response.headers["Location"] = f"{API_V1}/players/{quote(player.id, safe='')}"
    return player


@router.get("", response_model=players.PlayersPublic)
def search_players(
    ledger: LedgerDep,
    q: Annotated[str, Query(max_length=200, description="part of an id or a name")] = "",
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=200, description="1 to 200; default 20")] = 20,
) -> players.PlayersPublic:
    """Players whose id or name contains ``q``, compared without case or accents
    (``novak`` finds ``Novák``; ``%`` and ``_`` match themselves): those whose id or
    name starts with ``q`` first, then by id; each with its current ratings. Paged:
    at most ``limit`` (200; default 20) from ``offset``; ``truncated`` says more
    players match after these."""
    return players.search_players(ledger, q, limit, offset)


@router.get("/{player_id}", response_model=players.PlayerPublic, responses=NOT_FOUND)
def get_player(player_id: str, ledger: LedgerDep) -> players.PlayerPublic:
    """A player's attributes and rating in every pool (exact, displayed, state, games)."""
    return players.get_player(ledger, player_id)


@router.patch(
    "/{player_id}",
    response_model=players.PlayerPublic,
    openapi_extra=request_body(players.PlayerUpdate),
    responses={**WRITE, **INVALID, **NOT_FOUND},
)
def update_player(
    player_id: str, body: JsonObject, ledger: LedgerDep, now: Now, _: Writer
) -> players.PlayerPublic:
    """Change some attributes; the others stay. ``null`` removes an attribute."""
    return players.update_player(ledger, player_id, body, now)


@router.get(
    "/{player_id}/history/{pool}", response_model=players.HistoryPublic, responses=NOT_FOUND
)
def history(
    player_id: str,
    pool: str,
    ledger: LedgerDep,
    offset: Offset = 0,
    limit: ListLimit = LIST_PAGE_MAX,
) -> players.HistoryPublic:
    """The changes of the player's rating in the pool, oldest first: games and
    annulments, each with its explanation. Paged: at most ``limit`` (1,000, the
    default) from ``offset``, with the ``total``."""
    return players.history(ledger, player_id, pool, offset, limit)


@router.get("/{player_id}/games", response_model=players.PlayerGamesPublic, responses=NOT_FOUND)
def player_games(
    player_id: str,
    ledger: LedgerDep,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=players.GAMES_PAGE_MAX, description="1 to 200")] = 50,
) -> players.PlayerGamesPublic:
    """Every game the player played (rated, unrated, void, annulled), newest first,
    paged (at most ``limit``, 200; default 50, from ``offset``, with the ``total``):
    colour, opponent and the opponent's rating, result, time control as stored and as
    players write it, outcome, and the player's changes at the game."""
    return players.player_games(ledger, player_id, offset, limit)


@router.get("/{player_id}/stats", response_model=players.PlayerStatsPublic, responses=NOT_FOUND)
def player_stats(
    player_id: str, ledger: LedgerDep, active_days: ActiveDays
) -> players.PlayerStatsPublic:
    """The player's record in every pool: the state in words, the first rating, the
    peak and its game, wins/draws/losses (annulled games left out), the rank on the
    pool's leaderboard (the one `GET /leaderboards/{pool}` gives) or why there is none,
    and the place among everyone listed."""
    return players.player_stats(ledger, player_id, active_days)
