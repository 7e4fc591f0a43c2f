"""fide rating periods (only in a fide ledger; other ledgers answer 404): create a
period with its starting list, upload TRF files, close it (rate it), read its new
list (JSON or CSV), each player's report and each tournament's crosstable; a player's
rating by period (``/players/{id}/periods``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response, status

from ...application import crosstables, periods
from ...application.common import LIST_PAGE_MAX
from ...application.deps import LedgerDep, Now, Writer
from .body import TEXT_TYPES, text_body, text_request_body
from .guard import TokenFirstRoute
from .paging import ListLimit, Offset
from .responses import CONFLICT, INVALID, NOT_FOUND, WRITE

router = APIRouter(
    prefix="/fide/periods",
    tags=["rating periods"],
    responses=NOT_FOUND,
    route_class=TokenFirstRoute,
)
players_router = APIRouter(
    prefix="/players", tags=["rating periods"], responses=NOT_FOUND, route_class=TokenFirstRoute
)
CSV_TYPE = "text/csv; charset=utf-8"


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=periods.PeriodPublic,
    responses={**WRITE, **INVALID},
)
def create_period(
    _: Writer, body: periods.PeriodCreate, ledger: LedgerDep, now: Now
) -> periods.PeriodPublic:
    """Open a rating period: its ruleset (``seed`` or ``fide-2024``), the date of its
    list, bonus (F4), floor (F6) and starting list (CSV text:
    ``id,name,rating,games,reached_2400``, optionally ``k,birth_year,met_rated,pending``),
    validated now. Without a starting list the period starts from the last closed
    period's new list (ratings, games, K, birth years, pending results): periods chain."""
    return periods.create_period(ledger, body, now)


@router.get("", response_model=periods.PeriodsPublic)
def list_periods(
    ledger: LedgerDep, offset: Offset = 0, limit: ListLimit = LIST_PAGE_MAX
) -> periods.PeriodsPublic:
    """The rating periods, oldest first. Paged: at most ``limit`` (1,000, the default)
    from ``offset``, with the ``total``."""
    return periods.list_periods(ledger, offset, limit)


@router.get("/{period_id}", response_model=periods.PeriodPublic)
def get_period(period_id: int, ledger: LedgerDep) -> periods.PeriodPublic:
    return periods.get_period(ledger, period_id)


@router.post(
    "/{period_id}/files",
    status_code=status.HTTP_201_CREATED,
    response_model=periods.PeriodPublic,
    openapi_extra=text_request_body(TEXT_TYPES, "a TRF-16 file (UTF-8 or latin-1)"),
    responses={**WRITE, **INVALID, **CONFLICT, 415: {"description": "not a text body"}},
)
def add_file(
    _: Writer,
    period_id: int,
    content: Annotated[bytes, Depends(text_body)],
    ledger: LedgerDep,
    name: Annotated[str, Query(min_length=1, max_length=200, description="the file's name")],
    round_robin: Annotated[
        bool | None,
        Query(description="whether the tournament is a round robin; default: what 092 says"),
    ] = None,
) -> periods.PeriodPublic:
    """Add a tournament (TRF-16 text) to an open period; validated now (422 naming the
    file's line and field). A closed period: 409."""
    return periods.add_period_file(
        ledger, period_id, name, periods.decode_text(content), round_robin
    )


@router.post(
    "/{period_id}/close",
    response_model=periods.PeriodPublic,
    responses={**WRITE, **INVALID, **CONFLICT},
)
def close_period(_: Writer, period_id: int, ledger: LedgerDep, now: Now) -> periods.PeriodPublic:
    """Rate the period: its new list becomes the players' ratings in the ledger."""
    return periods.close_period(ledger, period_id, now)


@router.get("/{period_id}/list", response_model=periods.PeriodListPublic, responses=CONFLICT)
def period_list(
    period_id: int,
    ledger: LedgerDep,
    offset: Offset = 0,
    limit: ListLimit = LIST_PAGE_MAX,
) -> periods.PeriodListPublic:
    """The closed period's new list by position (409 while the period is open). Paged:
    at most ``limit`` (1,000, the default) from ``offset``, with the ``total``; the
    whole list is ``list.csv``."""
    return periods.period_list(ledger, period_id, offset, limit)


@router.get(
    "/{period_id}/list.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}, "description": "the new list"}, **CONFLICT},
)
def period_list_csv(period_id: int, ledger: LedgerDep) -> Response:
    """The closed period's new list as a CSV download: ``position, id, name,
    old_rating, new_rating, change, k, games`` (``games``: rated games this period
    counted); 409 while the period is open."""
    name, text = periods.period_list_csv(ledger, period_id)
    return Response(
        text, media_type=CSV_TYPE, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


@router.get("/{period_id}/tournaments/{number}", response_model=crosstables.CrosstablePublic)
def period_crosstable(
    period_id: int, number: int, ledger: LedgerDep
) -> crosstables.CrosstablePublic:
    """The period's ``number``-th tournament (1-based, in upload order) as a crosstable,
    read from its stored TRF file."""
    return crosstables.period_crosstable(ledger, period_id, number)


@router.get("/{period_id}/reports/{player_id}", response_model=periods.FideReportPublic)
def period_report(period_id: int, player_id: str, ledger: LedgerDep) -> periods.FideReportPublic:
    """A player's whole calculation for the period (the rating officer's report)."""
    return periods.period_report(ledger, period_id, player_id)


@players_router.get("/{player_id}/periods", response_model=periods.PlayerPeriodsPublic)
def player_periods(
    player_id: str,
    ledger: LedgerDep,
    offset: Offset = 0,
    limit: ListLimit = LIST_PAGE_MAX,
) -> periods.PlayerPeriodsPublic:
    """A fide player's rating by period: each closed period the player is in, oldest
    first, with the change, K, games and the report's path (404: no such player).
    Paged: at most ``limit`` (1,000, the default) from ``offset``, with the ``total``."""
    return periods.player_periods(ledger, player_id, offset, limit)
