"""Routing's own answers, for the whole app (the API's routes and the pages'):

- **Redirects are paths.** A path with a trailing ``/`` too many (or one too few)
  redirects (``307``) to the path that exists with a ``Location`` that is a path
  (``/leaderboards/site``), never an absolute URL built from the request's ``Host``
  header, which a client chooses (Starlette's own ``redirect_slashes`` echoes it). A
  path starting with ``//`` is never redirected (``//evil.example`` in a
  ``Location`` is another site).
- **OPTIONS and 405 name every method of the path.** ``OPTIONS`` on a path that
  exists answers ``204`` with ``Allow`` listing all its methods (every route of that
  path, ``HEAD`` with ``GET``, and ``OPTIONS``), ``404`` on a path that does not; a
  method the path does not take answers ``405`` with the same ``Allow``
  (:mod:`chessrate.service.errors` answers both through :func:`allowed_methods`).
- **Ids in addresses are NFC.** :class:`NormalIds` puts the request's path and query
  in Unicode NFC before routing (:func:`chessrate.identifiers.normal_id`: the one spelling
  every id is stored in), so ``/api/v1/players/Nova%CC%81k`` (NFD) finds the player
  ``Novák``.
"""

from __future__ import annotations

import stat
from urllib.parse import parse_qsl, urlencode

from fastapi import FastAPI
from starlette.responses import RedirectResponse
from starlette.routing import BaseRoute, Match, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from ..identifiers import normal_id

METHOD_ORDER = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
"""The order ``Allow`` lists methods in."""


def allowed_methods(routes: list[BaseRoute], scope: Scope) -> list[str]:
    """Every method some route of the app takes at the request's path, in
    :data:`METHOD_ORDER` (``HEAD`` with ``GET``, ``OPTIONS`` always); empty when no
    route has the path. Each method is asked of the routes as a request would be (a
    route matches fully only its own methods); a mounted app (the static files)
    takes ``GET`` and ``HEAD`` where it has a file."""
    found: set[str] = set()
    for route in routes:
        for method in PROBED:
            if method in found:
                continue
            probe = {key: value for key, value in scope.items() if key in PLAIN_SCOPE}
            match, child = route.matches({**probe, "method": method})
            if match is not Match.FULL:
                continue
            if not isinstance(route, Mount):
                found.add(method)
            elif _serves(route, {**probe, **child}):
                found |= {"GET", "HEAD"}
    if not found:
        return []
    if "GET" in found:
        found.add("HEAD")
    found.add("OPTIONS")
    return [m for m in METHOD_ORDER if m in found]


def _serves(mount: Mount, scope: Scope) -> bool:
    """Whether a mounted app has something at the path: a static files app, a file
    there (its ``404`` otherwise); another app, anything."""
    if not isinstance(mount.app, StaticFiles):
        return True
    _full, found = mount.app.lookup_path(mount.app.get_path(scope))
    return found is not None and stat.S_ISREG(found.st_mode)


PROBED = ("GET", "POST", "PUT", "PATCH", "DELETE")
PLAIN_SCOPE = frozenset({"type", "path", "raw_path", "root_path", "query_string", "headers",
                         "scheme", "server", "client", "http_version", "asgi", "app"})  # fmt: skip
"""The keys of a request's scope a route's match reads (not what routing added)."""


def relative_slash_redirects(app: FastAPI) -> None:
    """Redirect a path with a trailing ``/`` too many or too few to the route that
    exists, with a relative ``Location`` (see the module's docstring); else the app's
    404 as before."""
    router = app.router
    not_found = router.default
    router.redirect_slashes = False

    async def slash_or_not_found(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and path not in ("", "/") and not path.startswith("//"):
            other = path.rstrip("/") if path.endswith("/") else path + "/"
            if other and not other.startswith("//"):
                probe = {**scope, "path": other}
                if any(route.matches(probe)[0] is not Match.NONE for route in router.routes):
                    query = scope.get("query_string", b"").decode("latin-1")
                    location = other + (f"?{query}" if query else "")
                    await RedirectResponse(location)(scope, receive, send)
                    return
        await not_found(scope, receive, send)

    router.default = slash_or_not_found


class NormalIds:
    """The request's path and query string in Unicode NFC (see the module's docstring);
    an ASCII address (the usual one) passes untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path, query = scope.get("path", ""), scope.get("query_string", b"")
            normal_path, normal_query = normal_id(path), _normal_query(query)
            if normal_path != path or normal_query != query:
                scope = {**scope, "path": normal_path, "query_string": normal_query}
        await self.app(scope, receive, send)


def _normal_query(raw: bytes) -> bytes:
    """A query string with every name and value in NFC (bytes that are not UTF-8 kept as
    they were); the same bytes when that changes nothing."""
    if b"%" not in raw and raw.isascii():
        return raw
    text = raw.decode("latin-1")
    pairs = parse_qsl(text, keep_blank_values=True, errors="surrogateescape")
    normal = [(normal_id(k), normal_id(v)) for k, v in pairs]
    if normal == pairs:
        return raw
    return urlencode(normal, errors="surrogateescape").encode("ascii")
