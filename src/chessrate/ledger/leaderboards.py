"""The ledger's leaderboards: a pool's rating list, best first, paged and counted in
the database; by default only its established players (the system's
:class:`~chessrate.systems.base.Established`, asked in SQL), or everyone listed; a
player's rank in either; and the ledger's date that "active" counts back from.

The ledger's date is the ``played_at`` of its most recently recorded game (the
largest ``seq``: one index step, no scan of ``played_at``, which has no index).

A player's last rated game in a pool is the event that last changed the rating:
``ratings.seq`` is written by ``common.store_states`` (a game's seq, an
annulment's seq, or a player's event seq for an imported rating no game has moved
yet) and by ``bulk.py`` (the seq of each rating's last change, a game's). A game's
seq is its ``games.seq``; an annulment's is ``annulments.seq``, and then the
annulled game's ``played_at`` counts (site S10 reverses that game; the games before
it are not looked up). The annulment is found through its event (``events.seq``, the
key ``annulments.seq`` refers to; its ``ref`` is the game's id), a key lookup per row
(``annulments.seq`` has no index). A player's event is no game: such a rating is not
active. The ledger's part ``ledger.boards`` is :class:`Boards`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    FromClause,
    and_,
    cast,
    false,
    func,
    or_,
    select,
)
from sqlalchemy.dialects.postgresql import JSONB

from ..errors import NotFound
from ..numbers import from_hundredths
from ..records import microseconds, moment
from ..systems.base import Established
from .codec import player_from_json
from .schema import events, games, players, ratings
from .views import RatingView

if TYPE_CHECKING:
    from .store import Ledger


class Boards:
    """A ledger's leaderboards (``ledger.boards``)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def ledger_date(self) -> datetime | None:
        """When the most recently recorded game (largest ``seq``) was played; None
        without games."""
        with self.ledger.reading() as conn:
            return self._ledger_moment(conn)

    def _ledger_moment(self, conn: Connection) -> datetime | None:
        query = select(games.c.played_at).order_by(games.c.seq.desc()).limit(1)
        played = conn.execute(query).scalar()
        return None if played is None else moment(int(played))

    def established_rule(self, pool: str, active_days: int | None) -> Established | None:
        """Who the pool's default list shows (the system's rule); None for a system
        that rates periods (its list is the period's published list)."""
        self._check_pool(pool)
        if not self.ledger.info.rates_games:
            return None
        return self.ledger.system.established(pool, active_days)

    def leaderboard(
        self,
        pool: str,
        offset: int = 0,
        limit: int = 50,
        *,
        established_only: bool = False,
        active_days: int | None = None,
        inactive: bool = False,
    ) -> tuple[list[RatingView], int]:
        """A pool's rating list, best first (rating, then games, then id), paged; and
        the number of players on it. ``established_only``: the system's established
        players only (:meth:`established_rule`; ``active_days`` where the system asks
        for recent play, counted back from the ledger's date), else everyone listed.
        ``inactive`` (with ``established_only``): instead, the players established but
        for that recent play. Where the rule asks for recent play, each view carries the
        day of its last rated game (``last_played``)."""
        with self.ledger.reading() as conn:
            board = self._board(conn, pool, established_only, active_days, inactive)
            columns: list[Any] = [ratings, players.c.name]
            if board.last_played is not None:
                columns.append(board.last_played.label("last_played_at"))
            query = (
                select(*columns)
                .select_from(board.source)
                .where(board.where)
                .order_by(*BOARD_ORDER)
                .offset(offset)
                .limit(limit)
            )
            rows = conn.execute(query).all()
            total = conn.execute(select(func.count()).select_from(board.source).where(board.where))
            count = int(total.scalar_one())
        return [
            rating_view(r, r.name, _day(getattr(r, "last_played_at", None))) for r in rows
        ], count

    def rank(
        self,
        pool: str,
        player_id: str,
        *,
        established_only: bool = False,
        active_days: int | None = None,
    ) -> tuple[int, int]:
        """The player's rank on the list :meth:`leaderboard` gives (1 + the players
        ordered before, under the same order) and the list's length. NotFound says why
        a player is not on it (no such player, no rating in the pool, not listed, not
        established, inactive since a day)."""
        with self.ledger.reading() as conn:
            board = self._board(conn, pool, established_only, active_days)
            mine = conn.execute(
                select(ratings.c.rating_cents, ratings.c.games)
                .select_from(board.source)
                .where(board.where, ratings.c.player_id == player_id)
            ).first()
            if mine is None:
                raise NotFound(self._not_on_board(conn, pool, player_id, active_days))
            rating, played = mine
            if rating is None:
                ahead = ratings.c.rating_cents.is_not(None)
                level = ratings.c.rating_cents.is_(None)
            else:
                ahead = ratings.c.rating_cents > rating
                level = ratings.c.rating_cents == rating
            tie = or_(
                ratings.c.games > played,
                and_(ratings.c.games == played, ratings.c.player_id < player_id),
            )
            before = conn.execute(
                select(func.count())
                .select_from(board.source)
                .where(board.where, or_(ahead, and_(level, tie)))
            ).scalar_one()
            total = conn.execute(select(func.count()).select_from(board.source).where(board.where))
            return int(before) + 1, int(total.scalar_one())

    # -- the query ----------------------------------------------------------------------

    def _check_pool(self, pool: str) -> None:
        if pool not in self.ledger.pools:
            raise NotFound(
                f"pool {pool}: not a pool of {self.ledger.system_id} "
                f"({', '.join(self.ledger.pools)})"
            )

    def _board(
        self,
        conn: Connection,
        pool: str,
        established_only: bool,
        active_days: int | None,
        inactive: bool = False,
    ) -> _Board:
        """The FROM and WHERE of a pool's list (the current ratings and their players;
        for an activity condition, each rating's last game: recent enough, or with
        ``inactive`` not)."""
        self._check_pool(pool)
        rule = self.established_rule(pool, active_days)
        source: FromClause = ratings.join(players, players.c.id == ratings.c.player_id)
        where: list[ColumnElement[bool]] = [ratings.c.pool == pool, ratings.c.listed]
        if rule is None:
            return _Board(source, and_(*where))
        if not established_only:  # everyone; the last games say who is inactive
            if rule.active_days is None:
                return _Board(source, and_(*where))
            source, last_played = _with_last_game(source)
            return _Board(source, and_(*where), last_played)
        played = self._ledger_moment(conn)
        day = None if played is None else played.astimezone(UTC).date()
        if rule.states:
            where.append(ratings.c.state_name.in_(rule.states))
        if rule.min_games:
            where.append(ratings.c.games >= rule.min_games)
        if rule.membership:
            until = self._membership_until()
            where.append(until.is_not(None) if day is None else until >= day.isoformat())
        if rule.active_days is None:
            return _Board(source, and_(*where))
        source, last_played = _with_last_game(source)
        since = rule.since(day)
        active = false() if since is None else func.coalesce(last_played >= _micros(since), false())
        where.append(~active if inactive else active)
        return _Board(source, and_(*where), last_played)

    def _membership_until(self) -> ColumnElement[Any]:
        """The player's ``membership_until`` (ISO day text, NULL for none) from the
        attributes JSON: SQLite's ``json_extract``, PostgreSQL's ``->>``."""
        if self.ledger.postgres:
            until: ColumnElement[Any] = cast(players.c.attributes, JSONB)["membership_until"].astext
            return until
        return func.json_extract(players.c.attributes, "$.membership_until")

    def _not_on_board(
        self, conn: Connection, pool: str, player_id: str, active_days: int | None
    ) -> str:
        """Why a player is not on a pool's list, in words."""
        found = conn.execute(
            select(players.c.attributes, players.c.bot).where(players.c.id == player_id)
        ).first()
        if found is None:
            return f"player {player_id}: no such player"
        source, last_played = _with_last_game(ratings)
        row = conn.execute(
            select(ratings.c.state_name, ratings.c.games, ratings.c.listed, last_played)
            .select_from(source)
            .where(ratings.c.pool == pool, ratings.c.player_id == player_id)
        ).first()
        where = f"player {player_id} is not on the {pool} list"
        if found.bot:
            return f"{where}: bots are not listed"
        if row is None:
            return f"{where}: no rating in the pool"
        if not row.listed:
            return f"{where}: {row.state_name}, not listed in the pool"
        rule = self.established_rule(pool, active_days)
        played = self._ledger_moment(conn)
        day = None if played is None else played.astimezone(UTC).date()
        last = None if row[3] is None else moment(int(row[3])).astimezone(UTC).date()
        until = player_from_json(found.attributes).membership_until
        why = rule.why_not(row.state_name, row.games, last, until, day) if rule else None
        return f"{where} of established players: {why or 'not established'}"


@dataclass(frozen=True, slots=True)
class _Board:
    """A list's FROM and WHERE; with an activity condition, each row's last rated game
    (``last_played``, microseconds)."""

    source: FromClause
    where: ColumnElement[bool]
    last_played: ColumnElement[Any] | None = None


def _day(micros: int | None) -> date | None:
    """A stored moment (microseconds) as its UTC day."""
    return None if micros is None else moment(int(micros)).astimezone(UTC).date()


BOARD_ORDER = (
    ratings.c.rating_cents.is_(None),
    ratings.c.rating_cents.desc(),
    ratings.c.games.desc(),
    ratings.c.player_id,
)
"""A list's order: rated rows best first (a row without a rating, as arena's qualifying
players, last), then more games, then the id. :meth:`Boards.rank` counts
under the same order."""


def _with_last_game(source: FromClause) -> tuple[FromClause, ColumnElement[Any]]:
    """``source`` joined to each rating's last game, and that game's ``played_at``
    (microseconds; NULL when the rating's last event is no game): the event's own
    game, else the game an annulment annulled (see the module's docstring)."""
    own = games.alias("own_game")
    annulment = events.alias("last_annulment")
    annulled = games.alias("annulled_game")
    joined = (
        source.outerjoin(own, own.c.seq == ratings.c.seq)
        .outerjoin(
            annulment, and_(annulment.c.seq == ratings.c.seq, annulment.c.kind == "annulment")
        )
        .outerjoin(annulled, annulled.c.id == annulment.c.ref)
    )
    return joined, func.coalesce(own.c.played_at, annulled.c.played_at)


def _micros(day: date) -> int:
    """A day's start (UTC) in microseconds since 1970, as ``games.played_at``."""
    return microseconds(datetime.combine(day, time(), UTC))


def rating_view(row: Any, name: str | None = None, last_played: date | None = None) -> RatingView:
    """A ``ratings`` row as a view (``last_played``: the day of its last rated game,
    when the list asked)."""
    return RatingView(
        row.player_id, row.pool, hundredths_rating(row.rating_cents), row.display, row.state_name,
        row.games, row.listed, name, last_played,
    )  # fmt: skip


def hundredths_rating(hundredths: int | None) -> Decimal | None:
    """A stored rating (integer hundredths, or NULL) as the exact number."""
    return None if hundredths is None else from_hundredths(hundredths)


__all__ = ["BOARD_ORDER", "Boards", "hundredths_rating", "rating_view"]
