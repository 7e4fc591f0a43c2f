"""Live ``site`` games in the ledger: open, move, finish, abort, otb confirmation, and
the sweeper that applies the deadlines of site S7-S9.

Each action is one transaction that first locks the live game's row (PostgreSQL
``SELECT ... FOR UPDATE``; SQLite's write lock from ``BEGIN IMMEDIATE``), then, when
the game ends, rates it through :meth:`Games.submit_in
<chessrate.ledger.games.Games.submit_in>` like a submitted game, in the same
transaction. Locks are always taken live game first, then players (the rating
path locks the players), so actions and sweepers cannot deadlock.

When every ply carries its move, the board has its say: a move that checkmates,
stalemates or leaves neither side the material to mate ends the game at once, with
that result (the move's answer is the ended game; a finish sent after it with the
same result answers the same game); a loss on time against a side without mating
material is a draw.

A deadline is applied by whoever meets it first: the sweeper, or an action on the
game (a move that comes too late ends the game by its deadline and is refused). The
sweeper takes due games with ``FOR UPDATE SKIP LOCKED`` and checks the status under
the lock, so several sweepers (one per worker, plus cron) end each game once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, Connection, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..errors import Conflict, InvalidInput, InvalidRecord, NotFound
from ..identifiers import text_problem
from ..records import GameRecord, Player, Result, Termination, Venue
from ..systems.site import SiteRules, SiteSystem
from ..systems.site_live import (
    SERVICE_ENDINGS,
    Deadline,
    Ending,
    LiveGame,
    LiveStatus,
    Ply,
    Side,
    abort_ending,
    board_ending,
    deadline,
    deadline_ending,
    due,
    finish_ending,
    plies_text,
)
from . import codec, common, live_rows, rows
from .connection import as_utc
from .schema import games, live_games
from .views import GameView

if TYPE_CHECKING:
    from .store import Ledger

log = logging.getLogger(__name__)

SWEEPER = "sweeper"
SWEEP_BATCH = 100


@dataclass(frozen=True, slots=True)
class LiveView:
    """A live game as stored: the game, where it is, its next deadline, and how it
    ended (``outcome`` is the rated game's outcome once it is in the ledger)."""

    game: LiveGame
    status: LiveStatus
    deadline: Deadline | None
    result: Result | None = None
    termination: Termination | None = None
    played_at: datetime | None = None
    registered_by: str | None = None
    ended_at: datetime | None = None
    ended_by: str | None = None
    ending: str | None = None
    outcome: str | None = None


@dataclass
class SweepReport:
    """What one sweep did: the games it ended, and those it could not end (with why)."""

    ended: list[LiveView] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class OtbRegistration:
    """An over-the-board result as one player registers it (site S2)."""

    result: Result
    registered_by: str
    played_at: datetime


class LiveGames:
    """The live games of a ``site`` ledger."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    @property
    def rules(self) -> SiteRules:
        """The ledger's rules: every deadline and ending reads its numbers there."""
        return self._require_site().rules

    def _require_site(self) -> SiteSystem:
        system = self.ledger.system
        if not isinstance(system, SiteSystem):
            raise InvalidInput(
                f"live games are played on site ledgers; this ledger rates by "
                f"{self.ledger.system_id!r} (submit finished games instead)"
            )
        return system

    # -- opening ----------------------------------------------------------------------

    def open(
        self, game: LiveGame, now: datetime, otb: OtbRegistration | None = None
    ) -> tuple[LiveView, bool]:
        """Open a game (or register an otb result). The same game opened again answers
        the stored one (``created`` False); a different game with a used id is 409. When
        another writer opened the id at the same moment (PostgreSQL: the second insert
        breaks the key), it is read again and answered so, never a server error."""
        try:
            with self.ledger.transaction() as conn:
                return self.open_in(conn, game, otb)
        except IntegrityError:
            with self.ledger.transaction() as conn:
                return self.open_in(conn, game, otb)

    def open_in(
        self, conn: Connection, game: LiveGame, otb: OtbRegistration | None = None
    ) -> tuple[LiveView, bool]:
        """:meth:`open` in the caller's transaction (the pairing pass opens the games
        it pairs in the transaction that marks their seeks paired)."""
        system = self._require_site()
        where = f"live game {game.id}"
        people = common.load_players(conn, (game.white, game.black), lock=False)
        for side in Side:
            if game.player(side) not in people:
                raise InvalidRecord(where, side.value, f"unknown player {game.player(side)!r}")
        white, black = people[game.white], people[game.black]
        bot = _bot_side(where, game, white, black)
        game = LiveGame(
            game.id, game.white, game.black, game.opened_at, game.time_control,
            game.rated, game.venue, bot,
        )  # fmt: skip
        if otb is None and game.time_control is None:
            raise InvalidRecord(
                where, "time_control", "is required: a live game's deadlines depend on it (S8)"
            )
        if game.rated:  # refuse what could never be rated, before anyone plays
            system.game_type(
                live_rows.game_record(game, Result.NO_RESULT, Termination.NORMAL), white, black
            )
        existing = self._row(conn, game.id, lock=True)
        if existing is not None:
            stored = self._view(conn, existing)
            if _same_opening(stored, game, otb):
                return stored, False
            raise Conflict(f"live game {game.id}: id: already used for a different game")
        if conn.execute(select(games.c.id).where(games.c.id == game.id)).first():
            raise Conflict(f"live game {game.id}: id: already used by a stored game")
        status = LiveStatus.OPEN if otb is None else LiveStatus.AWAITING_CONFIRMATION
        upcoming = deadline(game, self.rules) if otb is None else None
        conn.execute(
            insert(live_games).values(
                id=game.id, white=game.white, black=game.black, rated=game.rated,
                time_control=None if game.time_control is None else str(game.time_control),
                venue=game.venue.value, bot=None if bot is None else bot.value,
                status=status.value, opened_at=game.opened_at, plies=0, moves="[]",
                deadline_at=None if upcoming is None else upcoming.at,
                result=None if otb is None else otb.result.value,
                played_at=None if otb is None else otb.played_at,
                registered_by=None if otb is None else otb.registered_by,
            )
        )  # fmt: skip
        row = self._row(conn, game.id, lock=False)
        assert row is not None
        return self._view(conn, row), True

    # -- playing ----------------------------------------------------------------------

    def move(
        self, game_id: str, number: int, move: str | None, by: str | None, now: datetime
    ) -> LiveView:
        """Record ply ``number`` at ``now``. The same ply sent again answers the game
        unchanged; a move after the game's deadline ends the game and is refused."""
        self._require_site()
        where = f"live game {game_id}"
        refused = None if move is None else text_problem(move)
        if refused is not None:
            raise InvalidRecord(where, "move", refused)
        late: LiveView | None = None
        with self.ledger.transaction() as conn:
            row = self._locked(conn, game_id)
            game = live_rows.live_game(row)
            repeated = live_rows.repeated_ply(game, number, move)
            if repeated:
                return self._view(conn, row)
            if row.status != LiveStatus.OPEN.value:
                raise Conflict(f"{where}: {_ended_text(row)}: no more moves")
            passed = due(game, now, self.rules)
            if passed is not None:
                late = self._end_by_deadline(conn, row, game, passed, SWEEPER, now)
            else:
                if number != game.ply_count + 1:
                    raise Conflict(f"{where}: ply: expected ply {game.ply_count + 1}, got {number}")
                if by is not None and by != game.player(game.to_move):
                    raise InvalidRecord(
                        where, "by", f"{by!r} is not the player to move ({game.to_move.value})"
                    )
                if now < game.last_at:
                    raise InvalidRecord(where, "at", "a move cannot come before the previous one")
                live_rows.check_move(where, game, move)
                game = game.with_ply(Ply(number, now, move))
                upcoming = deadline(game, self.rules)
                conn.execute(
                    update(live_games).where(live_games.c.id == game_id).values(
                        plies=game.ply_count, moves=codec.dumps(plies_text(game.plies)),
                        deadline_at=None if upcoming is None else upcoming.at,
                    )
                )  # fmt: skip
                row = self._row(conn, game_id, lock=False)
                over = board_ending(game, live_rows.last_board(game), self.rules)
                if over is not None:  # the move ended the game by the rules of play
                    mover = by or game.player(Side.BLACK if number % 2 == 0 else Side.WHITE)
                    return self._end(conn, row, game, over, mover, now, now)
                return self._view(conn, row)
        assert late is not None
        raise Conflict(f"{where}: the move came too late: {late.ending}")

    def finish(
        self,
        game_id: str,
        result: Result,
        termination: Termination,
        by: str | None,
        now: datetime,
    ) -> LiveView:
        """End a game as the players' site reports it (result, termination) and rate it.
        Before both moved it can only be void (S8); a bot never loses on time or by
        abandonment (S7); ``expired`` and ``bot_no_move`` are the service's to declare."""
        if termination in SERVICE_ENDINGS:  # refused before the game is read
            finish_ending(LiveGame(game_id, "", "", now, None), result, termination, self.rules)

        def ending(game: LiveGame) -> Ending:
            live_rows.check_result(f"live game {game_id}", game, result, termination)
            return finish_ending(game, result, termination, self.rules)

        def ended_so(row: Any) -> bool:
            """The board ended the game with this result: the finish is answered."""
            game = live_rows.live_game(row)
            over = board_ending(game, live_rows.last_board(game), self.rules)
            return over is not None and row.result == result.value and row.ending == over.reason

        return self._act(game_id, now, by, ending, ended_so=ended_so)

    def abort(self, game_id: str, by: str, now: datetime) -> LiveView:
        """S8: either player may abort until both sides have made their first move."""
        return self._act(
            game_id, now, by, lambda game: abort_ending(game, by, self.rules), by_required=True
        )

    def _act(
        self,
        game_id: str,
        now: datetime,
        by: str | None,
        ending_of: Any,
        by_required: bool = False,
        ended_so: Callable[[Any], bool] | None = None,
    ) -> LiveView:
        self._require_site()
        where = f"live game {game_id}"
        late: LiveView | None = None
        with self.ledger.transaction() as conn:
            row = self._locked(conn, game_id)
            if row.status != LiveStatus.OPEN.value:
                if row.status == LiveStatus.ENDED.value and ended_so is not None and ended_so(row):
                    return self._view(conn, row)
                raise Conflict(f"{where}: {_ended_text(row)}")
            game = live_rows.live_game(row)
            if (by_required or by is not None) and game.side_of(by or "") is None:
                raise InvalidRecord(where, "by", f"{by!r} does not play in this game")
            passed = due(game, now, self.rules)
            if passed is not None:
                late = self._end_by_deadline(conn, row, game, passed, SWEEPER, now)
            else:
                ending: Ending = ending_of(game)
                return self._end(conn, row, game, ending, by or "writer", now, now)
        assert late is not None
        raise Conflict(f"{where}: the game had already ended: {late.ending}")

    # -- over the board ---------------------------------------------------------------

    def confirm(self, game_id: str, by: str, now: datetime) -> LiveView:
        """S2: the other player confirms an otb result; the game is then rated."""
        self._require_site()
        where = f"live game {game_id}"
        with self.ledger.transaction() as conn:
            row = self._locked(conn, game_id)
            game = live_rows.live_game(row)
            self._check_other_player(where, row, game, by)
            if row.status == LiveStatus.ENDED.value and row.ended_by == by:
                return self._view(conn, row)  # confirmed before: the same answer
            self._check_awaiting(where, row)
            assert row.result is not None and row.played_at is not None
            ending = Ending(
                Result(row.result), Termination.NORMAL,
                f"registered by {row.registered_by}, confirmed by {by}: rated (site S2)",
            )  # fmt: skip
            return self._end(conn, row, game, ending, by, now, now)

    def dispute(self, game_id: str, by: str, reason: str, now: datetime) -> LiveView:
        """S2: the other player disputes an otb result: it is never rated."""
        self._require_site()
        where = f"live game {game_id}"
        with self.ledger.transaction() as conn:
            row = self._locked(conn, game_id)
            game = live_rows.live_game(row)
            self._check_other_player(where, row, game, by)
            if row.status == LiveStatus.DISPUTED.value and row.ended_by == by:
                return self._view(conn, row)
            self._check_awaiting(where, row)
            refused = text_problem(reason)
            if refused is not None:
                raise InvalidRecord(where, "reason", refused)
            text = f"disputed by {by}" + (f": {reason}" if reason else "") + ": not rated (site S2)"
            conn.execute(
                update(live_games).where(live_games.c.id == game_id).values(
                    status=LiveStatus.DISPUTED.value, ended_at=now, ended_by=by, ending=text
                )
            )  # fmt: skip
            return self._view(conn, self._locked(conn, game_id))

    @staticmethod
    def _check_other_player(where: str, row: Any, game: LiveGame, by: str) -> None:
        if row.venue != Venue.OTB.value:
            raise Conflict(f"{where}: only an otb game is confirmed or disputed")
        if game.side_of(by) is None:
            raise InvalidRecord(where, "by", f"{by!r} does not play in this game")
        if by == row.registered_by:
            raise InvalidRecord(
                where, "by",
                f"{by} registered the result; the other player confirms or disputes it (S2)",
            )  # fmt: skip

    @staticmethod
    def _check_awaiting(where: str, row: Any) -> None:
        if row.status != LiveStatus.AWAITING_CONFIRMATION.value:
            raise Conflict(f"{where}: {_ended_text(row)}")

    # -- the sweeper ------------------------------------------------------------------

    def sweep(self, now: datetime, limit: int | None = None) -> SweepReport:
        """End every open game whose deadline has passed at ``now`` (S7-S9), each in
        its own transaction. Safe beside other sweepers: a game is ended once."""
        report = SweepReport()
        if not self.ledger.info.live_games:
            return report
        while limit is None or len(report.ended) < limit:
            with self.ledger.reading() as conn:
                ids = conn.execute(
                    select(live_games.c.id)
                    .where(live_games.c.status == LiveStatus.OPEN.value)
                    .where(live_games.c.deadline_at <= now)
                    .order_by(live_games.c.deadline_at, live_games.c.id)
                    .limit(SWEEP_BATCH)
                ).scalars().all()  # fmt: skip
            failed = {game_id for game_id, _ in report.failed}
            ids = [game_id for game_id in ids if game_id not in failed]
            if not ids:
                break
            progressed = False
            for game_id in ids:
                if limit is not None and len(report.ended) >= limit:
                    break
                try:
                    view = self._sweep_one(game_id, now)
                except (InvalidRecord, Conflict) as error:
                    log.error("sweep: live game %s could not be ended: %s", game_id, error)
                    report.failed.append((game_id, str(error)))
                    progressed = True
                    continue
                if view is not None:
                    report.ended.append(view)
                    progressed = True
            if not progressed:
                break  # the rest is being ended by another sweeper
        return report

    def _sweep_one(self, game_id: str, now: datetime) -> LiveView | None:
        with self.ledger.transaction() as conn:
            query = (
                select(live_games)
                .where(live_games.c.id == game_id)
                .where(live_games.c.status == LiveStatus.OPEN.value)
                .where(live_games.c.deadline_at <= now)
                .with_for_update(skip_locked=True)
            )
            row = conn.execute(query).first()
            if row is None:
                return None  # ended meanwhile, or another sweeper holds it
            game = live_rows.live_game(row)
            passed = due(game, now, self.rules)
            if passed is None:  # a stale deadline_at: store the right one
                upcoming = deadline(game, self.rules)
                conn.execute(
                    update(live_games).where(live_games.c.id == game_id)
                    .values(deadline_at=None if upcoming is None else upcoming.at)
                )  # fmt: skip
                return None
            return self._end_by_deadline(conn, row, game, passed, SWEEPER, now)

    # -- reading ----------------------------------------------------------------------

    def get(self, game_id: str) -> LiveView:
        with self.ledger.reading() as conn:
            return self.get_in(conn, game_id)

    def get_in(self, conn: Connection, game_id: str) -> LiveView:
        """:meth:`get` read through ``conn`` (a transaction of the caller's)."""
        row = self._row(conn, game_id, lock=False)
        if row is None:
            raise NotFound(f"live game {game_id}: no such live game")
        return self._view(conn, row)

    def list(
        self,
        status: LiveStatus | None = None,
        player: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[LiveView]:
        """Live games, the most recently opened first: at most ``limit`` from
        ``offset``."""
        query = select(live_games).where(*_chosen(status, player))
        query = query.order_by(live_games.c.opened_at.desc(), live_games.c.id)
        with self.ledger.reading() as conn:
            found = conn.execute(query.offset(offset).limit(limit)).all()
            return [self._view(conn, row) for row in found]

    def count(self, status: LiveStatus | None = None, player: str | None = None) -> int:
        """How many live games :meth:`list` chooses from."""
        query = select(func.count()).select_from(live_games).where(*_chosen(status, player))
        with self.ledger.reading() as conn:
            return int(conn.execute(query).scalar_one())

    # -- internals --------------------------------------------------------------------

    @staticmethod
    def _row(conn: Connection, game_id: str, lock: bool) -> Any:
        query = select(live_games).where(live_games.c.id == game_id)
        if lock:
            query = query.with_for_update()
        return conn.execute(query).first()

    def _locked(self, conn: Connection, game_id: str) -> Any:
        row = self._row(conn, game_id, lock=True)
        if row is None:
            raise NotFound(f"live game {game_id}: no such live game")
        return row

    def _end_by_deadline(
        self, conn: Connection, row: Any, game: LiveGame, passed: Deadline, by: str, now: datetime
    ) -> LiveView:
        board = live_rows.last_board(game)
        over = board_ending(game, board, self.rules)
        if over is not None:  # ended on the board before the deadline (an older row)
            return self._end(conn, row, game, over, by, game.last_at, now)
        ending = deadline_ending(game, passed, self.rules, board)
        return self._end(conn, row, game, ending, by, passed.at, now)

    def _end(
        self,
        conn: Connection,
        row: Any,
        game: LiveGame,
        ending: Ending,
        by: str,
        ended_at: datetime,
        now: datetime,
    ) -> LiveView:
        """Rate the finished game through the ledger's submission path and close the
        live game, in the caller's transaction."""
        confirmed = True if row.venue == Venue.OTB.value else None
        played_at = as_utc(row.played_at) if row.played_at is not None else game.opened_at
        record = live_rows.game_record(
            game, ending.result, ending.termination, played_at, confirmed
        )
        view = self._submit(conn, record, now)
        conn.execute(
            update(live_games).where(live_games.c.id == game.id).values(
                status=LiveStatus.ENDED.value, result=ending.result.value,
                termination=ending.termination.value, deadline_at=None,
                ended_at=ended_at, ended_by=by, ending=ending.reason,
            )
        )  # fmt: skip
        stored = self._row(conn, game.id, lock=False)
        return self._view(conn, stored, outcome=view.outcome)

    def _submit(self, conn: Connection, record: GameRecord, now: datetime) -> GameView:
        """The ended game rated and stored, in a savepoint: when another writer committed
        a game with this id meanwhile (PostgreSQL: both saw none, this insert breaks the
        key), it is submitted again and meets the stored game: the same one is answered,
        another is refused (409), never a server error."""
        try:
            with conn.begin_nested():
                view, _ = self.ledger.games.submit_in(conn, record, now)
        except IntegrityError:
            view, _ = self.ledger.games.submit_in(conn, record, now)
        return view

    def _view(self, conn: Connection, row: Any, outcome: str | None = None) -> LiveView:
        game = live_rows.live_game(row)
        status = LiveStatus(row.status)
        if outcome is None and status is LiveStatus.ENDED:
            stored = conn.execute(
                select(games.c.outcome, games.c.annulled).where(games.c.id == row.id)
            ).first()
            if stored is not None:
                outcome = "void" if stored.annulled else rows.OUTCOMES[stored.outcome].value
        return LiveView(
            game=game,
            status=status,
            deadline=deadline(game, self.rules) if status is LiveStatus.OPEN else None,
            result=None if row.result is None else Result(row.result),
            termination=None if row.termination is None else Termination(row.termination),
            played_at=None if row.played_at is None else as_utc(row.played_at),
            registered_by=row.registered_by,
            ended_at=None if row.ended_at is None else as_utc(row.ended_at),
            ended_by=row.ended_by,
            ending=row.ending,
            outcome=outcome,
        )


# -- helpers ------------------------------------------------------------------------------


def _bot_side(where: str, game: LiveGame, white: Player, black: Player) -> Side | None:
    """The bot's side, from the players' attributes; a given side must agree (S7)."""
    if white.bot and black.bot:
        raise InvalidRecord(where, "black", "two bots: nothing to play for (S7)")
    found = Side.WHITE if white.bot else Side.BLACK if black.bot else None
    if game.bot is not None and game.bot is not found:
        players = f"{game.player(game.bot)} is not a bot" if found is None else (
            f"the bot is {found.value} ({game.player(found)})"
        )  # fmt: skip
        raise InvalidRecord(where, "bot", players)
    if found is not None and game.venue is Venue.OTB:
        raise InvalidRecord(where, "venue", "a bot does not play over the board")
    return found


def _same_opening(stored: LiveView, game: LiveGame, otb: OtbRegistration | None) -> bool:
    mine = stored.game
    same = (mine.white, mine.black, mine.rated, mine.time_control, mine.venue) == (
        game.white, game.black, game.rated, game.time_control, game.venue,
    )  # fmt: skip
    if otb is None:
        return same and stored.registered_by is None
    return same and (stored.result, stored.registered_by, stored.played_at) == (
        otb.result, otb.registered_by, otb.played_at,
    )  # fmt: skip


def _ended_text(row: Any) -> str:
    status = LiveStatus(row.status)
    if status is LiveStatus.AWAITING_CONFIRMATION:
        return "the otb result awaits the other player's confirmation"
    if status is LiveStatus.OPEN:
        return "the game is being played"
    return f"the game has ended ({row.ending})"


def _chosen(status: LiveStatus | None, player: str | None) -> list[ColumnElement[bool]]:
    """The conditions of a list of live games: its status, its player."""
    conditions: list[ColumnElement[bool]] = []
    if status is not None:
        conditions.append(live_games.c.status == status.value)
    if player is not None:
        conditions.append((live_games.c.white == player) | (live_games.c.black == player))
    return conditions
