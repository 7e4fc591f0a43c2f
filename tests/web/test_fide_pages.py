"""The fide pages in a real Chromium at 1366 and 390 px:
a period's new list with change, K and games, each tournament's crosstable, the list
as a CSV download, reports showing opponents by name, a player's rating by period;
numbers checked against the API and against the seed's worked example
(tests/data/fide/seed_round_robin_expected.csv); no page wider than the window, also
with a 120-character unbroken name."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from playwright.sync_api import Locator, Page
from sqlalchemy import select, update

from chessrate.ledger import Ledger
from chessrate.ledger.schema import fide_results

from .conftest import NOW, Site, assert_fits, screenshot, serve, width_of
from .fide_2024_period import fide_2024_period

DATA = Path(__file__).parent.parent / "data"
SEED_TRF = (DATA / "trf" / "seed_round_robin.trf").read_text()
SEED_LIST = (DATA / "fide" / "seed_round_robin_list.csv").read_text()
with (DATA / "fide" / "seed_round_robin_expected.csv").open(encoding="utf-8") as _file:
    SEED = {row["name"]: row for row in csv.DictReader(_file)}
"""The seed 003 worked example (fide F8): rating, W, expected, change, K, new rating."""

LONG = "W" * 120
"""A 120-character unbroken name (unbroken, it could make a page 2,900 px wide)."""


def cells(page: Page | Locator, selector: str) -> list[str]:
    return [text.strip() for text in page.locator(selector).all_inner_texts()]


def number(text: str) -> Decimal:
    """A number as a page writes it (the minus sign, U+2212), read back."""
    return Decimal(text.replace("\u2212", "-"))


def written(value: object) -> str:
    """A value as a page writes it: a negative sign is the minus sign (U+2212)."""
    return str(value).replace("-", "\u2212")


def sample_period(site: Site, list_kind: str = "standard") -> int:
    """The sample's period of ``list_kind`` (one of each list, all closed)."""
    periods = site.get("/fide/periods")["periods"]
    assert [p["list_kind"] for p in periods] == ["standard", "rapid", "blitz"]
    assert all(p["closed"] for p in periods)
    return int(next(p["id"] for p in periods if p["list_kind"] == list_kind))


# -- the period page --------------------------------------------------------------------


def test_period_page_shows_the_new_list_with_change_k_and_games(
    fide_sample: Site, screen: Page
) -> None:
    pid = sample_period(fide_sample)
    entries = fide_sample.get(f"/fide/periods/{pid}/list")["entries"]
    screen.goto(f"{fide_sample.base}/periods/{pid}")
    screenshot(screen, f"fide-period-{width_of(screen)}")
    assert_fits(screen)
    rows = screen.locator("table.new-list tbody tr")
    assert rows.count() == len(entries) == len(SEED)
    for row, entry in zip(rows.all(), entries, strict=True):
        seed = SEED[entry["name"]]
        assert row.get_attribute("data-player") == entry["player"]
        link = row.locator("td.name a.player")
        assert link.inner_text() == entry["name"]
        assert link.get_attribute("title") == entry["player"]
        assert unquote(link.get_attribute("href") or "") == (
            f"/periods/{pid}/reports/{entry['player']}"
        )
        assert row.locator("td.rating").inner_text() == str(entry["new_rating"])
        assert entry["new_rating"] == int(seed["new_rating"])
        change = row.locator("td.rating-change")
        games = row.locator("td.games").inner_text()
        assert games == str(entry["period_games"]) == "9"  # a nine-round round robin
        if seed["rating"]:  # rated: K × ΣΔR, green or red
            assert entry["change"] is not None
            shown = number(change.inner_text())
            assert shown == Decimal(entry["change"]) == Decimal(seed["change"])
            assert row.locator("td.k").inner_text() == str(entry["k"]) == seed["k"]
            colour = "loss" if seed["change"].startswith("-") else "gain"
            assert colour in (change.get_attribute("class") or "")
        else:  # a first rating
            assert (entry["change"], entry["k"], entry["old_rating"]) == (None, None, None)
            assert change.inner_text() == f"unrated → {seed['new_rating']}"
            assert row.locator("td.k").inner_text() == "—"
    gain, loss = (
        screen.locator(f"td.rating-change.{kind}").first.evaluate("c => getComputedStyle(c).color")
        for kind in ("gain", "loss")
    )
    assert gain != loss


# -- crosstables ------------------------------------------------------------------------


def test_each_tournament_has_a_crosstable_whose_totals_are_the_files(
    fide_sample: Site, screen: Page
) -> None:
    pid = sample_period(fide_sample)
    period = fide_sample.get(f"/fide/periods/{pid}")
    screen.goto(f"{fide_sample.base}/periods/{pid}")
    links = screen.locator("ul.files a.crosstable")
    assert cells(screen, "ul.files a.crosstable") == period["files"]
    hrefs = links.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert hrefs == [f"/periods/{pid}/tournaments/{n}" for n in range(1, len(period["files"]) + 1)]
    links.first.click()
    screen.wait_for_url(f"**/periods/{pid}/tournaments/1")
    screenshot(screen, f"fide-crosstable-{width_of(screen)}")
    assert_fits(screen)
    table = fide_sample.get(f"/fide/periods/{pid}/tournaments/1")
    assert screen.locator("h1").inner_text() == table["name"]
    rows = screen.locator("table.crosstable tbody tr")
    assert rows.count() == len(table["players"]) == len(SEED)
    ranked = sorted(table["players"], key=lambda p: p["place"])  # the page: by rank
    for row, player in zip(rows.all(), ranked, strict=True):
        # The totals: the seed's W column, the file's points and the API's.
        assert row.locator("td.points").inner_text() == SEED[player["name"]]["points"]
        assert Decimal(player["points"]) == Decimal(SEED[player["name"]]["points"])
        shown = cells(row, "td.cell")
        assert len(shown) == table["rounds"] == 9
        assert shown == [c["text"].replace(" ", "") for c in player["rounds"]] or shown == [
            c["text"] for c in player["rounds"]
        ]
        link = row.locator("td.name a.player")
        assert link.inner_text() == player["name"]
        assert unquote(link.get_attribute("href") or "") == (
            f"/periods/{pid}/reports/{player['player']}"
        )
    # Player A's first round as the file has it: black against number 10, lost.
    first = rows.first.locator("td.cell").first
    assert first.inner_text() == "10b 0"
    assert "Player J" in (first.get_attribute("title") or "")
    # A name opens the player's report in the period.
    rows.nth(2).locator("td.name a.player").click()
    screen.wait_for_url("**/reports/**")
    assert screen.locator("h1").inner_text().startswith("Player C")


def test_an_unknown_tournament_is_a_page_saying_so(fide_sample: Site, desktop: Page) -> None:
    pid = sample_period(fide_sample)
    answer = desktop.goto(f"{fide_sample.base}/periods/{pid}/tournaments/7")
    assert answer is not None and answer.status == 404
    assert "no tournament 7" in desktop.locator("p.message").inner_text()


# -- the CSV ----------------------------------------------------------------------------


def test_the_list_downloads_as_csv_equal_to_the_api(fide_sample: Site, screen: Page) -> None:
    pid = sample_period(fide_sample)
    screen.goto(f"{fide_sample.base}/periods/{pid}")
    with screen.expect_download() as info:
        screen.locator("a.download").click()
    download = info.value
    assert download.suggested_filename == f"fide-period-{pid}-list.csv"
    text = Path(download.path()).read_text(encoding="utf-8")
    api = fide_sample.api.get(f"/api/v1/fide/periods/{pid}/list.csv")
    assert api.headers["content-type"] == "text/csv; charset=utf-8"
    assert text == api.text
    rows = list(csv.DictReader(io.StringIO(text)))
    entries = fide_sample.get(f"/fide/periods/{pid}/list")["entries"]
    assert [
        (int(r["position"]), r["id"], r["name"], r["new_rating"], r["change"], r["k"], r["games"])
        for r in rows
    ] == [
        (e["position"], e["player"], e["name"], str(e["new_rating"]), e["change"] or "",
         str(e["k"] or ""), str(e["period_games"]))
        for e in entries
    ]  # fmt: skip


# -- reports ----------------------------------------------------------------------------


def test_report_shows_opponents_by_name_linked_to_their_reports(
    fide_sample: Site, screen: Page
) -> None:
    pid = sample_period(fide_sample)
    report = fide_sample.get(f"/fide/periods/{pid}/reports/9000001")
    screen.goto(f"{fide_sample.base}/periods/{pid}/reports/9000001")
    screenshot(screen, f"fide-report-{width_of(screen)}")
    assert_fits(screen)
    links = screen.locator("table.report td.name a.player")
    assert links.count() == len(report["games"]) == 9
    entries = fide_sample.get(f"/fide/periods/{pid}/list")["entries"]
    names = {e["player"]: e["name"] for e in entries}
    for link, game in zip(links.all(), report["games"], strict=True):
        assert link.inner_text() == game["opponent_name"] == names[game["opponent"]]
        assert link.get_attribute("title") == game["opponent"]
    assert "9000010" not in cells(screen, "table.report td.name")  # names, not ids
    links.first.click()  # round 1: Player J
    screen.wait_for_url(f"**/periods/{pid}/reports/9000010")
    assert screen.locator("h1").inner_text().startswith("Player J")


def test_unrated_players_report(fide_sample: Site, screen: Page) -> None:
    pid = sample_period(fide_sample)
    screen.goto(f"{fide_sample.base}/periods/{pid}/reports/{quote('Player I')}")
    screenshot(screen, f"fide-report-unrated-{width_of(screen)}")
    assert_fits(screen)
    assert "first rating 2006" in screen.locator("p.summary").inner_text()


# -- the player's rating by period ------------------------------------------------------


def test_fide_player_page_lists_periods_linked_to_reports(fide_sample: Site, screen: Page) -> None:
    pid = sample_period(fide_sample)
    for entry in fide_sample.get(f"/fide/periods/{pid}/list")["entries"]:
        # every player of the list has a page
        answer = fide_sample.api.get(f"/players/{quote(entry['player'], safe='')}")
        assert answer.status_code == 200, entry
        assert entry["name"] in answer.text
    history = fide_sample.get("/players/9000006/periods")["periods"]
    screen.goto(f"{fide_sample.base}/players/9000006")
    screenshot(screen, f"fide-player-{width_of(screen)}")
    assert_fits(screen)
    assert screen.locator("details summary", has_text="History").count() == 0
    rows = screen.locator("table.fide-periods tbody tr")
    assert rows.count() == len(history) == 3  # the standard, rapid and blitz periods
    assert cells(screen, "table.fide-periods td.list") == ["standard", "rapid", "blitz"]
    row = rows.first
    period_link = row.locator("td.name a").first
    assert period_link.inner_text() == history[0]["period_name"]
    assert period_link.get_attribute("href") == f"/periods/{pid}"
    assert row.locator("td.rating").inner_text() == "2150 → 2194"
    change = row.locator("td.rating-change").inner_text()
    assert number(change) == Decimal(SEED["Player F"]["change"])
    assert row.locator("td.k").inner_text() == "30"
    assert row.locator("td.games").inner_text() == "9"
    row.locator("a.report").click()
    screen.wait_for_url(f"**/periods/{pid}/reports/9000006")
    assert screen.locator("h1").inner_text().startswith("Player F")
    assert "K 30" in screen.locator("p.summary").inner_text()


def test_first_rated_player_page(fide_sample: Site, screen: Page) -> None:
    screen.goto(f"{fide_sample.base}/players/{quote('Player C')}")
    screenshot(screen, f"fide-player-unrated-{width_of(screen)}")
    assert_fits(screen)
    row = screen.locator("table.fide-periods tbody tr").first
    assert row.locator("td.rating-change").inner_text() == "unrated → 2423"
    assert row.locator("td.rating").inner_text() == "unrated → 2423"


def test_fide_player_page_shows_the_three_lists(fide_sample: Site, screen: Page) -> None:
    lists = fide_sample.get(f"/players/{quote('Player C')}/periods")["lists"]
    screen.goto(f"{fide_sample.base}/players/{quote('Player C')}")
    screenshot(screen, f"fide-player-lists-{width_of(screen)}")
    assert_fits(screen)
    rows = screen.locator("table.fide-lists tbody tr")
    assert rows.count() == 3
    for row, listed in zip(rows.all(), lists, strict=True):
        assert row.get_attribute("data-list") == listed["list_kind"]
        assert row.locator("td.rating").inner_text() == str(listed["rating"])
        assert row.locator("td.games").inner_text() == str(listed["games"])
        assert row.locator("td.k").inner_text() == str(listed["k"])
        link = row.locator("td.period a")
        assert link.get_attribute("href") == f"/periods/{listed['period']}"
    # rated with his standard 2423 on the rapid and blitz lists (R&B 7.2.1)
    assert [lst["rating"] for lst in lists] == [2423, 2439, 2411]
    assert cells(screen, "table.fide-lists td.list") == ["standard", "rapid", "blitz"]


def test_the_periods_pages_show_each_periods_list(fide_sample: Site, desktop: Page) -> None:
    desktop.goto(f"{fide_sample.base}/periods")
    assert cells(desktop, "td.list") == ["standard", "rapid", "blitz"]
    rapid = sample_period(fide_sample, "rapid")
    desktop.goto(f"{fide_sample.base}/periods/{rapid}")
    assert desktop.locator("p.period-rules").get_attribute("data-list") == "rapid"
    assert "The rapid list" in desktop.locator("p.period-rules").inner_text()


# -- long names -------------------------------------------------------------------------


def _long_names(ledger: Ledger, now: datetime) -> None:
    """Player A named with 120 unbroken characters, in a period with such a name (closed),
    and an open period."""
    periods = ledger.periods
    start = SEED_LIST.replace("Player A", LONG)
    closed = periods.create("P" * 120, start, now, bonus=Decimal(15))
    periods.add_file(closed.id, "seed.trf", SEED_TRF)
    periods.close(closed.id, now)
    opened = periods.create("an open period", start, now)
    periods.add_file(opened.id, "seed.trf", SEED_TRF)


@pytest.fixture(scope="module")
def long_names(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("fide-long")
    ledger = Ledger.create(f"sqlite:///{folder / 'fide.db'}", "fide", NOW)
    try:
        _long_names(ledger, NOW)
        yield from serve(ledger)
    finally:
        ledger.dispose()


LONG_PAGES = {
    "home": "/",
    "periods": "/periods",
    "period": "/periods/1",
    "crosstable": "/periods/1/tournaments/1",
    "report": "/periods/1/reports/9000001",
    "report-opponent": "/periods/1/reports/9000002",
    "player": "/players/9000001",
    "open-period": "/periods/2",
    "open-crosstable": "/periods/2/tournaments/1",
}


def test_a_120_character_name_does_not_widen_any_page(long_names: Site, screen: Page) -> None:
    assert long_names.get("/fide/periods/1/list")["entries"][0]["name"] == LONG
    for name, path in LONG_PAGES.items():
        answer = screen.goto(long_names.base + path)
        assert answer is not None and answer.status == 200, path
        screenshot(screen, f"fide-long-{name}-{width_of(screen)}")
        assert_fits(screen)
    screen.goto(long_names.base + "/periods/1/reports/9000002")
    assert LONG in cells(screen, "table.report td.name")


def test_an_open_period_has_no_list_yet(long_names: Site, desktop: Page) -> None:
    desktop.goto(long_names.base + "/periods/2")
    assert desktop.locator("a.download").count() == 0
    assert desktop.locator("table.new-list").count() == 0
    answer = desktop.goto(long_names.base + "/periods/2/list.csv")
    assert answer is not None and answer.status == 409
    assert "period 2: not closed yet" in desktop.locator("p.message").inner_text()
    # the open period's crosstable: names without reports yet
    desktop.goto(long_names.base + "/periods/2/tournaments/1")
    assert desktop.locator("table.crosstable a.player").count() == 0
    assert desktop.locator("table.crosstable tbody tr").count() == 10


# -- the arbiter's pages: reports in FIDE's form, crosstables, the player's card ------


@pytest.fixture(scope="module")
def fide_2024(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A closed fide-2024 period (tests/web/fide_2024_period.py)."""
    folder = tmp_path_factory.mktemp("fide-2024")
    ledger = Ledger.create(f"sqlite:///{folder / 'fide.db'}", "fide", NOW)
    try:
        fide_2024_period(ledger, NOW)
        yield from serve(ledger)
    finally:
        ledger.dispose()


def assert_symbols_explained(page: Page, *symbols: str) -> None:
    """Each symbol is a visible term of a definition list with visible words beside it
    (not only a tooltip)."""
    terms = page.locator("dl.symbols dt")
    shown = {}
    for term in terms.all():
        assert term.is_visible()
        words = term.locator("xpath=following-sibling::dd[1]")
        assert words.is_visible() and len(words.inner_text().strip()) > 3, term.inner_text()
        shown[term.inner_text().strip()] = words.inner_text()
    missing = [s for s in symbols if s not in shown]
    assert not missing, f"{page.url}: {missing} not explained (explained: {list(shown)})"


def test_a_rated_players_report_is_fides_calculation(fide_sample: Site, screen: Page) -> None:
    pid = sample_period(fide_sample)
    report = fide_sample.get(f"/fide/periods/{pid}/reports/9000001")
    screen.goto(f"{fide_sample.base}/periods/{pid}/reports/9000001")
    screenshot(screen, f"fide-report-rated-{width_of(screen)}")
    assert_fits(screen)
    assert screen.locator("p.summary").get_attribute("data-kind") == "rated"
    rows = screen.locator("table.report tbody tr")
    assert rows.count() == 9
    for row, game in zip(rows.all(), report["games"], strict=True):
        shown = cells(row, "td")
        # event, round, opponent, Ro, W, D, PD, ΔR, K, note
        assert shown[2] == game["opponent_name"]
        assert shown[3] == str(game["opponent_rating"])
        assert shown[4] == {"1": "1", "0.5": "½", "0": "0"}[game["score"]]
        assert shown[5].split()[0] == written(game["d"])
        assert ("capped" in shown[5]) == ("capped" in game["note"])
        assert Decimal(shown[6]) == Decimal(game["pd"])
        assert number(shown[7]) == Decimal(game["delta"])
        assert shown[8] == "20"
    # Player A, the seed's worked example: ΣΔR +0.64, K 20 × ΣΔR = +12.80, 2600 → 2613
    sums = screen.locator("dl.sums").inner_text()
    for expected in ("ΣW", "8:", "7.36", "+0.64", "+12.80", "+13", "2613"):
        assert expected in sums, expected
    assert rows.nth(4).locator("td.d .capped").is_visible()  # round 5: Player I, 400 capped
    assert_symbols_explained(screen, "Ro", "W", "D", "PD", "ΔR", "K", "ΣΔR", "K × ΣΔR")


def test_a_seed_first_rating_lists_the_games_and_explains_rar_dpa_rc_ru(
    fide_sample: Site, screen: Page
) -> None:
    pid = sample_period(fide_sample)
    screen.goto(f"{fide_sample.base}/periods/{pid}/reports/{quote('Player I')}")
    screenshot(screen, f"fide-report-first-seed-{width_of(screen)}")
    assert_fits(screen)
    rows = screen.locator("table.first-games tbody tr")
    assert rows.count() == 9  # every game of the round robin, by opponent's name
    assert cells(screen, "table.first-games td.name")[0] == "Player B"
    assert screen.locator("table.first-games tr.not-counted").count() == 3  # C, E, H unrated
    assert "not in Rar" in rows.nth(3).inner_text()  # round 4: Player H, unrated
    assert_symbols_explained(screen, "Rc", "Rar", "dpa", "Ru", "p", "dp", "n")
    values = screen.locator("dl.values").inner_text()
    assert "2322" in values and "2006" in values  # Rc after the 8.58 iteration, Ru


def test_a_new_players_first_rating_from_the_pool(fide_2024: Site, screen: Page) -> None:
    pid = 1
    screen.goto(f"{fide_2024.base}/periods/{pid}/reports/1007")
    screenshot(screen, f"fide-report-first-2024-{width_of(screen)}")
    assert_fits(screen)
    assert screen.locator("p.summary").get_attribute("data-kind") == "first-rating"
    assert "first rating 1838" in screen.locator("p.summary").inner_text()
    counted = screen.locator("table.pool-games tr.counted")
    assert cells(screen, "table.pool-games tr.counted td.name") == [
        "Boris Rated", "Dmitri Rated", "Femi Rated", "Anna Rated", "Clara Rated", "Elena Rated"
    ]  # fmt: skip
    assert counted.count() == 6
    ratings = [int(r) for r in cells(screen, "table.pool-games tr.counted td:nth-child(3)")]
    assert sum(ratings) == 11100
    hypothetical = screen.locator("table.pool-games tr.hypothetical")
    assert hypothetical.count() == 2
    assert cells(hypothetical.first, "td")[2:] == ["1800", "½"]
    # Ra = (11100 + 2 × 1800) / 8 = 1837.50; p = (3 + 1) / 8 = 0.50; dp 0; Ru 1838
    values = {
        dt.inner_text(): dt.locator("xpath=following-sibling::dd[1]").inner_text()
        for dt in screen.locator("dl.values dt").all()
    }
    assert values["Ra"].startswith("1837.50:")
    assert values["p"].startswith("0.50:")
    assert values["dp"].startswith("0:")
    assert values["Ru"].startswith("1838:")
    assert values["n"].startswith("6:")
    # the game against Omar (unrated) did not count, and says why
    skipped = screen.locator("table.skipped tbody tr")
    assert skipped.count() == 1
    assert "Omar Newer" in skipped.inner_text() and "unrated opponent" in skipped.inner_text()
    assert_symbols_explained(screen, "Ra", "p", "dp", "Ru", "n", "draws")


def test_a_new_player_without_a_rating_yet(fide_2024: Site, screen: Page) -> None:
    screen.goto(f"{fide_2024.base}/periods/1/reports/1008")
    screenshot(screen, f"fide-report-pending-{width_of(screen)}")
    assert_fits(screen)
    assert screen.locator("p.summary").get_attribute("data-kind") == "unrated"
    assert "no rating this period" in screen.locator("p.summary").inner_text()
    assert "fewer than 5" in screen.locator("p.why").inner_text()
    assert cells(screen, "table.pool-games tr.counted td.name") == ["Anna Rated", "Boris Rated"]
    assert cells(screen, "table.skipped td.name") == ["Nova New"]
    assert_symbols_explained(screen, "Ra", "p", "dp", "Ru")


def test_reports_stored_before_the_game_lines_still_render(
    tmp_path_factory: pytest.TempPathFactory, desktop: Page
) -> None:
    """A stored report without ``lines``, ``earlier_games`` and ``hypothetical_rating``
    (closed before they existed) still shows its calculation."""
    folder = tmp_path_factory.mktemp("fide-old")
    ledger = Ledger.create(f"sqlite:///{folder / 'fide.db'}", "fide", NOW)
    try:
        fide_2024_period(ledger, NOW)
        with ledger.transaction() as conn:
            for row in conn.execute(select(fide_results)).all():
                report = json.loads(row.report)
                for calc in report["first_rating"]:
                    calc.pop("lines")
                if report.get("pool"):
                    report["pool"].pop("earlier_games")
                    report["pool"].pop("hypothetical_rating")
                conn.execute(
                    update(fide_results)
                    .where(fide_results.c.period_id == row.period_id,
                           fide_results.c.player_id == row.player_id)
                    .values(report=json.dumps(report))
                )  # fmt: skip
        for site in serve(ledger):
            for player in ("1007", "1008", "1001"):
                answer = desktop.goto(f"{site.base}/periods/1/reports/{player}")
                assert answer is not None and answer.status == 200, player
            assert "first rating" not in desktop.locator("p.summary").inner_text()
            desktop.goto(f"{site.base}/periods/1/reports/1007")
            assert "1838" in desktop.locator("dl.values").inner_text()
    finally:
        ledger.dispose()


def test_crosstable_names_stay_in_view_while_it_scrolls(fide_2024: Site, screen: Page) -> None:
    screen.goto(f"{fide_2024.base}/periods/1/tournaments/1")
    screenshot(screen, f"fide-crosstable-2024-{width_of(screen)}")
    assert_fits(screen)
    box = screen.locator("div.crosstable-scroll")
    wide, room = box.evaluate("b => [b.scrollWidth, b.clientWidth]")
    if width_of(screen) == 390:
        assert wide > room  # the table scrolls inside its box...
    box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
    screen.wait_for_timeout(50)
    screenshot(screen, f"fide-crosstable-2024-scrolled-{width_of(screen)}")
    assert_fits(screen)  # ...and never the page
    left = box.evaluate("b => b.getBoundingClientRect().left")
    for cell in screen.locator("table.crosstable td.name").all():
        rect = cell.evaluate("c => c.getBoundingClientRect().toJSON()")
        assert rect["left"] >= left - 1 and rect["right"] <= width_of(screen)
        assert cell.is_visible()
    first_round = screen.locator("table.crosstable tbody tr").first.locator("td.cell").first
    if wide > room:  # the rounds went by under the names
        assert first_round.evaluate("c => c.getBoundingClientRect().left") < left + 50


def test_crosstable_ranks_tiebreaks_performance_and_change(fide_2024: Site, screen: Page) -> None:
    """The Piraeus Cup, checked by hand: 1–4 1-0, 2–3 1-0; 4–3 0-1, 1–2 ½; 2–4 1-0,
    3–1 0-1 (ratings 2100, 2000, 1900, 1800). Points 2½, 2½, 1, 0. Its record 202
    declares BH:C1, SB and DE: BH:C1 1: 0 + 2.5 + 1 − 0 = 3.5, 2: 1 + 2.5 + 0 − 0 = 3.5,
    3: 2.5 + 0 + 2.5 − 0 = 5.0, 4: 2.5 + 1 + 2.5 − 1 = 5.0; SB 1: 0 + 1.25 + 1 = 2.25,
    2: 1 + 1.25 + 0 = 2.25, 3: 0, 4: 0; 1 and 2 equal on everything: the start number.
    Rp 1: Ra 1900, p 2.5/3 = 0.83, dp 273 → 2173; 3: Ra 5900/3 = 1966.67, p 0.33,
    dp −125 → 1842; 4: Ra 2000, p 0, dp −800 → 1200; 2: Ra (1900 + 2100 + 1800)/3
    = 1933.33, p 0.83, dp 273 → 2206."""
    screen.goto(f"{fide_2024.base}/periods/1/tournaments/2")
    screenshot(screen, f"fide-crosstable-cup-{width_of(screen)}")
    assert_fits(screen)
    heads = cells(screen, "table.crosstable th.tiebreak")
    assert heads == ["BH:C1", "SB"]
    rows = screen.locator("table.crosstable tbody tr")
    table = {
        cells(row, "td.name a.player")[0]: (
            cells(row, "td.place")[0], cells(row, "td.points")[0],
            cells(row, "td.tiebreak"), cells(row, "td.performance")[0],
        )
        for row in rows.all()
    }  # fmt: skip
    assert table == {
        "Anna Rated": ("1", "2½", ["3.5", "2.25"], "2173"),
        "Boris Rated": ("2", "2½", ["3.5", "2.25"], "2206"),
        "Clara Rated": ("3", "1", ["5.0", "0.0"], "1842"),
        "Dmitri Rated": ("4", "0", ["5.0", "0.0"], "1200"),
    }
    assert "DE cannot be computed" in screen.locator("p.tiebreak-source").inner_text()
    # the period's change: the new list's new − old (both tournaments)
    entries = {e["name"]: e for e in fide_2024.get("/fide/periods/1/list")["entries"]}
    assert cells(screen, "table.crosstable td.name .title") == ["WGM", "FM"]
    for row in rows.all():
        name = cells(row, "td.name a.player")[0]
        change = entries[name]["new_rating"] - entries[name]["old_rating"]
        assert cells(row, "td.period-change")[0] == written(f"{change:+d}")
    assert_symbols_explained(screen, "Rk", "pts", "BH:C1", "SB", "Rp", "±")


def test_crosstable_default_tiebreaks_with_forfeits_and_a_first_rating(
    fide_2024: Site, desktop: Page
) -> None:
    """And Buchholz with forfeits, by hand. Omar (withdrawn rounds 3 to 6, ½ before
    them): Anna 6.5 + Boris 6 + virtual opponents 0.5 + 1 + 0.5 × 4 = 3.5, 3.0, 2.5,
    2.0 + Nova 4 = 27.5. Clara: Femi 0.5 (his forfeit win counts ½) + Anna 6.5 +
    virtual 1 + 0 + 0.5 × 4 = 3.0 (Omar's forfeit) + Elena 2.0 (likewise) + Nova 4 +
    Boris 6 + Dmitri 2.5 (likewise) = 24.5."""
    desktop.goto(f"{fide_2024.base}/periods/1/tournaments/1")
    buchholz = {
        row.get_attribute("data-player"): cells(row, "td.tiebreak")[0]
        for row in desktop.locator("table.crosstable tbody tr").all()
    }
    assert (buchholz["1008"], buchholz["1003"]) == ("27.5", "24.5")
    row = desktop.locator("tr[data-player='1007']")
    assert row.locator("td.period-change").inner_text() == "new 1838"
    assert row.locator("td.performance").inner_text()  # rated opponents: a performance
    default = desktop.locator("p.tiebreak-source").inner_text()
    assert "Buchholz and Sonneborn–Berger" in default and "virtual opponent" in default
    assert cells(desktop, "table.crosstable th.tiebreak") == ["BH", "SB"]


def test_the_player_card(fide_2024: Site, screen: Page) -> None:
    screen.goto(f"{fide_2024.base}/players/1001")
    screenshot(screen, f"fide-player-card-{width_of(screen)}")
    assert_fits(screen)
    card = screen.locator("dl.card-facts")
    assert card.locator("dd.federation").inner_text() == "GRE"
    assert card.locator("dd.title").inner_text() == "WGM"  # the latest file's (Piraeus)
    assert card.locator("dd.sex").inner_text() == "woman"
    assert card.locator("dd.birth-year").inner_text() == "1990"
    # the list's Flag (7.2.2), as the API answers it, in words
    on_lists = fide_2024.get("/players/1001/periods")["lists"]
    assert next(x for x in on_lists if x["list_kind"] == "standard")["flag"] == "w"
    flag = card.locator("dd.list-rating[data-list=standard] .flag")
    assert flag.inner_text() == "flag w: woman"
    lists = screen.locator("section.fide-list")
    assert lists.count() == 1 and lists.first.get_attribute("data-list") == "standard"
    assert lists.first.locator("h2 .rating").inner_text() == "2123"
    assert lists.first.locator("svg.chart polyline.line").count() == 1
    assert lists.first.locator("table.fide-periods tbody tr").count() == 1
    assert "piraeus.trf" in screen.locator("p.facts-source").inner_text()
    screen.goto(f"{fide_2024.base}/players/1007")
    assert screen.locator("dd.birth-year").inner_text() == "2008"
    assert screen.locator("dd.title").inner_text() == "—"
    assert screen.locator("section.fide-list h2 .rating").inner_text() == "1838"
