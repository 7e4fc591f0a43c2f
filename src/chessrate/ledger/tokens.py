"""API tokens in the ledger (``ledger.tokens``): a token is shown once; only its
SHA-256 is stored, with its role (``writer``, ``moderator``), a label saying whose it
is, an optional expiry and, once revoked, when. A revoked or expired token answers no
role. Creating and revoking a token are written to the audit log."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sqlalchemy import delete, insert, select, update

from ..errors import Conflict, InvalidInput, NotFound
from . import audit
from .connection import as_utc
from .schema import sessions, tokens

if TYPE_CHECKING:
    from .store import Ledger

ROLES = ("writer", "moderator")


@dataclass(frozen=True, slots=True)
class TokenView:
    """A token as listed (never the token itself: only its hash is stored)."""

    id: int
    role: str
    label: str
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    fingerprint: str
    """The first 16 hex digits of the token's SHA-256 (a session cookie names it)."""

    def valid(self, now: datetime) -> bool:
        """Neither revoked nor expired at ``now``."""
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)

    def status(self, now: datetime) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and now >= self.expires_at:
            return "expired"
        return "valid"


class Tokens:
    """A ledger's bearer tokens (``ledger.tokens``)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def create(
        self,
        role: str,
        label: str,
        now: datetime,
        expires_at: datetime | None = None,
        by: str = "cli",
    ) -> str:
        """A new bearer token for ``role`` (valid until ``expires_at``, if given); only
        its SHA-256 is stored."""
        if role not in ROLES:
            raise InvalidInput(f"unknown role {role!r} (roles: {', '.join(ROLES)})")
        if expires_at is not None and as_utc(expires_at) <= as_utc(now):
            raise InvalidInput(f"the expiry {expires_at.isoformat()} is not in the future")
        token = "cr_" + secrets.token_urlsafe(32)
        with self.ledger.transaction() as conn:
            token_id = conn.execute(
                insert(tokens)
                .values(
                    hash=_hash(token), role=role, label=label, created_at=now,
                    expires_at=expires_at,
                )
                .returning(tokens.c.id)
            ).scalar_one()  # fmt: skip
            until = f", expires {expires_at.isoformat()}" if expires_at else ""
            audit.record(
                conn, now, by, "token-create", f"token {token_id}",
                f"{role} token {label!r}{until}",
            )  # fmt: skip
        return token

    def list(self) -> list[TokenView]:
        """Every token, oldest first (revoked and expired ones too)."""
        with self.ledger.reading() as conn:
            rows = conn.execute(select(tokens).order_by(tokens.c.id)).all()
        return [_view(row) for row in rows]

    def get(self, token_id: int) -> TokenView:
        with self.ledger.reading() as conn:
            row = conn.execute(select(tokens).where(tokens.c.id == token_id)).first()
        if row is None:
            raise NotFound(f"token {token_id}: no such token")
        return _view(row)

    def find(self, token: str) -> TokenView | None:
        """The stored token (revoked and expired too), or None."""
        with self.ledger.reading() as conn:
            row = conn.execute(select(tokens).where(tokens.c.hash == _hash(token))).first()
        return None if row is None else _view(row)

    def revoke(self, token_id: int, now: datetime, by: str = "cli", why: str = "") -> TokenView:
        """Revoke a token from ``now`` on (a token revoked already: 409); its web
        sessions are deleted."""
        with self.ledger.transaction() as conn:
            row = conn.execute(select(tokens).where(tokens.c.id == token_id)).first()
            if row is None:
                raise NotFound(f"token {token_id}: no such token")
            if row.revoked_at is not None:
                raise Conflict(f"token {token_id}: already revoked")
            conn.execute(update(tokens).where(tokens.c.id == token_id).values(revoked_at=now))
            conn.execute(delete(sessions).where(sessions.c.token_id == token_id))
            audit.record(
                conn, now, by, "token-revoke", f"token {token_id}",
                f"{row.role} token {row.label!r}" + (f": {why}" if why else ""),
            )  # fmt: skip
        return self.get(token_id)

    def label(self, token: str) -> str | None:
        """The label a token was created with (who it belongs to), or None."""
        found = self.find(token)
        return None if found is None else found.label

    def role(self, token: str, now: datetime | None = None) -> str | None:
        """The role of a token that is neither revoked nor expired at ``now`` (default:
        the wall clock); None for any other token."""
        found = self.find(token)
        if found is None or not found.valid(now or datetime.now(UTC)):
            return None
        return found.role


def _view(row: object) -> TokenView:
    r = row._mapping  # type: ignore[attr-defined]
    return TokenView(
        id=int(r["id"]),
        role=str(r["role"]),
        label=str(r["label"]),
        created_at=as_utc(r["created_at"]),
        expires_at=None if r["expires_at"] is None else as_utc(r["expires_at"]),
        revoked_at=None if r["revoked_at"] is None else as_utc(r["revoked_at"]),
        fingerprint=str(r["hash"])[:16],
    )


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
