"""site S7-S9 through the API with an injected clock, on SQLite and PostgreSQL: live
games, their deadlines (applied by ``POST /sweep`` and by a late action), aborts,
bot moves, expiry, and otb confirmation (S2)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import chess.pgn
import pytest

from chessrate.ledger import Ledger
from chessrate.records import Player
from chessrate.server import create_app
from tests.service.conftest import API, NOW, Api, FakeClock, TestClient

BULLET, BLITZ, RAPID, CLASSICAL = "60+0", "180+2", "600+0", "1800+0"
DATA = Path(__file__).resolve().parents[1] / "data" / "pgn"


@pytest.fixture
def live(site_pair: Api) -> Api:
    """alice and bob, plus a bot ``robo`` with a fixed rating of 1700."""
    site_pair.player("robo", bot=True, bot_rating="1700")
    return site_pair


def open_game(
    api: Api, game_id: str, white: str = "alice", black: str = "bob", **fields: Any
) -> Any:
    answer = api.post("/live-games", {"id": game_id, "white": white, "black": black, **fields})
    assert answer.status_code == 201, answer.text
    return answer.json()


def move(api: Api, game_id: str, ply: int, **fields: Any) -> Any:
    return api.post(f"/live-games/{game_id}/moves", {"ply": ply, **fields})


SHUFFLE = ("Nf3", "Nf6", "Ng1", "Ng8")
"""Legal moves for as long as a test plays: the knights out and back."""


def play(api: Api, game_id: str, plies: int, every: float = 1) -> dict[str, Any]:
    """Make ``plies`` moves, one every ``every`` seconds."""
    body: dict[str, Any] = {}
    for ply in range(1, plies + 1):
        api.clock.advance(seconds=every)
        answer = move(api, game_id, ply, move=SHUFFLE[(ply - 1) % 4])
        assert answer.status_code == 200, answer.text
        body = answer.json()
    return body


def sweep(api: Api) -> list[str]:
    answer = api.post("/sweep")
    assert answer.status_code == 200, answer.text
    assert answer.json()["failed"] == {}
    return [game["id"] for game in answer.json()["ended"]]


def live_game(api: Api, game_id: str) -> dict[str, Any]:
    answer = api.get(f"/live-games/{game_id}")
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def stored(api: Api, game_id: str) -> dict[str, Any]:
    answer = api.get(f"/games/{game_id}")
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def unmoved(api: Api, *players: str) -> None:
    for player in players:
        assert set(api.ratings(player).values()) <= {None, "1500.00"}, api.ratings(player)


# -- S8: first-move deadlines ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("control", "seconds"),
    [(BULLET, 30), (BLITZ, 30), (RAPID, 60), (CLASSICAL, 60), ("-", 86400), ("3d", 86400)],
)
def test_s8_first_move_deadline_by_game_type(live: Api, control: str, seconds: int) -> None:
    game = open_game(live, "g1", time_control=control)
    assert game["deadline"]["kind"] == "first_move"
    assert game["deadline"]["player"] == "alice"
    live.clock.advance(seconds=seconds - 1)
    assert sweep(live) == []
    live.clock.advance(seconds=1)
    assert sweep(live) == ["g1"]
    ended = live_game(live, "g1")
    assert (ended["status"], ended["outcome"], ended["result"]) == ("ended", "void", "*")
    assert ended["termination"] == "timeout"
    assert ended["ended_by"] == "sweeper"
    assert "S8" in ended["ending"]
    assert stored(live, "g1")["outcome"] == "void"
    unmoved(live, "alice", "bob")


def test_s8_black_first_move_deadline_runs_from_white_first_move(live: Api) -> None:
    open_game(live, "g1", time_control=RAPID)
    live.clock.advance(seconds=50)
    assert move(live, "g1", 1, by="alice").status_code == 200
    live.clock.advance(seconds=59)  # 109 s after opening: black still has 1 s
    assert sweep(live) == []
    assert live_game(live, "g1")["deadline"]["player"] == "bob"
    live.clock.advance(seconds=1)
    assert sweep(live) == ["g1"]
    ended = live_game(live, "g1")
    assert (ended["outcome"], ended["plies"]) == ("void", 1)
    unmoved(live, "alice", "bob")


def test_s8_first_move_deadline_against_a_bot_live(live: Api) -> None:
    """The human keeps the type's deadline (blitz: 30 s); the bot's move has 60 s."""
    human_first = open_game(live, "g1", white="alice", black="robo", time_control=BLITZ)
    assert human_first["bot"] == "black"
    assert human_first["deadline"]["at"].endswith("12:00:30Z")
    live.clock.advance(seconds=10)
    bot_turn = move(live, "g1", 1).json()
    assert bot_turn["deadline"]["kind"] == "first_move"
    assert bot_turn["deadline"]["player"] == "robo"
    live.clock.advance(seconds=59)
    assert sweep(live) == []
    live.clock.advance(seconds=1)
    assert sweep(live) == ["g1"]
    ended = live_game(live, "g1")
    assert (ended["outcome"], ended["termination"]) == ("void", "bot_no_move")
    unmoved(live, "alice")


def test_s8_first_move_deadline_against_a_bot_unclocked(live: Api) -> None:
    open_game(live, "g1", white="robo", black="alice", time_control="-")
    live.clock.advance(minutes=10, seconds=-1)
    assert sweep(live) == []
    live.clock.advance(seconds=1)
    assert sweep(live) == ["g1"]
    assert live_game(live, "g1")["outcome"] == "void"


def test_s8_a_late_first_move_is_refused_and_aborts_the_game(live: Api) -> None:
    open_game(live, "g1", time_control=BULLET)
    live.clock.advance(seconds=31)
    late = move(live, "g1", 1)
    assert late.status_code == 409
    assert "too late" in late.json()["detail"]
    ended = live_game(live, "g1")
    assert (ended["status"], ended["outcome"], ended["plies"]) == ("ended", "void", 0)
    assert sweep(live) == []  # ended once


# -- S8: resign, abandon, abort before and after both moved ---------------------------------


@pytest.mark.parametrize("termination", ["resign", "abandon", "timeout", "disconnect"])
def test_s8_ending_before_both_moved_is_void(live: Api, termination: str) -> None:
    open_game(live, "g1", time_control=BLITZ)
    play(live, "g1", 1)
    answer = live.post("/live-games/g1/finish", {"result": "1-0", "termination": termination})
    assert answer.status_code == 200, answer.text
    assert answer.json()["outcome"] == "void"
    assert stored(live, "g1")["plies"] == 1
    unmoved(live, "alice", "bob")


@pytest.mark.parametrize("termination", ["resign", "abandon", "timeout", "disconnect"])
def test_s8_ending_after_both_moved_is_a_rated_loss(live: Api, termination: str) -> None:
    open_game(live, "g1", time_control=BLITZ)
    play(live, "g1", 2)
    answer = live.post(
        "/live-games/g1/finish", {"result": "0-1", "termination": termination, "by": "alice"}
    )
    assert answer.status_code == 200, answer.text
    assert (answer.json()["outcome"], answer.json()["ended_by"]) == ("rated", "alice")
    assert live.ratings("alice")["blitz"] == "1484.00"
    assert live.ratings("bob")["blitz"] == "1516.00"
    game = stored(live, "g1")
    assert (game["termination"], game["plies"], game["result"]) == (termination, 2, "0-1")


def test_s8_abort_only_until_both_moved(live: Api) -> None:
    open_game(live, "g1", time_control=RAPID)
    play(live, "g1", 1)
    aborted = live.post("/live-games/g1/abort", {"by": "bob"})
    assert aborted.status_code == 200, aborted.text
    assert aborted.json()["outcome"] == "void"
    assert "aborted by bob" in aborted.json()["ending"]

    open_game(live, "g2", time_control=RAPID)
    play(live, "g2", 2)
    refused = live.post("/live-games/g2/abort", {"by": "alice"})
    assert refused.status_code == 409
    assert "resign instead" in refused.json()["detail"]
    assert live_game(live, "g2")["status"] == "open"
    stranger = live.post("/live-games/g2/finish", {"result": "1-0", "by": "robo"})
    assert stranger.status_code == 422
    assert stranger.json()["detail"][0]["field"] == "by"


def test_s8_clock_runs_out_after_both_moved(live: Api) -> None:
    """1+0: the clocks start when both moved; White spends 20 s on move 2, then Black
    20 s, then White has 40 s left for move 3."""
    open_game(live, "g1", time_control=BULLET)
    play(live, "g1", 2, every=5)
    live.clock.advance(seconds=20)
    move(live, "g1", 3)
    live.clock.advance(seconds=20)
    after_four = move(live, "g1", 4).json()
    assert after_four["deadline"]["kind"] == "clock"
    live.clock.advance(seconds=39)
    assert sweep(live) == []
    live.clock.advance(seconds=1)
    assert sweep(live) == ["g1"]
    ended = live_game(live, "g1")
    assert (ended["result"], ended["termination"], ended["outcome"]) == ("0-1", "timeout", "rated")
    assert live.ratings("bob")["bullet"] == "1516.00"


def test_s8_correspondence_days_per_move_after_both_moved(live: Api) -> None:
    open_game(live, "g1", time_control="2d")
    play(live, "g1", 3)
    live.clock.advance(days=2, seconds=-1)
    assert sweep(live) == []
    live.clock.advance(seconds=1)
    assert sweep(live) == ["g1"]
    ended = live_game(live, "g1")
    assert (ended["result"], ended["termination"], ended["outcome"]) == ("1-0", "timeout", "rated")


# -- S7: bots -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bot_side", "plies", "outcome"),
    [
        ("black", 17, "void"),  # Black's move 9 (ply 18) missing
        ("black", 19, "rated"),  # Black's move 10 (ply 20) missing: alice (White) loses
        ("white", 16, "void"),  # White's move 9 (ply 17) missing
        ("white", 18, "rated"),  # White's move 10 (ply 19) missing: alice (Black) loses
    ],
)
def test_s7_missing_bot_move_void_before_move_10_then_the_humans_loss(
    live: Api, bot_side: str, plies: int, outcome: str
) -> None:
    white, black = ("robo", "alice") if bot_side == "white" else ("alice", "robo")
    open_game(live, "g1", white=white, black=black, time_control=RAPID)
    waiting = play(live, "g1", plies)
    assert waiting["deadline"]["kind"] == "bot_move"
    assert waiting["deadline"]["player"] == "robo"
    live.clock.advance(seconds=59)
    assert sweep(live) == []
    live.clock.advance(seconds=1)
    assert sweep(live) == ["g1"]
    ended = live_game(live, "g1")
    assert (ended["termination"], ended["outcome"]) == ("bot_no_move", outcome)
    human_loses = "0-1" if bot_side == "black" else "1-0"
    assert ended["result"] == (human_loses if outcome == "rated" else "*")
    if outcome == "rated":
        assert live.ratings("alice")["bots"] != "1500.00"
    else:
        unmoved(live, "alice")


def test_s7_unclocked_bot_move_has_10_minutes(live: Api) -> None:
    open_game(live, "g1", white="alice", black="robo", time_control="-")
    play(live, "g1", 21)
    live.clock.advance(minutes=10)
    assert sweep(live) == ["g1"]
    ended = live_game(live, "g1")
    assert (ended["result"], ended["outcome"]) == ("0-1", "rated")


@pytest.mark.parametrize("termination", ["timeout", "abandon"])
def test_s7_a_bot_never_loses_on_time_or_by_abandonment(live: Api, termination: str) -> None:
    open_game(live, "g1", white="alice", black="robo", time_control=BLITZ)
    play(live, "g1", 10)
    refused = live.post("/live-games/g1/finish", {"result": "1-0", "termination": termination})
    assert refused.status_code == 422
    assert "a bot never loses" in refused.json()["detail"][0]["msg"]
    assert live_game(live, "g1")["status"] == "open"  # nothing applied
    won = live.post("/live-games/g1/finish", {"result": "1-0", "termination": "resign"})
    assert won.json()["outcome"] == "rated"


def test_s7_the_bot_side_must_agree_with_the_players(live: Api) -> None:
    wrong = live.post(
        "/live-games",
        {"id": "g1", "white": "alice", "black": "bob", "time_control": BLITZ, "bot": "black"},
    )
    assert wrong.status_code == 422
    assert wrong.json()["detail"][0]["field"] == "bot"


@pytest.mark.parametrize("termination", ["expired", "bot_no_move"])
def test_s7_s9_service_endings_are_not_reported_by_clients(live: Api, termination: str) -> None:
    open_game(live, "g1", white="alice", black="robo", time_control="-")
    play(live, "g1", 4)
    refused = live.post("/live-games/g1/finish", {"result": "0-1", "termination": termination})
    assert refused.status_code == 422
    assert refused.json()["detail"][0]["field"] == "termination"


# -- S9: expiry -----------------------------------------------------------------------------


def test_s9_rated_unclocked_game_expires_after_7_days_as_the_loss_of_the_player_to_move(
    live: Api,
) -> None:
    open_game(live, "g1", time_control="-")
    waiting = play(live, "g1", 3, every=3600)
    assert waiting["deadline"]["kind"] == "expiry"
    assert waiting["deadline"]["player"] == "bob"
    live.clock.advance(days=7, seconds=-1)
    assert sweep(live) == []
    live.clock.advance(seconds=1)
    assert sweep(live) == ["g1"]
    ended = live_game(live, "g1")
    assert (ended["result"], ended["termination"], ended["outcome"]) == ("1-0", "expired", "rated")
    assert live.ratings("alice")["unclocked"] == "1516.00"
    assert "S9" in ended["ending"]


def test_s9_casual_unclocked_game_never_expires_once_both_moved(live: Api) -> None:
    open_game(live, "g1", time_control="-", rated=False)
    waiting = play(live, "g1", 2)
    assert waiting["deadline"] is None
    live.clock.advance(days=365)
    assert sweep(live) == []
    assert live_game(live, "g1")["status"] == "open"
    finished = live.post("/live-games/g1/finish", {"result": "1/2-1/2"})
    assert finished.json()["outcome"] == "unrated"


def test_s9_casual_unclocked_game_before_both_moved_still_aborts(live: Api) -> None:
    open_game(live, "g1", time_control="-", rated=False)
    play(live, "g1", 1)
    live.clock.advance(hours=24)
    assert sweep(live) == ["g1"]
    ended = live_game(live, "g1")
    assert "aborted" in ended["ending"]
    assert ended["outcome"] == "unrated"  # a casual game is unrated whatever its end (S1)


# -- S2: otb games are rated once the other player confirms ------------------------------


def otb(api: Api, game_id: str, by: str = "alice", result: str = "1-0") -> Any:
    return api.post(
        "/live-games",
        {"id": game_id, "white": "alice", "black": "bob", "venue": "otb", "result": result,
         "by": by, "played_at": "2026-03-01T10:00:00Z", "time_control": "90m+30s"},
    )  # fmt: skip


def test_s2_otb_game_is_rated_only_when_the_other_player_confirms(live: Api) -> None:
    registered = otb(live, "o1")
    assert registered.status_code == 201, registered.text
    assert registered.json()["status"] == "awaiting_confirmation"
    assert live.get("/games/o1").status_code == 404  # nothing rated yet
    own = live.post("/live-games/o1/confirm", {"by": "alice"})
    assert own.status_code == 422
    assert own.json()["detail"][0]["field"] == "by"
    confirmed = live.post("/live-games/o1/confirm", {"by": "bob"})
    assert confirmed.status_code == 200, confirmed.text
    assert (confirmed.json()["status"], confirmed.json()["outcome"]) == ("ended", "rated")
    game = stored(live, "o1")
    assert (game["venue"], game["confirmed"], game["played_at"]) == (
        "otb", True, "2026-03-01T10:00:00Z",
    )  # fmt: skip
    assert live.ratings("alice")["otb"] == "1516.00"
    assert live.ratings("alice")["site"] == "1512.00"  # weight 0.75
    again = live.post("/live-games/o1/confirm", {"by": "bob"})
    assert again.status_code == 200  # the same confirmation: the same answer
    assert live.get("/games/o1").json()["seq"] == game["seq"]


def test_s2_a_disputed_otb_game_is_never_rated(live: Api) -> None:
    otb(live, "o1")
    disputed = live.post("/live-games/o1/dispute", {"by": "bob", "reason": "I won"})
    assert disputed.status_code == 200, disputed.text
    assert disputed.json()["status"] == "disputed"
    assert "I won" in disputed.json()["ending"]
    assert live.post("/live-games/o1/confirm", {"by": "bob"}).status_code == 409
    assert live.get("/games/o1").status_code == 404
    unmoved(live, "alice", "bob")


# -- the API's own behaviour ----------------------------------------------------------------


def test_live_games_refuse_bad_input_naming_the_field(live: Api) -> None:
    cases = [
        ({"id": "g1", "white": "alice", "black": "zed", "time_control": BLITZ}, "black"),
        ({"id": "g1", "white": "alice", "black": "bob"}, "time_control"),
        ({"id": "g1", "white": "alice", "black": "bob", "time_control": "9d"}, "time_control"),
        ({"id": "g1", "white": "alice", "black": "bob", "time_control": "x"}, "time_control"),
        ({"id": "g1", "white": "alice", "black": "bob", "time_control": BLITZ, "colour": 1},
         "colour"),
        ({"id": "g1", "white": "alice", "black": "bob", "venue": "otb"}, "result"),
    ]  # fmt: skip
    for body, field in cases:
        answer = live.post("/live-games", body)
        assert answer.status_code == 422, (body, answer.text)
        assert answer.json()["detail"][0]["field"] == field, answer.text
    assert live.get("/live-games").json()["count"] == 0


def test_live_game_moves_are_idempotent_and_in_order(live: Api) -> None:
    first = open_game(live, "g1", time_control=RAPID)
    again = live.post(
        "/live-games", {"id": "g1", "white": "alice", "black": "bob", "time_control": RAPID}
    )
    assert again.status_code == 200
    assert again.json()["opened_at"] == first["opened_at"]
    other = live.post(
        "/live-games", {"id": "g1", "white": "bob", "black": "alice", "time_control": RAPID}
    )
    assert other.status_code == 409
    play(live, "g1", 2)
    assert move(live, "g1", 2, move="Nf6").status_code == 200  # a retry
    assert move(live, "g1", 2, move="e5").status_code == 409
    assert move(live, "g1", 5).status_code == 409
    wrong_side = move(live, "g1", 3, by="bob")
    assert wrong_side.status_code == 422
    assert live_game(live, "g1")["plies"] == 2
    assert [m["move"] for m in live_game(live, "g1")["moves"]] == ["Nf3", "Nf6"]


def test_live_moves_are_checked_legal_and_the_rated_game_keeps_them_for_screening(
    live: Api,
) -> None:
    """Moves (SAN or UCI) are checked as they come, as on ``POST /games``: an illegal
    one is refused naming the ply and the move, and nothing is recorded. A game whose
    every ply carried a move is rated with them (UCI), waiting for the detector."""
    open_game(live, "g1", time_control=RAPID)
    for ply, text in enumerate(["e4", "e7e5", "Nf3"], 1):
        live.clock.advance(seconds=2)
        assert move(live, "g1", ply, move=text).status_code == 200
    illegal = move(live, "g1", 4, move="Ke6")
    assert illegal.status_code == 422, illegal.text
    error = illegal.json()["detail"][0]
    assert (error["where"], error["field"]) == ("live game g1", "move")
    assert "ply 4 (2... 'Ke6'): not a legal move in the position" in error["msg"]
    assert live_game(live, "g1")["plies"] == 3
    assert move(live, "g1", 4, move="Nc6").status_code == 200
    finished = live.post("/live-games/g1/finish", {"result": "1-0", "termination": "resign",
                                                   "by": "bob"})  # fmt: skip
    assert finished.status_code == 200, finished.text
    assert stored(live, "g1")["moves"] == ["e2e4", "e7e5", "g1f3", "b8c6"]
    (waiting,) = live.ledger.analyses.pending(10, 1)
    assert (waiting.id, waiting.moves) == ("g1", ("e4", "e7e5", "Nf3", "Nc6"))
    assert live.ledger.analyses.counts().pending == 1  # once, though kept in two places


def test_live_moves_after_a_ply_without_one_are_labels(live: Api) -> None:
    """A ply may come without its move; the moves are then the clock's plies only:
    not checked, and the rated game has none (nothing to screen)."""
    open_game(live, "g1", time_control=RAPID)
    live.clock.advance(seconds=2)
    assert move(live, "g1", 1).status_code == 200
    live.clock.advance(seconds=2)
    assert move(live, "g1", 2, move="anything").status_code == 200
    finished = live.post("/live-games/g1/finish", {"result": "1/2-1/2"})
    assert finished.status_code == 200, finished.text
    assert stored(live, "g1")["moves"] is None


def moves_of(name: str) -> list[str]:
    """The SAN moves of the one game of ``tests/data/pgn/NAME``."""
    with (DATA / name).open(encoding="utf-8") as handle:
        game = chess.pgn.read_game(handle)
    assert game is not None
    board = game.board()
    sans = []
    for played in game.mainline_moves():
        sans.append(board.san(played))
        board.push(played)
    return sans


def play_moves(api: Api, game_id: str, moves: list[str], every: float = 1) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for ply, text in enumerate(moves, 1):
        api.clock.advance(seconds=every)
        answer = move(api, game_id, ply, move=text)
        assert answer.status_code == 200, answer.text
        body = answer.json()
    return body


def test_a_move_that_mates_ends_the_game_at_once(live: Api) -> None:
    """The rules of play end the game at checkmate: the mating move's answer is the
    ended game (the mated side's loss, rated); a finish with that result answers it
    again, another result or a further move is refused."""
    open_game(live, "g1", time_control=RAPID)
    ended = play_moves(live, "g1", ["f3", "e5", "g4", "Qh4#"], every=2)
    assert (ended["status"], ended["result"], ended["termination"]) == ("ended", "0-1", "normal")
    assert ended["ending"] == "checkmate after 4 plies: 0-1 (the rules of play)"
    assert (ended["ended_by"], ended["outcome"], ended["deadline"]) == ("bob", "rated", None)
    assert stored(live, "g1")["result"] == "0-1"
    assert stored(live, "g1")["moves"] == ["f2f3", "e7e5", "g2g4", "d8h4"]
    again = live.post("/live-games/g1/finish", {"result": "0-1"})
    assert again.status_code == 200, again.text
    assert again.json() == ended
    wrong = live.post("/live-games/g1/finish", {"result": "1-0"})
    assert wrong.status_code == 409, wrong.text
    assert "checkmate after 4 plies" in wrong.json()["detail"]
    assert move(live, "g1", 5, move="Kf2").status_code == 409
    assert live.ratings("bob")["rapid"] != "1500.00"
    assert live.ledger.verify() == []


def test_a_move_that_stalemates_ends_the_game_drawn(live: Api) -> None:
    """Sam Loyd's stalemate in ten moves: the 19th ply ends the game, a draw."""
    board = chess.Board()
    sans = []
    for text in STALEMATE_SAN:
        sans.append(board.san(board.parse_san(text)))
        board.push_san(text)
    open_game(live, "g1", time_control=RAPID)
    ended = play_moves(live, "g1", sans)
    assert (ended["status"], ended["result"], ended["plies"]) == ("ended", "1/2-1/2", 19)
    assert ended["ending"] == "stalemate after 19 plies: 1/2-1/2 (the rules of play)"
    assert stored(live, "g1")["result"] == "1/2-1/2"


STALEMATE_SAN = [
    "e3",
    "a5",
    "Qh5",
    "Ra6",
    "Qxa5",
    "h5",
    "h4",
    "Rah6",
    "Qxc7",
    "f6",
    "Qxd7+",
    "Kf7",
    "Qxb7",
    "Qd3",
    "Qxb8",
    "Qh7",
    "Qxc8",
    "Kg6",
    "Qe6",
]


def test_a_loss_on_time_against_a_lone_king_is_a_draw(live: Api) -> None:
    """A real blitz game (lichess.org/0QMdshMI) left Black a lone king. Black running
    out of time loses (White can mate); White running out of time draws (Black cannot
    mate), by the sweeper or as a client reports it."""
    sans = moves_of("lichess_lone_king.pgn")
    assert len(sans) == 79
    for game_id, extra in (("black-flags", []), ("white-flags", ["Kf7"])):
        open_game(live, game_id, time_control=RAPID)
        body = play_moves(live, game_id, [*sans, *extra])
        assert body["deadline"]["kind"] == "clock", body
    live.clock.advance(seconds=600)
    assert sorted(sweep(live)) == ["black-flags", "white-flags"]
    lost = live_game(live, "black-flags")
    assert (lost["result"], lost["termination"]) == ("1-0", "timeout")
    drawn = live_game(live, "white-flags")
    assert (drawn["result"], drawn["termination"], drawn["outcome"]) == (
        "1/2-1/2", "timeout", "rated",
    )  # fmt: skip
    assert "Black has not the material to mate: a draw" in drawn["ending"]
    open_game(live, "reported", time_control=RAPID)
    play_moves(live, "reported", sans)
    refused = live.post("/live-games/reported/finish", {"result": "0-1", "termination": "timeout"})
    assert refused.status_code == 422, refused.text
    error = refused.json()["detail"][0]
    assert (error["where"], error["field"]) == ("live game reported", "result")
    assert "Black has not the material to mate after ply 79" in error["msg"]
    drawn_report = live.post(
        "/live-games/reported/finish", {"result": "1/2-1/2", "termination": "timeout"}
    )
    assert drawn_report.status_code == 200, drawn_report.text
    assert live.ledger.verify() == []


def test_live_games_list_by_status_and_player(live: Api) -> None:
    open_game(live, "g1", time_control=RAPID)
    open_game(live, "g2", white="bob", black="robo", time_control=RAPID)
    live.post("/live-games/g1/abort", {"by": "alice"})
    assert [g["id"] for g in live.get("/live-games?status=open").json()["games"]] == ["g2"]
    assert [g["id"] for g in live.get("/live-games?status=ended").json()["games"]] == ["g1"]
    assert live.get("/live-games?player=alice").json()["count"] == 1
    assert live.get("/live-games?status=nope").status_code == 422
    assert live.get("/live-games/zz").status_code == 404


def test_live_games_need_a_writer_token(live: Api) -> None:
    body = {"id": "g1", "white": "alice", "black": "bob", "time_control": RAPID}
    assert live.post("/live-games", body, auth="none").status_code == 401
    assert live.post("/sweep", auth="none").status_code == 401


def test_live_games_are_for_site_ledgers(make_api: Any) -> None:
    arena = make_api("arena")
    arena.player("alice")
    arena.player("bob")
    body = {"id": "g1", "white": "alice", "black": "bob", "time_control": RAPID}
    answer = arena.post("/live-games", body)
    assert answer.status_code == 422
    assert "site ledgers" in answer.json()["detail"][0]["msg"]
    assert arena.post("/sweep").json() == {"ended": [], "failed": {}}


def test_live_ended_games_verify_like_submitted_ones(live: Api) -> None:
    open_game(live, "g1", time_control="-")
    play(live, "g1", 3)
    open_game(live, "g2", white="alice", black="robo", time_control=BLITZ)
    play(live, "g2", 20)
    live.clock.advance(days=8)
    assert sorted(sweep(live)) == ["g1", "g2"]
    assert live.ledger.verify() == []


def test_the_service_sweeps_by_itself(ledger_url: str) -> None:
    """``create_app(..., sweep_every=...)``: the worker's background sweeper applies the
    deadlines with the app's clock, without anyone calling ``/sweep``."""
    ledger = Ledger.create(ledger_url, "site", NOW)
    for player in ("alice", "bob"):
        ledger.players.create(Player(player), NOW)
    token = ledger.tokens.create("writer", "test", NOW)
    clock = FakeClock()
    with TestClient(create_app(ledger, clock=clock, sweep_every=0.05)) as client:
        headers = {"Authorization": f"Bearer {token}"}
        body = {"id": "g1", "white": "alice", "black": "bob", "time_control": BLITZ}
        assert client.post(API + "/live-games", json=body, headers=headers).status_code == 201
        time.sleep(0.3)
        assert client.get(API + "/live-games/g1").json()["status"] == "open"
        clock.advance(seconds=30)
        deadline = time.monotonic() + 20
        while client.get(API + "/live-games/g1").json()["status"] == "open":
            assert time.monotonic() < deadline, "the background sweeper did not end the game"
            time.sleep(0.05)
        ended = client.get(API + "/live-games/g1").json()
        assert (ended["ended_by"], ended["outcome"]) == ("sweeper", "void")
    ledger.dispose()
