"""The HTTP API, versioned under ``/api/v1`` (``/healthz`` at the root): one router per
resource (:mod:`.routes`), each route calling its resource's module of
:mod:`chessrate.application`, and the mapping of the domain's errors to HTTP
(:mod:`.errors`).

:func:`mount_api` puts them on an app; :mod:`chessrate.server` builds the app and
mounts the API and the pages. This package never imports :mod:`chessrate.web`.
"""

from __future__ import annotations

from fastapi import FastAPI

from ..application.settings import API_V1
from .errors import install_error_handlers
from .routes import api_router, health
from .routes import metrics as metrics_route
from .routing import NormalIds, relative_slash_redirects

__all__ = ["API_V1", "DESCRIPTION", "mount_api"]

DESCRIPTION = """\
Exact chess ratings (arena, corr, site, fide) over a durable ledger.

Reads are public. Writes need `Authorization: Bearer <token>` of role `writer` or
`moderator`; annulling a game needs a `moderator` token. Ratings and every number of
an explanation are exact decimal strings (`"1516.00"`). Invalid input answers 422
naming the field and the reason; nothing is stored.
"""
"""The API's description in its OpenAPI document (``/docs``)."""


def mount_api(app: FastAPI) -> None:
    """Serve the API at ``/api/v1``, ``/healthz`` and ``/metrics``, and map the
    domain's errors to HTTP for the whole app (the pages' errors answer as the API's
    do), with routing's own answers (:mod:`.routing`: relative redirects, ``OPTIONS``
    and ``Allow``, ids in addresses in NFC)."""
    install_error_handlers(app)
    relative_slash_redirects(app)
    app.add_middleware(NormalIds)
    app.include_router(api_router, prefix=API_V1)
    app.include_router(health.router)
    app.include_router(metrics_route.router)
