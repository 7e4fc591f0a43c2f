"""The ledger's rows as numbers: a change, a game and a moment as the integers the
tables store, and back.

A change row holds every number of a :class:`~chessrate.systems.base.Change`
(ratings, D, PD, the basis of a first rating, ... in integer hundredths; the score in
half points; the rule, the pool and the states as their positions in the system's
``rules_cited``, ``pools`` and ``states``; the players as their integer keys). Its
words are not stored: :func:`change_from_row` has the system write the note again
from the numbers (``system.note``), as it wrote it when the game was rated. ``delta``
(score - PD) and ``change`` (after - before) are derived the same way by every
system, so they are not stored either (:func:`derived`).

A game row holds the record's fields as codes (:data:`RESULTS`, :data:`TERMINATIONS`,
:data:`VENUES`), its moments as integer microseconds since 1970-01-01 UTC, and the
system's decision as the outcome's code and the reason code (``system.reason``
writes the words again).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from ..numbers import HALF, ONE, from_hundredths, to_hundredths
from ..records import GameRecord, Outcome, Result, Termination, Venue, microseconds, moment
from ..systems.base import Change, RatingSystem, explained
from ..timecontrol import parse_time_control

RESULTS: tuple[Result, ...] = tuple(Result)
TERMINATIONS: tuple[Termination, ...] = tuple(Termination)
VENUES: tuple[Venue, ...] = tuple(Venue)
OUTCOMES: tuple[Outcome, ...] = tuple(Outcome)
"""A game's coded fields: the stored code is the position in these tuples."""

SCORES: tuple[Decimal, ...] = (Decimal(0), HALF, ONE)
"""A score in half points (0, 1, 2) as the Decimal the systems use."""


def _cents(value: Decimal | None) -> int | None:
    return None if value is None else to_hundredths(value)


def _decimal(value: int | None) -> Decimal | None:
    return None if value is None else from_hundredths(value)


def score_halves(score: Decimal) -> int:
    return SCORES.index(score)


def derived(score: Decimal, before: Decimal | None, after: Decimal | None,
            pd: Decimal | None) -> tuple[Decimal | None, Decimal | None]:  # fmt: skip
    """(delta, change) of a change from its other numbers: score - PD when a PD was
    read, after - before when the rating had a value before and after."""
    delta = None if pd is None else score - pd
    change = None if before is None or after is None else after - before
    return delta, change


def change_row(
    system: RatingSystem[Any], change: Change, slot: int, key: Callable[[str], int]
) -> dict[str, Any]:
    """A change as the integers the ``changes`` table stores (``key`` gives a player's
    integer key). Refuses (ValueError) a change whose derived numbers would not come
    back, so nothing is stored that a read would show otherwise."""
    delta, moved = derived(change.score, change.before, change.after, change.pd)
    if delta != change.delta or moved != change.change:
        raise ValueError(
            f"game {change.game_id}: {change.player} {change.pool}: delta {change.delta} or "
            f"change {change.change} is not the one its numbers give ({delta}, {moved})"
        )
    return {
        "slot": slot,
        "player": key(change.player),
        "pool": system.pools.index(change.pool),
        "rule": system.rules_cited.index(change.rule),
        "opponent": key(change.opponent),
        "score": score_halves(change.score),
        "before": _cents(change.before),
        "after": _cents(change.after),
        "state_before": system.states.index(change.state_before),
        "state_after": system.states.index(change.state_after),
        "games_before": change.games_before,
        "games_after": change.games_after,
        "opponent_rating": _cents(change.opponent_rating),
        "k": change.k,
        "d": _cents(change.d),
        "pd": _cents(change.pd),
        "basis": _cents(change.basis),
        "code": change.code,
    }


def change_from_row(
    system: RatingSystem[Any],
    row: Mapping[Any, Any],
    name: Callable[[int], str],
    game_id: str,
    words: bool = True,
) -> Change:
    """A stored change row back to the change, its note written by the system (unless
    ``words`` is False: only the numbers are wanted)."""
    score = SCORES[row["score"]]
    before, after, pd = _decimal(row["before"]), _decimal(row["after"]), _decimal(row["pd"])
    delta, moved = derived(score, before, after, pd)
    change = Change(
        game_id=game_id,
        player=name(row["player"]),
        pool=system.pools[row["pool"]],
        rule=system.rules_cited[row["rule"]],
        opponent=name(row["opponent"]),
        score=score,
        before=before,
        after=after,
        state_before=system.states[row["state_before"]],
        state_after=system.states[row["state_after"]],
        games_before=row["games_before"],
        games_after=row["games_after"],
        opponent_rating=_decimal(row["opponent_rating"]),
        k=row["k"],
        d=_decimal(row["d"]),
        pd=pd,
        delta=delta,
        change=moved,
        basis=_decimal(row["basis"]),
        code=row["code"],
    )
    return explained(change, system.note) if words else change


GAME_COLUMNS: tuple[str, ...] = (
    "id", "played_at", "white", "black", "result", "rated", "time_control", "termination",
    "plies", "venue", "confirmed",
)  # fmt: skip
"""A game row's record columns (besides ``seq``, the decision and ``submitted_at``)."""


def game_row(record: GameRecord, key: Callable[[str], int]) -> dict[str, Any]:
    """A game record as the ``games`` table stores it."""
    control = record.time_control
    return {
        "id": record.id,
        "played_at": microseconds(record.played_at),
        "white": key(record.white),
        "black": key(record.black),
        "result": RESULTS.index(record.result),
        "rated": record.rated,
        "time_control": None if control is None else str(control),
        "termination": TERMINATIONS.index(record.termination),
        "plies": record.plies,
        "venue": VENUES.index(record.venue),
        "confirmed": record.confirmed,
    }


def record_from_row(row: Mapping[Any, Any], name: Callable[[int], str]) -> GameRecord:
    """A stored game row back to its record."""
    control = row["time_control"]
    return GameRecord(
        id=row["id"],
        played_at=moment(row["played_at"]),
        white=name(row["white"]),
        black=name(row["black"]),
        result=RESULTS[row["result"]],
        rated=bool(row["rated"]),
        time_control=None if control is None else parse_time_control(control),
        termination=TERMINATIONS[row["termination"]],
        plies=row["plies"],
        venue=VENUES[row["venue"]],
        confirmed=None if row["confirmed"] is None else bool(row["confirmed"]),
    )
