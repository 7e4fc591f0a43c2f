"""The player page's one chart in Chromium: an annulment drawn at the game it annuls
(its label says when it was confirmed), the range's first point named, no point cut
at the plot's edges, the slider's value in the served HTML, the readout naming the
opponent; the pool selector working without script; and a 9-pool player's record and
games list high on a phone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from chessrate.ledger import Ledger

from .conftest import NOW, Site, assert_fits, screenshot, serve, width_of

PHONE_HEIGHT = 844

POINTS = """figure => {
    const svg = figure.querySelector("svg.chart").getBoundingClientRect();
    const view = figure.querySelector("svg.chart").viewBox.baseVal;
    const focus = figure.querySelector("path.mark.focus");
    const radius = parseFloat(getComputedStyle(focus).strokeWidth) / 2;
    const rows = [...figure.querySelectorAll("table.chart-data tbody tr")];
    const line = figure.querySelector("polyline.line").getAttribute("points").trim()
        .split(/\\s+/).map((p) => p.split(",").map(parseFloat));
    const spots = [
        ...rows.map((r) => [parseFloat(r.dataset.x), parseFloat(r.dataset.y)]), ...line,
    ];
    return {
        box: [svg.left, svg.top, svg.right, svg.bottom], radius,
        spots: spots.map(([x, y]) => [svg.left + x / view.width * svg.width,
                                      svg.top + y / view.height * svg.height]),
        rows: rows.map((r) => ({
            kind: r.className, game: r.dataset.game, x: parseFloat(r.dataset.x),
            date: r.cells[0].textContent, what: r.cells[2].textContent,
            readout: r.dataset.readout,
        })),
    };
}"""
"""Every drawn point (the data rows' and the line's) in page pixels, the plot's box
and the largest marker's half width (the focus point's), read in one call."""


def _utc(text: str) -> str:
    return datetime.fromisoformat(text).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def test_an_annulment_is_drawn_at_the_game_it_annuls(site_sample: Site, screen: Page) -> None:
    """Lars lost s0154 to Zed in February; the sample's annulment of it is dated when
    the sample was loaded (June). The marker sits on the game, in February."""
    served = httpx.get(f"{site_sample.base}/players/lars?pool=rapid").text
    assert 'role="slider"' in served and 'aria-valuenow="' in served
    assert 'aria-valuetext="' in served

    game = site_sample.get("/games/s0154")
    annulment = next(
        a for a in site_sample.get("/annulments")["annulments"] if a["game"] == "s0154"
    )
    history = site_sample.get("/players/lars/history/rapid")["items"]
    page = screen
    page.goto(f"{site_sample.base}/players/lars?pool=rapid")
    screenshot(page, f"site-player-lars-rapid-{width_of(page)}")
    assert_fits(page)
    figure = page.locator("figure.chart")
    assert figure.count() == 1  # one chart, the pool asked for
    assert figure.get_attribute("data-pool") == "rapid"
    drawn: dict[str, Any] = figure.evaluate(POINTS)

    # the marker: on the annulled game's point, at the game's date; confirmed later
    marker = figure.locator("path.mark.annulment[data-game='s0154']")
    assert marker.get_attribute("data-at") == game["played_at"].replace("Z", "+00:00")
    assert marker.get_attribute("data-confirmed") == annulment["at"].replace("Z", "+00:00")
    (own,) = [r for r in drawn["rows"] if r["game"] == "s0154" and r["kind"] == "game"]
    assert float(marker.get_attribute("data-x") or "nan") == own["x"]
    assert own["date"] == _utc(game["played_at"])
    label = marker.locator("title").text_content() or ""
    assert f"confirmed {_utc(annulment['at'])}" in label
    assert label.startswith(_utc(game["played_at"]))
    (row,) = [r for r in drawn["rows"] if r["kind"] == "annulment"]
    assert row["date"] == _utc(game["played_at"])
    assert f"confirmed {_utc(annulment['at'])}" in row["what"]
    # nothing drawn after the last game (no line out to the annulment's own date)
    last_game = max(r["x"] for r in drawn["rows"] if r["kind"] == "game")
    assert all(r["x"] <= last_game for r in drawn["rows"])
    assert figure.locator("path.step.annulment").count() == 1

    # the range's first point, by name
    assert drawn["rows"][0]["kind"] == "start"
    assert drawn["rows"][0]["what"] == "rating at the start of this range"
    assert "rating at the start of this range" in figure.locator("p.chart-legend").inner_text()
    assert "starting rating" not in page.locator("main").inner_text()

    # no point outside the plot, a marker's half width included
    left, top, right, bottom = drawn["box"]
    r = drawn["radius"]
    assert r >= 5
    outside = [
        (x, y) for x, y in drawn["spots"]
        if not (left + r <= x <= right - r and top + r <= y <= bottom - r)
    ]  # fmt: skip
    assert not outside, (drawn["box"], outside)

    # the readout names the opponent, not the game
    plot = figure.locator(".chart-plot")
    plot.focus()
    page.keyboard.press("End")
    readout = figure.locator("output.readout").inner_text()
    last = [i for i in history if i["kind"] == "game"][-1]  # the annulment came later
    assert f"vs {last['opponent_name']}" in readout
    assert last["change"]["game"] not in readout
    assert plot.get_attribute("aria-valuetext") == readout
    assert plot.get_attribute("aria-valuenow") == str(len(drawn["rows"]))


def test_the_pool_selector_works_without_script(browser: Browser, site_sample: Site) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{site_sample.base}/players/lars")
        assert page.locator("figure.chart").count() == 1
        assert page.locator("figure.chart").get_attribute("data-pool") == "site"
        page.locator("nav.pools a[data-pool='rapid']").click()
        page.wait_for_url("**pool=rapid#pool-rapid")
        assert page.locator("figure.chart").count() == 1
        assert page.locator("figure.chart").get_attribute("data-pool") == "rapid"
        assert page.locator("nav.pools a[aria-current]").inner_text() == "rapid"
        assert page.locator("table.ratings tr.current").get_attribute("data-pool") == "rapid"
        # the range links keep the pool
        range_link = page.locator("nav.ranges a[data-range='1y']")
        assert range_link.get_attribute("href") == "?pool=rapid&range=1y#pool-rapid"
        # the pools table links too; the slider's value is there without script
        page.locator("table.ratings tr[data-pool='classical'] td.pool a").click()
        page.wait_for_url("**pool=classical#pool-classical")
        plot = page.locator("figure.chart[data-pool='classical'] .chart-plot")
        assert plot.get_attribute("aria-valuenow") == plot.get_attribute("aria-valuemax")
        assert plot.get_attribute("aria-valuetext")
    finally:
        context.close()


NINE = "nina"
"""A player with a rating in each of the site system's 9 pools."""


@pytest.fixture(scope="module")
def nine_pools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """An empty site ledger of this module's own: Nina plays one game of each type
    (bullet, blitz, rapid, classical, unclocked, correspondence, otb, against a bot),
    the site Elo being the ninth pool."""
    folder: Path = tmp_path_factory.mktemp("nine")
    ledger = Ledger.create(f"sqlite:///{folder / 'site.db'}", "site", NOW)
    token = ledger.tokens.create("writer", "Nine pools", NOW)
    auth = {"Authorization": f"Bearer {token}"}
    try:
        for site in serve(ledger):
            for body in (
                {"id": NINE, "name": "Nina Ninepools"},
                {"id": "oskar", "name": "Oskar Opponent"},
                {"id": "botty", "name": "Botty", "bot": True, "bot_rating": "1200"},
            ):
                answer = site.api.post("/api/v1/players", json=body, headers=auth)
                assert answer.status_code == 201, answer.text
            games: list[dict[str, Any]] = [
                {"time_control": "60+0"}, {"time_control": "180+2"},
                {"time_control": "900+10"}, {"time_control": "3600+30"},
                {"time_control": "-"}, {"time_control": "3d"},
                {"time_control": "900+10", "venue": "otb", "confirmed": True},
                {"time_control": "180+2", "black": "botty"},
            ]  # fmt: skip
            for n, extra in enumerate(games):
                when = (NOW - timedelta(days=30 - n)).isoformat().replace("+00:00", "Z")
                body = {"id": f"nine-{n}", "white": NINE, "black": "oskar", "played_at": when,
                        "result": "1-0" if n % 2 else "0-1", **extra}  # fmt: skip
                answer = site.api.post("/api/v1/games", json=body, headers=auth)
                assert answer.status_code in (200, 201), answer.text
            yield site
    finally:
        ledger.dispose()


def test_a_nine_pool_players_record_and_games_are_high_on_a_phone(
    nine_pools: Site, phone: Page
) -> None:
    player = nine_pools.get(f"/players/{NINE}")
    assert len(player["ratings"]) == 9
    phone.goto(f"{nine_pools.base}/players/{NINE}")
    screenshot(phone, f"site-player-nine-pools-{width_of(phone)}")
    assert_fits(phone)
    assert phone.locator("table.ratings tbody tr").count() == 9
    assert phone.locator("figure.chart").count() == 1
    tops = phone.evaluate(
        """() => ["dl.record", "section.games", "table.games"].map(
            (s) => document.querySelector(s).getBoundingClientRect().top + window.scrollY)"""
    )
    assert all(top < 2 * PHONE_HEIGHT for top in tops), tops
    # each pool's numbers stay on the page: rating, state, games, rank
    for rating in player["ratings"]:
        row = phone.locator(f"table.ratings tr[data-pool='{rating['pool']}']")
        assert row.locator("td.display").inner_text() == rating["display"]
        assert row.locator("td.games").inner_text() == str(rating["games"])
        assert row.locator("td.state").inner_text()
        assert row.locator("td.rank").count() == 1
