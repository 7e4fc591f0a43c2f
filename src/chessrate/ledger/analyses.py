"""The fair-play detector's analyses in the ledger (table ``analyses``, migration 0009).

Which finished games with moves (live games, and games submitted with their moves)
wait for an analysis, how many, claiming one, storing one with its flags and the
detector's reports, and reading them back. The analysing itself is
:mod:`chessrate.fairplay` (no database there); :mod:`chessrate.fairplay.job` joins the
two.

Several hosts on one PostgreSQL database analyse each game once: a host first
*claims* the game (:meth:`Analyses.claim`: a session-level advisory lock on the
game, held on a connection of its own while the game is analysed and stored;
another host that tries skips the game). A host that dies loses its database
session, and with it the claim: the game is still waiting (nothing of it was
stored) and the next round of any host takes it. The analysis, the flags it records
and the detector's reports are stored in ONE transaction (:meth:`Analyses.storing`)
that first locks the game's two players (as every write about them does), so a host
killed in between leaves either all of it or none, and two games of one player
stored at once by two hosts judge the player's record one after the other.
"""

from __future__ import annotations

import json
import logging
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Select, func, insert, or_, select, text, update

from ..errors import NotFound
from ..records import Outcome, Venue, moment
from ..systems.site_live import LiveStatus, Side
from . import codec, common, rows
from .connection import as_utc, connection_errors
from .reviews import ReportView
from .schema import analyses, game_moves, games, live_games, players

if TYPE_CHECKING:
    from .store import Ledger

log = logging.getLogger(__name__)

CLAIM_SPACE = 0x5EE6_0017
"""The first key of the PostgreSQL advisory locks that claim games for an analysis
(the two-key form: the second is the game id's CRC-32; the pairing pass's one-key lock
is another key space)."""


def claim_key(game_id: str) -> int:
    """The second key of a game's claim: its id's CRC-32 as a signed 32-bit integer (the
    same on every host). Two ids with one CRC share a claim: one of them waits a round."""
    value = zlib.crc32(game_id.encode())
    return value - (1 << 32) if value >= 1 << 31 else value


@dataclass(frozen=True, slots=True)
class PendingGame:
    """A finished rated game waiting for its analysis: its moves (a live game's
    recorded ones, a submitted game's as UCI) and
    each player's rating before the game (None: the game changed no rating of theirs)."""

    id: str
    white: str
    black: str
    moves: tuple[str | None, ...]
    ratings: dict[Side, int | None]
    games: dict[Side, int] = field(default_factory=dict)
    """Each player's rated games before this one in the game's pool (0: unknown)."""

    def player(self, side: Side) -> str:
        return self.white if side is Side.WHITE else self.black


@dataclass(frozen=True, slots=True)
class AnalysisCounts:
    """The detector's queue: games waiting, games analysed, analyses that flagged."""

    pending: int
    analysed: int
    flagged: int


@dataclass(frozen=True, slots=True)
class AnalysisView:
    """One stored analysis."""

    game_id: str
    analysed_at: datetime
    engine: str
    limits: dict[str, Any]
    evidence: dict[str, Any] | None
    flagged: bool
    flags: tuple[str, ...]
    note: str | None
    white: str | None = None
    """The game's players' ids (read with the analysis; None: not looked up)."""
    black: str | None = None
    played_at: datetime | None = None

    def side_of(self, player_id: str) -> str | None:
        """``"white"`` or ``"black"``: the side ``player_id`` played (None: neither)."""
        return "white" if player_id == self.white else "black" if player_id == self.black else None


class Analyses:
    """The analyses of a ledger's live games."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def pending(self, limit: int, min_plies: int = 1) -> list[PendingGame]:
        """At most ``limit`` finished rated online games with moves, of at least
        ``min_plies`` plies, not annulled and not analysed yet, the earliest ended first:
        live games (their recorded moves) and games submitted with their moves
        (``game_moves``)."""
        if not self.ledger.info.live_games:
            return []
        live_query = self._live_waiting(min_plies).add_columns(
            live_games.c.white, live_games.c.black, live_games.c.moves, live_games.c.ended_at
        )
        posted_query = self._posted_waiting(min_plies).add_columns(
            game_moves.c.moves, games.c.played_at
        )
        with self.ledger.reading() as conn:
            live = conn.execute(
                live_query.order_by(live_games.c.ended_at, live_games.c.id).limit(limit)
            ).all()
            posted = conn.execute(
                posted_query.order_by(games.c.played_at, games.c.id).limit(limit)
            ).all()
        waiting: list[tuple[datetime, str, tuple[str | None, ...]]] = [
            (as_utc(row.ended_at), row.id, tuple(move for _, _, move in json.loads(row.moves)))
            for row in live
        ]
        waiting += [(moment(row.played_at), row.id, tuple(row.moves.split())) for row in posted]
        waiting.sort(key=lambda item: (item[0], item[1]))
        pending = []
        for _, game_id, moves in waiting[:limit]:
            view = self.ledger.games.get(game_id)
            white, black = view.record.white, view.record.black
            ratings: dict[Side, int | None] = {}
            played: dict[Side, int] = {}
            for side, player in ((Side.WHITE, white), (Side.BLACK, black)):
                change = next((c for c in view.changes if c.player == player), None)
                before = None if change is None else change.before
                ratings[side] = None if before is None else int(before.quantize(Decimal(1)))
                played[side] = 0 if change is None else change.games_before
            pending.append(PendingGame(game_id, white, black, moves, ratings, played))
        return pending

    def counts(self, min_plies: int = 1) -> AnalysisCounts:
        """How many games wait for their analysis (as :meth:`pending` chooses them), how
        many are analysed and how many of those flagged someone: three counts, for
        ``/healthz``."""
        if not self.ledger.info.live_games:
            return AnalysisCounts(0, 0, 0)
        with self.ledger.reading() as conn:
            waiting = sum(
                conn.execute(select(func.count()).select_from(query.subquery())).scalar_one()
                for query in (self._live_waiting(min_plies), self._posted_waiting(min_plies))
            )
            analysed, flagged = conn.execute(
                select(func.count(), func.count().filter(analyses.c.flagged.is_(True)))
            ).one()
        return AnalysisCounts(int(waiting), int(analysed), int(flagged or 0))

    @staticmethod
    def _live_waiting(min_plies: int) -> Select[tuple[str]]:
        """The finished rated online live games of ``min_plies`` plies or more, not
        annulled, not analysed."""
        rated = rows.OUTCOMES.index(Outcome.RATED)
        return (
            select(live_games.c.id)
            .join(games, games.c.id == live_games.c.id)
            .outerjoin(analyses, analyses.c.game_id == live_games.c.id)
            .where(live_games.c.status == LiveStatus.ENDED.value)
            .where(live_games.c.rated.is_(True))
            .where(live_games.c.venue == Venue.ONLINE.value)
            .where(live_games.c.plies >= min_plies)
            .where(games.c.outcome == rated)
            .where(games.c.annulled.is_(False))
            .where(analyses.c.game_id.is_(None))
        )

    @staticmethod
    def _posted_waiting(min_plies: int) -> Select[tuple[str]]:
        """The rated online games submitted with ``min_plies`` moves or more, not
        annulled, not analysed; not live games (whose moves, kept with the rated game
        too, :meth:`_live_waiting` reads)."""
        rated = rows.OUTCOMES.index(Outcome.RATED)
        return (
            select(games.c.id)
            .join(game_moves, game_moves.c.game_id == games.c.id)
            .outerjoin(analyses, analyses.c.game_id == games.c.id)
            .outerjoin(live_games, live_games.c.id == games.c.id)
            .where(live_games.c.id.is_(None))
            .where(game_moves.c.plies >= min_plies)
            .where(games.c.venue == rows.VENUES.index(Venue.ONLINE))
            .where(games.c.outcome == rated)
            .where(games.c.annulled.is_(False))
            .where(analyses.c.game_id.is_(None))
        )

    @contextmanager
    def claim(self, game_id: str) -> Iterator[bool]:
        """Claim the game for an analysis while the block runs: yield True holding the
        claim, False at once when another process (this host's or another's) holds it.
        On PostgreSQL a session-level advisory lock (:data:`CLAIM_SPACE`,
        :func:`claim_key`) on a connection of its own, released at the end of the block
        or, when the process dies, with its session, so a killed host's game is taken by
        the next round of another. On SQLite (one machine, one writer at a time; the
        machine's detector lock serialises the rounds) the claim is always had."""
        if not self.ledger.postgres:
            yield True
            return
        key = {"space": CLAIM_SPACE, "game": claim_key(game_id)}
        with connection_errors():
            conn = self.ledger.engine.connect()
        held = False
        try:
            with connection_errors():
                held = bool(
                    conn.execute(text("SELECT pg_try_advisory_lock(:space, :game)"), key).scalar()
                )
                conn.commit()
            yield held
        finally:
            try:
                if held:
                    conn.execute(text("SELECT pg_advisory_unlock(:space, :game)"), key)
                    conn.commit()
            except Exception as error:  # the session goes, and the claim with it
                log.warning("detector: game %s: claim not released (%s): closing", game_id, error)
                conn.invalidate()
            conn.close()

    def analysed(self, game_id: str) -> bool:
        """Whether the game's analysis is stored."""
        with self.ledger.reading() as conn:
            query = select(analyses.c.game_id).where(analyses.c.game_id == game_id)
            return conn.execute(query).first() is not None

    @contextmanager
    def storing(
        self,
        game_id: str,
        engine: str,
        limits: dict[str, Any],
        evidence: dict[str, Any] | None,
        flagged: bool,
        note: str | None,
        now: datetime,
    ) -> Iterator[Storing | None]:
        """Store a game's analysis in a transaction that goes on in the block: yield a
        :class:`Storing` (record flags and file reports through it: they commit with
        the analysis, or nothing does), or None when the game was analysed already
        (by another process meanwhile; nothing stored). The game's two players are
        locked first (id order, as every write about them)."""
        with self.ledger.transaction() as conn:
            row = common.game_row(conn, game_id)
            if row is None:
                raise NotFound(f"game {game_id}: no such game")
            namer = common.namer(conn, row)
            common.load_players(conn, (namer(row.white), namer(row.black)), lock=True)
            query = select(analyses.c.game_id).where(analyses.c.game_id == game_id)
            if conn.execute(query).first() is not None:
                yield None
                return
            conn.execute(
                insert(analyses).values(
                    game_id=game_id, analysed_at=now, engine=engine[:64],
                    limits=codec.dumps(limits),
                    evidence=None if evidence is None else codec.dumps(evidence),
                    flagged=flagged, flags="[]", note=note,
                )
            )  # fmt: skip
            yield Storing(self, conn, game_id)

    def store(
        self,
        game_id: str,
        engine: str,
        limits: dict[str, Any],
        evidence: dict[str, Any] | None,
        flagged: bool,
        note: str | None,
        now: datetime,
    ) -> bool:
        """Store a game's analysis alone; False when the game was analysed already (by
        another worker meanwhile)."""
        with self.storing(game_id, engine, limits, evidence, flagged, note, now) as stored:
            return stored is not None

    def record_flag(self, game_id: str, player: str) -> None:
        """Add ``player`` to the game's recorded flags (once)."""
        with self.ledger.transaction() as conn:
            self.record_flag_in(conn, game_id, player)

    @staticmethod
    def record_flag_in(conn: Connection, game_id: str, player: str) -> None:
        """:meth:`record_flag` in the transaction of ``conn``."""
        query = select(analyses.c.flags).where(analyses.c.game_id == game_id)
        stored = conn.execute(query.with_for_update()).scalar_one_or_none()
        if stored is None:
            raise NotFound(f"game {game_id}: no analysis to flag")
        flags = json.loads(stored)
        if player not in flags:
            flags.append(player)
            conn.execute(
                update(analyses).where(analyses.c.game_id == game_id)
                .values(flags=codec.dumps(flags), flagged=True)
            )  # fmt: skip

    def get(self, game_id: str) -> AnalysisView:
        with self.ledger.reading() as conn:
            row = conn.execute(select(analyses).where(analyses.c.game_id == game_id)).first()
        if row is None:
            raise NotFound(f"game {game_id}: not analysed")
        return _view(row)

    def recent_of(self, player_id: str, limit: int = 10) -> list[AnalysisView]:
        """The stored analyses of the last ``limit`` analysed games ``player_id``
        played (either side), the newest game first (the ledger's game order); each
        with the game's players and date. An unknown player has none."""
        with self.ledger.reading() as conn:
            return self.recent_of_in(conn, player_id, limit)

    @staticmethod
    def recent_of_in(conn: Connection, player_id: str, limit: int = 10) -> list[AnalysisView]:
        """:meth:`recent_of` read through ``conn`` (a transaction sees its own rows)."""
        key = conn.execute(select(players.c.key).where(players.c.id == player_id)).scalar()
        if key is None:
            return []
        query = (
            select(analyses, games.c.white.label("white_key"),
                   games.c.black.label("black_key"), games.c.played_at.label("played"))
            .join(games, games.c.id == analyses.c.game_id)
            .where(or_(games.c.white == key, games.c.black == key))
            .order_by(games.c.seq.desc())
            .limit(max(0, limit))
        )  # fmt: skip
        found = conn.execute(query).all()
        keys = {k for row in found for k in (row.white_key, row.black_key)}
        named = select(players.c.key, players.c.id).where(players.c.key.in_(keys))
        ids = {row.key: row.id for row in conn.execute(named)} if keys else {}
        return [
            _view(row, ids.get(row.white_key), ids.get(row.black_key), codec_moment(row.played))
            for row in found
        ]

    def list(self, flagged: bool | None = None, limit: int = 100) -> list[AnalysisView]:
        """Stored analyses, the latest first; only the flagged (or unflagged) ones when
        told."""
        query = select(analyses)
        if flagged is not None:
            query = query.where(analyses.c.flagged.is_(flagged))
        query = query.order_by(analyses.c.analysed_at.desc(), analyses.c.game_id).limit(limit)
        with self.ledger.reading() as conn:
            return [_view(row) for row in conn.execute(query).all()]


@dataclass(frozen=True, slots=True)
class Storing:
    """A game's analysis being stored (:meth:`Analyses.storing`): what the detector
    writes with it goes through here, in the same transaction."""

    analyses: Analyses
    conn: Connection
    game_id: str

    def recent_of(self, player_id: str, limit: int = 10) -> list[AnalysisView]:
        """:meth:`Analyses.recent_of`, this game's analysis included."""
        return self.analyses.recent_of_in(self.conn, player_id, limit)

    def record_flag(self, player: str) -> None:
        """Add ``player`` to this game's recorded flags (once)."""
        self.analyses.record_flag_in(self.conn, self.game_id, player)

    def file_report(
        self, by: str, reason: str, evidence: dict[str, Any], now: datetime, accused: str
    ) -> tuple[ReportView, bool]:
        """The detector's report on this game (:meth:`Reviews.file_report
        <chessrate.ledger.reviews.Reviews.file_report>`, source ``detector``)."""
        return self.analyses.ledger.reviews.file_report(
            self.game_id, by, reason, evidence, "detector", now, accused=accused, conn=self.conn
        )


def codec_moment(micros: int | None) -> datetime | None:
    """A ``games.played_at`` (microseconds since 1970 UTC) as a moment."""
    return None if micros is None else moment(int(micros))


def _view(
    row: Any, white: str | None = None, black: str | None = None,
    played_at: datetime | None = None,
) -> AnalysisView:  # fmt: skip
    return AnalysisView(
        game_id=row.game_id,
        analysed_at=as_utc(row.analysed_at),
        engine=row.engine,
        limits=json.loads(row.limits),
        evidence=None if row.evidence is None else json.loads(row.evidence),
        flagged=row.flagged,
        flags=tuple(json.loads(row.flags)),
        note=row.note,
        white=white,
        black=black,
        played_at=played_at,
    )
