"""Honest leaderboards in Chromium, for site, arena and corr at
1366 and 390 px: the default list leaves out a provisional / qualifying / lapsed
player that the "Everyone" toggle shows; page numbers with first/previous/next/last;
"find a player's rank" lands on the right page with the row highlighted; /how
explains the rules and a game page's rule id links to its anchor; nothing is wider
than the window."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Page

from chessrate.ledger import Ledger
from chessrate.records import Player
from chessrate.samples import load_sample

from .conftest import NOW, Site, assert_fits, screenshot, serve, width_of

POOLS = {"site": "site", "arena": "rapid", "corr": "corr"}
"""The pool each system's tests look at (arena's rapid has a qualifying player and a
lapsed member in the sample)."""


@pytest.fixture(params=list(POOLS))
def sample(request: pytest.FixtureRequest) -> tuple[str, Site]:
    """Each test that takes it runs on the site, arena and corr samples."""
    system = str(request.param)
    return system, request.getfixturevalue(f"{system}_sample")


def board(served: Site, pool: str, everyone: bool = False) -> dict[str, Any]:
    return served.get(f"/leaderboards/{pool}?limit=500&all={'true' if everyone else 'false'}")


def shown_players(page: Page) -> list[str]:
    rows = page.locator("table.board:not(.inactive) tr[data-player]")
    return [str(p) for p in rows.evaluate_all("rs => rs.map(r => r.dataset.player)")]


def left_out(served: Site, pool: str) -> list[dict[str, Any]]:
    """The entries of everyone that the default list leaves out."""
    established = {e["player"] for e in board(served, pool)["entries"]}
    return [e for e in board(served, pool, True)["entries"] if e["player"] not in established]


def test_the_default_board_lists_established_players_and_the_toggle_shows_everyone(
    sample: tuple[str, Site], screen: Page
) -> None:
    system, served = sample
    pool = POOLS[system]
    default, everyone = board(served, pool), board(served, pool, True)
    missing = left_out(served, pool)
    assert missing, f"the {system} sample has players who are not established"
    states = {e["state"] for e in missing}
    if system == "site":
        assert any(e["display"].endswith("?") for e in missing)
    if system == "arena":  # a qualifying player and a rated member whose membership ended
        assert {"qualifying", "rated"} <= states
    if system == "corr":
        assert states == {"provisional"}

    width = width_of(screen)
    screen.goto(f"{served.base}/leaderboards/{pool}")
    assert_fits(screen)
    screenshot(screen, f"{system}-leaderboard-{width}")
    assert shown_players(screen) == [e["player"] for e in default["entries"]]
    assert not {e["player"] for e in missing} & set(shown_players(screen))
    assert screen.locator("nav.list-kind a.current").inner_text() == "Established players"
    listed = screen.locator("p.listed")
    assert listed.inner_text().startswith(default["listed"])
    assert listed.locator("a[href='/how']").count() == 1
    count = len(default["entries"])
    assert screen.locator("p.range").inner_text() == f"1–{count} of {count}"

    screen.locator("nav.list-kind a", has_text="Everyone").click()
    screen.wait_for_url(f"**/leaderboards/{pool}?all=1")
    assert_fits(screen)
    screenshot(screen, f"{system}-leaderboard-everyone-{width}")
    assert screen.locator("nav.list-kind a.current").inner_text() == "Everyone"
    assert shown_players(screen) == [e["player"] for e in everyone["entries"]]
    for entry in missing:
        row = screen.locator(f"table.board tr[data-player='{entry['player']}']")
        assert row.locator("td.rating").inner_text() == entry["display"]
        assert row.locator("td.state").inner_text() == entry["state_words"]
    words = {e["state_words"] for e in missing}
    if system == "site":
        assert any(w.startswith("provisional, ") and w.endswith(" of 10 games") for w in words)
    if system == "arena":
        assert any(w.startswith("qualifying: ") and w.endswith(" of 5") for w in words)

    screen.locator("nav.list-kind a", has_text="Established players").click()
    screen.wait_for_url(f"**/leaderboards/{pool}")
    assert shown_players(screen) == [e["player"] for e in default["entries"]]


def test_the_home_page_shows_established_players_and_links_to_everyone(
    sample: tuple[str, Site], screen: Page
) -> None:
    system, served = sample
    pool = POOLS[system]
    screen.goto(served.base + "/")
    assert_fits(screen)
    screenshot(screen, f"{system}-home-{width_of(screen)}")
    table = screen.locator(f"table.board[data-pool='{pool}']")
    shown = table.locator("tr[data-player]").evaluate_all("rs => rs.map(r => r.dataset.player)")
    assert shown == [e["player"] for e in board(served, pool)["entries"][:10]]
    screen.locator(f"#pool-{pool} a.everyone").click()
    screen.wait_for_url(f"**/leaderboards/{pool}?all=1")


def test_find_a_players_rank_lands_on_the_row(sample: tuple[str, Site], screen: Page) -> None:
    system, served = sample
    pool = POOLS[system]
    default = board(served, pool)["entries"]
    target = default[min(3, len(default) - 1)]
    screen.goto(f"{served.base}/leaderboards/{pool}")
    screen.fill("form.find input[name=find]", target["name"] or target["player"])
    screen.locator("form.find button").click()
    screen.wait_for_url(f"**found={quote(target['player'])}#rank-{target['rank']}")
    found = screen.locator("table.board tr.found")
    assert found.count() == 1
    assert found.get_attribute("data-player") == target["player"]
    assert found.get_attribute("id") == f"rank-{target['rank']}"

    # a player the default list leaves out: the page says why, and finds them in everyone
    missing = left_out(served, pool)[0]
    screen.goto(f"{served.base}/leaderboards/{pool}")
    screen.fill("form.find input[name=find]", missing["player"])
    screen.locator("form.find button").click()
    notice = screen.locator("p.notice")
    assert f"player {missing['player']} is not on the {pool} list" in notice.inner_text()
    assert_fits(screen)
    screenshot(screen, f"{system}-leaderboard-not-found-{width_of(screen)}")
    notice.locator("a").click()
    screen.wait_for_url(f"**all=1**#rank-{missing['rank']}")
    found = screen.locator("table.board tr.found")
    assert found.get_attribute("data-player") == missing["player"]
    assert found.locator("td").first.inner_text() == str(missing["rank"])
    assert_fits(screen)
    screenshot(screen, f"{system}-leaderboard-found-{width_of(screen)}")


def test_how_explains_the_rules_and_a_games_rule_links_there(
    sample: tuple[str, Site], screen: Page
) -> None:
    system, served = sample
    pool = POOLS[system]
    first = board(served, pool)["entries"][0]["player"]
    change = served.get(f"/players/{quote(first)}/history/{pool}")["items"][-1]["change"]
    rule_id = change["rule"].split()[-1]
    screen.goto(f"{served.base}/games/{quote(change['game'])}")
    assert_fits(screen)
    link = screen.locator("article.change a.rule").first
    assert link.get_attribute("href") == f"/how#{rule_id}"
    link.click()
    screen.wait_for_url(f"**/how#{rule_id}")
    assert screen.evaluate("document.querySelector(':target').id") == rule_id
    assert screen.locator(f"#{rule_id}").is_visible()
    assert_fits(screen)
    screenshot(screen, f"{system}-how-{width_of(screen)}")
    text = screen.locator("main").inner_text()
    expected = {
        "site": ["fewer than 10 rated games", "1534?", "last 90 days", "0.75"],
        "arena": ["qualifying", "training rating 1500", "K is 20 in rapid", "membership"],
        "corr": ["1850P (12)", "fewer than 25 counted games", "never loses rating"],
    }[system]
    for words in expected:
        assert words in text, words
    assert screen.locator("header nav a[href='/how']").inner_text() == "How ratings work"


EXTRA = 120
"""Players added to the crowded site ledger (a list of several pages)."""


@pytest.fixture(scope="module")
def crowded_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The site sample plus 120 players with an imported site Elo (on the list of
    everyone, not established: no rated game in the ledger)."""
    folder: Path = tmp_path_factory.mktemp("crowded")
    ledger = Ledger.create(f"sqlite:///{folder / 'site.db'}", "site", NOW)
    load_sample(ledger, NOW)
    fields = [
        {"id": f"extra-{n:03}", "name": f"Extra {n:03}", "rating_site": f"{1000 + n}"}
        for n in range(EXTRA)
    ]
    extra = [Player.from_mapping({**f, "games_site": "20"}, "test") for f in fields]
    ledger.games.import_all(extra, (), (), (), None, NOW)
    try:
        yield from serve(ledger)
    finally:
        ledger.dispose()


def test_page_numbers_first_previous_next_last(crowded_site: Site, screen: Page) -> None:
    everyone = board(crowded_site, "site", True)
    total = everyone["total"]
    assert total > 150
    base = f"{crowded_site.base}/leaderboards/site"
    screen.goto(f"{base}?all=1")
    assert screen.locator("p.range").inner_text() == f"1–50 of {total}"
    pager = screen.locator("nav.pager")
    assert pager.locator(".current").inner_text() == "1"
    assert pager.locator("a.first").count() == 0 and pager.locator("a.previous").count() == 0
    assert_fits(screen)
    screenshot(screen, f"site-leaderboard-pages-{width_of(screen)}")

    pager.locator("a.next").click()
    screen.wait_for_url("**?all=1&page=2")
    assert screen.locator("p.range").inner_text() == f"51–100 of {total}"
    assert screen.locator("table.board td.num").first.inner_text() == "51"
    assert shown_players(screen) == [e["player"] for e in everyone["entries"][50:100]]
    last_page = -(-total // 50)
    screen.locator("nav.pager a.last").click()
    screen.wait_for_url(f"**?all=1&page={last_page}")
    first_row = (last_page - 1) * 50 + 1
    assert screen.locator("p.range").inner_text() == f"{first_row}–{total} of {total}"
    assert screen.locator("nav.pager a.next").count() == 0
    screen.locator("nav.pager a.previous").click()
    screen.wait_for_url(f"**?all=1&page={last_page - 1}")
    screen.locator("nav.pager a.first").click()
    screen.wait_for_url("**/leaderboards/site?all=1")
    screen.locator("nav.pager a.page", has_text="3").click()
    screen.wait_for_url("**?all=1&page=3")
    assert screen.locator("table.board td.num").first.inner_text() == "101"

    screen.goto(f"{base}?all=1&offset=50")  # an old link
    assert screen.locator("table.board td.num").first.inner_text() == "51"
    screen.goto(f"{base}?all=1&page={last_page + 5}")
    assert "No players on this page" in screen.locator("p.range").inner_text()
    screen.locator("nav.pager a.first").click()
    screen.wait_for_url("**/leaderboards/site?all=1")
    answer = screen.goto(f"{base}?page=9223372036854775808")
    assert answer is not None and answer.status == 422
    assert_fits(screen)

    # the added players are not established (no game), so the default list is short
    screen.goto(base)
    assert not any(p.startswith("extra-") for p in shown_players(screen))
    # find one on page 3: that page, the row highlighted and scrolled into view
    target = everyone["entries"][120]
    screen.goto(f"{base}?all=1")
    screen.fill("form.find input[name=find]", target["name"])
    screen.locator("form.find button").click()
    screen.wait_for_url(f"**?all=1&page=3&found={target['player']}#rank-121")
    found = screen.locator("table.board tr.found")
    assert found.get_attribute("data-player") == target["player"]
    top = found.evaluate("r => r.getBoundingClientRect().top")
    assert -1 <= top < screen.evaluate("window.innerHeight")
    assert screen.locator("nav.pager .current").inner_text() == "3"
    assert_fits(screen)
    screenshot(screen, f"site-leaderboard-found-page-{width_of(screen)}")
