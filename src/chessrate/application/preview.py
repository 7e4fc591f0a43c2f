"""Preview: what a win, a draw or a loss (for White) would do to two players' ratings
now; nothing is stored. The fields are a game record's without its result, validated
by ``GameRecord.from_mapping`` (documented by :class:`PreviewRequest`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from ..errors import InvalidRecord
from ..ledger import Ledger
from ..records import MAX_PLIES, GameRecord, Termination
from ..systems.base import GameRating
from .common import ChangePublic, GameFields, changes_public, id_field, refuse_periods

# -- requests ---------------------------------------------------------------------------


class PreviewRequest(GameFields):
    """A game to preview: a game record without its result (every result is shown)."""

    id: str | None = id_field("default: `preview`", default=None)
    played_at: datetime | None = Field(default=None, description="default: now")
    termination: Termination | None = Termination.NORMAL
    plies: int | None = Field(default=None, ge=0, le=MAX_PLIES)
    confirmed: bool | None = None


# -- answers ----------------------------------------------------------------------------


class PreviewOutcomePublic(BaseModel):
    result: str
    outcome: str
    reason: str
    changes: list[ChangePublic]


class PreviewPublic(BaseModel):
    """What each result would do now; nothing is stored."""

    white: str
    black: str
    results: dict[str, PreviewOutcomePublic] = Field(description="keyed `1-0`, `1/2-1/2`, `0-1`")


# -- services ---------------------------------------------------------------------------


PREVIEW = "preview"


def preview(ledger: Ledger, fields: Mapping[str, Any], now: datetime) -> PreviewPublic:
    """What a win, a draw or a loss (for White) would do now; stores nothing."""
    refuse_periods(ledger)
    data = {k: v for k, v in fields.items() if v is not None}
    if "result" in data:
        raise InvalidRecord(PREVIEW, "result", "a preview shows every result: leave it out")
    data.setdefault("id", PREVIEW)
    data.setdefault("played_at", now.isoformat())
    data["result"] = "1-0"  # replaced by each result in turn
    record = GameRecord.from_mapping(data, PREVIEW)
    outcomes: dict[str, GameRating[Any]] = ledger.games.preview(record)
    return PreviewPublic(
        white=record.white,
        black=record.black,
        results={
            result: PreviewOutcomePublic(
                result=result,
                outcome=rating.outcome.value,
                reason=rating.reason,
                changes=changes_public(rating.changes),
            )
            for result, rating in outcomes.items()
        },
    )
