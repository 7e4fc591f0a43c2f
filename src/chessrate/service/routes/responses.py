"""The error answers documented on the routes (the bodies come from
:mod:`chessrate.service.errors`)."""

from __future__ import annotations

from typing import Any

WRITE: dict[int | str, dict[str, Any]] = {
    401: {"description": "no valid bearer token"},
    403: {"description": "the token's role may not do this"},
}
INVALID: dict[int | str, dict[str, Any]] = {
    422: {"description": "invalid input: the body names the field and the reason"},
}
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "no such resource"}}
CONFLICT: dict[int | str, dict[str, Any]] = {409: {"description": "conflicts with stored data"}}
