"""The ledger's rows as the compiled replay emits them: numpy arrays, a chunk at a time.

``replay(..., on_rows=callback)`` (:func:`chessrate.fast.replay`) calls ``callback``
with a :class:`RowChunk` after each kernel chunk, in rating order, until every kept
game (rated or not; refused and repeated records are not kept) was in one. A chunk
holds each game's outcome and reason code, and each change the kernels made as the
integers of :data:`chessrate.systems.base.CHANGE_COLUMNS` (what ``change_row`` makes of
the reference ``Change``), one array per column. S10 annulments given to the replay
are not emitted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..records import Outcome
from ..systems.base import CHANGE_COLUMNS

I64 = npt.NDArray[np.int64]

NULL = int(np.iinfo(np.int64).min)
"""A missing number (the reference's None) in an int64 column of a :class:`RowChunk`."""

OUTCOMES: tuple[Outcome, ...] = tuple(Outcome)
"""``RowChunk.outcome`` is the position in this tuple (``chessrate.ledger.rows.OUTCOMES``)."""


NULLABLE: tuple[str, ...] = (
    "before", "after", "opponent_rating", "k", "d", "pd", "basis", "code",
)  # fmt: skip
"""The columns that hold :data:`NULL` where the reference ``Change`` holds None."""

KERNEL_COLUMNS: tuple[str, ...] = ("game", *CHANGE_COLUMNS)
"""The rows of a kernel's output array, in order (``game`` is first the change's game's
place among the chunk's rated games)."""

ROW_CHUNK = 1 << 16
"""Rated games per kernel call when rows are emitted (the output arrays of a chunk hold
up to four changes a game)."""


@dataclass(frozen=True, slots=True)
class RowChunk:
    """The rows of consecutive kept games in rating order.

    Per game: ``rows`` (the batch row), ``outcome`` (int8, a position in
    :data:`OUTCOMES`), ``reason`` (int16, ``GameRating.reason_code``). Per change, in
    the order of the games and, within a game, of ``GameRating.changes`` (``slot`` 0,
    1, ...): ``game`` (the index of its game in ``rows``) and one int64 array per name
    of :data:`CHANGE_COLUMNS`: ratings, D, PD and the basis in hundredths, the score in
    half points, ``pool``, ``rule`` and the states as positions in the system's
    ``pools``, ``rules_cited`` and ``states``, ``player`` and ``opponent`` as the
    replay's player codes (``CompiledReplay.names[code]`` is the id), :data:`NULL` in the
    :data:`NULLABLE` columns for None. Each chunk has arrays of its own (its change
    columns are rows of one buffer, kept alive while any of them is)."""

    rows: I64
    outcome: npt.NDArray[np.int8]
    reason: npt.NDArray[np.int16]
    game: I64
    slot: I64
    player: I64
    pool: I64
    rule: I64
    opponent: I64
    score: I64
    before: I64
    after: I64
    state_before: I64
    state_after: I64
    games_before: I64
    games_after: I64
    opponent_rating: I64
    k: I64
    d: I64
    pd: I64
    basis: I64
    code: I64

    def __len__(self) -> int:
        """The number of games."""
        return int(self.rows.shape[0])

    @property
    def changes(self) -> int:
        """The number of changes."""
        return int(self.game.shape[0])

    def column(self, name: str) -> I64:
        """A change column by name (one of :data:`CHANGE_COLUMNS`)."""
        if name not in CHANGE_COLUMNS:
            raise KeyError(name)
        column: I64 = getattr(self, name)
        return column

    def change_rows(self) -> Iterator[dict[str, int | None]]:
        """Each change as a dict of :data:`CHANGE_COLUMNS` (None for :data:`NULL`), in
        order; the players as codes. For small chunks and tests: a bulk writer reads the
        arrays."""
        columns = [self.column(name).tolist() for name in CHANGE_COLUMNS]
        for values in zip(*columns, strict=True):
            yield {
                name: None if value == NULL and name in NULLABLE else value
                for name, value in zip(CHANGE_COLUMNS, values, strict=True)
            }


class RowWriter:
    """Turns the kernels' output into :class:`RowChunk` objects for ``on_rows``.

    ``kept`` are the kept batch rows in rating order, ``action`` each row's outcome as
    the replay codes it and ``outcome_of`` those codes as positions in
    :data:`OUTCOMES`; ``rated`` the code of a rated game. ``reason`` is each row's reason
    code as decided before the kernel (unrated and void games; site's rated games by
    their type); ``kernel_reasons`` says the kernel writes the rated games' reasons
    (arena, corr). ``width`` is the most changes a game makes, ``codes`` the system's
    codes for the kernel (its compiled half's ``codes``)."""

    def __init__(
        self,
        on_rows: Callable[[RowChunk], None],
        kept: I64,
        action: npt.NDArray[np.int8],
        outcome_of: npt.NDArray[np.int8],
        rated: int,
        reason: npt.NDArray[np.int16],
        kernel_reasons: bool,
        width: int,
        codes: I64,
    ) -> None:
        self.on_rows = on_rows
        self.kept = kept
        self.action = action
        self.outcome_of = outcome_of
        self.rated = rated
        self.reason = reason
        self.kernel_reasons = kernel_reasons
        self.width = width
        self.codes = codes
        self.rated_at = np.flatnonzero(action[kept] == rated)
        """The place in ``kept`` of each rated game (the kernels' order)."""
        self.done = 0
        """Kept games emitted so far."""

    def buffers(self, games: int) -> tuple[I64, I64, I64]:
        """The kernel's ``rows`` for a chunk of ``games`` rated games."""
        out = np.empty((len(KERNEL_COLUMNS), games * self.width), np.int64)
        return out, np.empty(games if self.kernel_reasons else 0, np.int64), self.codes

    def emit_rated(self, begin: int, end: int, buffers: tuple[I64, I64, I64], count: int) -> None:
        """Emit the kept games up to the rated game ``end - 1``, whose rated games are
        ``begin:end`` (the kernel's last chunk: ``count`` changes in ``buffers``)."""
        if end <= begin:
            return
        stop = int(self.rated_at[end - 1]) + 1
        rows, outcome, reason = self._games(self.done, stop)
        at = np.flatnonzero(self.action[rows] == self.rated)
        assert at.shape[0] == end - begin, "the kernel's chunks follow one another"
        out, kernel_reason, _ = buffers
        if self.kernel_reasons:
            reason[at] = kernel_reason
        changes = [out[i, :count] for i in range(1, len(KERNEL_COLUMNS))]
        self.on_rows(RowChunk(rows, outcome, reason, at[out[0, :count]], *changes))
        self.done = stop

    def finish(self) -> None:
        """Emit the kept games after the last rated one (none of them has changes)."""
        total = int(self.kept.shape[0])
        empty = np.zeros(0, np.int64)
        for start in range(self.done, total, ROW_CHUNK):
            rows, outcome, reason = self._games(start, min(total, start + ROW_CHUNK))
            self.on_rows(RowChunk(rows, outcome, reason, *([empty] * len(KERNEL_COLUMNS))))
        self.done = total

    def _games(
        self, start: int, stop: int
    ) -> tuple[I64, npt.NDArray[np.int8], npt.NDArray[np.int16]]:
        rows = self.kept[start:stop]
        return rows, self.outcome_of[self.action[rows]], self.reason[rows]
