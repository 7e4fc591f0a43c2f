"""A name or a reason holding a bidirectional control (any text may: a name is free
text, a report's reason anyone's) never turns the page's words around it, in a real
headless Chromium: a name with an override left open (U+202E) stays inside its link,
and the words after it read as written; a reason is shown set apart without it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from chessrate.ledger import Ledger
from chessrate.records import GameRecord, Player

from .conftest import NOW, Site, serve

OVERRIDE = "\u202e"


@pytest.fixture(scope="module")
def bidi_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder: Path = tmp_path_factory.mktemp("bidi")
    ledger = Ledger.create(f"sqlite:///{folder / 'bidi.db'}", "site", NOW)
    ledger.players.create(Player("zed", name=f"{OVERRIDE}Zed Moor"), NOW)
    ledger.players.create(Player("bob", name="Bob Hale"), NOW)
    game = GameRecord.from_mapping(
        {"id": "g1", "white": "zed", "black": "bob", "result": "1-0",
         "played_at": "2026-05-01T10:00:00Z", "time_control": "300+3"}, "test",
    )  # fmt: skip
    ledger.games.submit(game, NOW)
    try:
        yield from serve(ledger)
    finally:
        ledger.dispose()


def test_a_name_with_an_override_does_not_turn_the_sentence_around(
    bidi_site: Site, page: Page
) -> None:
    page.goto(f"{bidi_site.base}/games/g1")
    players = page.locator("dd", has=page.locator("a.player[title='zed']"))
    assert players.inner_text().endswith("(White) – Bob Hale (Black)")
    # where the words after the link are drawn: to its right, in the order written
    placed = players.evaluate(
        """dd => {
            const link = dd.querySelector("a.player[title='zed']");
            const after = link.nextSibling;  // the text " (White) – "
            const range = document.createRange();
            range.setStart(after, after.textContent.indexOf("(White)"));
            range.setEnd(after, after.textContent.indexOf("(White)") + 1);  // its "("
            const bob = dd.querySelector("a.player[title='bob']").getBoundingClientRect();
            return {link: link.getBoundingClientRect().right,
                    paren: range.getBoundingClientRect().left, bob: bob.left};
        }"""
    )
    assert placed["link"] <= placed["paren"] + 1 < placed["bob"], placed
