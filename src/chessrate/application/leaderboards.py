"""Leaderboards: a pool's list, best first and paged (its established players by the
system's rule, or everyone listed), a player's rank on it, and each pool's counts.
"""

from __future__ import annotations

from datetime import UTC, date

from pydantic import BaseModel, Field

from ..ledger import Ledger
from ..ledger.views import RatingView
from .common import RatingPublic, pools_of, rating_public

# -- answers ----------------------------------------------------------------------------


class LeaderboardEntryPublic(RatingPublic):
    rank: int | None = Field(
        description="the position on the list; null for an established player not on it "
        "because he is inactive (`inactive`)"
    )
    state_words: str = Field(
        description="the state in words (`provisional (7 of 10 games)`, `established, "
        "inactive since 2026-03-02`)"
    )
    inactive_since: date | None = Field(
        default=None,
        description="site: established but without a rated game in the pool in the last "
        "`active_days`: the first day he was inactive (null: active, or no activity rule)",
    )


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
    inactive: list[LeaderboardEntryPublic] = Field(
        default=[],
        description="site, the established list: the players established but inactive (no "
        "rated game in the pool in the last `active_days`), best first, at most `limit`, "
        "unranked, each with `inactive_since`",
    )
    inactive_total: int = Field(default=0, description="how many such players there are")


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
    day = None if played is None else played.astimezone(UTC).date()

    def entry(row: RatingView, rank: int | None) -> LeaderboardEntryPublic:
        said = words(row.state, row.games)
        since = None
        if rule is not None and rule.inactive(row.state, row.games, row.last_played, day):
            since = rule.inactive_from(row.last_played)
            said += f", inactive since {since}" if since else ", inactive (no rated game)"
        return LeaderboardEntryPublic(
            rank=rank, state_words=said, inactive_since=since,
            **rating_public(row, row.listed).model_dump(),
        )  # fmt: skip

    entries = [entry(row, offset + n) for n, row in enumerate(rows, start=1)]
    inactive: list[LeaderboardEntryPublic] = []
    inactive_total = 0
    if established_only and rule is not None and rule.active_days is not None:
        resting, inactive_total = ledger.boards.leaderboard(
            pool, 0, limit, established_only=True, active_days=active_days, inactive=True
        )
        inactive = [entry(row, None) for row in resting]
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
        inactive=inactive,
        inactive_total=inactive_total,
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
