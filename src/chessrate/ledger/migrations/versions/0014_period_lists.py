"""fide periods name their list (standard, rapid, blitz) and how their rules are chosen

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02 12:30:00

FIDE publishes three lists; a period rates one of them (``list_kind``), and each list
chains on its own. Periods stored before rated the standard list. A period is now rated
by the rules in force on its list's date, for its list (``FideRules.for_period``,
``rules_by_date`` true); a period stored before was rated, and is re-rated by
``verify``, with the ruleset as it then stood (``FideRules.named``: ``rules_by_date``
false), so that its stored results stay what it re-rates to. A rapid or blitz period
records the standard period whose list gave its unrated players their standard ratings
(``standard_from``, rapid and blitz regulations 7.2.1).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # ALTER TABLE ... ADD COLUMN, not a batch: on SQLite a batch may copy fide_periods
    # and drop it, which the files' and results' foreign keys refuse
    seq = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.add_column(
        "fide_periods",
        sa.Column("list_kind", sa.String(length=16), nullable=False, server_default="standard"),
    )
    op.add_column(
        "fide_periods",
        sa.Column("rules_by_date", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column("fide_periods", sa.Column("standard_from", seq, nullable=True))


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN on both (SQLite 3.35 and later), not Alembic's SQLite
    # drop, which copies the table (see upgrade)
    for column in ("standard_from", "rules_by_date", "list_kind"):
        op.execute(sa.text(f"ALTER TABLE fide_periods DROP COLUMN {column}"))
