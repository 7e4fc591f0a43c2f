"""Hypothesis properties of the arena system: zero-sum where the rules are symmetric,
monotonic in the result, replay determinism."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessrate import ArenaSystem, Engine, GameRecord, Player, Result, parse_time_control
from chessrate.records import ImportedRating, Termination
from chessrate.systems.arena import ArenaState

START = datetime(2026, 3, 1, tzinfo=UTC)
MEMBERSHIP = date(2027, 1, 1)

CONTROLS = {
    "rapid": ("15m", "25m", "45m", "10m+10s", "600+10", "15m+10s", "25m+10s", "45m+10s"),
    "blitz": ("3m", "5m", "10m", "600", "3m+2s", "3m+3s", "5m+3s", "300+3"),
    "bullet": ("1m", "60", "2m", "1m+1s", "1m+2s", "60+2"),
}
RESULTS = (Result.BLACK_WINS, Result.DRAW, Result.WHITE_WINS)  # worst to best for White

ratings = st.integers(min_value=100_000, max_value=280_000).map(lambda n: Decimal(n).scaleb(-2))
games_counts = st.integers(min_value=0, max_value=100)
pool_controls = st.sampled_from(
    [(pool, control) for pool, controls in CONTROLS.items() for control in controls]
)


def rated_player(player_id: str, pool: str, rating: Decimal, games: int) -> Player:
    return Player(
        player_id, membership_until=MEMBERSHIP, imported={pool: ImportedRating(rating, games)}
    )


def record(
    game_id: str,
    white: str,
    black: str,
    result: Result,
    control: str,
    *,
    minute: int = 0,
    rated: bool = True,
    termination: Termination = Termination.NORMAL,
) -> GameRecord:
    return GameRecord(
        id=game_id,
        played_at=START + timedelta(minutes=minute),
        white=white,
        black=black,
        result=result,
        rated=rated,
        time_control=parse_time_control(control),
        termination=termination,
    )


@st.composite
def same_k_games(draw: st.DrawFn) -> tuple[int, int]:
    """Two games counts in the same A8 bracket (both under 30, or both 30 and more)."""
    if draw(st.booleans()):
        low, high = 0, 29
    else:
        low, high = 30, 100
    counts = st.integers(min_value=low, max_value=high)
    return draw(counts), draw(counts)


@settings(max_examples=200, deadline=None)
@given(
    white_rating=ratings,
    black_rating=ratings,
    counts=same_k_games(),
    pool_control=pool_controls,
    result=st.sampled_from(RESULTS),
)
def test_arena_a7_game_between_rated_players_with_same_k_is_zero_sum(
    white_rating: Decimal,
    black_rating: Decimal,
    counts: tuple[int, int],
    pool_control: tuple[str, str],
    result: Result,
) -> None:
    """arena A7: with equal K, PD_H + PD_L = 1 and the scores add up to 1, so the two
    changes cancel exactly."""
    pool, control = pool_control
    engine = Engine(
        ArenaSystem(),
        players=[
            rated_player("w", pool, white_rating, counts[0]),
            rated_player("b", pool, black_rating, counts[1]),
        ],
    )
    rating = engine.apply(record("g", "w", "b", result, control))
    white, black = sorted(rating.changes, key=lambda change: change.player != "w")
    assert white.k == black.k
    assert white.change is not None
    assert black.change is not None
    assert white.change + black.change == 0
    assert white.pd is not None
    assert black.pd is not None
    assert white.pd + black.pd == 1
    assert white.after == white_rating + white.change
    assert black.after == black_rating + black.change
    for change in (white, black):
        assert change.change is not None
        assert change.change == change.change.quantize(Decimal("0.01"))


@settings(max_examples=200, deadline=None)
@given(
    white_rating=ratings,
    black_rating=ratings,
    white_games=games_counts,
    black_games=games_counts,
    pool_control=pool_controls,
)
def test_arena_a7_a_better_result_never_gives_a_lower_rating(
    white_rating: Decimal,
    black_rating: Decimal,
    white_games: int,
    black_games: int,
    pool_control: tuple[str, str],
) -> None:
    """arena A7: from the same pre-game states, 0 < ½ < 1 for White never lowers
    White's rating after, and never raises Black's."""
    pool, control = pool_control
    afters: list[tuple[Decimal, Decimal]] = []
    for result in RESULTS:
        engine = Engine(
            ArenaSystem(),
            players=[
                rated_player("w", pool, white_rating, white_games),
                rated_player("b", pool, black_rating, black_games),
            ],
        )
        rating = engine.apply(record("g", "w", "b", result, control))
        by_player = {change.player: change.after for change in rating.changes}
        white_after, black_after = by_player["w"], by_player["b"]
        assert white_after is not None
        assert black_after is not None
        afters.append((white_after, black_after))
    whites = [white for white, _ in afters]
    blacks = [black for _, black in afters]
    assert whites == sorted(whites)
    assert blacks == sorted(blacks, reverse=True)
    assert whites[0] < whites[2]
    assert blacks[0] > blacks[2]


PLAYER_IDS = tuple(f"p{n}" for n in range(6))
TERMINATIONS = (Termination.NORMAL,) * 6 + (Termination.FORFEIT, Termination.DISCONNECT)


@st.composite
def players_and_games(draw: st.DrawFn) -> tuple[list[Player], list[GameRecord]]:
    """A few members, some with imported ratings in some pools, and a random list of
    games between them (rated or not, some forfeits and disconnects, tied times)."""
    players = []
    for player_id in PLAYER_IDS:
        imported = {}
        for pool in CONTROLS:
            if draw(st.booleans()):
                imported[pool] = ImportedRating(draw(ratings), draw(games_counts))
        players.append(Player(player_id, membership_until=MEMBERSHIP, imported=imported))
    games = []
    count = draw(st.integers(min_value=0, max_value=60))
    for number in range(count):
        white, black = draw(st.permutations(PLAYER_IDS))[:2]
        _pool, control = draw(pool_controls)
        result = draw(st.sampled_from(RESULTS))
        termination = draw(st.sampled_from(TERMINATIONS))
        if result is Result.DRAW and termination is not Termination.NORMAL:
            termination = Termination.NORMAL  # forfeit and disconnect have a winner
        games.append(
            record(
                f"g{number}",
                white,
                black,
                result,
                control,
                minute=draw(st.integers(min_value=0, max_value=30)),
                rated=draw(st.sampled_from((True, True, True, True, False))),
                termination=termination,
            )
        )
    return players, games


def replay(players: list[Player], games: list[GameRecord]) -> Engine[ArenaState]:
    engine = Engine(ArenaSystem(), players=players)
    engine.replay(games)
    return engine


@pytest.mark.slow  # 200 generated streams
@settings(max_examples=200, deadline=None)
@given(data=players_and_games())
def test_replaying_the_same_games_twice_gives_identical_results(
    data: tuple[list[Player], list[GameRecord]],
) -> None:
    """The spec, "Order": a batch is applied in played_at order, ties in input order; two
    fresh engines replaying the same list agree exactly."""
    players, games = data
    first, second = replay(players, games), replay(players, games)
    assert first.rating_lists() == second.rating_lists()
    assert list(first.changes()) == list(second.changes())
    assert [r.outcome for r in first.ratings] == [r.outcome for r in second.ratings]
    assert [r.game.id for r in first.ratings] == [r.game.id for r in second.ratings]
    # every rating with exactly two decimals, every listed rating at or above the floor
    for entries in first.rating_lists().values():
        for entry in entries:
            if entry.rating is not None:
                assert entry.rating >= Decimal("1000.00")
                assert entry.rating == entry.rating.quantize(Decimal("0.01"))


@pytest.mark.slow  # 200 generated streams
@settings(max_examples=200, deadline=None)
@given(data=players_and_games())
def test_replay_equals_applying_live_in_played_at_order(
    data: tuple[list[Player], list[GameRecord]],
) -> None:
    """The spec, "Order": a batch replay equals applying the games one by one in played_at
    order (ties in input order)."""
    players, games = data
    batch = replay(players, games)
    live = Engine(ArenaSystem(), players=players)
    for game in sorted(games, key=lambda g: g.played_at):
        live.apply(game)
    assert batch.rating_lists() == live.rating_lists()
    assert list(batch.changes()) == list(live.changes())
