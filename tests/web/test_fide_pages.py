"""The fide pages in a real Chromium at 1366 and 390 px:
a period's new list with change, K and games, each tournament's crosstable, the list
as a CSV download, reports showing opponents by name, a player's rating by period;
numbers checked against the API and against the seed's worked example
(tests/data/fide/seed_round_robin_expected.csv); no page wider than the window, also
with a 120-character unbroken name."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from playwright.sync_api import Locator, Page

from chessrate.ledger import Ledger

from .conftest import NOW, Site, assert_fits, screenshot, serve, width_of

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
            shown = Decimal(change.inner_text())
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
    for row, player in zip(rows.all(), table["players"], strict=True):
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
    assert Decimal(change) == Decimal(SEED["Player F"]["change"])
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
