"""Every stored id is reachable. Ids stored before ids were checked
on input (new ids refuse ``/`` and control characters) still have
pages: the links the pages make reach the player and the game, through a real
server (uvicorn decodes the path once, as browsers and proxies expect)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Page

from chessrate.ledger import Ledger
from chessrate.records import GameRecord, Player

from .conftest import NOW, Site, assert_fits, serve

ODD_IDS = ["a/b", "with space", "50%", "q?x=1", "hash#1", "Новак", "dots..", "x%2Fy",
           "<b>&amp;", "y" * 120]  # fmt: skip


@pytest.fixture(scope="module")
def odd_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder: Path = tmp_path_factory.mktemp("odd")
    ledger = Ledger.create(f"sqlite:///{folder / 'odd.db'}", "site", NOW)
    ledger.players.create(Player("bob", name="Bob"), NOW)
    for n, odd in enumerate(ODD_IDS):
        ledger.players.create(Player(odd, name=f"Odd {odd}"), NOW)
        game = GameRecord.from_mapping(
            {"id": f"game {n}", "white": "x", "black": "bob", "result": "1-0",
             "played_at": f"2026-05-{n + 1:02}T10:00:00Z", "time_control": "300+3"},
            "test",
        )  # fmt: skip
        # as an older ledger stored them: records built past the id check ("/")
        ledger.games.submit(replace(game, id=f"game {odd}", white=odd), NOW)
    try:
        yield from serve(ledger)
    finally:
        ledger.dispose()


@pytest.mark.parametrize("odd", ODD_IDS)
def test_every_stored_id_is_reachable_from_the_pages(odd_site: Site, page: Page, odd: str) -> None:
    answer = page.goto(f"{odd_site.base}/games/{quote(f'game {odd}', safe='')}")
    assert answer is not None and answer.status == 200
    link = page.locator(f"a.player[title='{odd}']" if "'" not in odd else "a.player").first
    assert link.inner_text() == f"Odd {odd}"
    link.click()
    page.wait_for_load_state()
    assert page.locator("h1").first.inner_text().startswith(f"Odd {odd}")
    assert_fits(page)


def test_an_odd_id_is_found_by_search_and_escaped(odd_site: Site, page: Page) -> None:
    page.goto(f"{odd_site.base}/search?q={quote('<b>&amp;')}")
    assert page.locator("ul.found li[data-player]").count() == 1
    assert page.locator("ul.found a.player").inner_text() == "Odd <b>&amp;"
    page.goto(f"{odd_site.base}/search?q={quote('%')}")
    assert page.locator("ul.found li[data-player]").evaluate_all(
        "items => items.map(i => i.dataset.player)"
    ) == ["50%", "x%2Fy"]


def test_a_120_character_name_wraps_on_a_phone(odd_site: Site, phone: Page) -> None:
    long = "y" * 120
    for path in (f"/players/{long}", f"/games/game%20{long}", f"/search?q={long}", "/"):
        phone.goto(odd_site.base + path)
        assert_fits(phone)
