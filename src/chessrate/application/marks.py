"""Marks over the ledger: a moderator marks a player whose cheating is confirmed (the
pairing pass then pairs them only with other marked players) and may lift the mark;
both go to the audit log. The API's routes (:mod:`chessrate.service.routes.reviews`)
and the command line call these; the ledger does the work
(:mod:`chessrate.ledger.marks`)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from ..ledger import Ledger
from ..ledger.marks import MAX_REASON, MarkView
from .common import RequestModel

# -- requests ---------------------------------------------------------------------------


class MarkCreate(RequestModel):
    """Why the player is marked, or why the mark is lifted (kept with the mark and in
    the audit log)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"reason": "engine use confirmed in game g1042"}]},
    )
    reason: str = Field(min_length=1, max_length=MAX_REASON, description="why")


# -- answers ----------------------------------------------------------------------------


class MarkPublic(BaseModel):
    """A player's mark: paired only with other marked players while it is in force."""

    id: int
    player: str
    name: str | None = None
    in_force: bool = Field(description="false once lifted")
    marked_by: str = Field(description="the moderator (their token's label)")
    marked_at: datetime
    reason: str
    lifted_by: str | None
    lifted_at: datetime | None
    lift_reason: str | None


# -- services ---------------------------------------------------------------------------


def mark_public(ledger: Ledger, view: MarkView) -> MarkPublic:
    return MarkPublic(
        id=view.id, player=view.player_id,
        name=ledger.players.names([view.player_id]).get(view.player_id),
        in_force=view.in_force, marked_by=view.marked_by, marked_at=view.marked_at,
        reason=view.reason, lifted_by=view.lifted_by, lifted_at=view.lifted_at,
        lift_reason=view.lift_reason,
    )  # fmt: skip


def mark(ledger: Ledger, player_id: str, reason: str, by: str, now: datetime) -> MarkPublic:
    """Mark the player (404 unknown, 409 marked already)."""
    return mark_public(ledger, ledger.marks.mark(player_id, reason, by, now))


def unmark(ledger: Ledger, player_id: str, reason: str, by: str, now: datetime) -> MarkPublic:
    """Lift the player's mark (404 unknown, 409 not marked)."""
    return mark_public(ledger, ledger.marks.unmark(player_id, reason, by, now))


def marked_since(ledger: Ledger, player_ids: Iterable[str]) -> dict[str, datetime]:
    """The players among ``player_ids`` marked now, with since when (the pages'
    badge)."""
    return ledger.marks.marked(player_ids)


def marks(ledger: Ledger, player_id: str) -> list[MarkPublic]:
    """Every mark of the player, newest first (404 unknown)."""
    return [mark_public(ledger, view) for view in ledger.marks.history(player_id)]
