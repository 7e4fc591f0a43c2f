"""Games: submit one (idempotent on ``id``), submit a batch (atomic), read one."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Body, Depends, Response, status

from ...application import schemas, services
from ...application.deps import CommitterDep, LedgerDep, Now, Writer
from ...application.settings import API_V1
from .body import JSON_LINES_TYPES, json_lines_body, text_request_body
from .guard import TokenFirstRoute
from .responses import CONFLICT, INVALID, NOT_FOUND, WRITE

router = APIRouter(prefix="/games", tags=["games"], route_class=TokenFirstRoute)


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=schemas.GamePublic,
    openapi_extra=schemas.request_body(schemas.GameCreate),
    responses={
        200: {"model": schemas.GamePublic, "description": "the same game was stored before"},
        **WRITE,
        **INVALID,
        **CONFLICT,
    },
)
async def submit_game(
    _: Writer,
    body: Annotated[dict[str, Any], Body()],
    committer: CommitterDep,
    now: Now,
    response: Response,
) -> schemas.GamePublic:
    """Rate and store one game (201). Resubmitting the same id with the same content
    answers the stored game (200) and changes nothing; with different content, 409.
    Games that arrive together are rated and committed together (group commit); each
    is answered after its commit."""
    game, created = await services.submit_game_grouped(committer, body, now)
    response.status_code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
    response.headers["Location"] = f"{API_V1}/games/{quote(game.id, safe='')}"
    return game


@router.post(
    "/batch",
    status_code=status.HTTP_201_CREATED,
    response_model=schemas.BatchPublic,
    openapi_extra=text_request_body(
        JSON_LINES_TYPES, "JSON Lines: one game record per line (see GameCreate)"
    ),
    responses={
        200: {"model": schemas.BatchPublic, "description": "every game was stored before"},
        415: {"description": "not a JSON Lines body"},
        **WRITE,
        **INVALID,
        **CONFLICT,
    },
)
def submit_batch(
    _: Writer,
    content: Annotated[bytes, Depends(json_lines_body)],
    ledger: LedgerDep,
    now: Now,
    response: Response,
) -> schemas.BatchPublic:
    """Rate and store a batch in one transaction, in line order: every game or none.
    An invalid line is refused (422) naming ``batch:LINE``, the field and the reason."""
    batch = services.submit_batch(ledger, content, now)
    response.status_code = status.HTTP_201_CREATED if batch.created else status.HTTP_200_OK
    return batch


@router.get("/{game_id}", response_model=schemas.GamePublic, responses=NOT_FOUND)
def get_game(game_id: str, ledger: LedgerDep) -> schemas.GamePublic:
    """A stored game with its outcome, reason, changes and their explanation."""
    return services.get_game(ledger, game_id)
