"""Health: the database answers and holds a ledger (else 503)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from ..ledger import Ledger


class HealthPublic(BaseModel):
    status: Literal["ok"]
    system: str


def health(ledger: Ledger) -> HealthPublic:
    """The database answers and holds a ledger (:class:`~chessrate.errors.LedgerUnavailable`
    otherwise: 503)."""
    return HealthPublic(status="ok", system=ledger.ping())
