"""Annulments (site S10): a moderator reverses a rated game's changes, kept with who,
when and why; the list of them, oldest first. The review queue's confirmation
(:mod:`.reviews`) annuls through the same shapes.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from ..errors import InvalidRecord
from ..ledger import AnnulmentView, Ledger
from .common import LIST_PAGE_MAX, ChangePublic, PagePublic, RequestModel, changes_public
from .deps import Caller

# -- requests ---------------------------------------------------------------------------


class AnnulmentCreate(RequestModel):
    reason: str = Field(min_length=1, max_length=2000, description="why (fair play, …)")


# -- answers ----------------------------------------------------------------------------


class AnnulmentPublic(BaseModel):
    game: str
    seq: int
    at: datetime
    by: str | None
    reason: str
    changes: list[ChangePublic] = Field(description="the reversing changes (site S10)")


class AnnulmentsPublic(PagePublic):
    annulments: list[AnnulmentPublic]


# -- services ---------------------------------------------------------------------------


def annulment_public(view: AnnulmentView) -> AnnulmentPublic:
    return AnnulmentPublic(
        game=view.game_id,
        seq=view.seq,
        at=view.at,
        by=view.by,
        reason=view.reason,
        changes=changes_public(view.changes),
    )


def annul(
    ledger: Ledger, game_id: str, reason: str, caller: Caller, now: datetime
) -> AnnulmentPublic:
    """site S10: reverse a rated game; the moderator's token label is kept as ``by``."""
    reason = reason.strip()
    if not reason:
        raise InvalidRecord(f"game {game_id}", "reason", "is required")
    token = ledger.tokens.find(caller.token)
    by = (token.label if token else None) or caller.role
    annulment = ledger.annulments.annul(
        game_id, reason, by, now, token_id=None if token is None else token.id
    )
    return annulment_public(annulment)


def annulments(ledger: Ledger, offset: int = 0, limit: int = LIST_PAGE_MAX) -> AnnulmentsPublic:
    """A page of the annulments, oldest first."""
    found = [annulment_public(a) for a in ledger.annulments.list(offset, limit)]
    return AnnulmentsPublic(
        annulments=found, total=ledger.annulments.count(), offset=offset, limit=limit
    )
