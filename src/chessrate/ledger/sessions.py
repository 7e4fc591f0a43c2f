"""Moderators' web sessions in the ledger (``ledger.sessions``, migration 0012).

Signing in makes a session: a random id (32 bytes, URL-safe) that only the browser's
cookie holds; the ledger keeps its SHA-256, the moderator token it belongs to, when
it began and when it ends. Each request asks :meth:`Sessions.find` for the cookie's
session (still stored, not expired, its token neither revoked nor expired nor another
role's); signing out deletes the row (:meth:`Sessions.end`), so a copy of the cookie
no longer works, in any worker. Sessions are shared by every worker and survive a
restart (they need no key). Expired rows are deleted when a session is made."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import delete, insert, select

from ..errors import NotFound
from . import audit
from .connection import as_utc
from .schema import sessions, tokens

if TYPE_CHECKING:
    from .store import Ledger

MAX_ID = 200
"""A cookie longer than this is not looked up."""


@dataclass(frozen=True, slots=True)
class SessionView:
    """A valid session: its moderator token (id, label) and its moments."""

    token_id: int
    label: str
    created_at: datetime
    expires_at: datetime


def digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


class Sessions:
    """A ledger's moderators' web sessions (``ledger.sessions``)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def start(self, token_id: int, now: datetime, expires_at: datetime) -> str:
        """A new session of the moderator token ``token_id`` until ``expires_at``: its
        id (shown once, for the cookie; only its hash is stored). Expired sessions are
        deleted meanwhile; the sign-in is audited."""
        session_id = secrets.token_urlsafe(32)
        with self.ledger.transaction() as conn:
            label = conn.execute(select(tokens.c.label).where(tokens.c.id == token_id)).scalar()
            if label is None:
                raise NotFound(f"token {token_id}: no such token")
            conn.execute(delete(sessions).where(sessions.c.expires_at <= now))
            conn.execute(
                insert(sessions).values(
                    id=digest(session_id), token_id=token_id, created_at=now,
                    expires_at=expires_at,
                )
            )  # fmt: skip
            audit.record(
                conn, now, label, "sign-in", f"token {token_id}",
                f"web session until {as_utc(expires_at).isoformat()}",
            )  # fmt: skip
        return session_id

    def find(self, session_id: str | None, now: datetime) -> SessionView | None:
        """The session ``session_id`` names while it is valid: stored (not signed out),
        not expired, and its token a moderator's that is neither revoked nor expired
        at ``now``; else None."""
        if not session_id or len(session_id) > MAX_ID:
            return None
        query = (
            select(sessions, tokens.c.label, tokens.c.role, tokens.c.expires_at.label("until"),
                   tokens.c.revoked_at)
            .join(tokens, tokens.c.id == sessions.c.token_id)
            .where(sessions.c.id == digest(session_id))
        )  # fmt: skip
        with self.ledger.reading() as conn:
            row = conn.execute(query).first()
        if row is None or row.role != "moderator" or row.revoked_at is not None:
            return None
        if as_utc(row.expires_at) <= now or (row.until is not None and as_utc(row.until) <= now):
            return None
        return SessionView(
            int(row.token_id), str(row.label), as_utc(row.created_at), as_utc(row.expires_at)
        )

    def end(self, session_id: str, now: datetime) -> bool:
        """Sign out: delete the session (audited); False when there was none."""
        if not session_id or len(session_id) > MAX_ID:
            return False
        with self.ledger.transaction() as conn:
            row = conn.execute(
                select(sessions.c.token_id, tokens.c.label)
                .join(tokens, tokens.c.id == sessions.c.token_id)
                .where(sessions.c.id == digest(session_id))
            ).first()  # fmt: skip
            if row is None:
                return False
            conn.execute(delete(sessions).where(sessions.c.id == digest(session_id)))
            audit.record(conn, now, row.label, "sign-out", f"token {row.token_id}",
                         "web session ended")  # fmt: skip
        return True

    def end_all(self, token_id: int) -> int:
        """Delete every session of a token (a revoked token's); how many there were."""
        with self.ledger.transaction() as conn:
            return int(conn.execute(delete(sessions).where(sessions.c.token_id == token_id))
                       .rowcount or 0)  # fmt: skip


__all__ = ["SessionView", "Sessions", "digest"]
