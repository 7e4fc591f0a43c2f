"""The web pages in a real headless Chromium: leaderboards, player pages with charts,
explained games, annulments, search, FIDE periods; numbers checked against the API."""

from __future__ import annotations

from urllib.parse import quote

from playwright.sync_api import Page

from chessrate.web.formats import minus

from .conftest import Site, screenshot


def cells(page: Page, selector: str) -> list[str]:
    return [text.strip() for text in page.locator(selector).all_inner_texts()]


def test_home_shows_every_pools_leaderboard_as_the_api_does(site_sample: Site, page: Page) -> None:
    page.goto(site_sample.base + "/")
    screenshot(page, "site-home")
    totals = {p["pool"]: p for p in site_sample.get("/leaderboards")["pools"]}
    pools = list(totals)
    assert pools == ["site", "bullet", "blitz", "rapid", "classical", "unclocked",
                     "correspondence", "otb", "bots"]  # fmt: skip
    for pool in pools:
        # the home page shows each pool's established players (honest
        # leaderboards), as the API's default list, and links to everyone
        board = site_sample.get(f"/leaderboards/{pool}?limit=10")
        assert board["established_only"] is True
        everyone = page.locator(f"#pool-{pool} a.everyone")
        assert everyone.get_attribute("href") == f"/leaderboards/{pool}?all=1"
        assert f"({totals[pool]['everyone']})" in everyone.inner_text()
        table = page.locator(f"table.board[data-pool='{pool}']")
        shown_players = table.locator("tr[data-player]").evaluate_all(
            "rows => rows.map(r => r.dataset.player)"
        )
        assert shown_players == [e["player"] for e in board["entries"]], pool
        assert table.locator("td.rating").all_inner_texts() == [
            e["display"] for e in board["entries"]
        ], pool
    assert page.locator("h2", has_text="site Elo").count() == 1


def test_every_player_name_links_to_a_page_with_a_chart(site_sample: Site, page: Page) -> None:
    page.goto(site_sample.base + "/")
    links = page.locator("a.player").evaluate_all("links => links.map(a => a.href)")
    assert links
    for href in sorted(set(links))[:12]:
        page.goto(href)
        assert page.locator("svg.chart").count() >= 1, href


def test_player_page_numbers_and_the_charts_points_equal_the_history(
    site_sample: Site, page: Page
) -> None:
    """The chart's drawn points (its data table: hal has few changes, so all of them)
    are the API's history: the rating at the start of the range, then each change's
    rating after, each linked to its game by the opponent's name. One chart: each
    pool's opens from the pools table."""
    player = site_sample.get("/players/hal")
    page.goto(site_sample.base + "/players/hal")
    screenshot(page, "site-player-hal")
    rows = page.locator("table.ratings tbody tr")
    assert rows.count() == len(player["ratings"]) > 1
    for n, rating in enumerate(player["ratings"]):
        if n:  # the next pool's chart, by its link in the table
            page.locator(f"table.ratings tr[data-pool='{rating['pool']}'] td.pool a").click()
            page.wait_for_url(f"**pool={rating['pool']}#pool-{rating['pool']}")
        row = page.locator(f"table.ratings tr[data-pool='{rating['pool']}']")
        assert row.locator("td.display").inner_text() == rating["display"]
        assert row.locator("td.exact").inner_text() == rating["rating"]
        assert row.locator("td.games").inner_text() == str(rating["games"])
        history = site_sample.get(f"/players/hal/history/{rating['pool']}")
        assert page.locator("section.pool").count() == 1
        section = page.locator(f"section.pool[data-pool='{rating['pool']}']")
        drawn = section.locator("table.chart-data tbody tr")
        assert drawn.evaluate_all("rs => rs.map(r => r.cells[1].textContent)") == [
            history["items"][0]["change"]["before"],
            *(i["change"]["after"] for i in history["items"]),
        ]
        games = drawn.evaluate_all(
            "rs => rs.slice(1).map(r => [r.dataset.game, r.cells[2].textContent,"
            " r.cells[2].querySelector('a').getAttribute('href')])"
        )
        assert games == [
            [i["change"]["game"], i["opponent_name"], f"/games/{i['change']['game']}"]
            for i in history["items"]
        ]


def test_a_games_date_opens_the_game(site_sample: Site, page: Page) -> None:
    page.goto(site_sample.base + "/players/hal")
    page.locator("table.games a.game").first.click()
    page.wait_for_url("**/games/*")
    assert page.locator("h1").inner_text().startswith("Game ")


def test_game_page_explains_every_change_in_words(site_sample: Site, page: Page) -> None:
    game = site_sample.get("/games/s0013")
    page.goto(site_sample.base + "/games/s0013")
    screenshot(page, "site-game-s0013")
    assert page.locator("dd.outcome").inner_text().startswith(game["outcome"])
    assert page.locator("dd.reason").inner_text() == game["reason"]
    articles = page.locator("article.change")
    assert articles.count() == len(game["changes"])
    for change in game["changes"]:
        article = page.locator(
            f"article.change[data-player='{change['player']}'][data-pool='{change['pool']}']"
        )
        assert article.get_attribute("data-after") == change["after"]
        assert article.locator("p.words").inner_text() == minus(change["note"])
        assert article.locator(".rule").inner_text() == change["rule"]
    # "expected 0.50 (opponent 130.00); K 20 × (0 − 0.50) = −10.00" (the minus sign)
    assert "K 20 × (0 − 0.50) = −10.00" in page.locator("body").inner_text()


def test_every_game_in_a_history_links_to_its_explanation(site_sample: Site, page: Page) -> None:
    page.goto(site_sample.base + "/players/zed")
    links = page.locator("a.game").evaluate_all("links => links.map(a => a.href)")
    assert links
    for href in sorted(set(links))[:8]:
        page.goto(href)
        assert page.locator("h2", has_text="What changed").count() == 1


def test_annulments_page_lists_the_api_annulments(site_sample: Site, page: Page) -> None:
    annulled = site_sample.get("/annulments")["annulments"]
    page.goto(site_sample.base + "/annulments")
    screenshot(page, "site-annulments")
    assert cells(page, "table.annulments a.game") == [a["game"] for a in annulled]
    page.locator("table.annulments a.game").first.click()
    assert "(annulled)" in page.locator("dd.outcome").inner_text()


def test_search_finds_a_player(site_sample: Site, page: Page) -> None:
    page.goto(site_sample.base + "/")
    page.fill("input[name=q]", "hal")
    page.press("input[name=q]", "Enter")
    page.wait_for_url("**/search?q=hal")
    assert "hal" in cells(page, "ul.found small")


def test_bot_page_shows_its_fixed_rating(site_sample: Site, page: Page) -> None:
    bot = site_sample.get("/players/bot-easy")
    page.goto(site_sample.base + "/players/bot-easy")
    assert page.locator("[data-bot-rating]").inner_text() == bot["bot_rating"]


def test_provisional_site_ratings_show_the_question_mark(site_sample: Site, page: Page) -> None:
    # the provisional players are on the list of everyone (the default list leaves
    # them out: honest leaderboards)
    board = site_sample.get("/leaderboards/classical?limit=100&all=true")
    marked = [e for e in board["entries"] if e["games"] < 10]
    assert marked
    page.goto(site_sample.base + "/leaderboards/classical?all=1")
    shown = dict(zip(
        page.locator("tr[data-player]").evaluate_all("rs => rs.map(r => r.dataset.player)"),
        cells(page, "td.rating"), strict=True,
    ))  # fmt: skip
    for entry in marked:
        assert shown[entry["player"]] == entry["display"]
        assert shown[entry["player"]].endswith("?")


def test_arena_qualifying_player_shows_the_training_rating(arena_sample: Site, page: Page) -> None:
    player = arena_sample.get("/players/emil")
    rapid = next(r for r in player["ratings"] if r["pool"] == "rapid")
    assert (rapid["state"], rapid["display"], rapid["rating"]) == ("qualifying", "1500", None)
    page.goto(arena_sample.base + "/players/emil")
    screenshot(page, "arena-player-emil")
    row = page.locator("table.ratings tr[data-pool='rapid']")
    assert row.locator("td.display").inner_text() == "1500"
    assert row.get_attribute("data-state") == "qualifying"
    assert row.locator("td.state").inner_text().startswith("qualifying: ")


def test_corr_provisional_and_unrated_displays(corr_sample: Site, page: Page) -> None:
    board = corr_sample.get("/leaderboards/corr?limit=100&all=true")
    provisional = next(e for e in board["entries"] if e["state"] == "provisional")
    page.goto(corr_sample.base + f"/players/{quote(provisional['player'])}")
    screenshot(page, "corr-player")
    shown = page.locator("table.ratings tr[data-pool='corr'] td.display").inner_text()
    assert shown == provisional["display"]
    assert shown.endswith(f"P ({provisional['games']})")


def test_fide_period_pages(fide_sample: Site, page: Page) -> None:
    period = fide_sample.get("/fide/periods")["periods"][0]
    new_list = fide_sample.get(f"/fide/periods/{period['id']}/list")["entries"]
    page.goto(fide_sample.base + "/")
    page.locator("a", has_text=period["name"]).first.click()
    screenshot(page, "fide-period")
    assert cells(page, "table.board td.rating") == [str(e["new_rating"]) for e in new_list]
    assert cells(page, "table.board td.rating")[:3] == ["2613", "2510", "2423"]
    page.locator("a.player", has_text="Player I").click()
    screenshot(page, "fide-report-player-i")
    body = page.locator("body").inner_text()
    assert "first rating 2006" in body
    assert "2 rated opponent(s) over Ru + 400 = 2432 count as 2432" in body
    page.go_back()
    page.locator("a.player", has_text="Player A").click()
    assert "7.36" in page.locator("dl.sums").inner_text()  # ΣPD, the points expected


def test_pages_work_without_javascript(browser, site_sample: Site) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_sample.base + "/players/hal")
    assert page.locator("table.ratings tbody tr").count() >= 1
    assert page.locator("svg.chart polyline.line").count() >= 1
    assert page.locator("table.chart-data tbody tr").count() >= 1
    context.close()


def test_phone_layout(site_sample: Site, phone: Page) -> None:
    phone.goto(site_sample.base + "/players/hal")
    screenshot(phone, "phone-player-hal")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390 + 1  # nothing wider than the screen


def test_people_are_shown_by_name_with_their_id_as_the_tooltip(
    site_sample: Site, page: Page
) -> None:
    """Leaderboards, game pages, history rows and annulments
    show the player's name, link to the player and keep the id as the tooltip; the
    API's leaderboard and history entries carry the names."""
    board = site_sample.get("/leaderboards/site?limit=10")
    named = [e for e in board["entries"] if e["name"]]
    assert named, "the site sample's players have names"
    page.goto(site_sample.base + "/")
    for entry in named:
        link = page.locator(
            f"table.board[data-pool='site'] tr[data-player='{entry['player']}'] a.player"
        )
        assert link.inner_text() == entry["name"]
        assert link.get_attribute("title") == entry["player"]

    game = site_sample.get("/games/s0013")
    names = {e["player"]: e["name"] for e in site_sample.get(
        "/leaderboards/site?limit=500&all=true")["entries"]}  # fmt: skip
    page.goto(site_sample.base + "/games/s0013")
    players = page.locator("dl.facts a.player")
    assert players.evaluate_all("a => a.map(x => x.title)") == [game["white"], game["black"]]
    for link, player_id in zip(players.all(), (game["white"], game["black"]), strict=True):
        assert link.inner_text() == (names.get(player_id) or player_id)
        assert link.get_attribute("href") == f"/players/{quote(player_id, safe='')}"

    history = site_sample.get("/players/hal/history/site")
    assert history["name"] == site_sample.get("/players/hal")["name"]
    item = history["items"][-1]
    assert item["opponent_name"] == names.get(item["change"]["opponent"])
    page.goto(site_sample.base + "/players/hal")
    # the games list, newest first, shows the opponent of the history's last item
    row = page.locator(f"table.games tr[data-game='{item['change']['game']}']")
    opponent = row.locator("a.player")
    assert opponent.get_attribute("title") == item["change"]["opponent"]
    assert opponent.inner_text() == (item["opponent_name"] or item["change"]["opponent"])

    page.goto(site_sample.base + "/annulments")
    shown = page.locator("table.annulments a.player")
    assert shown.count() > 0
    for link in shown.all():
        player_id = link.get_attribute("title") or ""
        assert link.inner_text() == (names.get(player_id) or player_id)
