"""The rating lab's HTML report (``chessrate evaluate --report``): one self-contained
document, every variant and predictor in it, every text escaped, the plots drawing
what the evaluation holds. The page in a real browser: tests/web/test_lab_report_page.py."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from chessrate.cli import main
from chessrate.lab import Evaluation, Quality, evaluate, evaluate_games
from chessrate.lab.plots import PLOT_EVERY_UP_TO
from chessrate.lab.report import as_html

from .support.lab_games import LICHESS, MARKUP, PLAYERS, odd_games

HOSTILE_SOURCE = '<i>&"odd games.jsonl'
VOID = frozenset({"meta", "br", "hr", "img", "input", "link", "col", "wbr", "source"})
MANY = ["k_new=8,12,16,20,24,28,36,40,44,48,56"]  # 11 values: 12 variants with the base


class _Document(HTMLParser):
    """The tags of a page: each element closed in order, and the attributes seen."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.counts: dict[str, int] = {}
        self.attributes: list[tuple[str, str, str]] = []
        self.problems: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.counts[tag] = self.counts.get(tag, 0) + 1
        self.attributes += [(tag, name, value or "") for name, value in attrs]
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.counts[tag] = self.counts.get(tag, 0) + 1
        self.attributes += [(tag, name, value or "") for name, value in attrs]

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.open[-1:]}")
            return
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(page: str) -> _Document:
    document = _Document()
    document.feed(page)
    document.close()
    assert not document.problems, document.problems
    assert document.open == [], f"never closed: {document.open}"
    return document


@pytest.fixture(scope="module")
def odd() -> Evaluation:
    return evaluate_games("site", odd_games(), vary=["k_new=16,48"], source=HOSTILE_SOURCE)


@pytest.fixture(scope="module")
def many() -> Evaluation:
    return evaluate_games("site", odd_games(), vary=MANY, source="many.jsonl")


def test_one_self_contained_document(odd: Evaluation) -> None:
    page = as_html(odd)
    assert page.startswith('<!DOCTYPE html>\n<html lang="en">')
    document = parsed(page)
    for tag in ("html", "head", "body", "main", "h1"):
        assert document.counts.get(tag) == 1, tag
    assert "<script" not in page.lower()
    for tag in ("script", "link", "img", "iframe", "object", "embed"):
        assert tag not in document.counts, tag
    outside = [
        (tag, name, value)
        for tag, name, value in document.attributes
        if name in ("src", "href", "xlink:href", "action") or value.startswith(("http", "//"))
    ]
    assert outside == [], "the page refers to something outside itself"
    assert not re.search(r"url\(|@import", page), "the style loads something"
    # the SVG plots are inline, each an image with its name
    assert document.counts["svg"] >= 4
    assert page.count('role="img"') == page.count("<title>") - 1  # the page's own title
    assert all(
        value for tag, name, value in document.attributes if tag == "svg" and name == "aria-label"
    )


def test_every_variant_and_predictor_in_the_summary_best_first(odd: Evaluation) -> None:
    page = as_html(odd)
    summary = page[page.index('id="summary-table"') : page.index("</table>")]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", summary)[1:]  # the header row first
    labels = [re.search(r'<th scope="row" class="label">(.*?)</th>', row) for row in rows]
    shown = [
        html.unescape(
            re.sub(r"<[^>]+>", "", re.sub(r'<span class="tag">.*?</span>', "", m[1]))
        ).strip()
        for m in labels
        if m
    ]
    expected = [r.variant.label for r in odd.variants] + [p.label for p in odd.predictors]
    assert shown == expected
    cells = [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row) for row in rows]
    means = [float(re.sub(r"<[^>]+>", "", row[2])) for row in cells]  # #, variant, mean
    variant_means = means[: len(odd.variants)]
    assert variant_means == sorted(variant_means)
    assert variant_means == [round(r.deviance, 4) for r in odd.variants]
    for predictor in odd.predictors:
        assert (
            f'<span class="setting">{predictor.label}</span> <span class="tag">not a '
            "regulation</span>"
        ) in page
    assert "the system's rules</span>" in page  # the base rules are marked


def test_every_text_is_escaped(odd: Evaluation) -> None:
    page = as_html(odd)
    assert MARKUP not in page
    assert html.escape(MARKUP) in page  # among the risers and fallers
    assert html.escape(HOSTILE_SOURCE) in page and HOSTILE_SOURCE not in page
    assert "Zoë &#x27;z&#x27; Ærø" in page
    for player in PLAYERS:  # each id is in the lists' changes
        assert html.escape(player) in page
    text = "".join(parsed(page).text)
    assert MARKUP in text and HOSTILE_SOURCE in text  # read back: the text itself


def test_the_list_changes_hold_the_exact_ratings(odd: Evaluation) -> None:
    page = as_html(odd)
    movers = [
        m
        for r in odd.variants
        for p in r.pools
        if p.comparison is not None
        for m in (*p.comparison.risers, *p.comparison.fallers)
    ]
    assert MARKUP in {m.player for m in movers}  # so the escaping test sees it there
    for m in movers:
        change = f"{m.change:+}".replace("-", "\u2212")
        assert (
            f'<th scope="row" class="label id">{html.escape(m.player)}</th>'
            f"<td>{m.base}</td><td>{m.variant}</td><td>{change}</td>"
        ) in page


def first_figure(page: str, section: str) -> tuple[str, str]:
    """The first figure of a section of the page, and its pool."""
    start = page.index(f'id="{section}"')
    figure = page[page.index("<figure", start) : page.index("</figure>", start)]
    found = re.search(r"<figcaption[^>]*>Pool ([^<]+)<", figure)
    assert found is not None
    return figure, html.unescape(found.group(1))


def qualities(evaluation: Evaluation, pool: str) -> list[Quality]:
    """Each variant's and predictor's quality in ``pool``."""
    pools = [*(r.pools for r in evaluation.variants), *(p.pools for p in evaluation.predictors)]
    return [p.quality for results in pools for p in results if p.pool == pool]


def test_the_calibration_plot_draws_every_bin_with_games(odd: Evaluation) -> None:
    figure, pool = first_figure(as_html(odd), "calibration")
    found = qualities(odd, pool)
    bins = sum(1 for q in found for b in q.bins if b.count)
    svg = figure[figure.index("<svg") : figure.index("</svg>")]
    assert svg.count('class="mark ') == bins
    assert svg.count('class="series ') == len(found)
    assert figure.count('<tr><th scope="row"') == bins  # the table of the plot's numbers


def test_the_learning_chart_draws_every_bucket_with_games(odd: Evaluation) -> None:
    figure, pool = first_figure(as_html(odd), "learning")
    buckets = [b for q in qualities(odd, pool) for b in q.by_games if b.count]
    svg = figure[figure.index("<svg") : figure.index("</svg>")]
    assert svg.count('class="mark ') == len(buckets)
    assert figure.count('<tr><th scope="row"') == len(buckets)
    for label in ("0", "1-4", "5-9", "10-19", "20-49", "50-99", "100+"):
        assert f">{label}</text>" in svg


def test_pools_without_games_are_left_out(odd: Evaluation) -> None:
    page = as_html(odd)
    scored = {p.pool for r in odd.variants for p in r.pools if p.quality.games}
    assert scored == {"site", "blitz"}  # every game is a blitz game
    for pool in ("bullet", "rapid", "classical", "unclocked"):
        assert f"Pool {pool}<" not in page
        assert f">{pool}</th>" not in page
    for pool in scored:
        assert f"<span>Pool {pool}</span>" in page  # its table's caption


def test_many_variants_plot_the_best_the_base_and_the_predictors(many: Evaluation) -> None:
    assert len(many.variants) == 12 > PLOT_EVERY_UP_TO
    page = as_html(many)
    assert "With 12 variants the plots draw the best one, the base rules and the" in page
    summary = page[page.index('id="summary-table"') : page.index("</table>")]
    for result in many.variants:
        assert f">{html.escape(result.variant.label)}" in summary
    best = many.variants[0].variant.label
    figure, _ = first_figure(page, "calibration")
    legend = re.findall(r"<li><svg.*?<span>([^<]*)</span></li>", figure)
    assert legend == [
        f"{best} (the best)",
        "base (the system&#x27;s own rules)",
        "elo-k20 (not a regulation)",
        "glicko2-lichess (not a regulation)",
        "the diagonal: observed = expected",
    ]


def test_one_variant_and_no_games() -> None:
    one = evaluate(LICHESS, "site")
    page = as_html(one)
    parsed(page)
    assert "Only the base rules were replayed" in page
    assert "The plots draw every variant and the reference predictors." in page
    empty = as_html(evaluate_games("site", [], source="empty.jsonl"))
    parsed(empty)
    assert "there is nothing to measure" in empty
    assert 'class="plot' not in empty


# -- the command ------------------------------------------------------------------------


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_report_option_writes_the_page_and_keeps_stdout(tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    code, out, err = invoke(
        "evaluate", LICHESS, "--system", "site", "--vary", "k_new=16,48", "--report", report
    )
    assert code == 0, err
    assert out.startswith("site · 46 games from ")  # the text output, as without --report
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary left
    page = report.read_text(encoding="utf-8")
    parsed(page)
    for label in ("k_new=16", "k_new=48", "base", "elo-k20", "glicko2-lichess"):
        assert f">{label}" in page
    code, out, err = invoke("evaluate", LICHESS, "--system", "site", "--json", "--report", report)
    assert code == 0, err
    assert out.lstrip().startswith("{")


def test_report_in_a_missing_folder_exits_2_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no such folder" / "report.html"
    code, out, err = invoke("evaluate", LICHESS, "--system", "site", "--report", missing)
    assert code == 2
    assert out == ""
    assert err == f"error: --report {missing}: the folder {missing.parent} does not exist\n"
    assert list(tmp_path.iterdir()) == []
    code, _, err = invoke("evaluate", LICHESS, "--system", "site", "--report", tmp_path)
    assert code == 2
    assert "is a directory" in err
