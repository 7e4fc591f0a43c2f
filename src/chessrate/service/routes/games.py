"""Games: submit one (idempotent on ``id``), submit a batch (atomic), read one."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Body, Depends, Response, status

from ...application import games
from ...application.common import request_body
from ...application.deps import CommitterDep, LedgerDep, Now, Writer
from ...application.settings import API_V1
from .body import JSON_LINES_TYPES, json_lines_body, text_request_body
from .guard import TokenFirstRoute
from .responses import CONFLICT, INVALID, NOT_FOUND, WRITE

router = APIRouter(prefix="/games", tags=["games"], route_class=TokenFirstRoute)


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=games.GamePublic,
    openapi_extra=request_body(games.GameCreate),
    responses={
        200: {"model": games.GamePublic, "description": "the same game was stored before"},
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
) -> Response:
    """Rate and store one game (201). Resubmitting the same id with the same content
    answers the stored game (200) and changes nothing; with different content, 409.
    Games that arrive together are rated and committed together (group commit); each
    is answered after its commit."""
    view, created = await games.submit_game_grouped(committer, body, now)
    # The answer is GamePublic's JSON, written without the model (games.game_json).
    return Response(
        games.game_json(view),
        status_code=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        headers={"Location": f"{API_V1}/games/{quote(view.id, safe='')}"},
        media_type="application/json",
    )


@router.post(
    "/batch",
    status_code=status.HTTP_201_CREATED,
    response_model=games.BatchPublic,
    openapi_extra=text_request_body(
        JSON_LINES_TYPES, "JSON Lines: one game record per line (see GameCreate)"
    ),
    responses={
        200: {"model": games.BatchPublic, "description": "every game was stored before"},
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
) -> games.BatchPublic:
    """Rate and store a batch in one transaction, in line order: every game or none.
    An invalid line is refused (422) naming ``batch:LINE``, the field and the reason."""
    batch = games.submit_batch(ledger, content, now)
    response.status_code = status.HTTP_201_CREATED if batch.created else status.HTTP_200_OK
    return batch


@router.get("/{game_id}", response_model=games.GamePublic, responses=NOT_FOUND)
def get_game(game_id: str, ledger: LedgerDep) -> games.GamePublic:
    """A stored game with its outcome, reason, changes and their explanation."""
    return games.get_game(ledger, game_id)
