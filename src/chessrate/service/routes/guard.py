"""A write's bearer token checked before its body is read.

FastAPI reads and parses a request's body before the route's dependencies run, so a
write without a valid token would have its body read (up to
``CHESSRATE_MAX_BODY_BYTES``) and parsed before its 401. Every API router is built with
:class:`TokenFirstRoute`: on a ``POST``, ``PUT``, ``PATCH`` or ``DELETE`` route that
asks for a caller (every write of the API but ``POST /preview``) the token is checked
first, after routing (an unknown path is still a 404, a wrong method a 405), and a 401
(or a 429 after too many failures from the address) answers without reading a byte
of the body. The caller found is left in the request's state for
:func:`~chessrate.application.deps.get_caller`; the role (writer, moderator) is
checked by the route, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from ...application.deps import CALLER, authenticate, bearer_token, requires_token

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class TokenFirstRoute(APIRoute):
    """An API route whose writes check their token before their body (see the module's
    docstring)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if not ((self.methods or set()) & WRITES and requires_token(self)):
            return handler

        async def token_first(request: Request) -> Response:
            caller = await authenticate(request, bearer_token(request))
            setattr(request.state, CALLER, caller)
            return await handler(request)

        return token_first
