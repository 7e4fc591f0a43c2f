"""Conformance tests for the ``site`` system: one or more tests per rule of
the spec's site system (S1-S10), plus the spec's worked examples.

S8's first-move deadlines and S9's 7-day expiry as live behaviour belong to the
service; here a finished record's ``plies`` and ``termination`` are judged.

Every expected number is computed by hand from the spec and written as a literal.
Expected scores are 1 / (1 + 10^((R_opp − R_own)/400)) rounded to two decimals, half
up (the spec, "Rounding": rounding to two decimals happens where a computation
produces more digits, "a logistic expected score" among them); the change is
K × w × (score − expected), rounded to two decimals.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from chessrate import CorrSystem, Engine, InvalidRecord, Outcome, Player
from chessrate.systems.site import SiteState

from . import helpers as arena_helpers
from .site_helpers import (
    bot,
    change_of,
    human,
    listed,
    play,
    rating,
    ratings_and_games,
    record,
    site,
    snapshot,
)

D = Decimal
AT = datetime(2026, 3, 5, 9, 30, tzinfo=UTC)

HUMAN_POOLS = ("bullet", "blitz", "rapid", "classical", "unclocked", "correspondence", "otb")


# -- S1 ------------------------------------------------------------------------------


def test_s1_rated_game_moves_the_type_rating_and_the_site_elo_only() -> None:
    """site S1: two numbers move per rated game, for each player: the rating of the
    game's type and the site Elo; every other type rating stays untouched."""
    engine = site()
    result = play(engine, "w", "b", "1-0", tc="15m")

    assert result.outcome is Outcome.RATED
    assert set(result.states) == {("w", "rapid"), ("b", "rapid"), ("w", "site"), ("b", "site")}
    assert {(c.player, c.pool) for c in result.changes} == set(result.states)
    for pool in (*HUMAN_POOLS, "bots"):
        if pool == "rapid":
            continue
        assert engine.state("w", pool) == SiteState(D("1500.00"), 0)
        assert engine.state("b", pool) == SiteState(D("1500.00"), 0)


def test_s1_casual_game_moves_neither() -> None:
    """site S1: casual (friendly) games move neither number; the game is unrated."""
    engine = site(human("w", blitz=("1800.00", 40), site=("1700.00", 40)))
    result = play(engine, "w", "b", "0-1", rated=False)

    assert result.outcome is Outcome.UNRATED
    assert (result.changes, engine.states) == ((), {})
    assert ratings_and_games(engine, "w", "blitz", "site") == [
        (D("1800.00"), 40),
        (D("1700.00"), 40),
    ]


# -- S2 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("control", "pool"),
    [
        ("5m+3s", "blitz"),  # 300 + 40 × 3 = 420 s = 7 min
        ("300+3", "blitz"),  # the same in PGN seconds
        ("2m+1s", "bullet"),  # 120 + 40 = 160 s
        ("120+1", "bullet"),
        ("10m", "rapid"),  # 600 s
        ("10m+0s", "rapid"),
        ("15m+10s", "rapid"),  # 900 + 400 = 1300 s = 21 min 40 s
        ("25m", "classical"),  # 1500 s
        ("25m+0s", "classical"),
    ],
)
def test_s2_examples_of_the_spec(control: str, pool: str) -> None:
    """site S2 examples: 5+3 is blitz, 2+1 bullet, 10+0 rapid, 15+10 rapid, 25+0
    classical (written with units or as PGN seconds)."""
    result = play(site(), "w", "b", "1-0", tc=control)
    assert {c.pool for c in result.changes} == {pool, "site"}


def test_s2_bare_number_pair_is_pgn_seconds() -> None:
    """site S2 / the spec's time_control: a bare ``5+3`` is 5 s + 3 s (125 s): bullet, not
    the 5-minute blitz of the spec's example."""
    result = play(site(), "w", "b", "1-0", tc="5+3")
    assert {c.pool for c in result.changes} == {"bullet", "site"}


@pytest.mark.parametrize(
    ("control", "pool"),
    [
        ("179", "bullet"),
        ("139+1", "bullet"),  # 139 + 40 = 179
        ("180", "blitz"),
        ("3m", "blitz"),
        ("140+1", "blitz"),  # 140 + 40 = 180
        ("479", "blitz"),
        ("439+1", "blitz"),  # 479
        ("480", "rapid"),
        ("8m", "rapid"),
        ("1499", "rapid"),
        ("1500", "classical"),
        ("1100+10", "classical"),  # 1100 + 400 = 1500
        ("90m+30s", "classical"),
    ],
)
def test_s2_estimate_boundaries(control: str, pool: str) -> None:
    """site S2 Decision: bullet < 180 s ≤ blitz < 480 s ≤ rapid < 1500 s ≤ classical, on
    the estimate base + 40 × increment."""
    result = play(site(), "w", "b", "1-0", tc=control)
    assert {c.pool for c in result.changes} == {pool, "site"}


@pytest.mark.parametrize(
    ("fields", "pool", "site_gain"),
    [
        ({"tc": "1m"}, "bullet", "8.00"),  # 32 × 0.5 × 0.5
        ({"tc": "5m"}, "blitz", "12.00"),  # 32 × 0.75 × 0.5
        ({"tc": "15m"}, "rapid", "16.00"),  # 32 × 1.0 × 0.5
        ({"tc": "30m"}, "classical", "16.00"),
        ({"tc": "-"}, "unclocked", "12.00"),
        ({"tc": "1d"}, "correspondence", "8.00"),
        ({"tc": "7d"}, "correspondence", "8.00"),
        ({"tc": None, "venue": "otb", "confirmed": True}, "otb", "12.00"),
    ],
    ids=["bullet", "blitz", "rapid", "classical", "unclocked", "corr-1d", "corr-7d", "otb"],
)
def test_s2_each_type_and_its_site_elo_weight(
    fields: dict[str, Any], pool: str, site_gain: str
) -> None:
    """site S2 weights: two new players (1500, K 32, expected 0.5), White wins: the
    type rating moves 32 × 1 × 0.5 = 16, the site Elo 16 × the type's weight."""
    engine = site()
    result = play(engine, "w", "b", "1-0", **fields)

    assert result.outcome is Outcome.RATED
    assert {c.pool for c in result.changes} == {pool, "site"}
    assert rating(engine, "w", pool) == D("1516.00")
    assert rating(engine, "b", pool) == D("1484.00")
    assert rating(engine, "w", "site") == D("1500.00") + D(site_gain)
    assert rating(engine, "b", "site") == D("1500.00") - D(site_gain)


def test_s2_bot_game_weight_is_one_half() -> None:
    """site S2/S7: a game against a bot (fixed 1500) is of type bots, weight 0.5: the
    human's bots rating +16, site Elo 32 × 0.5 × 0.5 = +8."""
    engine = site(bot("robo", "1500"))
    play(engine, "h", "robo", "1-0", tc="5m")

    assert ratings_and_games(engine, "h", "bots", "site") == [
        (D("1516.00"), 1),
        (D("1508.00"), 1),
    ]
    assert engine.state("h", "blitz") == SiteState(D("1500.00"), 0)


@pytest.mark.parametrize(
    ("players", "fields", "pool"),
    [
        ((bot("robo", "1500"),), {"venue": "otb", "confirmed": True, "tc": None}, "bots"),
        ((bot("robo", "1500"),), {"tc": "3d"}, "bots"),
        ((), {"venue": "otb", "confirmed": True, "tc": "3d"}, "otb"),
        ((), {"venue": "otb", "confirmed": True, "tc": "1m"}, "otb"),
        ((), {"venue": "otb", "confirmed": True, "tc": "-"}, "otb"),
    ],
    ids=["bot-over-otb", "bot-over-corr", "otb-over-corr", "otb-over-bullet", "otb-over-unclocked"],
)
def test_s2_first_match_wins(
    players: tuple[Player, ...], fields: dict[str, Any], pool: str
) -> None:
    """site S2: the first matching row of the table decides the type."""
    engine = site(*players)
    black = "robo" if players else "b"
    result = play(engine, "h", black, "1-0", **fields)
    assert {c.pool for c in result.changes} == {pool, "site"}


def test_s2_more_than_7_days_per_move_is_refused_for_rated_play() -> None:
    """site S2: more than 7 days per move is refused for rated play (naming the field
    time_control, changing nothing); played casual it is simply unrated."""
    engine = site()
    rated = record("w", "b", "1-0", tc="8d")
    with pytest.raises(InvalidRecord) as caught:
        engine.apply(rated)
    assert caught.value.field == "time_control"
    assert caught.value.where == rated.source
    assert (engine.states, engine.ratings) == ({}, [])

    assert play(engine, "w", "b", "1-0", tc="8d", rated=False).outcome is Outcome.UNRATED
    assert engine.states == {}


def test_s2_rated_online_game_needs_a_time_control() -> None:
    """site S2: the type of an online game comes from its time control: a rated online
    game without one cannot be typed and is refused."""
    engine = site()
    with pytest.raises(InvalidRecord) as caught:
        engine.apply(record("w", "b", "1-0", tc=None))
    assert caught.value.field == "time_control"
    assert engine.states == {}


@pytest.mark.parametrize("confirmed", [False, None], ids=["not-confirmed", "no-confirmation"])
def test_s2_otb_game_not_confirmed_is_pending(confirmed: bool | None) -> None:
    """site S2: an otb game not yet confirmed by both players is pending: it moves
    nothing (outcome unrated)."""
    engine = site()
    result = play(engine, "w", "b", "1-0", tc=None, venue="otb", confirmed=confirmed)

    assert result.outcome is Outcome.UNRATED
    assert "pending" in result.reason
    assert (result.changes, engine.states) == ((), {})


def test_s2_otb_game_confirmed_is_rated_as_otb() -> None:
    """site S2: a confirmed otb game is rated with type otb (weight 0.75)."""
    engine = site()
    result = play(engine, "w", "b", "0-1", tc=None, venue="otb", confirmed=True)

    assert result.outcome is Outcome.RATED
    assert ratings_and_games(engine, "b", "otb", "site") == [
        (D("1516.00"), 1),
        (D("1512.00"), 1),
    ]


# -- S3 ------------------------------------------------------------------------------


def test_s3_example_two_new_players_blitz_white_wins() -> None:
    """site S3 example: two new players (1500, 0 games) play blitz, White wins: blitz
    1516.00 / 1484.00 (K 32, expected 0.5); site Elo 1512.00 / 1488.00 (weight 0.75)."""
    engine = site()
    result = play(engine, "w", "b", "1-0", tc="5m+3s")

    assert ratings_and_games(engine, "w", "blitz", "site") == [
        (D("1516.00"), 1),
        (D("1512.00"), 1),
    ]
    assert ratings_and_games(engine, "b", "blitz", "site") == [
        (D("1484.00"), 1),
        (D("1488.00"), 1),
    ]
    change = change_of(result, "w", "blitz")
    assert (change.k, change.pd, change.change) == (32, D("0.50"), D("16.00"))
    change = change_of(result, "b", "site")
    assert (change.k, change.pd, change.change) == (32, D("0.50"), D("-12.00"))


def test_s3_everyone_starts_at_1500_in_every_rating() -> None:
    """site S3: everyone starts at 1500 (0 games) in every rating."""
    engine = site()
    for pool in engine.system.pools:
        assert engine.state("newcomer", pool) == SiteState(D("1500.00"), 0)


@pytest.mark.parametrize(
    ("result", "high_blitz", "low_blitz", "high_site", "low_site"),
    [
        # 32 × (1 − 0.76) = 7.68; site 32 × 0.75 × 0.24 = 5.76
        ("1-0", "1707.68", "1492.32", "1705.76", "1494.24"),
        # 32 × (0.5 − 0.76) = −8.32; site 24 × −0.26 = −6.24
        ("1/2-1/2", "1691.68", "1508.32", "1693.76", "1506.24"),
        # 32 × (0 − 0.76) = −24.32; site 24 × −0.76 = −18.24
        ("0-1", "1675.68", "1524.32", "1681.76", "1518.24"),
    ],
    ids=["higher-wins", "draw", "lower-wins"],
)
def test_s3_expected_score_1700_against_1500(
    result: str, high_blitz: str, low_blitz: str, high_site: str, low_site: str
) -> None:
    """site S3: 1700 against 1500: expected = 1 / (1 + 10^(−200/400)) = 0.7597469… →
    0.76 for 1700, 1 / (1 + 10^0.5) = 0.2402530… → 0.24 for 1500 (the two add up to
    1); K 32 (5 games), blitz w 1 and site Elo w 0.75."""
    engine = site(
        human("high", blitz=("1700.00", 5), site=("1700.00", 5)),
        human("low", blitz=("1500.00", 5), site=("1500.00", 5)),
    )
    rated = play(engine, "high", "low", result)

    assert change_of(rated, "high", "blitz").pd == D("0.76")
    assert change_of(rated, "low", "blitz").pd == D("0.24")
    assert change_of(rated, "high", "site").pd == D("0.76")
    assert change_of(rated, "low", "site").pd == D("0.24")
    assert rating(engine, "high", "blitz") == D(high_blitz)
    assert rating(engine, "low", "blitz") == D(low_blitz)
    assert rating(engine, "high", "site") == D(high_site)
    assert rating(engine, "low", "site") == D(low_site)


def test_s3_site_elo_uses_both_site_elos_and_type_rating_both_type_ratings() -> None:
    """site S3: "for the type rating ... both players' type ratings are used; for the
    site Elo ... both players' site Elos". Blitz 1500 v 1500 (expected 0.5) while the
    site Elos are 1700 v 1500 (expected 0.76 / 0.24). The 1700-site player wins:
    blitz +16.00; site 32 × 0.75 × 0.24 = +5.76."""
    engine = site(
        human("a", blitz=("1500.00", 5), site=("1700.00", 5)),
        human("b", blitz=("1500.00", 5), site=("1500.00", 5)),
    )
    result = play(engine, "a", "b", "1-0")

    assert change_of(result, "a", "blitz").opponent_rating == D("1500.00")
    assert change_of(result, "a", "site").opponent_rating == D("1500.00")
    assert change_of(result, "b", "site").opponent_rating == D("1700.00")
    assert rating(engine, "a", "blitz") == D("1516.00")
    assert rating(engine, "a", "site") == D("1705.76")
    assert rating(engine, "b", "site") == D("1494.24")


# -- S4 ------------------------------------------------------------------------------


def test_s4_each_rating_counts_its_own_games_for_k() -> None:
    """site S4 Decision: a's blitz rating has 40 games (K 20) but his site Elo only 5
    (K 32). a beats a newcomer at blitz: blitz 20 × 0.5 = +10.00; site
    32 × 0.75 × 0.5 = +12.00. The newcomer: K 32 in both: −16.00 / −12.00."""
    engine = site(human("a", blitz=("1500.00", 40), site=("1500.00", 5)))
    result = play(engine, "a", "n", "1-0")

    assert (change_of(result, "a", "blitz").k, change_of(result, "a", "site").k) == (20, 32)
    assert ratings_and_games(engine, "a", "blitz", "site") == [
        (D("1510.00"), 41),
        (D("1512.00"), 6),
    ]
    assert ratings_and_games(engine, "n", "blitz", "site") == [
        (D("1484.00"), 1),
        (D("1488.00"), 1),
    ]


def test_s4_site_elo_with_30_games_and_a_new_type_rating() -> None:
    """site S4: the other way round: rapid 3 games (K 32), site Elo 45 games (K 20).
    a beats a newcomer at rapid: rapid +16.00; site 20 × 1.0 × 0.5 = +10.00."""
    engine = site(human("a", rapid=("1500.00", 3), site=("1500.00", 45)))
    result = play(engine, "a", "n", "1-0", tc="15m")

    assert (change_of(result, "a", "rapid").k, change_of(result, "a", "site").k) == (32, 20)
    assert rating(engine, "a", "rapid") == D("1516.00")
    assert rating(engine, "a", "site") == D("1510.00")


def test_s4_k_is_32_through_the_30th_game_then_20() -> None:
    """site S4: K 32 while the rating has fewer than 30 games. a has 29 blitz and 29
    site games; his 30th game (vs newcomer b) still uses K 32: blitz +16.00 →
    1516.00, site +12.00 → 1512.00. The 31st (vs newcomer c) uses K 20: blitz
    expected(1516 v 1500) = 0.5230… → 0.52: 20 × 0.48 = +9.60 → 1525.60; site
    expected(1512 v 1500) = 0.5173… → 0.52: 20 × 0.75 × 0.48 = +7.20 → 1519.20."""
    engine = site(human("a", blitz=("1500.00", 29), site=("1500.00", 29)))
    result = play(engine, "a", "b", "1-0")
    assert change_of(result, "a", "blitz").k == 32
    assert ratings_and_games(engine, "a", "blitz", "site") == [
        (D("1516.00"), 30),
        (D("1512.00"), 30),
    ]

    result = play(engine, "a", "c", "1-0")
    assert (change_of(result, "a", "blitz").k, change_of(result, "a", "site").k) == (20, 20)
    assert change_of(result, "a", "blitz").pd == D("0.52")
    assert change_of(result, "a", "site").pd == D("0.52")
    assert ratings_and_games(engine, "a", "blitz", "site") == [
        (D("1525.60"), 31),
        (D("1519.20"), 31),
    ]


# -- S5 ------------------------------------------------------------------------------


def test_s5_example_110_with_k_20_loses_to_an_equal_opponent() -> None:
    """site S5 example: a player at 110.00 with K 20 loses to an equal opponent: −10 →
    100.00 (no floor needed). His site Elo (110.00, 30 games, blitz weight 0.75):
    20 × 0.75 × −0.5 = −7.50 → 102.50."""
    engine = site(
        human("p", blitz=("110.00", 30), site=("110.00", 30)),
        human("o", blitz=("110.00", 30), site=("110.00", 30)),
    )
    result = play(engine, "p", "o", "0-1")

    assert rating(engine, "p", "blitz") == D("100.00")
    assert change_of(result, "p", "blitz").rule == "site S3"
    assert rating(engine, "p", "site") == D("102.50")
    assert rating(engine, "o", "blitz") == D("120.00")
    assert rating(engine, "o", "site") == D("117.50")


def test_s5_example_105_stops_at_100() -> None:
    """site S5 example: at 105.00 (K 20) the loss of 10 would give 95.00: it stops at
    100.00. The site Elo 105.00 − 7.50 = 97.50 stops at 100.00 too. The winner is not
    affected by the floor: 105.00 + 10.00 / + 7.50."""
    engine = site(
        human("p", blitz=("105.00", 30), site=("105.00", 30)),
        human("o", blitz=("105.00", 30), site=("105.00", 30)),
    )
    result = play(engine, "p", "o", "0-1")

    assert ratings_and_games(engine, "p", "blitz", "site") == [
        (D("100.00"), 31),
        (D("100.00"), 31),
    ]
    blitz = change_of(result, "p", "blitz")
    assert (blitz.rule, blitz.change) == ("site S5", D("-5.00"))
    assert rating(engine, "o", "blitz") == D("115.00")
    assert rating(engine, "o", "site") == D("112.50")


def test_s5_at_the_floor_a_loss_changes_nothing() -> None:
    """site S5: a player at 100.00 who loses stays at 100.00 (the game still counts)."""
    engine = site(human("p", blitz=("100.00", 30), site=("100.00", 30)))
    play(engine, "p", "n", "0-1")
    assert ratings_and_games(engine, "p", "blitz", "site") == [
        (D("100.00"), 31),
        (D("100.00"), 31),
    ]


# -- S6 ------------------------------------------------------------------------------


def test_s6_fewer_than_10_games_shown_with_a_question_mark() -> None:
    """site S6: a rating with fewer than 10 rated games is shown ``1516?`` with its
    games count; an imported rating with 9 games is ``1500?``."""
    engine = site(human("nine", blitz=("1500.00", 9)))
    play(engine, "w", "b", "1-0")

    blitz = listed(engine, "blitz")
    assert (blitz["w"].display, blitz["w"].games, blitz["w"].state) == ("1516?", 1, "rated")
    assert (blitz["b"].display, blitz["b"].games) == ("1484?", 1)
    assert (blitz["nine"].display, blitz["nine"].games) == ("1500?", 9)
    assert listed(engine, "site")["w"].display == "1512?"
    assert blitz["w"].as_mapping() == {
        "player": "w",
        "pool": "blitz",
        "rating": "1516.00",
        "display": "1516?",
        "state": "rated",
        "games": 1,
    }


def test_s6_plain_from_10_games_on() -> None:
    """site S6: from the 10th rated game on the rating is shown plain. a (1500.00, 9
    blitz games) beats a newcomer: 1516.00, 10 games → ``1516``; his site Elo has 1
    game → ``1512?``."""
    engine = site(human("a", blitz=("1500.00", 9)), human("ten", rapid=("1623.50", 10)))
    play(engine, "a", "n", "1-0")

    assert listed(engine, "blitz")["a"].display == "1516"
    assert listed(engine, "blitz")["a"].games == 10
    assert listed(engine, "site")["a"].display == "1512?"
    assert listed(engine, "rapid")["ten"].display == "1624"  # 1623.50 half up


def test_s6_players_without_games_in_a_pool_are_not_listed() -> None:
    """site S6 / the spec's rating list: a pool's list holds the players with a rating or
    at least one counted game in it."""
    engine = site()
    play(engine, "w", "b", "1-0")
    assert set(listed(engine, "blitz")) == {"w", "b"}
    assert listed(engine, "rapid") == {}


# -- S7 ------------------------------------------------------------------------------


def test_s7_game_against_a_bot_moves_the_humans_bots_rating_and_site_elo() -> None:
    """site S7: a new human beats bot1 (fixed 1800): the bot's rating is the opponent's
    rating in both. Expected 1 / (1 + 10^(300/400)) = 0.15098… → 0.15. Bots rating
    32 × 0.85 = +27.20 → 1527.20; site Elo 32 × 0.5 × 0.85 = +13.60 → 1513.60."""
    engine = site(bot("bot1", "1800"))
    result = play(engine, "h", "bot1", "1-0", tc="10m")

    assert result.outcome is Outcome.RATED
    assert {(c.player, c.pool) for c in result.changes} == {("h", "bots"), ("h", "site")}
    assert change_of(result, "h", "bots").opponent_rating == D("1800")
    assert change_of(result, "h", "site").opponent_rating == D("1800")
    assert change_of(result, "h", "bots").pd == D("0.15")
    assert ratings_and_games(engine, "h", "bots", "site") == [
        (D("1527.20"), 1),
        (D("1513.60"), 1),
    ]
    assert engine.state("h", "rapid") == SiteState(D("1500.00"), 0)


def test_s7_site_elo_uses_the_bots_fixed_rating_not_a_site_elo() -> None:
    """site S7: the human's site Elo (1600.00, 5 games) moves against the bot's fixed
    1800: expected 0.2402… → 0.24; a win: 32 × 0.5 × 0.76 = +12.16 → 1612.16. His
    bots rating (1500) moves against 1800 too: +27.20 → 1527.20."""
    engine = site(bot("bot1", "1800"), human("h", site=("1600.00", 5)))
    play(engine, "bot1", "h", "0-1", tc="10m")

    assert rating(engine, "h", "site") == D("1612.16")
    assert rating(engine, "h", "bots") == D("1527.20")


def test_s7_human_loses_to_a_bot() -> None:
    """site S7: a new human loses to bot1 (1800): bots 32 × (0 − 0.15) = −4.80 →
    1495.20; site 32 × 0.5 × −0.15 = −2.40 → 1497.60."""
    engine = site(bot("bot1", "1800"))
    play(engine, "h", "bot1", "0-1", tc="10m")

    assert ratings_and_games(engine, "h", "bots", "site") == [
        (D("1495.20"), 1),
        (D("1497.60"), 1),
    ]


def test_s7_the_bots_state_is_never_created_and_it_is_never_listed() -> None:
    """site S7: the bot's rating never changes (no state is ever made for it) and bots
    do not appear in any rating list."""
    engine = site(bot("bot1", "1800"))
    play(engine, "h", "bot1", "1-0", tc="10m")
    play(engine, "bot1", "h", "1-0", tc="-", plies=40)
    play(engine, "h2", "bot1", "1/2-1/2", tc="1m")

    assert all(player != "bot1" for player, _pool in engine.states)
    for pool, entries in engine.rating_lists().items():
        assert all(entry.player != "bot1" for entry in entries), pool
    assert set(listed(engine, "bots")) == {"h", "h2"}
    assert engine.players["bot1"].bot_rating == D("1800")


@pytest.mark.parametrize("termination", ["timeout", "abandon"])
@pytest.mark.parametrize("bot_side", ["white", "black"])
def test_s7_a_bot_never_loses_on_time_or_by_abandonment(termination: str, bot_side: str) -> None:
    """site S7: a record where the bot loses by timeout or abandonment is refused
    (naming termination) and nothing changes."""
    engine = site(bot("bot1", "1800"))
    white, black, result = ("bot1", "h", "0-1") if bot_side == "white" else ("h", "bot1", "1-0")
    with pytest.raises(InvalidRecord) as caught:
        play(engine, white, black, result, termination=termination, plies=30)
    assert caught.value.field == "termination"
    assert (engine.states, engine.ratings) == ({}, [])


def test_s7_the_human_may_lose_to_a_bot_on_time() -> None:
    """site S7: only the bot never loses on time: the human's loss on time is rated."""
    engine = site(bot("bot1", "1800"))
    result = play(engine, "h", "bot1", "0-1", termination="timeout", plies=30)
    assert result.outcome is Outcome.RATED
    assert rating(engine, "h", "bots") == D("1495.20")


@pytest.mark.parametrize("plies", [2, 9, 17])
def test_s7_bot_no_move_before_move_10_is_void(plies: int) -> None:
    """site S7 Decision: the bot's move did not arrive with fewer than 18 plies
    (moves 1-9): void."""
    engine = site(bot("bot1", "1800"))
    result = play(engine, "h", "bot1", "*", termination="bot_no_move", plies=plies)
    assert result.outcome is Outcome.VOID
    assert (result.changes, engine.states) == ((), {})


@pytest.mark.parametrize("plies", [18, 19, 60])
@pytest.mark.parametrize("human_side", ["white", "black"])
@pytest.mark.parametrize("given", ["*", "human-loses"])
def test_s7_bot_no_move_from_move_10_is_the_humans_loss(
    plies: int, human_side: str, given: str
) -> None:
    """site S7 Decision: from 18 plies on, a missing bot move is the human's loss
    (result ``*`` or the human-loses result): bots 1495.20, site 1497.60 (see
    test_s7_human_loses_to_a_bot)."""
    engine = site(bot("bot1", "1800"))
    white, black = ("h", "bot1") if human_side == "white" else ("bot1", "h")
    loses = "0-1" if human_side == "white" else "1-0"
    result = play(
        engine, white, black, loses if given != "*" else "*", termination="bot_no_move", plies=plies
    )

    assert result.outcome is Outcome.RATED
    assert change_of(result, "h", "bots").score == D(0)
    assert ratings_and_games(engine, "h", "bots", "site") == [
        (D("1495.20"), 1),
        (D("1497.60"), 1),
    ]


@pytest.mark.parametrize("result", ["1-0", "1/2-1/2"], ids=["human-wins", "draw"])
def test_s7_bot_no_move_with_another_result_is_refused(result: str) -> None:
    """site S7: from move 10 a missing bot move is the human's loss; a record saying
    the human won (or drew) contradicts it and is refused, naming result."""
    engine = site(bot("bot1", "1800"))
    with pytest.raises(InvalidRecord) as caught:
        play(engine, "h", "bot1", result, termination="bot_no_move", plies=30)
    assert caught.value.field == "result"
    assert engine.states == {}


def test_s7_bot_no_move_without_a_bot_is_refused() -> None:
    """site S7: ``bot_no_move`` needs a bot in the game."""
    engine = site()
    with pytest.raises(InvalidRecord) as caught:
        play(engine, "a", "b", "0-1", termination="bot_no_move", plies=30)
    assert caught.value.field == "termination"
    assert engine.states == {}


def test_s7_bot_no_move_without_plies_is_refused() -> None:
    """site S7: whether it is void or a loss depends on the plies, so they are
    required."""
    engine = site(bot("bot1", "1800"))
    with pytest.raises(InvalidRecord) as caught:
        play(engine, "h", "bot1", "*", termination="bot_no_move")
    assert caught.value.field == "plies"
    assert engine.states == {}


def test_s7_two_bots_rate_nothing() -> None:
    """site S7: a bot's rating never changes, so a game between two bots moves nothing."""
    engine = site(bot("bot1", "1800"), bot("bot2", "1200"))
    result = play(engine, "bot1", "bot2", "1-0")
    assert result.outcome is not Outcome.RATED
    assert (result.changes, engine.states) == ((), {})


# -- S8 ------------------------------------------------------------------------------


@pytest.mark.parametrize("plies", [0, 1])
@pytest.mark.parametrize("termination", ["normal", "resign", "abandon", "timeout"])
@pytest.mark.parametrize("result", ["1-0", "0-1"])
def test_s8_before_both_sides_moved_the_game_is_void(
    plies: int, termination: str, result: str
) -> None:
    """site S8: until both sides made their first move (plies < 2) the game can only
    end void, whatever the termination: nobody's rating moves."""
    engine = site(human("w", blitz=("1800.00", 40), site=("1800.00", 40)))
    rated = play(engine, "w", "b", result, termination=termination, plies=plies)

    assert rated.outcome is Outcome.VOID
    assert (rated.changes, engine.states) == ((), {})
    assert engine.outcome(rated.game.id) is Outcome.VOID


@pytest.mark.parametrize("plies", [0, 1])
def test_s8_abort_against_a_bot_is_void(plies: int) -> None:
    """site S8 against a bot: before both sides moved, a missed first move (even the
    bot's) or a timeout annuls the game."""
    engine = site(bot("bot1", "1800"))
    for termination, result in (("timeout", "0-1"), ("bot_no_move", "*"), ("abandon", "1-0")):
        rated = play(engine, "h", "bot1", result, termination=termination, plies=plies)
        assert rated.outcome is Outcome.VOID
    assert engine.states == {}


@pytest.mark.parametrize(
    ("termination", "plies"), [("abandon", 2), ("timeout", 2), ("abandon", 41), ("timeout", 3)]
)
def test_s8_from_both_moves_abandoning_or_timeout_is_a_rated_loss(
    termination: str, plies: int
) -> None:
    """site S8: from the moment both have moved, abandoning or running out of time is a
    rated loss: two new players, White loses: blitz 1484.00, site 1488.00."""
    engine = site()
    result = play(engine, "w", "b", "0-1", termination=termination, plies=plies)

    assert result.outcome is Outcome.RATED
    assert ratings_and_games(engine, "w", "blitz", "site") == [
        (D("1484.00"), 1),
        (D("1488.00"), 1),
    ]
    assert rating(engine, "b", "blitz") == D("1516.00")


# -- S9 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plies", "result", "loser", "winner"),
    [(10, "0-1", "w", "b"), (2, "0-1", "w", "b"), (11, "1-0", "b", "w"), (3, "1-0", "b", "w")],
    ids=["white-to-move-10", "white-to-move-2", "black-to-move-11", "black-to-move-3"],
)
def test_s9_expired_rated_unclocked_game_is_the_loss_of_the_player_to_move(
    plies: int, result: str, loser: str, winner: str
) -> None:
    """site S9: a rated unclocked game expires as the loss of the player to move (White
    after an even number of plies): unclocked 1500 → 1484.00 / 1516.00, site Elo
    weight 0.75: 1488.00 / 1512.00."""
    engine = site()
    rated = play(engine, "w", "b", result, tc="-", termination="expired", plies=plies)

    assert rated.outcome is Outcome.RATED
    assert ratings_and_games(engine, loser, "unclocked", "site") == [
        (D("1484.00"), 1),
        (D("1488.00"), 1),
    ]
    assert ratings_and_games(engine, winner, "unclocked", "site") == [
        (D("1516.00"), 1),
        (D("1512.00"), 1),
    ]


@pytest.mark.parametrize(
    ("plies", "result"),
    [(10, "1-0"), (11, "0-1"), (10, "1/2-1/2"), (11, "1/2-1/2")],
    ids=["black-loses-on-white-move", "white-loses-on-black-move", "draw-10", "draw-11"],
)
def test_s9_expired_result_contradicting_the_player_to_move_is_refused(
    plies: int, result: str
) -> None:
    """site S9: a result that contradicts "the player to move loses" is refused,
    naming result; nothing changes."""
    engine = site()
    with pytest.raises(InvalidRecord) as caught:
        play(engine, "w", "b", result, tc="-", termination="expired", plies=plies)
    assert caught.value.field == "result"
    assert (engine.states, engine.ratings) == ({}, [])


@pytest.mark.parametrize("control", ["5m+3s", "1m", "15m", "30m"])
def test_s9_expired_on_a_clocked_game_is_refused(control: str) -> None:
    """site S9: only games without a live clock expire; ``expired`` on a clocked game
    is refused, naming termination."""
    engine = site()
    with pytest.raises(InvalidRecord) as caught:
        play(engine, "w", "b", "0-1", tc=control, termination="expired", plies=10)
    assert caught.value.field == "termination"
    assert engine.states == {}


@pytest.mark.parametrize("human_side", ["white", "black"])
def test_s9_expired_unclocked_bot_game_is_the_humans_loss_when_he_is_to_move(
    human_side: str,
) -> None:
    """site S9 with S7/S8: a rated unclocked game against a bot (S8 names its 10-minute
    first-move deadline, so such games exist) expires too; the human to move loses:
    bots 1500 v 1800 (expected 0.15): −4.80 → 1495.20; site −2.40 → 1497.60."""
    engine = site(bot("bot1", "1800"))
    if human_side == "white":
        result = play(engine, "h", "bot1", "0-1", tc="-", termination="expired", plies=10)
    else:
        result = play(engine, "bot1", "h", "1-0", tc="-", termination="expired", plies=11)

    assert result.outcome is Outcome.RATED
    assert ratings_and_games(engine, "h", "bots", "site") == [
        (D("1495.20"), 1),
        (D("1497.60"), 1),
    ]


@pytest.mark.parametrize("bot_side", ["white", "black"])
def test_s7_s9_a_bot_never_loses_an_expired_game(bot_side: str) -> None:
    """site S7/S9: a bot never loses on time; a bot move that did not arrive is
    ``bot_no_move``. An ``expired`` record that says the bot lost is refused and
    changes nothing."""
    engine = site(bot("bot1", "1800"))
    if bot_side == "black":
        record_ = record("h", "bot1", "1-0", tc="-", termination="expired", plies=11)
    else:
        record_ = record("bot1", "h", "0-1", tc="-", termination="expired", plies=10)
    with pytest.raises(InvalidRecord) as caught:
        engine.apply(record_)
    assert caught.value.field == "termination"
    assert "a bot never loses by expired (S7)" in caught.value.reason
    assert engine.states == {}


def test_s8_a_loss_ending_without_a_result_is_refused() -> None:
    """site S8: once both sides moved, resigning, abandoning or running out of time is a
    rated loss, so a record of such an ending needs the result."""
    engine = site()
    with pytest.raises(InvalidRecord) as caught:
        play(engine, "w", "b", "*", termination="timeout", plies=12)
    assert caught.value.field == "result"
    assert engine.states == {}


def test_s7_a_bot_needs_a_fixed_rating_at_or_above_the_floor() -> None:
    """site S7/S5: a bot registered without a fixed rating, or below 100, is refused."""
    with pytest.raises(InvalidRecord) as caught:
        site(Player("b0", bot=True))
    assert caught.value.field == "bot_rating"
    with pytest.raises(InvalidRecord):
        site(Player("b1", bot=True, bot_rating=D("99")))


def test_s9_casual_expired_game_is_unrated() -> None:
    """site S9: casual unclocked games do not expire once both sides have moved; such
    a record moves nothing (unrated)."""
    engine = site()
    result = play(engine, "w", "b", "0-1", tc="-", rated=False, termination="expired", plies=10)
    assert result.outcome is Outcome.UNRATED
    assert engine.states == {}


def test_s9_expired_before_both_moved_is_void() -> None:
    """site S8/S9: a rated unclocked game in which a side missed its first move (24 h)
    is void, not a loss."""
    engine = site()
    result = play(engine, "w", "b", "0-1", tc="-", termination="expired", plies=0)
    assert result.outcome is Outcome.VOID
    assert engine.states == {}


# -- S10 -----------------------------------------------------------------------------


def test_s10_annulment_reverses_every_rating_the_game_touched() -> None:
    """site S10: the S3 example (blitz 1516/1484, site 1512/1488) is annulled: both
    players' blitz ratings and site Elos return to 1500.00 with 0 games; the annulment
    is kept with when, why and by whom; the game is now void; nobody is listed."""
    engine = site()
    game_id = play(engine, "w", "b", "1-0").game.id

    annulment = engine.annul(game_id, "engine use confirmed", AT, by="mod-1")

    for player in ("w", "b"):
        assert ratings_and_games(engine, player, "blitz", "site") == [
            (D("1500.00"), 0),
            (D("1500.00"), 0),
        ]
    assert engine.annulments == {game_id: annulment}
    assert (annulment.game_id, annulment.at, annulment.reason, annulment.by) == (
        game_id,
        AT,
        "engine use confirmed",
        "mod-1",
    )
    assert {(c.player, c.pool, c.change) for c in annulment.changes} == {
        ("w", "blitz", D("-16.00")),
        ("b", "blitz", D("16.00")),
        ("w", "site", D("-12.00")),
        ("b", "site", D("12.00")),
    }
    assert {c.rule for c in annulment.changes} == {"site S10"}
    assert engine.outcome(game_id) is Outcome.VOID
    assert listed(engine, "blitz") == {}
    assert listed(engine, "site") == {}


def test_s10_annulment_after_later_games_reverses_exactly_that_games_change() -> None:
    """site S10: the game's changes are reversed, later games are kept.

    g1: a beats b (blitz, new players): a 1516.00/1512.00, b 1484.00/1488.00.
    g2: a draws newcomer c (blitz): blitz expected(1516 v 1500) = 0.52:
    32 × (0.5 − 0.52) = −0.64 → a 1515.36, c 1500.64; site expected(1512 v 1500) =
    0.52: 24 × −0.02 = −0.48 → a 1511.52, c 1500.48.
    Annul g1: a blitz 1515.36 − 16 = 1499.36 (1 game), site 1511.52 − 12 = 1499.52
    (1 game) — not back to 1500.00; b 1500.00 (0 games); c untouched."""
    engine = site()
    g1 = play(engine, "a", "b", "1-0").game.id
    play(engine, "a", "c", "1/2-1/2")
    assert ratings_and_games(engine, "a", "blitz", "site") == [
        (D("1515.36"), 2),
        (D("1511.52"), 2),
    ]
    c_before = ratings_and_games(engine, "c", "blitz", "site")
    assert c_before == [(D("1500.64"), 1), (D("1500.48"), 1)]

    engine.annul(g1, "cheating", AT, "mod-1")

    assert ratings_and_games(engine, "a", "blitz", "site") == [
        (D("1499.36"), 1),
        (D("1499.52"), 1),
    ]
    assert ratings_and_games(engine, "b", "blitz", "site") == [
        (D("1500.00"), 0),
        (D("1500.00"), 0),
    ]
    assert ratings_and_games(engine, "c", "blitz", "site") == c_before


def test_s10_annulling_a_bot_game_reverses_the_humans_ratings() -> None:
    """site S10 with S7: a human's win against bot1 (1800) is annulled: bots and site
    Elo back to 1500.00, 0 games; the bot still has no state."""
    engine = site(bot("bot1", "1800"))
    game_id = play(engine, "h", "bot1", "1-0", tc="10m").game.id
    annulment = engine.annul(game_id, "cheating", AT)

    assert ratings_and_games(engine, "h", "bots", "site") == [
        (D("1500.00"), 0),
        (D("1500.00"), 0),
    ]
    assert annulment.by is None
    assert all(player != "bot1" for player, _pool in engine.states)


def test_s10_annulment_restores_a_rating_stopped_at_the_floor() -> None:
    """site S10 with S5: the 105.00 → 100.00 loss (change −5.00) is annulled: back to
    105.00 and 30 games in blitz and site; the winner back to 105.00."""
    engine = site(
        human("p", blitz=("105.00", 30), site=("105.00", 30)),
        human("o", blitz=("105.00", 30), site=("105.00", 30)),
    )
    game_id = play(engine, "p", "o", "0-1").game.id
    engine.annul(game_id, "cheating", AT)

    for player in ("p", "o"):
        assert ratings_and_games(engine, player, "blitz", "site") == [
            (D("105.00"), 30),
            (D("105.00"), 30),
        ]


def test_s10_annulled_game_no_longer_counts_toward_k() -> None:
    """site S10 with S4: a (29 games) beats b: 30 games; the annulment takes it back to
    29, so his next game is again rated with K 32."""
    engine = site(human("a", blitz=("1500.00", 29), site=("1500.00", 29)))
    game_id = play(engine, "a", "b", "1-0").game.id
    engine.annul(game_id, "cheating", AT)
    result = play(engine, "a", "c", "1-0")
    assert (change_of(result, "a", "blitz").k, change_of(result, "a", "site").k) == (32, 32)


def test_s10_annulling_twice_is_refused() -> None:
    """site S10: a game is annulled once; a second annulment is refused and changes
    nothing."""
    engine = site()
    game_id = play(engine, "w", "b", "1-0").game.id
    first = engine.annul(game_id, "cheating", AT, "mod-1")
    states = dict(engine.states)

    with pytest.raises(InvalidRecord) as caught:
        engine.annul(game_id, "cheating again", AT, "mod-2")

    assert caught.value.field == "id"
    assert engine.states == states
    assert engine.annulments == {game_id: first}


def test_s10_annulling_an_unknown_game_is_refused() -> None:
    """site S10: there is nothing to annul for a game id never seen."""
    engine = site()
    with pytest.raises(InvalidRecord) as caught:
        engine.annul("nope", "cheating", AT, "mod-1")
    assert caught.value.field == "id"
    assert engine.annulments == {}


@pytest.mark.parametrize(
    "fields",
    [
        {"plies": 1, "result": "1-0"},
        {"termination": "forfeit", "result": "1-0"},
        {"result": "*"},
        {"rated": False, "result": "1-0"},
        {"venue": "otb", "tc": None, "result": "1-0"},
    ],
    ids=["aborted", "forfeit", "no-result", "casual", "otb-pending"],
)
def test_s10_annulling_a_game_that_moved_nothing_is_refused(fields: dict[str, Any]) -> None:
    """site S10: only a rated game has a rating effect to annul; a void or unrated
    game's annulment is refused and nothing is recorded."""
    engine = site()
    rated = engine.apply(record("w", "b", **fields))
    assert rated.outcome is not Outcome.RATED

    with pytest.raises(InvalidRecord) as caught:
        engine.annul(rated.game.id, "cheating", AT, "mod-1")
    assert caught.value.field == "id"
    assert engine.annulments == {}
    assert engine.states == {}


def test_s10_refused_annulment_changes_nothing_for_other_games() -> None:
    """site S10: a refused annulment leaves every state as it was."""
    engine = site()
    play(engine, "w", "b", "1-0")
    before = snapshot(engine, "w", "b")
    with pytest.raises(InvalidRecord):
        engine.annul("missing", "cheating", AT)
    assert snapshot(engine, "w", "b") == before


def test_s10_arena_and_corr_engines_refuse_annulment() -> None:
    """site S10 is a site rule: the arena and corr regulations have no annulment; their
    engines refuse it and keep their states."""
    members = (
        arena_helpers.member("a", blitz=("1800.00", 40)),
        arena_helpers.member("b", blitz=("1700.00", 40)),
    )
    arena = arena_helpers.arena(*members)
    game_id = arena_helpers.play(arena, "a", "b", "1-0").game.id
    states = dict(arena.states)
    with pytest.raises(InvalidRecord) as caught:
        arena.annul(game_id, "cheating", AT, "mod-1")
    assert caught.value.field == "id"
    assert arena.states == states
    assert arena.outcome(game_id) is Outcome.RATED

    corr = Engine(CorrSystem())
    game_id = corr.apply(record("a", "b", "1-0", tc="3d")).game.id
    corr_states = dict(corr.states)
    with pytest.raises(InvalidRecord):
        corr.annul(game_id, "cheating", AT, "mod-1")
    assert corr.states == corr_states
    assert corr.annulments == {}
