"""The web pages: leaderboards, player pages with rating charts, explained games,
annulments, search, live games and the FIDE periods. Server-rendered HTML (Jinja2)
that works without JavaScript; the numbers come from the same services as the API's
(:mod:`chessrate.application.services`). This package never imports
:mod:`chessrate.service`; :mod:`chessrate.server` mounts both."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .pages import router

HERE = Path(__file__).parent


def mount_web(app: FastAPI) -> None:
    """Serve the pages at ``/`` and their static files at ``/static``."""
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.include_router(router)


__all__ = ["mount_web"]
