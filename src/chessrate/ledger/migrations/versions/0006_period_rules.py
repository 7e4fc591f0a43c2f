"""fide periods name their ruleset and the date of their list

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 13:30:00

A period is rated by the seed's rules (``seed``) or today's FIDE regulations
(``fide-2024``, docs/fide-2024.md), and ``fide-2024`` needs the date of the list
being made (the junior K, the 26 months of pending results). Periods stored before
are the seed's, without a date (what they were rated with).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("fide_periods") as batch:
        batch.add_column(
            sa.Column("rules", sa.String(length=16), nullable=False, server_default="seed")
        )
        batch.add_column(sa.Column("list_date", sa.Date(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("fide_periods") as batch:
        batch.drop_column("list_date")
        batch.drop_column("rules")
