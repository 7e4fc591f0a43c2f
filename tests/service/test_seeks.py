"""Seeks and the pairing pass through the API with an injected clock, on SQLite and
PostgreSQL: the most pairs then the closest, the window widening while seeks wait, one
open seek per control, expiry (days for correspondence), busy players, marked players
apart, cancelling, validation, colours, bots."""

from __future__ import annotations

import time
from typing import Any

import pytest

from chessrate.ledger import Ledger
from chessrate.records import Player
from chessrate.server import create_app
from chessrate.timecontrol import parse_time_control
from tests.service.conftest import API, NOW, Api, FakeClock, TestClient

BLITZ = "180+2"


@pytest.fixture
def pool(site: Api) -> Api:
    """Players with imported site Elos: ann 1500, ben 1520, cat 1700, dan 1800; and
    two bots, robo (1700) and ruby (1450)."""
    for player_id, rating in (("ann", 1500), ("ben", 1520), ("cat", 1700), ("dan", 1800)):
        site.player(player_id, name=player_id.capitalize(), rating_site=str(rating),
                    games_site=20)  # fmt: skip
    site.player("robo", bot=True, bot_rating="1700")
    site.player("ruby", bot=True, bot_rating="1450")
    return site


def seek(api: Api, player: str, control: str = BLITZ, **fields: Any) -> dict[str, Any]:
    answer = api.post("/seeks", {"player": player, "time_control": control, **fields})
    assert answer.status_code == 201, answer.text
    assert answer.headers["Location"] == f"{API}/seeks/{answer.json()['id']}"
    return answer.json()  # type: ignore[no-any-return]


def pair(api: Api) -> dict[str, Any]:
    answer = api.post("/pair")
    assert answer.status_code == 200, answer.text
    assert answer.json()["failed"] == {}
    return answer.json()  # type: ignore[no-any-return]


def get_seek(api: Api, seek_id: int) -> dict[str, Any]:
    answer = api.get(f"/seeks/{seek_id}")
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def delete(api: Api, seek_id: int | str) -> Any:
    return api.client.delete(f"{API}/seeks/{seek_id}", headers=api.writer)


def players_of(game: dict[str, Any]) -> set[str]:
    return {game["white"], game["black"]}


def test_the_closer_opponent_is_preferred(pool: Api) -> None:
    a, b, c = seek(pool, "ann"), seek(pool, "ben"), seek(pool, "cat")
    assert (a["site_elo"], a["window"], a["waiting_seconds"]) == ("1500.00", 100, 0)
    done = pair(pool)
    assert [players_of(g) for g in done["pairs"]] == [{"ann", "ben"}]
    game = done["pairs"][0]
    assert (game["status"], game["time_control"], game["rated"]) == ("open", BLITZ, True)
    assert game["id"] == f"seek-{a['id']}-{b['id']}"
    assert game["deadline"]["kind"] == "first_move"  # the live games' lifecycle: S8 runs
    for mine, other in ((a, "ben"), (b, "ann")):
        now = get_seek(pool, mine["id"])
        assert (now["status"], now["live_game"], now["opponent"]) == ("paired", game["id"], other)
        assert now["live_game_url"] == f"{API}/live-games/{game['id']}"
    assert get_seek(pool, c["id"])["status"] == "open"
    assert [s["player"] for s in pool.get("/seeks").json()["seeks"]] == ["cat"]
    assert pair(pool)["pairs"] == []  # nobody paired twice


def test_one_pass_pairs_everyone_it_can(site: Api) -> None:
    """1450, 1500, 1549, 1599: the closest pair (1500-1549) first would leave 1450 and
    1599, 149 apart, to wait; the pass pairs 1450-1500 and 1549-1599 at once."""
    for player_id, rating in (("p1", 1450), ("p2", 1500), ("p3", 1549), ("p4", 1599)):
        site.player(player_id, rating_site=str(rating), games_site=20)
        seek(site, player_id)
    done = pair(site)
    assert sorted(sorted(players_of(g)) for g in done["pairs"]) == [["p1", "p2"], ["p3", "p4"]]
    assert site.get("/seeks").json()["total"] == 0


def test_marked_players_are_paired_only_with_marked_players(pool: Api) -> None:
    marked = pool.post("/players/ben/mark", {"reason": "engine use confirmed"}, auth="moderator")
    assert marked.status_code == 201, marked.text
    seek(pool, "ann"), seek(pool, "ben")  # 20 apart, but ben is marked
    assert pair(pool)["pairs"] == []
    pool.player("eve", rating_site="1510", games_site=20)
    assert (
        pool.post("/players/eve/mark", {"reason": "confirmed"}, auth="moderator").status_code == 201
    )
    seek(pool, "eve")
    assert [players_of(g) for g in pair(pool)["pairs"]] == [{"ben", "eve"}]
    lifted = pool.client.request(
        "DELETE", f"{API}/players/ann/mark", json={"reason": "x"}, headers=pool.moderator
    )
    assert lifted.status_code == 409  # ann was never marked
    assert get_seek(pool, 1)["status"] == "open"


def test_the_window_widens_while_seeks_wait(pool: Api) -> None:
    first, second = seek(pool, "ann"), seek(pool, "dan")  # 300 apart
    assert pair(pool)["pairs"] == []
    pool.clock.advance(seconds=39)  # windows 100 + 50 x 3 = 250
    assert pair(pool)["pairs"] == []
    listed = pool.get("/seeks").json()["seeks"]
    assert [(s["waiting_seconds"], s["window"]) for s in listed] == [(39, 250), (39, 250)]
    pool.clock.advance(seconds=1)  # 300: both windows reach the difference
    done = pair(pool)
    assert [players_of(g) for g in done["pairs"]] == [{"ann", "dan"}]
    paired = get_seek(pool, first["id"])
    assert (paired["waiting_seconds"], paired["window"]) == (40, None)
    assert get_seek(pool, second["id"])["status"] == "paired"


def test_a_newer_seek_must_wait_for_its_own_window(pool: Api) -> None:
    seek(pool, "ann")
    pool.clock.advance(seconds=120)  # ann's window is 500 now
    seek(pool, "dan")  # dan's is 100: 300 apart needs 40 s of his waiting
    pool.clock.advance(seconds=30)
    assert pair(pool)["pairs"] == []
    pool.clock.advance(seconds=10)
    assert len(pair(pool)["pairs"]) == 1


def test_one_open_seek_per_player_and_control(pool: Api) -> None:
    first = seek(pool, "ann", "180+2")
    again = pool.post("/seeks", {"player": "ann", "time_control": "3m+2s"})  # the same
    assert again.status_code == 409
    assert f"seek {first['id']}" in again.json()["detail"]
    seek(pool, "ann", "300+0")  # another control is fine
    assert delete(pool, first["id"]).status_code == 200
    seek(pool, "ann", "180+2")  # after cancelling, again


def test_a_seek_sent_again_with_its_key_is_the_same_seek(pool: Api) -> None:
    """A client that never got the answer sends the seek again with its key: the
    answer is the stored seek as it is now (paired meanwhile), not a second seek that
    would pair the player again once their game ends."""
    first = seek(pool, "ann", key="retry-1")
    assert first["key"] == "retry-1"
    seek(pool, "ben")
    (game,) = pair(pool)["pairs"]
    again = pool.post("/seeks", {"player": "ann", "time_control": "3m+2s", "key": "retry-1"})
    assert again.status_code == 200, again.text
    assert again.headers["Location"] == f"{API}/seeks/{first['id']}"
    body = again.json()
    assert (body["id"], body["status"], body["live_game"]) == (first["id"], "paired", game["id"])
    assert pool.get("/seeks", params={"player": "ann", "status": "all"}).json()["total"] == 1
    other = pool.post("/seeks", {"player": "ann", "time_control": "600+0", "key": "retry-1"})
    assert other.status_code == 409 and "other fields" in other.json()["detail"], other.text
    # the key is the player's own: another player may use it, and no key is no key
    assert seek(pool, "cat", key="retry-1")["id"] != first["id"]
    assert seek(pool, "dan")["key"] is None and seek(pool, "dan", "600+0")["key"] is None
    bot = pool.post("/seeks", {"player": "ben", "time_control": "600+0", "bot": True,
                               "key": "b"})  # fmt: skip
    assert bot.status_code == 409  # ben is playing ann: the refusal stores nothing
    played = seek(pool, "cat", "600+0", bot=True, key="bot-1")
    again = pool.post("/seeks", {"player": "cat", "time_control": "600+0", "bot": True,
                                 "key": "bot-1"})  # fmt: skip
    assert again.status_code == 200 and again.json()["live_game"] == played["live_game"]


def test_seeks_expire(pool: Api) -> None:
    old = seek(pool, "ann", rated=False)
    assert old["expires_at"].startswith("2026-03-01T12:10:00")  # 10 min (PairingRules)
    pool.clock.advance(seconds=599)
    assert pool.get("/seeks").json()["total"] == 1
    pool.clock.advance(seconds=1)
    assert pool.get("/seeks").json()["total"] == 0
    assert get_seek(pool, old["id"])["status"] == "expired"
    assert "expired" in delete(pool, old["id"]).json()["detail"]
    fresh = seek(pool, "ben", rated=False)  # would have paired with ann's seek
    assert pair(pool)["pairs"] == []
    assert get_seek(pool, fresh["id"])["status"] == "open"
    renewed = seek(pool, "ann", rated=False)  # the expired seek no longer blocks one
    assert len(pair(pool)["pairs"]) == 1
    assert get_seek(pool, renewed["id"])["status"] == "paired"
    assert pool.get("/seeks", params={"status": "expired"}).json()["total"] == 1


def test_a_correspondence_seek_waits_days(pool: Api) -> None:
    """A correspondence player comes back once a day or so: their seek waits 7 days
    (PairingRules.correspondence_expiry), not a live seek's 10 minutes."""
    slow = seek(pool, "ann", "3d")
    assert slow["expires_at"].startswith("2026-03-08T12:00:00")
    daily = seek(pool, "cat", "1 day/move")  # as the API writes a control (players' form)
    assert daily["time_control"] == "1d"
    pool.clock.advance(days=6, hours=23)
    assert get_seek(pool, slow["id"])["status"] == "open"
    seek(pool, "ben", "3 days/move")
    assert [players_of(g) for g in pair(pool)["pairs"]] == [{"ann", "ben"}]
    assert get_seek(pool, daily["id"])["status"] == "open"
    pool.clock.advance(hours=1)
    assert get_seek(pool, daily["id"])["status"] == "expired"  # 7 days to the second
    assert get_seek(pool, slow["id"])["status"] == "paired"


def test_the_pass_marks_expired_seeks(pool: Api) -> None:
    seek(pool, "ann")
    pool.clock.advance(minutes=11)
    assert pair(pool)["expired"] == 1
    assert pair(pool)["expired"] == 0


def test_the_pass_deletes_seeks_closed_past_the_retention(pool: Api) -> None:
    """A busy pool would keep every seek it ever had: the pass deletes the closed ones
    (paired, cancelled, expired) 30 days after their expiry, and only those."""
    closed = [seek(pool, "ann"), seek(pool, "ben")]
    assert len(pair(pool)["pairs"]) == 1
    closed.append(seek(pool, "cat"))
    assert delete(pool, closed[-1]["id"]).status_code == 200
    closed.append(seek(pool, "dan"))  # left to expire, 10 minutes on
    pool.clock.advance(days=30)
    waiting = seek(pool, "cat", "3d")  # an open seek: the pass runs
    assert (pair(pool)["expired"], pair(pool)["purged"]) == (1, 0)  # 30 days less 10 min
    assert [get_seek(pool, s["id"])["status"] for s in closed] == [
        "paired", "paired", "cancelled", "expired",
    ]  # fmt: skip
    pool.clock.advance(minutes=11)
    assert pair(pool)["purged"] == 4
    assert [pool.get(f"/seeks/{s['id']}").status_code for s in closed] == [404] * 4
    assert get_seek(pool, waiting["id"])["status"] == "open"
    assert pair(pool)["purged"] == 0


def test_a_retention_of_zero_keeps_every_seek(pool: Api) -> None:
    from chessrate.ledger.seeks import Seeks
    from chessrate.systems.site_pairing import PairingRules

    old = seek(pool, "ann")
    pool.clock.advance(days=400)
    seek(pool, "ben")
    report = Seeks(pool.ledger, PairingRules(retention=0)).pair(pool.clock.now)
    assert (report.expired, report.purged) == (1, 0)
    assert get_seek(pool, old["id"])["status"] == "expired"


def test_a_player_in_a_live_game_is_not_paired(pool: Api) -> None:
    opened = pool.post(
        "/live-games", {"id": "L1", "white": "ann", "black": "cat", "time_control": "600+0"}
    )
    assert opened.status_code == 201, opened.text
    mine = seek(pool, "ann")  # the seek is accepted and waits
    seek(pool, "ben")
    assert pair(pool)["pairs"] == []
    assert get_seek(pool, mine["id"])["status"] == "open"
    aborted = pool.post("/live-games/L1/abort", {"by": "cat"})
    assert aborted.status_code == 200, aborted.text
    assert [players_of(g) for g in pair(pool)["pairs"]] == [{"ann", "ben"}]


def test_a_correspondence_game_keeps_nobody_from_another(pool: Api) -> None:
    """A correspondence game lasts days: its players are paired in real time meanwhile
    (and a player in a real-time game is paired in correspondence)."""
    opened = pool.post(
        "/live-games", {"id": "C1", "white": "ann", "black": "cat", "time_control": "3d"}
    )
    assert opened.status_code == 201, opened.text
    seek(pool, "ann")
    seek(pool, "ben")
    [game] = pair(pool)["pairs"]
    assert players_of(game) == {"ann", "ben"}
    # ann and ben now play in real time: their correspondence seeks are paired all the
    # same, ann's next real-time seek waits for that game
    seek(pool, "ann", "1d")
    seek(pool, "ben", "1d")
    seek(pool, "ann", "600+0")
    seek(pool, "cat", "600+0")
    [game] = pair(pool)["pairs"]
    assert players_of(game) == {"ann", "ben"} and game["time_control"] == "1d"


def test_cancel(pool: Api) -> None:
    mine = seek(pool, "ann")
    cancelled = delete(pool, mine["id"])
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    assert cancelled.json()["closed_at"].startswith("2026-03-01T12:00:00")
    again = delete(pool, mine["id"])
    assert again.status_code == 409 and "already cancelled" in again.json()["detail"]
    assert delete(pool, 999).status_code == 404
    assert delete(pool, "x").status_code == 422
    a, _ = seek(pool, "ann"), seek(pool, "ben")
    pair(pool)
    paired = delete(pool, a["id"])
    assert paired.status_code == 409 and "paired" in paired.json()["detail"]
    anonymous = pool.client.delete(f"{API}/seeks/{a['id']}")
    assert anonymous.status_code == 401


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"time_control": BLITZ}, "player"),
        ({"player": "nobody", "time_control": BLITZ}, "player"),
        ({"player": "robo", "time_control": BLITZ}, "player"),  # bots do not seek
        ({"player": "ann"}, "time_control"),
        ({"player": "ann", "time_control": "soon"}, "time_control"),
        ({"player": "ann", "time_control": "14d"}, "time_control"),  # not rated (S2)
        ({"player": "ann", "time_control": "14 days/move"}, "time_control"),
        ({"player": "ann", "time_control": "0 days/move"}, "time_control"),
        ({"player": "ann", "time_control": BLITZ, "min_rating": 1600, "max_rating": 1400},
         "max_rating"),
        ({"player": "ann", "time_control": BLITZ, "min_rating": -5}, "min_rating"),
        ({"player": "ann", "time_control": BLITZ, "max_rating": "high"}, "max_rating"),
        ({"player": "ann", "time_control": BLITZ, "rated": "perhaps"}, "rated"),
        ({"player": "ann", "time_control": BLITZ, "colour": "white"}, "colour"),
        ({"player": "ann", "time_control": BLITZ, "key": "k" * 65}, "key"),
        ({"player": "ann", "time_control": BLITZ, "key": ["k"]}, "key"),
    ],
)  # fmt: skip
def test_invalid_seeks_name_the_field(pool: Api, body: dict[str, Any], field: str) -> None:
    answer = pool.post("/seeks", body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"][0]["field"] == field, answer.text


def test_a_casual_correspondence_seek_beyond_rated_play_is_fine(pool: Api) -> None:
    seek(pool, "ann", "14d", rated=False)


def test_list_by_player_and_paged(pool: Api) -> None:
    for control in ("60+0", "120+1", "180+2"):
        seek(pool, "ann", control)
    seek(pool, "ben", "900+10")
    page = pool.get("/seeks", params={"limit": 2}).json()
    assert (page["total"], len(page["seeks"])) == (4, 2)
    assert [s["time_control"] for s in page["seeks"]] == ["60+0", "120+1"]  # oldest first
    rest = pool.get("/seeks", params={"limit": 2, "offset": 2}).json()
    assert [s["player"] for s in rest["seeks"]] == ["ann", "ben"]
    mine = pool.get("/seeks", params={"player": "ben"}).json()
    assert [s["time_control"] for s in mine["seeks"]] == ["900+10"]
    wrong = pool.get("/seeks", params={"status": "lost"})
    assert wrong.status_code == 422 and wrong.json()["detail"][0]["field"] == "status"
    assert pool.get("/seeks", params={"limit": 0}).status_code == 422


def test_colours_balance_recent_colours(pool: Api) -> None:
    for n in range(2):  # ann had White twice
        pool.game(f"old{n}", "ann", "cat", "1/2-1/2", time_control="600+0", rated=False)
    seek(pool, "ann")  # the older seek: White on a tie, but ann has more whites
    seek(pool, "ben")
    game = pair(pool)["pairs"][0]
    assert (game["white"], game["black"]) == ("ben", "ann")


def test_colours_on_a_tie_go_to_the_older_seek(pool: Api) -> None:
    seek(pool, "ben")
    seek(pool, "ann")
    game = pair(pool)["pairs"][0]
    assert (game["white"], game["black"]) == ("ben", "ann")


def test_play_a_bot_closest_to_the_site_elo(pool: Api) -> None:
    ann = pool.post("/seeks", {"player": "ann", "time_control": BLITZ, "bot": True})
    assert ann.status_code == 201, ann.text
    body = ann.json()
    assert (body["status"], body["bot"], body["opponent"]) == ("paired", True, "ruby")
    game = pool.get(f"/live-games/{body['live_game']}").json()
    assert players_of(game) == {"ann", "ruby"} and game["status"] == "open"
    assert game["bot"] == ("white" if game["white"] == "ruby" else "black")
    cat = pool.post("/seeks", {"player": "cat", "time_control": BLITZ, "bot": True}).json()
    assert cat["opponent"] == "robo"
    ranged = pool.post(
        "/seeks", {"player": "ben", "time_control": BLITZ, "bot": True, "min_rating": 1600}
    )
    assert ranged.json()["opponent"] == "robo"
    none = pool.post(
        "/seeks", {"player": "dan", "time_control": BLITZ, "bot": True, "max_rating": 1400}
    )
    assert none.status_code == 409 and "no bot" in none.json()["detail"]
    busy = pool.post("/seeks", {"player": "ann", "time_control": "600+0", "bot": True})
    assert busy.status_code == 409 and "live game" in busy.json()["detail"]


def test_seeks_need_a_site_ledger(make_api: Any) -> None:
    arena = make_api("arena")
    arena.player("ann")
    answer = arena.post("/seeks", {"player": "ann", "time_control": BLITZ})
    assert answer.status_code == 422
    assert "site ledgers" in answer.json()["detail"][0]["msg"]
    assert arena.ledger.seeks.pair(arena.clock()).pairs == []


def test_each_worker_pairs_by_itself(ledger_url: str) -> None:
    ledger = Ledger.create(ledger_url, "site", NOW)
    for player_id in ("ann", "ben"):
        ledger.players.create(Player(player_id), NOW)
    app = create_app(ledger, clock=FakeClock(), sweep_every=0, pair_every=0.05)
    with TestClient(app) as client:
        seeks = ledger.seeks
        made = [seeks.create(p, parse_time_control(BLITZ), True, None, None, NOW).id
                for p in ("ann", "ben")]  # fmt: skip
        deadline = time.monotonic() + 20
        while client.get(f"{API}/seeks/{made[0]}").json()["status"] != "paired":
            assert time.monotonic() < deadline, "the worker's pass did not pair the seeks"
            time.sleep(0.05)
        assert client.get(f"{API}/seeks/{made[1]}").json()["status"] == "paired"
    ledger.dispose()
