"""Health: the database answers and holds a ledger (else 503), and the fair-play
detector's state and queue."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from ..fairplay.background import DetectorStatus
from ..ledger import Ledger


class DetectorPublic(BaseModel):
    """The fair-play detector in this worker: on or off and why, and its queue."""

    state: Literal["on", "off"]
    why: str = Field(description="why it is on or off")
    engine: str | None = Field(default=None, description="the Stockfish binary, when on")
    interval_seconds: float | None = Field(
        default=None, description="how often this worker runs a round, when on"
    )
    pending: int = Field(description="finished rated games with moves waiting for analysis")
    analysed: int = Field(description="games analysed (or found not analysable)")
    flagged: int = Field(description="analyses that flagged a player")
    last_run: datetime | None = Field(
        default=None, description="when this worker's last round ended"
    )
    last_outcome: str | None = Field(
        default=None, description="what it did (skipped: another process was analysing)"
    )


class HealthPublic(BaseModel):
    status: Literal["ok"]
    system: str
    detector: DetectorPublic | None = Field(
        default=None, description="the fair-play detector (absent before start-up)"
    )


def health(ledger: Ledger, detector: DetectorStatus | None = None) -> HealthPublic:
    """The database answers and holds a ledger (:class:`~chessrate.errors.LedgerUnavailable`
    otherwise: 503); the detector's state and queue (counted at most every few seconds)."""
    system = ledger.ping()
    shown = None if detector is None else DetectorPublic(**detector.public())
    return HealthPublic(status="ok", system=system, detector=shown)
