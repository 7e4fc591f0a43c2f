"""The errors chessrate raises for bad input.

Every message names the record (``FILE:LINE`` or ``game ID``), the field and
the reason. The command line maps them to exit code 2 in one place.
"""

from __future__ import annotations


class ChessrateError(Exception):
    """Base of every error caused by the user's input."""


class InvalidRecord(ChessrateError):
    """A record (game or player) that is malformed or refused by a rating system."""

    def __init__(self, where: str, field: str, reason: str) -> None:
        self.where = where
        self.field = field
        self.reason = reason
        super().__init__(f"{where}: {field}: {reason}")


class InvalidInput(ChessrateError):
    """A whole input that cannot be used (unknown format, unreadable file, ...)."""
