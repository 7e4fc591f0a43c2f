"""The pairing rules (``systems/site_pairing.py``): the window widening with
waiting, the matching (the most pairs, then the smallest total difference, against a
brute force), mutual ranges, no self-pairing, marked players apart, the correspondence
seek's life, colours, the closest bot."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    marked: bool = False,
) -> Seek:
    """A seek made ``age`` seconds before T0."""
    return Seek(
        seek_id, player, parse_time_control(control), rated, T0 - timedelta(seconds=age),
        Decimal(rating), low, high, marked,
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


def test_the_most_pairs_before_the_closest_pair() -> None:
    # Greedy closest-first would pair 1500-1549 (49) and leave 1450 and 1599 (149
    # apart: outside a new seek's 100) for a later pass; the matching pairs all four.
    seeks = [seek(1, "a", "1450"), seek(2, "b", "1500"), seek(3, "c", "1549"),
             seek(4, "d", "1599")]  # fmt: skip
    assert greedy(seeks, T0) == [(2, 3)]
    pairs = choose_pairs(seeks, T0, RULES)
    assert [(x.id, y.id) for x, y in pairs] == [(1, 2), (3, 4)]


def test_of_as_many_pairs_the_smallest_total_difference() -> None:
    # a-b + c-d is 90 + 90; a-c + b-d would be 100 + 100 (both in the windows).
    seeks = [seek(1, "a", "1400"), seek(2, "b", "1490"), seek(3, "c", "1500"),
             seek(4, "d", "1590")]  # fmt: skip
    pairs = choose_pairs(seeks, T0, RULES)
    assert [(x.id, y.id) for x, y in pairs] == [(1, 2), (3, 4)]


def test_marked_players_are_paired_only_with_each_other() -> None:
    clean, cheat = seek(1, "a", "1500"), seek(2, "b", "1500", marked=True)
    assert not compatible(clean, cheat, T0, RULES)
    assert choose_pairs([clean, cheat], T0, RULES) == []
    other = seek(3, "c", "1510", marked=True)
    assert compatible(cheat, other, T0, RULES)
    pairs = choose_pairs([clean, cheat, other, seek(4, "d", "1505")], T0, RULES)
    assert sorted((x.player, y.player) for x, y in pairs) == [("a", "d"), ("b", "c")]


def test_a_correspondence_seek_waits_days() -> None:
    assert RULES.seek_life(parse_time_control("180+2")) == 600
    assert RULES.seek_life(parse_time_control("-")) == 600
    assert RULES.seek_life(parse_time_control("1d")) == 7 * 24 * 3600
    rules = PairingRules(expiry=60, correspondence_expiry=3600)
    assert rules.seek_life(parse_time_control("3d")) == 3600
    assert rules.seek_life(parse_time_control("60")) == 60
    with pytest.raises(ValueError, match="every"):
        PairingRules(correspondence_expiry=-1)


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


def test_a_busy_players_correspondence_seek_is_paired() -> None:
    """A correspondence game is played over days beside any other: a player in a
    real-time game is paired in correspondence, and waits for real-time play."""
    seeks = [seek(1, "a", "1500", "3d"), seek(2, "b", "1500", "3d"),
             seek(3, "a", "1500", "180+2"), seek(4, "c", "1500", "180+2")]  # fmt: skip
    pairs = choose_pairs(seeks, T0, RULES, busy={"a"})
    assert [(x.id, y.id) for x, y in pairs] == [(1, 2)]


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


# -- the matching against a brute force ---------------------------------------------


def greedy(
    seeks: Sequence[Seek], now: datetime, rules: PairingRules = RULES
) -> list[tuple[int, int]]:
    """The closest-first greedy pass the matching replaced: of every compatible pair
    the closest (then the older seek's wait, then the ids), then the next among the
    players left."""
    candidates = []
    for a, b in itertools.combinations(sorted(seeks, key=lambda s: s.id), 2):
        if compatible(a, b, now, rules):
            older, newer = sorted((a, b), key=lambda s: (s.created_at, s.id))
            candidates.append(((abs(a.rating - b.rating), older.created_at, older.id, newer.id),
                               older, newer))  # fmt: skip
    taken: set[str] = set()
    pairs = []
    for _, older, newer in sorted(candidates, key=lambda c: c[0]):
        if not taken & {older.player, newer.player}:
            taken |= {older.player, newer.player}
            pairs.append((older.id, newer.id))
    return pairs


def every_matching(seeks: Sequence[Seek], now: datetime) -> list[list[tuple[Seek, Seek]]]:
    """Every set of compatible pairs in which no player plays twice."""
    edges = [(a, b) for a, b in itertools.combinations(seeks, 2) if compatible(a, b, now, RULES)]
    found: list[list[tuple[Seek, Seek]]] = []

    def extend(start: int, chosen: list[tuple[Seek, Seek]], players: set[str]) -> None:
        found.append(list(chosen))
        for index in range(start, len(edges)):
            a, b = edges[index]
            if a.player not in players and b.player not in players:
                extend(index + 1, [*chosen, (a, b)], players | {a.player, b.player})

    extend(0, [], set())
    return found


def total(pairs: Sequence[tuple[Seek, Seek]]) -> Decimal:
    return sum((abs(a.rating - b.rating) for a, b in pairs), Decimal(0))


PLAYERS = ("ann", "ben", "cat", "dan", "eve", "fay")


@st.composite
def pools(draw: st.DrawFn) -> list[Seek]:
    """Up to 9 seeks of up to 6 players (some seek twice), two controls, site Elos
    with hundredths, waits of 0-100 s, sometimes a range; some players marked."""
    marked = draw(st.sets(st.sampled_from(PLAYERS), max_size=3))
    count = draw(st.integers(0, 9))
    seeks = []
    for seek_id in range(1, count + 1):
        player = draw(st.sampled_from(PLAYERS))
        rating = Decimal(draw(st.integers(135_000, 165_000))).scaleb(-2)
        low = draw(st.none() | st.integers(1300, 1600))
        seeks.append(Seek(
            seek_id, player, parse_time_control(draw(st.sampled_from(("180+2", "3d")))),
            draw(st.sampled_from((True, True, False))),
            T0 - timedelta(seconds=draw(st.integers(0, 100))),
            rating, low, None, player in marked,
        ))  # fmt: skip
    # One player has one site Elo and one mark, whatever their seeks say.
    first = {s.player: s for s in reversed(seeks)}
    return [
        Seek(s.id, s.player, s.control, s.rated, s.created_at, first[s.player].rating,
             s.min_rating, s.max_rating, s.marked)
        for s in seeks
    ]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(pools(), st.randoms(use_true_random=False))
def test_the_pass_is_the_best_matching(seeks: list[Seek], shuffler: random.Random) -> None:
    """The most pairs (never fewer than greedy's), then the smallest total difference
    among those, then the longest-waiting seeks; every pair compatible, no player
    twice, never a marked player with an unmarked one; the same for any input order."""
    pairs = choose_pairs(seeks, T0, RULES)
    players = [p for a, b in pairs for p in (a.player, b.player)]
    assert len(players) == len(set(players))
    for a, b in pairs:
        assert compatible(a, b, T0, RULES) and a.marked == b.marked
        assert (a.created_at, a.id) < (b.created_at, b.id)  # the older seek first
    assert len(pairs) >= len(greedy(seeks, T0))
    matchings = every_matching(seeks, T0)
    most = max(len(m) for m in matchings)
    assert len(pairs) == most
    best = [m for m in matchings if len(m) == most]
    least = min(total(m) for m in best)
    assert total(pairs) == least
    # the ties: the matching that pairs the oldest seek, then the next oldest, ...
    waiting = sorted(seeks, key=lambda s: (s.created_at, s.id))

    def paired(m: Sequence[tuple[Seek, Seek]]) -> list[bool]:
        ids = {s.id for pair in m for s in pair}
        return [s.id in ids for s in waiting]

    assert paired(pairs) == max(paired(m) for m in best if total(m) == least)
    shuffled = list(seeks)
    shuffler.shuffle(shuffled)
    assert choose_pairs(shuffled, T0, RULES) == pairs
