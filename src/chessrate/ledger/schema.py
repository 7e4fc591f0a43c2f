"""The ledger's tables (SQLAlchemy Core). Alembic migrations in ``migrations/`` create
them.

Games and their changes are stored as numbers (:mod:`chessrate.ledger.rows`): ratings
in integer hundredths, moments in microseconds since 1970 UTC, players by their
integer ``key``, rules, pools, states, results and reasons as codes; the words of a
change or a decision are written again from the numbers when they are read. Every
event has a ``seq``, one sequence for the whole ledger: a game's is its key in
``games``; players' and annulments' events are in ``events``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.types import TypeDecorator

metadata = MetaData()


class UtcDateTime(TypeDecorator[datetime]):
    """A moment, stored in UTC on every database: every ``DateTime`` column of the
    ledger. A naive datetime is UTC (the ledger's rule); an aware one is converted to
    UTC before it is written (SQLite's ``DateTime`` writes the wall time and drops the
    offset: 10:00+02:00 was stored, and read back, as 10:00 UTC; migration 0010 repairs
    the rows whose text kept an offset). Read back: an aware UTC datetime, on SQLite
    and PostgreSQL alike. Comparisons with a column (``deadline_at <= now``) go through
    the same conversion."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if not isinstance(value, datetime):
            return value  # (None; SQLAlchemy refuses anything else itself)
        moment = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return moment.replace(tzinfo=None) if dialect.name == "sqlite" else moment

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if not isinstance(value, datetime):
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# SQLite makes an autoincrementing key only of INTEGER PRIMARY KEY.
Seq = BigInteger().with_variant(Integer(), "sqlite")

settings = Table(
    "settings",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

players = Table(
    "players",
    metadata,
    Column("id", String(200), primary_key=True),
    # The integer the games and changes name the player by; always set (the
    # migration that added it could not declare it NOT NULL on SQLite).
    Column("key", BigInteger),
    Column("name", Text),
    Column("search", Text),  # folding.search_key(id, name): what search matches
    Column("attributes", Text, nullable=False),  # Player.to_mapping() as JSON
    Column("bot", Boolean, nullable=False, default=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("updated_at", UtcDateTime(), nullable=False),
)

Index("players_key", players.c.key, unique=True)

events = Table(
    "events",
    metadata,
    Column("seq", Seq, primary_key=True, autoincrement=False),
    Column("kind", String(16), nullable=False),  # player | annulment
    Column("ref", String(200), nullable=False),  # player id or game id
    Column("payload", Text, nullable=False),
    Column("at", UtcDateTime(), nullable=False),
)

games = Table(
    "games",
    metadata,
    Column("seq", Seq, primary_key=True, autoincrement=False),
    Column("id", String(200), nullable=False, unique=True),
    Column("played_at", BigInteger, nullable=False),  # microseconds since 1970 UTC
    Column("white", BigInteger, nullable=False),  # players.key
    Column("black", BigInteger, nullable=False),
    Column("result", SmallInteger, nullable=False),  # rows.RESULTS
    Column("rated", Boolean, nullable=False),
    Column("time_control", String(64)),
    Column("termination", SmallInteger, nullable=False),  # rows.TERMINATIONS
    Column("plies", Integer),
    Column("venue", SmallInteger, nullable=False),  # rows.VENUES
    Column("confirmed", Boolean),
    Column("outcome", SmallInteger, nullable=False),  # rows.OUTCOMES
    Column("reason", SmallInteger, nullable=False),  # the system's reason code
    Column("annulled", Boolean, nullable=False),
    Column("submitted_at", BigInteger, nullable=False),  # microseconds since 1970 UTC
)
# A player's games, newest first: two index ranges (migration 0005).
Index("games_white", games.c.white, games.c.seq)
Index("games_black", games.c.black, games.c.seq)

changes = Table(
    "changes",
    metadata,
    # A player's history in a pool is one range of the key (no other index).
    Column("player", BigInteger, primary_key=True),  # players.key
    Column("pool", SmallInteger, primary_key=True),  # position in system.pools
    Column("seq", Seq, primary_key=True, autoincrement=False),  # the event
    Column("game", BigInteger),  # an annulment's game (its seq); NULL: the event's own
    Column("slot", SmallInteger, nullable=False),  # its place among the event's changes
    Column("rule", SmallInteger, nullable=False),  # position in system.rules_cited
    Column("opponent", BigInteger, nullable=False),  # players.key
    Column("score", SmallInteger, nullable=False),  # half points
    Column("before", BigInteger),  # hundredths, as every rating number below
    Column("after", BigInteger),
    Column("state_before", SmallInteger, nullable=False),  # position in system.states
    Column("state_after", SmallInteger, nullable=False),
    Column("games_before", Integer, nullable=False),
    Column("games_after", Integer, nullable=False),
    Column("opponent_rating", BigInteger),
    Column("k", Integer),
    Column("d", BigInteger),
    Column("pd", BigInteger),
    Column("basis", BigInteger),
    Column("code", Integer),
    sqlite_with_rowid=False,
)

ratings = Table(
    "ratings",
    metadata,
    Column("player_id", String(200), ForeignKey("players.id"), primary_key=True),
    Column("pool", String(32), primary_key=True),
    Column("rating_cents", BigInteger),
    Column("display", String(32), nullable=False),
    Column("state_name", String(16), nullable=False),
    Column("games", Integer, nullable=False),
    Column("listed", Boolean, nullable=False),
    Column("state", Text, nullable=False),  # codec.state_to_json
    Column("seq", Seq, nullable=False),
)
Index("ratings_board", ratings.c.pool, ratings.c.listed, ratings.c.rating_cents)

annulments = Table(
    "annulments",
    metadata,
    Column("game_id", String(200), ForeignKey("games.id"), primary_key=True),
    Column("seq", Seq, ForeignKey("events.seq"), nullable=False),
    Column("at", UtcDateTime(), nullable=False),
    Column("by", String(200)),
    Column("reason", Text, nullable=False),
)

tokens = Table(
    "tokens",
    metadata,
    Column("id", Seq, primary_key=True, autoincrement=True),
    Column("hash", String(64), nullable=False, unique=True),
    Column("role", String(16), nullable=False),
    Column("label", Text, nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("expires_at", UtcDateTime()),  # None: never
    Column("revoked_at", UtcDateTime()),  # None: not revoked
    sqlite_autoincrement=True,
)

# Fair play (migration 0007): one review case per reported game, its reports (one per
# reporter), and the audit log of every moderation action.
reviews = Table(
    "reviews",
    metadata,
    Column("game_id", String(200), ForeignKey("games.id"), primary_key=True),
    Column("status", String(16), nullable=False),  # open | confirmed | dismissed
    Column("opened_at", UtcDateTime(), nullable=False),
    Column("updated_at", UtcDateTime(), nullable=False),
    Column("decided_by", String(200)),  # the last decision's moderator
    Column("decided_at", UtcDateTime()),
    Column("note", Text),  # the last decision's reason or note
)
Index("reviews_status", reviews.c.status)

reports = Table(
    "reports",
    metadata,
    Column("id", Seq, primary_key=True, autoincrement=True),
    Column("game_id", String(200), ForeignKey("reviews.game_id"), nullable=False),
    Column("by", String(200), nullable=False),  # a player id, or the detector's name
    Column("source", String(16), nullable=False),  # player | detector
    Column("reason", Text, nullable=False),
    Column("evidence", Text),  # JSON (a detector's), or NULL
    Column("at", UtcDateTime(), nullable=False),
    UniqueConstraint("game_id", "by", name="reports_game_by"),
    # migration 0012: whom the report accuses (one of the game's players; NULL: not
    # named) and the API token it was filed through (NULL: given to the ledger directly)
    Column("accused", String(200)),
    Column("token_id", Seq),
    sqlite_autoincrement=True,
)

# Moderators' web sessions (migration 0012): the SHA-256 of the cookie's random id, the
# moderator token signed in, and until when. Signing out deletes the row.
sessions = Table(
    "sessions",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("token_id", Seq, ForeignKey("tokens.id"), nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("expires_at", UtcDateTime(), nullable=False),
)
Index("sessions_token", sessions.c.token_id)
Index("sessions_expires", sessions.c.expires_at)

audit = Table(
    "audit",
    metadata,
    Column("id", Seq, primary_key=True, autoincrement=True),
    Column("at", UtcDateTime(), nullable=False),
    Column("who", String(200), nullable=False),
    Column("action", String(32), nullable=False),  # ledger.audit.ACTIONS
    Column("target", String(200), nullable=False),  # a game id, a token id
    Column("details", Text, nullable=False),  # why, in words
    sqlite_autoincrement=True,
)

fide_periods = Table(
    "fide_periods",
    metadata,
    Column("id", Seq, primary_key=True, autoincrement=True),
    Column("name", Text, nullable=False),
    Column("bonus", String(16), nullable=False),
    Column("floor", Integer, nullable=False),
    Column("rules", String(16), nullable=False, server_default="seed"),  # RULESETS' name
    Column("list_date", Date),  # the date of the list the period makes (fide-2024)
    Column("list_kind", String(16), nullable=False, server_default="standard"),  # ListKind
    # rated by FideRules.for_period (the rules in force on list_date, per list); false:
    # a period closed before 0014, rated by FideRules.named (the rules as they stood)
    Column("rules_by_date", Boolean, nullable=False, server_default=false()),
    # rapid, blitz: the standard period whose list gave unrated players their standard
    # ratings when it closed (R&B 7.2.1); null: a standard period, or none was closed
    Column("standard_from", Seq),
    Column("start_list", Text, nullable=False),  # the CSV as uploaded (or chained)
    Column("closed_at", UtcDateTime()),
    Column("created_at", UtcDateTime(), nullable=False),
    sqlite_autoincrement=True,
)

fide_files = Table(
    "fide_files",
    metadata,
    Column("id", Seq, primary_key=True, autoincrement=True),
    Column("period_id", Seq, ForeignKey("fide_periods.id"), nullable=False, index=True),
    Column("name", Text, nullable=False),
    Column("content", Text, nullable=False),
    Column("round_robin", Boolean),
    sqlite_autoincrement=True,
)

fide_results = Table(
    "fide_results",
    metadata,
    Column("period_id", Seq, ForeignKey("fide_periods.id"), primary_key=True),
    Column("player_id", String(200), primary_key=True),
    Column("position", Integer, nullable=False),
    Column("name", Text, nullable=False),
    Column("old_rating", Integer),
    Column("new_rating", Integer),
    Column("games", Integer, nullable=False),
    Column("report", Text, nullable=False),  # the player's report as JSON
)

live_games = Table(
    "live_games",
    metadata,
    Column("id", String(200), primary_key=True),
    Column("white", String(200), ForeignKey("players.id"), nullable=False, index=True),
    Column("black", String(200), ForeignKey("players.id"), nullable=False, index=True),
    Column("rated", Boolean, nullable=False),
    Column("time_control", String(64)),
    Column("venue", String(16), nullable=False),
    Column("bot", String(8)),  # the bot's side, white | black
    Column("status", String(24), nullable=False),  # site_live.LiveStatus
    Column("opened_at", UtcDateTime(), nullable=False),
    Column("plies", Integer, nullable=False),
    Column("moves", Text, nullable=False),  # site_live.plies_text as JSON
    Column("deadline_at", UtcDateTime()),
    Column("result", String(8)),
    Column("termination", String(16)),
    Column("played_at", UtcDateTime()),  # otb: when it was played
    Column("registered_by", String(200)),  # otb: who registered the result
    Column("ended_at", UtcDateTime()),
    Column("ended_by", String(200)),  # a player, "sweeper", or the writer
    Column("ending", Text),  # why it ended so, in words
)
Index("live_games_due", live_games.c.status, live_games.c.deadline_at)

seeks = Table(
    "seeks",
    metadata,
    Column("id", Seq, primary_key=True, autoincrement=True),
    Column("player_id", String(200), ForeignKey("players.id"), nullable=False),
    Column("time_control", String(64), nullable=False),  # str(TimeControl): one form
    Column("rated", Boolean, nullable=False),
    Column("min_rating", Integer),  # an absolute site Elo range, when given
    Column("max_rating", Integer),
    Column("bot", Boolean, nullable=False),  # "play a bot": paired at once
    Column("status", String(16), nullable=False),  # open | paired | cancelled | expired
    Column("created_at", UtcDateTime(), nullable=False),
    Column("expires_at", UtcDateTime(), nullable=False),
    Column("paired_at", UtcDateTime()),
    Column("closed_at", UtcDateTime()),  # cancelled or expired
    Column("live_game_id", String(200)),  # the game it was paired into
    Column("opponent", String(200)),
    Column("client_key", String(64)),  # the client's own key (migration 0015), or NULL
    sqlite_autoincrement=True,
)
# The pass: the open seeks, and those that expired.
Index("seeks_open", seeks.c.status, seeks.c.expires_at)
# A player's seeks (their /play page, GET /seeks?player=).
Index("seeks_player", seeks.c.player_id, seeks.c.id)
# A seek sent again with its key is the same seek (NULLs are never equal).
Index("seeks_client_key", seeks.c.player_id, seeks.c.client_key, unique=True)
# At most one open seek per player and time control, whatever races the API.
Index(
    "seeks_one_open",
    seeks.c.player_id,
    seeks.c.time_control,
    unique=True,
    sqlite_where=seeks.c.status == "open",
    postgresql_where=seeks.c.status == "open",
)

analyses = Table(
    "analyses",
    metadata,
    Column("game_id", String(200), ForeignKey("games.id"), primary_key=True),
    Column("analysed_at", UtcDateTime(), nullable=False),
    Column("engine", String(64), nullable=False),  # e.g. "Stockfish 15.1"
    Column("limits", Text, nullable=False),  # DetectorRules.limits() as JSON
    Column("evidence", Text),  # Evidence.to_json() as JSON; NULL: not analysable (note)
    Column("flagged", Boolean, nullable=False),  # a player was flagged
    Column("flags", Text, nullable=False),  # JSON list: the players on_flag recorded
    Column("note", Text),  # why the game could not be analysed
)
Index("analyses_flagged", analyses.c.flagged, analyses.c.analysed_at)

game_moves = Table(
    "game_moves",
    metadata,
    # The moves a game was submitted with (POST /games, batches, imports; migration
    # 0011): a live game's moves stay in live_games.
    Column("game_id", String(200), ForeignKey("games.id"), primary_key=True),
    Column("plies", Integer, nullable=False),
    Column("moves", Text, nullable=False),  # UCI moves from the start, separated by spaces
)

# Marks (migration 0013): a moderator marks a player whose cheating is confirmed; a
# marked player is paired only with marked players. One row per mark, kept when it is
# lifted (who, when, why); a player has at most one mark not lifted.
player_marks = Table(
    "player_marks",
    metadata,
    Column("id", Seq, primary_key=True, autoincrement=True),
    Column("player_id", String(200), ForeignKey("players.id"), nullable=False),
    Column("marked_by", String(200), nullable=False),
    Column("marked_at", UtcDateTime(), nullable=False),
    Column("reason", Text, nullable=False),
    Column("lifted_by", String(200)),  # None: in force
    Column("lifted_at", UtcDateTime()),
    Column("lift_reason", Text),
    sqlite_autoincrement=True,
)
# At most one mark in force per player, whatever races the API.
Index(
    "player_marks_in_force",
    player_marks.c.player_id,
    unique=True,
    sqlite_where=player_marks.c.lifted_at.is_(None),
    postgresql_where=player_marks.c.lifted_at.is_(None),
)
