"""Error pages: a page route's error answers as a page in the site's layout (404, 422
with what was wrong, 503, 500 without internals); the API (``/api/...``, ``/healthz``,
``/docs``) keeps its JSON. :func:`mount_web` puts :func:`error_page` on the app's
state; the service's error handlers (:mod:`chessrate.service.errors`) call it for a
page route."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

NOT_PAGES = ("/api/", "/docs", "/openapi.json", "/redoc", "/healthz", "/metrics", "/static/")
"""Paths whose errors stay JSON (or the static files' own answers)."""

TITLES = {
    401: "Not signed in",
    403: "Forbidden",
    404: "Not found",
    409: "Conflict",
    413: "Too large",
    422: "That cannot be shown",
    429: "Too many attempts",
    500: "Something went wrong",
    503: "The ledger is unavailable",
}


def is_page(request: Request) -> bool:
    """Whether the request is for a page (not the API, its docs or a static file)."""
    path = request.url.path
    return not any(path == p.rstrip("/") or path.startswith(p) for p in NOT_PAGES)


def error_page(
    templates: Jinja2Templates,
    request: Request,
    status: int,
    message: str,
    details: Sequence[str] = (),
) -> HTMLResponse:
    """The error as a page of the site (its header, its search), with the status."""
    context: dict[str, Any] = {
        "status": status,
        "title": TITLES.get(status, "Error"),
        "message": message,
        "details": list(details),
        "system": None,
        "info": None,
    }
    ledger = getattr(request.app.state, "ledger", None)
    if ledger is not None and status != 503:
        # a ledger that cannot say its system: the page without it
        with suppress(Exception):
            context["system"], context["info"] = ledger.system_id, ledger.info
    return templates.TemplateResponse(request, "error.html", context, status_code=status)
