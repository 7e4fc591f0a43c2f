"""The query parameters of a paged list: ``offset`` (at most
:data:`~chessrate.application.common.MAX_OFFSET`, else 422) and a ``limit`` bounded by
each list (above its most: 422). Every list of the API is paged."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

from ...application.common import LIST_PAGE_MAX, MAX_OFFSET

Offset = Annotated[
    int,
    Query(ge=0, le=MAX_OFFSET, description="rows to skip (at most 2,147,483,647)"),
]
ListLimit = Annotated[
    int,
    Query(
        ge=1,
        le=LIST_PAGE_MAX,
        description=f"the most rows to answer (1 to {LIST_PAGE_MAX:,}; default {LIST_PAGE_MAX:,})",
    ),
]
"""The limit of the lists that had no paging before; its default is its most."""
