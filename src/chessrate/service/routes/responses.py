"""The error answers documented on the routes (the bodies come from
:mod:`chessrate.service.errors`).

:data:`COMMON_RESPONSES` are the answers any API route may give, whatever it does; the
API's router declares them once for all its routes (:mod:`.routes`), so the OpenAPI
document lists every status code the API answers (the suite's schemathesis run checks
that it does: ``tests/service/test_schemathesis.py``). The others are declared by the
routes that give them."""

from __future__ import annotations

from typing import Any

Responses = dict[int | str, dict[str, Any]]

WRITE: Responses = {
    401: {"description": "no valid bearer token"},
    403: {"description": "the token's role may not do this"},
}
INVALID: Responses = {
    422: {"description": "invalid input: the body names the field and the reason"},
}
NOT_FOUND: Responses = {404: {"description": "no such resource"}}
CONFLICT: Responses = {409: {"description": "conflicts with stored data"}}
COMMON_RESPONSES: Responses = {
    413: {"description": "the request body is larger than CHESSRATE_MAX_BODY_BYTES"},
    429: {
        "description": "too many failed authentications from this address: try again "
        "after `Retry-After` seconds (CHESSRATE_AUTH_FAILURES in "
        "CHESSRATE_AUTH_WINDOW_SECONDS); only a request that presents a token"
    },
    503: {
        "description": "the database does not answer, or a lock was not had within "
        "CHESSRATE_BUSY_SECONDS: try again after `Retry-After` seconds"
    },
}
