"""a player's games as two index ranges: games (white, seq) and games (black, seq)

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 13:00:00

A player's games list (newest first, paged) reads the games where the player is
white and those where the player is black, each newest first, and merges them: with
these indexes both are index ranges in ``seq`` order, also in a ledger of a million
games. Nothing else changes; the downgrade drops them.
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("games_white", "games", ["white", "seq"], unique=False)
    op.create_index("games_black", "games", ["black", "seq"], unique=False)


def downgrade() -> None:
    op.drop_index("games_black", table_name="games")
    op.drop_index("games_white", table_name="games")
