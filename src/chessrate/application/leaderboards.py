"""Leaderboards: a pool's list, best first and paged (its established players by the
system's rule, or everyone listed), a player's rank on it, and each pool's counts.
"""

from __future__ import annotations

from datetime import UTC, date

from pydantic import BaseModel, Field

from ..ledger import Ledger
from .common import RatingPublic, pools_of, rating_public

# -- answers ----------------------------------------------------------------------------


class LeaderboardEntryPublic(RatingPublic):
    rank: int
    state_words: str = Field(description="the state in words (`provisional (7 of 10 games)`)")


class LeaderboardPublic(BaseModel):
    system: str
    pool: str
    offset: int
    limit: int
    total: int = Field(description="players on this list")
    established_only: bool = Field(
        description="true: the pool's established players (the default); false: everyone "
        "listed (`all=true`, or a system whose list is a period's published list)"
    )
    listed: str = Field(description="who is on this list, in words")
    ledger_date: date | None = Field(
        description="the day (UTC) of the ledger's most recently recorded game, which "
        "'active' and memberships are counted on"
    )
    active_days: int | None = Field(
        description="site: an established player played a rated game in the pool in the "
        "last this many days before the ledger's date"
    )
    active_since: date | None = Field(description="site: the first day such a game counts")
    entries: list[LeaderboardEntryPublic]


class LeaderboardRankPublic(BaseModel):
    """Where a player stands on a pool's list."""

    system: str
    pool: str
    player: str
    name: str | None
    rank: int
    total: int = Field(description="players on this list")
    established_only: bool
    offset: int = Field(description="the offset of the list's page (of `limit`) with the player")
    limit: int
    page: int = Field(description="that page's number, from 1")


class PoolPublic(BaseModel):
    pool: str
    total: int = Field(description="established players (the default list)")
    established: int = Field(description="established players (the default list)")
    everyone: int = Field(description="every listed player (`all=true`)")


class LeaderboardsPublic(BaseModel):
    system: str
    pools: list[PoolPublic]


# -- services ---------------------------------------------------------------------------


def leaderboard(
    ledger: Ledger,
    pool: str,
    offset: int,
    limit: int,
    everyone: bool = False,
    active_days: int | None = None,
) -> LeaderboardPublic:
    """A pool's list: its established players (the system's rule; ``active_days`` for
    ``site``), or ``everyone`` listed; paged, with the total and who is listed."""
    rule = ledger.boards.established_rule(pool, active_days)
    established_only = rule is not None and not everyone
    played = ledger.boards.ledger_date()
    rows, total = ledger.boards.leaderboard(
        pool, offset, limit, established_only=established_only, active_days=active_days
    )
    words = ledger.system.standing if ledger.info.rates_games else (lambda s, _g: s)
    entries = [
        LeaderboardEntryPublic(
            rank=offset + n,
            state_words=words(row.state, row.games),
            **rating_public(row, row.listed).model_dump(),
        )
        for n, row in enumerate(rows, start=1)
    ]
    day = None if played is None else played.astimezone(UTC).date()
    active = rule is not None and rule.active_days is not None
    if rule is None:
        listed = "Every player on the period's published list"
    elif established_only:
        listed = rule.describe(day)
    else:
        listed = "Everyone with a rating in the pool, established or not"
    return LeaderboardPublic(
        system=ledger.system_id,
        pool=pool,
        offset=offset,
        limit=limit,
        total=total,
        established_only=established_only,
        listed=listed,
        ledger_date=day,
        active_days=active_days if active else None,
        active_since=rule.since(day) if rule is not None and active else None,
        entries=entries,
    )


def leaderboard_rank(
    ledger: Ledger,
    pool: str,
    player_id: str,
    limit: int,
    everyone: bool = False,
    active_days: int | None = None,
) -> LeaderboardRankPublic:
    """Where a player stands on a pool's list (the one :func:`leaderboard` gives with
    the same ``everyone``), and the offset of the page of ``limit`` that shows them;
    NotFound says why a player is not on it."""
    established_only = (
        not everyone and ledger.boards.established_rule(pool, active_days) is not None
    )
    rank, total = ledger.boards.rank(
        pool, player_id, established_only=established_only, active_days=active_days
    )
    page = (rank - 1) // limit
    return LeaderboardRankPublic(
        system=ledger.system_id,
        pool=pool,
        player=player_id,
        name=ledger.players.names([player_id]).get(player_id),
        rank=rank,
        total=total,
        established_only=established_only,
        offset=page * limit,
        limit=limit,
        page=page + 1,
    )


def leaderboards(ledger: Ledger, active_days: int | None = None) -> LeaderboardsPublic:
    """Each pool with the number of its established players and of everyone listed."""
    pools = []
    for pool in pools_of(ledger):
        everyone = ledger.boards.leaderboard(pool, 0, 0)[1]
        established = everyone
        if ledger.boards.established_rule(pool, active_days) is not None:
            established = ledger.boards.leaderboard(
                pool, 0, 0, established_only=True, active_days=active_days
            )[1]
        pools.append(
            PoolPublic(pool=pool, total=established, established=established, everyone=everyone)
        )
    return LeaderboardsPublic(system=ledger.system_id, pools=pools)
