"""Preview: what a win, a draw or a loss would do to two players' ratings now."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query

from ...application import preview
from ...application.common import ID_SCHEMA, request_body
from ...application.deps import LedgerDep, Now
from ...records import Termination, Venue
from .guard import TokenFirstRoute
from .responses import INVALID

router = APIRouter(prefix="/preview", tags=["preview"], route_class=TokenFirstRoute)

Text = Annotated[str | None, Query()]
Venues = Annotated[str | None, Query(json_schema_extra={"enum": [v.value for v in Venue]})]
Terminations = Annotated[
    str | None, Query(json_schema_extra={"enum": [t.value for t in Termination]})
]


@router.get("", response_model=preview.PreviewPublic, responses=INVALID)
def preview_get(
    ledger: LedgerDep,
    now: Now,
    white: Annotated[str, Query(description="White's player id", json_schema_extra=ID_SCHEMA)],
    black: Annotated[
        str, Query(description="Black's player id; not White's", json_schema_extra=ID_SCHEMA)
    ],
    time_control: Annotated[str | None, Query(description="`5m+3s`, `300+3`, `-`, `3d`")] = None,
    venue: Venues = None,
    rated: Text = None,
    termination: Terminations = None,
    plies: Text = None,
    played_at: Annotated[str | None, Query(description="default: now")] = None,
    confirmed: Text = None,
) -> preview.PreviewPublic:
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
    return preview.preview(ledger, fields, now)


@router.post(
    "",
    response_model=preview.PreviewPublic,
    openapi_extra=request_body(preview.PreviewRequest),
    responses=INVALID,
)
def preview_post(
    body: Annotated[dict[str, Any], Body()], ledger: LedgerDep, now: Now
) -> preview.PreviewPublic:
    """The same as GET, with the game's fields in a JSON body. Public: stores nothing."""
    return preview.preview(ledger, body, now)
