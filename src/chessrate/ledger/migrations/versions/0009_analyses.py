"""the fair-play detector's analyses of finished live games

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 15:00:00

One row per analysed game: when, by which engine at which limits, the evidence (per
player statistics and every analysed move, JSON), whether a player was flagged, the
players the ``on_flag`` hook recorded, and why a game could not be analysed (its moves
not recorded, say). A game with a row is not analysed again.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("game_id", sa.String(length=200), nullable=False),
        sa.Column("analysed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("engine", sa.String(length=64), nullable=False),
        sa.Column("limits", sa.Text(), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=True),
        sa.Column("flagged", sa.Boolean(), nullable=False),
        sa.Column("flags", sa.Text(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_index("analyses_flagged", "analyses", ["flagged", "analysed_at"], unique=False)


def downgrade() -> None:
    op.drop_index("analyses_flagged", table_name="analyses")
    op.drop_table("analyses")
