"""seeks: players looking for a game, paired by site Elo

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 14:00:00

One row per seek: its player, time control (the parsed control's one written form,
``180+2``), rated flag, optional absolute site Elo range, when it was made and when
it expires, and how it ended (paired into a live game, cancelled, expired). A partial
unique index keeps one open seek per player and control.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    seq = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.create_table(
        "seeks",
        sa.Column("id", seq, nullable=False, autoincrement=True),
        sa.Column("player_id", sa.String(length=200), nullable=False),
        sa.Column("time_control", sa.String(length=64), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("min_rating", sa.Integer(), nullable=True),
        sa.Column("max_rating", sa.Integer(), nullable=True),
        sa.Column("bot", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("paired_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("live_game_id", sa.String(length=200), nullable=True),
        sa.Column("opponent", sa.String(length=200), nullable=True),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("seeks_open", "seeks", ["status", "expires_at"], unique=False)
    op.create_index("seeks_player", "seeks", ["player_id", "id"], unique=False)
    op.create_index(
        "seeks_one_open",
        "seeks",
        ["player_id", "time_control"],
        unique=True,
        sqlite_where=sa.text("status = 'open'"),
        postgresql_where=sa.text("status = 'open'"),
    )


def downgrade() -> None:
    op.drop_index("seeks_one_open", table_name="seeks")
    op.drop_index("seeks_player", table_name="seeks")
    op.drop_index("seeks_open", table_name="seeks")
    op.drop_table("seeks")
