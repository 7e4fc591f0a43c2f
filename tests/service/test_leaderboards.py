"""Honest leaderboards, on SQLite and PostgreSQL: by default a
pool lists its established players (site: S6's games and a rated game in the pool in
the last ``active_days`` before the ledger's date; arena: rated, A5, with a membership
valid on the ledger's date, A3; corr: established, C1); ``all=true`` lists everyone;
a player's rank; totals; paging bounds."""

from __future__ import annotations

from typing import Any

import pytest

from chessrate.errors import NotFound
from chessrate.systems import SiteRules

from .conftest import Api, MakeApi

RECENT = "2026-03-01T18:00:00Z"
"""The day of the ledgers' latest game below (the ledger's date)."""
LONG_AGO = "2025-10-01T12:00:00Z"
"""More than 90 days (the default ``active_days``) before it."""
ACTIVE_DAYS = 90
BLITZ = "5m+3s"
HUGE = "9223372036854775808"


def entries(api: Api, pool: str, everyone: bool = False, **params: Any) -> list[str]:
    answer = api.get(f"/leaderboards/{pool}", params={"all": everyone, "limit": 500, **params})
    assert answer.status_code == 200, answer.text
    return [e["player"] for e in answer.json()["entries"]]


def play(api: Api, prefix: str, player: str, opponent: str, count: int, at: str) -> None:
    """``count`` blitz draws between the two (each a rated blitz game)."""
    for n in range(count):
        api.game(f"{prefix}{n}", player, opponent, "1/2-1/2", time_control=BLITZ, played_at=at)


@pytest.fixture
def site_board(make_api: MakeApi) -> Api:
    """A site ledger: ten (S6's provisional games) blitz games for ``ten``, nine for
    ``nine``, ten long ago for ``old``; every game against ``host``; the ledger's date is
    2026-03-01 (the last game submitted)."""
    site = make_api("site")
    for player in ("host", "ten", "nine", "old"):
        site.player(player, name=player.title())
    play(site, "old", "old", "host", SiteRules().provisional_games, LONG_AGO)
    play(site, "ten", "ten", "host", SiteRules().provisional_games, RECENT)
    play(site, "nine", "nine", "host", SiteRules().provisional_games - 1, RECENT)
    return site


def test_site_lists_players_with_s6s_games_and_a_recent_game(site_board: Api) -> None:
    default = site_board.get("/leaderboards/blitz").json()
    assert default["established_only"] is True
    assert (default["ledger_date"], default["active_days"]) == ("2026-03-01", ACTIVE_DAYS)
    assert default["active_since"] == "2025-12-01"
    assert "since 2025-12-01" in default["listed"] and "S6" in default["listed"]
    shown = [e["player"] for e in default["entries"]]
    assert "ten" in shown and "host" in shown
    assert "nine" not in shown, "9 games: provisional (S6)"
    assert "old" not in shown, "no rated game in the last 90 days"

    everyone = site_board.get("/leaderboards/blitz", params={"all": "true"}).json()
    assert everyone["established_only"] is False
    assert {"nine", "old", "ten", "host"} == {e["player"] for e in everyone["entries"]}
    words = {e["player"]: e["state_words"] for e in everyone["entries"]}
    assert words["nine"] == "provisional, 9 of 10 games"
    assert words["ten"] == "established, 10 games"
    assert everyone["total"] == 4 and default["total"] == 2


def test_active_days_count_back_from_the_ledgers_latest_game(site_board: Api) -> None:
    ledger = site_board.ledger
    played = ledger.boards.ledger_date()
    assert played is not None and played.date().isoformat() == "2026-03-01"
    listed = {r.player for r in ledger.boards.leaderboard("blitz", established_only=True)[0]}
    assert "old" in listed, "no activity condition without active_days"
    for days, included in ((151, True), (150, False), (ACTIVE_DAYS, False)):
        board, _total = ledger.boards.leaderboard("blitz", established_only=True, active_days=days)
        # 2026-03-01 − 151 days = 2025-10-01, the day of old's games
        assert ("old" in {r.player for r in board}) is included, days
    # a later game moves the ledger's date; the last recorded game decides, not the latest
    # played_at
    site_board.game("late", "ten", "host", "1-0", time_control=BLITZ, played_at=LONG_AGO)
    after = ledger.boards.ledger_date()
    assert after is not None and after.date().isoformat() == "2025-10-01"
    assert "old" in entries(site_board, "blitz")


def test_an_annulled_last_game_counts_with_its_played_day(site_board: Api) -> None:
    """A rating last changed by an annulment (site S10) is as recent as the annulled
    game."""
    site_board.player("cheat")
    play(site_board, "c", "cheat", "host", 10, LONG_AGO)
    site_board.game("c-late", "cheat", "host", "1-0", time_control=BLITZ, played_at=RECENT)
    site_board.game("last", "ten", "host", "1-0", time_control=BLITZ, played_at=RECENT)
    assert "cheat" in entries(site_board, "blitz")
    annulled = site_board.post("/games/c-late/annul", {"reason": "engine"}, auth="moderator")
    assert annulled.status_code == 200, annulled.text
    assert "cheat" in entries(site_board, "blitz")  # 10 games again, the last one annulled
    annulled = site_board.post("/games/c9/annul", {"reason": "engine"}, auth="moderator")
    assert annulled.status_code == 200, annulled.text
    assert "cheat" not in entries(site_board, "blitz")  # 9 games


def test_rank_is_the_position_on_the_list(site_board: Api) -> None:
    for everyone in (False, True):
        board = site_board.get("/leaderboards/blitz", params={"all": everyone, "limit": 500}).json()
        assert board["entries"]
        for position, entry in enumerate(board["entries"], start=1):
            answer = site_board.get(
                f"/leaderboards/blitz/players/{entry['player']}",
                params={"all": everyone, "limit": 2},
            )
            assert answer.status_code == 200, answer.text
            rank = answer.json()
            assert (rank["rank"], entry["rank"]) == (position, position)
            assert rank["offset"] == (position - 1) // 2 * 2
            assert rank["page"] == (position - 1) // 2 + 1
            assert (rank["total"], rank["established_only"]) == (board["total"], not everyone)
            assert rank["name"] == entry["name"]


def test_rank_of_a_player_not_on_the_list_says_why(site_board: Api) -> None:
    def why(player: str, pool: str = "blitz", everyone: bool = False) -> str:
        answer = site_board.get(f"/leaderboards/{pool}/players/{player}", params={"all": everyone})
        assert answer.status_code == 404, answer.text
        return str(answer.json()["detail"])

    assert "9 rated games, fewer than 10 (S6)" in why("nine")
    assert "not active" in why("old") and "2025-10-01" in why("old")
    assert "no such player" in why("nobody")
    assert "no rating in the pool" in why("ten", "bullet")
    assert "no rating in the pool" in why("ten", "bullet", everyone=True)
    assert "not a pool" in why("ten", "moon")
    ok = site_board.get("/leaderboards/blitz/players/nine", params={"all": "true"})
    assert ok.status_code == 200


def test_a_bot_is_never_listed(site_board: Api) -> None:
    site_board.player("robot", bot=True, bot_rating="1600")
    site_board.game("b1", "ten", "robot", "1-0", time_control=BLITZ, played_at=RECENT)
    assert "robot" not in entries(site_board, "bots", everyone=True)
    answer = site_board.get("/leaderboards/bots/players/robot", params={"all": "true"})
    assert answer.status_code == 404 and "bots are not listed" in answer.json()["detail"]


def test_totals_say_both_counts(site_board: Api) -> None:
    pools = {p["pool"]: p for p in site_board.get("/leaderboards").json()["pools"]}
    assert (pools["blitz"]["established"], pools["blitz"]["everyone"]) == (2, 4)
    assert pools["blitz"]["total"] == pools["blitz"]["established"]
    assert (pools["bullet"]["established"], pools["bullet"]["everyone"]) == (0, 0)


def test_paging_bounds(site_board: Api) -> None:
    params = {"all": "true", "limit": 3}
    last = site_board.get("/leaderboards/blitz", params={**params, "offset": 3}).json()
    assert ([e["rank"] for e in last["entries"]], last["total"]) == ([4], 4)
    beyond = site_board.get("/leaderboards/blitz", params={**params, "offset": 4})
    assert beyond.status_code == 200
    assert (beyond.json()["entries"], beyond.json()["total"]) == ([], 4)
    for name, value in (("offset", HUGE), ("limit", HUGE), ("offset", "-1"), ("limit", "0")):
        answer = site_board.get("/leaderboards/blitz", params={name: value})
        assert answer.status_code == 422, (name, value, answer.text)
    answer = site_board.get("/leaderboards/blitz/players/ten", params={"limit": HUGE})
    assert answer.status_code == 422
    for query in (f"page={HUGE}", f"offset={HUGE}", "page=0", "offset=-1"):
        page = site_board.client.get(f"/leaderboards/blitz?{query}")
        assert page.status_code == 422, query
        assert page.headers["content-type"].startswith("text/html")
    page = site_board.client.get("/leaderboards/blitz?all=1&page=99")
    assert page.status_code == 200 and "No players on this page" in page.text


def test_arena_lists_rated_members(make_api: MakeApi) -> None:
    arena = make_api("arena")
    member = {"membership_until": "2026-12-31"}
    arena.player("ann", rating_blitz="1800", games_blitz=40, **member)
    arena.player("ben", rating_blitz="1700", games_blitz=40, **member)
    arena.player("lapsed", rating_blitz="1900", games_blitz=40, membership_until="2026-02-28")
    arena.player("never", rating_blitz="1600", games_blitz=40)
    arena.player("newbie", **member)
    arena.game("g1", "ann", "ben", "1-0", time_control="5m")
    arena.game("g2", "newbie", "ann", "1-0", time_control="5m")  # qualifying 1 of 5
    arena.player("today", rating_blitz="1500", games_blitz=40, membership_until="2026-03-01")

    board = arena.get("/leaderboards/blitz").json()
    assert board["established_only"] is True and board["ledger_date"] == "2026-03-01"
    assert board["active_days"] is None and "A3" in board["listed"]
    assert [e["player"] for e in board["entries"]] == ["ann", "ben", "today"]
    everyone = arena.get("/leaderboards/blitz", params={"all": "true"}).json()["entries"]
    assert [e["player"] for e in everyone] == ["lapsed", "ann", "ben", "never", "today", "newbie"]
    words = {e["player"]: e["state_words"] for e in everyone}
    assert (words["newbie"], words["ann"]) == ("qualifying: 1 of 5", "rated")
    assert next(e for e in everyone if e["player"] == "newbie")["display"] == "1500"

    def why(player: str) -> str:
        answer = arena.get(f"/leaderboards/blitz/players/{player}")
        assert answer.status_code == 404
        return str(answer.json()["detail"])

    assert "qualifying, not rated (A5)" in why("newbie")
    assert "ended on 2026-02-28" in why("lapsed")
    assert "none" in why("never")
    pools = {p["pool"]: p for p in arena.get("/leaderboards").json()["pools"]}
    assert (pools["blitz"]["established"], pools["blitz"]["everyone"]) == (3, 6)
    rank = arena.get("/leaderboards/blitz/players/newbie", params={"all": "true"}).json()
    assert rank["rank"] == 6


def test_corr_lists_established_players(make_api: MakeApi) -> None:
    corr = make_api("corr")
    corr.player("est", rating_corr="2000", games_corr=30)
    corr.player("prov", rating_corr="2100", games_corr=10)
    board = corr.get("/leaderboards/corr").json()
    assert [e["player"] for e in board["entries"]] == ["est"]
    everyone = corr.get("/leaderboards/corr", params={"all": "true"}).json()["entries"]
    assert [(e["player"], e["display"], e["state_words"]) for e in everyone] == [
        ("prov", "2100P (10)", "provisional, 10 of 25 games"),
        ("est", "2000", "established"),
    ]
    answer = corr.get("/leaderboards/corr/players/prov")
    assert answer.status_code == 404 and "provisional, not established (C1)" in answer.text
    assert corr.get("/leaderboards/corr/players/prov", params={"all": "true"}).json()["rank"] == 1


def test_the_ledger_refuses_an_unknown_pool(site_board: Api) -> None:
    with pytest.raises(NotFound, match="pool moon"):
        site_board.ledger.boards.rank("moon", "ten")


def test_the_pages_find_a_player_by_id_or_name(site_board: Api) -> None:
    def find(query: str, pool: str = "blitz") -> Any:
        return site_board.client.get(f"/leaderboards/{pool}?{query}", follow_redirects=False)

    rank = site_board.get("/leaderboards/blitz/players/ten").json()["rank"]
    for query in ("find=ten", "find=Ten", "find=TEN"):  # the id, the name in any case
        landing = find(query)
        assert landing.status_code == 303, query
        assert landing.headers["location"] == f"/leaderboards/blitz?found=ten#rank-{rank}"
    everyone = find("find=nine")
    assert everyone.status_code == 200
    assert "9 rated games, fewer than 10 (S6)" in everyone.text
    assert "Find them among everyone" in everyone.text
    assert find("all=1&find=nine").headers["location"].startswith("/leaderboards/blitz?all=1")
    nowhere = find("find=ten", "bullet")
    assert "no rating in the pool" in nowhere.text
    assert "Find them among everyone" not in nowhere.text
    assert "contains “zzz”" in find("find=zzz").text
