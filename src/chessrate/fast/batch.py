"""A batch of games as flat numpy arrays (the compiled replay's input).

:class:`GameBatch` holds one array per field of the game record
(:class:`~chessrate.records.GameRecord`), in input order, with the player ids and game
ids interned: the arrays hold small integers, the id tables hold the strings once. A batch is built
from reference records by :func:`encode`, or straight from a file by
:mod:`chessrate.fast.columnar`. :meth:`GameBatch.record` rebuilds any row as the
reference :class:`~chessrate.records.GameRecord`, so a refused game is explained
by the reference system itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..records import (
    GameRecord,
    Result,
    Termination,
    Venue,
    microseconds,
    moment,
)
from ..timecontrol import ClockKind, TimeControl

I8 = npt.NDArray[np.int8]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
B = npt.NDArray[np.bool_]

RESULTS: tuple[Result, ...] = (
    Result.WHITE_WINS,
    Result.BLACK_WINS,
    Result.DRAW,
    Result.NO_RESULT,
)
"""Result codes: 0 ``1-0``, 1 ``0-1``, 2 ``1/2-1/2``, 3 ``*``."""
WHITE_WINS, BLACK_WINS, DRAW, NO_RESULT = range(4)

TERMINATIONS: tuple[Termination, ...] = tuple(Termination)
"""Termination codes: the position in :class:`~chessrate.records.Termination`."""
T_NORMAL, T_RESIGN, T_TIMEOUT, T_ABANDON, T_DISCONNECT, T_FORFEIT, T_BOT_NO_MOVE, T_EXPIRED = (
    TERMINATIONS.index(t) for t in Termination
)

TC_NONE, TC_CLOCKED, TC_UNCLOCKED, TC_CORRESPONDENCE = range(4)
"""Time-control kinds: none given, a clock, ``-``, ``Nd``."""
_TC_KIND = {
    ClockKind.CLOCKED: TC_CLOCKED,
    ClockKind.UNCLOCKED: TC_UNCLOCKED,
    ClockKind.CORRESPONDENCE: TC_CORRESPONDENCE,
}
_TC_CLOCK = {code: kind for kind, code in _TC_KIND.items()}


def time_control_codes(control: TimeControl | None) -> tuple[int, int, int, int]:
    """A time control as ``(tc_kind, tc_base, tc_increment, tc_days)`` of a batch row."""
    if control is None:
        return TC_NONE, 0, 0, 0
    return _TC_KIND[control.kind], control.base, control.increment, control.days_per_move


ONLINE, OTB = 0, 1
NO_PLIES = -1
"""``plies`` code for an absent value."""
NOT_GIVEN = -1
"""``confirmed`` code for an absent value (else 0 false, 1 true)."""


def time_control(kind: int, base: int, increment: int, days: int) -> TimeControl | None:
    """The time control of a batch row's four ``tc_`` codes (None: no time control)."""
    if kind == TC_NONE:
        return None
    return TimeControl(_TC_CLOCK[kind], base=base, increment=increment, days_per_move=days)


@dataclass(slots=True)
class GameBatch:
    """Games as columns, in input order (rating order is computed by the replay).

    Player and game ids are interned: ``white``/``black`` index ``player_ids`` and
    ``game`` indexes ``game_ids``. ``where`` of a row is ``sources[i]`` when the batch
    was encoded from records, else ``f"{source}:{lines[i]}"``.
    """

    game: I64
    game_ids: Sequence[str]
    white: I32
    black: I32
    player_ids: list[str]
    played_at: I64
    result: I8
    rated: B
    tc_kind: I8
    tc_base: I64
    tc_increment: I64
    tc_days: I64
    termination: I8
    plies: I32
    venue: I8
    confirmed: I8
    source: str = ""
    lines: I64 | None = None
    sources: Sequence[str] | None = None
    control_table: tuple[I64, list[TimeControl | None]] | None = None
    """Each row's code among the batch's distinct time controls, and those controls
    (a reader that interned them may set it; else :meth:`controls` finds them)."""

    def __len__(self) -> int:
        return int(self.game.shape[0])

    def controls(self) -> tuple[I64, list[TimeControl | None]]:
        """Each row's code among the distinct time controls, and the controls in
        order of first appearance (found once, then kept)."""
        if self.control_table is None:
            from .kernels import factorize

            codes, first = factorize(self.tc_kind, self.tc_base, self.tc_increment, self.tc_days)
            self.control_table = (codes, [self.time_control(row) for row in first.tolist()])
        return self.control_table

    def where(self, row: int) -> str:
        """The row's location as errors name it (``FILE:LINE``)."""
        if self.sources is not None:
            return self.sources[row]
        if self.lines is not None:
            return f"{self.source}:{int(self.lines[row])}"
        return ""

    def time_control(self, row: int) -> TimeControl | None:
        return time_control(
            int(self.tc_kind[row]),
            int(self.tc_base[row]),
            int(self.tc_increment[row]),
            int(self.tc_days[row]),
        )

    def record(self, row: int) -> GameRecord:
        """The row as the reference game record (equal to the one it was made from)."""
        plies = int(self.plies[row])
        confirmed = int(self.confirmed[row])
        return GameRecord(
            id=self.game_ids[int(self.game[row])],
            played_at=moment(int(self.played_at[row])),
            white=self.player_ids[int(self.white[row])],
            black=self.player_ids[int(self.black[row])],
            result=RESULTS[int(self.result[row])],
            rated=bool(self.rated[row]),
            time_control=self.time_control(row),
            termination=TERMINATIONS[int(self.termination[row])],
            plies=None if plies == NO_PLIES else plies,
            venue=Venue.OTB if int(self.venue[row]) == OTB else Venue.ONLINE,
            confirmed=None if confirmed == NOT_GIVEN else bool(confirmed),
            source=self.where(row),
        )


RESULT_CODE = {result: code for code, result in enumerate(RESULTS)}
TERMINATION_CODE = {termination: code for code, termination in enumerate(TERMINATIONS)}


def plies_code(plies: int | None) -> int:
    return NO_PLIES if plies is None else plies


def venue_code(venue: Venue) -> int:
    return OTB if venue is Venue.OTB else ONLINE


def confirmed_code(confirmed: bool | None) -> int:
    return NOT_GIVEN if confirmed is None else int(confirmed)


class Interner:
    """Strings to dense integer codes, in order of first appearance."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}
        self.names: list[str] = []

    def __call__(self, name: str) -> int:
        code = self.codes.get(name)
        if code is None:
            code = self.codes[name] = len(self.names)
            self.names.append(name)
        return code


def encode(records: Iterable[GameRecord]) -> GameBatch:
    """Reference game records as a :class:`GameBatch` (input order kept)."""
    games = list(records)
    n = len(games)
    players, ids = Interner(), Interner()
    game = np.empty(n, np.int64)
    white = np.empty(n, np.int32)
    black = np.empty(n, np.int32)
    played_at = np.empty(n, np.int64)
    result = np.empty(n, np.int8)
    rated = np.empty(n, np.bool_)
    tc_kind = np.zeros(n, np.int8)
    tc_base = np.zeros(n, np.int64)
    tc_increment = np.zeros(n, np.int64)
    tc_days = np.zeros(n, np.int64)
    termination = np.empty(n, np.int8)
    plies = np.empty(n, np.int32)
    venue = np.empty(n, np.int8)
    confirmed = np.empty(n, np.int8)
    for i, record in enumerate(games):
        game[i] = ids(record.id)
        white[i] = players(record.white)
        black[i] = players(record.black)
        played_at[i] = microseconds(record.played_at)
        result[i] = RESULT_CODE[record.result]
        rated[i] = record.rated
        tc_kind[i], tc_base[i], tc_increment[i], tc_days[i] = time_control_codes(
            record.time_control
        )
        termination[i] = TERMINATION_CODE[record.termination]
        plies[i] = plies_code(record.plies)
        venue[i] = venue_code(record.venue)
        confirmed[i] = confirmed_code(record.confirmed)
    return GameBatch(
        game=game,
        game_ids=ids.names,
        white=white,
        black=black,
        player_ids=players.names,
        played_at=played_at,
        result=result,
        rated=rated,
        tc_kind=tc_kind,
        tc_base=tc_base,
        tc_increment=tc_increment,
        tc_days=tc_days,
        termination=termination,
        plies=plies,
        venue=venue,
        confirmed=confirmed,
        sources=[record.source for record in games],
    )
