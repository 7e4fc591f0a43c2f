"""API tokens in the ledger: a token is shown once; only its SHA-256 is stored, with
its role (``writer``, ``moderator``) and a label saying whose it is."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from sqlalchemy import insert, select

from ..errors import InvalidInput
from .connection import LedgerConnection
from .schema import tokens

ROLES = ("writer", "moderator")


class LedgerTokens(LedgerConnection):
    """Bearer tokens (the :class:`~chessrate.ledger.Ledger`'s share)."""

    def create_token(self, role: str, label: str, now: datetime) -> str:
        """A new bearer token for ``role``; only its SHA-256 is stored."""
        if role not in ROLES:
            raise InvalidInput(f"unknown role {role!r} (roles: {', '.join(ROLES)})")
        token = "cr_" + secrets.token_urlsafe(32)
        with self.transaction() as conn:
            conn.execute(
                insert(tokens).values(hash=_hash(token), role=role, label=label, created_at=now)
            )
        return token

    def token_label(self, token: str) -> str | None:
        """The label a token was created with (who it belongs to), or None."""
        with self.reading() as conn:
            label = conn.execute(
                select(tokens.c.label).where(tokens.c.hash == _hash(token))
            ).scalar()
        return None if label is None else str(label)

    def token_role(self, token: str) -> str | None:
        with self.reading() as conn:
            role = conn.execute(select(tokens.c.role).where(tokens.c.hash == _hash(token))).scalar()
        return None if role is None else str(role)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
