"""Leaderboards: a pool's rating list, best first, paged."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...application import schemas, services
from ...application.deps import LedgerDep
from .responses import NOT_FOUND

router = APIRouter(prefix="/leaderboards", tags=["leaderboards"])


@router.get("", response_model=schemas.LeaderboardsPublic)
def list_pools(ledger: LedgerDep) -> schemas.LeaderboardsPublic:
    """The ledger's pools, each with the number of listed players."""
    return services.leaderboards(ledger)


@router.get("/{pool}", response_model=schemas.LeaderboardPublic, responses=NOT_FOUND)
def leaderboard(
    pool: str,
    ledger: LedgerDep,
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> schemas.LeaderboardPublic:
    """The pool's list from ``offset``, at most ``limit`` rows, and the total."""
    return services.leaderboard(ledger, pool, offset, limit)
