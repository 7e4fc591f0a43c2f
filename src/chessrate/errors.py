"""The domain's errors: everything chessrate reports to a person rather than as a bug.

Every message names the record (``FILE:LINE`` or ``game ID``), the field and the
reason. Each is mapped in one place per front end: the command line prints
``error: MESSAGE`` and exits with code 2 (``cli.reports_errors``); the HTTP API
answers 422, or 404 (:class:`NotFound`), 409 (:class:`Conflict`), 403
(:class:`Forbidden`) and 503
(:class:`LedgerUnavailable`) (``service.errors``).
"""

from __future__ import annotations


class ChessrateError(Exception):
    """Base of every error caused by the user's input or the ledger's database."""


class InvalidRecord(ChessrateError):
    """A record (game or player) that is malformed or refused by a rating system."""

    def __init__(self, where: str, field: str, reason: str) -> None:
        self.where = where
        self.field = field
        self.reason = reason
        super().__init__(f"{where}: {field}: {reason}")


class InvalidInput(ChessrateError):
    """A whole input that cannot be used (unknown format, unreadable file, ...)."""


class NotFound(ChessrateError):
    """No such player, game, live game, pool or period (HTTP 404)."""


class Conflict(ChessrateError):
    """A game id already used for different content, a player that exists, a closed
    period, a finished live game (HTTP 409)."""


class Forbidden(ChessrateError):
    """An action the caller may not take on this record, whatever its role: a
    moderator confirming a case they reported, a player reporting themselves, a bot
    reporting (HTTP 403)."""


class LedgerUnavailable(ChessrateError):
    """The ledger's database cannot be used: it does not answer (refused, locked, gone),
    holds no ledger (the health check), or ``url`` is True: its URL names no database
    SQLAlchemy can open. Raised by the ledger for SQLAlchemy's ``OperationalError``,
    ``ArgumentError`` and ``NoSuchModuleError`` (HTTP 503; the CLI's ``--db``)."""

    def __init__(self, message: str, *, url: bool = False) -> None:
        self.url = url
        super().__init__(message)
