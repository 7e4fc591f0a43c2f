"""A game played today on the site sample makes every sample player inactive (their
games are months old): the boards stay populated, each inactive player marked with the
day he became inactive, and the player page's rank is the board's or says why there
is none."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page

from chessrate.ledger import Ledger
from chessrate.samples import load_sample

from .conftest import NOW, Site, assert_fits, screenshot, serve, width_of

TODAY = NOW + timedelta(days=200)
"""Long after the sample's last game: nobody has played within the 90 active days."""


@pytest.fixture(scope="module")
def later(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder: Path = tmp_path_factory.mktemp("inactive")
    ledger = Ledger.create(f"sqlite:///{folder / 'site.db'}", "site", NOW)
    load_sample(ledger, NOW)
    token = ledger.tokens.create("writer", "Tess the tester", NOW)
    auth = {"Authorization": f"Bearer {token}"}
    try:
        for site in serve(ledger):
            answer = site.api.post(
                "/api/v1/players", json={"id": "newbie", "name": "New Bie"}, headers=auth
            )
            assert answer.status_code == 201, answer.text
            when = TODAY.astimezone(UTC).isoformat().replace("+00:00", "Z")
            # an unrated game today: the ledger's date moves on, nobody's rating does
            answer = site.api.post(
                "/api/v1/games",
                json={"id": "today", "white": "newbie", "black": "kai", "result": "1-0",
                      "time_control": "180+2", "played_at": when, "rated": False},
                headers=auth,
            )  # fmt: skip
            assert answer.status_code in (200, 201), answer.text
            yield site
    finally:
        ledger.dispose()


def test_every_board_lists_the_inactive_players_marked(later: Site, screen: Page) -> None:
    board = later.get("/leaderboards/blitz")
    assert board["entries"] == []
    assert board["inactive_total"] >= 1
    first = board["inactive"][0]
    assert first["rank"] is None
    played = datetime.fromisoformat(board["active_since"]).date()
    assert first["inactive_since"] is not None
    assert datetime.fromisoformat(first["inactive_since"]).date() <= played + timedelta(days=91)
    assert first["state_words"].endswith(f"inactive since {first['inactive_since']}")
    screen.goto(later.base + "/")
    assert_fits(screen)
    screenshot(screen, f"site-home-inactive-{width_of(screen)}")
    for pool in later.get("/leaderboards")["pools"]:
        if not pool["established"] and not pool["everyone"]:
            continue
        shown = later.get(f"/leaderboards/{pool['pool']}")
        section = screen.locator(f"#pool-{pool['pool']}")
        rows = section.locator("tr[data-player]")
        assert rows.count() >= min(5, len(shown["entries"]) + shown["inactive_total"]) > 0 or (
            not shown["inactive_total"] and not shown["entries"]
        ), pool["pool"]
        for marked in section.locator("tr[data-inactive]").all():
            since = marked.get_attribute("data-inactive")
            assert marked.locator("td.state").inner_text() == f"inactive since {since}"


def test_everyone_list_says_who_is_inactive(later: Site) -> None:
    everyone = later.get("/leaderboards/blitz?all=true")
    words = {e["player"]: e["state_words"] for e in everyone["entries"]}
    inactive = {e["player"] for e in later.get("/leaderboards/blitz")["inactive"]}
    assert inactive
    for player in inactive:
        assert ", inactive since " in words[player], player


def test_the_player_page_says_why_an_inactive_player_is_not_ranked(
    later: Site, screen: Page
) -> None:
    inactive = later.get("/leaderboards/blitz")["inactive"][0]
    stats = later.get(f"/players/{inactive['player']}/stats")
    blitz = next(p for p in stats["pools"] if p["pool"] == "blitz")
    assert blitz["rank"] is None
    assert blitz["unranked"].startswith(f"not active (inactive since {inactive['inactive_since']})")
    screen.goto(f"{later.base}/players/{inactive['player']}?pool=blitz")
    assert_fits(screen)
    text = screen.locator("section.pool[data-pool='blitz'] dd.rank").inner_text()
    assert text.startswith(f"not ranked: not active (inactive since {inactive['inactive_since']})")
