"""Preview: what a win, a draw or a loss would do to two players' ratings now."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query

from ...application import schemas, services
from ...application.deps import LedgerDep, Now
from .guard import TokenFirstRoute
from .responses import INVALID

router = APIRouter(prefix="/preview", tags=["preview"], route_class=TokenFirstRoute)

Text = Annotated[str | None, Query()]


@router.get("", response_model=schemas.PreviewPublic, responses=INVALID)
def preview_get(
    ledger: LedgerDep,
    now: Now,
    white: Annotated[str, Query(description="White's player id")],
    black: Annotated[str, Query(description="Black's player id")],
    time_control: Annotated[str | None, Query(description="`5m+3s`, `300+3`, `-`, `3d`")] = None,
    venue: Text = None,
    rated: Text = None,
    termination: Text = None,
    plies: Text = None,
    played_at: Annotated[str | None, Query(description="default: now")] = None,
    confirmed: Text = None,
) -> schemas.PreviewPublic:
    """Each result's outcome and changes (nothing is stored). The fields are those of a
    game record, without ``result``; they are validated as a game record's."""
    fields = {
        "white": white,
        "black": black,
        "time_control": time_control,
        "venue": venue,
        "rated": rated,
        "termination": termination,
        "plies": plies,
        "played_at": played_at,
        "confirmed": confirmed,
    }
    return services.preview(ledger, fields, now)


@router.post(
    "",
    response_model=schemas.PreviewPublic,
    openapi_extra=schemas.request_body(schemas.PreviewRequest),
    responses=INVALID,
)
def preview_post(
    body: Annotated[dict[str, Any], Body()], ledger: LedgerDep, now: Now
) -> schemas.PreviewPublic:
    """The same as GET, with the game's fields in a JSON body. Public: stores nothing."""
    return services.preview(ledger, body, now)
