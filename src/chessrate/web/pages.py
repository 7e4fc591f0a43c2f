"""The pages' routes. Each page asks :mod:`chessrate.application.services` (the same
functions as the API's routes), so what a page shows is what the API answers; what
the navigation offers follows the ledger's system (``ledger.info``: periods, live
games)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from ..application import services
from ..application.deps import LedgerDep
from ..ledger import Ledger
from ..numbers import display
from ..timecontrol import as_players_write
from .charts import rating_chart
from .formats import change_class, moment_text, signed_change, time_control_text
from .formats import signed as _signed

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")


templates.env.filters["when"] = moment_text
templates.env.filters["tc"] = time_control_text
router = APIRouter(include_in_schema=False)

POOL_NAMES = {"site": "site Elo"}
LEADERS_ON_HOME = 10
SEARCH_RESULTS = 50
CSV_TYPE = "text/csv; charset=utf-8"


def _page(
    request: Request,
    ledger: Ledger,
    name: str,
    status: int = 200,
    people: Iterable[str] = (),
    **context: Any,
) -> HTMLResponse:
    """A page; ``people`` are the ids of the players it shows, whom ``person(id)`` in
    the template shows by name (the id as the link's tooltip)."""
    names = ledger.names_of(people)
    context.update(
        system=ledger.system_id,
        info=ledger.info,
        pools=services.pools_of(ledger),
        pool_name=lambda pool: POOL_NAMES.get(pool, pool),
        signed=_signed,
        person=lambda player_id: person_link(player_id, names.get(player_id)),
    )
    return templates.TemplateResponse(request, name, context, status_code=status)


@router.get("/", response_class=HTMLResponse)
def home(request: Request, ledger: LedgerDep) -> HTMLResponse:
    boards = [
        services.leaderboard(ledger, pool, 0, LEADERS_ON_HOME) for pool in services.pools_of(ledger)
    ]
    periods = services.list_periods(ledger).periods if ledger.info.rates_periods else []
    return _page(request, ledger, "home.html", boards=boards, periods=periods)


@router.get("/leaderboards/{pool}", response_class=HTMLResponse)
def leaderboard(
    request: Request, ledger: LedgerDep, pool: str, offset: int = Query(0, ge=0)
) -> HTMLResponse:
    board = services.leaderboard(ledger, pool, offset, 50)
    return _page(request, ledger, "leaderboard.html", board=board)


RANGES: dict[str, tuple[str, int | None]] = {
    "1m": ("1 month", 30), "3m": ("3 months", 91), "1y": ("1 year", 365), "all": ("all", None),
}  # fmt: skip
"""A chart's ranges: (words, days back from the player's last change in the pool)."""
GAMES_PER_PAGE = 50
BOARD_PAGE = 50
"""Rows per page of the games list and of a leaderboard page (a rank links to its page)."""
MAX_PAGE = 20_000_000


@router.get("/players/{player_id:path}", response_class=HTMLResponse)
def player(
    request: Request,
    ledger: LedgerDep,
    player_id: str,
    page: int = Query(1, ge=1, le=MAX_PAGE),
    span: Literal["1m", "3m", "1y", "all"] = Query("all", alias="range"),
) -> HTMLResponse:
    """A player: per pool the rating, its state in words, peak, W/D/L, rank and the
    chart over the chosen range; the games list, newest first, paged."""
    public = services.get_player(ledger, player_id)
    if ledger.info.rates_periods:  # fide: the rating by period, not game by game
        periods = services.player_periods(ledger, player_id)
        rows = [{"rating": rating} for rating in public.ratings]  # the ratings table only
        return _page(request, ledger, "player.html", player=public, sections=rows,
                     periods=periods)  # fmt: skip
    stats = services.player_stats(ledger, player_id)
    summaries = {s.pool: s for s in stats.pools}
    words, days = RANGES[span]
    sections = []
    who = public.name or player_id
    for rating in public.ratings:
        series = services.chart_series(ledger, player_id, rating.pool, days)
        name = POOL_NAMES.get(rating.pool, rating.pool)
        sections.append(
            {
                "rating": rating,
                "stats": summaries.get(rating.pool),
                "chart": rating_chart(series, f"{who}: {name} rating, {words}"),
                "points": len(series.points),
            }
        )  # fmt: skip
    offset = (page - 1) * GAMES_PER_PAGE
    played = services.player_games(ledger, player_id, offset, GAMES_PER_PAGE)
    pages = max(1, -(-played.total // GAMES_PER_PAGE))
    return _page(
        request, ledger, "player.html", people={g.opponent for g in played.games},
        player=public, stats=stats, sections=sections, played=played, page=page, pages=pages,
        span=span, ranges=RANGES, board_page=BOARD_PAGE,
        written=as_players_write, delta=signed_change, delta_class=change_class,
        shown=lambda value: display(Decimal(value)),
    )  # fmt: skip


def person_link(player_id: str, name: str | None, href: str | None = None) -> Markup:
    """A player as pages show one: the name (else the id), linked to the player's page
    (or to ``href``), the id as its tooltip."""
    shown = name or player_id
    target = href or f"/players/{quote(player_id, safe='')}"
    return Markup('<a class="player" href="{}" title="{}">{}</a>').format(target, player_id, shown)


@router.get("/games/{game_id:path}", response_class=HTMLResponse)
def game(request: Request, ledger: LedgerDep, game_id: str) -> HTMLResponse:
    public = services.get_game(ledger, game_id)
    people = {public.white, public.black}
    return _page(request, ledger, "game.html", people=people, game=public)


@router.get("/annulments", response_class=HTMLResponse)
def annulments(request: Request, ledger: LedgerDep) -> HTMLResponse:
    found = services.annulments(ledger)
    people = {c.player for a in found.annulments for c in a.changes}
    return _page(request, ledger, "annulments.html", people=people, annulments=found)


@router.get("/search", response_class=HTMLResponse)
def search(request: Request, ledger: LedgerDep, q: str = "") -> HTMLResponse:
    found = services.search_players(ledger, q, SEARCH_RESULTS) if q.strip() else None
    people = [p.id for p in found.players] if found else []
    return _page(request, ledger, "search.html", people=people, q=q, found=found)


@router.get("/live", response_class=HTMLResponse)
def live(request: Request, ledger: LedgerDep) -> HTMLResponse:
    """Open live games with their deadlines, otb results awaiting confirmation, and the
    recently ended ones with how each ended (site S2, S7-S9)."""
    ended = [
        g
        for status in ("ended", "disputed")
        for g in services.list_live_games(ledger, status, None, 50).games
    ]
    ended.sort(key=lambda g: g.ended_at or g.opened_at, reverse=True)
    playing = services.list_live_games(ledger, "open", None, 200)
    awaiting = services.list_live_games(ledger, "awaiting_confirmation", None, 200)
    shown = [*playing.games, *awaiting.games, *ended[:50]]
    return _page(
        request, ledger, "live.html", people={p for g in shown for p in (g.white, g.black)},
        open=playing, awaiting=awaiting, ended=ended[:50],
    )  # fmt: skip


@router.get("/live/{game_id:path}", response_class=HTMLResponse)
def live_game(request: Request, ledger: LedgerDep, game_id: str) -> HTMLResponse:
    found = services.get_live_game(ledger, game_id)
    people = {found.white, found.black}
    return _page(request, ledger, "live_game.html", people=people, g=found)


@router.get("/periods", response_class=HTMLResponse)
def periods(request: Request, ledger: LedgerDep) -> HTMLResponse:
    return _page(request, ledger, "periods.html", periods=services.list_periods(ledger).periods)


def _report_link(period_id: int) -> Callable[[str, str | None], Markup]:
    """``report_link(id, name)`` for a period's pages: the player by name, linked to
    the player's report in that period, the id as its tooltip."""

    def link(player_id: str, name: str | None) -> Markup:
        href = f"/periods/{period_id}/reports/{quote(player_id, safe='')}"
        return person_link(player_id, name, href)

    return link


def _points(text: str) -> str:
    """Tournament points as players write them: ``7.5`` → ``7½``, ``0.5`` → ``½``."""
    whole, _, fraction = text.partition(".")
    if fraction.strip("0") == "5":
        return "½" if whole == "0" else f"{whole}½"
    return whole if not fraction.strip("0") else text


@router.get("/periods/{period_id}", response_class=HTMLResponse)
def period(request: Request, ledger: LedgerDep, period_id: int) -> HTMLResponse:
    public = services.get_period(ledger, period_id)
    new_list = services.period_list(ledger, period_id) if public.closed_at else None
    return _page(
        request, ledger, "period.html", period=public, new_list=new_list,
        report_link=_report_link(period_id),
    )  # fmt: skip


@router.get("/periods/{period_id}/list.csv")
def period_list_csv(ledger: LedgerDep, period_id: int) -> Response:
    """The new list as a CSV download (the API's ``/fide/periods/{id}/list.csv``)."""
    name, text = services.period_list_csv(ledger, period_id)
    return Response(
        text, media_type=CSV_TYPE, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


@router.get("/periods/{period_id}/tournaments/{number}", response_class=HTMLResponse)
def crosstable(request: Request, ledger: LedgerDep, period_id: int, number: int) -> HTMLResponse:
    """The period's ``number``-th tournament (upload order) as a crosstable."""
    public = services.period_crosstable(ledger, period_id, number)
    return _page(
        request, ledger, "crosstable.html", t=public, period=services.get_period(ledger, period_id),
        by_rank={p.start_rank: p.name for p in public.players}, points=_points,
        report_link=_report_link(period_id),
    )  # fmt: skip


@router.get("/periods/{period_id}/reports/{player_id:path}", response_class=HTMLResponse)
def report(request: Request, ledger: LedgerDep, period_id: int, player_id: str) -> HTMLResponse:
    public = services.period_report(ledger, period_id, player_id)
    return _page(
        request, ledger, "report.html", period_id=period_id, report=public,
        report_link=_report_link(period_id),
    )  # fmt: skip


__all__ = ["router"]
