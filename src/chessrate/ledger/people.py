"""The ledger's reads about one player (``ledger.people``), for the player's page and
the API: the games list (every game the player played, newest first, paged), the
record in each pool (first rating, peak, wins/draws/losses, rank on the list) and the
rating chart's series (bucketed to at most :data:`MAX_POINTS` points).

A player's games are two index ranges, ``games (white, seq)`` and ``games (black,
seq)`` (migration 0005), read newest first and merged; the changes are the player's
range of the ``changes`` key. Every number stays exact (integer hundredths in, Decimal
out); docs/internals.md has the mechanism.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, and_, func, or_, select

from ..errors import InvalidRecord, NotFound
from ..numbers import from_hundredths
from ..records import microseconds, moment
from ..timecontrol import parse_time_control
from . import common, rows
from .connection import as_utc
from .leaderboards import hundredths_rating
from .schema import annulments, changes, games, players, ratings
from .views import ChartSeries, PlayedGame, PoolSummary, SeriesPoint

if TYPE_CHECKING:
    from .store import Ledger

MAX_POINTS = 500
"""A chart draws at most this many changes (and every annulment)."""

DAY = 86_400_000_000
"""A day in microseconds."""


class People:
    """A ledger's reads about one player (``ledger.people``)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def _key_of(self, conn: Connection, player_id: str) -> int:
        key = common.player_keys(conn, [player_id]).get(player_id)
        if key is None:
            raise NotFound(f"player {player_id}: no such player")
        return key

    def _pool_code(self, pool: str) -> int:
        if pool not in self.ledger.pools:
            raise NotFound(
                f"pool {pool}: not a pool of {self.ledger.system_id} "
                f"({', '.join(self.ledger.pools)})"
            )
        return self.ledger.pools.index(pool)

    # -- the games list -----------------------------------------------------------------

    def games(
        self, player_id: str, offset: int = 0, limit: int = 50
    ) -> tuple[list[PlayedGame], int]:
        """The games ``player_id`` played (rated, unrated, void and annulled ones),
        newest first (commit order), ``limit`` of them from ``offset``; and how many
        there are in all."""
        with self.ledger.reading() as conn:
            key = self._key_of(conn, player_id)
            total = sum(
                conn.execute(
                    select(func.count()).select_from(games).where(side == key)
                ).scalar_one()
                for side in (games.c.white, games.c.black)
            )
            wanted = offset + limit
            newest: set[int] = set()
            for side in (games.c.white, games.c.black):
                query = select(games.c.seq).where(side == key).order_by(games.c.seq.desc())
                newest.update(conn.execute(query.limit(wanted)).scalars())
            seqs = sorted(newest, reverse=True)[offset:wanted]
            if not seqs:
                return [], int(total)
            query = select(games).where(games.c.seq.in_(seqs)).order_by(games.c.seq.desc())
            found = conn.execute(query).all()
            opponents = {r.black if r.white == key else r.white for r in found}
            people = {
                r.key: (r.id, r.name)
                for r in conn.execute(
                    select(players.c.key, players.c.id, players.c.name).where(
                        players.c.key.in_(sorted(opponents | {key}))
                    )
                )
            }
            codes = range(len(self.ledger.pools))
            own = conn.execute(
                select(changes)
                .where(changes.c.player == key, changes.c.pool.in_(codes), changes.c.seq.in_(seqs))
                .order_by(changes.c.seq, changes.c.slot)
            ).all()
            by_seq: dict[int, list[Any]] = {}
            for change in own:
                by_seq.setdefault(change.seq, []).append(change)
            # the opponent's changes at each game: the reason's words (corr names each
            # change), and without a change of the player's own (a bot, an unrated
            # game) the opponent's rating before the game
            pairs = [
                and_(changes.c.player == (r.black if r.white == key else r.white),
                     changes.c.seq == r.seq)
                for r in found
            ]  # fmt: skip
            query = select(changes).where(changes.c.pool.in_(codes), changes.c.game.is_(None),
                                          or_(*pairs))  # fmt: skip
            theirs: dict[int, list[Any]] = {}
            for change in conn.execute(query.order_by(changes.c.seq, changes.c.slot)):
                theirs.setdefault(change.seq, []).append(change)
            # a game that moved neither player (casual, void, corr C4 for both): the
            # opponent's rating in the game's pool after the opponent's last change
            # before it, when the pool is known and the opponent had one
            earlier: dict[int, int] = {}
            for r in found:
                if r.seq in by_seq or any(c.before is not None for c in theirs.get(r.seq, [])):
                    continue
                code = self._game_pool(r)
                if code is None:
                    continue
                opponent = r.black if r.white == key else r.white
                last = conn.execute(
                    select(changes.c.after)
                    .where(changes.c.player == opponent, changes.c.pool == code,
                           changes.c.seq < r.seq)
                    .order_by(changes.c.seq.desc())
                    .limit(1)
                ).scalar()  # fmt: skip
                if last is not None:
                    earlier[r.seq] = last
            annulled = [r.id for r in found if r.annulled]
            reasons = dict(
                conn.execute(
                    select(annulments.c.game_id, annulments.c.reason).where(
                        annulments.c.game_id.in_(annulled)
                    )
                ).all()
            ) if annulled else {}  # fmt: skip
        system = self.ledger.system

        def name(person: int) -> str:
            return str(people[person][0])

        played = []
        for r in found:
            mine = by_seq.get(r.seq, [])
            other = r.black if r.white == key else r.white
            other_changes = theirs.get(r.seq, [])
            first = mine[0].opponent_rating if mine else None
            if first is None:  # the opponent's rating before the game, when it had one
                first = next((c.before for c in other_changes if c.before is not None), None)
            if first is None:
                first = earlier.get(r.seq)
            record = rows.record_from_row(r._mapping, name)
            kept = tuple(rows.change_from_row(system, c._mapping, name, r.id) for c in mine)
            every = sorted([*mine, *other_changes], key=lambda c: c.slot)
            reason = system.reason(
                record, r.reason,
                tuple(rows.change_from_row(system, c._mapping, name, r.id) for c in every),
            )  # fmt: skip
            played.append(
                PlayedGame(
                    seq=r.seq,
                    record=record,
                    colour="white" if r.white == key else "black",
                    opponent=name(other),
                    opponent_name=people[other][1],
                    opponent_rating=None if first is None else from_hundredths(first),
                    outcome=rows.OUTCOMES[r.outcome].value,
                    annulled=bool(r.annulled),
                    annulment=reasons.get(r.id),
                    changes=kept,
                    reason=reason,
                )
            )
        return played, int(total)

    def _game_pool(self, row: Any) -> int | None:
        """The position of a stored game's pool among the ledger's pools, when its
        system says it from the time control alone (corr's one pool, arena's pool
        of the control, site's type of the control); else None."""
        pools = self.ledger.pools
        if len(pools) == 1:
            return 0
        system: Any = self.ledger.system
        control = None if row.time_control is None else parse_time_control(row.time_control)
        pool: str | None = None
        try:
            if hasattr(system, "pool_of"):
                pool = system.pool_of(rows.record_from_row(row._mapping, lambda key: str(key)))
            elif control is not None and hasattr(system, "control_type"):
                kind = system.control_type(control)
                pool = None if kind is None else str(kind.value)
        except (InvalidRecord, ValueError):  # a control no pool takes (a casual game's)
            return None
        return pools.index(pool) if pool in pools else None

    # -- the record in a pool -----------------------------------------------------------

    def pool_summaries(self, player_id: str) -> list[PoolSummary]:
        """The player's record in every pool with a change or a rating, in the system's
        pool order: first rating, peak (and its game), wins/draws/losses of rated games
        (annulled games left out) and the rank on the list."""
        with self.ledger.reading() as conn:
            key = self._key_of(conn, player_id)
            # The player's own changes by pool and score (no join: the changes' key
            # range), less those of annulled games (an annulment's change names its
            # game; few), so the 20,000 changes of a busy player are read once.
            counted = (
                select(changes.c.pool, changes.c.score, func.count())
                .where(changes.c.player == key, changes.c.game.is_(None))
                .group_by(changes.c.pool, changes.c.score)
            )
            scores: dict[int, list[int]] = {}
            for pool, score, count in conn.execute(counted):
                scores.setdefault(pool, [0, 0, 0])[score] = int(count)
            annulled = select(changes.c.game).where(
                changes.c.player == key, changes.c.game.is_not(None)
            )
            voided = conn.execute(
                select(changes.c.pool, changes.c.score, changes.c.seq).where(
                    changes.c.player == key,
                    changes.c.game.is_(None),
                    changes.c.seq.in_(annulled.scalar_subquery()),
                )
            ).all()
            for pool, score, _seq in voided:
                scores[pool][score] -= 1
            void_seqs = {seq for _pool, _score, seq in voided}
            rated = dict(
                conn.execute(
                    select(ratings.c.pool, ratings.c.listed).where(ratings.c.player_id == player_id)
                ).all()
            )
            found = []
            for code, pool in enumerate(self.ledger.pools):
                first = conn.execute(
                    select(changes.c.before)
                    .where(changes.c.player == key, changes.c.pool == code)
                    .order_by(changes.c.seq)
                    .limit(1)
                ).first()
                if first is None and pool not in rated:
                    continue
                # the highest rating after a game, the earliest first, annulled games
                # skipped: read down from the top until a game that counts
                highest = conn.execute(
                    select(changes.c.after, changes.c.seq)
                    .where(
                        changes.c.player == key, changes.c.pool == code,
                        changes.c.game.is_(None), changes.c.after.is_not(None),
                    )
                    .order_by(changes.c.after.desc(), changes.c.seq)
                    .limit(len(void_seqs) + 1)
                ).all()  # fmt: skip
                top = next((r for r in highest if r.seq not in void_seqs), None)
                peak = None
                if top is not None:
                    game = conn.execute(
                        select(games.c.played_at, games.c.id).where(games.c.seq == top.seq)
                    ).one()
                    peak = (top.after, game.played_at, game.id)
                losses, draws, wins = scores.get(code, [0, 0, 0])
                found.append(
                    PoolSummary(
                        pool=pool,
                        first_rating=hundredths_rating(None if first is None else first.before),
                        peak=None if peak is None else from_hundredths(peak[0]),
                        peak_at=None if peak is None else moment(peak[1]),
                        peak_game=None if peak is None else peak[2],
                        wins=wins,
                        draws=draws,
                        losses=losses,
                        rank=self._rank_on_list(player_id, pool) if rated.get(pool) else None,
                    )
                )
        return found

    def _rank_on_list(self, player_id: str, pool: str) -> int | None:
        """The player's place on the pool's list of everyone listed (the leaderboard's
        order, :meth:`Boards.rank <chessrate.ledger.leaderboards.Boards.rank>`); None when the
        player is not listed."""
        try:
            return self.ledger.boards.rank(pool, player_id)[0]
        except NotFound:
            return None

    # -- the chart ----------------------------------------------------------------------

    def chart_series(
        self, player_id: str, pool: str, days: int | None = None, limit: int = MAX_POINTS
    ) -> ChartSeries:
        """The changes of the player's rating in ``pool`` in the last ``days`` before
        the pool's last change (None: all of them), with the rating the range starts
        from. More than ``limit`` are bucketed in SQL as :func:`bucketed` does in
        Python (the first, the last, every annulment and its game, and each of the
        equal spans of time's lowest and highest rating), so only the drawn points are
        read. An annulment is drawn at the game it annuls (its ``at`` is the game's
        moment, ``confirmed`` its own), so ranges count back from the last game."""
        code = self._pool_code(pool)
        with self.ledger.reading() as conn:
            key = self._key_of(conn, player_id)
            mine = and_(changes.c.player == key, changes.c.pool == code)
            # an annulment is drawn at the game it annuls: the game's moment, and the
            # player's rating after the game (its own change's) for the marker
            own_change = changes.alias("own_change")
            reversed_ = conn.execute(
                select(
                    changes.c.seq, changes.c.before, changes.c.after, changes.c.opponent,
                    games.c.id, games.c.played_at, annulments.c.at,
                    own_change.c.after.label("game_after"),
                )
                .join(games, games.c.seq == changes.c.game)
                .join(annulments, annulments.c.game_id == games.c.id)
                .outerjoin(own_change, and_(own_change.c.player == changes.c.player,
                                            own_change.c.pool == changes.c.pool,
                                            own_change.c.seq == games.c.seq))
                .where(mine, changes.c.game.is_not(None))
            ).all()  # fmt: skip
            events = [
                SeriesPoint(r.seq, r.played_at, r.after, _moved(r.before, r.after), r.id,
                            "annulment", None, microseconds(as_utc(r.at)), r.game_after)
                for r in reversed_ if r.after is not None
            ]  # fmt: skip
            against = {r.seq: r.opponent for r in reversed_}
            annulled = sorted({e.game for e in events})
            own = and_(mine, changes.c.game.is_(None))
            base = (
                select(
                    changes.c.seq,
                    changes.c.before,
                    changes.c.after,
                    games.c.played_at,
                    games.c.id,
                    changes.c.opponent,
                )
                .join(games, games.c.seq == changes.c.seq)
                .where(own, changes.c.after.is_not(None))
            )
            span = select(func.count(), func.min(games.c.played_at), func.max(games.c.played_at),
                          func.min(changes.c.seq), func.max(changes.c.seq))  # fmt: skip
            span = span.select_from(changes).join(games, games.c.seq == changes.c.seq)
            span = span.where(own, changes.c.after.is_not(None))
            count, first_at, last_at, first_seq, last_seq = conn.execute(span).one()
            moments = [m for m in (last_at, *(e.at for e in events)) if m is not None]
            if not moments:
                return ChartSeries(pool, None, (), 0, None)
            last = max(moments)
            since = None if days is None else last - days * DAY
            if since is not None:
                events = [e for e in events if e.at >= since]
                base = base.where(games.c.played_at >= since)
                span = span.where(games.c.played_at >= since)
                count, first_at, last_at, first_seq, last_seq = conn.execute(span).one()
            if count + len(events) <= limit:
                found = conn.execute(base).all()
            else:
                spans = max(1, (limit - 2 * len(events) - 2) // 2)  # an annulment and its game
                width = (last_at - first_at) // spans + 1
                bucket = ((games.c.played_at - first_at) // width).label("bucket")
                inner = base.add_columns(bucket).subquery()
                ends = (
                    select(
                        inner.c.bucket,
                        func.min(inner.c.after).label("low"),
                        func.max(inner.c.after).label("high"),
                    )
                    .group_by(inner.c.bucket)
                    .subquery()
                )
                query = (
                    select(inner)
                    .join(ends, inner.c.bucket == ends.c.bucket)
                    .where(
                        or_(
                            inner.c.after == ends.c.low,
                            inner.c.after == ends.c.high,
                            inner.c.seq.in_((first_seq, last_seq)),
                            inner.c.id.in_(annulled),
                        )
                    )
                )
                found = _first_of_each(conn.execute(query).all(), set(annulled))
            start = self._chart_start(conn, mine, since)
            keys = {r.opponent for r in found} | set(against.values())
            named = conn.execute(
                select(players.c.key, players.c.id, players.c.name).where(players.c.key.in_(keys))
            ).all()
        names = {r.key: r.name or r.id for r in named}
        points = [
            SeriesPoint(r.seq, r.played_at, r.after, _moved(r.before, r.after), r.id, "game",
                        names.get(r.opponent))
            for r in found
        ]  # fmt: skip
        events = [replace(e, opponent=names.get(against[e.seq])) for e in events]
        return ChartSeries(pool, start, _in_order([*points, *events]), count + len(events), last)

    def _chart_start(
        self, conn: Connection, mine: Any, since: int | None
    ) -> tuple[int, int] | None:
        """Where a chart's line starts: the first change's ``before`` (the whole
        history), or the rating after the last game before ``since``."""
        moment_of = func.coalesce(changes.c.game, changes.c.seq)
        query = select(changes.c.before, changes.c.after, games.c.played_at).join(
            games, games.c.seq == moment_of
        )
        if since is None:
            row = conn.execute(query.where(mine).order_by(changes.c.seq).limit(1)).first()
            if row is None or row.before is None:
                return None
            return row.played_at, row.before
        earlier = and_(mine, changes.c.game.is_(None), games.c.played_at < since)
        row = conn.execute(query.where(earlier).order_by(changes.c.seq.desc()).limit(1)).first()
        if row is None or row.after is None:
            return self._chart_start(conn, mine, None)
        return since, row.after


def _moved(before: int | None, after: int | None) -> int | None:
    return None if before is None or after is None else after - before


def _first_of_each(found: Sequence[Any], annulled: set[str]) -> list[Any]:
    """Of the rows a bucket query returns (ties: every row at a bucket's lowest or
    highest rating), the first (by seq) at each bucket's lowest and highest, the
    range's first and last rows, and the rows of the ``annulled`` games (an
    annulment's marker sits on its game's point)."""
    kept: dict[tuple[int, int], Any] = {}
    ends: dict[str, Any] = {}
    for row in sorted(found, key=lambda r: r.seq):
        kept.setdefault((row.bucket, row.after), row)
        ends.setdefault("first", row)
        ends["last"] = row
    lows: dict[int, Any] = {}
    highs: dict[int, Any] = {}
    for (bucket, after), row in kept.items():
        if bucket not in lows or after < lows[bucket].after:
            lows[bucket] = row
        if bucket not in highs or after > highs[bucket].after:
            highs[bucket] = row
    kept_annulled = (r for r in found if r.id in annulled)
    rows = {r.seq: r for r in (*lows.values(), *highs.values(), *ends.values(), *kept_annulled)}
    return list(rows.values())


def _in_order(points: Sequence[SeriesPoint]) -> tuple[SeriesPoint, ...]:
    """The games' points in commit order, each moment no earlier than the one before
    it (a game rated after a later-played one shows at that later moment), and each
    annulment right after the game it annuls, at that game's moment (else, the game
    not drawn, at the last point of its game's moment)."""
    ordered: list[SeriesPoint] = []
    latest = None
    for point in sorted((p for p in points if p.kind == "game"), key=lambda p: p.seq):
        latest = point.at if latest is None else max(latest, point.at)
        ordered.append(point if point.at == latest else replace(point, at=latest))
    for event in sorted((p for p in points if p.kind != "game"), key=lambda p: p.seq):
        place = next((n for n, p in enumerate(ordered) if p.game == event.game), None)
        if place is None:
            place = sum(1 for p in ordered if p.at <= event.at) - 1
        at = ordered[place].at if place >= 0 else event.at
        ordered.insert(place + 1, replace(event, at=at))
    return tuple(ordered)


def bucketed(points: Sequence[SeriesPoint], limit: int = MAX_POINTS) -> tuple[SeriesPoint, ...]:
    """At most ``limit`` of ``points`` (in drawing order): all of them when they are
    few; else every annulment and its game's point and, of the games' points, the
    first, the last, and the
    lowest and the highest rating of each of (``limit`` - those) / 2 equal spans of
    the games' time, in order (the rule :meth:`People.chart_series` applies in
    SQL)."""
    if len(points) <= limit:
        return tuple(points)
    events = [p for p in points if p.kind != "game"]
    games = [p for p in points if p.kind == "game"]
    spans = max(1, (limit - 2 * len(events) - 2) // 2)  # an annulment and its game
    first, last = games[0].at, games[-1].at
    width = (last - first) // spans + 1
    kept = {games[0].seq: games[0], games[-1].seq: games[-1]}
    kept.update((p.seq, p) for p in events)
    annulled = {p.game for p in events}
    kept.update((p.seq, p) for p in games if p.game in annulled)
    buckets: dict[int, list[SeriesPoint]] = {}
    for point in games:
        buckets.setdefault((point.at - first) // width, []).append(point)
    for inside in buckets.values():
        low = min(inside, key=lambda p: (p.after, p.seq))
        high = max(inside, key=lambda p: (p.after, -p.seq))
        kept[low.seq], kept[high.seq] = low, high
    order = {p.seq: n for n, p in enumerate(points)}
    return tuple(sorted(kept.values(), key=lambda p: order[p.seq]))


__all__ = ["MAX_POINTS", "People", "bucketed"]
