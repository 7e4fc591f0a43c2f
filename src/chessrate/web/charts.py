"""Rating-history charts drawn on the server as SVG: they need no JavaScript and no
library, work offline, and each point carries its game and change (hover shows a
tooltip; a click opens the game)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from html import escape

WIDTH, HEIGHT = 640, 220
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 48, 12, 12, 24


@dataclass(frozen=True, slots=True)
class Point:
    """One rated game's rating after it."""

    rating: Decimal
    href: str
    tooltip: str


def _ticks(low: Decimal, high: Decimal) -> list[int]:
    span = max(high - low, Decimal(1))
    step = next(s for s in (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000) if span / s <= 5)
    first = int(low // step) * step
    return [t for t in range(first, int(high) + step, step) if low <= t <= high]


def rating_chart(points: Sequence[Point], label: str) -> str:
    """An SVG line chart with one marker per point (``<a class="point">`` each)."""
    if not points:
        return ""
    ratings = [p.rating for p in points]
    low, high = min(ratings), max(ratings)
    if high - low < 20:
        middle = (high + low) / 2
        low, high = middle - 10, middle + 10
    plot_w = WIDTH - PAD_LEFT - PAD_RIGHT
    plot_h = HEIGHT - PAD_TOP - PAD_BOTTOM

    def x(index: int) -> float:
        return PAD_LEFT + (plot_w * index / (len(points) - 1) if len(points) > 1 else plot_w / 2)

    def y(value: Decimal) -> float:
        return PAD_TOP + float((high - value) / (high - low)) * plot_h

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(label)}" preserveAspectRatio="xMidYMid meet">',
        f"<title>{escape(label)}</title>",
    ]
    for tick in _ticks(low, high):
        ty = y(Decimal(tick))
        parts.append(
            f'<line class="grid" x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{ty:.1f}" '
            f'y2="{ty:.1f}"/><text class="tick" x="{PAD_LEFT - 6}" y="{ty + 4:.1f}">{tick}</text>'
        )
    line = " ".join(f"{x(i):.1f},{y(p.rating):.1f}" for i, p in enumerate(points))
    parts.append(f'<polyline class="line" points="{line}"/>')
    for index, point in enumerate(points):
        parts.append(
            f'<a class="point" href="{escape(point.href)}" data-rating="{point.rating}">'
            f'<circle cx="{x(index):.1f}" cy="{y(point.rating):.1f}" r="4">'
            f"<title>{escape(point.tooltip)}</title></circle></a>"
        )
    parts.append(
        f'<text class="axis" x="{PAD_LEFT}" y="{HEIGHT - 6}">game 1</text>'
        f'<text class="axis end" x="{WIDTH - PAD_RIGHT}" y="{HEIGHT - 6}">'
        f"game {len(points)}</text></svg>"
    )
    return "".join(parts)
