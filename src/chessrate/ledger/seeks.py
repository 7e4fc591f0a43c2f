"""Seeks in a ``site`` ledger: made, cancelled, expired, and paired into live games by
the pairing pass (the rules are :mod:`chessrate.systems.site_pairing`'s).

A seek expires at ``expires_at`` (``PairingRules.seek_life``: minutes for a live
control, days for a correspondence one): reads show an open seek past it as expired
at once; the pass (or a new seek of the same player) writes the status.

The pass is one transaction. On PostgreSQL it first takes a transaction-scoped
advisory lock with ``pg_try_advisory_xact_lock`` (another pass running: this one does
nothing, the other sees every seek), because the matching is a choice over the whole
pool: two passes splitting it would pair worse and leave pairs for later. It then
locks the open seeks with ``FOR UPDATE SKIP LOCKED`` (a seek being cancelled is left
for the next pass) and opens each pair's live game through
:meth:`LiveGames.open_in` in the same transaction that marks the two seeks paired, so
a seek is paired once however many workers run the pass. On SQLite the write lock
taken at ``BEGIN IMMEDIATE`` serialises passes. Locks: seeks, then the live game row
it inserts; a seek's creation locks its player's row, the pass no player row, so
neither waits for the other in a cycle.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, delete, func, insert, or_, select, text, update

from ..errors import Conflict, InvalidInput, InvalidRecord, NotFound
from ..numbers import from_hundredths
from ..records import Player
from ..systems.site import SITE, SiteSystem
from ..systems.site_live import LiveGame, LiveStatus, Side
from ..systems.site_pairing import (
    PairingRules,
    Seek,
    choose_pairs,
    closest_bot,
    colour_balance,
    colours,
)
from ..timecontrol import TimeControl, parse_time_control
from . import codec, common
from .connection import as_utc
from .live import LiveGames, LiveView
from .marks import marked_in
from .schema import games, live_games, players, ratings, seeks

if TYPE_CHECKING:
    from .store import Ledger

log = logging.getLogger(__name__)

PAIR_LOCK = 0x5EE6_0016
"""The PostgreSQL advisory lock key of the pairing pass."""


class SeekStatus(StrEnum):
    OPEN = "open"
    PAIRED = "paired"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


@dataclass(frozen=True, slots=True)
class SeekView:
    """A seek as stored, with its player's current site Elo (``rating``, ``games``:
    the site Elo's rated games, for S6's ``?``); an open seek past its expiry shows as
    expired."""

    id: int
    player: str
    time_control: TimeControl
    rated: bool
    min_rating: int | None
    max_rating: int | None
    bot: bool
    status: SeekStatus
    created_at: datetime
    expires_at: datetime
    rating: Decimal
    games: int
    paired_at: datetime | None = None
    closed_at: datetime | None = None
    live_game_id: str | None = None
    opponent: str | None = None
    key: str | None = None
    """The client's own key for the seek, when it gave one."""
    repeated: bool = False
    """This answer is a seek sent again with its key: the stored one, nothing new made."""

    def seek(self, marked: bool = False) -> Seek:
        """The seek as the pass sees it (``marked``: its player is marked)."""
        return Seek(
            self.id, self.player, self.time_control, self.rated, self.created_at,
            self.rating, self.min_rating, self.max_rating, marked,
        )  # fmt: skip


@dataclass
class PairReport:
    """What one pass did: the pairs (older seek, newer seek, the live game), the seeks
    it marked expired, the pairs it could not open (with why), and ``busy``: another
    pass was running (PostgreSQL), so this one did nothing."""

    pairs: list[tuple[SeekView, SeekView, LiveView]] = field(default_factory=list)
    expired: int = 0
    purged: int = 0
    """Closed seeks deleted, past the pairing rules' retention."""
    failed: list[tuple[str, str]] = field(default_factory=list)
    busy: bool = False


class Seeks:
    """The seeks of a ``site`` ledger."""

    def __init__(self, ledger: Ledger, rules: PairingRules | None = None) -> None:
        self.ledger = ledger
        self.rules = rules or PairingRules()
        self.live = LiveGames(ledger)

    def _require_site(self) -> SiteSystem:
        system = self.ledger.system
        if not isinstance(system, SiteSystem):
            raise InvalidInput(
                f"seeks are paired on site ledgers; this ledger rates by {self.ledger.system_id!r}"
            )
        return system

    # -- seeking ------------------------------------------------------------------------

    def create(
        self,
        player_id: str,
        control: TimeControl,
        rated: bool,
        min_rating: int | None,
        max_rating: int | None,
        now: datetime,
        key: str | None = None,
    ) -> SeekView:
        """Open a seek; at most one open seek per player and control (409 naming it).
        With ``key``: a seek of the player made with that key already is the answer
        (``repeated``), whatever it became; with other fields, a 409."""
        system = self._require_site()
        with self.ledger.transaction() as conn:
            self._seeker(conn, system, player_id, control, rated)
            found = self._keyed(conn, player_id, key, (control, rated, min_rating, max_rating,
                                                       False), now)  # fmt: skip
            if found is not None:
                return found
            self._expire(conn, now, player_id)
            existing = conn.execute(
                select(seeks.c.id)
                .where(seeks.c.player_id == player_id)
                .where(seeks.c.time_control == str(control))
                .where(seeks.c.status == SeekStatus.OPEN.value)
            ).scalar()  # fmt: skip
            if existing is not None:
                raise Conflict(
                    f"seek: time_control: {player_id} already has an open seek for "
                    f"{control.describe()}: seek {existing} (cancel it first)"
                )
            seek_id = self._insert(conn, player_id, control, rated, min_rating, max_rating,
                                   False, SeekStatus.OPEN, now, key)  # fmt: skip
            return self._get(conn, seek_id, now)

    def play_bot(
        self,
        player_id: str,
        control: TimeControl,
        rated: bool,
        min_rating: int | None,
        max_rating: int | None,
        now: datetime,
        key: str | None = None,
    ) -> tuple[SeekView, LiveView]:
        """ "Play a bot": pair at once with the bot whose fixed rating is closest to the
        player's site Elo (inside the range when given; ties: the lower id), and open
        the live game. The seek is stored, already paired. ``key`` as :meth:`create`'s
        (the stored seek and its live game are the answer)."""
        system = self._require_site()
        with self.ledger.transaction() as conn:
            player = self._seeker(conn, system, player_id, control, rated)
            found = self._keyed(conn, player_id, key, (control, rated, min_rating, max_rating,
                                                       True), now)  # fmt: skip
            if found is not None:  # a bot seek is stored paired, its live game with it
                assert found.live_game_id is not None
                return found, self.live.get_in(conn, found.live_game_id)
            if player_id in self._busy(conn, (player_id,)):
                raise Conflict(f"seek: player: {player_id} is playing a live game; finish it first")
            bots = []
            for row in conn.execute(
                select(players.c.id, players.c.attributes)
                .where(players.c.bot.is_(True)).order_by(players.c.id)
            ):  # fmt: skip
                bot = codec.player_from_json(row.attributes)
                if bot.bot_rating is not None:
                    bots.append((row.id, bot.bot_rating))
            rating, _ = self._elos(conn, {player_id: player})[player_id]
            bot_id = closest_bot(rating, bots, min_rating, max_rating)
            if bot_id is None:
                within = "" if min_rating is None and max_rating is None else " within the range"
                raise Conflict(f"seek: bot: no bot to play{within}")
            seek_id = self._insert(conn, player_id, control, rated, min_rating, max_rating,
                                   True, SeekStatus.PAIRED, now, key)  # fmt: skip
            balance = self._balance(conn, player_id)
            white, black = colours(player_id, balance, bot_id, 0)
            game = LiveGame(f"seek-{seek_id}", white, black, now, control, rated)
            view, _ = self.live.open_in(conn, game)
            self._mark_paired(conn, seek_id, game.id, bot_id, now, SeekStatus.PAIRED)
            return self._get(conn, seek_id, now), view

    def cancel(self, seek_id: int, now: datetime) -> SeekView:
        """Cancel an open seek; 409 for one that is paired, cancelled or expired."""
        with self.ledger.transaction() as conn:
            row = conn.execute(select(seeks).where(seeks.c.id == seek_id).with_for_update()).first()
            if row is None:
                raise NotFound(f"seek {seek_id}: no such seek")
            status = _status(row, now)
            if status is SeekStatus.PAIRED:
                raise Conflict(f"seek {seek_id}: already paired into live game {row.live_game_id}")
            if status is SeekStatus.EXPIRED:
                raise Conflict(f"seek {seek_id}: expired at {as_utc(row.expires_at).isoformat()}")
            if status is SeekStatus.CANCELLED:
                raise Conflict(f"seek {seek_id}: already cancelled")
            conn.execute(
                update(seeks).where(seeks.c.id == seek_id)
                .values(status=SeekStatus.CANCELLED.value, closed_at=now)
            )  # fmt: skip
            return self._get(conn, seek_id, now)

    # -- reading ------------------------------------------------------------------------

    def get(self, seek_id: int, now: datetime) -> SeekView:
        with self.ledger.reading() as conn:
            return self._get(conn, seek_id, now)

    def page(
        self,
        now: datetime,
        player: str | None = None,
        status: SeekStatus | None = SeekStatus.OPEN,
        offset: int = 0,
        limit: int = 50,
    ) -> tuple[int, list[SeekView]]:
        """(how many, one page): open seeks oldest first; with ``player`` or another
        status, the newest first."""
        query = select(seeks)
        if player is not None:
            query = query.where(seeks.c.player_id == player)
        if status is SeekStatus.OPEN:
            query = query.where(seeks.c.status == status.value, seeks.c.expires_at > now)
        elif status is SeekStatus.EXPIRED:
            query = query.where(
                or_(
                    seeks.c.status == status.value,
                    (seeks.c.status == SeekStatus.OPEN.value) & (seeks.c.expires_at <= now),
                )
            )
        elif status is not None:
            query = query.where(seeks.c.status == status.value)
        order = (
            (seeks.c.id,) if status is SeekStatus.OPEN and player is None else (seeks.c.id.desc(),)
        )
        with self.ledger.reading() as conn:
            total = conn.execute(select(func.count()).select_from(query.subquery())).scalar_one()
            rows = conn.execute(query.order_by(*order).offset(offset).limit(limit)).all()
            return total, self._views(conn, rows, now)

    # -- the pass -----------------------------------------------------------------------

    def pair(self, now: datetime) -> PairReport:
        """One pairing pass at ``now``: expire what is due, pair the compatible open
        seeks (the most pairs, then the closest: ``choose_pairs``; a marked player
        only with marked players), open their live games."""
        report = PairReport()
        if not self.ledger.info.live_games:
            return report
        with self.ledger.reading() as conn:  # most passes find nothing: take no lock
            waiting = select(seeks.c.id).where(seeks.c.status == SeekStatus.OPEN.value)
            if conn.execute(waiting.limit(1)).first() is None:
                return report
        with self.ledger.transaction() as conn:
            if self.ledger.postgres:
                locked = conn.execute(
                    text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": PAIR_LOCK}
                ).scalar()
                if not locked:
                    report.busy = True
                    return report
            report.expired = self._expire(conn, now)
            report.purged = self._purge(conn, now)
            rows = conn.execute(
                select(seeks)
                .where(seeks.c.status == SeekStatus.OPEN.value)
                .where(seeks.c.expires_at > now)
                .order_by(seeks.c.id)
                .with_for_update(skip_locked=True)
            ).all()  # fmt: skip
            views = {view.id: view for view in self._views(conn, rows, now)}
            busy = self._busy(conn, {view.player for view in views.values()})
            marked = marked_in(conn, {view.player for view in views.values()})
            chosen = choose_pairs(
                (v.seek(v.player in marked) for v in views.values()), now, self.rules, busy
            )
            for older, newer in chosen:
                first, second = views[older.id], views[newer.id]
                white, black = colours(
                    first.player, self._balance(conn, first.player),
                    second.player, self._balance(conn, second.player),
                )  # fmt: skip
                game = LiveGame(
                    f"seek-{first.id}-{second.id}", white, black, now, first.time_control,
                    first.rated,
                )  # fmt: skip
                try:
                    with conn.begin_nested():
                        live, _ = self.live.open_in(conn, game)
                        self._mark_paired(conn, first.id, game.id, second.player, now)
                        self._mark_paired(conn, second.id, game.id, first.player, now)
                except (InvalidRecord, Conflict) as error:
                    log.error("pair: seeks %s and %s: %s", first.id, second.id, error)
                    report.failed.append((game.id, str(error)))
                    continue
                report.pairs.append(
                    (self._get(conn, first.id, now), self._get(conn, second.id, now), live)
                )
        return report

    # -- internals ----------------------------------------------------------------------

    def _seeker(
        self, conn: Connection, system: SiteSystem, player_id: str, control: TimeControl,
        rated: bool,
    ) -> Player:  # fmt: skip
        """The seeking player, locked (one player's seeks are made one at a time)."""
        found = common.load_players(conn, (player_id,), lock=True)
        if player_id not in found:
            raise InvalidRecord("seek", "player", f"unknown player {player_id!r}")
        player = found[player_id]
        if player.bot:
            raise InvalidRecord(
                "seek", "player", f"{player_id} is a bot: bots do not seek (play one: bot: true)"
            )
        if rated and system.control_type(control) is None:
            raise InvalidRecord(
                "seek", "time_control",
                f"{control.describe()}: more than {system.rules.max_days_per_move} days per "
                "move is not rated (S2); seek a casual game",
            )  # fmt: skip
        return player

    def _insert(
        self, conn: Connection, player_id: str, control: TimeControl, rated: bool,
        min_rating: int | None, max_rating: int | None, bot: bool, status: SeekStatus,
        now: datetime, key: str | None = None,
    ) -> int:  # fmt: skip
        result = conn.execute(
            insert(seeks).values(
                player_id=player_id, time_control=str(control), rated=rated, client_key=key,
                min_rating=min_rating, max_rating=max_rating, bot=bot, status=status.value,
                created_at=now, expires_at=now + timedelta(seconds=self.rules.seek_life(control)),
                paired_at=now if status is SeekStatus.PAIRED else None,
            ).returning(seeks.c.id)
        )  # fmt: skip
        return int(result.scalar_one())

    def _keyed(
        self, conn: Connection, player_id: str, key: str | None,
        wanted: tuple[TimeControl, bool, int | None, int | None, bool], now: datetime,
    ) -> SeekView | None:  # fmt: skip
        """The player's seek made with ``key`` (``repeated``), None when there is none
        (or no key); a 409 when it was made with other fields than ``wanted``."""
        if key is None:
            return None
        row = conn.execute(
            select(seeks).where(seeks.c.player_id == player_id).where(seeks.c.client_key == key)
        ).first()  # fmt: skip
        if row is None:
            return None
        control, rated, low, high, bot = wanted
        stored = (row.time_control, bool(row.rated), row.min_rating, row.max_rating, bool(row.bot))
        if stored != (str(control), rated, low, high, bot):
            raise Conflict(
                f"seek: key: {key!r} names seek {row.id} of {player_id}, made with other "
                "fields (a key is for sending the same seek again)"
            )
        view = self._views(conn, [row], now)[0]
        return replace(view, repeated=True)

    @staticmethod
    def _mark_paired(
        conn: Connection, seek_id: int, game_id: str, opponent: str, now: datetime,
        was: SeekStatus = SeekStatus.OPEN,
    ) -> None:  # fmt: skip
        """Mark the seek paired into ``game_id``; it must still be ``was`` (open; a bot
        seek is stored paired, its game opened after)."""
        changed = conn.execute(
            update(seeks).where(seeks.c.id == seek_id).where(seeks.c.status == was.value)
            .values(status=SeekStatus.PAIRED.value, paired_at=now, live_game_id=game_id,
                    opponent=opponent)
        ).rowcount  # fmt: skip
        if changed != 1:
            raise Conflict(f"seek {seek_id}: no longer open")

    @staticmethod
    def _expire(conn: Connection, now: datetime, player_id: str | None = None) -> int:
        query = (
            update(seeks)
            .where(seeks.c.status == SeekStatus.OPEN.value)
            .where(seeks.c.expires_at <= now)
            .values(status=SeekStatus.EXPIRED.value, closed_at=seeks.c.expires_at)
        )
        if player_id is not None:
            query = query.where(seeks.c.player_id == player_id)
        return int(conn.execute(query).rowcount)

    def _purge(self, conn: Connection, now: datetime) -> int:
        """Delete the seeks closed (paired, cancelled, expired) whose time ran out more
        than ``rules.retention`` seconds ago: a seek closes by its expiry at the latest,
        so the index of the open and the expired seeks (status, expires_at) finds them
        without reading the others."""
        if self.rules.retention == 0:
            return 0
        cutoff = now - timedelta(seconds=self.rules.retention)
        closed = [s.value for s in SeekStatus if s is not SeekStatus.OPEN]
        query = delete(seeks).where(seeks.c.status.in_(closed), seeks.c.expires_at < cutoff)
        return int(conn.execute(query).rowcount)

    @staticmethod
    def _busy(conn: Connection, ids: Iterable[str]) -> set[str]:
        """The players among ``ids`` in an open real-time live game (a correspondence
        game, played over days, keeps nobody from another)."""
        wanted = sorted(set(ids))
        if not wanted:
            return set()
        found = conn.execute(
            select(live_games.c.white, live_games.c.black, live_games.c.time_control)
            .where(live_games.c.status == LiveStatus.OPEN.value)
            .where(or_(live_games.c.white.in_(wanted), live_games.c.black.in_(wanted)))
        ).all()  # fmt: skip
        playing = {p for row in found if not _correspondence(row.time_control)
                   for p in (row.white, row.black)}  # fmt: skip
        return playing & set(wanted)

    def _balance(self, conn: Connection, player_id: str) -> int:
        """Whites minus blacks over the player's last ``colour_games`` games: the live
        games not yet ended (the newest), then the stored games."""
        n = self.rules.colour_games
        sides: list[Side] = []
        for row in conn.execute(
            select(live_games.c.white)
            .where(live_games.c.status != LiveStatus.ENDED.value)
            .where(or_(live_games.c.white == player_id, live_games.c.black == player_id))
            .order_by(live_games.c.opened_at.desc()).limit(n)
        ):  # fmt: skip
            sides.append(Side.WHITE if row.white == player_id else Side.BLACK)
        key = common.player_keys(conn, (player_id,)).get(player_id)
        if key is not None and len(sides) < n:
            stored: list[tuple[int, Side]] = []
            for side, column in ((Side.WHITE, games.c.white), (Side.BLACK, games.c.black)):
                seqs = conn.execute(
                    select(games.c.seq).where(column == key).order_by(games.c.seq.desc()).limit(n)
                ).scalars()  # fmt: skip
                stored.extend((seq, side) for seq in seqs)
            stored.sort(reverse=True)
            sides.extend(side for _, side in stored)
        return colour_balance(sides[:n])

    def _elos(self, conn: Connection, people: dict[str, Player]) -> dict[str, tuple[Decimal, int]]:
        """Each player's site Elo and its games; without one, the system's start."""
        system = self._require_site()
        found = {
            row.player_id: (from_hundredths(row.rating_cents), row.games)
            for row in conn.execute(
                select(ratings.c.player_id, ratings.c.rating_cents, ratings.c.games)
                .where(ratings.c.pool == SITE)
                .where(ratings.c.player_id.in_(sorted(people)))
            )
            if row.rating_cents is not None
        }  # fmt: skip
        for player_id, player in people.items():
            if player_id not in found:
                state = system.initial_state(player, SITE)
                found[player_id] = (state.rating, state.games)
        return found

    def _get(self, conn: Connection, seek_id: int, now: datetime) -> SeekView:
        row = conn.execute(select(seeks).where(seeks.c.id == seek_id)).first()
        if row is None:
            raise NotFound(f"seek {seek_id}: no such seek")
        return self._views(conn, [row], now)[0]

    def _views(self, conn: Connection, rows: Iterable[Any], now: datetime) -> list[SeekView]:
        rows = list(rows)
        people = common.load_players(conn, {row.player_id for row in rows}, lock=False)
        elos = self._elos(conn, people) if people else {}
        unknown = (Decimal(0), 0)
        return [_view(row, elos.get(row.player_id, unknown), now) for row in rows]


def _view(row: Any, elo: tuple[Decimal, int], now: datetime) -> SeekView:
    return SeekView(
        id=row.id, player=row.player_id, time_control=parse_time_control(row.time_control),
        rated=row.rated, min_rating=row.min_rating, max_rating=row.max_rating, bot=row.bot,
        status=_status(row, now), created_at=as_utc(row.created_at),
        expires_at=as_utc(row.expires_at), rating=elo[0], games=elo[1],
        paired_at=None if row.paired_at is None else as_utc(row.paired_at),
        closed_at=_closed_at(row, now), live_game_id=row.live_game_id, opponent=row.opponent,
        key=row.client_key,
    )  # fmt: skip


def _status(row: Any, now: datetime) -> SeekStatus:
    status = SeekStatus(row.status)
    if status is SeekStatus.OPEN and as_utc(row.expires_at) <= now:
        return SeekStatus.EXPIRED
    return status


def _closed_at(row: Any, now: datetime) -> datetime | None:
    if row.closed_at is not None:
        return as_utc(row.closed_at)
    if _status(row, now) is SeekStatus.EXPIRED:
        return as_utc(row.expires_at)
    return None


def _correspondence(stored: str | None) -> bool:
    """Whether a live game's stored control is correspondence (days per move)."""
    if not stored:
        return False
    return parse_time_control(stored).correspondence
