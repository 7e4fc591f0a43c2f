"""Moderators' web sessions, kept in the ledger (:mod:`chessrate.ledger.sessions`).

Signing in stores a session and sets a cookie holding its random id (the ledger keeps
only the id's SHA-256); each request looks the session up: it must still be stored
(signing out deletes it, so a copied cookie is refused afterwards), not expired (the
session's hours, never past its token's own expiry), and its token a valid
moderator's (a revoked or expired token ends it at once). Sessions are shared by every
worker and survive a restart: no key is needed. Every form carries the session's CSRF
token, the SHA-256 of the session id with a fixed prefix: only the cookie's holder can
make it, and it is checked on every POST.

A cookie or a form's token is whatever a client sends: a session id is printable ASCII
(URL-safe base64), so any other cookie value names no session (and is never looked
up), and the CSRF token is compared as bytes (``hmac.compare_digest`` refuses ``str``
with non-ASCII characters): a hostile value is a sign-in page or a 403, never an
error."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..ledger import Ledger
from ..ledger.tokens import TokenView

COOKIE = "chessrate_moderation"


@dataclass(frozen=True, slots=True)
class Session:
    """A valid session: its id (the cookie's value), its moderator token and expiry."""

    id: str
    token_id: int
    label: str
    expires_at: datetime

    @property
    def moderator(self) -> str:
        """Who the moderator is (the token's label, else ``token N``)."""
        return self.label or f"token {self.token_id}"


class Sessions:
    """Starts, reads and ends sessions; derives and checks CSRF tokens."""

    def __init__(self, hours: float = 8.0) -> None:
        self.hours = hours

    def issue(self, ledger: Ledger, token: TokenView, now: datetime) -> tuple[str, int]:
        """A new session of ``token``: the cookie's value, and its lifetime in seconds."""
        until = now + timedelta(hours=self.hours)
        if token.expires_at is not None:
            until = min(until, token.expires_at)
        value = ledger.sessions.start(token.id, now, until)
        return value, max(0, int((until - now).total_seconds()))

    def read(self, ledger: Ledger, value: str | None, now: datetime) -> Session | None:
        """The session of a cookie while it is valid; else None (also for a value that
        cannot be a session id: not printable ASCII)."""
        if value is None or not _printable_ascii(value):
            return None
        found = ledger.sessions.find(value, now)
        if found is None:
            return None
        return Session(value, found.token_id, found.label, found.expires_at)

    def end(self, ledger: Ledger, session: Session, now: datetime) -> None:
        """Sign out: the session is deleted from the ledger."""
        ledger.sessions.end(session.id, now)

    def csrf(self, session: Session) -> str:
        """The session's CSRF token (every form carries it)."""
        return hashlib.sha256(f"chessrate-csrf:{session.id}".encode()).hexdigest()

    def csrf_ok(self, session: Session, given: str | None) -> bool:
        """Whether a form's ``csrf`` field is the session's token (compared as bytes, in
        constant time: any text a client sends is refused, never an error)."""
        if not given:
            return False
        sent = given.encode("utf-8", "surrogatepass")
        return hmac.compare_digest(self.csrf(session).encode("ascii"), sent)


def _printable_ascii(value: str) -> bool:
    return value.isascii() and value.isprintable()
