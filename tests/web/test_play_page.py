"""The /play page in a real headless Chromium at 1366 and 390 px: the open
seeks with their players by name, site Elo, control as players write it, wait and
window; with ``?player=`` the player's own seeks and live game. The seeks are made
through the ledger with the real clock, none of them pairable (the served app runs
its pairing pass)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Page

from chessrate.ledger import Ledger
from chessrate.records import Player
from chessrate.timecontrol import parse_time_control

from .conftest import NOW, Site, assert_fits, screenshot, serve, width_of


@pytest.fixture(scope="module")
def seeking(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder: Path = tmp_path_factory.mktemp("play")
    ledger = Ledger.create(f"sqlite:///{folder / 'site.db'}", "site", NOW)
    for data in (
        {"id": "ann", "name": "Ann Long-Surname Example", "rating_site": "1500", "games_site": "3"},
        {"id": "ben", "name": "Ben Example", "rating_site": "2400", "games_site": "40"},
        {"id": "cat", "name": "Cat"},
        {"id": "robo", "name": "Robo", "bot": "true", "bot_rating": "1450"},
    ):
        ledger.players.create(Player.from_mapping(data, "test"), NOW)
    seeks, now = ledger.seeks, datetime.now(UTC)
    blitz = parse_time_control("180+2")
    seeks.play_bot("ann", parse_time_control("-"), True, None, None, now)  # ann plays robo
    seeks.create("ann", blitz, True, None, None, now)  # waits: ann is playing
    seeks.create("ben", blitz, True, None, None, now)  # 900 above ann: never within 500
    seeks.create("cat", parse_time_control("600+0"), False, 1400, 1600, now)
    try:
        yield from serve(ledger)
    finally:
        ledger.dispose()


def test_play_shows_the_open_seeks(seeking: Site, screen: Page) -> None:
    screen.goto(seeking.base + "/play")
    screenshot(screen, f"site-play-{width_of(screen)}")
    assert_fits(screen)
    rows = screen.locator("table.seeks.open tbody tr")
    api = seeking.get("/seeks")["seeks"]
    assert rows.count() == len(api) == 3
    first = rows.nth(0)
    assert first.locator("a.player").inner_text() == "Ann Long-Surname Example"
    assert first.locator("a.player").get_attribute("title") == "ann"
    assert first.locator("td.elo").inner_text() == "1500?"  # S6: 3 games
    assert first.locator("td.control").inner_text() == "3+2"
    assert re.fullmatch(r"±\d+", first.locator("td.window").inner_text())  # it widens
    assert rows.nth(1).locator("td.elo").inner_text() == "2400"
    cat = rows.nth(2).inner_text()
    assert "casual" in cat and "1400–1600" in cat and "10+0" in cat
    assert screen.locator("nav a", has_text="Play").count() == 1


def test_play_for_a_player_shows_their_seeks_and_game(seeking: Site, screen: Page) -> None:
    screen.goto(seeking.base + "/play?player=ann")
    screenshot(screen, f"site-play-player-{width_of(screen)}")
    assert_fits(screen)
    mine = screen.locator("table.seeks.mine tbody tr")
    assert mine.count() == 2
    game = seeking.get("/seeks?player=ann&status=paired")["seeks"][0]["live_game"]
    link = screen.locator("p.playing a.live-game")
    assert link.get_attribute("href") == f"/live/{game}"
    assert "Robo" in screen.locator("p.playing").inner_text()
    paired = screen.locator(f"table.seeks.mine tr.paired a.live-game[href='/live/{game}']")
    assert paired.count() == 1
    waiting = screen.locator("table.seeks.mine tr.open td.status").inner_text()
    assert re.fullmatch(r"open \(±\d+\)", waiting)
    link.click()
    screen.wait_for_url(f"**/live/{game}")


def test_play_for_a_stranger_is_404(seeking: Site, page: Page) -> None:
    answer = page.goto(seeking.base + "/play?player=nobody")
    assert answer is not None and answer.status == 404
