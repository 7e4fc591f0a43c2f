"""The moderators' pages in Chromium: sign in with a token, the queue, a case (the
accused by name, the moves on a board with the suspicious one marked, the accused's
record, every report) confirmed in two steps (the game annulled), sign out; no session
→ the sign-in form (a POST: 403); a wrong CSRF token → 403; a revoked token ends the
session; a moderator who reported the game cannot confirm it; a session cookie copied
before sign-out is refused after it. At 1366 and 390 px."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from chessrate.fairplay import DetectorRules
from chessrate.ledger import Ledger
from chessrate.records import GameRecord
from tests.web.conftest import Site, assert_fits, screenshot, serve, sign_in, width_of

NOW = datetime(2026, 6, 1, tzinfo=UTC)
MOVES = [
    "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1",
    "b7b5", "a4b3", "d7d6", "c2c3", "e8g8", "h2h3", "c6a5", "b3c2", "c7c5", "d2d4", "d8c7",
]  # fmt: skip
SUSPICIOUS = 21  # d2d4, White's 11th move


def evidence_v2(flagged: bool, suspicious: int | None = SUSPICIOUS) -> dict[str, Any]:
    """A version-2 analysis of MOVES: White flagged (or not), one suspicious move."""

    def side(name: str, score: float, flag: bool) -> dict[str, Any]:
        return {
            "side": name, "rating": 1500, "moves": 3, "matches": 3, "match_rate": 1.0,
            "expected_match_rate": 0.45, "loss": 0.0, "expected_loss": 0.05, "score": score,
            "window": None, "flagged": flag, "reason": "choices" if flag else None,
            "choice_score": 4.0 if flag else 0.5, "outside_rate": 0.0,
            "expected_outside_rate": 0.4,
        }  # fmt: skip

    moves = [
        {"ply": n, "played": m, "best": "d2d4" if n == 17 else m, "loss": 0.02 if n == 17 else 0,
         "expected": 0.4, "counted": n >= 17, "suspicious": n == suspicious}
        for n, m in enumerate(MOVES, 1)
    ]  # fmt: skip
    return {
        "version": 2, "engine": "Stockfish 15.1", "limits": DetectorRules().limits(),
        "complete": True,
        "white": side("white", 4.3 if flagged else 0.8, flagged),
        "black": side("black", 0.2, False), "flagged": ["white"] if flagged else [],
        "moves": moves,
    }  # fmt: skip


@pytest.fixture
def moderated(tmp_path: Path) -> Iterator[tuple[Site, str]]:
    """A site ledger with two reported games, served; and a moderator token."""
    from chessrate.records import Player

    ledger = Ledger.create(f"sqlite:///{tmp_path / 'mod.db'}", "site", NOW)
    for pid, name in (("alice", "Alice Longname-Example"), ("bob", "Bob"), ("carol", "Carol")):
        ledger.players.create(Player(pid, name=name), NOW)
    games = [("g0", "alice", "carol"), ("g1", "alice", "bob"), ("g2", "bob", "carol")]
    for gid, white, black in games:
        record = GameRecord.from_mapping(
            {"id": gid, "played_at": "2026-05-01T10:00:00Z", "white": white, "black": black,
             "result": "1-0", "time_control": "180+2"}, gid,
        )  # fmt: skip
        ledger.games.submit(record, NOW)
    # alice's record: g0 (not flagged, version 1 evidence) and g1 (flagged, version 2)
    ledger.analyses.store(  # g0 analysed by an earlier release, shallower
        "g0", "Stockfish 15.1", {**DetectorRules().limits(), "depth": 9},
        {"engine": "Stockfish 15.1", "white": {"side": "white", "moves": 20, "match_rate": 0.5,
         "acpl": 30.1}, "black": {"side": "black", "match_rate": 0.4, "acpl": 40.0},
         "flagged": [], "complete": True, "moves": [[17, "e2e4", "d2d4", 12]]},
        False, None, NOW,
    )  # fmt: skip
    ledger.analyses.store("g1", "Stockfish 15.1", DetectorRules().limits(), evidence_v2(True),
                          True, None, NOW)  # fmt: skip
    ledger.reviews.file_report(
        "g1", "bob", "every move the engine's first", None, "player", NOW, accused="alice"
    )
    ledger.reviews.file_report(
        "g1", "detector:stockfish", "improbable accuracy", evidence_v2(True), "detector", NOW,
        accused="alice",
    )  # fmt: skip
    ledger.reviews.file_report(  # a report from before reports named the accused
        "g1", "detector:old", "old style",
        {"match_rate": {"white": 0.98}, "acpl": {"white": 3.2}}, "detector", NOW,
    )  # fmt: skip
    ledger.reviews.file_report("g2", "carol", "odd", None, "player", NOW)
    token = ledger.tokens.create("moderator", "Moderator Mia", NOW)
    try:
        for site in serve(ledger):
            yield site, token
    finally:
        ledger.dispose()


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

    sign_in(page, site.base, token)
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
    accused = page.locator("table.queue tr[data-game='g1'] td.accused")
    assert accused.inner_text() == "Alice Longname-Example"
    assert "Moderator Mia" in page.inner_text(".moderation-bar")
    assert_fits(page)
    screenshot(page, f"moderation-queue-{width_of(page)}")

    page.click("a.case >> text=g1")
    # the accused, by name, linked to their page
    accused = page.locator("p.accused").first
    assert accused.inner_text() == "Accused: Alice Longname-Example (White)"
    assert accused.locator("a.player").get_attribute("href") == "/players/alice"
    # the board before the suspicious move, and the move marked in the list
    board = page.locator("figure.chessboard")
    assert board.get_attribute("data-ply") == str(SUSPICIOUS)
    assert board.get_attribute("data-suspicious") == "true"
    assert board.locator("svg").count() == 1 and board.locator("svg .arrow").count() >= 1
    assert "Before 11. d4 (suspicious)" in board.inner_text()
    marked = page.locator("table.moves td.suspicious")
    assert marked.count() == 1 and marked.get_attribute("data-ply") == str(SUSPICIOUS)
    assert "d4" in marked.inner_text() and "suspicious" in marked.inner_text()
    # each side's numbers in words, and why the flagged one is flagged
    white = page.locator("table.sides tr[data-side='white']").inner_text()
    assert "choice score 4.0, outside the engine's two best 0% (expected 40%)" in white
    assert "flagged (by its choices over the whole game)" in white
    assert "flagged" not in page.locator("table.sides tr[data-side='black'] td").nth(3).inner_text()
    # another move: its position, from the list's link
    page.click("table.moves td[data-ply='17'] a")
    assert page.locator("figure.chessboard").get_attribute("data-ply") == "17"
    assert page.locator("figure.chessboard").get_attribute("data-best") == "d2d4"
    # alice's record: both analysed games, newest first, g1 flagged
    record = page.locator("section.record[data-player='alice'] tbody tr")
    assert [record.nth(i).get_attribute("data-game") for i in range(record.count())] == [
        "g1", "g0",
    ]  # fmt: skip
    assert "flagged" in record.nth(0).inner_text() and "score 4.3" in record.nth(0).inner_text()
    assert "ACPL 30.1" in record.nth(1).inner_text() and "no" in record.nth(1).inner_text()
    assert "otherwise" not in record.nth(0).inner_text()
    assert "depth 9, now 10; not in the detector's record" in record.nth(1).inner_text()
    # every report: by whom (name, source), when, reason, accused
    reports = page.locator("ol.reports > li")
    assert reports.count() == 3
    first = reports.nth(0).inner_text()
    assert "Bob (player)" in first and "every move the engine's first" in first
    assert "Accused: Alice Longname-Example" in first
    assert "detector:stockfish (detector)" in reports.nth(1).inner_text()
    assert "Accused: not named" in reports.nth(2).inner_text()
    assert_fits(page)
    screenshot(page, f"moderation-case-{width_of(page)}")
    before = site.get("/players/alice")["ratings"]
    # confirming takes two steps: the first says what will happen and changes nothing
    page.fill("#confirm-why", "engine use confirmed")
    page.click("button.confirm")
    effects = page.inner_text("section.effects")
    assert "annuls the game" in effects
    assert "Alice Longname-Example" in effects and "Bob" in effects
    assert "engine use confirmed" in effects
    assert site.ledger.reviews.get("g1").status == "open"
    assert not site.get("/games/g1")["annulled"]
    assert_fits(page)
    screenshot(page, f"moderation-confirm-{width_of(page)}")
    page.click("button.confirm-final")
    page.wait_for_url(f"{site.base}/moderation/g1")
    assert page.inner_text("h1 .status") == "confirmed"
    game = site.get("/games/g1")
    assert game["annulled"] and game["annulment"]["by"] == "Moderator Mia"
    assert game["annulment"]["reason"] == "engine use confirmed"
    assert site.get("/players/alice")["ratings"] != before
    assert "engine use confirmed" in page.inner_text("ul.audit")
    # the audit names people: bob's report by his name, his id in the link's tooltip
    assert page.locator("ul.audit a.player[title='bob']").count() >= 1
    assert " bob · " not in page.inner_text("ul.audit")
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
    sign_in(page, site.base, token)
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


def test_a_reporter_cannot_confirm_and_sign_out_ends_the_session(
    moderated: tuple[Site, str], page: Page, browser: Browser
) -> None:
    site, token = moderated
    # Mia's token files bob's report on g2: she may not confirm that case
    answer = site.api.post(
        "/api/v1/games/g2/reports", json={"by": "bob", "reason": "mine"},
        headers={"Authorization": f"Bearer {token}"},
    )  # fmt: skip
    assert answer.status_code == 201, answer.text
    assert answer.json()["accused"] == "carol"  # bob played g2: his opponent
    sign_in(page, site.base, token)
    page.goto(f"{site.base}/moderation/g2")
    assert "filed through your token" in page.inner_text("p.duty")
    assert page.locator("button.confirm").count() == 0
    csrf = page.locator("input[name=csrf]").first.get_attribute("value")
    cookie = next(c for c in page.context.cookies() if c["name"] == "chessrate_moderation")
    jar = {"chessrate_moderation": cookie["value"]}
    for step in ("", "final"):  # neither step
        forged = httpx.post(
            f"{site.base}/moderation/g2",
            data={"csrf": csrf, "action": "confirm", "step": step, "why": "x"}, cookies=jar,
        )  # fmt: skip
        assert forged.status_code == 403 and "cannot confirm this case" in forged.text
    assert site.ledger.reviews.get("g2").status == "open"
    # a case whose analysis is old (version 1) evidence shows what it holds, no board
    site.ledger.reviews.file_report("g0", "bob", "odd", None, "player", NOW)
    old = httpx.get(f"{site.base}/moderation/g0", cookies=jar)
    assert old.status_code == 200 and 'data-ply="17"' in old.text
    assert "chessboard" not in old.text and "not named" in old.text

    # sign out; the cookie copied before no longer works, in a fresh browser or by hand
    page.click(".moderation-bar button")
    page.wait_for_url(f"{site.base}/moderation/sign-in")
    fresh = browser.new_context()
    try:
        fresh.add_cookies(
            [{"name": cookie["name"], "value": cookie["value"], "url": f"{site.base}/moderation"}]
        )
        tab = fresh.new_page()
        tab.goto(f"{site.base}/moderation/g2")
        assert tab.url == f"{site.base}/moderation/sign-in"
    finally:
        fresh.close()
    late = httpx.post(
        f"{site.base}/moderation/g2", data={"csrf": csrf, "action": "dismiss", "why": "x"},
        cookies=jar,
    )  # fmt: skip
    assert late.status_code == 403 and "not signed in" in late.text
    assert site.ledger.reviews.get("g2").status == "open"
    actions = [e.action for e in site.ledger.audit.log()[0]]
    assert actions[0] == "sign-out" and "sign-in" in actions
