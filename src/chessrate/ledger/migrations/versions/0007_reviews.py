"""fair play: reports, review cases, the audit log; tokens expire and are revoked

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-10 10:00:00

A game that is reported (by a player, or by a detector with its evidence) gets one
review case (open, confirmed, dismissed) gathering every report, at most one report
per reporter (``by``). Every moderation action is kept in ``audit`` (who, when, what,
on what, why). A token may have an expiry and may be revoked; tokens stored before
never expire and are not revoked.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

Seq = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.add_column(sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "reviews",
        sa.Column("game_id", sa.String(200), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_by", sa.String(200)),
        sa.Column("decided_at", sa.DateTime(timezone=True)),
        sa.Column("note", sa.Text),
    )
    op.create_index("reviews_status", "reviews", ["status"])
    op.create_table(
        "reports",
        sa.Column("id", Seq, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(200), sa.ForeignKey("reviews.game_id"), nullable=False),
        sa.Column("by", sa.String(200), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("evidence", sa.Text),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game_id", "by", name="reports_game_by"),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "audit",
        sa.Column("id", Seq, primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("who", sa.String(200), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
        sa.Column("details", sa.Text, nullable=False),
        sqlite_autoincrement=True,
    )


def downgrade() -> None:
    op.drop_table("audit")
    op.drop_table("reports")
    op.drop_index("reviews_status", table_name="reviews")
    op.drop_table("reviews")
    with op.batch_alter_table("tokens") as batch:
        batch.drop_column("revoked_at")
        batch.drop_column("expires_at")
