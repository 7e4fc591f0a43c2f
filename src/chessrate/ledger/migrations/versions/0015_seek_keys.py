"""seek keys: a client's own key on a seek, so a seek sent again is not a second one

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06 01:10:00

A client that may send a seek twice (a retry after an answer it never got) names the
seek with a key of its own; the same player and key is the same seek, whatever it
became meanwhile (paired, expired). One unique index over (player, key): a seek
without a key (NULL) is never equal to another, on SQLite as on PostgreSQL.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seeks") as batch:
        batch.add_column(sa.Column("client_key", sa.String(length=64), nullable=True))
    op.create_index("seeks_client_key", "seeks", ["player_id", "client_key"], unique=True)


def downgrade() -> None:
    op.drop_index("seeks_client_key", table_name="seeks")
    with op.batch_alter_table("seeks") as batch:
        batch.drop_column("client_key")
