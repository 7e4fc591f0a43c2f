"""One source of truth: a rule's number changed in its system's ``Rules`` changes both
engines.

For every field of ``ArenaRules``, ``CorrRules`` and ``SiteRules``, the same stream
of games is rated by the reference engine and the compiled replay with the field set
to another value: both must give the same refusals, outcomes and rating lists, and
those must differ from what the default rules give (so the field was really read by
both). The compiled kernels hold no rule number of their own
(:mod:`chessrate.fast.params` builds their parameters from the ``Rules``).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from chessrate.engine import Engine
from chessrate.errors import Conflict, InvalidRecord
from chessrate.records import GameRecord, ImportedRating, Player, Result, Termination
from chessrate.systems import ArenaRules, ArenaSystem, CorrRules, CorrSystem, SiteRules, SiteSystem
from chessrate.systems.base import RatingSystem
from chessrate.systems.site import WEIGHTS, GameType
from chessrate.systems.site_live import (
    LiveGame,
    Ply,
    Side,
    abort_ending,
    deadline,
    deadline_ending,
    finish_ending,
)
from chessrate.timecontrol import parse_time_control
from tests.fast.test_replay_properties import CONTROLS, POOLS, check_same

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
IMPORTED = {
    "arena": ["1100.00", "1150.00", "1400.00", "1500.00", "1800.00", "2100.00"],
    "corr": ["1100.00", "1400.00", "1500.00", "1700.00", "1950.00", "2200.00"],
    "site": ["200.00", "210.00", "1200.00", "1500.00", "1800.00", "2300.00"],
}


def stream(system_id: str, seed: int, count: int = 600) -> tuple[list[Player], list[GameRecord]]:
    """A players file and a stream of games that reach every rule of the system: new
    and imported players around every threshold, every control, ending and result."""
    rng = random.Random(seed)
    humans = [f"p{i:02d}" for i in range(16)]
    players = []
    for index, player_id in enumerate(humans):
        imported = {}
        if index % 4:
            for pool in POOLS[system_id]:
                if rng.random() < 0.6:
                    games = rng.choice([3, 9, 12, 20, 24, 26, 29, 31, 60])
                    rating = Decimal(rng.choice(IMPORTED[system_id]))
                    imported[pool] = ImportedRating(rating, games)
        until = date(2027, 1, 1) if system_id == "arena" else None
        players.append(Player(player_id, membership_until=until, imported=imported))
    low = ["low0", "low1", "low2"]  # near the floors, playing each other
    for player_id, rating_text in zip(low, IMPORTED[system_id][:3], strict=True):
        imported = {pool: ImportedRating(Decimal(rating_text), 40) for pool in POOLS[system_id]}
        until = date(2027, 1, 1) if system_id == "arena" else None
        players.append(Player(player_id, membership_until=until, imported=imported))
    everyone = list(humans)
    if system_id == "site":
        for bot_id, bot_rating in (("bot0", "1400.00"), ("bot1", "2500.00")):
            players.append(Player(bot_id, bot=True, bot_rating=Decimal(bot_rating)))
            everyone.append(bot_id)
    controls = [c for c in CONTROLS[system_id] if c is not None]
    if system_id == "arena":
        controls = ["3+2", "5m+3s", "15m", "1m+2s", "10m+10s"]
    records = []
    for number in range(count):
        white, black = rng.sample(low if number % 5 == 0 else everyone + low, 2)
        result = rng.choice(["1-0", "0-1", "1/2-1/2", "1-0", "0-1"])
        data: dict[str, Any] = {
            "id": f"g{number}",
            "played_at": (START + timedelta(minutes=number)).isoformat(),
            "white": white,
            "black": black,
            "result": result,
            "time_control": rng.choice(controls),
        }
        if system_id == "site":
            if "bot" in white + black and rng.random() < 0.3:
                data.update(termination="bot_no_move", result="*",
                            plies=rng.choice([9, 10, 17, 18, 30]))  # fmt: skip
            elif rng.random() < 0.2:
                data["plies"] = rng.choice([0, 1, 2, 3, 40])
        records.append(GameRecord.from_mapping(data, f"stream:{number + 1}"))
    return players, records


def outcome_of(system: RatingSystem[Any], players: list[Player], records: list[GameRecord]) -> Any:
    """What the reference engine gives: refusals, outcome counts and rating lists."""
    engine: Engine[Any] = Engine(system, players)
    errors: list[InvalidRecord] = []
    engine.replay(records, errors.append)
    outcomes = Counter(engine.outcome(rating.game.id) for rating in engine.ratings)
    return [str(e) for e in errors], outcomes, engine.rating_lists()


CHANGED_WEIGHTS = {**WEIGHTS, GameType.BLITZ: Decimal("0.6"), GameType.BULLET: Decimal("0.25")}

CHANGES: list[tuple[str, dict[str, Any]]] = [
    ("arena", {"training_rating": 1400}),
    ("arena", {"floor": Decimal("1120.00")}),
    ("arena", {"k": {"rapid": 15, "blitz": 25, "bullet": 12}}),
    ("arena", {"k_new_player": 30}),
    ("arena", {"new_player_games": 25}),
    ("arena", {"qualifying_games": 3}),
    ("arena", {"bonus_per_half_point": Decimal("15")}),
    ("corr", {"established_after": 20}),
    ("corr", {"performance_margin": Decimal(300)}),
    ("corr", {"unrated_performance_win": Decimal(1600)}),
    ("corr", {"unrated_performance_draw": Decimal(1250)}),
    ("corr", {"unrated_performance_loss": Decimal(1000)}),
    ("corr", {"provisional_gap": Decimal(250)}),
    ("corr", {"factor": Decimal("0.05")}),
    ("corr", {"factor": Decimal("0.035")}),  # not in hundredths: the general division
    ("corr", {"win_bonus": Decimal(10)}),
    ("corr", {"diff_clamp": Decimal(200)}),
    ("site", {"start": Decimal("1200.00")}),
    ("site", {"k_new": 40}),
    ("site", {"k": 16}),
    ("site", {"k_new_games": 20}),
    ("site", {"floor": Decimal("205.00")}),
    ("site", {"provisional_games": 15}),
    ("site", {"max_days_per_move": 5}),
    ("site", {"bullet_below": 150}),
    ("site", {"blitz_below": 481}),
    ("site", {"rapid_below": 1200}),
    ("site", {"bot_void_before_plies": 10}),
    ("site", {"aborted_below_plies": 3}),
    ("site", {"weights": CHANGED_WEIGHTS}),
]

SYSTEM_OF: dict[str, tuple[type[Any], type[ArenaRules] | type[CorrRules] | type[SiteRules]]] = {
    "arena": (ArenaSystem, ArenaRules),
    "corr": (CorrSystem, CorrRules),
    "site": (SiteSystem, SiteRules),
}


LIVE_CHANGES: list[dict[str, Any]] = [
    {"first_move_fast": 20},
    {"first_move_slow": 90},
    {"first_move_unclocked": 12 * 3600},
    {"bot_move_live": 45},
    {"bot_move_unclocked": 5 * 60},
    {"expiry": 3 * 24 * 3600},
    {"blitz_below": 7 * 60},  # the first-move deadline follows S2's blitz boundary
    {"bot_void_before_plies": 10},
    {"aborted_below_plies": 3},
]
"""SiteRules fields the live games read (site_live): each changes what a live game's
deadlines or endings say; the ones that only the live games read are covered here."""


def test_every_rules_field_is_changed_here() -> None:
    """The lists above cover every field of every per-game system's Rules (the rating
    rules in CHANGES, the live games' deadlines in LIVE_CHANGES)."""
    for system_id, (_, rules_type) in SYSTEM_OF.items():
        fields = set(rules_type.__dataclass_fields__)
        changed = {name for sid, change in CHANGES if sid == system_id for name in change}
        if system_id == "site":
            changed |= {name for change in LIVE_CHANGES for name in change}
        assert changed == fields, system_id


IDS = [f"{system}-{next(iter(change))}-{i}" for i, (system, change) in enumerate(CHANGES)]


@pytest.mark.parametrize(("system_id", "change"), CHANGES, ids=IDS)
def test_a_changed_rule_changes_both_engines(system_id: str, change: dict[str, Any]) -> None:
    system_type, rules_type = SYSTEM_OF[system_id]
    players, records = stream(system_id, seed=12)
    changed = system_type(replace(rules_type(), **change))
    floor = getattr(changed.rules, "floor", None)
    if floor is not None:  # imported ratings under a raised floor are refused: leave them out
        players = [
            replace(p, imported={k: v for k, v in p.imported.items() if v.rating >= floor})
            for p in players
        ]
    default = outcome_of(system_type(rules_type()), players, records)
    assert outcome_of(changed, players, records) != default, "the change moved nothing here"
    check_same(changed, players, records, [r.id for r in records[::97]])


def test_round_shift_is_round_div_by_a_power_of_two() -> None:
    """The site kernel's rounding by shifts (a power-of-two denominator of the weights)
    is round_div's half away from zero."""
    from chessrate.fast.kernels import round_div, round_shift

    for shift in range(6):
        for numerator in range(-300, 301):
            assert round_shift(numerator, shift) == round_div(numerator, 1 << shift)


# -- the live games (site S7-S9): their deadlines and words come from SiteRules ---------

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def live_game(
    control: str, bot: Side | None = None, rated: bool = True, plies: int = 0
) -> LiveGame:
    moves = tuple(Ply(n, T0 + timedelta(seconds=5 * n)) for n in range(1, plies + 1))
    return LiveGame("g", "w", "b", T0, parse_time_control(control), True, bot=bot, plies=moves)


LIVE_GAMES = [
    *(live_game(control) for control in ("1m+1s", "7m", "7m+5s", "15m", "-", "3d")),
    *(live_game("3m+2s", Side.BLACK, plies=n) for n in (0, 1, 2, 3, 8, 9, 10, 17, 18, 19)),
    *(live_game("-", Side.WHITE, plies=n) for n in (0, 2, 9, 20)),
    live_game("-", plies=2),
    live_game("-", plies=3),
    live_game("10m", plies=2),
]
"""Live games at every kind of deadline: first moves by type, a bot's moves before and
after S7's threshold, unclocked games that expire, clocked games under way."""


def live_words(rules: SiteRules) -> list[tuple[object, ...]]:
    """What each live game's next deadline, its ending when it passes, an abort and a
    reported resignation say under ``rules``."""
    said: list[tuple[object, ...]] = []
    for game in LIVE_GAMES:
        upcoming = deadline(game, rules)
        ending = None if upcoming is None else deadline_ending(game, upcoming, rules)
        try:
            abort: object = abort_ending(game, "w", rules)
        except Conflict as error:
            abort = str(error)
        finish = finish_ending(game, Result.WHITE_WINS, Termination.RESIGN, rules)
        said.append((upcoming, ending, abort, finish))
    return said


@pytest.mark.parametrize("change", LIVE_CHANGES, ids=[next(iter(c)) for c in LIVE_CHANGES])
def test_a_changed_rule_changes_the_live_games(change: dict[str, Any]) -> None:
    assert live_words(replace(SiteRules(), **change)) != live_words(SiteRules())


def test_the_live_deadlines_are_the_rules_numbers() -> None:
    rules = SiteRules(first_move_fast=20, first_move_slow=90, expiry=3 * 24 * 3600)
    bullet, rapid = deadline(live_game("1m+1s"), rules), deadline(live_game("15m"), rules)
    assert bullet is not None and bullet.at == T0 + timedelta(seconds=20)
    assert "within 20 s" in bullet.note
    assert rapid is not None and rapid.at == T0 + timedelta(seconds=90)
    unclocked = live_game("-", plies=3)
    expiry = deadline(unclocked, rules)
    assert expiry is not None and expiry.at == unclocked.last_at + timedelta(days=3)
    assert "within 3 days" in expiry.note
    assert "did not move for 3 days" in deadline_ending(unclocked, expiry, rules).reason


def test_the_bot_move_words_follow_bot_void_before_plies() -> None:
    """S7 Decision: with 10 plies void (moves 1-5), the words say move 6, in the live
    deadline, its ending and the rated game's reason alike."""
    rules = SiteRules(bot_void_before_plies=10)
    early, late = live_game("3m+2s", Side.BLACK, plies=9), live_game("3m+2s", Side.BLACK, plies=11)
    upcoming = deadline(early, rules)
    assert upcoming is not None
    assert "void before move 6 and the human's loss from move 6" in upcoming.note
    assert (
        "did not arrive before move 6 (9 plies)" in deadline_ending(early, upcoming, rules).reason
    )
    passed = deadline(late, rules)
    assert passed is not None
    assert "did not arrive from move 6 on (11 plies)" in deadline_ending(late, passed, rules).reason
    record = GameRecord.from_mapping(
        {"id": "b", "played_at": START.isoformat(), "white": "h", "black": "bot0",
         "result": "*", "time_control": "180+2", "termination": "bot_no_move", "plies": 9},
        "game b",
    )  # fmt: skip
    players = {"h": Player("h"), "bot0": Player("bot0", bot=True, bot_rating=Decimal(1400))}
    system = SiteSystem(rules)
    rated = system.rate(record, players.__getitem__, lambda p, pool: system.initial_state(
        players[p], pool))  # fmt: skip
    assert rated.reason == "the bot's move did not arrive before move 6 (9 plies): void (S7)"


def test_abort_follows_aborted_below_plies() -> None:
    """S8: the game can be aborted until ``aborted_below_plies`` plies were made."""
    two = live_game("10m", plies=2)
    with pytest.raises(Conflict, match="can no longer be aborted"):
        abort_ending(two, "w", SiteRules())
    assert abort_ending(two, "w", SiteRules(aborted_below_plies=3)).result is Result.NO_RESULT
    assert (
        "void (site S8)"
        in finish_ending(
            two, Result.WHITE_WINS, Termination.RESIGN, SiteRules(aborted_below_plies=3)
        ).reason
    )
