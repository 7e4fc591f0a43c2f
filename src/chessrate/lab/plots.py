"""The report's plots: inline SVG figures of the calibration and of the deviance by
games played, one per pool, each series with its own marker and dash (told apart
without colour), a legend in words and the table of every point it draws."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .output import number_text
from .quality import Quality, learning_label

CHANCE = math.log10(2)
"""The deviance of always predicting 0.5."""

PLOT_EVERY_UP_TO = 4
"""Up to this many variants the plots draw each; more: the best and the base rules."""

OPEN_POOLS = 2
"""The plots of this many pools (those with the most scored games) are shown open;
the others are in a ``<details>``."""

SHAPES = ("circle", "square", "triangle", "diamond", "down", "hexagon")
DASHES = ("", "7 4", "2 3", "9 3 2 3", "4 2", "1 3")
"""Each plotted series' marker and line dash: told apart without colour."""


def escape(text: object) -> str:
    """Any text of the evaluation, escaped for HTML (text or attribute)."""
    return html.escape(str(text), quote=True)


@dataclass(frozen=True, slots=True)
class Series:
    """One row of the tables and one series of the plots: a variant or a predictor."""

    label: str
    pools: dict[str, Quality]
    base: bool = False
    predictor: bool = False
    best: bool = False

    def label_html(self) -> str:
        tag = ""
        if self.base:
            tag = ' <span class="tag">the system\'s rules</span>'
        elif self.predictor:
            tag = ' <span class="tag">not a regulation</span>'
        # one varied field=value never breaks inside: the label wraps between them
        words = " ".join(f'<span class="setting">{escape(w)}</span>' for w in self.label.split(" "))
        return f"{words}{tag}"

    @property
    def text(self) -> str:
        """The label in plain words (a plot's legend and title)."""
        if self.base:
            return f"{self.label} (the system's own rules)"
        if self.predictor:
            return f"{self.label} (not a regulation)"
        if self.best:
            return f"{self.label} (the best)"
        return self.label


def marker(style: int, x: float, y: float, r: float) -> str:
    """The marker of series ``style`` at (x, y), about the area of a circle of radius r."""
    shape = SHAPES[style]
    cls = f'class="mark s{style}"'
    if shape == "circle":
        return f'<circle {cls} cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}"/>'
    if shape == "square":
        h = r * 0.886
        side = f'width="{2 * h:.1f}" height="{2 * h:.1f}"'
        return f'<rect {cls} x="{x - h:.1f}" y="{y - h:.1f}" {side}/>'
    angles = {
        "triangle": (-90, 30, 150),
        "down": (90, 210, 330),
        "diamond": (0, 90, 180, 270),
        "hexagon": (0, 60, 120, 180, 240, 300),
    }[shape]
    scale = {"triangle": 1.35, "down": 1.35, "diamond": 1.25, "hexagon": 1.1}[shape]
    points = " ".join(
        f"{x + r * scale * math.cos(math.radians(a)):.1f},"
        f"{y + r * scale * math.sin(math.radians(a)):.1f}"
        for a in angles
    )
    return f'<polygon {cls} points="{points}"/>'


def line(style: int, points: Sequence[tuple[float, float]]) -> str:
    dash = f' stroke-dasharray="{DASHES[style]}"' if DASHES[style] else ""
    drawn = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    return f'<polyline class="series s{style}"{dash} points="{drawn}"/>'


def legend(plotted: Sequence[Series], extra: str) -> str:
    items = []
    for n, series in enumerate(plotted):
        sample = (
            '<svg viewBox="0 0 44 16" aria-hidden="true" focusable="false">'
            f"{line(n, [(2, 8), (42, 8)])}{marker(n, 22, 8, 5)}</svg>"
        )
        items.append(f"<li>{sample}<span>{escape(series.text)}</span></li>")
    return f'<ul class="legend">{"".join(items)}{extra}</ul>'


def which(plotted: Sequence[Series], count: int) -> str:
    """What the plots draw, in words."""
    if count <= PLOT_EVERY_UP_TO:
        return "The plots draw every variant and the reference predictors."
    return (
        f"With {count} variants the plots draw the best one, the base rules and the "
        "reference predictors only; the tables above have every variant."
    )


def pool_groups(prominent: Sequence[str]) -> tuple[Sequence[str], Sequence[str]]:
    return prominent[:OPEN_POOLS], prominent[OPEN_POOLS:]


def plots(
    heading: str,
    ident: str,
    intro: str,
    plotted: Sequence[Series],
    prominent: Sequence[str],
    count: int,
    figure: Callable[[str, Sequence[Series], str], str],
) -> list[str]:
    shown, rest = pool_groups(prominent)
    parts = [
        f'<section aria-labelledby="{ident}">',
        f'<h2 id="{ident}">{heading}</h2>',
        f'<p class="note">{intro} {which(plotted, count)}</p>',
        '<div class="plots">',
        *(figure(pool, plotted, f"{ident}-{n}") for n, pool in enumerate(shown)),
        "</div>",
    ]
    if rest:
        names = ", ".join(escape(p) for p in rest)
        parts += [
            f"<details><summary>{len(rest)} more pool{'s' if len(rest) != 1 else ''}: "
            f"{names}</summary>",
            '<div class="plots">',
            *(figure(pool, plotted, f"{ident}-{n}") for n, pool in enumerate(rest, len(shown))),
            "</div></details>",
        ]
    parts.append("</section>")
    return parts


def calibration_section(
    plotted: Sequence[Series], prominent: Sequence[str], count: int, side: str
) -> list[str]:
    intro = (
        "Each point is one bin of expected scores (0-0.1, ..., 0.9-1): across, the mean "
        f"expected score of its games; up, the mean score {side} made. On the diagonal the "
        "rating expected what happened; below it the favourites did worse than expected. "
        "A point's area is its number of games: a bin of a few games says little."
    )
    return plots("Calibration", "calibration", intro, plotted, prominent, count, calibration_figure)


def calibration_figure(pool: str, plotted: Sequence[Series], ident: str) -> str:
    size, left, top, right, bottom = 360, 52, 14, 346, 308

    def x(v: float) -> float:
        return left + (right - left) * v

    def y(v: float) -> float:
        return bottom - (bottom - top) * v

    series = [(n, s, s.pools.get(pool)) for n, s in enumerate(plotted)]
    most = max((b.count for _, _, q in series if q for b in q.bins), default=1) or 1
    svg = []
    for t in range(6):
        v = t / 5
        svg.append(f'<line class="grid" x1="{x(v):.1f}" y1="{top}" x2="{x(v):.1f}" y2="{bottom}"/>')
        svg.append(f'<line class="grid" x1="{left}" y1="{y(v):.1f}" x2="{right}" y2="{y(v):.1f}"/>')
        svg.append(f'<text x="{x(v):.1f}" y="{bottom + 18}" text-anchor="middle">{v:.1f}</text>')
        svg.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
    svg.append(
        f'<rect class="axis" x="{left}" y="{top}" width="{right - left}" '
        f'height="{bottom - top}" fill="none"/>'
    )
    svg.append(
        f'<line class="ref" x1="{x(0):.1f}" y1="{y(0):.1f}" x2="{x(1):.1f}" y2="{y(1):.1f}"/>'
    )
    svg.append(
        f'<text x="{(left + right) / 2:.1f}" y="{size - 8}" text-anchor="middle">'
        "mean expected score</text>"
    )
    middle = (top + bottom) / 2
    svg.append(
        f'<text x="14" y="{middle:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {middle:.1f})">mean observed score</text>'
    )
    rows = []
    for n, s, q in series:
        if q is None or not q.games:
            continue
        points = [
            (b, x(b.mean_expected), y(b.mean_observed))
            for b in q.bins
            if b.count and b.mean_expected is not None and b.mean_observed is not None
        ]
        svg.append(line(n, [(px, py) for _, px, py in points]))
        for b, px, py in points:
            svg.append(marker(n, px, py, 3 + 7 * math.sqrt(b.count / most)))
            rows.append(
                f'<tr><th scope="row" class="label">{escape(s.text)}</th>'
                f"<td>{b.low:.1f}-{b.high:.1f}</td><td>{b.count:,}</td>"
                f"<td>{number_text(b.mean_expected, 3)}</td>"
                f"<td>{number_text(b.mean_observed, 3)}</td></tr>"
            )
    names = ", ".join(s.text for _, s, q in series if q is not None and q.games)
    label = (
        f"Calibration in pool {pool}: the mean observed score against the mean expected score "
        f"in each bin, with the diagonal, for {names}. The numbers are in the table below."
    )
    table = data_table(
        f"The calibration in pool {escape(pool)}",
        [
            '<th scope="col" class="label">series</th>',
            '<th scope="col">bin</th>',
            '<th scope="col">games</th>',
            '<th scope="col">mean expected</th>',
            '<th scope="col">mean observed</th>',
        ],
        ["<tbody>", *rows, "</tbody>"],
        f"{ident}-table",
    )
    extra = (
        '<li><svg viewBox="0 0 44 16" aria-hidden="true" focusable="false">'
        '<line class="ref" x1="2" y1="8" x2="42" y2="8"/></svg>'
        "<span>the diagonal: observed = expected</span></li>"
    )
    return (
        f'<figure aria-labelledby="{ident}-caption">'
        f'<figcaption id="{ident}-caption">Pool {escape(pool)}</figcaption>'
        f'<svg class="plot" viewBox="0 0 {size} {size}" role="img" aria-label="{escape(label)}">'
        f"<title>{escape(label)}</title>{''.join(svg)}</svg>"
        f"{legend(plotted, extra)}"
        f"<details><summary>The numbers of this plot</summary>{table}</details>"
        "</figure>"
    )


def learning_section(plotted: Sequence[Series], prominent: Sequence[str], count: int) -> list[str]:
    intro = (
        "The mean deviance of the games by how many rated games in the pool the newer of "
        "the two players had played before it: how fast each variant learns a new "
        f"player's strength. The dashed line is {CHANCE:.4f}, always predicting 0.5; a "
        "gap in a line is a bucket without games."
    )
    return plots(
        "Deviance by games played", "learning", intro, plotted, prominent, count, learning_figure
    )


def axis_ticks(low: float, high: float) -> tuple[list[float], int]:
    """At most six round ticks covering [low, high], and their decimals."""
    span = max(high - low, 0.01)
    step = next(s for s in (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5) if span / s <= 5)
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    places = 3 if step < 0.01 else 2 if step < 0.1 else 1
    return [round(k * step, 6) for k in range(first, last + 1)], places


def learning_figure(pool: str, plotted: Sequence[Series], ident: str) -> str:
    width, height, left, top, right, bottom = 420, 300, 70, 14, 410, 236
    series = [(n, s, s.pools.get(pool)) for n, s in enumerate(plotted)]
    buckets = next((q.by_games for _, _, q in series if q is not None and q.by_games), ())
    if not buckets:
        return (
            f"<figure><figcaption>Pool {escape(pool)}</figcaption>"
            '<p class="note">The games played are not known here.</p></figure>'
        )
    values = [
        b.deviance
        for _, _, q in series
        if q is not None
        for b in q.by_games
        if b.count and b.deviance is not None
    ]
    ticks, places = axis_ticks(min([*values, CHANCE]), max([*values, CHANCE]))
    low, high = ticks[0], ticks[-1]
    step = (right - left) / len(buckets)

    def x(i: int) -> float:
        return left + step * (i + 0.5)

    def y(v: float) -> float:
        return bottom - (bottom - top) * (v - low) / (high - low)

    svg = []
    for t in ticks:
        svg.append(f'<line class="grid" x1="{left}" y1="{y(t):.1f}" x2="{right}" y2="{y(t):.1f}"/>')
        svg.append(
            f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{t:.{places}f}</text>'
        )
    for i, b in enumerate(buckets):
        svg.append(
            f'<text x="{x(i):.1f}" y="{bottom + 18}" text-anchor="middle">'
            f"{escape(learning_label(b))}</text>"
        )
    svg.append(
        f'<rect class="axis" x="{left}" y="{top}" width="{right - left}" '
        f'height="{bottom - top}" fill="none"/>'
    )
    svg.append(
        f'<line class="ref" x1="{left}" y1="{y(CHANCE):.1f}" x2="{right}" y2="{y(CHANCE):.1f}"/>'
    )
    svg.append(
        f'<text x="{(left + right) / 2:.1f}" y="{height - 22}" text-anchor="middle">'
        "games the newer player had played</text>"
    )
    svg.append(
        f'<text x="{(left + right) / 2:.1f}" y="{height - 4}" text-anchor="middle">'
        "in the pool before the game</text>"
    )
    middle = (top + bottom) / 2
    svg.append(
        f'<text x="14" y="{middle:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {middle:.1f})">mean deviance</text>'
    )
    rows = []
    for n, s, q in series:
        if q is None or not q.games:
            continue
        run: list[tuple[float, float]] = []
        for i, b in enumerate(q.by_games):
            if b.count and b.deviance is not None:
                run.append((x(i), y(b.deviance)))
                svg.append(marker(n, x(i), y(b.deviance), 4.5))
                rows.append(
                    f'<tr><th scope="row" class="label">{escape(s.text)}</th>'
                    f"<td>{escape(learning_label(b))}</td><td>{b.count:,}</td>"
                    f"<td>{number_text(b.deviance)}</td></tr>"
                )
            else:
                if len(run) > 1:
                    svg.append(line(n, run))
                run = []
        if len(run) > 1:
            svg.append(line(n, run))
    names = ", ".join(s.text for _, s, q in series if q is not None and q.games)
    label = (
        f"Deviance by games played in pool {pool}: the mean deviance in each bucket of the "
        f"newer player's games played, against {CHANCE:.4f} for always 0.5, for {names}. "
        "The numbers are in the table below."
    )
    table = data_table(
        f"The deviance by games played in pool {escape(pool)}",
        [
            '<th scope="col" class="label">series</th>',
            '<th scope="col">games played</th>',
            '<th scope="col">games</th>',
            '<th scope="col">deviance</th>',
        ],
        ["<tbody>", *rows, "</tbody>"],
        f"{ident}-table",
    )
    extra = (
        '<li><svg viewBox="0 0 44 16" aria-hidden="true" focusable="false">'
        '<line class="ref" x1="2" y1="8" x2="42" y2="8"/></svg>'
        f"<span>{CHANCE:.4f}: always predicting 0.5</span></li>"
    )
    return (
        f'<figure class="wide" aria-labelledby="{ident}-caption">'
        f'<figcaption id="{ident}-caption">Pool {escape(pool)}</figcaption>'
        f'<svg class="plot wide" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label)}">'
        f"<title>{escape(label)}</title>{''.join(svg)}</svg>"
        f"{legend(plotted, extra)}"
        f"<details><summary>The numbers of this plot</summary>{table}</details>"
        "</figure>"
    )


def data_table(caption: str, head: Sequence[str], body: Sequence[str], ident: str) -> str:
    """A table in its own horizontally scrolling, keyboard-reachable region."""
    heads = "".join(head)
    return (
        f'<div class="scroll" role="region" tabindex="0" aria-labelledby="{ident}">'
        f'<table><caption id="{ident}"><span>{caption}</span></caption>'
        f"<thead><tr>{heads}</tr></thead>{''.join(body)}</table></div>"
    )
