"""every moment a SQLite ledger stores is UTC text in one form

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 10:00:00

SQLite has no time zones: SQLAlchemy writes a ``DateTime`` as the text
``YYYY-MM-DD HH:MM:SS.ffffff`` of the datetime's wall time and drops its offset, so a
moment given as ``2026-06-01T10:00:00+02:00`` (an otb result's ``played_at``, a
library caller's local ``now``) was stored as ``2026-06-01 10:00:00.000000`` and read
back as 10:00 UTC (PostgreSQL's ``timestamptz`` stores 08:00 UTC). From this revision
on, :class:`chessrate.ledger.schema.UtcDateTime` converts every moment to UTC before
it is written.

This migration rewrites, in every ``DateTime`` column, each SQLite value whose text is
not that form (it carries an offset such as ``+02:00`` or ``Z``, a ``T``, no
microseconds: written by another tool, by hand, or through the driver) as the same
instant in UTC, in that form, so that reads and the text comparisons SQLite makes
(``deadline_at <= now``, ``ORDER BY at``) agree. A value already in that form is left
as it is: the offset SQLAlchemy dropped cannot be told from the text, so a wall time
written with a lost offset stays what it was (there is no record of the offset). A
value that is not a timestamp at all is left too. PostgreSQL: nothing to do.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

MOMENT_COLUMNS = {
    "players": ("created_at", "updated_at"),
    "events": ("at",),
    "annulments": ("at",),
    "tokens": ("created_at", "expires_at", "revoked_at"),
    "reviews": ("opened_at", "updated_at", "decided_at"),
    "reports": ("at",),
    "audit": ("at",),
    "fide_periods": ("closed_at", "created_at"),
    "live_games": ("opened_at", "deadline_at", "played_at", "ended_at"),
    "seeks": ("created_at", "expires_at", "paired_at", "closed_at"),
    "analyses": ("analysed_at",),
}
"""Every ``DateTime`` column of the schema at revision 0009."""

STORED = "%Y-%m-%d %H:%M:%S.%f"
"""The text SQLAlchemy's SQLite ``DateTime`` writes (26 characters)."""


def utc_text(text: str) -> str | None:
    """``text`` as the stored form of the same instant in UTC (a value without an
    offset is UTC); None when it is not an ISO 8601 timestamp."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.replace(tzinfo=None).strftime(STORED)


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    for table, columns in MOMENT_COLUMNS.items():
        for column in columns:
            odd = bind.execute(
                sa.text(
                    f"SELECT DISTINCT {column} FROM {table} WHERE typeof({column}) = 'text' "
                    f"AND (length({column}) != 26 OR {column} GLOB '*[^0-9 :.-]*')"
                )
            ).scalars()
            changes = [
                {"old": old, "new": new}
                for old in odd
                if (new := utc_text(old)) is not None and new != old
            ]
            if changes:
                bind.execute(
                    sa.text(f"UPDATE {table} SET {column} = :new WHERE {column} = :old"), changes
                )


def downgrade() -> None:
    pass  # (the same instants, in the form SQLAlchemy writes: nothing to undo)
