"""players get a search column: their id and name folded (case and accents)

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 12:40:00

Search compares folded text (:func:`chessrate.folding.fold`: ``Novák`` ↔ ``novak``,
``Иван`` ↔ ``иван``), which neither SQLite's ``lower()`` (ASCII only) nor a
collation gives on both databases; the folded id and name are stored with the player
and written again whenever the player is.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from chessrate.folding import search_key

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("search", sa.Text(), nullable=True))
    bind = op.get_bind()
    players = sa.table("players", sa.column("id"), sa.column("name"), sa.column("search"))
    found = bind.execute(sa.select(players.c.id, players.c.name)).all()
    if found:
        bind.execute(
            players.update()
            .where(players.c.id == sa.bindparam("player"))
            .values(search=sa.bindparam("key")),
            [{"player": row.id, "key": search_key(row.id, row.name)} for row in found],
        )


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("search")
