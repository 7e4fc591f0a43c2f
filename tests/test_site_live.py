"""The pure live-game rules (chessrate.systems.site_live): the first-move deadlines of
site S8 by game type and side, the clock the server can prove from ply timestamps, and
the endings of S7-S9. The API tests (tests/service/test_live.py) drive the same rules
through the service with an injected clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chessrate.records import Result, Termination
from chessrate.systems.site import SiteRules
from chessrate.systems.site_live import (
    Board,
    DeadlineKind,
    LiveGame,
    Ply,
    Side,
    board_ending,
    clock_left,
    deadline,
    deadline_ending,
    first_move_seconds,
    timeout_problem,
)
from chessrate.timecontrol import parse_time_control

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
RULES = SiteRules()


def game(control: str, bot: Side | None = None, rated: bool = True, *gaps: int) -> LiveGame:
    at, plies = T0, []
    for number, gap in enumerate(gaps, start=1):
        at += timedelta(seconds=gap)
        plies.append(Ply(number, at))
    return LiveGame("g", "w", "b", T0, parse_time_control(control), rated, bot=bot,
                    plies=tuple(plies))  # fmt: skip


@pytest.mark.parametrize(
    ("control", "bot", "side", "seconds"),
    [
        ("2+1", None, Side.WHITE, 30),  # bullet
        ("5m+3s", None, Side.BLACK, 30),  # blitz (7 min)
        ("8m", None, Side.WHITE, 60),  # rapid
        ("25m", None, Side.WHITE, 60),  # classical
        ("-", None, Side.WHITE, 86400),
        ("7d", None, Side.BLACK, 86400),
        ("3m+2s", Side.BLACK, Side.WHITE, 30),  # the human keeps the type's deadline
        ("3m+2s", Side.BLACK, Side.BLACK, 60),  # the bot's move, live
        ("-", Side.WHITE, Side.WHITE, 600),  # the bot's move, unclocked
        ("2d", Side.WHITE, Side.WHITE, 600),  # ... and in correspondence
    ],
)
def test_s8_first_move_deadlines(control: str, bot: Side | None, side: Side, seconds: int) -> None:
    assert first_move_seconds(game(control, bot), side, RULES) == seconds


def test_s8_the_clock_starts_when_both_moved() -> None:
    """3+2: plies 1-2 cost nothing; White's move 2 took 50 s, Black's 10 s; each side
    got 2 s per move made."""
    played = game("180+2", None, True, 20, 25, 50, 10)
    assert clock_left(played, Side.WHITE) == timedelta(seconds=180 - 50 + 2 * 2)
    assert clock_left(played, Side.BLACK) == timedelta(seconds=180 - 10 + 2 * 2)
    upcoming = deadline(played)
    assert upcoming is not None
    assert (upcoming.kind, upcoming.side) == (DeadlineKind.CLOCK, Side.WHITE)
    assert upcoming.at == T0 + timedelta(seconds=105 + 134)


@given(st.lists(st.integers(0, 400), min_size=2, max_size=40), st.integers(0, 60))
def test_s8_clock_deadline_never_before_the_last_move(gaps: list[int], increment: int) -> None:
    played = game(f"300+{increment}", None, True, *gaps)
    upcoming = deadline(played)
    assert upcoming is not None
    assert upcoming.at >= played.last_at


def test_s7_bot_deadline_endings() -> None:
    early = game("10m", Side.BLACK, True, *[5] * 17)
    upcoming = deadline(early)
    assert upcoming is not None and upcoming.kind is DeadlineKind.BOT_MOVE
    assert deadline_ending(early, upcoming).result is Result.NO_RESULT
    late = game("10m", Side.BLACK, True, *[5] * 19)
    upcoming = deadline(late)
    assert upcoming is not None
    ending = deadline_ending(late, upcoming)
    assert (ending.result, ending.termination) == (Result.BLACK_WINS, Termination.BOT_NO_MOVE)


def test_s9_expiry_only_for_rated_unclocked_games() -> None:
    rated = game("-", None, True, 60, 60, 60)
    upcoming = deadline(rated)
    assert upcoming is not None
    assert (upcoming.kind, upcoming.side) == (DeadlineKind.EXPIRY, Side.BLACK)
    assert upcoming.at == rated.last_at + timedelta(days=7)
    ending = deadline_ending(rated, upcoming)
    assert (ending.result, ending.termination) == (Result.WHITE_WINS, Termination.EXPIRED)
    assert deadline(game("-", None, False, 60, 60)) is None
    casual_first = deadline(game("-", None, False, 60))
    assert casual_first is not None and casual_first.kind is DeadlineKind.FIRST_MOVE


def test_the_board_ends_the_game_by_the_rules_of_play() -> None:
    """Checkmate, stalemate or no mating material end the game with their result (a
    normal ending); before both moved, void (S8), as any ending then; no ending while
    the position plays on or the moves are unknown."""
    played = game("10+0", None, True, 5, 5, 5, 5)
    mate = Board("checkmate", Result.BLACK_WINS)
    ended = board_ending(played, mate, RULES)
    assert ended is not None
    assert (ended.result, ended.termination) == (Result.BLACK_WINS, Termination.NORMAL)
    assert ended.reason == "checkmate after 4 plies: 0-1 (the rules of play)"
    early = board_ending(game("10+0", None, True, 5), Board("stalemate", Result.DRAW), RULES)
    assert early is not None and "before both sides moved: void" in early.reason
    assert board_ending(played, Board(), RULES) is None
    assert board_ending(played, None, RULES) is None


def test_s8_a_loss_on_time_against_a_side_that_cannot_mate_is_a_draw() -> None:
    played = game("1+0", None, True, 5, 5, 5, 5)
    passed = deadline(played, RULES)
    assert passed is not None and passed.kind is DeadlineKind.CLOCK and passed.side is Side.WHITE
    short = Board(cannot_mate=frozenset({Side.BLACK}))
    drawn = deadline_ending(played, passed, RULES, short)
    assert (drawn.result, drawn.termination) == (Result.DRAW, Termination.TIMEOUT)
    lost = deadline_ending(played, passed, RULES, Board(cannot_mate=frozenset({Side.WHITE})))
    assert lost.result is Result.BLACK_WINS
    assert deadline_ending(played, passed, RULES).result is Result.BLACK_WINS
    assert timeout_problem(played, Result.BLACK_WINS, short) is not None
    assert timeout_problem(played, Result.WHITE_WINS, short) is None
    assert timeout_problem(played, Result.DRAW, short) is None
    assert timeout_problem(played, Result.BLACK_WINS, None) is None
