"""player marks: a moderator marks a player whose cheating is confirmed

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02 01:30:00

One row per mark: the player, who marked them, when and why, and, once lifted, who
lifted it, when and why (the row stays: the history of a player's marks). A partial
unique index keeps at most one mark in force (not lifted) per player. The pairing
pass pairs a marked player only with marked players.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    seq = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.create_table(
        "player_marks",
        sa.Column("id", seq, nullable=False, autoincrement=True),
        sa.Column("player_id", sa.String(length=200), nullable=False),
        sa.Column("marked_by", sa.String(length=200), nullable=False),
        sa.Column("marked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("lifted_by", sa.String(length=200), nullable=True),
        sa.Column("lifted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lift_reason", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "player_marks_in_force",
        "player_marks",
        ["player_id"],
        unique=True,
        sqlite_where=sa.text("lifted_at IS NULL"),
        postgresql_where=sa.text("lifted_at IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("player_marks_in_force", table_name="player_marks")
    op.drop_table("player_marks")
