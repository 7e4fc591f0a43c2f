"""The live games' pages in a real headless Chromium: open games with their deadlines,
an otb result awaiting confirmation, and ended games with how each ended (site S2,
S7-S9), checked against the API. The games are set up through the ledger on the
served sample (one of this module's own) with the real clock; none of them moves a
rating (void or pending)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import Browser, Page

from chessrate.ledger.live import OtbRegistration
from chessrate.records import Result, Venue
from chessrate.systems.site_live import LiveGame
from chessrate.timecontrol import parse_time_control

from .conftest import Site, screenshot, serve_sample


@pytest.fixture(scope="module")
def site_sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A site sample of this module's own: its games are recorded at the real time, which
    would move the shared sample's date (the day of its latest game) months past the
    sample's games, and so change who is active on its leaderboards."""
    yield from serve_sample("site", tmp_path_factory.mktemp("live"))


def test_live_pages_show_open_awaiting_and_ended_games(site_sample: Site, page: Page) -> None:
    live = site_sample.ledger.live
    now = datetime.now(UTC)
    unclocked = parse_time_control("-")
    live.open(LiveGame("web-open", "kai", "lars", now, unclocked), now)
    live.move("web-open", 1, "e4", "kai", now)
    live.open(
        LiveGame("web-otb", "kai", "mira", now, None, venue=Venue.OTB),
        now,
        OtbRegistration(Result.DRAW, "kai", now - timedelta(hours=2)),
    )
    long_ago = now - timedelta(minutes=5)
    live.open(LiveGame("web-aborted", "lars", "mira", long_ago, parse_time_control("60+0")),
              long_ago)  # fmt: skip
    live.sweep(now)

    page.goto(site_sample.base + "/live")
    screenshot(page, "site-live")
    open_rows = page.locator("table.open tr[data-id]")
    assert open_rows.evaluate_all("rows => rows.map(r => r.dataset.id)") == ["web-open"]
    api_open = site_sample.get("/live-games/web-open")
    assert api_open["deadline"]["player"] == "lars"
    assert api_open["deadline"]["note"] in open_rows.first.inner_text()
    awaiting = page.locator("table.awaiting tr[data-id='web-otb']")
    # who registered the result: kai, by name, the id in the link's tooltip
    assert awaiting.locator("td").nth(3).locator("a.player").get_attribute("title") == "kai"
    ended = page.locator("table.ended tr[data-id='web-aborted']")
    api_ended = site_sample.get("/live-games/web-aborted")
    assert api_ended["outcome"] == "void"
    assert ended.locator("td.outcome").inner_text() == "void"
    assert ended.locator("td.ending").inner_text() == api_ended["ending"]

    ended.locator("a.live-game").click()
    page.wait_for_url("**/live/web-aborted")
    screenshot(page, "site-live-game")
    ending = page.locator("dd.ending").inner_text()
    assert api_ended["ending"] in ending
    # who ended it, in words, once: the sweeper is the server at the deadline
    assert api_ended["ended_by"] == "sweeper"
    assert "; ended by the server at the deadline, " in ending
    assert "sweeper" not in ending and ") (" not in ending
    page.locator("dd.outcome a").click()
    page.wait_for_url("**/games/web-aborted")
    assert page.locator("dd.outcome").inner_text() == "void"

    page.goto(site_sample.base + "/live/web-open")
    assert page.locator("table.moves td", has_text="e4").count() == 1
    # the side to move, lars, by name (the id in the tooltip)
    assert page.locator("dd.deadline a.player").get_attribute("title") == "lars"
    assert page.locator("nav a", has_text="Live games").count() == 1


def test_live_gains_and_loses_rows_without_a_reload(site_sample: Site, page: Page) -> None:
    """The refresh (every few seconds; here 0.3 s) takes the server's rows: a game that
    starts appears in "Being played" with its players by name, and one that ends moves
    to "Recently ended", while the page stays the one loaded."""
    live = site_sample.ledger.live
    now = datetime.now(UTC)
    started = now - timedelta(minutes=5)
    live.open(LiveGame("web-ends", "mira", "lars", started, parse_time_control("60+0")), started)
    page.add_init_script("window.chessratePoll = 300")
    page.goto(site_sample.base + "/live")
    assert page.locator("table.open tr[data-id='web-ends']").count() == 1
    page.evaluate("window.loadedOnce = true")

    live.open(LiveGame("web-fresh", "mira", "kai", now, parse_time_control("-")), now)
    live.move("web-fresh", 1, "e4", "mira", now)
    live.sweep(now)  # web-ends waited 5 minutes for its first move: aborted (S8)
    fresh = page.locator("table.open tr[data-id='web-fresh']")
    fresh.wait_for(timeout=5000)
    page.locator("table.ended tr[data-id='web-ends']").wait_for(timeout=5000)
    assert page.locator("table.open tr[data-id='web-ends']").count() == 0
    assert page.evaluate("window.loadedOnce") is True  # no reload
    people = fresh.locator("a.player")
    assert [people.nth(n).get_attribute("title") for n in range(2)] == ["mira", "kai"]
    assert "mira" not in fresh.locator("td").nth(1).inner_text()  # by name
    # the latest refresh that changed the list says what changed
    assert re.search(r"(started|ended)\.$", page.locator("p.live-news").inner_text())


@pytest.fixture(scope="module")
def quiet_sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A site sample nobody plays on: its live lists are empty."""
    yield from serve_sample("site", tmp_path_factory.mktemp("quiet"))


@pytest.mark.parametrize("width", [390, 1366])
def test_an_empty_list_shows_its_sentence_without_headers_on_a_phone(
    quiet_sample: Site, browser: Browser, width: int
) -> None:
    """On a narrow screen a table that lists nothing shows its sentence ("No game is
    being played.") without the row of headers the screen would cut; a table with rows,
    and every table on a wide screen, keeps its headers."""
    live = quiet_sample.ledger.live
    now = datetime.now(UTC)
    if not live.count():
        live.open(LiveGame("web-one", "mira", "kai", now, parse_time_control("60+0")), now)
    page = browser.new_page(viewport={"width": width, "height": 900})
    try:
        page.goto(quiet_sample.base + "/live")
        tables = page.locator("main table")
        assert tables.count() == 3
        seen = set()
        for n in range(tables.count()):
            table = tables.nth(n)
            rows = table.locator("tbody tr")
            empty = rows.count() == 1 and rows.first.locator("td.empty").count() == 1
            seen.add(empty)
            assert table.locator("thead").is_visible() is not (empty and width < 640)
        assert seen == {True, False}  # one game being played, the other lists empty
    finally:
        page.close()
