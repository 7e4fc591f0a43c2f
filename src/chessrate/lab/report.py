"""The rating lab's HTML report: :func:`as_html` writes one self-contained page of an
:class:`~chessrate.lab.Evaluation` for a site operator to read in a browser or an
e-mail.

The page has no script and asks for nothing outside itself: its style is inline CSS
and its plots are inline SVG (a file opened from a disk or attached to a message looks
the same as anywhere else). Every text of the evaluation (labels, pools, player ids)
is escaped. It shows, as the text output does, only the pools in which some variant
scored a game:

- a summary of the variants by mean deviance, best first, beside the two reference
  predictors (labelled "not a regulation"), and a table per pool (games, deviance,
  Brier, where the expected scores came from);
- a calibration plot per pool (observed against expected score per bin, the
  diagonal, a point's area by its games) and a line chart of the deviance by games
  played, the most played pools open and the others in a ``<details>``; each series
  has its own colour, marker shape and dash (so that no one needs to tell colours
  apart), each plot a legend in text and the table of its numbers (:mod:`.plots`);
- each variant's effect on the final lists (players rated in both, Spearman, state
  changes, risers and fallers with their exact ratings).

With many variants the plots draw the best variant, the base rules and the
predictors (the page says so); the tables have every variant. Tables scroll inside
their own region, so the page itself never grows wider than the window.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from .lists import MOVERS, Mover
from .output import number_text
from .plots import (
    CHANCE,
    PLOT_EVERY_UP_TO,
    SHAPES,
    Series,
    calibration_section,
    data_table,
    escape,
    learning_section,
)
from .quality import Quality
from .results import Evaluation, VariantResult, counted_side

STYLE = """
:root { color-scheme: light dark; --ink: #1d2330; --muted: #5b6474; --line: #d9dee7;
  --bg: #ffffff; --panel: #f4f6fa; --accent: #2458c6;
  --c0: #0072b2; --c1: #c04a00; --c2: #007a5a; --c3: #a8458f; --c4: #7a6200; --c5: #1d2330; }
@media (prefers-color-scheme: dark) {
  :root { --ink: #e6e9ef; --muted: #a9b1bf; --line: #3a4150; --bg: #15181e; --panel: #1e222b;
    --accent: #8fb0ff; --c0: #56b4e9; --c1: #e69f00; --c2: #3cc49b; --c3: #e58fc8;
    --c4: #f0e442; --c5: #e6e9ef; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--ink); background: var(--bg); }
main { max-width: 75rem; margin: 0 auto; padding: 1rem; }
h1, h2, h3, p, li, summary, caption { overflow-wrap: anywhere; }
h1 { font-size: 1.6rem; margin: .5rem 0; }
h2 { font-size: 1.3rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.1rem; margin: 1.2rem 0 .4rem; }
code { font-size: .95em; }
.meta, .note { color: var(--muted); }
.how { background: var(--panel); border-radius: 6px; padding: .25rem 1rem; }
.scroll { overflow-x: auto; max-width: 100%; margin: .5rem 0 1rem;
  border: 1px solid var(--line); border-radius: 6px; }
.scroll:focus { outline: 2px solid var(--accent); outline-offset: 2px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; width: max-content;
  min-width: 100%; }
caption { text-align: left; font-weight: 600; padding: .5rem .6rem; }
caption span { display: inline-block; position: sticky; left: .6rem;
  max-width: calc(100vw - 3.5rem); }
th, td { padding: .3rem .6rem; border-top: 1px solid var(--line); text-align: right;
  vertical-align: top; white-space: nowrap; }
thead th { background: var(--panel); }
.setting { white-space: nowrap; }
th.label, td.label { text-align: left; white-space: normal; min-width: 7rem;
  max-width: 22rem; overflow-wrap: anywhere; }
th.text, td.text { text-align: left; }
tbody th.label { position: sticky; left: 0; background: var(--bg); }
@media (max-width: 40rem) {
  th.label, td.label { min-width: 5rem; max-width: 10rem; }
  th, td { padding: .3rem .4rem; }
  main > section > ul, .how ul { padding-left: 1.2rem; }
}
tbody.predictors tr:first-child > * { border-top: 3px double var(--line); }
tr.base th, tr.base td, tr.base th.label { background: var(--panel); }
.tag { display: inline-block; font-size: .8rem; font-weight: 400; padding: 0 .4rem;
  border: 1px solid var(--muted); border-radius: .6rem; color: var(--muted); }
.plots { display: flex; flex-wrap: wrap; gap: 1rem 2rem; }
figure { margin: 0; flex: 1 1 18rem; max-width: 28rem; min-width: 0; }
figure.wide { max-width: 34rem; }
figcaption { font-weight: 600; margin: .5rem 0; }
svg.plot { display: block; width: 100%; height: auto; }
svg text { fill: var(--ink); font: 13px system-ui, -apple-system, "Segoe UI", sans-serif; }
svg.wide text { font-size: 14px; }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg .axis { stroke: var(--muted); stroke-width: 1.2; }
svg .ref { stroke: var(--muted); stroke-width: 1.5; stroke-dasharray: 5 4; fill: none; }
svg .series { fill: none; stroke-width: 2; }
svg .mark { fill-opacity: .55; stroke-width: 1.5; }
ul.legend { list-style: none; padding: 0; margin: .4rem 0; font-size: .9rem; }
ul.legend li { display: flex; align-items: center; gap: .5rem; }
ul.legend svg { flex: none; width: 44px; height: 16px; }
details { margin: .5rem 0; }
summary { cursor: pointer; color: var(--accent); }
""" + "".join(f".s{n} {{ stroke: var(--c{n}); fill: var(--c{n}); }}\n" for n in range(len(SHAPES)))


def _signed(value: float) -> str:
    return f"{value:+.4f}".replace("-", "\u2212")


def _change(value: Decimal) -> str:
    """A rating change with its exact digits and its sign (one minus sign)."""
    return f"{value:+}".replace("-", "\u2212")


def _is_base(result: VariantResult) -> bool:
    return not result.variant.varied


def as_html(evaluation: Evaluation) -> str:
    """The evaluation as one self-contained HTML page (see the module)."""
    variants = [
        Series(
            r.variant.label,
            {p.pool: p.quality for p in r.pools},
            base=_is_base(r),
            best=n == 0 and len(evaluation.variants) > 1,
        )
        for n, r in enumerate(evaluation.variants)
    ]
    predictors = [
        Series(p.label, {q.pool: q.quality for q in p.pools}, predictor=True)
        for p in evaluation.predictors
    ]
    order = [p.pool for r in evaluation.variants for p in r.pools]
    active = [
        pool
        for pool in dict.fromkeys(order)
        if any(s.pools.get(pool) is not None and s.pools[pool].games for s in variants)
    ]
    base = next((s for s in variants if s.base), variants[0] if variants else None)
    # the pools with the most scored games first (the base rules' count)
    prominent = sorted(
        active, key=lambda pool: -(base.pools[pool].games if base and pool in base.pools else 0)
    )
    if len(variants) <= PLOT_EVERY_UP_TO:
        plotted = list(variants)
    else:
        plotted = [variants[0]] + ([base] if base is not None and base is not variants[0] else [])
    plotted += predictors
    plotted = plotted[: len(SHAPES)]

    title = f"Rating lab: {evaluation.system} · {evaluation.games:,} games from {evaluation.source}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{STYLE}</style>",
        "</head>",
        "<body>",
        "<main>",
        f"<h1>Rating lab: the {escape(evaluation.system)} rules</h1>",
        _summary_line(evaluation, variants, active),
        _how_to_read(counted_side(evaluation.system)),
    ]
    if not active:
        parts.append(
            '<p class="note">No pool has a scored game (a game both of whose players had '
            "a rating before it): there is nothing to measure.</p>"
        )
    else:
        parts += _variants_section(variants, predictors, base, active)
        parts += calibration_section(
            plotted, prominent, len(variants), counted_side(evaluation.system)
        )
        parts += learning_section(plotted, prominent, len(variants))
    parts += _changes_section(evaluation)
    parts += ["</main>", "</body>", "</html>", ""]
    return "\n".join(parts)


def _summary_line(evaluation: Evaluation, variants: Sequence[Series], active: Sequence[str]) -> str:
    varied = len(variants) - 1
    what = "the base rules only" if varied <= 0 else f"the base rules and {varied} varied"
    pools = ", ".join(escape(p) for p in active) or "none"
    return (
        f'<p class="meta">{evaluation.games:,} games from '
        f"<code>{escape(evaluation.source)}</code> · "
        f"{len(variants)} variant{'s' if len(variants) != 1 else ''} ({what}) · "
        f"pools with scored games: {pools}</p>"
    )


def _how_to_read(side: str) -> str:
    return f"""<section class="how" aria-labelledby="how">
<h2 id="how">How to read this</h2>
<ul>
<li>Each variant is the system's rules with the fields named in its label changed, replayed
over the same games. <strong>Deviance</strong> is the mean log loss (base 10) of the expected
score before each game against its result, as in Kaggle's "Chess Ratings 2" contest:
<strong>lower is better</strong>; always predicting 0.5 scores {CHANCE:.4f}. The
<strong>Brier</strong> score is the mean squared error (0.25 for always 0.5).</li>
<li>A game counts once (for {side}), in each pool it is rated in, when both players had a
rating before it. The expected score is the system's own (<code>system</code>) or the Elo
expectation from the two ratings (<code>elo</code>).</li>
<li><strong>A difference of a few thousandths over a few hundred games is noise</strong>:
compare variants on files of thousands of games.</li>
<li>The reference predictors (plain Elo with K 20, lichess's Glicko-2) are yardsticks run on
the same games, <strong>not a regulation</strong>: a rule that does worse than them
predicts poorly.</li>
<li>Calibration: in each bin of expected scores, a well calibrated rating has the points on the
diagonal ({side} scored what was expected). The list changes say what a variant would do to
the published lists: a better deviance with a Spearman well below 1 reorders the list.</li>
</ul>
</section>"""


# -- the tables ------------------------------------------------------------------------


def _variants_section(
    variants: Sequence[Series],
    predictors: Sequence[Series],
    base: Series | None,
    active: Sequence[str],
) -> list[str]:
    parts = [
        '<section aria-labelledby="variants">',
        '<h2 id="variants">Variants by deviance, best first</h2>',
        '<p class="note">The mean deviance over every scored game of every pool, and each '
        "pool's; <em>vs base</em> is the difference from the base rules (negative: better "
        "predictions). The lowest of each column is in bold.</p>",
    ]
    base_mean = _pooled_of(base, active) if base is not None else None
    columns = ["mean", *active]
    best: dict[str, float] = {}
    for column in columns:
        values = [
            v for s in (*variants, *predictors) if (v := _deviance(s, column, active)) is not None
        ]
        if values:
            best[column] = min(values)
    head = [
        '<th scope="col">#</th>',
        '<th scope="col" class="label">variant</th>',
        '<th scope="col">mean deviance</th>',
        '<th scope="col">vs base</th>',
        *(f'<th scope="col">{escape(pool)}</th>' for pool in active),
    ]

    def row(rank: str, series: Series) -> str:
        mean = _deviance(series, "mean", active)
        versus = (
            "" if series.base or mean is None or base_mean is None else _signed(mean - base_mean)
        )
        cells = [
            f"<td>{rank}</td>",
            f'<th scope="row" class="label">{series.label_html()}</th>',
            f"<td>{_bold(mean, best.get('mean'))}</td>",
            f"<td>{versus}</td>",
            *(
                f"<td>{_bold(_deviance(series, pool, active), best.get(pool))}</td>"
                for pool in active
            ),
        ]
        return _row(cells, series.base)

    body = ["<tbody>", *(row(str(n), s) for n, s in enumerate(variants, 1)), "</tbody>"]
    if predictors:
        body += ['<tbody class="predictors">', *(row("", s) for s in predictors), "</tbody>"]
    parts.append(
        data_table(
            "Mean deviance of each variant and each reference predictor (not a regulation)",
            head,
            body,
            "summary-table",
        )
    )
    parts.append('<h3 id="per-pool">Each pool</h3>')
    for n, pool in enumerate(active):
        pool_head = [
            '<th scope="col" class="label">variant</th>',
            '<th scope="col">games</th>',
            '<th scope="col">deviance</th>',
            '<th scope="col">vs base</th>',
            '<th scope="col">Brier</th>',
            '<th scope="col">expected score</th>',
        ]
        base_q = base.pools.get(pool) if base is not None else None

        def pool_row(series: Series, pool: str = pool, base_q: Quality | None = base_q) -> str:
            q = series.pools.get(pool)
            if q is None:
                return ""
            versus = ""
            if (
                not series.base
                and q.deviance is not None
                and base_q
                and base_q.deviance is not None
            ):
                versus = _signed(q.deviance - base_q.deviance)
            cells = [
                f'<th scope="row" class="label">{series.label_html()}</th>',
                f"<td>{q.games:,}</td>",
                f"<td>{number_text(q.deviance)}</td>",
                f"<td>{versus}</td>",
                f"<td>{number_text(q.brier)}</td>",
                f"<td>{escape(q.expectation)}</td>",
            ]
            return _row(cells, series.base)

        body = ["<tbody>", *(pool_row(s) for s in variants), "</tbody>"]
        if predictors:
            body += ['<tbody class="predictors">', *(pool_row(s) for s in predictors), "</tbody>"]
        parts.append(data_table(f"Pool {escape(pool)}", pool_head, body, f"pool-table-{n}"))
    parts.append("</section>")
    return parts


def _row(cells: Sequence[str], base: bool) -> str:
    attribute = ' class="base"' if base else ""
    return f"<tr{attribute}>{''.join(cells)}</tr>"


def _pooled_of(series: Series, active: Sequence[str]) -> float | None:
    qualities = [series.pools[p] for p in active if p in series.pools]
    total = sum(q.games for q in qualities)
    if total == 0:
        return None
    return sum((q.deviance or 0.0) * q.games for q in qualities) / total


def _deviance(series: Series, column: str, active: Sequence[str]) -> float | None:
    if column == "mean":
        return _pooled_of(series, active)
    q = series.pools.get(column)
    return None if q is None else q.deviance


def _bold(value: float | None, best: float | None) -> str:
    text = number_text(value)
    return f"<strong>{text}</strong>" if value is not None and value == best else text


# -- the list changes ------------------------------------------------------------------


def _mover_rows(pool: str, movers: Sequence[Mover]) -> list[str]:
    return [
        f'<tr><td class="text">{escape(pool)}</td>'
        f'<th scope="row" class="label id">{escape(m.shown)}</th>'
        f"<td>{escape(m.base)}</td><td>{escape(m.variant)}</td><td>{escape(_change(m.change))}</td></tr>"
        for m in movers
    ]


def _changes_section(evaluation: Evaluation) -> list[str]:
    parts = [
        '<section aria-labelledby="changes">',
        '<h2 id="changes">What each variant does to the lists</h2>',
    ]
    varied = [r for r in evaluation.variants if not _is_base(r)]
    if not varied:
        parts.append(
            '<p class="note">Only the base rules were replayed: give <code>--vary</code> '
            "to compare other rules with them.</p></section>"
        )
        return parts
    parts.append(
        "<p class=\"note\">Each variant's final list of each pool against the base rules', "
        "over the players rated in both: Spearman's rank correlation (1: the same order), "
        "how many players end in a different state (rated or not, provisional or "
        f"established); then the {MOVERS} largest risers and fallers of each pool (risers "
        "first), each with the base rules' rating, the variant's rating and the "
        "change.</p>"
    )
    for n, result in enumerate(varied):
        rows, moved = [], []
        for p in result.pools:
            c = p.comparison
            if c is None or (c.players == 0 and c.state_changed == 0):
                continue
            rows.append(
                f'<tr><th scope="row" class="label">{escape(p.pool)}</th><td>{c.players:,}</td>'
                f"<td>{number_text(c.spearman)}</td><td>{c.state_changed}</td></tr>"
            )
            moved += _mover_rows(p.pool, c.risers)
            moved += _mover_rows(p.pool, c.fallers)
        label = escape(result.variant.label)
        parts.append(f'<h3 id="changes-{n}">{label}</h3>')
        if not rows:
            parts.append('<p class="note">No player is rated in both lists.</p>')
            continue
        parts.append(
            data_table(
                f"{label} against the base rules",
                [
                    '<th scope="col" class="label">pool</th>',
                    '<th scope="col">players in both</th>',
                    '<th scope="col">Spearman</th>',
                    '<th scope="col">in a different state</th>',
                ],
                ["<tbody>", *rows, "</tbody>"],
                f"changes-table-{n}",
            )
        )
        if not moved:
            parts.append('<p class="note">No rating moved.</p>')
            continue
        parts.append(
            data_table(
                f"The risers and fallers under {label}",
                [
                    '<th scope="col" class="text">pool</th>',
                    '<th scope="col" class="label">player</th>',
                    '<th scope="col">base</th>',
                    '<th scope="col">variant</th>',
                    '<th scope="col">change</th>',
                ],
                ["<tbody>", *moved, "</tbody>"],
                f"movers-table-{n}",
            )
        )
    parts.append("</section>")
    return parts
