"""Conformance tests for the ``corr`` system: one or more tests per rule of
the spec's corr system (C1-C7), plus the spec's worked examples.

Every expected number is computed by hand from the spec and written as a literal;
the arithmetic is in each test's docstring or comments.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from chessrate import CorrSystem, Engine, GameRating, InvalidRecord, Outcome, Player
from chessrate.records import ImportedRating
from chessrate.systems.corr import CorrState, CorrStatus, display_corr

from .helpers import game

D = Decimal


# -- builders -------------------------------------------------------------------------


def established(player_id: str, rating: str, games: int = 30) -> Player:
    """A player imported as established (25 games or more)."""
    return Player(player_id, imported={"corr": ImportedRating(D(rating), games)})


def provisional(player_id: str, rating: str, games: int) -> Player:
    """A player imported as provisional (fewer than 25 games)."""
    assert games < 25
    return Player(player_id, imported={"corr": ImportedRating(D(rating), games)})


def corr(*players: Player) -> Engine[CorrState]:
    return Engine(CorrSystem(), players=players)


def play(
    engine: Engine[CorrState],
    white: str,
    black: str,
    result: str,
    *,
    rated: bool = True,
    termination: str | None = None,
) -> GameRating[CorrState]:
    """One correspondence game (3 days per move; corr does not look at the clock)."""
    return engine.apply(game(white, black, result, tc="3d", rated=rated, termination=termination))


def state(engine: Engine[CorrState], player_id: str) -> CorrState:
    return engine.state(player_id, "corr")


def summary(engine: Engine[CorrState], player_id: str) -> tuple[str, Decimal | None, int]:
    """(status, rating, counted games) of a player."""
    current = state(engine, player_id)
    return current.status.value, current.rating, current.games


def listed(engine: Engine[CorrState]) -> dict[str, tuple[str, str, int, Decimal | None]]:
    """The corr rating list: player -> (display, state, games, rating)."""
    return {
        entry.player: (entry.display, entry.state, entry.games, entry.rating)
        for entry in engine.rating_list("corr")
    }


# -- C1 ------------------------------------------------------------------------------


def test_c1_new_player_is_unrated_until_his_first_rated_game_ends() -> None:
    """corr C1: a new player is unrated (no rating, no games); after his first rated
    game he is provisional with one counted game."""
    engine = corr()
    assert summary(engine, "n") == ("unrated", None, 0)
    assert state(engine, "n").status is CorrStatus.UNRATED

    play(engine, "n", "m", "1/2-1/2")

    assert summary(engine, "n") == ("provisional", D("1300.00"), 1)


def test_c1_provisional_below_25_games_established_from_25() -> None:
    """corr C1 (imported ratings, the spec's players table): 24 games → provisional,
    25 games → established, 40 → established."""
    engine = corr(
        provisional("p24", "1600.00", 24),
        established("e25", "1600.00", 25),
        established("e40", "1700.00", 40),
    )
    assert summary(engine, "p24") == ("provisional", D("1600.00"), 24)
    assert summary(engine, "e25") == ("established", D("1600.00"), 25)
    assert summary(engine, "e40") == ("established", D("1700.00"), 40)
    assert listed(engine) == {
        "e40": ("1700", "established", 40, D("1700.00")),
        "e25": ("1600", "established", 25, D("1600.00")),
        "p24": ("1600P (24)", "provisional", 24, D("1600.00")),
    }


def test_c1_imported_provisional_mean_counts_games_performances_equal_to_the_rating() -> None:
    """corr C1/C2 with an imported provisional rating: its mean counts ``games``
    performances equal to the rating. 1600.00 after 3 games draws a newcomer
    (performance 1300): (3 × 1600 + 1300) / 4 = 6100 / 4 = 1525.00 (not
    (1600 + 1300) / 2 = 1450)."""
    engine = corr(provisional("p", "1600.00", 3))
    assert state(engine, "p").performances == D("4800.00")

    play(engine, "p", "n", "1/2-1/2")

    assert summary(engine, "p") == ("provisional", D("1525.00"), 4)
    assert state(engine, "p").performances == D("6100.00")


def test_c1_imported_established_player_is_rated_by_the_c5_formula_at_once() -> None:
    """corr C1: an imported player with 25 games is established, so his very next game
    uses C5: 1600 beats established 1700: 0.04 × 100 + 16 = +20 → 1620.00."""
    engine = corr(established("e", "1600.00", 25), established("f", "1700.00", 30))
    result = play(engine, "e", "f", "1-0")

    assert summary(engine, "e") == ("established", D("1620.00"), 26)
    (change,) = [c for c in result.changes if c.player == "e"]
    assert change.rule == "corr C5"


# -- C2 ------------------------------------------------------------------------------


def test_c2_mean_with_thirds_is_stored_rounded_to_two_decimals() -> None:
    """corr C2: the rating is the mean of the performances, stored rounded to two
    decimals. p beats newcomer a (1500), beats newcomer b (1500), draws newcomer c
    (1300): 4300 / 3 = 1433.333… → 1433.33; the exact sum 4300 and the count 3 are
    kept. q: wins, wins, loses against newcomers: 4100 / 3 = 1366.666… → 1366.67."""
    engine = corr()
    play(engine, "p", "a", "1-0")
    play(engine, "b", "p", "0-1")
    play(engine, "p", "c", "1/2-1/2")

    assert summary(engine, "p") == ("provisional", D("1433.33"), 3)
    assert state(engine, "p").performances == D("4300")

    play(engine, "q", "d", "1-0")
    play(engine, "q", "e", "1-0")
    play(engine, "q", "f", "0-1")
    assert summary(engine, "q") == ("provisional", D("1366.67"), 3)
    assert state(engine, "q").performances == D("4100")


def test_c2_mean_is_kept_exactly_not_recomputed_from_the_rounded_rating() -> None:
    """corr C2: "kept exactly (keep the sum and the count)". p draws eight established
    players (performance = their rating): six at 1500, one at 1501, one at 1500.

    After 7: 10501 / 7 = 1500.142857… → 1500.14. After 8: 12001 / 8 = 1500.125 →
    1500.13 (half up). Rebuilding the sum from the rounded rating would give
    (7 × 1500.14 + 1500) / 8 = 12000.98 / 8 = 1500.1225 → 1500.12."""
    opponents = ["1500", "1500", "1500", "1500", "1500", "1500", "1501", "1500"]
    engine = corr(*(established(f"e{n}", rating) for n, rating in enumerate(opponents)))
    for n in range(7):
        play(engine, "p", f"e{n}", "1/2-1/2")
    assert summary(engine, "p") == ("provisional", D("1500.14"), 7)
    assert state(engine, "p").performances == D("10501")

    play(engine, "p", "e7", "1/2-1/2")

    assert summary(engine, "p") == ("provisional", D("1500.13"), 8)
    assert state(engine, "p").performances == D("12001")


def test_c2_example_win_against_newcomer_lowers_a_provisional_rating() -> None:
    """corr C2/C3 example: a provisional player with performances 1900 and 1700
    (1800.00) beats an unrated newcomer: performance 1500, new rating
    (1900 + 1700 + 1500) / 3 = 1700.00 — a win that lowers the rating.

    p gets 1900 by beating established 1500 and 1700 by drawing established 1700
    (|1700 − 1900| = 200 < 400, counted). The newcomer loses to a player rated 1800:
    performance 1800 − 400 = 1400."""
    engine = corr(established("e1", "1500.00"), established("e2", "1700.00"))
    play(engine, "p", "e1", "1-0")
    assert summary(engine, "p") == ("provisional", D("1900.00"), 1)
    play(engine, "e2", "p", "1/2-1/2")
    assert summary(engine, "p") == ("provisional", D("1800.00"), 2)

    result = play(engine, "p", "newcomer", "1-0")

    assert summary(engine, "p") == ("provisional", D("1700.00"), 3)
    (change,) = [c for c in result.changes if c.player == "p"]
    assert change.change == D("-100.00")
    assert summary(engine, "newcomer") == ("provisional", D("1400.00"), 1)


def test_c2_loss_can_raise_a_provisional_rating() -> None:
    """corr C2: a loss can raise the rating. p, provisional 900.00 after 2 games, loses
    to a newcomer: performance 1100; (2 × 900 + 1100) / 3 = 2900 / 3 = 966.666… →
    966.67."""
    engine = corr(provisional("p", "900.00", 2))
    play(engine, "p", "newcomer", "0-1")
    assert summary(engine, "p") == ("provisional", D("966.67"), 3)


# -- C3 ------------------------------------------------------------------------------


def test_c3_example_two_unrated_players_white_wins() -> None:
    """corr C3 example: two unrated players, White wins: White 1500.00 (provisional, 1
    game), Black 1100.00 (provisional, 1 game)."""
    engine = corr()
    result = play(engine, "w", "b", "1-0")

    assert result.outcome is Outcome.RATED
    assert summary(engine, "w") == ("provisional", D("1500.00"), 1)
    assert summary(engine, "b") == ("provisional", D("1100.00"), 1)


def test_c3_example_two_unrated_players_draw() -> None:
    """corr C3 example: two unrated players draw: both 1300.00 (provisional, 1 game)."""
    engine = corr()
    play(engine, "w", "b", "1/2-1/2")

    assert summary(engine, "w") == ("provisional", D("1300.00"), 1)
    assert summary(engine, "b") == ("provisional", D("1300.00"), 1)


def test_c3_two_unrated_players_black_wins() -> None:
    """corr C3: the winner gets 1500 and the loser 1100 whatever the colour."""
    engine = corr()
    play(engine, "w", "b", "0-1")

    assert summary(engine, "w") == ("provisional", D("1100.00"), 1)
    assert summary(engine, "b") == ("provisional", D("1500.00"), 1)


@pytest.mark.parametrize(
    ("result", "performance", "expected"),
    [
        ("1-0", "2000", "1625.00"),  # (3 × 1500 + 1600 + 400) / 4 = 6500 / 4
        ("1/2-1/2", "1600", "1525.00"),  # (4500 + 1600) / 4 = 6100 / 4
        ("0-1", "1200", "1425.00"),  # (4500 + 1600 − 400) / 4 = 5700 / 4
    ],
    ids=["win", "draw", "loss"],
)
def test_c3_performance_against_a_rated_opponent(
    result: str, performance: str, expected: str
) -> None:
    """corr C3, opponent rated column: win R_o + 400, draw R_o, loss R_o − 400.
    p is provisional 1500.00 after 3 games; the opponent is established 1600.00."""
    engine = corr(provisional("p", "1500.00", 3), established("e", "1600.00"))
    play(engine, "p", "e", result)

    assert summary(engine, "p") == ("provisional", D(expected), 4)
    assert state(engine, "p").performances == D("4500.00") + D(performance)


@pytest.mark.parametrize(
    ("result", "expected"),
    [("1-0", "2000.00"), ("1/2-1/2", "1600.00"), ("0-1", "1200.00")],
    ids=["win", "draw", "loss"],
)
def test_c3_unrated_player_against_a_rated_opponent(result: str, expected: str) -> None:
    """corr C3: an unrated player's first performance against an opponent rated 1600
    is 1600 + 400 / 1600 / 1600 − 400 (the 400-point rule needs a rating of his own)."""
    engine = corr(established("e", "1600.00"))
    play(engine, "n", "e", result)
    assert summary(engine, "n") == ("provisional", D(expected), 1)


def test_c3_unrated_player_against_a_far_higher_rated_opponent_is_counted() -> None:
    """corr C3/C4: a player without a rating has no C4 gap, so beating an established
    2400 counts: performance 2800.00."""
    engine = corr(established("e", "2400.00"))
    play(engine, "n", "e", "1-0")
    assert summary(engine, "n") == ("provisional", D("2800.00"), 1)


def test_c3_both_provisional_use_pre_game_ratings() -> None:
    """corr C3 (and the spec's simultaneous update): two players at 1300.00 (1 game each);
    w beats b: w's performance 1300 + 400 = 1700 → (1300 + 1700) / 2 = 1500.00; b's
    1300 − 400 = 900, from w's pre-game 1300 → (1300 + 900) / 2 = 1100.00."""
    engine = corr()
    play(engine, "w", "b", "1/2-1/2")
    play(engine, "w", "b", "1-0")

    assert summary(engine, "w") == ("provisional", D("1500.00"), 2)
    assert summary(engine, "b") == ("provisional", D("1100.00"), 2)


def test_c3_performance_is_fixed_when_the_game_ends() -> None:
    """corr C3: later changes of the opponent's rating do not change a performance.

    p (1500.00 × 2) draws q (1600.00 × 2): p's performance 1600 → 4600 / 3 =
    1533.33. q then beats a newcomer: (3200 + 1500 + 1500) / 4 = 1550.00. p then draws
    a newcomer: (4600 + 1300) / 4 = 5900 / 4 = 1475.00 — recomputing with q's new
    rating would give (3000 + 1550 + 1300) / 4 = 1462.50."""
    engine = corr(provisional("p", "1500.00", 2), provisional("q", "1600.00", 2))
    play(engine, "p", "q", "1/2-1/2")
    assert summary(engine, "p") == ("provisional", D("1533.33"), 3)
    assert summary(engine, "q") == ("provisional", D("1566.67"), 3)

    play(engine, "q", "x", "1-0")
    assert summary(engine, "q") == ("provisional", D("1550.00"), 4)
    assert summary(engine, "p") == ("provisional", D("1533.33"), 3)

    play(engine, "p", "y", "1/2-1/2")
    assert summary(engine, "p") == ("provisional", D("1475.00"), 4)


# -- C4 ------------------------------------------------------------------------------


@pytest.mark.parametrize("result", ["1-0", "1/2-1/2", "0-1"])
def test_c4_example_provisional_1450_meets_opponent_rated_1000(result: str) -> None:
    """corr C4 example: a provisional player at 1450.00 after 4 games meets an
    opponent rated 1000: the game is not counted; still 1450.00 after 4 games."""
    engine = corr(provisional("p", "1450.00", 4), established("e", "1000.00"))
    result_ = play(engine, "p", "e", result)

    assert summary(engine, "p") == ("provisional", D("1450.00"), 4)
    assert state(engine, "p").performances == D("5800.00")
    assert [c.player for c in result_.changes] == ["e"]


def test_c4_the_opponent_is_still_rated() -> None:
    """corr C4 only concerns the provisional player: the established opponent (1000.00,
    30 games) who beats him moves by C5: diff 450 clamped to 350, 0.04 × 350 + 16 =
    +30 → 1030.00, 31 games."""
    engine = corr(provisional("p", "1450.00", 4), established("e", "1000.00"))
    play(engine, "e", "p", "1-0")

    assert summary(engine, "e") == ("established", D("1030.00"), 31)
    assert summary(engine, "p") == ("provisional", D("1450.00"), 4)


@pytest.mark.parametrize(
    ("opponent", "counted", "expected"),
    [
        ("1850.00", False, "1450.00"),  # exactly 400 above
        ("1050.00", False, "1450.00"),  # exactly 400 below
        ("1849.99", True, "1530.00"),  # (5800 + 1849.99) / 5 = 1529.998 → 1530.00
        ("1050.01", True, "1370.00"),  # (5800 + 1050.01) / 5 = 1370.002 → 1370.00
    ],
)
def test_c4_boundary_400_or_more_is_not_counted(
    opponent: str, counted: bool, expected: str
) -> None:
    """corr C4: "400 or more points above or below": a gap of exactly 400 is not
    counted; 399.99 is. p is provisional 1450.00 after 4 games and draws."""
    engine = corr(provisional("p", "1450.00", 4), established("e", opponent))
    play(engine, "p", "e", "1/2-1/2")
    assert summary(engine, "p") == ("provisional", D(expected), 5 if counted else 4)


def test_c4_uncounted_game_does_not_count_toward_the_25_games() -> None:
    """corr C4 Decision: such a game is not counted toward the 25 games either. p,
    provisional 1500.00 after 24 games, draws established 1900 (gap 400): still 24
    games, provisional. Then a draw with established 1500 is the 25th counted game:
    (24 × 1500 + 1500) / 25 = 1500.00, established."""
    engine = corr(
        provisional("p", "1500.00", 24),
        established("far", "1900.00"),
        established("near", "1500.00"),
    )
    play(engine, "p", "far", "1/2-1/2")
    assert summary(engine, "p") == ("provisional", D("1500.00"), 24)

    play(engine, "p", "near", "1/2-1/2")
    assert summary(engine, "p") == ("established", D("1500.00"), 25)


def test_c4_two_provisional_players_400_apart_count_for_neither() -> None:
    """corr C4: after the first example (1500.00 / 1100.00, 1 game each) the gap is
    exactly 400, so a rematch counts for neither player, whatever the result."""
    engine = corr()
    play(engine, "w", "b", "1-0")
    result = play(engine, "b", "w", "1-0")

    assert result.changes == ()
    assert summary(engine, "w") == ("provisional", D("1500.00"), 1)
    assert summary(engine, "b") == ("provisional", D("1100.00"), 1)


# -- C5 ------------------------------------------------------------------------------


def test_c5_example_established_1558_loses_to_established_2223() -> None:
    """corr C5 example: established 1558 loses to established 2223: diff 665 clamped
    to 350: 1558 + 0.04 × 350 − 16 = 1556.00. The winner: diff −665 → −350:
    2223 − 14 + 16 = 2225.00."""
    engine = corr(established("a", "1558.00"), established("b", "2223.00"))
    result = play(engine, "a", "b", "0-1")

    assert summary(engine, "a") == ("established", D("1556.00"), 31)
    assert summary(engine, "b") == ("established", D("2225.00"), 31)
    (change,) = [c for c in result.changes if c.player == "a"]
    assert (change.rule, change.d, change.change) == ("corr C5", D("665.00"), D("-2.00"))


def test_c5_win_and_loss_formula() -> None:
    """corr C5: 1600 beats 1700: 0.04 × 100 + 16 = +20 → 1620.00; 1700:
    0.04 × (−100) − 16 = −20 → 1680.00."""
    engine = corr(established("a", "1600.00"), established("b", "1700.00"))
    play(engine, "a", "b", "1-0")

    assert summary(engine, "a") == ("established", D("1620.00"), 31)
    assert summary(engine, "b") == ("established", D("1680.00"), 31)


def test_c5_change_is_rounded_to_two_decimals_half_away_from_zero() -> None:
    """corr C5: the change is rounded to two decimals. 1500.00 beats 1512.38:
    0.04 × 12.38 + 16 = 16.4952 → +16.50 → 1516.50; 1512.38: −0.4952 − 16 = −16.4952 →
    −16.50 → 1495.88."""
    engine = corr(established("a", "1500.00"), established("b", "1512.38"))
    play(engine, "a", "b", "1-0")

    assert summary(engine, "a") == ("established", D("1516.50"), 31)
    assert summary(engine, "b") == ("established", D("1495.88"), 31)


@pytest.mark.parametrize(
    ("low", "high", "low_after", "high_after"),
    [
        # 0.04 × 12.38 = 0.4952 → 0.50
        ("1600.00", "1612.38", "1600.50", "1611.88"),
        # diff 500 clamped to 350: 0.04 × 350 = 14
        ("1600.00", "2100.00", "1614.00", "2086.00"),
        ("1700.00", "1700.00", "1700.00", "1700.00"),
    ],
)
def test_c5_draw_is_0_04_times_diff(low: str, high: str, low_after: str, high_after: str) -> None:
    """corr C5: a draw changes the rating by 0.04 × diff (diff clamped to ±350)."""
    engine = corr(established("low", low), established("high", high))
    play(engine, "high", "low", "1/2-1/2")

    assert summary(engine, "low") == ("established", D(low_after), 31)
    assert summary(engine, "high") == ("established", D(high_after), 31)


def test_c5_diff_clamped_at_minus_350_a_win_never_lowers() -> None:
    """corr C5 Decision: diff clamped to [−350, +350]. 2000 beats 1500: diff −500 →
    −350: −14 + 16 = +2 → 2002.00 (a win never lowers). 1500: diff +500 → +350:
    14 − 16 = −2 → 1498.00 (a loss never raises)."""
    engine = corr(established("strong", "2000.00"), established("weak", "1500.00"))
    result = play(engine, "strong", "weak", "1-0")

    assert summary(engine, "strong") == ("established", D("2002.00"), 31)
    assert summary(engine, "weak") == ("established", D("1498.00"), 31)
    (change,) = [c for c in result.changes if c.player == "strong"]
    assert (change.d, change.change) == (D("-500.00"), D("2.00"))


def test_c5_loss_to_a_far_lower_player_is_clamped_too() -> None:
    """corr C5 Decision: 2000 loses to 1500: diff −500 → −350: −14 − 16 = −30 →
    1970.00; 1500 wins: diff +350: 14 + 16 = +30 → 1530.00."""
    engine = corr(established("strong", "2000.00"), established("weak", "1500.00"))
    play(engine, "strong", "weak", "0-1")

    assert summary(engine, "strong") == ("established", D("1970.00"), 31)
    assert summary(engine, "weak") == ("established", D("1530.00"), 31)


@pytest.mark.parametrize(
    ("result", "opponent_rating", "after", "newcomer"),
    [
        # the newcomer loses to 1600: performance 1200; diff −400 → −350: −14 + 16 = +2
        ("1-0", "1200", "1602.00", "1200.00"),
        # the newcomer draws: performance 1600; diff 0 → 0
        ("1/2-1/2", "1600", "1600.00", "1600.00"),
        # the newcomer wins: performance 2000; diff 400 → 350: 14 − 16 = −2 → 0 (C6)
        ("0-1", "2000", "1600.00", "2000.00"),
    ],
    ids=["win", "draw", "loss"],
)
def test_c5_against_an_unrated_opponent_uses_the_performance_he_earns(
    result: str, opponent_rating: str, after: str, newcomer: str
) -> None:
    """corr C5 Decision: against an unrated opponent, the opponent's rating in the
    formula is the performance that opponent earns in this very game (C3). Established
    1600.00 against a newcomer (a fixed 1300 would give a win +4, not +2)."""
    engine = corr(established("e", "1600.00"))
    rating = play(engine, "e", "newcomer", result)

    (change,) = [c for c in rating.changes if c.player == "e"]
    assert change.opponent_rating == D(opponent_rating)
    assert summary(engine, "e") == ("established", D(after), 31)
    assert summary(engine, "newcomer") == ("provisional", D(newcomer), 1)


def test_c5_established_at_the_25th_counted_game_formula_from_the_26th() -> None:
    """corr C1/C5: a newcomer draws established e (1500.00) 25 times: every performance
    is 1500, so the mean stays 1500.00; after 24 games he is provisional, after the
    25th established. e is protected (C6) and the diff is 0, so e stays 1500.00. The
    26th game uses C5: p beats e, diff 0: +16 → 1516.00, and e — now facing an
    established player — loses 16 → 1484.00."""
    engine = corr(established("e", "1500.00"))
    for _ in range(24):
        play(engine, "p", "e", "1/2-1/2")
    assert summary(engine, "p") == ("provisional", D("1500.00"), 24)

    result = play(engine, "e", "p", "1/2-1/2")
    assert summary(engine, "p") == ("established", D("1500.00"), 25)
    (change,) = [c for c in result.changes if c.player == "p"]
    assert (change.rule, change.state_before, change.state_after) == (
        "corr C2",
        "provisional",
        "established",
    )
    assert summary(engine, "e") == ("established", D("1500.00"), 55)

    result = play(engine, "p", "e", "1-0")
    assert summary(engine, "p") == ("established", D("1516.00"), 26)
    assert summary(engine, "e") == ("established", D("1484.00"), 56)
    assert {c.player: c.rule for c in result.changes} == {"p": "corr C5", "e": "corr C5"}


def test_c5_25th_game_is_still_a_mean_then_the_formula() -> None:
    """corr C1/C5: p, provisional 1500.00 after 24 games, beats established e (1500.00):
    the 25th counted game is still averaged: (24 × 1500 + 1900) / 25 = 37900 / 25 =
    1516.00, established. e lost to a provisional player: −16 → protected, 1500.00.
    Game 26: p (1516.00) beats e (1500.00): diff −16: −0.64 + 16 = +15.36 → 1531.36;
    e: 0.64 − 16 = −15.36 → 1484.64 (no protection now)."""
    engine = corr(provisional("p", "1500.00", 24), established("e", "1500.00"))
    play(engine, "p", "e", "1-0")
    assert summary(engine, "p") == ("established", D("1516.00"), 25)
    assert summary(engine, "e") == ("established", D("1500.00"), 31)

    play(engine, "p", "e", "1-0")
    assert summary(engine, "p") == ("established", D("1531.36"), 26)
    assert summary(engine, "e") == ("established", D("1484.64"), 32)


# -- C6 ------------------------------------------------------------------------------


def test_c6_protected_against_a_provisional_opponent_loss_becomes_zero() -> None:
    """corr C6: established 1600.00 loses to provisional 1500.00 (4 games): C5 gives
    0.04 × (−100) − 16 = −20, protected → 0: 1600.00 (the game still counts: 31). The
    provisional: (4 × 1500 + 1600 + 400) / 5 = 8000 / 5 = 1600.00."""
    engine = corr(established("e", "1600.00"), provisional("p", "1500.00", 4))
    result = play(engine, "e", "p", "0-1")

    assert summary(engine, "e") == ("established", D("1600.00"), 31)
    (change,) = [c for c in result.changes if c.player == "e"]
    assert (change.rule, change.change) == ("corr C6", D("0.00"))
    assert summary(engine, "p") == ("provisional", D("1600.00"), 5)


def test_c6_draw_with_a_negative_change_against_a_provisional_becomes_zero() -> None:
    """corr C6: established 1600.00 draws provisional 1500.00: 0.04 × (−100) = −4 →
    protected → 1600.00."""
    engine = corr(established("e", "1600.00"), provisional("p", "1500.00", 4))
    play(engine, "p", "e", "1/2-1/2")
    assert summary(engine, "e") == ("established", D("1600.00"), 31)


def test_c6_positive_change_against_a_provisional_opponent_stays() -> None:
    """corr C6: a protected rating can rise: established 1600.00 beats provisional
    1500.00: −4 + 16 = +12 → 1612.00; draws provisional 1700.00: +4 → 1604.00."""
    engine = corr(
        established("e", "1600.00"),
        established("f", "1600.00"),
        provisional("p", "1500.00", 4),
        provisional("q", "1700.00", 4),
    )
    play(engine, "e", "p", "1-0")
    play(engine, "q", "f", "1/2-1/2")

    assert summary(engine, "e") == ("established", D("1612.00"), 31)
    assert summary(engine, "f") == ("established", D("1604.00"), 31)


def test_c6_protected_against_an_unrated_opponent() -> None:
    """corr C6 against an unrated opponent: established 1600.00 loses to a newcomer
    (performance 2000 → diff 350 → −2): protected → 1600.00; beating another
    newcomer (performance 1200 → diff −350 → +2) stays: 1602.00."""
    engine = corr(established("e", "1600.00"))
    result = play(engine, "n1", "e", "1-0")
    (change,) = [c for c in result.changes if c.player == "e"]
    assert (change.rule, change.change) == ("corr C6", D("0.00"))
    assert summary(engine, "e") == ("established", D("1600.00"), 31)

    play(engine, "n2", "e", "0-1")
    assert summary(engine, "e") == ("established", D("1602.00"), 32)


def test_c6_no_protection_between_established_players() -> None:
    """corr C6 only protects against provisional or unrated opponents: established
    1600.00 loses to established 1500.00: −4 − 16 = −20 → 1580.00."""
    engine = corr(established("e", "1600.00"), established("f", "1500.00"))
    play(engine, "e", "f", "0-1")
    assert summary(engine, "e") == ("established", D("1580.00"), 31)
    assert summary(engine, "f") == ("established", D("1520.00"), 31)


# -- C7 ------------------------------------------------------------------------------


def test_c7_provisional_display_is_marked_with_its_counted_games() -> None:
    """corr C7: a provisional rating is shown as ``1450P (7)``. p, 1450.00 after 6
    games, draws established 1450.00: (6 × 1450 + 1450) / 7 = 1450.00, 7 games."""
    engine = corr(provisional("p", "1450.00", 6), established("e", "1450.00"))
    play(engine, "p", "e", "1/2-1/2")

    entries = {entry.player: entry for entry in engine.rating_list("corr")}
    entry = entries["p"]
    assert entry.display == "1450P (7)"
    assert (entry.rating, entry.state, entry.games) == (D("1450.00"), "provisional", 7)
    assert entry.as_mapping() == {
        "player": "p",
        "pool": "corr",
        "rating": "1450.00",
        "display": "1450P (7)",
        "state": "provisional",
        "games": 7,
    }


def test_c7_established_display_is_an_integer() -> None:
    """corr C7: an established rating is an integer: the C5 example's 1556.00 is
    ``1556``."""
    engine = corr(established("a", "1558.00"), established("b", "2223.00"))
    play(engine, "a", "b", "0-1")

    assert listed(engine) == {
        "b": ("2225", "established", 31, D("2225.00")),
        "a": ("1556", "established", 31, D("1556.00")),
    }


@pytest.mark.parametrize(
    ("player", "shown"),
    [
        (provisional("p", "1449.50", 7), "1450P (7)"),
        (provisional("p", "1449.49", 7), "1449P (7)"),
        (established("p", "1555.50"), "1556"),
        (established("p", "1555.49"), "1555"),
    ],
)
def test_c7_display_rounds_half_up(player: Player, shown: str) -> None:
    """corr C7: "Integer, half up"."""
    engine = corr(player)
    (entry,) = engine.rating_list("corr")
    assert entry.display == shown


def test_c7_unrated_before_the_first_game() -> None:
    """corr C7: ``Unrated`` before the first game; such a player has no rating and no
    counted game, so he is not in the rating list."""
    assert display_corr(CorrState()) == "Unrated"
    engine = corr(Player("n"))
    assert display_corr(state(engine, "n")) == "Unrated"
    assert engine.rating_list("corr") == []


# -- outcomes (the spec, "Each game gets one of four outcomes") -----------------------


def test_casual_game_is_unrated_and_moves_nothing() -> None:
    """The spec's outcomes: a casual game is unrated: nothing moves, no state is created."""
    engine = corr(established("e", "1600.00"))
    result = play(engine, "e", "n", "0-1", rated=False)

    assert result.outcome is Outcome.UNRATED
    assert (result.changes, engine.states) == ((), {})
    assert summary(engine, "n") == ("unrated", None, 0)


def test_forfeit_is_void_and_counts_for_nothing() -> None:
    """The spec's outcomes: a forfeited game is void: no rating, no count."""
    engine = corr(provisional("p", "1450.00", 4))
    result = play(engine, "p", "n", "1-0", termination="forfeit")

    assert result.outcome is Outcome.VOID
    assert (result.changes, engine.states) == ((), {})
    assert summary(engine, "p") == ("provisional", D("1450.00"), 4)
    assert summary(engine, "n") == ("unrated", None, 0)


def test_game_without_result_is_void() -> None:
    """The spec's outcomes: result ``*`` (no result) is void."""
    engine = corr()
    result = play(engine, "a", "b", "*")

    assert result.outcome is Outcome.VOID
    assert (result.changes, engine.states) == ((), {})
    assert engine.outcome(result.game.id) is Outcome.VOID


def test_corr_has_no_fair_play_annulment() -> None:
    """site S10 is a site rule: a corr engine refuses to annul a rated game and keeps
    its states."""
    engine = corr()
    result = play(engine, "a", "b", "1-0")
    states = dict(engine.states)

    with pytest.raises(InvalidRecord) as caught:
        engine.annul(result.game.id, "cheating", datetime(2026, 3, 2, tzinfo=UTC), "mod")

    assert caught.value.field == "id"
    assert engine.states == states
    assert engine.annulments == {}
    assert engine.outcome(result.game.id) is Outcome.RATED
