"""Rating charts drawn on the server: an SVG line over a time axis, its labels in HTML
around it (they keep their size on a phone, where the SVG is scaled down), and a data
table of the drawn points in a ``<details>``. It needs no JavaScript; the vendored
``static/chart.js`` makes the chart one tab stop whose arrow keys (and a tap or a
drag) move a focus point and fill a readout from that table.

The series comes bucketed from the ledger (at most ~500 points, each bucket's lowest
and highest kept): the chart draws the rating at the start of the range, the line
through the games, and each annulment at the game it annuls (a marker on the game's
point and a dashed step to where the game's change reversed puts it; its label says
when the annulment was confirmed). Points keep a margin inside the plot, so no dot is
cut at an edge. Ratings stay exact (integer hundredths) up to the pixel coordinates,
which are floats.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from markupsafe import Markup, escape

from ..ledger.people import DAY
from ..ledger.views import ChartSeries
from ..numbers import from_hundredths
from ..records import microseconds, moment
from .formats import change_class, moment_text, signed_change

WIDTH, HEIGHT = 1000, 400
"""The SVG's user units (stretched to the box the page gives it)."""
PAD_Y = 24
PAD_X = 30
"""Margins (user units) between the plot's edges and its outermost points: at least
the largest marker's half width (7 px) on a phone's ~300 px wide plot."""
DOTS_UP_TO = 120
"""Up to this many points each gets a dot; more are only the line."""


def _rating_ticks(low: Decimal, high: Decimal) -> list[int]:
    span = max(high - low, Decimal(1))
    step = next(s for s in (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000) if span / s <= 5)
    first = int(low // step) * step
    return [t for t in range(first, int(high) + step, step) if low <= t <= high]


def _month(index: int) -> datetime:
    """The first moment of a month counted from January of year 0."""
    return datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC)


def time_ticks(first: int, last: int, most: int = 6) -> list[tuple[int, str]]:
    """Ticks of a time axis from ``first`` to ``last`` (microseconds): days (``2 Mar``)
    over a short range, months (``Mar 2026``) or years (``2026``) over a longer one;
    at most ``most``."""
    start, end = moment(first), moment(last)
    days = (last - first) / DAY
    ticks: list[tuple[int, str]] = []
    if days <= 62:
        step = next((s for s in (1, 2, 7, 14, 31) if days / s <= most), 31)
        day = datetime(start.year, start.month, start.day, tzinfo=UTC)
        if day < start:
            day += timedelta(days=1)
        while day <= end:
            ticks.append((microseconds(day), f"{day.day} {calendar.month_abbr[day.month]}"))
            day += timedelta(days=step)
        return ticks
    months = days / 30.44
    step = next((s for s in (1, 2, 3, 6, 12, 24, 60, 120) if months / s <= most), 240)
    index = start.year * 12 + start.month - 1
    if _month(index) < start:
        index += 1
    index += -index % step
    while (tick := _month(index)) <= end:
        label = str(tick.year) if step >= 12 else f"{calendar.month_abbr[tick.month]} {tick.year}"
        ticks.append((microseconds(tick), label))
        index += step
    return ticks


Link = Callable[[str], tuple[str, str]]
"""A point's ``game`` -> (the address its data row links to, the link's text)."""


def _game_link(game: str) -> tuple[str, str]:
    return f"/games/{game}", game


START_WORDS = "rating at the start of this range"


@dataclass(frozen=True, slots=True)
class _Drawn:
    """One row of the chart's data: the start, a game or an annulment."""

    at: int
    value: int  # hundredths: the rating after (an annulment: after it was confirmed)
    kind: str
    game: str = ""
    change: int | None = None
    opponent: str | None = None
    confirmed: int | None = None
    mark: int | None = None  # hundredths: where the point sits (an annulment: on its game)

    @property
    def spot(self) -> int:
        return self.value if self.mark is None else self.mark


def rating_chart(
    series: ChartSeries,
    label: str,
    link: Link = _game_link,
    line_words: str = "rating after each game",
    point_words: str = "opponent",
) -> Markup:
    """The chart of ``series`` (HTML: the plot, its axes' labels, a readout for the
    script, the data table); empty when there is nothing to draw. ``link`` makes each
    point's link in the data table from its ``game`` (a game's page by default, the
    link's text the opponent's name when the point has one; the fide player's page
    links each period's report); ``line_words`` is the legend of the line,
    ``point_words`` the heading of the data table's links."""
    points = list(series.points)
    if not points:
        return Markup("")
    start = series.start
    drawn: list[_Drawn] = []
    if start is not None:
        drawn.append(_Drawn(start[0], start[1], "start"))
    for p in points:
        mark = p.game_after if p.kind == "annulment" else None
        drawn.append(_Drawn(p.at, p.after, p.kind, p.game, p.change, p.opponent, p.confirmed, mark))
    first, last = drawn[0].at, max(d.at for d in drawn)
    if last - first < DAY:
        first, last = first - DAY // 2, last + DAY // 2
    steps = {  # an annulment's step: from its game's point to the change reversed
        n: d.spot + d.change
        for n, d in enumerate(drawn)
        if d.kind == "annulment" and d.mark is not None and d.change is not None
    }
    values = [from_hundredths(h) for h in (*(d.spot for d in drawn), *steps.values())]
    low, high = min(values), max(values)
    if high - low < 20:
        middle = (high + low) / 2
        low, high = middle - 10, middle + 10

    def x(at: int) -> float:
        return PAD_X + (WIDTH - 2 * PAD_X) * (at - first) / (last - first)

    def y(value: Decimal) -> float:
        return PAD_Y + float((high - value) / (high - low)) * (HEIGHT - 2 * PAD_Y)

    spots = [(x(d.at), y(from_hundredths(d.spot))) for d in drawn]
    readouts = [_readout(d) for d in drawn]
    y_ticks = _rating_ticks(low, high)
    x_ticks = time_ticks(first, last)
    grid = "".join(f"M0 {y(Decimal(t)):.1f}H{WIDTH}" for t in y_ticks)
    grid += "".join(f"M{x(t):.1f} 0V{HEIGHT}" for t, _ in x_ticks)
    line = " ".join(
        f"{px:.1f},{py:.1f}" for (px, py), d in zip(spots, drawn, strict=True)
        if d.kind != "annulment"
    )  # fmt: skip
    slider = (
        f' role="slider" aria-label="{escape(label)}: arrow keys move through the points"'
        f' aria-valuemin="1" aria-valuemax="{len(drawn)}" aria-valuenow="{len(drawn)}"'
        f' aria-valuetext="{escape(readouts[-1])}"'
    )
    parts = [
        '<div class="chart-area"><div class="chart-y" aria-hidden="true">',
        *(f'<span style="top:{100 * y(Decimal(t)) / HEIGHT:.2f}%">{t}</span>' for t in y_ticks),
        f'</div><div class="chart-plot"{slider}>',
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" preserveAspectRatio="none" '
        f'aria-hidden="true">',
        f'<path class="grid" d="{grid}"/>',
        f'<polyline class="line" points="{line}"/>',
    ]
    marks = {"start": "", "game": ""}
    annulled = []
    for n, ((px, py), d) in enumerate(zip(spots, drawn, strict=True)):
        if d.kind == "annulment":
            if n in steps:
                end = y(from_hundredths(steps[n]))
                annulled.append(f'<path class="step annulment" d="M{px:.1f} {py:.1f}V{end:.1f}"/>')
            annulled.append(
                f'<path class="mark annulment" data-game="{escape(d.game)}" data-x="{px:.1f}" '
                f'data-y="{py:.1f}" data-at="{_iso(d.at)}" data-confirmed="{_iso(d.confirmed)}" '
                f'd="M{px:.1f} {py:.1f}h0"><title>{escape(readouts[n])}</title></path>'
            )
        elif d.kind != "game" or len(drawn) <= DOTS_UP_TO:
            marks[d.kind] += f"M{px:.1f} {py:.1f}h0"
    for kind, path in marks.items():
        if path:
            parts.append(f'<path class="mark {kind}" d="{path}"/>')
    parts += annulled
    parts += [
        '<path class="mark focus" d=""/></svg>',
        '<output class="readout" hidden></output></div>',
        '<div class="chart-x" aria-hidden="true">',
        *(
            f'<span class="{"major" if n % 2 == 0 else "minor"}{_edge(100 * x(t) / WIDTH)}" '
            f'style="left:{100 * x(t) / WIDTH:.2f}%">{escape(text)}</span>'
            for n, (t, text) in enumerate(x_ticks)
        ),
        "</div></div>",
    ]
    parts.append(_legend(start is not None, any(d.kind == "annulment" for d in drawn), line_words))
    parts.append(_data_table(drawn, spots, readouts, series.changes, link, point_words))
    return Markup("".join(parts))


def _iso(at: int | None) -> str:
    return "" if at is None else moment(at).isoformat()


def _change(change: int | None) -> str:
    return signed_change(None if change is None else f"{from_hundredths(change)}")


def _readout(d: _Drawn) -> str:
    """A point as the chart's readout (and the slider's value) says it: the date, the
    rating, the opponent (else the game) and the change."""
    when = moment_text(moment(d.at))
    if d.kind == "start":
        return f"{when} · {from_hundredths(d.value)} · {START_WORDS}"
    who = f"vs {d.opponent}" if d.opponent else d.game
    if d.kind == "annulment":
        confirmed = moment_text(moment(d.confirmed)) if d.confirmed is not None else "later"
        return (
            f"{when} · {who}: annulled, confirmed {confirmed}; the game's change reversed: "
            f"{_change(d.change)} → {from_hundredths(d.value)}"
        )
    return f"{when} · {from_hundredths(d.value)} · {who} · {_change(d.change)}"


def _edge(percent: float) -> str:
    """A date label near an edge of the plot is aligned to it (not centred on its
    tick), so it never sticks out of the chart."""
    if percent > 88:
        return " end"
    return " start" if percent < 12 else ""


def _legend(start: bool, annulments: bool, line_words: str) -> str:
    items = [f'<span class="key line">{escape(line_words)}</span>']
    if start:
        items.append(f'<span class="key start">{START_WORDS}</span>')
    if annulments:
        items.append(
            '<span class="key annulment">annulment, at the game it annuls (dashed: the '
            "game's change reversed)</span>"
        )
    return f'<p class="chart-legend">{" ".join(items)}</p>'


def _data_table(
    drawn: Sequence[_Drawn],
    spots: Sequence[tuple[float, float]],
    readouts: Sequence[str],
    changes: int,
    link: Link = _game_link,
    point_words: str = "opponent",
) -> str:
    """The drawn points as a table (the chart without JavaScript, and the script's
    data: each row's ``data-x``/``data-y`` are its point's coordinates, its
    ``data-readout`` what the readout says)."""
    shown = sum(1 for d in drawn if d.kind != "start")
    note = f"{shown} points drawn" + (f" of {changes} changes" if changes > shown else "")
    rows = []
    for d, (px, py), readout in zip(drawn, spots, readouts, strict=True):
        if d.kind == "start":
            what, delta, moved = START_WORDS, "", "even"
        else:
            href, words = link(d.game)
            title = f' title="game {escape(d.game)}"' if d.opponent else ""
            what = f'<a href="{escape(href)}"{title}>{escape(d.opponent or words)}</a>'
            if d.kind == "annulment":
                confirmed = moment_text(moment(d.confirmed)) if d.confirmed else "later"
                what += f" (annulled, confirmed {escape(confirmed)})"
            text = None if d.change is None else f"{from_hundredths(d.change)}"
            delta, moved = signed_change(text), change_class(text)
        rows.append(
            f'<tr class="{d.kind}" data-game="{escape(d.game)}" data-x="{px:.1f}" '
            f'data-y="{py:.1f}" data-readout="{escape(readout)}"><td>{moment_text(moment(d.at))}'
            f"</td><td>{from_hundredths(d.value)}</td><td>{what}</td>"
            f'<td class="{moved}">{delta}</td></tr>'
        )
    return (
        f'<details class="chart-data"><summary>Data table ({note})</summary>'
        '<table class="chart-data"><thead><tr><th>date</th><th class="num">rating</th>'
        f'<th>{escape(point_words)}</th><th class="num">change</th></tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table></details>"
    )
