"""The error answers documented on the routes (the bodies come from
:mod:`chessrate.service.errors`): :data:`EVERY` on every route of the API, the others
where they apply."""

from __future__ import annotations

from typing import Any

WRITE: dict[int | str, dict[str, Any]] = {
    401: {"description": "no valid bearer token"},
    403: {"description": "the token's role may not do this"},
    429: {
        "description": "too many failed authentications from this address: try again "
        "after `Retry-After` seconds (CHESSRATE_AUTH_FAILURES in "
        "CHESSRATE_AUTH_WINDOW_SECONDS)"
    },
}
INVALID: dict[int | str, dict[str, Any]] = {
    422: {"description": "invalid input: the body names the field and the reason"},
}
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "no such resource"}}
CONFLICT: dict[int | str, dict[str, Any]] = {409: {"description": "conflicts with stored data"}}
EVERY: dict[int | str, dict[str, Any]] = {
    413: {"description": "the request body is larger than CHESSRATE_MAX_BODY_BYTES"},
    503: {
        "description": "the database does not answer, or a lock was not had within "
        "CHESSRATE_BUSY_SECONDS: try again after `Retry-After` seconds"
    },
}
"""What any route of the API may answer (its middlewares and the database's state)."""
