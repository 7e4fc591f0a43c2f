"""Leaderboards: a pool's rating list, best first, paged: by default its established
players (the system's rule), with ``all=true`` everyone listed; a player's rank."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...application import leaderboards
from ...application.deps import ActiveDays, LedgerDep
from .guard import TokenFirstRoute
from .paging import Offset
from .responses import NOT_FOUND

router = APIRouter(prefix="/leaderboards", tags=["leaderboards"], route_class=TokenFirstRoute)

Everyone = Annotated[
    bool,
    Query(
        alias="all",
        description="true: everyone listed in the pool; false (default): established players "
        "only (site: at least the provisional games and a rated game in the pool in the "
        "last CHESSRATE_ACTIVE_DAYS days; arena: rated with a valid membership; corr: "
        "established)",
    ),
]
Limit = Annotated[int, Query(ge=1, le=500, description="1 to 500; default 50")]


@router.get("", response_model=leaderboards.LeaderboardsPublic)
def list_pools(ledger: LedgerDep, active_days: ActiveDays) -> leaderboards.LeaderboardsPublic:
    """The ledger's pools, each with its numbers of established and of listed players
    (one row per pool of the system: a handful, not paged)."""
    return leaderboards.leaderboards(ledger, active_days)


@router.get("/{pool}", response_model=leaderboards.LeaderboardPublic, responses=NOT_FOUND)
def leaderboard(
    pool: str,
    ledger: LedgerDep,
    active_days: ActiveDays,
    offset: Offset = 0,
    limit: Limit = 50,
    everyone: Everyone = False,
) -> leaderboards.LeaderboardPublic:
    """The pool's list from ``offset``, at most ``limit`` rows (500; default 50), the
    total, and which list it is (``established_only``, with the ledger's date it counts
    from)."""
    return leaderboards.leaderboard(ledger, pool, offset, limit, everyone, active_days)


@router.get(
    "/{pool}/players/{player_id}",
    response_model=leaderboards.LeaderboardRankPublic,
    responses=NOT_FOUND,
)
def leaderboard_rank(
    pool: str,
    player_id: str,
    ledger: LedgerDep,
    active_days: ActiveDays,
    limit: Limit = 50,
    everyone: Everyone = False,
) -> leaderboards.LeaderboardRankPublic:
    """A player's rank on the pool's list (``all`` as for the list) and the offset of
    the page of ``limit`` rows that shows them; 404 saying why a player is not on it."""
    return leaderboards.leaderboard_rank(ledger, pool, player_id, limit, everyone, active_days)
