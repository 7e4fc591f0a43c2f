"""Hypothesis properties of the ``site`` and ``corr`` systems: zero-sum site updates
(S3), exact reversal by a fair-play annulment (S10), replay determinism (corr) and the
sign of an established corr change (C5 Decision: a win never lowers, a loss never
raises)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessrate import (
    CorrSystem,
    Engine,
    GameRecord,
    Outcome,
    Player,
    Result,
    SiteSystem,
    parse_time_control,
)
from chessrate.records import ImportedRating, Termination, Venue
from chessrate.systems.corr import CorrState
from chessrate.systems.site import SiteState

START = datetime(2026, 3, 1, tzinfo=UTC)
AT = datetime(2026, 4, 1, tzinfo=UTC)
RESULTS = (Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS)

HUMAN_TYPES: tuple[tuple[str, str | None], ...] = (
    ("bullet", "1m"),
    ("bullet", "2m+1s"),
    ("blitz", "5m+3s"),
    ("rapid", "15m+10s"),
    ("classical", "30m"),
    ("unclocked", "-"),
    ("correspondence", "3d"),
    ("otb", None),
)
"""site S2: a human game type and a time control of that type (otb: no control)."""


def hundredths(low: int, high: int) -> st.SearchStrategy[Decimal]:
    """Ratings with two decimals between ``low`` and ``high`` points."""
    return st.integers(min_value=low * 100, max_value=high * 100).map(
        lambda n: Decimal(n).scaleb(-2)
    )


def site_game(
    game_id: str,
    minute: int,
    white: str,
    black: str,
    result: Result,
    control: str | None,
    *,
    rated: bool = True,
    termination: Termination = Termination.NORMAL,
    plies: int | None = None,
) -> GameRecord:
    otb = control is None
    time_control = None if control is None else parse_time_control(control)
    return GameRecord(
        id=game_id,
        played_at=START + timedelta(minutes=minute),
        white=white,
        black=black,
        result=result,
        rated=rated,
        time_control=time_control,
        termination=termination,
        plies=plies,
        venue=Venue.OTB if otb else Venue.ONLINE,
        confirmed=True if otb else None,
    )


@st.composite
def same_k_counts(draw: st.DrawFn) -> tuple[int, int]:
    """Two games counts in the same S4 bracket (both under 30, or both 30 and more)."""
    low, high = (0, 29) if draw(st.booleans()) else (30, 120)
    counts = st.integers(min_value=low, max_value=high)
    return draw(counts), draw(counts)


# -- (a) site S3: zero-sum between two humans away from the floor -------------------------


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from(HUMAN_TYPES),
    type_ratings=st.tuples(hundredths(200, 3000), hundredths(200, 3000)),
    type_counts=same_k_counts(),
    site_ratings=st.tuples(hundredths(200, 3000), hundredths(200, 3000)),
    site_counts=st.integers(min_value=0, max_value=120),
    result=st.sampled_from(RESULTS),
)
def test_site_type_rating_update_is_zero_sum(
    kind: tuple[str, str | None],
    type_ratings: tuple[Decimal, Decimal],
    type_counts: tuple[int, int],
    site_ratings: tuple[Decimal, Decimal],
    site_counts: int,
    result: Result,
) -> None:
    """site S3/S4: with both type ratings in the same K bracket and 200 or more (so the
    S5 floor cannot be reached: a change is at most 32), White's and Black's type
    rating changes add up to exactly 0, and so do the two rounded expected scores to
    exactly 1."""
    pool, control = kind
    players = [
        Player(
            name,
            imported={
                pool: ImportedRating(type_ratings[n], type_counts[n]),
                "site": ImportedRating(site_ratings[n], site_counts),
            },
        )
        for n, name in enumerate(("w", "b"))
    ]
    engine = Engine(SiteSystem(), players)
    rating = engine.apply(site_game("g", 0, "w", "b", result, control))

    changes = {c.player: c for c in rating.changes if c.pool == pool}
    assert changes["w"].pd is not None and changes["b"].pd is not None
    assert changes["w"].pd + changes["b"].pd == 1
    assert changes["w"].change is not None and changes["b"].change is not None
    assert changes["w"].change + changes["b"].change == 0
    total_before = type_ratings[0] + type_ratings[1]
    assert engine.state("w", pool).rating + engine.state("b", pool).rating == total_before


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from(HUMAN_TYPES),
    site_ratings=st.tuples(hundredths(200, 3000), hundredths(200, 3000)),
    site_counts=same_k_counts(),
    result=st.sampled_from(RESULTS),
)
def test_site_elo_update_between_two_humans_is_zero_sum(
    kind: tuple[str, str | None],
    site_ratings: tuple[Decimal, Decimal],
    site_counts: tuple[int, int],
    result: Result,
) -> None:
    """site S3/S4: the site Elo uses the same weight for both players, so with both
    site Elos in the same K bracket and away from the floor the changes add up to 0."""
    _pool, control = kind
    players = [
        Player(name, imported={"site": ImportedRating(site_ratings[n], site_counts[n])})
        for n, name in enumerate(("w", "b"))
    ]
    engine = Engine(SiteSystem(), players)
    rating = engine.apply(site_game("g", 0, "w", "b", result, control))

    changes = [c.change for c in rating.changes if c.pool == "site"]
    assert len(changes) == 2
    assert changes[0] is not None and changes[1] is not None
    assert changes[0] + changes[1] == 0


# -- (b) site S10: annulling the last game restores everyone exactly --------------------

HUMANS = ("p1", "p2", "p3", "p4")
BOTS = ("bot1",)
EVERYONE = HUMANS + BOTS
POOLS = SiteSystem().pools


@st.composite
def site_players(draw: st.DrawFn) -> list[Player]:
    """A few humans — new, imported anywhere, or imported just above the S5 floor in
    every pool (so that losses stop at 100) — and a bot."""
    players = []
    for name in HUMANS:
        profile = draw(st.sampled_from(["new", "any", "near-floor"]))
        imported = {}
        if profile == "any":
            for pool in draw(st.lists(st.sampled_from(POOLS), max_size=3, unique=True)):
                imported[pool] = ImportedRating(
                    draw(hundredths(100, 2800)), draw(st.integers(min_value=0, max_value=60))
                )
        elif profile == "near-floor":
            for pool in POOLS:
                imported[pool] = ImportedRating(
                    draw(hundredths(100, 112)), draw(st.integers(min_value=0, max_value=60))
                )
        players.append(Player(name, imported=imported))
    bot_rating = draw(hundredths(400, 2800))
    players.append(Player("bot1", bot=True, bot_rating=bot_rating))
    return players


@st.composite
def any_site_game(draw: st.DrawFn, number: int) -> GameRecord:
    """Any game among the players: rated or casual, any type, some aborted, some
    refused (those are skipped)."""
    white, black = draw(st.lists(st.sampled_from(EVERYONE), min_size=2, max_size=2, unique=True))
    _pool, control = draw(st.sampled_from(HUMAN_TYPES))
    return site_game(
        f"g{number}",
        number,
        white,
        black,
        draw(st.sampled_from(RESULTS)),
        control,
        rated=draw(st.booleans()),
        termination=draw(
            st.sampled_from(
                [Termination.NORMAL, Termination.TIMEOUT, Termination.RESIGN, Termination.FORFEIT]
            )
        ),
        plies=draw(st.sampled_from([None, 0, 1, 2, 30])),
    )


@st.composite
def site_history(draw: st.DrawFn) -> tuple[list[Player], list[GameRecord], GameRecord]:
    """Players, an earlier history, and a last game that is rated (a human as White;
    Black a human or the bot)."""
    players = draw(site_players())
    count = draw(st.integers(min_value=0, max_value=25))
    history = [draw(any_site_game(n)) for n in range(count)]
    white = draw(st.sampled_from(HUMANS))
    black = draw(st.sampled_from([p for p in EVERYONE if p != white]))
    _pool, control = draw(st.sampled_from(HUMAN_TYPES))
    last = site_game("last", count + 1, white, black, draw(st.sampled_from(RESULTS)), control)
    return players, history, last


def site_snapshot(engine: Engine[SiteState]) -> dict[tuple[str, str], tuple[str, int]]:
    """Every player's rating (as written, two decimals) and games in every pool."""
    return {
        (player, pool): (str(engine.state(player, pool).rating), engine.state(player, pool).games)
        for player in EVERYONE
        for pool in POOLS
    }


@pytest.mark.slow  # 200 generated streams
@settings(max_examples=200, deadline=None)
@given(site_history())
def test_site_annulling_the_last_game_restores_every_rating_exactly(
    case: tuple[list[Player], list[GameRecord], GameRecord],
) -> None:
    """site S10: an annulment followed by nothing else returns both players — every
    pool, rating and games count — exactly to where they were before that game; the
    rating lists are those from before the game."""
    players, history, last = case
    engine = Engine(SiteSystem(), players)
    engine.replay(history, on_invalid=lambda _error: None)
    before = site_snapshot(engine)
    lists_before = {
        pool: [e.as_mapping() for e in entries] for pool, entries in engine.rating_lists().items()
    }

    rating = engine.apply(last)
    assert rating.outcome is Outcome.RATED
    engine.annul(last.id, "cheating", AT, "mod")

    assert site_snapshot(engine) == before
    assert engine.outcome(last.id) is Outcome.VOID
    lists_after = {
        pool: [e.as_mapping() for e in entries] for pool, entries in engine.rating_lists().items()
    }
    assert lists_after == lists_before


# -- (c) corr: a replay is deterministic -------------------------------------------------

CORR_PLAYERS = ("a", "b", "c", "d", "e")


@st.composite
def corr_players(draw: st.DrawFn) -> list[Player]:
    """Players unrated, imported provisional (1-24 games) or established (25+)."""
    players = []
    for name in CORR_PLAYERS:
        games = draw(st.sampled_from([None, 0]) | st.integers(min_value=1, max_value=60))
        if not games:
            players.append(Player(name))
            continue
        rating = draw(hundredths(800, 2400))
        players.append(Player(name, imported={"corr": ImportedRating(rating, games)}))
    return players


@st.composite
def corr_games(draw: st.DrawFn) -> list[GameRecord]:
    count = draw(st.integers(min_value=1, max_value=40))
    games = []
    for number in range(count):
        white, black = draw(
            st.lists(st.sampled_from(CORR_PLAYERS), min_size=2, max_size=2, unique=True)
        )
        games.append(
            GameRecord(
                id=f"c{number}",
                played_at=START + timedelta(days=draw(st.integers(min_value=0, max_value=30))),
                white=white,
                black=black,
                result=draw(st.sampled_from((*RESULTS, Result.NO_RESULT))),
                rated=draw(st.booleans() | st.just(True)),
                time_control=parse_time_control("3d"),
                termination=draw(st.sampled_from([Termination.NORMAL, Termination.FORFEIT])),
            )
        )
    return games


def corr_lists(engine: Engine[CorrState]) -> list[dict[str, object]]:
    return [entry.as_mapping() for entry in engine.rating_list("corr")]


@pytest.mark.slow  # 200 generated streams
@settings(max_examples=200, deadline=None)
@given(players=corr_players(), games=corr_games())
def test_corr_replaying_the_same_games_gives_identical_lists(
    players: list[Player], games: list[GameRecord]
) -> None:
    """corr (the spec, "Order"): the same players and games replayed in two engines give
    identical rating lists and identical explanations; sending the same games again
    to an engine changes nothing (same ids, same content)."""
    first = Engine(CorrSystem(), players)
    second = Engine(CorrSystem(), players)
    first.replay(games)
    second.replay(list(games))

    assert corr_lists(first) == corr_lists(second)
    assert [c.as_row() for c in first.changes()] == [c.as_row() for c in second.changes()]
    assert [r.outcome for r in first.ratings] == [r.outcome for r in second.ratings]

    lists = corr_lists(first)
    states = dict(first.states)
    count = len(first.ratings)
    assert first.replay([replace(game) for game in games]) == []
    assert corr_lists(first) == lists
    assert first.states == states
    assert len(first.ratings) == count


# -- (d) corr C5: the sign of an established change ----------------------------------------


@st.composite
def corr_opponent(draw: st.DrawFn) -> Player:
    """An opponent unrated, provisional or established."""
    kind = draw(st.sampled_from(["unrated", "provisional", "established"]))
    if kind == "unrated":
        return Player("o")
    games = draw(
        st.integers(min_value=1, max_value=24)
        if kind == "provisional"
        else st.integers(min_value=25, max_value=100)
    )
    return Player("o", imported={"corr": ImportedRating(draw(hundredths(100, 3000)), games)})


@settings(max_examples=200, deadline=None)
@given(
    own=hundredths(100, 3000),
    own_games=st.integers(min_value=25, max_value=100),
    opponent=corr_opponent(),
    result=st.sampled_from(RESULTS),
    own_white=st.booleans(),
)
def test_corr_established_win_never_lowers_loss_never_raises(
    own: Decimal, own_games: int, opponent: Player, result: Result, own_white: bool
) -> None:
    """corr C5 Decision (diff clamped to ±350) and C6: for an established player a win
    never lowers and a loss never raises the rating, whoever the opponent; a win gains
    at least 0.04 × (−350) + 16 = 2, a loss costs at most 0.04 × 350 − 16 = −2 (or 0
    when protected)."""
    player = Player("p", imported={"corr": ImportedRating(own, own_games)})
    engine = Engine(CorrSystem(), [player, opponent])
    white, black = ("p", "o") if own_white else ("o", "p")
    game = GameRecord(
        id="g",
        played_at=START,
        white=white,
        black=black,
        result=result,
        time_control=parse_time_control("3d"),
    )
    engine.apply(game)

    after = engine.state("p", "corr").rating
    assert after is not None
    assert engine.state("p", "corr").games == own_games + 1
    score = game.score("p")
    if score == 1:
        assert after >= own + 2
    elif score == 0:
        assert after <= own
        assert after <= own - 2 or after == own
    else:
        assert abs(after - own) <= 14
