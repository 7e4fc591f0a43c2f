"""Raw text bodies (JSON Lines batches, TRF files), read before a sync endpoint runs."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request, status

JSON_LINES_TYPES = (
    "application/x-ndjson",
    "application/jsonl",
    "application/x-jsonlines",
    "application/json-lines",
    "text/plain",
)
TEXT_TYPES = ("text/plain", "application/octet-stream")


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def _check_type(request: Request, allowed: tuple[str, ...]) -> None:
    media = _media_type(request)
    if media and media not in allowed:
        raise HTTPException(
            status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
            f"content-type {media!r} is not accepted here (use {' or '.join(allowed)})",
        )


async def json_lines_body(request: Request) -> bytes:
    """A batch body: JSON Lines, sent as application/x-ndjson or text/plain."""
    _check_type(request, JSON_LINES_TYPES)
    return await request.body()


async def text_body(request: Request) -> bytes:
    """A text file body (TRF), sent as text/plain."""
    _check_type(request, TEXT_TYPES)
    return await request.body()


def text_request_body(media_types: tuple[str, ...], description: str) -> dict[str, Any]:
    """``openapi_extra`` documenting a raw text body."""
    schema = {"type": "string", "minLength": 1, "pattern": "\\S"}  # something besides spaces
    content = {media: {"schema": schema} for media in media_types}
    return {"requestBody": {"required": True, "description": description, "content": content}}
