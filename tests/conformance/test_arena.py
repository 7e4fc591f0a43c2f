"""Conformance tests for the ``arena`` system: one or more tests per rule of
the spec's arena system (A1-A11), plus the seed's worked example.

Every expected number is computed by hand from the spec and written as a literal.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest

from chessrate import ArenaRules, GameRecord, InvalidRecord, Outcome, Player, display

from .helpers import arena, change_of, game, member, play, rated, rating

D = Decimal

OFFICIAL = {
    "rapid": ("15+0", "25+0", "45+0", "10+10", "15+10", "25+10", "45+10"),
    "blitz": ("3+0", "5+0", "10+0", "3+2", "3+3", "5+3"),
    "bullet": ("1+0", "2+0", "1+1", "1+2"),
}
"""arena A2, written as base minutes + increment seconds (as in the spec)."""


def five_opponents(rating_text: str = "1600.00", pool: str = "blitz") -> list[Player]:
    """o1..o5, rated in ``pool`` with 40 games (K 20), and the qualifier q."""
    in_pool: dict[str, Any] = {pool: (rating_text, 40)}
    players = [member(f"o{n}", **in_pool) for n in range(1, 6)]
    return [*players, member("q")]


def assert_lists_allowed_controls(message: str) -> None:
    for controls in OFFICIAL.values():
        for control in controls:
            assert re.search(rf"(?<![\d+]){re.escape(control)}(?!\d)", message), control


# -- A1 ------------------------------------------------------------------------------


def test_a1_pools_are_independent() -> None:
    """arena A1: a blitz game moves blitz ratings only; rapid and bullet states stay."""
    engine = arena(
        member("a", blitz=("1800.00", 40), rapid=("1500.00", 40), bullet=("1600.00", 40)),
        member("b", blitz=("1700.00", 40), rapid=("1900.00", 40)),
    )
    result = play(engine, "a", "b", "1-0", tc="5m+3s")

    assert {pool for _player, pool in result.states} == {"blitz"}
    assert {change.pool for change in result.changes} == {"blitz"}
    assert rating(engine, "a", "blitz") == D("1807.20")
    assert rating(engine, "b", "blitz") == D("1692.80")
    assert engine.state("a", "rapid") == rated("1500.00", 40)
    assert engine.state("a", "bullet") == rated("1600.00", 40)
    assert engine.state("b", "rapid") == rated("1900.00", 40)
    assert engine.state("b", "bullet").status == "unrated"
    assert engine.state("b", "bullet").counted_games == 0


def test_a1_rated_in_one_pool_qualifies_in_another() -> None:
    """arena A1: a player rated in blitz is unrated in rapid and qualifies there on his
    own; the rapid game does not touch his blitz rating."""
    engine = arena(member("a", blitz=("2000.00", 40)), member("b", rapid=("1700.00", 40)))
    result = play(engine, "a", "b", "1/2-1/2", tc="15m")

    assert engine.state("a", "rapid").status == "qualifying"
    assert engine.state("a", "rapid").counted_games == 1
    assert engine.state("a", "blitz").rating == D("2000.00")
    assert engine.state("a", "blitz").games == 40
    assert rating(engine, "b", "rapid") == D("1700.00")
    assert {change.pool for change in result.changes} == {"rapid"}


# -- A2 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("control", "pool"),
    [
        # every official control, written with units
        ("15m", "rapid"),
        ("25m", "rapid"),
        ("45m", "rapid"),
        ("10m+10s", "rapid"),
        ("15m+10s", "rapid"),
        ("25m+10s", "rapid"),
        ("45m+10s", "rapid"),
        ("3m", "blitz"),
        ("5m", "blitz"),
        ("10m", "blitz"),
        ("3m+2s", "blitz"),
        ("3m+3s", "blitz"),
        ("5m+3s", "blitz"),
        ("1m", "bullet"),
        ("2m", "bullet"),
        ("1m+1s", "bullet"),
        ("1m+2s", "bullet"),
        # the same controls in PGN seconds form
        ("600+10", "rapid"),
        ("900", "rapid"),
        ("2700+10", "rapid"),
        ("600", "blitz"),
        ("600+0", "blitz"),
        ("300+3", "blitz"),
        ("180+2", "blitz"),
        ("60", "bullet"),
        ("120+0", "bullet"),
        ("60+2", "bullet"),
        ("3m + 2s", "blitz"),
    ],
)
def test_a2_official_controls_map_to_their_pool(control: str, pool: str) -> None:
    """arena A2: each official control is rated in its pool (10+0 is blitz, 10+10 is
    rapid, PGN 600+10 is 10 minutes + 10 s)."""
    rated_everywhere: dict[str, Any] = {p: ("1500.00", 40) for p in OFFICIAL}
    engine = arena(member("a", **rated_everywhere), member("b", **rated_everywhere))
    result = play(engine, "a", "b", "1-0", tc=control)

    assert result.outcome is Outcome.RATED
    assert {change.pool for change in result.changes} == {pool}
    assert {state_pool for _player, state_pool in result.states} == {pool}
    # D = 0 -> PD 0.50; K 20 (bullet 10)
    gain = D("5.00") if pool == "bullet" else D("10.00")
    assert rating(engine, "a", pool) == D("1500.00") + gain
    assert rating(engine, "b", pool) == D("1500.00") - gain


@pytest.mark.parametrize(
    "control",
    [
        "420",  # 7 + 0
        "7m",
        "7m+0s",
        "10+0",  # PGN seconds: 10 seconds, not 10 minutes
        "2m+1s",
        "5m+5s",
        "10m+5s",
        "90s",
        "60m",
    ],
)
def test_a2_rated_game_with_unofficial_control_is_refused(control: str) -> None:
    """arena A2: a rated game with another control is refused; the error names the
    field time_control and lists the allowed controls; nothing changes."""
    engine = arena(member("a", blitz=("1800.00", 40)), member("b", blitz=("1700.00", 40)))
    record = game("a", "b", "1-0", tc=control)
    with pytest.raises(InvalidRecord) as caught:
        engine.apply(record)

    assert caught.value.field == "time_control"
    assert caught.value.where == record.source
    assert_lists_allowed_controls(str(caught.value))
    assert engine.ratings == []
    assert engine.states == {}


@pytest.mark.parametrize("control", ["-", "3d"], ids=["unclocked", "days"])
def test_a2_rated_game_without_a_clock_is_refused_listing_allowed_controls(control: str) -> None:
    """arena A2: "a rated submission with another control is refused with an error that
    lists the allowed controls" — an unclocked or correspondence control is another
    control too."""
    engine = arena(member("a", blitz=("1800.00", 40)), member("b", blitz=("1700.00", 40)))
    with pytest.raises(InvalidRecord) as caught:
        engine.apply(game("a", "b", "1-0", tc=control))

    assert caught.value.field == "time_control"
    assert engine.states == {}
    assert_lists_allowed_controls(str(caught.value))


def test_a2_rated_game_without_time_control_is_refused_listing_allowed_controls() -> None:
    """arena A2: "A rated game must use one of these controls; anything else ... is
    refused with an error that lists the allowed controls" — a rated record with no
    time_control at all uses none of them, so its refusal lists them too."""
    engine = arena(member("a", blitz=("1800.00", 40)), member("b", blitz=("1700.00", 40)))
    with pytest.raises(InvalidRecord) as caught:
        engine.apply(game("a", "b", "1-0", tc=None))

    assert caught.value.field == "time_control"
    assert engine.states == {}
    assert_lists_allowed_controls(str(caught.value))


@pytest.mark.parametrize("control", ["420", "7m", "-", "3d", "2m+1s"])
def test_a2_unofficial_control_may_be_played_unrated(control: str) -> None:
    """arena A2: any control may be played unrated; the game is recorded as unrated."""
    engine = arena(member("a", blitz=("1800.00", 40)), member("b", blitz=("1700.00", 40)))
    result = play(engine, "a", "b", "1-0", tc=control, rated=False)

    assert result.outcome is Outcome.UNRATED
    assert result.changes == ()
    assert engine.states == {}
    assert rating(engine, "a") == D("1800.00")


# -- A3 ------------------------------------------------------------------------------


@pytest.mark.parametrize("side", ["white", "black"])
@pytest.mark.parametrize(
    "outsider",
    [
        Player("x"),  # in the players file, no membership
        None,  # not in the players file at all
        Player("x", membership_until=date(2026, 2, 28)),  # expired the day before
    ],
    ids=["no-membership", "unknown-player", "expired"],
)
def test_a3_rated_game_needs_valid_membership(side: str, outsider: Player | None) -> None:
    """arena A3: a rated game in which either player has no valid membership at
    played_at (2026-03-01) is refused, naming that player's side; nothing changes."""
    players = [member("m", blitz=("1800.00", 40))]
    if outsider is not None:
        players.append(outsider)
    engine = arena(*players)
    white, black = ("x", "m") if side == "white" else ("m", "x")
    record = game(white, black, "1/2-1/2")
    with pytest.raises(InvalidRecord) as caught:
        engine.apply(record)

    assert caught.value.field == side
    assert "'x'" in str(caught.value)
    assert caught.value.where == record.source
    assert engine.ratings == []
    assert engine.states == {}


def test_a3_membership_is_valid_through_its_end_date() -> None:
    """arena A3: the membership is valid until membership_until, inclusive."""
    engine = arena(
        member("a", until=date(2026, 3, 1), blitz=("1800.00", 40)),
        member("b", until=date(2026, 3, 1), blitz=("1700.00", 40)),
    )
    late = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)
    result = engine.apply(game("a", "b", "1-0", played_at=late))

    assert result.outcome is Outcome.RATED
    assert rating(engine, "a") == D("1807.20")

    next_day = datetime(2026, 3, 2, 0, 1, tzinfo=UTC)
    with pytest.raises(InvalidRecord) as caught:
        engine.apply(game("a", "b", "1-0", played_at=next_day))
    assert caught.value.field == "white"


def test_a3_membership_day_is_the_utc_day_of_played_at() -> None:
    """arena A3: the membership day is the UTC date of played_at, whatever offset the
    record is written with (00:30 on 2 March at +01:00 is still 1 March in UTC)."""
    engine = arena(
        member("a", until=date(2026, 3, 1), blitz=("1800.00", 40)),
        member("b", until=date(2026, 3, 1), blitz=("1700.00", 40)),
    )
    record = GameRecord.from_mapping(
        {"id": "tz1", "played_at": "2026-03-02T00:30:00+01:00", "white": "a", "black": "b",
         "result": "1-0", "time_control": "5m+3s"},
        "test:tz1",
    )  # fmt: skip
    assert engine.apply(record).outcome is Outcome.RATED
    record = GameRecord.from_mapping(
        {"id": "tz2", "played_at": "2026-03-01T23:30:00-01:00", "white": "a", "black": "b",
         "result": "1-0", "time_control": "5m+3s"},
        "test:tz2",
    )  # fmt: skip
    with pytest.raises(InvalidRecord) as caught:
        engine.apply(record)
    assert caught.value.field == "white"
    assert "2026-03-02" in caught.value.reason


def test_a3_unrated_games_need_no_membership() -> None:
    """arena A3: unrated games need no membership."""
    engine = arena(Player("x"), Player("y", membership_until=date(2020, 1, 1)))
    result = play(engine, "x", "y", "1-0", rated=False)
    assert result.outcome is Outcome.UNRATED
    result = play(engine, "x", "nobody", "0-1", rated=False, tc="7m")
    assert result.outcome is Outcome.UNRATED
    assert engine.states == {}


# -- A4 ------------------------------------------------------------------------------


def test_a4_forfeit_is_void_and_does_not_move_the_qualification_counter() -> None:
    """arena A4: a forfeit is void and counts for nothing, not even the qualification
    counter (002 "How to obtain" 3)."""
    engine = arena(*five_opponents())
    play(engine, "q", "o1", "1/2-1/2")
    play(engine, "q", "o2", "1/2-1/2")
    before = engine.state("q", "blitz")
    assert before.counted_games == 2

    result = play(engine, "q", "o3", "1-0", termination="forfeit")

    assert result.outcome is Outcome.VOID
    assert result.changes == ()
    assert engine.state("q", "blitz") == before
    assert rating(engine, "o3") == D("1600.00")
    assert engine.state("o3", "blitz").games == 40


def test_a4_forfeit_win_does_not_start_the_count() -> None:
    """arena A4: a won forfeit does not start the count (it counts for nothing)."""
    engine = arena(*five_opponents())
    result = play(engine, "o1", "q", "0-1", termination="forfeit")
    assert result.outcome is Outcome.VOID
    assert engine.state("q", "blitz").status == "unrated"
    assert engine.state("q", "blitz").counted_games == 0


def test_a4_forfeit_between_rated_players_counts_for_nothing() -> None:
    """arena A4: a forfeit moves neither rating nor the 30-game count."""
    engine = arena(member("a", blitz=("1800.00", 29)), member("b", blitz=("1700.00", 40)))
    result = play(engine, "a", "b", "0-1", termination="forfeit")
    assert result.outcome is Outcome.VOID
    assert engine.state("a", "blitz") == rated("1800.00", 29)
    assert engine.state("b", "blitz") == rated("1700.00", 40)


def test_a4_disconnect_is_rated_as_a_loss() -> None:
    """arena A4: the disconnected player lost, rated like any loss.

    1800.00 v 1700.00: D 100 -> PD .64/.36; White (disconnected) scores 0:
    0 - .64 = -.64 x 20 = -12.80; Black 1 - .36 = .64 x 20 = +12.80."""
    engine = arena(member("a", blitz=("1800.00", 40)), member("b", blitz=("1700.00", 40)))
    result = play(engine, "a", "b", "0-1", termination="disconnect")

    assert result.outcome is Outcome.RATED
    assert rating(engine, "a") == D("1787.20")
    assert rating(engine, "b") == D("1712.80")
    assert change_of(result, "a").change == D("-12.80")
    assert engine.state("a", "blitz").games == 41


def test_a4_unrated_game_moves_nothing() -> None:
    """arena A4: an unrated game moves nothing: no rating, no count, no qualification."""
    engine = arena(*five_opponents())
    play(engine, "q", "o1", "1/2-1/2")
    before_q = engine.state("q", "blitz")
    result = play(engine, "q", "o2", "1-0", rated=False)
    result_rated = play(engine, "o3", "o4", "1-0", rated=False)

    for outcome in (result, result_rated):
        assert outcome.outcome is Outcome.UNRATED
        assert outcome.changes == ()
        assert outcome.states == {}
    assert engine.state("q", "blitz") == before_q
    assert engine.state("o3", "blitz") == rated("1600.00", 40)


# -- A5 ------------------------------------------------------------------------------


def test_a5_states_unrated_qualifying_rated() -> None:
    """arena A5: a player is unrated, then qualifying (listed without a rating, shown
    with the training rating 1500), then rated."""
    engine = arena(*five_opponents(), member("loser"))
    assert engine.state("q", "blitz").status == "unrated"
    assert engine.state("q", "blitz").rating is None

    play(engine, "loser", "o1", "0-1")  # a loss before the count: still unrated
    play(engine, "q", "o1", "1/2-1/2")
    state = engine.state("q", "blitz")
    assert state.status == "qualifying"
    assert state.rating is None

    listed = {entry.player: entry for entry in engine.rating_list("blitz")}
    assert "loser" not in listed  # unrated, no counted game
    entry = listed["q"]
    assert (entry.rating, entry.display, entry.state, entry.games) == (
        None,
        "1500",
        "qualifying",
        1,
    )
    assert entry.as_mapping() == {
        "player": "q",
        "pool": "blitz",
        "rating": None,
        "display": "1500",
        "state": "qualifying",
        "games": 1,
    }
    assert listed["o1"].state == "rated"
    assert listed["o1"].rating == D("1600.00")

    for opponent in ("o2", "o3", "o4", "o5"):
        play(engine, "q", opponent, "1/2-1/2")
    entry = {e.player: e for e in engine.rating_list("blitz")}["q"]
    assert (entry.rating, entry.display, entry.state, entry.games) == (
        D("1600.00"),
        "1600",
        "rated",
        5,
    )


def test_a5_training_rating_is_configurable() -> None:
    """arena A5 Decision: the training rating (display only) is 1500 by default and
    configurable."""
    engine = arena(*five_opponents(), rules=ArenaRules(training_rating=1200))
    play(engine, "q", "o1", "1-0")
    entry = {e.player: e for e in engine.rating_list("blitz")}["q"]
    assert entry.display == "1200"
    assert entry.rating is None
    assert engine.state("q", "blitz").rating is None


# -- A6 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        # s = 2.5 -> Rf = Ra
        (("1/2-1/2",) * 5, "1600.00"),
        (("1-0", "0-1", "1-0", "0-1", "1/2-1/2"), "1600.00"),
        # s > 2.5 -> Ra + 20 per half point over 2.5
        (("1-0", "1-0", "1-0", "0-1", "0-1"), "1620.00"),  # s = 3
        (("1-0", "1-0", "1-0", "1/2-1/2", "0-1"), "1640.00"),  # s = 3.5
        (("1-0", "1-0", "1-0", "1-0", "0-1"), "1660.00"),  # s = 4
        (("1-0", "1-0", "1-0", "1-0", "1/2-1/2"), "1680.00"),  # s = 4.5
        (("1-0",) * 5, "1700.00"),  # s = 5
        # s < 2.5 -> Ra + dp(s/5), Table A
        (("1/2-1/2",) * 4 + ("0-1",), "1528.00"),  # s = 2, p 0.4, dp -72
        (("1-0", "0-1", "0-1", "1-0", "0-1"), "1528.00"),  # s = 2
        (("1/2-1/2",) * 3 + ("0-1",) * 2, "1451.00"),  # s = 1.5, p 0.3, dp -149
        (("1/2-1/2",) * 2 + ("0-1",) * 3, "1360.00"),  # s = 1, p 0.2, dp -240
        (("1-0",) + ("0-1",) * 4, "1360.00"),  # s = 1
        (("1/2-1/2",) + ("0-1",) * 4, "1234.00"),  # s = 0.5, p 0.1, dp -366
    ],
)
def test_a6_first_rating_worked_cases(results: tuple[str, ...], expected: str) -> None:
    """arena A6: five games against opponents rated 1600.00, Ra = 1600.00; Rf = Ra,
    Ra + 20 per half point over 2.5, or Ra + dp(s/5)."""
    engine = arena(*five_opponents())
    for number, result in enumerate(results, start=1):
        assert engine.state("q", "blitz").status != "rated"
        last = play(engine, "q", f"o{number}", result)

    state = engine.state("q", "blitz")
    assert state.status == "rated"
    assert state.rating == D(expected)
    assert state.games == 5
    change = change_of(last, "q")
    assert change.rule == "arena A6"
    assert change.after == D(expected)
    assert change.state_after == "rated"
    # A9: the rated opponents did not move
    for number in range(1, 6):
        assert engine.state(f"o{number}", "blitz") == rated("1600.00", 40)


def test_a6_losses_before_the_count_starts_are_ignored() -> None:
    """arena A6: the count starts with the first game scoring at least ½ against a
    rated opponent; losses before it are ignored.

    L, L (ignored), then W W W L L: s = 3 -> Rf = 1600.00 + 20 = 1620.00."""
    engine = arena(*five_opponents())
    for opponent in ("o1", "o2"):
        result = play(engine, opponent, "q", "1-0")
        assert result.changes == ()
        assert engine.state("q", "blitz").status == "unrated"
        assert engine.state("q", "blitz").counted_games == 0
    for opponent, outcome in zip(
        ("o3", "o4", "o5", "o1", "o2"), ("1-0", "1-0", "1-0", "0-1", "0-1"), strict=True
    ):
        play(engine, "q", opponent, outcome)

    assert engine.state("q", "blitz").rating == D("1620.00")
    assert engine.state("q", "blitz").games == 5


def test_a6_count_starts_on_a_draw_as_black() -> None:
    """arena A6: a draw (½) starts the count, whatever the colour."""
    engine = arena(*five_opponents())
    play(engine, "o1", "q", "1/2-1/2")
    assert engine.state("q", "blitz").status == "qualifying"
    assert engine.state("q", "blitz").counted_games == 1


def test_a6_games_against_unrated_or_qualifying_opponents_change_nothing() -> None:
    """arena A6: only games against a rated opponent count; games against unrated or
    qualifying opponents change nothing for either player (and do not start a count)."""
    engine = arena(*five_opponents(), member("u"), member("p"))
    # u (unrated) draws and wins against another unrated player: no count starts
    assert play(engine, "u", "q", "1/2-1/2").changes == ()
    assert play(engine, "u", "q", "1-0").changes == ()
    assert engine.state("u", "blitz").status == "unrated"
    assert engine.state("q", "blitz").status == "unrated"

    # p becomes qualifying; then q (unrated) beats p, and p beats q: nothing for either
    play(engine, "p", "o1", "1/2-1/2")
    before_p = engine.state("p", "blitz")
    assert before_p.counted_games == 1
    assert play(engine, "q", "p", "1-0").changes == ()
    assert play(engine, "p", "q", "1-0").changes == ()
    assert engine.state("p", "blitz") == before_p
    assert engine.state("q", "blitz").status == "unrated"
    assert engine.state("q", "blitz").counted_games == 0

    # two qualifying players: nothing for either
    play(engine, "q", "o2", "1/2-1/2")
    before_q = engine.state("q", "blitz")
    assert play(engine, "q", "p", "0-1").changes == ()
    assert engine.state("q", "blitz") == before_q
    assert engine.state("p", "blitz") == before_p


def test_a6_once_started_every_game_counts_whatever_the_result() -> None:
    """arena A6: once the count has started, losses count too."""
    engine = arena(*five_opponents())
    play(engine, "q", "o1", "1-0")
    play(engine, "q", "o2", "0-1")
    play(engine, "o3", "q", "1-0")
    assert engine.state("q", "blitz").counted_games == 3


@pytest.mark.parametrize(
    ("ratings", "results", "expected"),
    [
        # sum 8015.18 / 5 = 1603.036 -> Ra 1603.04; s = 3 -> +20
        (
            ("1601.01", "1602.02", "1603.03", "1604.04", "1605.08"),
            ("1-0", "1-0", "1-0", "0-1", "0-1"),
            "1623.04",
        ),
        # Ra 1603.04; s = 2 -> dp(0.4) = -72
        (
            ("1601.01", "1602.02", "1603.03", "1604.04", "1605.08"),
            ("1/2-1/2",) * 4 + ("0-1",),
            "1531.04",
        ),
        # sum 8015.16 / 5 = 1603.032 -> Ra 1603.03; s = 2.5
        (
            ("1601.01", "1602.02", "1603.03", "1604.04", "1605.06"),
            ("1/2-1/2",) * 5,
            "1603.03",
        ),
        # sum 9000.01 / 5 = 1800.002 -> Ra 1800.00; s = 5 -> +100
        (
            ("1500.00", "2100.00", "1750.50", "1849.51", "1800.00"),
            ("1-0",) * 5,
            "1900.00",
        ),
        # sum 7500.03 / 5 = 1500.006 -> Ra 1500.01; s = 1.5 -> dp(0.3) = -149
        (
            ("1000.01", "2000.01", "1500.01", "1400.00", "1600.00"),
            ("1/2-1/2",) * 3 + ("0-1",) * 2,
            "1351.01",
        ),
    ],
)
def test_a6_ra_is_the_mean_of_opponent_ratings_rounded(
    ratings: tuple[str, ...], results: tuple[str, ...], expected: str
) -> None:
    """arena A6: Ra = mean of the five opponents' ratings, rounded (half up) to two
    decimals; Rf from Ra and s."""
    players = [member(f"o{n}", blitz=(text, 40)) for n, text in enumerate(ratings, 1)]
    engine = arena(*players, member("q"))
    for number, result in enumerate(results, start=1):
        play(engine, "q", f"o{number}", result)
    assert engine.state("q", "blitz").rating == D(expected)


def test_a6_opponent_rating_is_taken_as_it_was_at_that_game() -> None:
    """arena A6: each opponent's rating as it was at that game.

    q draws o1 (1600.00). o1 beats o2 (D 0, PD .50, K 20): o1 1610.00, o2 1590.00.
    q draws o1 (1610.00), o1 (1610.00), o3 (1600.00), o4 (1600.00).
    Ra = (1600 + 1610 + 1610 + 1600 + 1600) / 5 = 1604.00; s = 2.5 -> Rf 1604.00."""
    engine = arena(*five_opponents())
    play(engine, "q", "o1", "1/2-1/2")
    play(engine, "o1", "o2", "1-0")
    assert rating(engine, "o1") == D("1610.00")
    for opponent in ("o1", "o1", "o3", "o4"):
        play(engine, "q", opponent, "1/2-1/2")
    assert engine.state("q", "blitz").rating == D("1604.00")


def test_a6_first_rating_below_1000_resets_the_count() -> None:
    """arena A6: Rf < 1000 -> the player stays unrated and the count is reset; a later
    game scoring at least ½ starts a new count.

    Opponents 1050.00, s = 0.5 -> Rf = 1050 - 366 = 684.00 < 1000."""
    engine = arena(*five_opponents("1050.00"))
    results = ("1/2-1/2", "0-1", "0-1", "0-1", "0-1")
    for number, result in enumerate(results, start=1):
        last = play(engine, "q", f"o{number}", result)

    state = engine.state("q", "blitz")
    assert state.status == "unrated"
    assert state.rating is None
    assert state.counted_games == 0
    assert state.qualifying == ()
    change = change_of(last, "q")
    assert change.after == D("684.00")
    assert change.state_after == "unrated"
    assert change.games_after == 0
    assert "q" not in {entry.player for entry in engine.rating_list("blitz")}

    # sixth game, a loss: the count has not started again
    play(engine, "q", "o1", "0-1")
    assert engine.state("q", "blitz").status == "unrated"
    # seventh, a draw: a new count starts at 1
    play(engine, "q", "o2", "1/2-1/2")
    assert engine.state("q", "blitz").status == "qualifying"
    assert engine.state("q", "blitz").counted_games == 1
    # four more draws: Ra 1050.00, s = 2.5 -> rated at 1050.00 with 5 games
    for opponent in ("o3", "o4", "o5", "o1"):
        play(engine, "q", opponent, "1/2-1/2")
    assert engine.state("q", "blitz") == rated("1050.00", 5)


def test_a6_sixth_game_after_reset_can_start_the_new_count() -> None:
    """arena A6: after a reset, the very next game scoring ½ starts the new count."""
    engine = arena(*five_opponents("1050.00"))
    for number, result in enumerate(("1/2-1/2", "0-1", "0-1", "0-1", "0-1"), start=1):
        play(engine, "q", f"o{number}", result)
    assert engine.state("q", "blitz").status == "unrated"
    play(engine, "o1", "q", "0-1")
    assert engine.state("q", "blitz").status == "qualifying"
    assert engine.state("q", "blitz").counted_games == 1


def test_a6_first_rating_of_exactly_1000_is_a_rating() -> None:
    """arena A6: only Rf < 1000 is refused. Opponents 1072.00, s = 2 -> 1072 - 72 =
    1000.00: rated."""
    engine = arena(*five_opponents("1072.00"))
    for number, result in enumerate(("1/2-1/2",) * 4 + ("0-1",), start=1):
        play(engine, "q", f"o{number}", result)
    assert engine.state("q", "blitz") == rated("1000.00", 5)


def test_a6_qualifying_games_count_as_rated_games_for_a8() -> None:
    """arena A6 Decision: the five qualifying games count as rated games for A8: the new
    player is listed with 5 games and plays game 6 at K 40.

    Game 6: q 1600.00 beats o1 1600.00: D 0, PD .50; q +.50 x 40 = +20.00 -> 1620.00;
    o1 (40 games, K 20) -.50 x 20 = -10.00 -> 1590.00."""
    engine = arena(*five_opponents())
    for number in range(1, 6):
        play(engine, "q", f"o{number}", "1/2-1/2")
    assert engine.state("q", "blitz").games == 5
    assert {e.player: e for e in engine.rating_list("blitz")}["q"].games == 5

    result = play(engine, "q", "o1", "1-0")
    assert change_of(result, "q").k == 40
    assert change_of(result, "q").games_before == 5
    assert rating(engine, "q") == D("1620.00")
    assert rating(engine, "o1") == D("1590.00")
    assert engine.state("q", "blitz").games == 6


# -- A7 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "white_after", "black_after", "white_change"),
    [
        ("1-0", "1807.20", "1692.80", "7.20"),  # 1 - .64 = .36 x 20
        ("1/2-1/2", "1797.20", "1702.80", "-2.80"),  # .5 - .64 = -.14 x 20
        ("0-1", "1787.20", "1712.80", "-12.80"),  # 0 - .64 = -.64 x 20
    ],
)
def test_a7_rated_game_uses_table_b_and_k(
    result: str, white_after: str, black_after: str, white_change: str
) -> None:
    """arena A7: 1800.00 v 1700.00, D 100 -> PD_H .64, PD_L .36 (Table B 99-106);
    ΔR = score - PD; new = old + ΔR x K (K 20)."""
    engine = arena(member("w", blitz=("1800.00", 40)), member("b", blitz=("1700.00", 40)))
    rated = play(engine, "w", "b", result)

    white, black = change_of(rated, "w"), change_of(rated, "b")
    assert (white.d, white.pd, white.k) == (D("100.00"), D("0.64"), 20)
    assert (black.d, black.pd, black.k) == (D("100.00"), D("0.36"), 20)
    assert white.rule == black.rule == "arena A7"
    assert white.change == D(white_change)
    assert black.change == -D(white_change)
    assert rating(engine, "w") == D(white_after)
    assert rating(engine, "b") == D(black_after)
    assert engine.state("w", "blitz").games == 41
    assert engine.state("b", "blitz").games == 41


def test_a7_lower_rated_player_as_white_gets_pd_l() -> None:
    """arena A7: the lower rated player gets PD_L whatever the colour.

    White 1700.00 beats Black 1800.00: 1 - .36 = .64 x 20 = +12.80."""
    engine = arena(member("w", blitz=("1700.00", 40)), member("b", blitz=("1800.00", 40)))
    play(engine, "w", "b", "1-0")
    assert rating(engine, "w") == D("1712.80")
    assert rating(engine, "b") == D("1787.20")


@pytest.mark.parametrize(
    ("white", "pd_high", "white_after", "black_after"),
    [
        # D 3.49 -> 3 -> .50/.50: +.50 x 20 = +10.00, -10.00
        ("1803.49", "0.50", "1813.49", "1790.00"),
        # D 3.50 -> 4 -> .51/.49: +.49 x 20 = +9.80, -.49 x 20 = -9.80
        ("1803.50", "0.51", "1813.30", "1790.20"),
        # D 10.49 -> 10 -> .51; D 10.50 -> 11 -> .52: +.48 x 20 = +9.60
        ("1810.49", "0.51", "1820.29", "1790.20"),
        ("1810.50", "0.52", "1820.10", "1790.40"),
    ],
)
def test_a7_fractional_d_is_rounded_half_up(
    white: str, pd_high: str, white_after: str, black_after: str
) -> None:
    """arena A7 with the spec's decision: a fractional D is first rounded half up to an
    integer (3.49 -> 3 -> 0.50; 3.50 -> 4 -> 0.51). Black is 1800.00; White wins."""
    engine = arena(member("w", blitz=(white, 40)), member("b", blitz=("1800.00", 40)))
    result = play(engine, "w", "b", "1-0")
    assert change_of(result, "w").pd == D(pd_high)
    assert change_of(result, "b").pd == 1 - D(pd_high)
    assert rating(engine, "w") == D(white_after)
    assert rating(engine, "b") == D(black_after)


@pytest.mark.parametrize(
    ("high", "result", "pd_high", "high_after", "low_after"),
    [
        # D 800 -> over 735 -> 1.00/0.00
        ("2600.00", "1/2-1/2", "1.00", "2590.00", "1810.00"),
        ("2600.00", "1-0", "1.00", "2600.00", "1800.00"),
        ("2600.00", "0-1", "1.00", "2580.00", "1820.00"),
        # D 736 -> 1.00; D 735 -> .99 (draw: -.49 x 20 = -9.80)
        ("2536.00", "1/2-1/2", "1.00", "2526.00", "1810.00"),
        ("2535.00", "1/2-1/2", "0.99", "2525.20", "1809.80"),
        # D 400 (392-411) -> .92, not capped: draw -.42 x 20 = -8.40
        ("2200.00", "1/2-1/2", "0.92", "2191.60", "1808.40"),
        # D 500 (485-517) -> .96 where a 400 cap would give .92
        ("2300.00", "1/2-1/2", "0.96", "2290.80", "1809.20"),
    ],
)
def test_a7_no_400_point_cap(
    high: str, result: str, pd_high: str, high_after: str, low_after: str
) -> None:
    """arena A7: no 400-point cap; Table B runs to "over 735" -> 1.00/0.00.
    The higher rated plays White against 1800.00."""
    engine = arena(member("h", blitz=(high, 40)), member("l", blitz=("1800.00", 40)))
    rated = play(engine, "h", "l", result)
    assert change_of(rated, "h").pd == D(pd_high)
    assert change_of(rated, "l").pd == 1 - D(pd_high)
    assert rating(engine, "h") == D(high_after)
    assert rating(engine, "l") == D(low_after)


def test_a7_both_updates_use_pre_game_ratings() -> None:
    """arena A7: both new ratings come from both pre-game ratings (simultaneous).

    1800.00 beats 1700.00: +7.20 / -7.20. Had Black been computed from White's new
    1807.20 (D 107.20 -> 107 -> PD .35), Black would lose only 7.00."""
    engine = arena(member("w", blitz=("1800.00", 40)), member("b", blitz=("1700.00", 40)))
    result = play(engine, "w", "b", "1-0")
    black = change_of(result, "b")
    assert black.opponent_rating == D("1800.00")
    assert black.before == D("1700.00")
    assert black.after == D("1692.80")


# -- A8 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("control", "pool", "k", "white_after", "black_after"),
    [
        ("5m+3s", "blitz", 20, "1807.20", "1692.80"),
        ("3m", "blitz", 20, "1807.20", "1692.80"),
        ("15m", "rapid", 20, "1807.20", "1692.80"),
        ("10m+10s", "rapid", 20, "1807.20", "1692.80"),
        ("1m", "bullet", 10, "1803.60", "1696.40"),  # .36 x 10 = 3.60
        ("2m", "bullet", 10, "1803.60", "1696.40"),
    ],
)
def test_a8_k_by_pool_for_players_with_30_games(
    control: str, pool: str, k: int, white_after: str, black_after: str
) -> None:
    """arena A8: K is 20 in rapid and blitz, 10 in bullet, once 30 games are completed.
    1800.00 beats 1700.00 (PD .64): ΔR .36 x K."""
    white: dict[str, Any] = {pool: ("1800.00", 30)}
    black: dict[str, Any] = {pool: ("1700.00", 45)}
    engine = arena(member("w", **white), member("b", **black))
    result = play(engine, "w", "b", "1-0", tc=control)
    assert change_of(result, "w").k == k
    assert change_of(result, "b").k == k
    assert rating(engine, "w", pool) == D(white_after)
    assert rating(engine, "b", pool) == D(black_after)


@pytest.mark.parametrize(
    ("games", "pool", "control", "k", "white_after"),
    [
        (0, "blitz", "5m+3s", 40, "1814.40"),  # .36 x 40 = 14.40
        (5, "blitz", "5m+3s", 40, "1814.40"),
        (29, "blitz", "5m+3s", 40, "1814.40"),  # game 30: the last at K 40
        (30, "blitz", "5m+3s", 20, "1807.20"),  # game 31
        (29, "rapid", "15m", 40, "1814.40"),
        (30, "rapid", "15m", 20, "1807.20"),
        (29, "bullet", "1m+1s", 40, "1814.40"),
        (30, "bullet", "1m+1s", 10, "1803.60"),
    ],
)
def test_a8_imported_player_k_follows_its_games_count(
    games: int, pool: str, control: str, k: int, white_after: str
) -> None:
    """arena A8: K 40 while fewer than 30 rated games are completed (games 6-30), then
    the pool's K; an imported player follows the same rule on the imported count.
    The opponent (1700.00, 40 games) loses .36 x its own K."""
    white: dict[str, Any] = {pool: ("1800.00", games)}
    black: dict[str, Any] = {pool: ("1700.00", 40)}
    engine = arena(member("w", **white), member("b", **black))
    result = play(engine, "w", "b", "1-0", tc=control)
    assert change_of(result, "w").k == k
    assert rating(engine, "w", pool) == D(white_after)
    black_after = {"bullet": "1696.40"}.get(pool, "1692.80")
    assert rating(engine, "b", pool) == D(black_after)
    assert engine.state("w", pool).games == games + 1


def test_a8_new_player_has_k_40_through_game_30() -> None:
    """arena A8: a player rated through A6 plays games 6-30 at K 40 (the five qualifying
    games count), game 31 onwards at K 20."""
    engine = arena(*five_opponents(), member("r", blitz=("1600.00", 100)))
    for number in range(1, 6):
        play(engine, "q", f"o{number}", "1/2-1/2")
    ks = {}
    for number in range(6, 33):
        result = play(engine, "q", "r", "1/2-1/2" if number % 2 else "1-0")
        ks[number] = change_of(result, "q").k
        assert change_of(result, "r").k == 20
    assert {n for n, k in ks.items() if k == 40} == set(range(6, 31))
    assert ks[31] == ks[32] == 20
    assert engine.state("q", "blitz").games == 32


# -- A9 ------------------------------------------------------------------------------


def test_a9_rated_player_vs_unrated_or_qualifying_changes_nothing() -> None:
    """arena A9: a rated player's game against an unrated or qualifying opponent changes
    nothing for him and does not count toward his 30 games.

    r (1800.00, 29 games) loses to u twice; his next rated game is still game 30 at
    K 40: beats s 1700.00 -> .36 x 40 = +14.40 -> 1814.40."""
    engine = arena(member("r", blitz=("1800.00", 29)), member("s", blitz=("1700.00", 40)))
    engine.add_player(member("u"))

    first = play(engine, "u", "r", "1-0")  # u unrated: starts the count
    assert engine.state("u", "blitz").status == "qualifying"
    second = play(engine, "r", "u", "0-1")  # u qualifying
    assert engine.state("u", "blitz").counted_games == 2
    for result in (first, second):
        assert [change.player for change in result.changes] == ["u"]
        assert ("r", "blitz") not in result.states
    assert engine.state("r", "blitz") == rated("1800.00", 29)

    result = play(engine, "r", "s", "1-0")
    assert change_of(result, "r").k == 40
    assert rating(engine, "r") == D("1814.40")


def test_a9_rated_player_vs_player_who_lost_before_count() -> None:
    """arena A9: the rated player's win against an unrated player changes nothing."""
    engine = arena(member("r", blitz=("1800.00", 40)), member("u"))
    result = play(engine, "r", "u", "1-0")
    assert result.changes == ()
    assert engine.state("r", "blitz") == rated("1800.00", 40)
    assert engine.state("u", "blitz").status == "unrated"


# -- A10 -----------------------------------------------------------------------------


def test_a10_rating_below_the_floor_is_lost_in_that_pool_only() -> None:
    """arena A10: a rating that falls below 1000.00 is lost in that pool only; the
    opponent's update stands.

    Rapid: a 1007.19 v b 1107.19, D 100 -> .36/.64; b wins: a -.36 x 20 = -7.20 ->
    999.99 < 1000 -> unrated; b +.36 x 20 = +7.20 -> 1114.39."""
    engine = arena(
        member("a", rapid=("1007.19", 40), blitz=("1500.00", 40)),
        member("b", rapid=("1107.19", 40)),
    )
    result = play(engine, "a", "b", "0-1", tc="15m")

    lost = change_of(result, "a")
    assert lost.rule == "arena A10"
    assert lost.after == D("999.99")
    assert lost.state_after == "unrated"
    state = engine.state("a", "rapid")
    assert state.status == "unrated"
    assert state.rating is None
    assert state.counted_games == 0
    assert engine.state("b", "rapid") == rated("1114.39", 41)
    assert engine.state("a", "blitz") == rated("1500.00", 40)
    assert "a" not in {entry.player for entry in engine.rating_list("rapid")}
    assert "a" in {entry.player for entry in engine.rating_list("blitz")}


def test_a10_exactly_1000_stays_rated() -> None:
    """arena A10: only a rating below 1000.00 is lost: 1007.20 - 7.20 = 1000.00 stays."""
    engine = arena(member("a", rapid=("1007.20", 40)), member("b", rapid=("1107.20", 40)))
    result = play(engine, "a", "b", "0-1", tc="15m")
    assert change_of(result, "a").rule == "arena A7"
    assert engine.state("a", "rapid") == rated("1000.00", 41)
    assert rating(engine, "b", "rapid") == D("1114.40")


def test_a10_requalifying_restarts_the_k_40_period() -> None:
    """arena A10: after losing the rating the player qualifies again (A6) and A8's K 40
    period starts again, counting from the five qualifying games.

    a falls to 999.99 (see above); five draws against b (1114.39, unchanged by A9) ->
    Ra 1114.39, s 2.5 -> Rf 1114.39, 5 games. Game 6, a beats b (D 0, PD .50):
    a +.50 x 40 = +20.00 -> 1134.39; b (41 games) -.50 x 20 = -10.00 -> 1104.39."""
    engine = arena(member("a", rapid=("1007.19", 40)), member("b", rapid=("1107.19", 40)))
    play(engine, "a", "b", "0-1", tc="15m")
    assert engine.state("a", "rapid").status == "unrated"

    play(engine, "a", "b", "0-1", tc="15m")  # a loss before the new count: ignored
    assert engine.state("a", "rapid").counted_games == 0
    for _ in range(5):
        play(engine, "a", "b", "1/2-1/2", tc="15m")
    assert engine.state("a", "rapid") == rated("1114.39", 5)
    assert engine.state("b", "rapid") == rated("1114.39", 41)

    result = play(engine, "a", "b", "1-0", tc="15m")
    assert change_of(result, "a").k == 40
    assert change_of(result, "b").k == 20
    assert rating(engine, "a", "rapid") == D("1134.39")
    assert rating(engine, "b", "rapid") == D("1104.39")


# -- A11 -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        ("2215.50", 2216),
        ("2215.49", 2215),
        ("1800.20", 1800),
        ("1799.60", 1800),
        ("1799.50", 1800),
        ("1799.49", 1799),
        ("1000.00", 1000),
    ],
)
def test_a11_display_rounds_half_up(stored: str, shown: int) -> None:
    """arena A11: the displayed rating is the stored one rounded half up: 2215.50 -> 2216."""
    assert display(D(stored)) == shown


def test_a11_rating_list_display_field() -> None:
    """arena A11: the rating list shows rating with two decimals and display rounded."""
    engine = arena(
        member("a", blitz=("2215.50", 40)),
        member("b", blitz=("1800.20", 40)),
        member("c", blitz=("2215.49", 40)),
    )
    rows = [entry.as_mapping() for entry in engine.rating_list("blitz")]
    assert rows == [
        {
            "player": "a",
            "pool": "blitz",
            "rating": "2215.50",
            "display": "2216",
            "state": "rated",
            "games": 40,
        },
        {
            "player": "c",
            "pool": "blitz",
            "rating": "2215.49",
            "display": "2215",
            "state": "rated",
            "games": 40,
        },
        {
            "player": "b",
            "pool": "blitz",
            "rating": "1800.20",
            "display": "1800",
            "state": "rated",
            "games": 40,
        },
    ]


# -- the seed's worked example ---------------------------------------------------------


def test_seed_002_worked_example_1799_60_wins_0_60() -> None:
    """arena, seed 002 "Ratings formulae" 13: a player rated 1799.60 wins with
    PD_H = 0.97 (D 520, Table B 518-559), K = 20: 1 - .97 = .03 x 20 = +0.60 ->
    1800.20; both 1799.60 and 1800.20 display as 1800. The opponent 1279.60 loses
    .03 x 20 = 0.60 -> 1279.00."""
    engine = arena(member("w", blitz=("1799.60", 40)), member("b", blitz=("1279.60", 40)))
    assert {e.player: e for e in engine.rating_list("blitz")}["w"].display == "1800"

    result = play(engine, "w", "b", "1-0")
    white = change_of(result, "w")
    assert (white.d, white.pd, white.k) == (D("520.00"), D("0.97"), 20)
    assert white.delta == D("0.03")
    assert white.change == D("0.60")
    assert white.before == D("1799.60")
    assert white.after == D("1800.20")
    assert rating(engine, "w") == D("1800.20")
    assert rating(engine, "b") == D("1279.00")
    assert display(D("1799.60")) == display(D("1800.20")) == 1800
    entry = {e.player: e for e in engine.rating_list("blitz")}["w"]
    assert (entry.rating, entry.display) == (D("1800.20"), "1800")
