"""A game's board in a real headless Chromium at 1366 and 390 px: a game submitted
with its moves shows the final position (server-drawn SVG), its moves in numbered
pairs each linking to its position, and a PGN download that python-chess reads back
to the same position; a game without moves says so; a live game shows its position and
clocks; /play's waits tick without a reload."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import UTC, datetime

import chess
import chess.pgn
import pytest
from playwright.sync_api import Page

from chessrate.systems.site_live import LiveGame
from chessrate.timecontrol import parse_time_control

from .conftest import Site, assert_fits, screenshot, serve_sample, width_of

MOVES = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"]


@pytest.fixture(scope="module")
def site_sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A site sample of this module's own, with a game submitted with its moves and
    a live game under way (both recorded at the real time)."""
    for site in serve_sample("site", tmp_path_factory.mktemp("boards")):
        now = datetime.now(UTC)
        token = site.ledger.tokens.create("writer", "board test", now)
        answer = site.api.post(
            "/api/v1/games",
            headers={"Authorization": f"Bearer {token}"},
            json={"id": "with-moves", "played_at": "2026-05-20T18:00:00Z", "white": "kai",
                  "black": "lars", "result": "1/2-1/2", "time_control": "180+2",
                  "moves": MOVES},
        )  # fmt: skip
        assert answer.status_code in (200, 201), answer.text
        live = site.ledger.live
        live.open(LiveGame("live-board", "kai", "lars", now, parse_time_control("180+2")), now)
        live.move("live-board", 1, "d4", "kai", now)
        live.move("live-board", 2, "d5", "lars", now)
        site.ledger.seeks.create("mira", parse_time_control("600+0"), False, 100, 200, now)
        yield site


def _final() -> chess.Board:
    board = chess.Board()
    for san in MOVES:
        board.push_san(san)
    return board


def test_a_game_with_moves_shows_its_board_moves_and_pgn(site_sample: Site, screen: Page) -> None:
    screen.goto(site_sample.base + "/games/with-moves")
    screenshot(screen, f"site-game-board-{width_of(screen)}")
    assert_fits(screen)
    board = screen.locator("figure.board-figure svg")
    assert board.count() == 1
    assert "Be7" in (board.get_attribute("aria-label") or "")
    assert board.locator("use").count() == 32  # every piece is still on the board
    box = board.bounding_box()
    assert box is not None and box["width"] <= width_of(screen)
    pairs = screen.locator("ol.move-list li")
    assert pairs.count() == 5
    assert pairs.first.inner_text().split() == ["e4", "e5"]
    assert screen.locator("ol.move-list a.move[aria-current]").inner_text() == "Be7"


def test_a_move_link_shows_that_position(site_sample: Site, page: Page) -> None:
    page.goto(site_sample.base + "/games/with-moves")
    page.locator("ol.move-list a.move", has_text="Nf3").click()
    page.locator("section.game-board[data-ply='3']").wait_for()
    label = page.locator("figure.board-figure svg").get_attribute("aria-label") or ""
    assert "2. Nf3" in label
    assert page.locator("ol.move-list a.move[aria-current]").inner_text() == "Nf3"
    assert page.url.endswith("?ply=3#board")


def test_the_ply_without_script_and_bad_plies(site_sample: Site, page: Page) -> None:
    answer = site_sample.api.get("/games/with-moves?ply=1")
    assert (
        answer.status_code == 200 and 'aria-label="Board: the position after 1. e4' in answer.text
    )
    for bad in ("x", "-1", "99999", "1e9", "", "%20"):
        answer = site_sample.api.get(f"/games/with-moves?ply={bad}")
        assert answer.status_code == 200, bad  # ignored: the final position
        assert "after 5... Be7" in answer.text
    answer = site_sample.api.get("/games/with-moves?ply=%00")  # the service refuses NULs
    assert answer.status_code == 422


def test_the_pgn_reads_back_to_the_final_position(site_sample: Site, page: Page) -> None:
    page.goto(site_sample.base + "/games/with-moves")
    with page.expect_download() as waiting:
        page.locator("a.pgn-download").click()
    download = waiting.value
    assert download.suggested_filename == "with-moves.pgn"
    text = download.path().read_text(encoding="utf-8")
    answer = site_sample.api.get("/pgn/with-moves")
    assert answer.headers["content-type"].startswith("application/x-chess-pgn")
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    assert game.end().board().fen() == _final().fen()
    headers = game.headers
    assert headers["Result"] == "1/2-1/2" and headers["TimeControl"] == "180+2"
    assert headers["Date"] == "2026.05.20" and headers["White"] and headers["Black"]
    assert headers["Event"] == "chessrate game with-moves"


def test_pgn_tags_are_escaped() -> None:
    from chessrate.web.boards import pgn_tag

    assert pgn_tag('A "quoted" \\ name\nx') == 'A \\"quoted\\" \\\\ name x'


def test_a_game_without_moves_says_so(site_sample: Site, page: Page) -> None:
    page.goto(site_sample.base + "/games/s0001")
    assert "reported without its moves" in page.locator("p.no-moves").inner_text()
    assert page.locator("figure.board-figure").count() == 0


def test_the_live_game_shows_its_position_and_clocks(site_sample: Site, screen: Page) -> None:
    screen.goto(site_sample.base + "/live/live-board")
    screenshot(screen, f"site-live-board-{width_of(screen)}")
    assert_fits(screen)
    board = screen.locator("figure.board-figure svg")
    assert board.locator("use").count() == 32
    assert "1... d5" in (board.get_attribute("aria-label") or "")
    clocks = screen.locator("ul.clocks li")
    assert clocks.count() == 2
    assert "White" in clocks.nth(0).inner_text() and "min" in clocks.nth(0).inner_text()
    assert screen.locator("ul.clocks li.running").count() == 1


def test_play_waits_change_without_a_reload(site_sample: Site, screen: Page) -> None:
    screen.goto(site_sample.base + "/play")
    cell = screen.locator("table.seeks.open td.waiting").first
    before = cell.inner_text()
    screen.wait_for_timeout(2200)
    assert cell.inner_text() != before
    screenshot(screen, f"site-play-refresh-{width_of(screen)}")
    assert_fits(screen)
