"""games and changes as numbers; players get an integer key; one sequence of events

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 10:30:00

Before: every game was stored three times as JSON (its event's payload, the games
row's record, and one JSON detail per change with its note in words), about 2 KB a
game. After: a game is one row of numbers in ``games`` (its ``seq`` is its event's),
a change is one row of numbers in ``changes`` keyed (player, pool, seq), and the
words are written again from the numbers when read (:mod:`chessrate.ledger.rows`).

The conversion replays the ledger's events in commit order through the reference
engine, as ``chessrate verify`` does: the numbers the old rows did not keep (a
first rating's Ra, corr's sum of performances, the reason of a decision) come from
the replay, and every number the old rows kept is compared with the replay's; a
ledger whose stored changes differ from its replay is not converted (the
migration stops with the first difference and changes nothing). There is no
downgrade.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

Seq = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _create_tables(suffix: str) -> None:
    op.create_table(
        f"games{suffix}",
        sa.Column("seq", Seq, autoincrement=False, nullable=False),
        sa.Column("id", sa.String(length=200), nullable=False),
        sa.Column("played_at", sa.BigInteger(), nullable=False),
        sa.Column("white", sa.BigInteger(), nullable=False),
        sa.Column("black", sa.BigInteger(), nullable=False),
        sa.Column("result", sa.SmallInteger(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("time_control", sa.String(length=64), nullable=True),
        sa.Column("termination", sa.SmallInteger(), nullable=False),
        sa.Column("plies", sa.Integer(), nullable=True),
        sa.Column("venue", sa.SmallInteger(), nullable=False),
        sa.Column("confirmed", sa.Boolean(), nullable=True),
        sa.Column("outcome", sa.SmallInteger(), nullable=False),
        sa.Column("reason", sa.SmallInteger(), nullable=False),
        sa.Column("annulled", sa.Boolean(), nullable=False),
        sa.Column("submitted_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("seq"),
        sa.UniqueConstraint("id", name=f"games{suffix}_id_key"),
    )
    op.create_table(
        f"changes{suffix}",
        sa.Column("player", sa.BigInteger(), nullable=False),
        sa.Column("pool", sa.SmallInteger(), nullable=False),
        sa.Column("seq", Seq, autoincrement=False, nullable=False),
        sa.Column("game", sa.BigInteger(), nullable=True),
        sa.Column("slot", sa.SmallInteger(), nullable=False),
        sa.Column("rule", sa.SmallInteger(), nullable=False),
        sa.Column("opponent", sa.BigInteger(), nullable=False),
        sa.Column("score", sa.SmallInteger(), nullable=False),
        sa.Column("before", sa.BigInteger(), nullable=True),
        sa.Column("after", sa.BigInteger(), nullable=True),
        sa.Column("state_before", sa.SmallInteger(), nullable=False),
        sa.Column("state_after", sa.SmallInteger(), nullable=False),
        sa.Column("games_before", sa.Integer(), nullable=False),
        sa.Column("games_after", sa.Integer(), nullable=False),
        sa.Column("opponent_rating", sa.BigInteger(), nullable=True),
        sa.Column("k", sa.Integer(), nullable=True),
        sa.Column("d", sa.BigInteger(), nullable=True),
        sa.Column("pd", sa.BigInteger(), nullable=True),
        sa.Column("basis", sa.BigInteger(), nullable=True),
        sa.Column("code", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("player", "pool", "seq"),
        sqlite_with_rowid=False,
    )


def upgrade() -> None:
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    if not postgres:
        # The old games table is dropped while annulments still name it; the new one
        # (same name, ids unique) satisfies them again before the commit.
        op.execute("PRAGMA defer_foreign_keys = ON")
    op.add_column("players", sa.Column("key", sa.BigInteger(), nullable=True))
    people = bind.execute(sa.text("SELECT id FROM players ORDER BY created_at, id")).all()
    keys = {row.id: number for number, row in enumerate(people, start=1)}
    if keys:
        bind.execute(
            sa.text("UPDATE players SET key = :key WHERE id = :id"),
            [{"key": key, "id": player_id} for player_id, key in keys.items()],
        )
    op.create_index("players_key", "players", ["key"], unique=True)

    _create_tables("_v3")
    system_id = bind.execute(sa.text("SELECT value FROM settings WHERE key = 'system'")).scalar()
    game_rows: list[dict[str, Any]] = []
    change_rows: list[dict[str, Any]] = []
    if system_id in ("arena", "corr", "site"):
        game_rows, change_rows = _convert(bind, system_id, keys)
        _restate(bind, system_id)

    op.drop_table("changes")
    if postgres:
        op.drop_constraint("annulments_game_id_fkey", "annulments", type_="foreignkey")
    op.drop_table("games")
    op.rename_table("games_v3", "games")
    op.rename_table("changes_v3", "changes")
    op.execute("DELETE FROM events WHERE kind = 'game'")
    # Written once the new tables have their names (SQLite counts the annulments of
    # the dropped games as pending until their games are inserted again).
    if game_rows:
        bind.execute(sa.table("games", *map(sa.column, game_rows[0])).insert(), game_rows)
    if change_rows:
        bind.execute(sa.table("changes", *map(sa.column, change_rows[0])).insert(), change_rows)
    if postgres:
        op.execute("ALTER INDEX games_v3_pkey RENAME TO games_pkey")
        op.execute("ALTER TABLE games RENAME CONSTRAINT games_v3_id_key TO games_id_key")
        op.execute("ALTER INDEX changes_v3_pkey RENAME TO changes_pkey")
        op.create_foreign_key("annulments_game_id_fkey", "annulments", "games", ["game_id"], ["id"])
        last = bind.execute(sa.text("SELECT coalesce(max(seq), 0) FROM events")).scalar_one()
        last_game = bind.execute(sa.text("SELECT coalesce(max(seq), 0) FROM games")).scalar_one()
        op.execute(f"CREATE SEQUENCE ledger_seq START {max(last, last_game) + 1}")
        op.execute(f"CREATE SEQUENCE player_keys START {len(keys) + 1}")


def _convert(
    bind: Any, system_id: str, keys: dict[str, int]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Replay the old events through the engine: the numeric rows of the games and of
    the changes."""
    from chessrate.engine import Engine
    from chessrate.ledger import codec, rows
    from chessrate.records import GameRecord, Player, microseconds
    from chessrate.systems import get_system

    system = get_system(system_id)
    engine: Engine[Any] = Engine(system)
    stored_games = {
        row.id: row
        for row in bind.execute(sa.text("SELECT id, seq, annulled, submitted_at FROM games")).all()
    }
    stored_changes: dict[int, list[Any]] = {}
    for row in bind.execute(sa.text("SELECT seq, detail FROM changes ORDER BY id")):
        stored_changes.setdefault(row.seq, []).append(
            codec.change_from_mapping(json.loads(row.detail))
        )
    seq_of_game: dict[str, int] = {}
    game_rows: list[dict[str, Any]] = []
    change_rows: list[dict[str, Any]] = []
    events = bind.execute(sa.text("SELECT seq, kind, ref, payload, at FROM events ORDER BY seq"))
    for seq, kind, ref, payload, at in events:
        data = json.loads(payload)
        if kind == "player":
            engine.set_player(Player.from_mapping(data, f"event {seq}", stored=True))
            continue
        if kind == "game":
            record = GameRecord.from_mapping(data, f"event {seq}", stored=True)
            rating = engine.apply(record)
            changes = rating.changes
            stored = stored_games[ref]
            game_rows.append({
                "seq": seq, **rows.game_row(record, keys.__getitem__),
                "outcome": rows.OUTCOMES.index(rating.outcome),
                "reason": rating.reason_code, "annulled": bool(stored.annulled),
                "submitted_at": microseconds(_moment(stored.submitted_at)),
            })  # fmt: skip
            seq_of_game[ref] = seq
            game = None
        else:
            changes = engine.annul(ref, data["reason"], _moment(at), data["by"]).changes
            game = seq_of_game[ref]
        _check(seq, changes, stored_changes.get(seq, []))
        for slot, change in enumerate(changes):
            row = rows.change_row(system, change, slot, keys.__getitem__)
            change_rows.append({**row, "seq": seq, "game": game})
    return game_rows, change_rows


def _restate(bind: Any, system_id: str) -> None:
    """The current ratings' states in the codec's form of today (every rating number
    with its hundredths: ``1500.00``, never ``1500``)."""
    from chessrate.ledger import codec

    found = bind.execute(sa.text("SELECT player_id, pool, state FROM ratings")).all()
    changed = [
        {"player_id": row.player_id, "pool": row.pool, "state": text}
        for row in found
        if (text := codec.state_to_json(system_id, codec.state_from_json(system_id, row.state)))
        != row.state
    ]
    if changed:
        bind.execute(
            sa.text(
                "UPDATE ratings SET state = :state WHERE player_id = :player_id AND pool = :pool"
            ),
            changed,
        )


def _check(seq: int, replayed: tuple[Any, ...], stored: list[Any]) -> None:
    """Every number the old rows kept against the replay's (the words may differ)."""
    blank = {"note": "", "basis": None, "code": None}
    if [replace(c, **blank) for c in replayed] != [replace(c, **blank) for c in stored]:
        raise RuntimeError(
            f"event {seq}: the stored changes differ from the replay; the ledger was not "
            "converted (run chessrate verify with the previous version)"
        )


def _moment(value: Any) -> datetime:
    from chessrate.ledger.connection import as_utc

    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return as_utc(value)


def downgrade() -> None:
    raise NotImplementedError("the numeric rows cannot be turned back into JSON rows")
