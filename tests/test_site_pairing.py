"""The pairing rules (``systems/site_pairing.py``): the window widening with
waiting, closest first, mutual ranges, no self-pairing, colours, the closest bot."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from chessrate.systems.site_live import Side
from chessrate.systems.site_pairing import (
    PairingRules,
    Seek,
    choose_pairs,
    closest_bot,
    colour_balance,
    colours,
    compatible,
    window,
)
from chessrate.timecontrol import parse_time_control

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
RULES = PairingRules()


def seek(
    seek_id: int,
    player: str,
    rating: str,
    control: str = "180+2",
    rated: bool = True,
    age: float = 0,
    low: int | None = None,
    high: int | None = None,
) -> Seek:
    """A seek made ``age`` seconds before T0."""
    return Seek(
        seek_id, player, parse_time_control(control), rated, T0 - timedelta(seconds=age),
        Decimal(rating), low, high,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("waited", "expected"),
    [(0, 100), (9, 100), (10, 150), (19, 150), (20, 200), (59, 350), (79, 450), (80, 500),
     (3600, 500)],
)  # fmt: skip
def test_the_window_widens_by_step_every_interval_up_to_the_most(
    waited: int, expected: int
) -> None:
    assert window(waited, RULES) == expected


def test_the_window_follows_the_rules_numbers() -> None:
    rules = PairingRules(start=50, step=25, every=5, most=120)
    assert [window(s, rules) for s in (0, 4, 5, 10, 15, 100)] == [50, 50, 75, 100, 120, 120]


def test_a_pair_needs_the_difference_within_both_windows() -> None:
    old = seek(1, "a", "1500", age=120)  # window 500
    new = seek(2, "b", "1700", age=0)  # window 100
    assert not compatible(old, new, T0, RULES)
    assert compatible(old, new, T0 + timedelta(seconds=20), RULES)  # new: 200
    assert not compatible(old, new, T0 + timedelta(seconds=19), RULES)  # new: 150


def test_exactly_the_window_is_accepted() -> None:
    assert compatible(seek(1, "a", "1500"), seek(2, "b", "1600"), T0, RULES)
    assert not compatible(seek(1, "a", "1500"), seek(2, "b", "1600.01"), T0, RULES)


def test_no_self_pairing() -> None:
    same = [seek(1, "a", "1500"), seek(2, "a", "1500", control="3m+2s")]
    assert not compatible(same[0], same[1], T0, RULES)
    assert choose_pairs(same, T0, RULES) == []


def test_controls_compare_parsed_and_rated_must_agree() -> None:
    assert compatible(seek(1, "a", "1500", "3m+2"), seek(2, "b", "1500", "180+2"), T0, RULES)
    assert compatible(seek(1, "a", "1500", "3m+2s"), seek(2, "b", "1500", "180+2"), T0, RULES)
    assert not compatible(seek(1, "a", "1500", "3m+2"), seek(2, "b", "1500", "3m"), T0, RULES)
    casual = seek(2, "b", "1500", rated=False)
    assert not compatible(seek(1, "a", "1500"), casual, T0, RULES)


def test_each_player_inside_the_others_range() -> None:
    picky = seek(1, "a", "1500", low=1510, age=600)
    assert not compatible(picky, seek(2, "b", "1505", age=600), T0, RULES)
    assert compatible(picky, seek(2, "b", "1510", age=600), T0, RULES)
    capped = seek(2, "b", "1600", high=1499, age=600)
    assert not compatible(seek(1, "a", "1500", age=600), capped, T0, RULES)
    assert compatible(seek(1, "a", "1499", age=600), capped, T0, RULES)


def test_closest_first() -> None:
    a, b, c = seek(1, "a", "1500"), seek(2, "b", "1520"), seek(3, "c", "1580")
    pairs = choose_pairs([c, b, a], T0, RULES)
    assert [(x.player, y.player) for x, y in pairs] == [("a", "b")]
    d = seek(4, "d", "1590")
    pairs = choose_pairs([a, b, c, d], T0, RULES)
    assert [(x.player, y.player) for x, y in pairs] == [("c", "d"), ("a", "b")]


def test_closest_first_is_greedy_over_the_whole_pool() -> None:
    # b-c is the closest pair; a and d then have nobody in their windows.
    seeks = [seek(1, "a", "1400"), seek(2, "b", "1490"), seek(3, "c", "1500"),
             seek(4, "d", "1590")]  # fmt: skip
    pairs = choose_pairs(seeks, T0, RULES)
    assert [(x.id, y.id) for x, y in pairs] == [(2, 3)]


def test_ties_go_to_the_longest_waiting_seek() -> None:
    a = seek(1, "a", "1500", age=5)
    b = seek(2, "b", "1550", age=30)
    c = seek(3, "c", "1450", age=1)
    pairs = choose_pairs([a, b, c], T0, RULES)
    assert [(x.player, y.player) for x, y in pairs] == [("b", "a")]  # b waited longest


def test_a_player_gets_one_game_per_pass_and_busy_players_wait() -> None:
    seeks = [seek(1, "a", "1500", "180+2"), seek(2, "a", "1500", "300+0"),
             seek(3, "b", "1500", "180+2"), seek(4, "c", "1500", "300+0")]  # fmt: skip
    pairs = choose_pairs(seeks, T0, RULES)
    assert len(pairs) == 1 and pairs[0][0].player == "a"
    assert choose_pairs(seeks, T0, RULES, busy={"a"}) == []


def test_colours_balance_recent_colours() -> None:
    assert colour_balance([Side.WHITE, Side.WHITE, Side.BLACK]) == 1
    assert colours("a", 2, "b", 0) == ("b", "a")  # a had more whites: black
    assert colours("a", -1, "b", 1) == ("a", "b")
    assert colours("a", 0, "b", 0) == ("a", "b")  # a tie: the older seek's player
    assert colours("a", 3, "b", 3) == ("a", "b")


def test_the_closest_bot_to_the_site_elo() -> None:
    bots = [("zed", Decimal(1800)), ("amy", Decimal(1400)), ("bob", Decimal(1600))]
    assert closest_bot(Decimal("1650"), bots) == "bob"
    assert closest_bot(Decimal("1500"), bots) == "amy"  # 100 from amy and bob: lower id
    assert closest_bot(Decimal("1500"), bots, min_rating=1500) == "bob"
    assert closest_bot(Decimal("1500"), bots, max_rating=1300) is None
    assert closest_bot(Decimal("1500"), []) is None


def test_rules_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="every"):
        PairingRules(every=0)
    with pytest.raises(ValueError, match="every"):
        PairingRules(start=-1)
