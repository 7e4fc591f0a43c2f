"""The rating lab's HTML report (``chessrate evaluate --report``) opened from a file in
a real Chromium at 1366 and 390 px: with one variant (a real lichess file), with
twelve (games among players whose ids need escaping, one too long for a phone's
line), and with fide's periods of real tournaments under both rulesets. The page asks
for nothing but itself, never grows wider than the window (its tables scroll in their
own regions), shows the odd ids as text, and passes axe-core with every ``<details>``
open. Screenshots go to the test output folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from chessrate.lab import evaluate, evaluate_games
from chessrate.lab.report import as_html

from ..support.lab_games import LICHESS, MARKUP, odd_games
from .conftest import assert_fits, screenshot, width_of
from .test_accessibility import axe_violations

TRF = Path(__file__).parents[1] / "data" / "trf"
"""Real tournaments (and the seed's round robin): fide's periods, standard and rapid."""


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("lab-report")
    one = evaluate(LICHESS, "site")
    many = evaluate_games(
        "site", odd_games(), vary=["k_new=8,12,16,20,24,28,36,40,44,48,56"], source="odd.jsonl"
    )
    periods = evaluate(TRF, "fide", vary=["ruleset=seed,fide-2024", "k=20,40"])
    assert (len(one.variants), len(many.variants), len(periods.variants)) == (1, 12, 5)
    paths = {name: folder / f"{name}.html" for name in ("one", "many", "fide")}
    paths["one"].write_text(as_html(one), encoding="utf-8")
    paths["many"].write_text(as_html(many), encoding="utf-8")
    paths["fide"].write_text(as_html(periods), encoding="utf-8")
    return paths


@pytest.mark.parametrize("name", ["one", "many", "fide"])
def test_the_report_fits_and_passes_axe(screen: Page, reports: dict[str, Path], name: str) -> None:
    asked: list[str] = []
    screen.on("request", lambda request: asked.append(request.url))
    url = reports[name].as_uri()
    screen.goto(url)
    assert asked == [url], "the page asked for something besides itself"
    assert_fits(screen)
    width = width_of(screen)
    screenshot(screen, f"lab-report-{name}-{width}")
    # every plot's numbers and every more-pools group open: they fit too
    opened = screen.evaluate(
        "() => { const all = document.querySelectorAll('details');"
        " all.forEach(d => { d.open = true; }); return all.length; }"
    )
    assert opened > 0
    assert_fits(screen)
    screenshot(screen, f"lab-report-{name}-{width}-open")
    # each table wider than the window scrolls inside its own region
    overflowing = screen.evaluate(
        "() => [...document.querySelectorAll('table')].filter("
        " t => t.getBoundingClientRect().right > window.innerWidth + 1"
        " && !t.parentElement.matches('.scroll')).length"
    )
    assert overflowing == 0
    if name == "many":
        text = screen.evaluate("document.body.innerText")
        assert MARKUP in text  # shown as it is, not read as markup
        assert screen.locator("main b").count() == 0
    violations = axe_violations(screen)
    assert not violations, "\n".join(violations)
    assert asked == [url], "axe-core or the page asked for something"
