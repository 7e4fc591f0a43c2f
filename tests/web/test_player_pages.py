"""Player pages in Chromium at 1366 and 390 px, for site,
arena and corr: names where ids were, the table of pools (state in words, rank), the
shown pool's record, one dated chart reachable by keyboard (its readout equal to the
API's history, naming the opponent), the range links, the games list (coloured
changes, time controls as players write them), a bot's games, no sideways scrolling;
and a 20,000-game player's page under 300 KB."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import Page

from tests.support.busy_player import BUSY, busy_ledger

from .conftest import Site, assert_fits, screenshot, serve, width_of

PLAYERS = {"site": ("zed", "kai"), "arena": ("dmitri", "emil"), "corr": ("theo", "dina")}
DATE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d UTC$")
AXIS = re.compile(r"^(\d{1,2} [A-Z][a-z]{2}|[A-Z][a-z]{2} \d{4}|\d{4})$")


def sample_of(request: pytest.FixtureRequest, system: str) -> Site:
    return request.getfixturevalue(f"{system}_sample")  # type: ignore[no-any-return]


@pytest.mark.parametrize("system", sorted(PLAYERS))
def test_player_page(system: str, screen: Page, request: pytest.FixtureRequest) -> None:
    sample = sample_of(request, system)
    for player_id in PLAYERS[system]:
        page = screen
        page.goto(f"{sample.base}/players/{quote(player_id)}")
        screenshot(page, f"{system}-player-{player_id}-{width_of(page)}")
        assert_fits(page)
        stats = sample.get(f"/players/{player_id}/stats")
        player = sample.get(f"/players/{player_id}")
        assert page.locator("h1").inner_text().startswith(player["name"] or player_id)

        # the state in words and the rank per pool (the table); the shown pool's record
        section = page.locator("section.pool")
        assert section.count() <= 1  # one chart, one pool's record
        shown = section.get_attribute("data-pool") if section.count() else None
        for pool in stats["pools"]:
            row = page.locator(f"table.ratings tr[data-pool='{pool['pool']}']")
            if not row.count():
                continue
            assert row.locator("td.state").inner_text() == pool["standing"]
            if pool["rank"]:
                cell = row.locator("td.rank a")
                assert cell.inner_text() == f"#{pool['rank']}"
                assert cell.get_attribute("href") == (
                    f"/leaderboards/{pool['pool']}?page={(pool['rank'] - 1) // 50 + 1}"
                    f"#rank-{pool['rank']}"
                )
                ranked = sample.get(f"/leaderboards/{pool['pool']}/players/{player_id}")
                assert ranked["rank"] == pool["rank"]
            else:
                assert row.locator("td.rank").inner_text() == "—"
            if pool["pool"] != shown:
                continue
            assert section.locator("dd.standing").inner_text() == pool["standing"]
            wdl = f"{pool['wins']} / {pool['draws']} / {pool['losses']}"
            assert section.locator("dd.wdl").inner_text() == wdl
            if pool["rank"]:
                # the rank the pool's leaderboard gives (the board the page links to)
                link = section.locator("dd.rank a").first
                assert link.inner_text().startswith(f"#{pool['rank']} on the ")
                assert link.inner_text().endswith(" leaderboard")
                number = (pool["rank"] - 1) // 50 + 1
                assert link.get_attribute("href") == (
                    f"/leaderboards/{pool['pool']}?page={number}#rank-{pool['rank']}"
                )
            elif pool["unranked"]:
                assert (
                    section.locator("dd.rank")
                    .inner_text()
                    .startswith(f"not ranked: {pool['unranked']}")
                )
            if pool["peak"]:
                assert f"({pool['peak']})" in section.locator("dd.peak").inner_text()
        words = [p["standing"] for p in stats["pools"]]
        if system == "site":
            assert any(
                re.fullmatch(r"(provisional, \d of 10|established, \d+) games", w) for w in words
            )
        if system == "arena" and player_id == "emil":
            assert "qualifying: 0 of 5" in words or any(w.startswith("qualifying: ") for w in words)
        if system == "corr" and player_id == "dina":
            assert any(re.fullmatch(r"provisional, \d+ of 25 games", w) for w in words)

        check_games_list(page, sample, player_id)
        pools = [p["pool"] for p in stats["pools"] if p["peak"]]
        if player_id == PLAYERS[system][0]:  # the second may have no rating yet (qualifying)
            check_chart(page, sample, player_id, pools[0])


GAME_ROWS = """rows => rows.map(row => {
    const all = (selector) => [...row.querySelectorAll(selector)];
    const texts = (selector) => all(selector).map((e) => e.innerText);
    return {
        game: row.getAttribute("data-game"),
        when: texts("td.when"),
        opponent: all("td.opponent a.player").map((a) => [a.innerText, a.getAttribute("title")]),
        time_control: texts("td.time-control"),
        colour: texts("td.colour"),
        deltas: all("td.changes .delta").map((d) => [d.innerText, getComputedStyle(d).color]),
        annulled: all("td.outcome a.annulled").map((a) => [a.innerText, a.getAttribute("href")]),
    };
})"""
"""What the games list shows, row by row, read in one call to the browser (a call per
cell, hundreds per page, took seconds). Each list holds every element the row's selector
matches: the checks require exactly one where a row has one."""


def check_games_list(page: Page, sample: Site, player_id: str) -> None:
    games = sample.get(f"/players/{player_id}/games?limit=50")
    rows = page.locator("table.games tbody tr").evaluate_all(GAME_ROWS)
    assert len(rows) == len(games["games"]) > 0
    assert page.locator("section.games h2 small").inner_text() == str(games["total"])
    for row, game in zip(rows, games["games"], strict=True):
        assert row["game"] == game["id"]
        (when,) = row["when"]
        assert DATE.match(when)
        ((opponent, title),) = row["opponent"]
        assert opponent == (game["opponent_name"] or game["opponent"])
        assert title == game["opponent"]
        (shown,) = row["time_control"]
        assert shown == game["time_control_written"]
        assert not re.fullmatch(r"\d{3,}\+\d+|-", shown)  # never raw seconds
        assert row["colour"] == [game["colour"]]
        assert len(row["deltas"]) == len(game["changes"])
        for (text, colour), change in zip(row["deltas"], game["changes"], strict=True):
            value = change["change"]
            if value is None:
                continue
            text = text.split()[0]
            assert text.replace("\u2212", "-").lstrip("+") == value.lstrip("+")
            if value.startswith("-"):
                assert colour == "rgb(198, 40, 40)", (game["id"], value)
            elif value.strip("0.") != "":
                assert colour == "rgb(26, 127, 55)", (game["id"], value)
        if game["annulled"]:
            ((text, href),) = row["annulled"]
            assert text == f"annulled — {game['annulment_reason']}"
            assert href == f"/games/{game['id']}"


def check_chart(page: Page, sample: Site, player_id: str, pool: str) -> None:
    section = page.locator(f"section.pool[data-pool='{pool}']")
    labels = section.locator(".chart-x span").all_inner_texts()
    assert labels and all(AXIS.match(label) for label in labels), labels
    visible = [s for s in section.locator(".chart-x span").all() if s.is_visible()]
    assert visible and all(
        s.evaluate("e => parseFloat(getComputedStyle(e).fontSize)") >= 11 for s in visible
    )
    # at most a few dozen focusable elements per chart: one
    figure = section.locator("figure.chart")
    focusable = figure.evaluate(
        "f => [...f.querySelectorAll('[tabindex], a, button')].filter(e => e.tabIndex >= 0"
        " && e.checkVisibility()).length"
    )
    assert focusable == 1
    history = {
        (i["change"]["game"], i["kind"]): i
        for i in sample.get(f"/players/{player_id}/history/{pool}")["items"]
    }
    plot = section.locator(".chart-plot")
    plot.focus()
    readout = section.locator("output.readout")
    assert readout.is_visible()
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    # the point shown: its data row says which game (and kind) it is
    index = int(readout.get_attribute("data-index") or "-1")
    row = section.locator("table.chart-data tbody tr").nth(index)
    item = history[(row.get_attribute("data-game") or "", row.get_attribute("class") or "")]
    parts = readout.inner_text().split(" · ")
    assert DATE.match(parts[0]), parts
    if item["kind"] == "game":  # date · rating · the opponent · change
        assert parts[1] == item["change"]["after"]
        assert parts[0] == _utc(item["at"])
        assert parts[2] == f"vs {item['opponent_name'] or item['change']['opponent']}"
    else:  # an annulment, at its game's date, saying when it was confirmed
        assert f"confirmed {_utc(item['at'])}" in parts[1]
        assert parts[1].endswith(item["change"]["after"])
    assert plot.get_attribute("aria-valuetext") == readout.inner_text()
    # ranges are links, relative to the player's last game
    links = section.locator("nav.ranges a")
    assert links.all_inner_texts() == ["1 month", "3 months", "1 year", "all"]
    assert links.first.get_attribute("href") == f"?range=1m#pool-{pool}"
    links.nth(2).click()
    page.wait_for_url(f"**range=1y#pool-{pool}")
    assert (
        page.locator(f"section.pool[data-pool='{pool}'] nav.ranges a[aria-current]").inner_text()
        == "1 year"
    )
    assert_fits(page)


def _utc(text: str) -> str:
    from datetime import UTC, datetime

    return datetime.fromisoformat(text).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def test_a_bots_page_lists_its_games(site_sample: Site, screen: Page) -> None:
    games = site_sample.get("/players/bot-easy/games?limit=50")
    assert games["total"] >= 10
    screen.goto(site_sample.base + "/players/bot-easy")
    screenshot(screen, f"site-player-bot-easy-{width_of(screen)}")
    assert_fits(screen)
    assert "No rated games yet" not in screen.locator("body").inner_text()
    stats = site_sample.get("/players/bot-easy/stats")
    assert stats["standing"] == "bot — fixed rating 1200, not listed"
    assert screen.locator("p.bot .standing").inner_text() == f"({stats['standing']})"
    check_games_list(screen, site_sample, "bot-easy")


def test_the_chart_works_without_javascript(browser, site_sample: Site) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_sample.base + "/players/zed")
    section = page.locator("section.pool[data-pool='site']")
    section.locator("details.chart-data summary").click()
    rows = section.locator("table.chart-data tbody tr")
    history = site_sample.get("/players/zed/history/site")["items"]
    # the start, then every change (zed has few): the same numbers as the API, each
    # annulment right after the game it annuls
    assert rows.count() == len(history) + 1
    assert rows.first.locator("td").nth(1).inner_text() == history[0]["change"]["before"]
    shown = rows.evaluate_all(
        "rs => rs.slice(1).map(r => [r.dataset.game, r.className, r.cells[1].textContent])"
    )
    by_seq = sorted(history, key=lambda i: i["seq"])
    assert sorted(shown) == sorted(
        [i["change"]["game"], i["kind"], i["change"]["after"]] for i in by_seq
    )
    for n, (game, kind, _) in enumerate(shown):
        if kind == "annulment":
            assert shown[n - 1][:2] == [game, "game"]
    annulments = sum(1 for i in history if i["kind"] == "annulment")
    assert annulments == 2
    assert section.locator("table.chart-data tr.annulment").count() == annulments
    assert section.locator("svg.chart path.mark.annulment").count() == annulments
    assert section.locator("svg.chart path.mark.start").count() == 1
    # a slider whose value is there without script, but no dead tab stop
    plot = section.locator(".chart-plot")
    assert plot.get_attribute("role") == "slider"
    assert plot.get_attribute("aria-valuenow") == str(len(history) + 1)
    assert plot.get_attribute("aria-valuetext") == rows.last.get_attribute("data-readout")
    # nothing made a tab stop by script (the skip link's target and scroll regions are
    # the page's own)
    assert page.locator("[tabindex]:not(main, .scroll)").count() == 0
    context.close()


def test_games_list_pages_and_offsets(site_sample: Site, page: Page) -> None:
    api = site_sample.api
    for bad in ("9223372036854775808", "-1", "abc"):
        assert api.get(f"/api/v1/players/kai/games?offset={bad}").status_code == 422
    assert api.get("/api/v1/players/kai/games?limit=201").status_code == 422
    assert api.get("/api/v1/players/nobody/games").status_code == 404
    assert httpx.get(f"{site_sample.base}/players/kai?page=9223372036854775808").status_code == 422
    first = site_sample.get("/players/kai/games?limit=20")
    second = site_sample.get("/players/kai/games?offset=20&limit=20")
    assert [g["id"] for g in first["games"]][-1] > next(g["id"] for g in second["games"])
    page.goto(site_sample.base + "/players/kai")
    assert page.locator("nav.pager").count() == 0  # 48 games: one page


@pytest.fixture(scope="module")
def busy_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("busy")
    ledger = busy_ledger(f"sqlite:///{folder / 'busy.db'}", Path(folder))
    try:
        yield from serve(ledger)
    finally:
        ledger.dispose()


def test_a_20000_game_players_page_is_small(busy_site: Site, screen: Page) -> None:
    games = busy_site.get(f"/players/{BUSY}/games?limit=1")
    assert games["total"] == 20_000
    for path in (f"/players/{BUSY}", f"/players/{BUSY}?page=400", f"/players/{BUSY}?range=1y"):
        response = httpx.get(busy_site.base + path, timeout=60)
        assert response.status_code == 200
        assert len(response.content) < 300_000, (path, len(response.content))
    screen.goto(f"{busy_site.base}/players/{BUSY}")
    screenshot(screen, f"site-player-{BUSY}-{width_of(screen)}")
    assert_fits(screen)
    assert screen.locator("table.games tbody tr").count() == 50
    assert screen.locator("nav.pager .at").inner_text() == "page 1 of 400"
    for section in screen.locator("section.pool").all():
        rows = section.locator("table.chart-data tbody tr").count()
        assert rows <= 501  # at most 500 points and the start
    screen.locator("nav.pager a[rel=last]").click()
    screen.wait_for_url("**page=400#games")
    assert screen.locator("table.games tbody tr").last.get_attribute("data-game") == "b00000"
