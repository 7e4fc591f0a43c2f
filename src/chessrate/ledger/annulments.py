"""A ledger's annulments (``ledger.annulments``): site S10 reverses a rated game's
changes and takes it out of the games counts; the annulment keeps who, when and why,
is written to the audit log, and decides the game's review case if it has one.
:meth:`Annulments.annul_in` annuls inside the caller's transaction (a confirmed
review, an import)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, insert, select, update

from ..errors import Conflict, Forbidden, InvalidRecord, NotFound
from ..identifiers import text_problem
from ..records import Outcome
from ..systems.base import GameRating
from . import audit, codec, common, rows
from .connection import as_utc
from .reviews import duty_problem
from .schema import annulments, games, reviews
from .views import AnnulmentView

if TYPE_CHECKING:
    from .store import Ledger


class Annulments:
    """A ledger's annulments (``ledger.annulments``)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def annul(
        self, game_id: str, reason: str, by: str | None, now: datetime, *,
        token_id: int | None = None,
    ) -> AnnulmentView:  # fmt: skip
        """site S10: reverse a rated game's changes, take it out of the games counts,
        keep the annulment (who, when, why). A moderator (``by``, the token
        ``token_id``) who reported the game may not annul it (403, as confirming its
        case: :func:`~chessrate.ledger.reviews.duty_problem`)."""
        with self.ledger.transaction() as conn:
            annulment = self.ledger.annulments.annul_in(conn, game_id, reason, by, now)
            # checked under annul_in's locks; refused, the whole annulment rolls back
            problem = duty_problem(conn, game_id, by, token_id)
            if problem is not None:
                raise Forbidden(problem.replace("confirm this case", "annul this game"))
            return annulment

    def annul_in(
        self, conn: Connection, game_id: str, reason: str, by: str | None, now: datetime
    ) -> AnnulmentView:
        for name, text in (("reason", reason), ("by", by or "")):
            refused = text_problem(text)  # (PostgreSQL refuses a NUL: a 500)
            if refused is not None:
                raise InvalidRecord(f"game {game_id}", name, refused)
        row = common.game_row(conn, game_id)
        if row is None:
            raise NotFound(f"game {game_id}: no such game")
        namer = common.namer(conn, row)
        white, black = namer(row.white), namer(row.black)
        keys: dict[str, int] = {}
        people = common.load_players(conn, (white, black), lock=True, keys=keys)
        row = common.game_row(conn, game_id)
        assert row is not None
        if row.annulled:
            raise Conflict(f"game {game_id}: id: already annulled")
        outcome = rows.OUTCOMES[row.outcome]
        if outcome is not Outcome.RATED:
            raise InvalidRecord(
                f"game {game_id}", "id", f"the game is {outcome.value}: no rating to annul"
            )
        record = rows.record_from_row(row._mapping, namer)
        original = common.changes_of(self.ledger, conn, row, (row.seq,), namer)
        reason_text = self.ledger.system.reason(record, row.reason, original)
        rating: GameRating[Any] = GameRating(record, Outcome.RATED, reason_text, original)
        states = common.StateCache(conn, self.ledger.system_id, self.ledger.system, people)
        reversed_changes, new_states = self.ledger.system.annul(rating, states)
        payload = codec.dumps({"reason": reason, "by": by})
        seq = common.event(self.ledger, conn, "annulment", game_id, payload, now)
        conn.execute(
            insert(annulments).values(game_id=game_id, seq=seq, at=now, by=by, reason=reason)
        )
        conn.execute(update(games).where(games.c.seq == row.seq).values(annulled=True))
        common.store_changes(self.ledger, conn, seq, row.seq, reversed_changes, keys)
        common.store_states(self.ledger, conn, seq, new_states, people)
        audit.record(conn, now, by or "unknown", "annul", game_id, reason)
        # A case under review is decided by the annulment, however it was made.
        conn.execute(
            update(reviews)
            .where(reviews.c.game_id == game_id, reviews.c.status != "confirmed")
            .values(status="confirmed", decided_by=by, decided_at=now, note=reason,
                    updated_at=now)
        )  # fmt: skip
        return AnnulmentView(game_id, seq, now, by, reason, reversed_changes)

    def count(self) -> int:
        with self.ledger.reading() as conn:
            return int(conn.execute(select(func.count()).select_from(annulments)).scalar_one())

    def list(self, offset: int = 0, limit: int | None = None) -> list[AnnulmentView]:
        """The annulments, oldest first: at most ``limit`` (None: all) from ``offset``."""
        query = select(annulments).order_by(annulments.c.seq).offset(offset).limit(limit)
        with self.ledger.reading() as conn:
            found = conn.execute(query).all()
            views = []
            for r in found:
                row = common.game_row(conn, r.game_id)
                moved = common.changes_of(self.ledger, conn, row, (r.seq,), common.namer(conn, row))
                views.append(AnnulmentView(r.game_id, r.seq, as_utc(r.at), r.by, r.reason, moved))
        return views
