"""moderators' web sessions kept in the ledger; a report names the accused player and
the token that filed it

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 02:00:00

``sessions``: one row per signed-in moderator's web session, keyed by the SHA-256 of
the random session id its cookie holds (the id itself is never stored), with the
moderator token it belongs to, when it began and when it ends. Signing out deletes
the row, so a copied cookie is refused afterwards.

``reports`` gains ``accused`` (the player the report is about: one of the game's two
players, NULL when a report does not name one; reports stored before name nobody) and
``token_id`` (the API token a report was filed through, NULL for a report the ledger
was given directly, a detector's), so that a moderator never confirms a case they
reported.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

Seq = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(length=64), primary_key=True),
        sa.Column("token_id", Seq, sa.ForeignKey("tokens.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("sessions_token", "sessions", ["token_id"])
    op.create_index("sessions_expires", "sessions", ["expires_at"])
    with op.batch_alter_table("reports") as batch:
        batch.add_column(sa.Column("accused", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("token_id", Seq, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("reports") as batch:
        batch.drop_column("token_id")
        batch.drop_column("accused")
    op.drop_index("sessions_expires", table_name="sessions")
    op.drop_index("sessions_token", table_name="sessions")
    op.drop_table("sessions")
