"""the moves a game was submitted with

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02 12:00:00

A game submitted whole (``POST /games``, a batch, ``chessrate import``) may carry its
moves; they are checked legal when the game arrives and stored here, normalised to
UCI, one row per game that has them, so that the fair-play detector analyses submitted
games as it does live ones. A live game's moves stay in ``live_games``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_moves",
        sa.Column("game_id", sa.String(length=200), nullable=False),
        sa.Column("plies", sa.Integer(), nullable=False),
        sa.Column("moves", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("game_id"),
    )


def downgrade() -> None:
    op.drop_table("game_moves")
