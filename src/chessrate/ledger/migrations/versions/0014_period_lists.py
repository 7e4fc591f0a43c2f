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
    seq = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    with op.batch_alter_table("fide_periods") as batch:
        batch.add_column(
            sa.Column("list_kind", sa.String(length=16), nullable=False,
                      server_default="standard")
        )  # fmt: skip
        batch.add_column(
            sa.Column("rules_by_date", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("standard_from", seq, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("fide_periods") as batch:
        batch.drop_column("standard_from")
        batch.drop_column("rules_by_date")
        batch.drop_column("list_kind")
