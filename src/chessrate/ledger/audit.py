"""The audit log: every moderation action (a report filed, a case confirmed, dismissed
or reopened, a game annulled, a token created or revoked, a moderator's web session
begun or ended, a player marked or the mark lifted), who did it, when, on what
and why. Rows are written by the action's own transaction (:func:`record`), so an
action and its audit row are committed together or not at all. The log is read
through ``ledger.audit`` (:class:`Audit`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import Connection, func, insert, select

from .connection import as_utc
from .schema import audit

if TYPE_CHECKING:
    from .store import Ledger

ACTIONS = (
    "report", "confirm", "dismiss", "reopen", "annul", "token-create", "token-revoke",
    "sign-in", "sign-out", "mark", "unmark",
)  # fmt: skip
"""What the log names an action."""


@dataclass(frozen=True, slots=True)
class AuditEntry:
    id: int
    at: datetime
    who: str
    action: str
    target: str
    details: str


def record(
    conn: Connection, now: datetime, who: str, action: str, target: str, details: str
) -> None:
    """Write one audit row inside the caller's transaction."""
    assert action in ACTIONS, action
    conn.execute(
        insert(audit).values(
            at=now, who=who[:200], action=action, target=target[:200], details=details
        )
    )


class Audit:
    """A ledger's audit log, read (``ledger.audit``; written by :func:`record`)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def log(
        self, offset: int = 0, limit: int = 100, target: str | None = None
    ) -> tuple[list[AuditEntry], int]:
        """The log, newest first (``limit`` rows from ``offset``), and how many rows it
        holds; only one target's rows with ``target``."""
        query = select(audit)
        count = select(func.count()).select_from(audit)
        if target is not None:
            query = query.where(audit.c.target == target)
            count = count.where(audit.c.target == target)
        with self.ledger.reading() as conn:
            total = int(conn.execute(count).scalar() or 0)
            rows = conn.execute(query.order_by(audit.c.id.desc()).offset(offset).limit(limit)).all()
        entries = [
            AuditEntry(r.id, as_utc(r.at), r.who, r.action, r.target, r.details) for r in rows
        ]
        return entries, total
