"""What a system's compiled half gives the compiled replay, and the pieces its
decision shares.

A system that rates games one by one has a compiled half (``chessrate.fast.arena``,
``.corr``, ``.site``), named by its registry entry (:mod:`chessrate.systems.registry`)
and loaded by :func:`compiled_half`. It is a :class:`CompiledSystem`:

- ``decide``: every game's outcome from vectorised conditions written in the order the
  reference ``rate`` checks them (:class:`Decider`), and what its kernel needs;
- ``start``: the state arrays of a replay, from the players' attributes and the states
  a ledger continues from (a :class:`SystemKernel`);
- ``codes``: the rule, state and reason codes an emitting kernel writes
  (:mod:`chessrate.fast.rows`).

The :class:`SystemKernel` it starts runs the kernel over a chunk of rated games, lists
a pool as arrays (with the display mark of each state) and reads or writes one
player's reference state (site S10 annulments). :mod:`chessrate.fast.replay` is the
shared machinery around them: registration, refusals, rating order, chunks, lists.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ..records import Outcome, Termination
from ..systems.base import GameRating, RatingSystem
from ..systems.registry import REGISTRY, SystemInfo
from ..timecontrol import TimeControl
from .batch import DRAW, TERMINATIONS, WHITE_WINS, GameBatch

I64 = npt.NDArray[np.int64]
B = npt.NDArray[np.bool_]

UNDECIDED, REFUSED, UNRATED, VOID, RATED = range(5)
"""A game's outcome as the compiled replay codes it (``REFUSED``: the reference refuses
the record)."""
OUTCOME_OF = {UNRATED: Outcome.UNRATED, VOID: Outcome.VOID, RATED: Outcome.RATED}

NO_REASON = -1
"""The reason code of a game the kernel gives its reason (and of a refused one)."""

NO_POOL = -1
"""A game whose time control has no pool (the reference refuses it)."""


@dataclass(frozen=True, slots=True)
class Attributes:
    """Players' attributes as arrays, one row per player: arena membership (last day,
    days since 1970), site bot and bot rating, imported ratings per pool (hundredths)
    and games."""

    until: I64
    bot: B
    bot_rating: I64
    imported: B
    rating: I64
    games: I64


@dataclass(slots=True)
class Decided:
    """Outcome per game (input order) and what the kernels need: the pool (site: the
    game type's pool) and White's score in half points; with ``reasons``, the reason
    code (``GameRating.reason_code``) of each game the kernel does not decide."""

    action: npt.NDArray[np.int8]
    pool: I64
    white_halves: I64
    reason: npt.NDArray[np.int16] | None = None


class Decider:
    """Outcome codes set condition by condition in the reference's order: the first
    condition that holds for a game decides it. With ``reasons``, each condition also
    sets the reference's reason code (``R_*`` of the system module), a number or one
    per game."""

    def __init__(self, n: int, reasons: bool = False) -> None:
        self.action = np.full(n, UNDECIDED, np.int8)
        self.reason = np.full(n, NO_REASON, np.int16) if reasons else None

    def __call__(
        self, condition: npt.NDArray[np.bool_] | bool, code: int, reason: int | I64 = NO_REASON
    ) -> None:
        open_ = self.action == UNDECIDED
        chosen = open_ & condition
        self.action[chosen] = code
        if self.reason is not None:
            self.reason[chosen] = reason if isinstance(reason, int) else reason[chosen]


def halves(result: npt.NDArray[np.int8]) -> I64:
    """White's score in half points (0 for no result: such games are not rated)."""
    return np.select([result == WHITE_WINS, result == DRAW], [2, 1], 0).astype(np.int64)


def per_control(batch: GameBatch, decide: Callable[[TimeControl | None], int]) -> I64:
    """``decide`` of every game's time control, called once per distinct control: the
    reference's own function decides, the games take its answer by code."""
    codes, controls = batch.controls()
    answers = np.array([decide(control) for control in controls], np.int64)
    return answers[codes]


def is_in(codes: npt.NDArray[np.int8], members: Iterable[Termination]) -> B:
    """The games whose termination is one of ``members``."""
    return np.isin(codes, [TERMINATIONS.index(member) for member in members])


@dataclass(frozen=True, slots=True)
class Listed:
    """One pool's listed players as a system's kernel states hold them (any order):
    their rows, whether each has a rating (arena's qualifying players have none), the
    rating (hundredths; 0 without one), the games that count, and the state as a
    position in the system's ``states``."""

    rows: I64
    has_rating: B
    rating: I64
    games: I64
    state: npt.NDArray[np.int8]


class SystemKernel(Protocol):
    """One replay's state arrays of a system, and its kernel over them."""

    states: dict[str, I64]
    """Every array of the players' rating state, by name (the benchmarks measure their
    bytes per (player, pool))."""

    def run(
        self, chunk: I64, start: int, decided: Decided, white: I64, black: I64,
        rows: tuple[I64, I64, I64] | None,
    ) -> int:  # fmt: skip
        """The kernel on the rated games ``chunk`` (batch rows in rating order; ``start``
        is the first one's place among the replay's rated games); with ``rows`` it
        writes them. The number of changes written."""

    def listed(self, pool: int, imported: B) -> Listed:
        """The players listed in the pool at position ``pool`` (``list_entry`` is not
        None), from the states now; ``imported`` says who brought a rating there."""

    def mark(self, state: int, games: int) -> str:
        """What the reference display puts after the displayed rating for a listed row
        in this state with this many games (site S6's ``?``, corr C7's ``P (n)``)."""

    def no_rating_display(self) -> str:
        """The display of a listed row without a rating (arena's training rating)."""

    def rated_game(self, replay: Any, row: int) -> GameRating[Any]:
        """The rated game of batch ``row`` with the changes the kernel made (what the
        reference ``annul`` reverses; a system without annulment needs none)."""

    def state(self, player: int, pool: int) -> Any:
        """The reference state of a player in a pool, from the arrays."""

    def set_state(self, player: int, pool: int, state: Any) -> None:
        """Write a reference state (an annulment's) into the arrays."""


class WithoutAnnulment:
    """The :class:`SystemKernel` methods of a system whose regulation has no annulment:
    the reference ``annul`` refuses before it reads a state, so the rated game needs no
    changes and no state is ever read or written back."""

    def rated_game(self, replay: Any, row: int) -> GameRating[Any]:
        return GameRating(replay.batch.record(row), Outcome.RATED, "")

    def state(self, player: int, pool: int) -> Any:
        raise AssertionError("no annulment: no state is read back")

    def set_state(self, player: int, pool: int, state: Any) -> None:
        raise AssertionError("no annulment: no state is written back")


@runtime_checkable
class CompiledSystem(Protocol):
    """A system's compiled half (see the module docstring)."""

    width: int
    """The most changes one game makes."""
    kernel_reasons: bool
    """Whether the kernel writes the rated games' reasons (else ``decide`` does)."""

    def decide(self, system: Any, batch: GameBatch, players: Attributes, reasons: bool) -> Decided:
        """Every game's outcome in the reference's order of checks."""

    def start(
        self, system: Any, players: Attributes, started: list[tuple[tuple[int, int], Any]],
        rated_games: int,
    ) -> SystemKernel:  # fmt: skip
        """The state arrays from the players' attributes; ``started`` are the reference
        states some (player row, pool position) continue from (a ledger's)."""

    def codes(self, system: Any) -> I64:
        """The codes an emitting kernel writes (rule, state and reason positions)."""


def compiled_half(info: SystemInfo) -> CompiledSystem | None:
    """The compiled half a registry entry names, or None (a module path is imported on
    first use; Python keeps the module)."""
    reference = info.compiled
    if reference is None:
        return None
    if isinstance(reference, str):
        module, _, name = reference.partition(":")
        reference = getattr(importlib.import_module(module), name)
    if not isinstance(reference, CompiledSystem):
        raise TypeError(f"{info.id}: {info.compiled!r} is not a compiled half")
    return reference


def compiled_of(system: RatingSystem[Any]) -> CompiledSystem:
    """The compiled half of a system object (ValueError naming the systems that have one)."""
    info = REGISTRY.get(system.id)
    half = None if info is None else compiled_half(info)
    if half is None:
        known = ", ".join(i.id for i in REGISTRY.values() if i.compiled is not None)
        raise ValueError(f"no compiled replay for {system.id!r} (known: {known})")
    return half
