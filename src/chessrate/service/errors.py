"""Errors → HTTP, in one place (DESIGN.md "the CLI and API each map them in one place").

=========================== ====== ==================================================
exception                   status body
=========================== ====== ==================================================
InvalidRecord               422    ``{"detail": [{"loc", "field", "where", "msg", …}]}``
RequestValidationError      422    the same shape (malformed JSON, wrong types)
InvalidInput, other errors  422    the same shape, ``field`` null
NotFound                    404    ``{"detail": "game g9: no such game"}``
Conflict                    409    ``{"detail": "game g1: id: already used …"}``
LedgerUnavailable           503    ``{"status": "unavailable", "detail": "database: …"}``
=========================== ====== ==================================================

The domain errors live in :mod:`chessrate.errors`; the handlers are installed on the
whole app, so a page's error answers as the API's does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request, status
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from ..errors import (
    ChessrateError,
    Conflict,
    InvalidInput,
    InvalidRecord,
    LedgerUnavailable,
    NotFound,
)

UNPROCESSABLE = status.HTTP_422_UNPROCESSABLE_CONTENT


def _place(request: Request) -> str:
    return "query" if request.method in ("GET", "HEAD") else "body"


def _unprocessable(items: Sequence[dict[str, Any]]) -> JSONResponse:
    return JSONResponse(status_code=UNPROCESSABLE, content={"detail": jsonable_encoder(items)})


def invalid_record_item(request: Request, error: InvalidRecord) -> dict[str, Any]:
    return {
        "type": "invalid_record",
        "loc": [_place(request), error.field],
        "field": error.field,
        "where": error.where,
        "msg": error.reason,
        "message": str(error),
    }


def _validation_item(error: Any) -> dict[str, Any]:
    loc = [part for part in error.get("loc", ())]
    kind = error.get("type", "")
    reason = str(error.get("msg", "invalid"))
    if kind == "json_invalid":
        detail = (error.get("ctx") or {}).get("error")
        reason = f"malformed JSON: {detail}" if detail else "malformed JSON"
        position = loc[1] if len(loc) > 1 else None
        if isinstance(position, int):
            reason += f" (at character {position})"
        loc = loc[:1]
    named = [str(part) for part in loc[1:]] or [str(part) for part in loc]
    field = ".".join(named) if named else None
    return {
        "type": kind,
        "loc": loc,
        "field": field,
        "where": str(loc[0]) if loc else None,
        "msg": reason,
        "message": f"{field}: {reason}" if field else reason,
    }


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(InvalidRecord)
    async def invalid_record(request: Request, error: InvalidRecord) -> JSONResponse:
        return _unprocessable([invalid_record_item(request, error)])

    @app.exception_handler(RequestValidationError)
    async def request_validation(request: Request, error: RequestValidationError) -> JSONResponse:
        return _unprocessable([_validation_item(e) for e in error.errors()])

    @app.exception_handler(NotFound)
    async def not_found(request: Request, error: NotFound) -> JSONResponse:
        return JSONResponse(status_code=status.HTTP_404_NOT_FOUND, content={"detail": str(error)})

    @app.exception_handler(Conflict)
    async def conflict(request: Request, error: Conflict) -> JSONResponse:
        return JSONResponse(status_code=status.HTTP_409_CONFLICT, content={"detail": str(error)})

    @app.exception_handler(LedgerUnavailable)
    async def unavailable(request: Request, error: LedgerUnavailable) -> JSONResponse:
        # The database does not answer or holds no ledger: the service is unavailable,
        # not the request invalid (/healthz answers so too).
        return JSONResponse(
            status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
            content={"status": "unavailable", "detail": str(error).splitlines()[0]},
        )

    @app.exception_handler(ChessrateError)
    async def invalid_input(request: Request, error: ChessrateError) -> JSONResponse:
        # InvalidInput and any other input error: no single field to name.
        kind = "invalid_input" if isinstance(error, InvalidInput) else "invalid"
        return _unprocessable(
            [
                {
                    "type": kind,
                    "loc": [_place(request)],
                    "field": None,
                    "where": None,
                    "msg": str(error),
                    "message": str(error),
                }
            ]
        )
