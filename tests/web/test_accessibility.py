"""axe-core (vendored: ``tests/web/vendor/axe-core``) on every page type, at 1366 and
390 px: no violation of any impact. One browser context per width, one load per page
type, axe injected after the load (the context bypasses the pages' CSP, which allows
no inline script). The same loads check that no page asks for a missing file (the
favicon), that each page's title is words (not markup), that the first Tab reaches
the skip link, and that the API docs (whose vendored Swagger UI markup is left out of
the run) link back to the site.

The pages are those of the shared site and fide samples, and what the samples lack (a
game with its moves, a live game, a seek, a reported game) on a small ledger of this
module's own."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page

from chessrate.ledger import Ledger
from chessrate.records import GameRecord, Player
from chessrate.systems.site_live import LiveGame
from chessrate.timecontrol import parse_time_control

from .conftest import NOW, Site, serve, sign_in

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
WIDTHS = [1366, 390]


def site_pages(site: Site) -> dict[str, str]:
    """The site sample's page types (name → path)."""
    pool = site.get("/leaderboards")["pools"][0]["pool"]
    top = site.get(f"/leaderboards/{pool}?limit=1")["entries"][0]["player"]
    history = site.get(f"/players/{quote(top, safe='')}/history/{pool}")["items"]
    game = history[-1]["change"]["game"]
    return {
        "home": "/",
        "leaderboard": f"/leaderboards/{pool}",
        "everyone": f"/leaderboards/{pool}?all=1",
        "player": f"/players/{quote(top, safe='')}",
        "game": f"/games/{quote(game, safe='')}",
        "live": "/live",
        "how": "/how",
        "search": "/search?q=a",
        "annulments": "/annulments",
        "error": "/players/nobody-at-all",
    }


def fide_pages(site: Site) -> dict[str, str]:
    period = site.get("/fide/periods")["periods"][0]["id"]
    first = quote(site.get(f"/fide/periods/{period}/list")["entries"][0]["player"], safe="")
    return {
        "periods": "/periods",
        "period": f"/periods/{period}",
        "report": f"/periods/{period}/reports/{first}",
        "crosstable": f"/periods/{period}/tournaments/1",
        "card": f"/players/{first}",
    }


@pytest.fixture(scope="module")
def extras(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, str]]:
    """What the samples lack, on a small site ledger of this module's own (not a
    sample: a sample's lists would move with games recorded at the real time): a game
    with its moves, reported; a live game under way; an open seek; a moderator's token."""
    folder = tmp_path_factory.mktemp("a11y")
    ledger = Ledger.create(f"sqlite:///{folder / 'a11y.db'}", "site", NOW)
    for pid, name in (("kai", "Kai Andersen"), ("lars", "Lars Berg"), ("mira", "Mira Chen")):
        ledger.players.create(Player(pid, name=name), NOW)
    game = {"id": "g1", "played_at": "2026-05-01T10:00:00Z", "white": "kai", "black": "lars",
            "result": "1-0", "time_control": "180+2", "moves": ["e4", "e5", "Nf3"]}  # fmt: skip
    ledger.games.submit(GameRecord.from_mapping(game, "g1"), NOW)
    ledger.reviews.file_report("g1", "lars", "too accurate", None, "player", NOW, accused="kai")
    now = datetime.now(UTC)
    ledger.live.open(LiveGame("a11y-live", "kai", "lars", now, parse_time_control("180+2")), now)
    ledger.live.move("a11y-live", 1, "e4", "kai", now)
    ledger.seeks.create("mira", parse_time_control("600+0"), False, 100, 200, now)
    token = ledger.tokens.create("moderator", "Moderator Mo", NOW)
    try:
        for site in serve(ledger):
            yield site, token
    finally:
        ledger.dispose()


def axe_violations(page: Page, exclude: str | None = None, off: tuple[str, ...] = ()) -> list[str]:
    """axe-core's violations on the loaded page (less what ``exclude`` selects, with the
    rules ``off`` not run), each as ``rule (impact): help — nodes, first targets``; and
    a title that is empty or holds markup."""
    title = page.title()
    markup = [f"the title is markup: {title!r}"] if "<" in title or not title else []
    page.add_script_tag(path=str(AXE))
    context: Any = {"exclude": [[exclude]]} if exclude else {"include": [["html"]]}
    options = {"resultTypes": ["violations"], "rules": {r: {"enabled": False} for r in off}}
    found: list[dict[str, Any]] = page.evaluate(
        """async ([context, options]) => {
            const result = await axe.run(context, options);
            return result.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                targets: v.nodes.slice(0, 3).map(n => n.target.join(" ")),
                count: v.nodes.length,
            }));
        }""",
        [context, options],
    )
    return markup + [
        f"{v['id']} ({v['impact']}): {v['help']} — {v['count']} nodes, first "
        + ", ".join(v["targets"])
        for v in found
    ]


@pytest.mark.parametrize("width", WIDTHS, ids=[str(w) for w in WIDTHS])
def test_every_page_type_passes_axe(
    browser: Browser, site_sample: Site, fide_sample: Site, extras: tuple[Site, str], width: int
) -> None:
    site = site_sample
    extra, token = extras
    phone = width < 600
    context = browser.new_context(
        viewport={"width": width, "height": 844 if phone else 900},
        is_mobile=phone,
        bypass_csp=True,
    )
    page = context.new_page()
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    problems: dict[str, list[str]] = {}
    try:
        loads = [(site, name, path) for name, path in site_pages(site).items()]
        loads += [(fide_sample, name, path) for name, path in fide_pages(fide_sample).items()]
        for served, name, path in loads:
            page.goto(served.base + path)
            if name == "home":  # the first Tab reaches the skip link, which leads to <main>
                page.keyboard.press("Tab")
                assert page.evaluate("document.activeElement.textContent.trim()") == (
                    "Skip to the content"
                )
            problems[f"{served.ledger.system_id} {name}"] = axe_violations(page)
        # a game's board, a live game, a seek; the moderators' pages: sign-in, the
        # queue, a case, a confirmation's first step
        more = {"board": "/games/g1", "live-game": "/live/a11y-live", "seeks": "/play",
                "moderation sign-in": "/moderation/sign-in"}  # fmt: skip
        for name, path in more.items():
            page.goto(extra.base + path)
            problems[name] = axe_violations(page)
        sign_in(page, extra.base, token)
        problems["moderation queue"] = axe_violations(page)
        page.goto(extra.base + "/moderation/g1")
        problems["moderation case"] = axe_violations(page)
        page.fill("#confirm-why", "checked")
        page.click("button.confirm")
        page.wait_for_selector("section.effects")
        problems["moderation confirm"] = axe_violations(page)
        # the API docs: the site's header around the vendored Swagger UI (left out)
        page.goto(site.base + "/docs")
        page.wait_for_selector(".swagger-ui .info", state="attached", timeout=30000)
        # (the page's main landmark is the UI's own <main id="operations">, left out)
        problems["docs"] = axe_violations(page, "#swagger-ui", off=("landmark-one-main",))
        back = page.locator("header a[href='/']").count()
    finally:
        context.close()
    failures = {name: found for name, found in problems.items() if found}
    report = "\n".join(f"{name}:\n  " + "\n  ".join(found) for name, found in failures.items())
    assert not failures, f"axe-core at {width} px:\n{report}"
    assert back >= 1, "/docs has no link back to the site"
    icon = site.api.get("/favicon.ico")  # for browsers that ask without a link
    assert (icon.status_code, icon.headers["content-type"]) == (200, "image/svg+xml")
    assert not [url for url in missing if "/players/nobody-at-all" not in url], missing
