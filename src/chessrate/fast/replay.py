"""The compiled replay: the reference rules on flat arrays, for whole batches.

Steps, each matching :class:`chessrate.engine.Engine` exactly:

1. the players are registered as the engine registers them (same checks, same
   errors) and give flat attribute arrays (membership day, bot, bot rating,
   imported ratings as initial states);
2. every game gets its outcome from vectorised conditions written in the order the
   reference ``rate`` checks them: ``REFUSED``, ``UNRATED``, ``VOID`` or ``RATED``;
3. in rating order (a stable sort by ``played_at``) the refused games and the games
   whose id was already used are explained by the reference itself: the refused
   record is rebuilt and passed to the reference system's ``rate``, which raises
   the very same ``InvalidRecord``; a repeated identical record is dropped, a
   different one refused as ``Engine.apply`` does;
4. the rated games run through the system's numba kernel on integer hundredths (its
   compiled half, :mod:`chessrate.fast.compiled`)
   (with ``on_rows``, the kernels also write every change as the ledger's numbers:
   :mod:`chessrate.fast.rows`);
5. :class:`CompiledReplay` answers like the engine: rating lists, outcomes, S10
   annulments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from ..errors import InvalidRecord
from ..records import GameRecord, Player
from ..systems.base import RatingSystem
from .batch import GameBatch
from .compiled import I64, OUTCOME_OF, RATED, REFUSED, Attributes
from .result import CompiledReplay
from .roster import Roster
from .rows import OUTCOMES, ROW_CHUNK, RowChunk, RowWriter

CHUNK = 1 << 20
"""Games per kernel call (the progress callback is told after each)."""


@dataclass(frozen=True, slots=True)
class Annul:
    """A site S10 annulment for :func:`replay`: applied after the first ``after`` rows
    of the batch in rating order (refused and repeated rows count), or after every
    game when ``after`` is None. Its errors always raise."""

    game_id: str
    reason: str
    at: datetime
    by: str | None = None
    after: int | None = None


def replay(
    system: str | RatingSystem[Any],
    batch: GameBatch,
    players: Iterable[Player] | Roster = (),
    *,
    annulments: Iterable[Annul] = (),
    in_order: bool = False,
    on_invalid: Callable[[InvalidRecord], None] | None = None,
    progress: Callable[[int], None] | None = None,
    on_rows: Callable[[RowChunk], None] | None = None,
    states: Mapping[tuple[str, str], Any] | None = None,
) -> CompiledReplay:
    """Replay ``batch`` through a system's rules (one with a compiled half: an id for the
    default rules, or a system object with its own), as
    ``Engine(system, players).replay(records, on_invalid)`` does.

    The games are rated in ``played_at`` order (ties in batch order), or in batch
    order when ``in_order`` (a ledger's commit order). A refused game raises its
    reference :class:`InvalidRecord` (the first in rating order) and nothing is kept,
    unless ``on_invalid`` is given: then every refused game is reported there, in
    rating order, and skipped. ``annulments`` (site S10) are applied at their place
    among the games; a refused annulment raises, or with ``on_invalid`` is reported
    there after the refused games. ``progress`` is told how many games
    were applied after each chunk.

    ``on_rows`` is given every kept game's outcome, reason code and changes as the
    ledger's numbers (:class:`chessrate.fast.rows.RowChunk`), a chunk after each kernel
    call, in rating order: the rows the reference ``Engine`` would give, as
    ``chessrate.ledger.rows.change_row`` writes them. ``annulments`` are not emitted
    (the games after one are, from the states it left). ``states`` ((player id,
    pool) -> the reference state) are the states the games continue from, instead of
    the players' initial ones (a ledger's current ratings, for a file appended to
    it)."""
    roster = players if isinstance(players, Roster) else Roster(system, players)
    system_id = system if isinstance(system, str) else system.id
    if roster.system_id != system_id:
        raise ValueError(f"the roster is for {roster.system_id}, not {system_id}")
    if not isinstance(system, str) and roster.system is not system:
        raise ValueError("the roster was made for another system object (other rules)")
    names = list(batch.player_ids)
    codes = {name: code for code, name in enumerate(names)}
    for player_id in roster.players:
        if player_id not in codes:
            codes[player_id] = len(names)
            names.append(player_id)
    result = CompiledReplay(roster, batch, names)
    result.codes = codes
    attributes = roster.attributes(names)
    result.imported = attributes.imported

    # 2. outcomes
    decided = roster.compiled.decide(roster.system, batch, attributes, on_rows is not None)
    result.decided = decided
    action = decided.action

    # 3. refusals and repeated ids, in rating order
    stamps = batch.played_at
    if in_order or bool((stamps[1:] >= stamps[:-1]).all()):  # already in rating order
        order = np.arange(len(batch), dtype=np.int64)
    else:
        order = np.argsort(stamps, kind="stable")
    counts = np.bincount(batch.game, minlength=len(batch.game_ids))
    repeated_id = counts[batch.game] > 1
    special = order[((action == REFUSED) | repeated_id)[order]]
    keep = np.ones(len(batch), np.bool_)
    errors: list[InvalidRecord] = []
    first_row: dict[int, int] = {}
    for row in special.tolist():
        if repeated_id[row]:
            code = int(batch.game[row])
            first = first_row.get(code)
            if first is not None:
                keep[row] = False
                record = batch.record(row)
                earlier = batch.record(first)
                if record != earlier:
                    errors.append(record.reuses_id_of(earlier))
                continue
            if action[row] != REFUSED:
                first_row[code] = row
                continue
        keep[row] = False
        errors.append(_refusal(roster, batch.record(row)))
    if errors and on_invalid is None:
        raise errors[0]
    for error in errors:
        assert on_invalid is not None
        on_invalid(error)
    kept = order[keep[order]]
    result.kept = kept
    result.action = action

    # 4. the kernels, with the annulments at their places
    rated_rows = kept[action[kept] == RATED]
    result.rated_rows = rated_rows
    rated_order_of_row = np.full(len(batch), -1, np.int64)
    rated_order_of_row[rated_rows] = np.arange(rated_rows.shape[0])
    result.rated_order_of_row = rated_order_of_row
    kernel = _Kernel(result, attributes, states or {})
    if on_rows is not None:
        kernel.emit_to(on_rows)
    pending = sorted(annulments, key=lambda a: len(batch) if a.after is None else a.after)
    interleaved = [a for a in pending if a.after is not None and a.after < len(batch)]
    done = 0
    if interleaved:
        position = np.empty(len(batch), np.int64)
        position[order] = np.arange(len(batch))
        result.position = position
        rated_positions = position[rated_rows]
        for annulment in interleaved:
            assert annulment.after is not None
            upto = int(np.searchsorted(rated_positions, annulment.after))
            kernel.run(done, upto, progress)
            done = max(done, upto)
            result.applied = annulment.after
            _annul(result, annulment, on_invalid)
        result.applied = None
    kernel.run(done, rated_rows.shape[0], progress)
    if kernel.writer is not None:
        kernel.writer.finish()
    if progress is not None and kept.shape[0] > rated_rows.shape[0]:
        progress(int(kept.shape[0] - rated_rows.shape[0]))
    for annulment in pending[len(interleaved) :]:
        _annul(result, annulment, on_invalid)
    return result


def _annul(
    result: CompiledReplay, annulment: Annul, on_invalid: Callable[[InvalidRecord], None] | None
) -> None:
    """Apply one annulment; its refusal raises, or goes to ``on_invalid``."""
    try:
        result.annul(annulment.game_id, annulment.reason, annulment.at, annulment.by)
    except InvalidRecord as error:
        if on_invalid is None:
            raise
        on_invalid(error)


_OUTCOME_OF_ACTION = np.full(RATED + 1, -1, np.int8)
for _action, _outcome in OUTCOME_OF.items():
    _OUTCOME_OF_ACTION[_action] = OUTCOMES.index(_outcome)


def _no_states(player_id: str, pool: str) -> Any:
    raise AssertionError("a refused game does not read states")


class _Kernel:
    """A system's kernel and its state arrays, from the players' initial states; runs
    over a range of the rated games at a time (annulments go between ranges). After
    :meth:`emit_to`, every chunk's rows go to ``writer``."""

    def __init__(
        self, result: CompiledReplay, players: Attributes, start: Mapping[tuple[str, str], Any]
    ) -> None:
        self.result = result
        self.start = start
        """(player id, pool) -> the reference state the games continue from (a ledger's
        current ratings); every other state is the players' initial one."""
        self.writer: RowWriter | None = None
        self.chunk = CHUNK
        batch = result.batch
        self.white = batch.white.astype(np.int64)
        self.black = batch.black.astype(np.int64)
        self.compiled = result.roster.compiled
        result.kernel = self.compiled.start(
            result.system, players, self._started(), int(result.rated_rows.shape[0])
        )

    def _started(self) -> list[tuple[tuple[int, int], Any]]:
        """The given start states by (player code, pool position)."""
        codes, pools = self.result.codes, self.result.system.pools
        return [
            ((codes[player], pools.index(pool)), state)
            for (player, pool), state in self.start.items()
            if player in codes
        ]

    def emit_to(self, on_rows: Callable[[RowChunk], None]) -> None:
        """Have the kernels write every change, and give each chunk's rows to
        ``on_rows`` (the decided reasons are needed: ``decide(..., reasons=True)``)."""
        result = self.result
        decided = result.decided
        assert decided is not None and decided.reason is not None
        compiled = self.compiled
        self.writer = RowWriter(
            on_rows, result.kept, result.action, _OUTCOME_OF_ACTION, RATED, decided.reason,
            compiled.kernel_reasons, compiled.width, compiled.codes(result.system),
        )  # fmt: skip
        self.chunk = ROW_CHUNK

    def run(self, start: int, stop: int, progress: Callable[[int], None] | None) -> None:
        """Rate the rated games ``start:stop`` (rating order), a chunk at a time."""
        rows = self.result.rated_rows
        writer = self.writer
        for begin in range(start, stop, self.chunk):
            end = min(stop, begin + self.chunk)
            if writer is None:
                self._call(rows[begin:end], begin, None)
            else:
                buffers = writer.buffers(end - begin)
                count = self._call(rows[begin:end], begin, buffers)
                writer.emit_rated(begin, end, buffers, count)
            if progress is not None:
                progress(end - begin)

    def _call(self, chunk: I64, start: int, rows: tuple[I64, I64, I64] | None) -> int:
        """The kernel on ``chunk`` (with ``rows``: writing them); the changes written."""
        result = self.result
        assert result.decided is not None and result.kernel is not None
        return result.kernel.run(chunk, start, result.decided, self.white, self.black, rows)


def kernel_again(result: CompiledReplay) -> int:
    """Run ``result``'s kernel again over its rated games from fresh initial states (its
    states are replaced by equal ones); the number of rated games. For benchmarks: the
    kernel alone, without reading, classifying or ordering."""
    kernel = _Kernel(result, result.roster.attributes(result.names), {})
    kernel.run(0, int(result.rated_rows.shape[0]), None)
    return int(result.rated_rows.shape[0])


def _refusal(roster: Roster, record: GameRecord) -> InvalidRecord:
    """The reference system's own refusal of ``record``."""
    try:
        roster.system.rate(record, roster.player, _no_states)
    except InvalidRecord as error:
        return error
    raise AssertionError(f"{record.where}: the compiled replay refused a game the reference rates")
