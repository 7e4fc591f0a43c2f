"""Annulments (site S10): a moderator annuls a rated game; anyone reads the list."""

from __future__ import annotations

from fastapi import APIRouter

from ...application import annulments
from ...application.common import LIST_PAGE_MAX
from ...application.deps import LedgerDep, Moderator, Now
from .guard import TokenFirstRoute
from .paging import ListLimit, Offset
from .responses import CONFLICT, INVALID, NOT_FOUND, WRITE

router = APIRouter(tags=["annulments"], route_class=TokenFirstRoute)


@router.post(
    "/games/{game_id}/annul",
    response_model=annulments.AnnulmentPublic,
    responses={**WRITE, **INVALID, **NOT_FOUND, **CONFLICT},
)
def annul_game(
    caller: Moderator,
    game_id: str,
    body: annulments.AnnulmentCreate,
    ledger: LedgerDep,
    now: Now,
) -> annulments.AnnulmentPublic:
    """Reverse a rated game's changes and take it out of the games counts (site S10);
    the annulment (who, when, why) is kept. Needs a moderator token. A game that is
    already annulled: 409; a system without annulment or an unrated game: 422; a
    moderator who reported the game (as for confirming its case): 403."""
    return annulments.annul(ledger, game_id, body.reason, caller, now)


@router.get("/annulments", response_model=annulments.AnnulmentsPublic)
def list_annulments(
    ledger: LedgerDep, offset: Offset = 0, limit: ListLimit = LIST_PAGE_MAX
) -> annulments.AnnulmentsPublic:
    """The annulments, oldest first, with their reversing changes. Paged: at most
    ``limit`` (1,000, the default) from ``offset``, with the ``total``."""
    return annulments.annulments(ledger, offset, limit)
