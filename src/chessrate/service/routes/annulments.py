"""Annulments (site S10): a moderator annuls a rated game; anyone reads the list."""

from __future__ import annotations

from fastapi import APIRouter

from ...application import schemas, services
from ...application.deps import LedgerDep, Moderator, Now
from .guard import TokenFirstRoute
from .paging import ListLimit, Offset
from .responses import CONFLICT, INVALID, NOT_FOUND, WRITE

router = APIRouter(tags=["annulments"], route_class=TokenFirstRoute)


@router.post(
    "/games/{game_id}/annul",
    response_model=schemas.AnnulmentPublic,
    responses={**WRITE, **INVALID, **NOT_FOUND, **CONFLICT},
)
def annul_game(
    caller: Moderator,
    game_id: str,
    body: schemas.AnnulmentCreate,
    ledger: LedgerDep,
    now: Now,
) -> schemas.AnnulmentPublic:
    """Reverse a rated game's changes and take it out of the games counts (site S10);
    the annulment (who, when, why) is kept. Needs a moderator token. A game that is
    already annulled: 409; a system without annulment or an unrated game: 422."""
    return services.annul(ledger, game_id, body.reason, caller, now)


@router.get("/annulments", response_model=schemas.AnnulmentsPublic)
def list_annulments(
    ledger: LedgerDep, offset: Offset = 0, limit: ListLimit = schemas.LIST_PAGE_MAX
) -> schemas.AnnulmentsPublic:
    """The annulments, oldest first, with their reversing changes. Paged: at most
    ``limit`` (1,000, the default) from ``offset``, with the ``total``."""
    return services.annulments(ledger, offset, limit)
