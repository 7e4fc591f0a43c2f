"""live games (site S7-S9: deadlines, aborts, bot moves, expiry, otb confirmation)

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 02:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "live_games",
        sa.Column("id", sa.String(length=200), nullable=False),
        sa.Column("white", sa.String(length=200), nullable=False),
        sa.Column("black", sa.String(length=200), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("time_control", sa.String(length=64), nullable=True),
        sa.Column("venue", sa.String(length=16), nullable=False),
        sa.Column("bot", sa.String(length=8), nullable=True),
        sa.Column("status", sa.String(length=24), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("plies", sa.Integer(), nullable=False),
        sa.Column("moves", sa.Text(), nullable=False),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.String(length=8), nullable=True),
        sa.Column("termination", sa.String(length=16), nullable=True),
        sa.Column("played_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("registered_by", sa.String(length=200), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_by", sa.String(length=200), nullable=True),
        sa.Column("ending", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["black"], ["players.id"]),
        sa.ForeignKeyConstraint(["white"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_live_games_white", "live_games", ["white"], unique=False)
    op.create_index("ix_live_games_black", "live_games", ["black"], unique=False)
    op.create_index("live_games_due", "live_games", ["status", "deadline_at"], unique=False)


def downgrade() -> None:
    op.drop_index("live_games_due", table_name="live_games")
    op.drop_index("ix_live_games_black", table_name="live_games")
    op.drop_index("ix_live_games_white", table_name="live_games")
    op.drop_table("live_games")
