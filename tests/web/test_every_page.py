"""Every page, for every system at 1366 and 390 px: each
page of the site answers, fits the window (no sideways scrolling), shows people by
name where it shows them (the id as the link's tooltip), breaks no word that fits its
line, writes negative numbers with the minus sign (U+2212), and is saved as a
screenshot (``test-output/screenshots/<system>-<page>-<width>.png``). The API's
documentation (``/docs``) is one page for every system: it is checked once per width."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import Page

from .conftest import Site, assert_fits, screenshot, width_of

SYSTEMS = ["site", "arena", "corr", "fide"]


def pages_of(site: Site, system: str) -> dict[str, str]:
    """The pages to try: name → path (players and games picked from the API)."""
    found = {"home": "/", "search": "/search?q=a", "missing": "/players/nobody-at-all",
             "how": "/how"}  # fmt: skip
    if system == "fide":
        period = site.get("/fide/periods")["periods"][0]["id"]
        listed = site.get(f"/fide/periods/{period}/list")["entries"]
        found |= {
            "periods": "/periods",
            "period": f"/periods/{period}",
            "report": f"/periods/{period}/reports/{quote(listed[0]['player'], safe='')}",
            "crosstable": f"/periods/{period}/tournaments/1",
            "player": f"/players/{quote(listed[0]['player'], safe='')}",
            "rapid-period": f"/periods/{period + 1}",
        }
        return found
    pool = site.get("/leaderboards")["pools"][0]["pool"]
    top = site.get(f"/leaderboards/{pool}?limit=1")["entries"][0]["player"]
    history = site.get(f"/players/{quote(top, safe='')}/history/{pool}")["items"]
    found |= {
        "leaderboard": f"/leaderboards/{pool}",
        "everyone": f"/leaderboards/{pool}?all=1",
        "player": f"/players/{quote(top, safe='')}",
        "game": f"/games/{quote(history[-1]['change']['game'], safe='')}",
    }
    if system == "site":
        found |= {"annulments": "/annulments", "live": "/live", "play": "/play"}
    return found


def people_shown_by_name(site: Site, page: Page) -> None:
    """Every link to a player reads as the player's name when the player has one."""
    links = page.locator("a.player").evaluate_all(
        "links => links.map(a => [a.title, a.textContent.trim()])"
    )
    names = site.ledger.players.names(title for title, _ in links if title)
    for title, text in links:
        if title in names:
            assert text == names[title], f"{page.url}: {title} shown as {text!r}"


BROKEN_WORDS = """() => {
    // Words (4+ letters) split over two lines though they fit a line of their block (in
    // a table: at all, the column could have been wider). Ids (IDS, as style.css has
    // them) may break anywhere.
    const IDS = "a.player.unnamed, h1.person small, a.case, a.live-game, code, pre";
    const broken = [], range = document.createRange();
    const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (parent.closest(IDS)) continue;
        let block = parent;
        while (getComputedStyle(block).display.startsWith("inline")) block = block.parentElement;
        const css = getComputedStyle(block);
        const room = block.clientWidth - parseFloat(css.paddingLeft)
            - parseFloat(css.paddingRight);
        for (const word of node.data.matchAll(/\\p{L}{4,}/gu)) {
            range.setStart(node, word.index);
            range.setEnd(node, word.index + word[0].length);
            const rects = [...range.getClientRects()].filter(r => r.width > 0);
            const lines = new Set(rects.map(r => Math.round(r.top))).size;
            const width = rects.reduce((sum, r) => sum + r.width, 0);
            if (lines > 1 && (width <= room || block.closest("td, th"))) broken.push(word[0]);
        }
    }
    return broken.slice(0, 10);
}"""
ASCII_MINUS = re.compile(r"(?<![\w.\-\u2212])-\d")
"""A number written with a hyphen-minus (pages write the minus sign, U+2212)."""


def typography(page: Page) -> None:
    """No word broken that fits its line; every negative number with the minus sign."""
    assert page.evaluate(BROKEN_WORDS) == [], f"{page.url}: words broken mid-word"
    text = page.locator("main").inner_text()
    found = [text[max(0, m.start() - 30) : m.end() + 10] for m in ASCII_MINUS.finditer(text)]
    assert not found, f"{page.url}: numbers with a hyphen-minus: {found[:5]}"


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_page_fits_and_shows_people_by_name(
    request: pytest.FixtureRequest, screen: Page, system: str
) -> None:
    site: Site = request.getfixturevalue(f"{system}_sample")
    width = width_of(screen)
    for name, path in pages_of(site, system).items():
        answer = screen.goto(site.base + path)
        assert answer is not None, path
        assert answer.status == (404 if name == "missing" else 200), path
        screenshot(screen, f"{system}-{name}-{width}")
        assert_fits(screen)
        people_shown_by_name(site, screen)
        typography(screen)


def test_the_api_docs_are_one_page_for_every_system_and_fit(
    request: pytest.FixtureRequest, screen: Page
) -> None:
    """``/docs`` is the Swagger UI over ``/openapi.json``. The API's routes do not depend
    on the ledger's system, so neither does the document (as asserted first): the page,
    the slowest of the site to render, is checked on the site sample only."""
    site: Site = request.getfixturevalue("site_sample")
    document = site.api.get("/openapi.json").json()
    for system in SYSTEMS:
        other: Site = request.getfixturevalue(f"{system}_sample")
        assert other.api.get("/openapi.json").json() == document, system
        assert other.api.get("/docs").text == site.api.get("/docs").text, system
    answer = screen.goto(site.base + "/docs")
    assert answer is not None and answer.status == 200
    screen.wait_for_selector(".swagger-ui .info", timeout=15000)
    screenshot(screen, f"site-docs-{width_of(screen)}")
    assert_fits(screen)
