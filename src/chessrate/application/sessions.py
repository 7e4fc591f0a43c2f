"""Moderators' web sessions: a cookie signed with HMAC-SHA256 (standard library).

The cookie holds ``token id . token fingerprint . expiry . nonce . signature``: which
moderator token signed in (the id, and the first 16 hex digits of its SHA-256 so that
a forged id needs the token's hash too), until when (Unix seconds: the session's hours,
never past the token's own expiry) and a random nonce from which the session's CSRF
token is derived (HMAC of the nonce: per session, checked on every POST). The secret
is ``CHESSRATE_SESSION_SECRET``; without it each process draws a random one, so a
session lives only in the worker that signed it in (with several workers, set the
secret) and ends when the process restarts. The cookie proves who signed in; each
request still asks the ledger whether the token is valid (revoked, expired)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

COOKIE = "chessrate_moderation"


@dataclass(frozen=True, slots=True)
class Session:
    token_id: int
    fingerprint: str
    expires: int
    nonce: str


class Sessions:
    """Signs and reads session cookies; derives and checks CSRF tokens."""

    def __init__(self, secret: bytes | None = None, hours: float = 8.0) -> None:
        self.secret = secret or secrets.token_bytes(32)
        self.hours = hours

    def _sign(self, text: str) -> str:
        return hmac.new(self.secret, text.encode(), hashlib.sha256).hexdigest()

    def issue(
        self, token_id: int, fingerprint: str, now: datetime, token_expires: datetime | None
    ) -> tuple[str, int]:
        """A new session's cookie value, and its lifetime in seconds."""
        until = now + timedelta(hours=self.hours)
        if token_expires is not None:
            until = min(until, token_expires)
        expires = int(until.timestamp())
        payload = f"{token_id}.{fingerprint}.{expires}.{secrets.token_hex(16)}"
        return f"{payload}.{self._sign(payload)}", max(0, expires - int(now.timestamp()))

    def read(self, value: str | None, now: datetime) -> Session | None:
        """The session of a cookie that is well signed and not expired; else None."""
        if not value or len(value) > 300:
            return None
        payload, _, signature = value.rpartition(".")
        if not hmac.compare_digest(self._sign(payload), signature):
            return None
        parts = payload.split(".")
        if len(parts) != 4 or not parts[0].isdigit() or not parts[2].isdigit():
            return None
        session = Session(int(parts[0]), parts[1], int(parts[2]), parts[3])
        return session if session.expires > now.timestamp() else None

    def csrf(self, session: Session) -> str:
        """The session's CSRF token (every form carries it)."""
        return self._sign(f"csrf:{session.nonce}")

    def csrf_ok(self, session: Session, given: str | None) -> bool:
        return bool(given) and hmac.compare_digest(self.csrf(session), given or "")
