"""The web pages: leaderboards, player pages with rating charts, explained games,
annulments, search, live games and the FIDE periods. Server-rendered HTML (Jinja2)
that works without JavaScript; the numbers come from the same services as the API's
(:mod:`chessrate.application.services`). This package never imports
:mod:`chessrate.service`; :mod:`chessrate.server` mounts both."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .errors import error_page, is_page
from .pages import router, templates

HERE = Path(__file__).parent


def mount_web(app: FastAPI) -> None:
    """Serve the pages at ``/`` and their static files at ``/static``."""
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.include_router(router)
    # the service's error handlers answer a page route with this page (HTML)
    app.state.error_page = lambda request, status, message, details=(): (
        error_page(templates, request, status, message, details) if is_page(request) else None
    )


__all__ = ["mount_web"]
