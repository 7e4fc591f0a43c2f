"""The moderators' pages in Chromium: sign in with a token, the queue, a case
confirmed (the game annulled), sign out; no session → the sign-in form (a POST: 403);
a wrong CSRF token → 403; a revoked token ends the session. At 1366 and 390 px."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page

from chessrate.ledger import Ledger
from chessrate.records import GameRecord
from tests.web.conftest import Site, assert_fits, screenshot, serve, width_of

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.fixture
def moderated(tmp_path: Path) -> Iterator[tuple[Site, str]]:
    """A site ledger with two reported games, served; and a moderator token."""
    from chessrate.records import Player

    ledger = Ledger.create(f"sqlite:///{tmp_path / 'mod.db'}", "site", NOW)
    for pid, name in (("alice", "Alice Longname-Example"), ("bob", "Bob"), ("carol", "Carol")):
        ledger.players.create(Player(pid, name=name), NOW)
    for gid, white, black in (("g1", "alice", "bob"), ("g2", "bob", "carol")):
        record = GameRecord.from_mapping(
            {"id": gid, "played_at": "2026-05-01T10:00:00Z", "white": white, "black": black,
             "result": "1-0", "time_control": "180+2"}, gid,
        )  # fmt: skip
        ledger.games.submit(record, NOW)
    ledger.reviews.file_report("g1", "bob", "every move the engine's first", None, "player", NOW)
    ledger.reviews.file_report(
        "g1", "detector:stockfish", "improbable accuracy",
        {"match_rate": {"white": 0.98}, "acpl": {"white": 3.2}}, "detector", NOW,
    )  # fmt: skip
    ledger.reviews.file_report("g2", "carol", "odd", None, "player", NOW)
    token = ledger.tokens.create("moderator", "Moderator Mia", NOW)
    try:
        for site in serve(ledger):
            yield site, token
    finally:
        ledger.dispose()


def _sign_in(page: Page, site: Site, token: str) -> None:
    page.goto(f"{site.base}/moderation/sign-in")
    page.fill("#token", token)
    page.click("form.sign-in button")
    page.wait_for_url(f"{site.base}/moderation")


def test_sign_in_queue_confirm_sign_out(moderated: tuple[Site, str], screen: Page) -> None:
    site, token = moderated
    page = screen
    # without a session: the sign-in form
    page.goto(f"{site.base}/moderation")
    assert page.url == f"{site.base}/moderation/sign-in"
    page.goto(f"{site.base}/moderation/g1")
    assert page.url == f"{site.base}/moderation/sign-in"
    # a wrong token: refused
    page.fill("#token", "cr_wrong")
    page.click("form.sign-in button")
    assert "not a valid moderator token" in page.inner_text(".problem")

    _sign_in(page, site, token)
    cookie = next(c for c in page.context.cookies() if c["name"] == "chessrate_moderation")
    assert (cookie["httpOnly"], cookie["sameSite"], cookie["path"]) == (
        True,
        "Strict",
        "/moderation",
    )
    assert [
        r.get_attribute("data-game") for r in page.query_selector_all("table.queue tbody tr")
    ] == ["g1", "g2"]
    assert "Alice Longname-Example" in page.inner_text("table.queue")
    assert "Moderator Mia" in page.inner_text(".moderation-bar")
    assert_fits(page)
    screenshot(page, f"moderation-queue-{width_of(page)}")

    page.click("a.case >> text=g1")
    assert "improbable accuracy" in page.inner_text("ol.reports")
    assert "Bob" in page.inner_text("ol.reports")
    assert_fits(page)
    screenshot(page, f"moderation-case-{width_of(page)}")
    before = site.get("/players/alice")["ratings"]
    page.fill("#confirm-why", "engine use confirmed")
    page.click("button.confirm")
    page.wait_for_url(f"{site.base}/moderation/g1")
    assert page.inner_text("h1 .status") == "confirmed"
    game = site.get("/games/g1")
    assert game["annulled"] and game["annulment"]["by"] == "Moderator Mia"
    assert game["annulment"]["reason"] == "engine use confirmed"
    assert site.get("/players/alice")["ratings"] != before
    assert "engine use confirmed" in page.inner_text("ul.audit")
    assert_fits(page)

    page.click(".moderation-bar button")
    page.wait_for_url(f"{site.base}/moderation/sign-in")
    assert not [c for c in page.context.cookies() if c["name"] == "chessrate_moderation"]
    page.goto(f"{site.base}/moderation")
    assert page.url == f"{site.base}/moderation/sign-in"
    assert_fits(page)


def test_posts_need_a_session_and_the_csrf_token(moderated: tuple[Site, str], page: Page) -> None:
    site, token = moderated
    # a POST without a session: 403 page
    answer = httpx.post(f"{site.base}/moderation/g2", data={"action": "dismiss", "why": "x"})
    assert answer.status_code == 403 and "not signed in" in answer.text
    _sign_in(page, site, token)
    page.goto(f"{site.base}/moderation/g2")
    # a wrong CSRF token, sent from the page itself: 403, nothing decided
    page.eval_on_selector_all("form input[name=csrf]", 'es => es.forEach(e => e.value = "forged")')
    page.fill("#dismiss-why", "fine")
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.click("button.dismiss")
    assert posted.value.status == 403
    assert page.inner_text("h1.error") == "Forbidden"
    assert "security token" in page.inner_text("p.message")
    assert site.ledger.reviews.get("g2").status == "open"
    # the right one: dismissed
    page.goto(f"{site.base}/moderation/g2")
    page.fill("#dismiss-why", "a strong game")
    page.click("button.dismiss")
    page.wait_for_url(f"{site.base}/moderation/g2")
    assert page.inner_text("h1 .status") == "dismissed"
    # a revoked token ends the session at once
    found = site.ledger.tokens.find(token)
    assert found is not None
    site.ledger.tokens.revoke(found.id, NOW, by="test")
    page.goto(f"{site.base}/moderation")
    assert page.url == f"{site.base}/moderation/sign-in"
