"""The pages' routes. Each page asks the application's services (:mod:`chessrate.application`,
one module per resource: the same functions as the API's routes), so what a page shows
is what the API answers; what the navigation offers follows the ledger's system
(``ledger.info``: periods, live games)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape

from ..application import annulments as app_annulments
from ..application import common, crosstables, player_cards
from ..application import games as app_games
from ..application import leaderboards as app_leaderboards
from ..application import live as app_live
from ..application import periods as app_periods
from ..application import players as app_players
from ..application import seeks as app_seeks
from ..application.deps import ActiveDays, LedgerDep, Now, Pairing
from ..errors import NotFound
from ..identifiers import BIDI_CONTROL
from ..ledger import Ledger
from ..ledger.views import ChartSeries, SeriesPoint
from ..numbers import display, round_half_away
from ..records import microseconds
from ..systems.arena import allowed_controls
from ..systems.corr import CorrRules
from ..timecontrol import ESTIMATE_MOVES, as_players_write
from .boards import game_board, live_clocks, pgn_text
from .charts import rating_chart
from .formats import (
    change_class,
    minus,
    moment_text,
    seconds_text,
    signed_change,
    time_control_text,
)
from .formats import signed as _signed
from .words import in_words

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")


templates.env.filters["when"] = moment_text
templates.env.filters["tc"] = time_control_text
templates.env.filters["waited"] = seconds_text
templates.env.filters["minus"] = minus
router = APIRouter(include_in_schema=False)

LEADERS_ON_HOME = 10
SEARCH_RESULTS = 50
SEARCH_LONGEST = 200
"""The longest search text (the API's `q` too): longer is a 422, not a query."""
CSV_TYPE = "text/csv; charset=utf-8"
BOARD_PAGE = 50
"""Rows on a leaderboard page."""
MAX_BOARD_PAGE = common.MAX_OFFSET // BOARD_PAGE + 1
FLAG_WORDS = {"i": "inactive", "w": "woman", "wi": "woman, inactive"}
"""A FIDE list's Flag (7.2.2) in words."""

RULE_ID = re.compile(r"\b([SACF]\d{1,2})\b")
"""A rule id of the spec (``S6``, ``A5``, ``C7``, ``F3``): /how has an anchor for each."""


def _page(
    request: Request,
    ledger: Ledger,
    name: str,
    status: int = 200,
    people: Iterable[str] = (),
    **context: Any,
) -> HTMLResponse:
    """A page; ``people`` are the ids of the players it shows, whom ``person(id)`` in
    the template shows by name (the id as the link's tooltip), and whom
    ``said(text, *ids)`` names in a sentence (:func:`said`: the named ones among
    ``ids``, who must be among ``people``)."""
    names = ledger.players.names(people)
    context.update(
        system=ledger.system_id,
        info=ledger.info,
        pools=common.pools_of(ledger),
        pool_name=ledger.info.pool_label,
        signed=_signed,
        person=lambda player_id: person_link(player_id, names.get(player_id)),
        rule=rule_link,
        rules_in=rules_linked,
        said=lambda text, *ids: said(text, {i: names[i] for i in ids if i in names}),
        number=lambda n: f"{n:,}",
        flag_words=lambda flag: FLAG_WORDS.get(flag, flag),
    )
    return templates.TemplateResponse(request, name, context, status_code=status)


def rule_link(rule: str) -> Markup:
    """A rule id as pages show one (``site S6``, ``A6``): a link to its explanation on
    /how (``/how#S6``)."""
    found = RULE_ID.search(rule)
    if found is None:
        return Markup("{}").format(rule)
    return Markup('<a class="rule" href="/how#{}">{}</a>').format(found.group(1), rule)


def rules_linked(text: str) -> Markup:
    """Text (a note, a reason) with each rule id in it linked to /how."""
    parts = RULE_ID.split(text)
    html = [
        Markup('<a class="rule" href="/how#{0}">{0}</a>').format(part)
        if n % 2
        else escape(minus(part))
        for n, part in enumerate(parts)
    ]
    return Markup("").join(html)


ID_TAIL = r"(?![\w-]|\.\w)"
"""What may not follow a player id in a sentence for it to be a whole token: a letter,
a digit, ``_``, ``-``, or a ``.`` inside a word (``kai.b``); a full stop may."""


def said(text: str | None, people: Mapping[str, str | None]) -> Markup:
    """A sentence of the ledger's (a reason, a note, an audit entry) as pages show it:
    each rule id linked to /how (:func:`rules_linked`) and each whole-token occurrence
    of the ids in ``people`` (the game's two players, the case's players: never any
    word) shown as :func:`person_link`, the name linked to the player's page, the id in
    its tooltip. A rule id wins over a player id spelt the same. A text holding a
    bidirectional control (:data:`~chessrate.identifiers.BIDI_CONTROL`: a report's
    reason is anyone's text) is shown without it, set apart in ``<bdi>``: the stored
    text is unchanged, the page's sentence around it reads as written."""
    if not text:
        return Markup("")
    if BIDI_CONTROL.search(text):  # kept inside: it never turns the page's words around
        return Markup("<bdi>{}</bdi>").format(said(BIDI_CONTROL.sub("", text), people))
    text = in_words(text)
    ids = sorted((i for i in people if i), key=len, reverse=True)
    if not ids:
        return rules_linked(text)
    found = re.compile(
        r"\b(?P<rule>[SACF]\d{1,2})\b|(?<![\w-])(?P<id>"
        + "|".join(re.escape(i) for i in ids)
        + ")"
        + ID_TAIL
    )
    html: list[Markup] = []
    at = 0
    for match in found.finditer(text):
        html.append(escape(minus(text[at : match.start()])))
        if match.group("rule"):
            html.append(rules_linked(match.group("rule")))
        else:
            player_id = match.group("id")
            html.append(person_link(player_id, people[player_id]))
        at = match.end()
    html.append(escape(minus(text[at:])))
    return Markup("").join(html)


@router.get("/", response_class=HTMLResponse)
def home(request: Request, ledger: LedgerDep, active_days: ActiveDays) -> HTMLResponse:
    """Each pool's established players (top 10), and how many everyone would be."""
    boards = [
        app_leaderboards.leaderboard(ledger, pool, 0, LEADERS_ON_HOME, False, active_days)
        for pool in common.pools_of(ledger)
    ]
    everyone = {
        p.pool: p.everyone for p in app_leaderboards.leaderboards(ledger, active_days).pools
    }
    periods = app_periods.list_periods(ledger).periods if ledger.info.rates_periods else []
    return _page(request, ledger, "home.html", boards=boards, everyone=everyone, periods=periods)


@dataclass(frozen=True, slots=True)
class Pager:
    """A leaderboard page's links: first, previous, the page numbers near the current
    one (None: a gap), next, last; and the rows shown in words."""

    shown: str
    current: int
    last_page: int
    first: str | None = None
    previous: str | None = None
    next: str | None = None
    last: str | None = None
    pages: list[tuple[int | None, str | None]] = field(default_factory=list)


def board_url(pool: str, everyone: bool, page: int = 1, **more: str) -> str:
    """A leaderboard page's address (``?all=1`` for everyone, ``page`` from 1)."""
    query = {**({"all": "1"} if everyone else {}), **({"page": str(page)} if page > 1 else {})}
    query.update(more)
    return f"/leaderboards/{quote(pool, safe='')}" + (f"?{urlencode(query)}" if query else "")


def pager(board: app_leaderboards.LeaderboardPublic, everyone: bool) -> Pager:
    """The links of a board page of ``BOARD_PAGE`` rows."""
    size, total = BOARD_PAGE, board.total
    last_page = max(1, -(-total // size))
    current = board.offset // size + 1
    if board.entries:
        first_row, last_row = board.offset + 1, board.offset + len(board.entries)
        shown = f"{first_row:,}–{last_row:,} of {total:,}"
    else:
        shown = f"No players on this page; the list has {total:,}"

    def url(n: int) -> str:
        return board_url(board.pool, everyone, n)

    near = sorted({1, last_page, *range(max(1, current - 2), min(last_page, current + 2) + 1)})
    pages: list[tuple[int | None, str | None]] = []
    for n in near:
        if pages and pages[-1][0] is not None and n - (pages[-1][0] or 0) > 1:
            pages.append((None, None))
        pages.append((n, None if n == current else url(n)))
    return Pager(
        shown=shown,
        current=current,
        last_page=last_page,
        first=url(1) if current > 1 else None,
        previous=url(min(current - 1, last_page)) if current > 1 else None,
        next=url(current + 1) if current < last_page else None,
        last=url(last_page) if current < last_page else None,
        pages=pages,
    )


@router.get("/leaderboards/{pool}", response_class=HTMLResponse, response_model=None)
def leaderboard(
    request: Request,
    ledger: LedgerDep,
    active_days: ActiveDays,
    pool: str,
    page: int | None = Query(None, ge=1, le=MAX_BOARD_PAGE),
    offset: int | None = Query(None, ge=0, le=common.MAX_OFFSET),
    everyone: bool = Query(False, alias="all"),
    find: str = Query("", max_length=200),
    found: str = Query("", max_length=200),
) -> Response:
    """A pool's list, ``BOARD_PAGE`` rows a page (``page``, or ``offset`` for old links):
    its established players, or everyone with ``all=1``. ``find`` (an id or a name)
    goes to the page with that player, the row highlighted (``found``)."""
    notice: tuple[str, str | None, str | None] | None = None
    if find.strip():
        landing, notice = _find(ledger, pool, find.strip(), everyone, active_days)
        if landing is not None:
            return RedirectResponse(landing, status_code=303)
    start = (page - 1) * BOARD_PAGE if page is not None else offset or 0
    board = app_leaderboards.leaderboard(ledger, pool, start, BOARD_PAGE, everyone, active_days)
    return _page(
        request, ledger, "leaderboard.html", board=board, pager=pager(board, everyone),
        everyone=everyone, toggle=ledger.info.rates_games, find=find, found=found,
        notice=notice, rules=_rules(ledger), active_days=active_days,
        established_url=board_url(pool, False), everyone_url=board_url(pool, True),
    )  # fmt: skip


def _find(
    ledger: Ledger, pool: str, text: str, everyone: bool, active_days: int
) -> tuple[str | None, tuple[str, str | None, str | None] | None]:
    """Where "find a player's rank" lands: the board page with the player (by id, else
    by name), or a notice (its words, and a link with its text) saying why not."""
    try:
        player_id = ledger.players.get(text).player.id  # an id, as typed
    except NotFound:
        matches = app_players.search_players(ledger, text, 20).players
        folded = text.casefold()
        exact = [p for p in matches if folded in (p.id.casefold(), (p.name or "").casefold())]
        chosen = exact if exact else matches
        if not chosen:
            return None, (f"No player's id or name contains “{text}”.", None, None)
        if len(chosen) > 1:
            names = ", ".join(f"{p.name or p.id} ({p.id})" for p in chosen[:10])
            return None, (f"Several players match “{text}”: {names}. Give the id.", None, None)
        player_id = chosen[0].id
    try:
        rank = app_leaderboards.leaderboard_rank(
            ledger, pool, player_id, BOARD_PAGE, everyone, active_days
        )
    except NotFound as error:
        if not everyone:  # on the list of everyone?
            try:
                app_leaderboards.leaderboard_rank(
                    ledger, pool, player_id, BOARD_PAGE, True, active_days
                )
            except NotFound:
                pass
            else:
                other = board_url(pool, True, find=player_id)
                return None, (f"{error}.", other, "Find them among everyone")
        return None, (f"{error}.", None, None)
    landing = board_url(pool, everyone, rank.page, found=player_id)
    return f"{landing}#rank-{rank.rank}", None


def _rules(ledger: Ledger) -> Any:
    """The ledger's system's ``Rules`` (its numbers, for the words of the pages): a
    period system's default rules (each period names its own)."""
    return ledger.system.rules if ledger.info.rates_games else ledger.info.rules


@router.get("/how", response_class=HTMLResponse)
def how(request: Request, ledger: LedgerDep, active_days: ActiveDays) -> HTMLResponse:
    """How the ledger's ratings work, in plain words from its system's Rules: each rule
    id the pages show has an anchor here (``/how#S6``)."""
    ids = ledger.info.rule_ids
    return _page(
        request, ledger, "how.html", rules=_rules(ledger), active_days=active_days,
        ledger_date=ledger.boards.ledger_date(), rule_ids=ids,
        first_rule=ids[5 if len(ids) > 6 else 0] if ids else "",
        estimate_moves=ESTIMATE_MOVES,
        controls=allowed_controls(),
    )  # fmt: skip


RANGES: dict[str, tuple[str, int | None]] = {
    "1m": ("1 month", 30), "3m": ("3 months", 91), "1y": ("1 year", 365), "all": ("all", None),
}  # fmt: skip
"""A chart's ranges: (words, days back from the player's last change in the pool)."""
GAMES_PER_PAGE = 50
"""Rows per page of the games list and of a leaderboard page (a rank links to its page)."""
MAX_PAGE = 20_000_000


@router.get("/players/{player_id:path}", response_class=HTMLResponse)
def player(
    request: Request,
    ledger: LedgerDep,
    player_id: str,
    active_days: ActiveDays,
    page: int = Query(1, ge=1, le=MAX_PAGE),
    span: Literal["1m", "3m", "1y", "all"] = Query("all", alias="range"),
    pool: str | None = Query(None, max_length=32),
) -> HTMLResponse:
    """A player: a table of the pools (rating, state in words, games, rank), each a link
    that shows its pool; the shown pool's peak, W/D/L and rank, and its chart over the
    chosen range (one chart: ``?pool=``, else the first pool with a rated game); the
    games list, newest first, paged."""
    public = app_players.get_player(ledger, player_id)
    if ledger.info.rates_periods:  # fide: the rating by period, not game by game
        card = player_cards.player_card(ledger, player_id)
        rows = [{"rating": rating} for rating in public.ratings]  # the ratings table only
        who = public.name or player_id
        charts = {
            lst.list_kind: period_chart(lst, f"{who}: {lst.list_kind} rating by period")
            for lst in card.lists
        }
        return _page(request, ledger, "player.html", player=public, sections=rows,
                     card=card, charts=charts)  # fmt: skip
    stats = app_players.player_stats(ledger, player_id, active_days)
    summaries = {s.pool: s for s in stats.pools}
    words, days = RANGES[span]
    who = public.name or player_id
    sections: list[dict[str, Any]] = [
        {"rating": r, "stats": summaries.get(r.pool)} for r in public.ratings
    ]
    pools = [r.pool for r in public.ratings]
    played_in = [r.pool for r in public.ratings if (found := summaries.get(r.pool)) and found.peak]
    default = next(iter(played_in or pools), None)
    chosen = pool if pool in pools else default
    current = None
    if chosen is not None:
        series = app_players.chart_series(ledger, player_id, chosen, days)
        name = ledger.info.pool_label(chosen)
        current = sections[pools.index(chosen)] | {
            "chart": rating_chart(series, f"{who}: {name} rating, {words}"),
            "points": len(series.points),
        }
    offset = (page - 1) * GAMES_PER_PAGE
    played = app_players.player_games(ledger, player_id, offset, GAMES_PER_PAGE)
    pages = max(1, -(-played.total // GAMES_PER_PAGE))
    return _page(
        request, ledger, "player.html", people={player_id, *(g.opponent for g in played.games)},
        player=public, stats=stats, sections=sections, played=played, page=page, pages=pages,
        why=lambda g: still_why(g, public.bot, uncounted(ledger)),
        span=span, ranges=RANGES, board_page=BOARD_PAGE, current=current, chosen=chosen,
        default_pool=default,
        unknown_pool=pool if pool is not None and pool not in pools else None,
        written=as_players_write, delta=signed_change, delta_class=change_class,
        shown=lambda value: display(Decimal(value)),
    )  # fmt: skip


def uncounted(ledger: Ledger) -> tuple[str, str] | None:
    """Why a system rates a game with no change for one player and a change for the
    other, when its reason names only the change (corr C4), as (rule, words)."""
    rules = ledger.system.rules
    if not isinstance(rules, CorrRules):
        return None
    gap = rules.provisional_gap
    return ("corr C4", f"a provisional player's game against an opponent rated {gap} or more "
                       "away does not count for the provisional player")  # fmt: skip


def still_why(
    g: app_players.PlayerGamePublic, bot: bool, not_counted: tuple[str, str] | None = None
) -> list[tuple[str | None, str]]:
    """Why a games-list row's rating did not move, as (rule, words): at a game with no
    change of the player's, or only changes of 0 or none (a qualifying game, a
    protected loss), each such change's rule and note; a bot's fixed rating (site S7);
    else the game's decision (its reason names the rule: A6 for an ignored loss, S8
    for an aborted game). Nothing for a row whose rating moved, or an annulled one
    (its annulment says why)."""
    if g.annulled:
        return []
    if any(c.change is not None and Decimal(c.change) != 0 for c in g.changes):
        return []
    if g.changes:
        return [(c.rule, c.note) for c in g.changes]
    if bot and g.outcome == "rated":
        return [("site S7", "a bot plays at its fixed rating, which no game moves")]
    if not_counted and g.outcome == "rated" and not re.search(r"\(\w?\d+\)", g.reason):
        return [not_counted, (None, g.reason)]
    return [(None, g.reason)] if g.reason else []


MONTH = timedelta(days=31)


def period_chart(found: player_cards.FideListPublic, label: str) -> Markup:
    """A list's rating by period as a chart (:func:`rating_chart`): a point per period
    that published a rating, at the date of its list (else its closing), each linked
    to the player's report; the line starts from the first period's starting rating,
    drawn a month before."""
    points: list[SeriesPoint] = []
    start = None
    for seq, line in enumerate(found.periods):
        if line.new_rating is None:
            continue
        when = datetime.combine(line.list_date, time(), UTC) if line.list_date else line.closed_at
        at = microseconds(when)
        if not points and line.old_rating is not None:
            start = (microseconds(when - MONTH), line.old_rating * 100)
        change = None if line.old_rating is None else (line.new_rating - line.old_rating) * 100
        points.append(SeriesPoint(seq, at, line.new_rating * 100, change, str(seq), "game"))
    series = ChartSeries(found.list_kind, start, tuple(points), len(points), None)
    lines = found.periods

    def link(key: str) -> tuple[str, str]:
        line = lines[int(key)]
        return line.report_page, line.period_name

    return rating_chart(
        series, label, link, line_words="rating after each period", point_words="period"
    )


def person_link(player_id: str, name: str | None, href: str | None = None) -> Markup:
    """A player as pages show one: the name (else the id), linked to the player's page
    (or to ``href``), the id as its tooltip."""
    shown = name or player_id
    target = href or f"/players/{quote(player_id, safe='')}"
    kind = "player" if name else "player unnamed"  # an id may break anywhere (style.css)
    return Markup('<a class="{}" href="{}" title="{}">{}</a>').format(
        kind, target, player_id, shown
    )


@router.get("/games/{game_id:path}", response_class=HTMLResponse)
def game(
    request: Request, ledger: LedgerDep, game_id: str, ply: str | None = Query(None)
) -> HTMLResponse:
    """A game: its record, its board and moves when it has them (``ply``: the position
    after that many plies; a bad value is ignored), and every change."""
    public = app_games.get_game(ledger, game_id)
    people = {public.white, public.black}
    names = ledger.players.names(people)
    shown = game_board(names.get(public.white, public.white),
                       names.get(public.black, public.black), public.moves or (), ply)  # fmt: skip
    return _page(request, ledger, "game.html", people=people, game=public, shown=shown,
                 pgn_url=f"/pgn/{quote(public.id, safe='')}")  # fmt: skip


@router.get("/annulments", response_class=HTMLResponse)
def annulments(request: Request, ledger: LedgerDep) -> HTMLResponse:
    found = app_annulments.annulments(ledger)
    people = {c.player for a in found.annulments for c in a.changes}
    return _page(request, ledger, "annulments.html", people=people, annulments=found)


@router.get("/search", response_class=HTMLResponse)
def search(
    request: Request, ledger: LedgerDep, q: str = Query("", max_length=SEARCH_LONGEST)
) -> HTMLResponse:
    found = app_players.search_players(ledger, q, SEARCH_RESULTS) if q.strip() else None
    people = [p.id for p in found.players] if found else []
    return _page(request, ledger, "search.html", people=people, q=q, found=found)


@router.get("/live", response_class=HTMLResponse)
def live(request: Request, ledger: LedgerDep) -> HTMLResponse:
    """Open live games with their deadlines, otb results awaiting confirmation, and the
    recently ended ones with how each ended (site S2, S7-S9)."""
    ended = [
        g
        for status in ("ended", "disputed")
        for g in app_live.list_live_games(ledger, status, None, 50).games
    ]
    ended.sort(key=lambda g: g.ended_at or g.opened_at, reverse=True)
    playing = app_live.list_live_games(ledger, "open", None, 200)
    awaiting = app_live.list_live_games(ledger, "awaiting_confirmation", None, 200)
    shown = [*playing.games, *awaiting.games, *ended[:50]]
    return _page(
        request, ledger, "live.html", people={p for g in shown for p in (g.white, g.black)},
        open=playing, awaiting=awaiting, ended=ended[:50],
    )  # fmt: skip


@router.get("/live/{game_id:path}", response_class=HTMLResponse)
def live_game(request: Request, ledger: LedgerDep, now: Now, game_id: str) -> HTMLResponse:
    found = app_live.get_live_game(ledger, game_id)
    people = {found.white, found.black}
    played = [m.move for m in found.moves if m.move]
    names = ledger.players.names(people)
    shown = game_board(names.get(found.white, found.white), names.get(found.black, found.black),
                       played, None, start=True)  # fmt: skip
    return _page(request, ledger, "live_game.html", people=people, g=found, shown=shown,
                 clocks=live_clocks(found, now))  # fmt: skip


PLAY_PAGE = 50
"""Open seeks on a /play page."""


@router.get("/play", response_class=HTMLResponse)
def play(
    request: Request,
    ledger: LedgerDep,
    now: Now,
    rules: Pairing,
    player: str | None = Query(None, max_length=200),
    page: int = Query(1, ge=1, le=common.MAX_OFFSET // PLAY_PAGE + 1),
) -> HTMLResponse:
    """The open seeks, oldest first, each with its player's site Elo, its wait and the
    difference it accepts now; with ``player``, that player's own seeks and live games.
    Read-only: seeks are made through the API."""
    if not ledger.info.live_games:
        raise NotFound(f"a {ledger.system_id} ledger pairs no games (site ledgers do)")
    seeks = app_seeks.list_seeks(ledger, now, rules, offset=(page - 1) * PLAY_PAGE,
                                limit=PLAY_PAGE)  # fmt: skip
    people = {s.player for s in seeks.seeks}
    mine = games = None
    if player:
        app_players.get_player(ledger, player)  # 404 for a stranger
        mine = app_seeks.list_seeks(ledger, now, rules, player, "all", 0, PLAY_PAGE)
        games = app_live.list_live_games(ledger, "open", player, 20)
        people |= {player} | {s.opponent for s in mine.seeks if s.opponent}
        people |= {p for g in games.games for p in (g.white, g.black)}
    last = max(1, -(-seeks.total // PLAY_PAGE))

    def page_url(n: int) -> str:
        query = {**({"player": player} if player else {}), **({"page": str(n)} if n > 1 else {})}
        return "/play" + (f"?{urlencode(query)}" if query else "")

    return _page(
        request, ledger, "play.html", people=people, seeks=seeks, mine=mine, games=games,
        player=player, rules=rules, page=page, last=last,
        expiry=f"{rules.expiry / 60:g} min",
        correspondence_expiry=_days(rules.correspondence_expiry),
        previous=page_url(page - 1) if page > 1 else None,
        next=page_url(page + 1) if page < last else None,
    )  # fmt: skip


def _days(seconds: int) -> str:
    days = seconds / 86400
    return f"{days:g} day{'' if days == 1 else 's'}"


@router.get("/periods", response_class=HTMLResponse)
def periods(request: Request, ledger: LedgerDep) -> HTMLResponse:
    return _page(request, ledger, "periods.html", periods=app_periods.list_periods(ledger).periods)


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
    public = app_periods.get_period(ledger, period_id)
    new_list = app_periods.period_list(ledger, period_id) if public.closed_at else None
    return _page(
        request, ledger, "period.html", period=public, new_list=new_list,
        report_link=_report_link(period_id),
    )  # fmt: skip


@router.get("/periods/{period_id}/list.csv")
def period_list_csv(ledger: LedgerDep, period_id: int) -> Response:
    """The new list as a CSV download (the API's ``/fide/periods/{id}/list.csv``)."""
    name, text = app_periods.period_list_csv(ledger, period_id)
    return Response(
        text, media_type=CSV_TYPE, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


@router.get("/periods/{period_id}/tournaments/{number}", response_class=HTMLResponse)
def crosstable(request: Request, ledger: LedgerDep, period_id: int, number: int) -> HTMLResponse:
    """The period's ``number``-th tournament (upload order) as a crosstable."""
    public = crosstables.period_crosstable(ledger, period_id, number)
    period = app_periods.get_period(ledger, period_id)
    return _page(
        request, ledger, "crosstable.html", t=public, period=period,
        by_rank={p.start_rank: p.name for p in public.players}, points=_points,
        report_link=_report_link(period_id),
        ranked=sorted(public.players, key=lambda p: p.place), title=player_cards.title_of,
    )  # fmt: skip


@router.get("/periods/{period_id}/reports/{player_id:path}", response_class=HTMLResponse)
def report(request: Request, ledger: LedgerDep, period_id: int, player_id: str) -> HTMLResponse:
    public = app_periods.period_report(ledger, period_id, player_id)
    scored = sum(
        (Decimal(g["score"]) for g in public.games if g.get("delta") is not None), Decimal(0)
    )
    return _page(
        request, ledger, "report.html", period_id=period_id, report=public,
        report_link=_report_link(period_id), scored=_points(f"{scored:.1f}"),
        period_bonus=app_periods.get_period(ledger, period_id).bonus, two=_two,
    )  # fmt: skip


def _two(value: object) -> str:
    """An exact value (a report's string) to two decimals, half away from zero."""
    return "" if value is None else minus(round_half_away(Decimal(str(value))))


PGN_TYPE = "application/x-chess-pgn"


@router.get("/pgn/{game_id:path}")
def game_pgn(ledger: LedgerDep, game_id: str) -> Response:
    """A game as a PGN download: its tags (Event, Site, Date, White, Black, Result,
    TimeControl) and its movetext (none when it was reported without moves)."""
    public = app_games.get_game(ledger, game_id)
    names = ledger.players.names((public.white, public.black))
    text = pgn_text(public, names.get(public.white), names.get(public.black))
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", public.id)[:100] or "game"
    disposition = f'attachment; filename="{safe}.pgn"'
    return Response(text, media_type=PGN_TYPE, headers={"Content-Disposition": disposition})


__all__ = ["router"]
