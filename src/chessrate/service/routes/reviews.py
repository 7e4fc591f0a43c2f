"""Fair play: reports (a writer acting for a player), the review queue and its
decisions (moderators), and the audit log (moderators)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response, status

from ...application import marks, reviews
from ...application.deps import LedgerDep, Moderator, Now, Writer
from ...ledger.reviews import ReviewStatus
from .guard import TokenFirstRoute
from .paging import Offset
from .responses import CONFLICT, INVALID, NOT_FOUND, WRITE

router = APIRouter(tags=["fair play"], route_class=TokenFirstRoute)


@router.post(
    "/games/{game_id}/reports",
    response_model=reviews.ReportFiled,
    status_code=status.HTTP_201_CREATED,
    responses={
        200: {"model": reviews.ReportFiled, "description": "reported before: the stored one"},
        **WRITE,
        **INVALID,
        **NOT_FOUND,
        **CONFLICT,
    },
)
def report_game(
    caller: Writer,
    game_id: str,
    body: reviews.ReportCreate,
    ledger: LedgerDep,
    now: Now,
    response: Response,
) -> reviews.ReportFiled:
    """A player (``by``) reports a finished rated game, accusing ``accused`` (one of
    its two players; by default the reporter's opponent when the reporter played it,
    else nobody named); the game's review case gathers every report, with the token it
    was filed through. A player reports a game once: the same report again answers 200
    with the stored one. An unknown game: 404; a game still being played or already
    annulled: 409; an unrated or void game, an unknown player, an ``accused`` who did
    not play the game: 422; a player reporting themselves (``accused`` is ``by``) or a
    bot reporting: 403."""
    filed, created = reviews.file_report(ledger, game_id, body, caller, now)
    if not created:
        response.status_code = status.HTTP_200_OK
    return filed


@router.get("/reviews", response_model=reviews.ReviewsPublic, responses={**WRITE})
def list_reviews(
    _caller: Moderator,
    ledger: LedgerDep,
    status: Annotated[reviews.Status, Query(description="a case's status")] = ReviewStatus.OPEN,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=reviews.MAX_PAGE, description="1 to 200")] = 50,
) -> reviews.ReviewsPublic:
    """The review queue: the cases of ``status``, most reported first, then the oldest
    report first (then by game id), each with the game, its players, its rating
    changes and every report with its evidence. Paged: at most ``limit`` (200; default
    50) from ``offset``, with the ``total``. Needs a moderator token."""
    return reviews.reviews(ledger, status, offset, limit)


@router.get(
    "/reviews/{game_id}", response_model=reviews.ReviewPublic, responses={**WRITE, **NOT_FOUND}
)
def get_review(_caller: Moderator, game_id: str, ledger: LedgerDep) -> reviews.ReviewPublic:
    """One game's review case. Needs a moderator token."""
    return reviews.review(ledger, game_id)


@router.post(
    "/reviews/{game_id}/confirm",
    response_model=reviews.ConfirmedPublic,
    responses={**WRITE, **INVALID, **NOT_FOUND, **CONFLICT},
)
def confirm_review(
    caller: Moderator, game_id: str, body: reviews.DecisionCreate, ledger: LedgerDep, now: Now
) -> reviews.ConfirmedPublic:
    """Confirm cheating: the game is annulled as ``POST /games/{id}/annul`` does (site
    S10, the moderator's token label as ``by``, ``reason`` as the reason), in the same
    transaction as the case. A case confirmed or a game annulled already, or a
    dismissed case (reopen it first): 409. A moderator who reported the game (a report
    filed through their token, through another token with their label, or by their
    label): 403, another moderator must confirm."""
    by, token_id = reviews.moderator(ledger, caller)
    return reviews.confirm(ledger, game_id, body.reason, by, now, token_id)


@router.post(
    "/reviews/{game_id}/dismiss",
    response_model=reviews.ReviewPublic,
    responses={**WRITE, **INVALID, **NOT_FOUND, **CONFLICT},
)
def dismiss_review(
    caller: Moderator, game_id: str, body: reviews.NoteCreate, ledger: LedgerDep, now: Now
) -> reviews.ReviewPublic:
    """Dismiss an open case with a note; the ratings stay as they are."""
    by = reviews.moderator_name(ledger, caller)
    return reviews.dismiss(ledger, game_id, body.note, by, now)


@router.post(
    "/reviews/{game_id}/reopen",
    response_model=reviews.ReviewPublic,
    responses={**WRITE, **INVALID, **NOT_FOUND, **CONFLICT},
)
def reopen_review(
    caller: Moderator, game_id: str, body: reviews.NoteCreate, ledger: LedgerDep, now: Now
) -> reviews.ReviewPublic:
    """Open a dismissed case again, with a note."""
    by = reviews.moderator_name(ledger, caller)
    return reviews.reopen(ledger, game_id, body.note, by, now)


@router.post(
    "/players/{player_id}/mark",
    response_model=marks.MarkPublic,
    status_code=status.HTTP_201_CREATED,
    responses={**WRITE, **INVALID, **NOT_FOUND, **CONFLICT},
)
def mark_player(
    caller: Moderator, player_id: str, body: marks.MarkCreate, ledger: LedgerDep, now: Now
) -> marks.MarkPublic:
    """Mark a player whose cheating is confirmed (201): from the next pairing pass on
    they are paired only with other marked players. Kept in the audit log with the
    moderator (their token's label) and the reason. An unknown player: 404; a player
    marked already: 409. Needs a moderator token."""
    by = reviews.moderator_name(ledger, caller)
    return marks.mark(ledger, player_id, body.reason, by, now)


@router.delete(
    "/players/{player_id}/mark",
    response_model=marks.MarkPublic,
    responses={**WRITE, **INVALID, **NOT_FOUND, **CONFLICT},
)
def unmark_player(
    caller: Moderator, player_id: str, body: marks.MarkCreate, ledger: LedgerDep, now: Now
) -> marks.MarkPublic:
    """Lift a player's mark, with the reason (the mark is kept, lifted; the audit log
    says who lifted it and why). An unknown player: 404; a player not marked: 409.
    Needs a moderator token."""
    by = reviews.moderator_name(ledger, caller)
    return marks.unmark(ledger, player_id, body.reason, by, now)


@router.get(
    "/players/{player_id}/marks",
    response_model=list[marks.MarkPublic],
    responses={**WRITE, **NOT_FOUND},
)
def player_marks(_caller: Moderator, player_id: str, ledger: LedgerDep) -> list[marks.MarkPublic]:
    """Every mark of the player, newest first, the lifted ones too. Needs a moderator
    token."""
    return marks.marks(ledger, player_id)


@router.get("/audit", response_model=reviews.AuditPublic, responses={**WRITE})
def audit_log(
    _caller: Moderator,
    ledger: LedgerDep,
    target: Annotated[
        str | None,
        Query(max_length=200, description="one game id, `token N` or `player ID`"),
    ] = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=reviews.MAX_PAGE, description="1 to 200")] = 100,
) -> reviews.AuditPublic:
    """The audit log, newest first: every report, confirmation, dismissal, reopening,
    annulment, token created and revoked, player marked and mark lifted (who, when,
    what, on what, why). Paged: at
    most ``limit`` (200; default 100) from ``offset``, with the ``total``. Needs a
    moderator token."""
    return reviews.audit_log(ledger, offset, limit, target)
