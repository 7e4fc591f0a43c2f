"""Sentences name people, in a real Chromium, on every system's sample: the player
pages' games lists and the game pages their rows open show each reason, note and
explanation with the players' names (an id only in a link's tooltip or address), and
every row of a rated game whose rating did not move says why, naming a rule.

Cheap by design: the session's sample sites, a few players per system chosen for their
stories (docs/systems.md), and the game pages of their rows that did not move."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page

from .conftest import Site

ROWS = """() => Array.from(document.querySelectorAll("table.games tbody tr[data-game]")).map(r => ({
  game: r.dataset.game,
  outcome: r.className,
  opponent: (r.querySelector("td.opponent a.player") || {}).title || "",
  deltas: Array.from(r.querySelectorAll("span.delta"), s => s.firstChild.textContent.trim()),
  whys: Array.from(r.querySelectorAll("span.why"), s => s.innerText),
  rules: r.querySelectorAll("span.why a.rule").length,
}))"""

GAME_SENTENCES = """() => ({
  players: Array.from(document.querySelectorAll("dl.facts dd")[0].querySelectorAll("a.player"),
                      a => a.title),
  sentences: Array.from(document.querySelectorAll(
    "dd.reason, dd.annulment, article.change p.words, p.empty"), e => e.innerText),
  reasonPeople: Array.from(document.querySelectorAll("dd.reason a.player"), a => a.title),
})"""

STORIES = {
    # arena: nadia's ignored loss, her game that counts for neither, her forfeit and
    # qualifying games; greta, rated, against qualifying players (A9); walter's A10
    "arena": ["nadia", "greta", "walter"],
    # corr: gordon's protected losses (C6, +0.00); aiko's games that did not count (C4)
    "corr": ["gordon", "aiko"],
    # site: a bot (S7) and a player with void and casual games
    "site": ["bot-easy", "abel"],
}
GAMES_PER_PLAYER = 3
"""Game pages opened per player: rows that did not move, each with other words."""


def token(player_id: str) -> re.Pattern[str]:
    """A player id as a whole token of a sentence (as the pages match one)."""
    return re.compile(rf"(?<![\w-]){re.escape(player_id)}(?![\w-]|\.\w)")


def named(site: Site) -> dict[str, str]:
    """The sample's players that have a name other than their id."""
    found = site.get("/players?limit=200")["players"]
    return {p["id"]: p["name"] for p in found if p["name"] and p["name"] != p["id"]}


def assert_no_ids(texts: list[str], ids: list[str], names: dict[str, str], where: str) -> None:
    for player_id in ids:
        if player_id not in names:
            continue
        for text in texts:
            assert not token(player_id).search(text), f"{where}: {player_id!r} in {text!r}"


def moved(row: dict[str, Any]) -> bool:
    """A change of the row that is a number other than 0 (``−24.40``, ``+3.20``)."""
    numbers = [d.replace("\u2212", "-") for d in row["deltas"]]
    return any(re.fullmatch(r"[+-]?\d+(\.\d+)?", n) and float(n) != 0 for n in numbers)


@pytest.mark.parametrize("system", sorted(STORIES))
def test_games_lists_and_game_pages_name_people_and_say_why(
    system: str, request: pytest.FixtureRequest, page: Page
) -> None:
    site: Site = request.getfixturevalue(f"{system}_sample")
    names = named(site)
    still_games: list[str] = []
    for player_id in STORIES[system]:
        page.goto(f"{site.base}/players/{player_id}")
        rows = page.evaluate(ROWS)
        assert rows, f"{player_id} has no games"
        picked: set[str] = set()
        for row in rows:
            where = f"{system} /players/{player_id} {row['game']}"
            assert_no_ids(row["whys"], [player_id, row["opponent"]], names, where)
            if row["outcome"] == "rated" and not moved(row):
                assert row["whys"] and row["rules"], f"{where}: no reason naming a rule"
            kind = re.sub(r"[\d.]+", "#", row["whys"][0])[:30] if row["whys"] else ""
            if kind and kind not in picked and len(picked) < GAMES_PER_PLAYER:
                still_games.append(row["game"])
                picked.add(kind)
    assert still_games
    for game_id in dict.fromkeys(still_games):
        page.goto(f"{site.base}/games/{game_id}")
        shown = page.evaluate(GAME_SENTENCES)
        where = f"{system} /games/{game_id}"
        assert len(shown["players"]) == 2, where
        assert_no_ids(shown["sentences"], shown["players"], names, where)
        reason = site.get(f"/games/{game_id}")["reason"]  # the API keeps the ids
        for player_id in shown["players"]:
            if player_id in names and token(player_id).search(reason):
                assert player_id in shown["reasonPeople"], f"{where}: {player_id} not linked"


def test_corr_and_arena_formulas_read_in_words(
    corr_sample: Site, arena_sample: Site, page: Page
) -> None:
    """The notes' formulas have words on the pages (the API's notes stay terse)."""
    for site, rule, words in (
        (corr_sample, "corr C6", ["the rating difference", "for the loss", "protected"]),
        (arena_sample, "arena A7", ["rating difference D", "expected score PD", "score"]),
    ):
        games = site.get("/players/gordon/games?limit=50" if rule == "corr C6"
                         else "/players/greta/games?limit=50")["games"]  # fmt: skip
        game = next(g for g in games if any(c["rule"] == rule for c in g["changes"]))
        page.goto(f"{site.base}/games/{game['id']}")
        text = page.locator("article.change p.words").all_inner_texts()
        assert any(all(w in t for w in words) for t in text), text
        api_note = next(c["note"] for c in game["changes"] if c["rule"] == rule)
        assert "rating difference" not in api_note  # the API's words are the system's


def test_fide_reports_name_people(fide_sample: Site, page: Page) -> None:
    """fide: a player's page and report in the first period show no id of a named
    player in their sentences (its notes name no one; the opponents are links)."""
    names = named(fide_sample)
    player_id = sorted(names)[0]
    page.goto(f"{fide_sample.base}/periods/1/reports/{player_id}")
    texts = page.locator("p.note, td.note, p.discarded, p.combined").all_inner_texts()
    assert_no_ids(texts, list(names), names, f"fide report {player_id}")
    opponents = page.locator("td.name a.player")
    assert opponents.count() > 0
    assert opponents.first.get_attribute("title") in {*names, *fide_sample_ids(fide_sample)}


def fide_sample_ids(site: Site) -> set[str]:
    return {p["id"] for p in site.get("/players?limit=200")["players"]}
