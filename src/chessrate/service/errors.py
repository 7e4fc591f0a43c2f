"""Errors → HTTP, in one place (the command line maps them in one place too).

=========================== ====== ==================================================
exception                   status body
=========================== ====== ==================================================
InvalidRecord               422    ``{"detail": [{"loc", "field", "where", "msg", …}]}``
RequestValidationError      422    the same shape (malformed JSON, wrong types)
FastAPI's unreadable body   422    the same shape (a body not UTF-8, nested too deep)
InvalidInput, other errors  422    the same shape, ``field`` null
NotFound                    404    ``{"detail": "game g9: no such game"}``
Conflict                    409    ``{"detail": "game g1: id: already used …"}``
Forbidden                   403    ``{"detail": "game g1: you reported this game: …"}``
LedgerUnavailable           503    ``{"status": "unavailable", "detail": "database: …"}``
                                   and ``Retry-After: 5``
HTTPException               its    ``{"detail": "…"}`` and its headers (401, 403, 413
                                   body too large, 429 with ``Retry-After``, …)
a method the path refuses   405    ``{"detail": "Method Not Allowed"}``, ``Allow``: every
                                   method of the path (:mod:`.routing`)
OPTIONS on a path           204    no body, the same ``Allow``
=========================== ====== ==================================================

The domain errors live in :mod:`chessrate.errors`; the handlers are installed on the
whole app. A page route's error (not ``/api/...``, ``/healthz`` or ``/docs``) answers
with the web's HTML error page instead, when the pages are mounted
(:mod:`chessrate.web.errors`): 404, 409, 413, 422 with what was wrong, 503, and 500
without internals. The middlewares that refuse a request before its route
(:mod:`chessrate.server`: a body too large, a write without a valid token) answer
through these same handlers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request, status
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import (
    ChessrateError,
    Conflict,
    Forbidden,
    InvalidInput,
    InvalidRecord,
    LedgerUnavailable,
    NotFound,
)
from .routing import allowed_methods

UNPROCESSABLE = status.HTTP_422_UNPROCESSABLE_CONTENT
RETRY_SECONDS = 5
"""``Retry-After`` of a 503: when to try again after the database did not answer (or a
lock was not had within ``CHESSRATE_BUSY_SECONDS``)."""
PAGED_STATUSES = (status.HTTP_404_NOT_FOUND, status.HTTP_413_CONTENT_TOO_LARGE)
"""Routing's and the middlewares' errors that a page route answers with a page."""


def _place(request: Request) -> str:
    return "query" if request.method in ("GET", "HEAD") else "body"


class AsciiJSONResponse(JSONResponse):
    """An error answer in ASCII JSON: what it quotes of the request (an id with a lone
    surrogate, a control character) is escaped, never a reason the answer cannot be
    written."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False).encode("ascii")


def _unprocessable(items: Sequence[dict[str, Any]]) -> JSONResponse:
    return AsciiJSONResponse(status_code=UNPROCESSABLE, content={"detail": jsonable_encoder(items)})


def invalid_record_item(request: Request, error: InvalidRecord) -> dict[str, Any]:
    place = error.where if error.where in ("path", "query") else _place(request)
    return {
        "type": "invalid_record",
        "loc": [place, error.field],
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


def _unreadable_body_item(cause: BaseException) -> dict[str, Any]:
    """The 422 item of a body FastAPI could not read as JSON."""
    if isinstance(cause, UnicodeDecodeError):
        reason = f"malformed JSON: the body is not UTF-8 text ({cause.reason})"
    elif isinstance(cause, RecursionError):
        reason = "malformed JSON: nested too deeply"
    else:
        reason = "malformed JSON: the body cannot be read"
    return {
        "type": "json_invalid",
        "loc": ["body"],
        "field": "body",
        "where": "body",
        "msg": reason,
        "message": f"body: {reason}",
    }


def _page(
    request: Request, code: int, message: str, details: Sequence[str] = ()
) -> Response | None:
    """The web's error page for a page route (None for the API and when no web pages
    are mounted): see :mod:`chessrate.web.errors`."""
    page = getattr(request.app.state, "error_page", None)
    return None if page is None else page(request, code, message, details)


async def refuse_nul_in_address(request: Request) -> None:
    """A NUL character in the path or the query string (``%00``) is refused before the
    route reads it: :class:`InvalidRecord` (422; a page route answers the 422 page),
    naming the parameter. No id, name or search holds one, and PostgreSQL cannot
    compare text with one (its driver refuses the query: a 500). Every route has this
    dependency (:func:`chessrate.server.create_app`). A coroutine: FastAPI would run
    a plain function in a thread, a hop for every request."""
    for name, value in request.path_params.items():
        if "\x00" in str(value):
            raise InvalidRecord("path", name, "must not contain a NUL character")
    for name, value in request.query_params.multi_items():
        if "\x00" in name or "\x00" in value:
            raise InvalidRecord(
                "query", name.replace("\x00", "\\x00"), "must not contain a NUL character"
            )


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(InvalidRecord)
    async def invalid_record(request: Request, error: InvalidRecord) -> Response:
        page = _page(request, UNPROCESSABLE, "The request is not valid.", [str(error)])
        return page or _unprocessable([invalid_record_item(request, error)])

    @app.exception_handler(RequestValidationError)
    async def request_validation(request: Request, error: RequestValidationError) -> Response:
        items = [_validation_item(e) for e in error.errors()]
        shown = [item["message"] for item in items]
        return _page(request, UNPROCESSABLE, "The address is not valid.", shown) or (
            _unprocessable(items)
        )

    @app.exception_handler(NotFound)
    async def not_found(request: Request, error: NotFound) -> Response:
        return _page(request, status.HTTP_404_NOT_FOUND, str(error)) or AsciiJSONResponse(
            status_code=status.HTTP_404_NOT_FOUND, content={"detail": str(error)}
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        # Routing's own errors (no such page, a method not allowed) and a body too
        # large: a page for page routes, FastAPI's JSON for the API.
        if error.status_code == status.HTTP_400_BAD_REQUEST and error.__cause__ is not None:
            # FastAPI could not read a JSON body (not UTF-8, nested too deeply): malformed
            # JSON, a 422 as any other (it is json.JSONDecodeError that FastAPI maps).
            item = _unreadable_body_item(error.__cause__)
            page = _page(request, UNPROCESSABLE, "The request is not valid.", [item["message"]])
            return page or _unprocessable([item])
        if error.status_code == status.HTTP_405_METHOD_NOT_ALLOWED:
            # Every method of the path, not only the first route's (several routes
            # share a path); OPTIONS is answered with them (:mod:`.routing`).
            # (a mount, the static files, left its own root_path in the scope)
            scope = {**request.scope, "root_path": request.app.root_path}
            methods = allowed_methods(request.app.router.routes, scope)
            allow = ", ".join(methods)
            if not methods:  # a mount's refusal where it has nothing (a missing file)
                error = StarletteHTTPException(status.HTTP_404_NOT_FOUND, "Not Found")
            elif request.method == "OPTIONS":
                return Response(status_code=status.HTTP_204_NO_CONTENT, headers={"Allow": allow})
            else:
                error = StarletteHTTPException(error.status_code, error.detail, {"Allow": allow})
        if error.status_code in PAGED_STATUSES:
            shown = (
                f"There is no page at {request.url.path}."
                if error.status_code == status.HTTP_404_NOT_FOUND
                else str(error.detail)
            )
            page = _page(request, error.status_code, shown)
            if page is not None:
                return page
        return await http_exception_handler(request, error)

    @app.exception_handler(Conflict)
    async def conflict(request: Request, error: Conflict) -> Response:
        return _page(request, status.HTTP_409_CONFLICT, str(error)) or AsciiJSONResponse(
            status_code=status.HTTP_409_CONFLICT, content={"detail": str(error)}
        )

    @app.exception_handler(Forbidden)
    async def forbidden(request: Request, error: Forbidden) -> Response:
        return _page(request, status.HTTP_403_FORBIDDEN, str(error)) or AsciiJSONResponse(
            status_code=status.HTTP_403_FORBIDDEN, content={"detail": str(error)}
        )

    @app.exception_handler(LedgerUnavailable)
    async def unavailable(request: Request, error: LedgerUnavailable) -> Response:
        # The database does not answer or holds no ledger: the service is unavailable,
        # not the request invalid (/healthz answers so too).
        # A lock not had in time (another writer, an import) is said the same way.
        shown = "The ledger's database does not answer; try again shortly."
        answer = _page(request, status.HTTP_503_SERVICE_UNAVAILABLE, shown) or AsciiJSONResponse(
            status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
            content={"status": "unavailable", "detail": str(error).splitlines()[0]},
        )
        answer.headers["Retry-After"] = str(RETRY_SECONDS)
        return answer

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> Response:
        # A page says so without internals (the error is logged by the server); the
        # API answers as before.
        shown = "The page could not be made. The error was logged."
        page = _page(request, status.HTTP_500_INTERNAL_SERVER_ERROR, shown)
        return page or PlainTextResponse("Internal Server Error", status_code=500)

    @app.exception_handler(ChessrateError)
    async def invalid_input(request: Request, error: ChessrateError) -> Response:
        # InvalidInput and any other input error: no single field to name.
        page = _page(request, UNPROCESSABLE, "The request is not valid.", [str(error)])
        if page is not None:
            return page
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
