"""The lab's compiled path: each variant replayed by :func:`chessrate.fast.replay`.

A variant's system object is built from its ``Rules`` (``system_info(id).rating_system
(rules)``); the compiled halves read every number of their kernels from that system's
rules, so the kernels rate by the variant's rules. The kernels emit every change as
int64 columns (``on_rows``, :mod:`chessrate.fast.rows`); :class:`Collector` takes from
them what :func:`chessrate.lab.scored_games` takes from the reference engine's changes:
White's expected score in each pool where both players had a rating before the game
(the kernel's ``pd``, else the Elo expectation from the two ``before`` ratings), his
score, and the newer player's games in the pool. From the base rules' replay it also
keeps the stream the reference predictors learn from (every rated game, in each pool
it changed a rating in), which the predictors' numba kernels replay.

Importing this module loads numba (through :mod:`chessrate.fast`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InvalidRecord
from ..fast import GameBatch, Roster, replay
from ..fast.batch import BLACK_WINS, DRAW, NO_RESULT, WHITE_WINS
from ..fast.result import PoolList
from ..fast.rows import OUTCOMES, RowChunk
from ..numbers import from_hundredths
from ..records import Outcome, Player
from ..systems import system_info
from .kernels import collect
from .lists import MOVERS, Comparison, Mover, spearman
from .predictors import PREDICTORS

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

_RATED = OUTCOMES.index(Outcome.RATED)
_WHITE_SCORE = np.zeros(4, np.float64)
_WHITE_SCORE[[WHITE_WINS, DRAW, BLACK_WINS]] = (1.0, 0.5, 0.0)


class Scores:
    """One variant's scored games, one entry per (game, pool), in rating order (then
    pool): the game's batch row, the pool's position, White's expected score and score, whether the
    expectation is the system's own (``pd``), and the newer player's games before it."""

    def __init__(
        self, row: I64, pool: I64, expected: F64, score: F64, system: B, experience: I64
    ) -> None:
        self.row = row
        self.pool = pool
        self.expected = expected
        self.score = score
        self.system = system
        self.experience = experience


class Stream:
    """The reference predictors' stream: every rated game with a result of the base
    replay in each pool its changes are in (in the order of its changes), White's and
    Black's player codes, White's score; ``scored`` marks the entries the base rules
    were scored on and ``experience`` is theirs."""

    def __init__(
        self, white: I64, black: I64, pool: I64, score: F64, scored: B, experience: I64
    ) -> None:
        self.white = white
        self.black = black
        self.pool = pool
        self.score = score
        self.scored = scored
        self.experience = experience


def _columns(chunks: Sequence[tuple[Any, ...]], dtypes: Sequence[Any]) -> list[Any]:
    """Each column of the chunks' tuples of arrays, concatenated (empty of its type)."""
    return [
        np.concatenate([chunk[n] for chunk in chunks]) if chunks else np.zeros(0, dtype)
        for n, dtype in enumerate(dtypes)
    ]


class Collector:
    """The ``on_rows`` of a variant's replay: the scored games (:meth:`scores`) and,
    with a ``learner``, the predictors' stream (:meth:`stream`), a chunk at a time, each
    chunk's given to the learner at once."""

    def __init__(self, batch: GameBatch, pools: int, learner: Learner | None) -> None:
        self.batch = batch
        self.pools = pools
        self.learner = learner
        self.keep_stream = learner is not None
        self._scores: list[tuple[I64, I64, F64, F64, B, I64]] = []
        self._stream: list[tuple[I64, I64, I64, F64, B, I64]] = []

    def __call__(self, chunk: RowChunk) -> None:
        if chunk.changes == 0:
            return
        rows = chunk.rows
        white = self.batch.white[rows].astype(np.int64)
        black = self.batch.black[rows].astype(np.int64)
        result = self.batch.result[rows]
        (game, pool, expected, system, score, experience, t_game, t_pool, t_scored,
         t_experience) = collect(
            chunk.game, chunk.player, chunk.pool, chunk.score, chunk.before, chunk.pd,
            chunk.games_before, chunk.outcome == _RATED, white, black, result != NO_RESULT,
            self.pools, self.keep_stream,
        )  # fmt: skip
        self._scores.append((rows[game], pool, expected, score, system, experience))
        if self.keep_stream:
            y = _WHITE_SCORE[result[t_game]]
            part = (white[t_game], black[t_game], t_pool, y)
            self._stream.append((*part, t_scored, t_experience))
            assert self.learner is not None
            self.learner.add(*part, self.batch.played_at[rows[t_game]])

    def scores(self) -> Scores:
        dtypes = (np.int64, np.int64, np.float64, np.float64, np.bool_, np.int64)
        return Scores(*_columns(self._scores, dtypes))

    def stream(self) -> Stream:
        dtypes = (np.int64, np.int64, np.int64, np.float64, np.bool_, np.int64)
        return Stream(*_columns(self._stream, dtypes))


class CompiledRun:
    """One variant's compiled replay: its scored games, final lists (the listed players'
    arrays by pool, in no order), the replay's player ids by code, its roster and, for
    the base rules, the predictors' stream and their learner."""

    def __init__(
        self, scores: Scores, lists: dict[str, PoolList], names: list[str], roster: Roster,
        stream: Stream | None, learner: Learner | None,
    ) -> None:  # fmt: skip
        self.learner = learner
        self.roster = roster
        self.scores = scores
        self.lists = lists
        self.names = names
        self.stream = stream


def replay_variant(
    system_id: str,
    rules: Any,
    batch: GameBatch,
    players: Sequence[Player],
    stream: bool,
    registered: Roster | None = None,
    on_invalid: Callable[[InvalidRecord], None] | None = None,
    progress: Callable[[int], None] | None = None,
    threaded: bool = False,
    in_order: bool = False,
) -> CompiledRun:
    """The compiled replay of ``batch`` under ``rules``: what the lab measures
    (``registered``: the players' roster of another variant, whose arrays are reused,
    or of the same rules, used as it is). With ``stream`` (the base rules), the
    predictors learn its stream (:class:`Learner`; in a thread while it runs when
    ``threaded``). ``in_order``: the games rated in batch order (a ledger's), not by
    ``played_at``."""
    if registered is not None and registered.system.rules == rules:
        roster = registered  # the same rules: the same players' checks and arrays
    else:
        system = system_info(system_id).rating_system(rules)
        roster = Roster(system, players) if registered is None else registered.for_system(system)
    system = roster.system
    learner = None
    if stream:  # every player code is below this bound
        players_bound = len(batch.player_ids) + len(roster.players)
        learner = Learner(players_bound, len(system.pools), threaded)
    collector = Collector(batch, len(system.pools), learner)
    result = replay(
        system,
        batch,
        roster,
        in_order=in_order,
        on_invalid=on_invalid,
        progress=progress,
        on_rows=collector,
    )
    kernel = result.kernel
    assert kernel is not None
    lists = {}  # the listed players, unordered: comparing the lists needs no list order
    for p, pool in enumerate(system.pools):
        listed = kernel.listed(p, result.imported)
        lists[pool] = PoolList(pool, listed.rows, listed.rating.astype(np.int64),
                               listed.has_rating, listed.games, listed.state)  # fmt: skip
    return CompiledRun(
        collector.scores(),
        lists,
        result.names,
        roster,
        collector.stream() if stream else None,
        learner,
    )


class Learner:
    """The reference predictors learning the base replay's stream part after part, as
    the collector gives it: in a thread of their own while the replay goes on (their
    kernels release the GIL), or, not ``threaded``, all at once when asked."""

    def __init__(self, players: int, pools: int, threaded: bool) -> None:
        self.predictors = [make() for make in PREDICTORS]
        self.states = [predictor.begin(players, pools) for predictor in self.predictors]
        self.pending: list[tuple[I64, I64, I64, F64, I64]] = []
        self.learnt: list[Future[list[F64]] | list[F64]] = []
        self.thread = (
            ThreadPoolExecutor(1, thread_name_prefix="chessrate-predictors") if threaded else None
        )

    def add(self, white: I64, black: I64, pool: I64, score: F64, at: I64) -> None:
        """The next part of the stream (``at``: when each game was played)."""
        if self.thread is None:
            self.pending.append((white, black, pool, score, at))
        else:
            self.learnt.append(self.thread.submit(self._learn, white, black, pool, score, at))

    def _learn(self, white: I64, black: I64, pool: I64, score: F64, at: I64) -> list[F64]:
        return [
            predictor.learn(state, white, black, pool, score, at)
            for predictor, state in zip(self.predictors, self.states, strict=True)
        ]

    def expected(self) -> list[tuple[str, str, F64]]:
        """Each predictor's (label, description, White's expected score of every
        entry of the stream), once every part is learnt."""
        parts = [part if isinstance(part, list) else part.result() for part in self.learnt]
        parts += [self._learn(*part) for part in self.pending]
        self.pending = []
        self.learnt = list(parts)
        if self.thread is not None:
            self.thread.shutdown()
            self.thread = None
        columns = _columns([tuple(part) for part in parts], [np.float64] * len(self.predictors))
        return [
            (predictor.label, predictor.description, columns[n])
            for n, predictor in enumerate(self.predictors)
        ]


def _movers(
    order: int, codes: I64, base: I64, variant: I64, names: Sequence[str]
) -> tuple[Mover, ...]:
    """The first :data:`MOVERS` of the players whose change has the sign of ``order``
    (1 risers, -1 fallers), largest first, ties by player id (as ``compare`` sorts)."""
    change = (variant - base) * order
    moved = np.flatnonzero(change > 0)
    if moved.shape[0] > MOVERS:  # only the changes as large as the MOVERS-th can be listed
        bound = np.partition(change[moved], moved.shape[0] - MOVERS)[moved.shape[0] - MOVERS]
        moved = moved[change[moved] >= bound]
    chosen = sorted(moved.tolist(), key=lambda i: (-int(change[i]), names[int(codes[i])]))
    return tuple(
        Mover(names[int(codes[i])], from_hundredths(int(base[i])), from_hundredths(int(variant[i])))
        for i in chosen[:MOVERS]
    )


def compare_arrays(base: PoolList, variant: PoolList, names: Sequence[str]) -> Comparison:
    """:func:`chessrate.lab.compare` of two pools' lists as the compiled replay's arrays
    (players by code into ``names``, the same in both replays): the same comparison,
    the Spearman correlation up to the order of its sums."""
    n = len(names)
    at_base = np.full(n, -1, np.int64)
    at_base[base.player] = np.arange(len(base))
    at_variant = np.full(n, -1, np.int64)
    at_variant[variant.player] = np.arange(len(variant))
    codes = np.flatnonzero((at_base >= 0) & (at_variant >= 0))
    b, v = at_base[codes], at_variant[codes]
    changed = int((base.state[b] != variant.state[v]).sum())
    rated = base.has_rating[b] & variant.has_rating[v]
    codes, b, v = codes[rated], base.rating[b[rated]], variant.rating[v[rated]]
    return Comparison(
        int(codes.shape[0]),
        spearman(b, v),
        _movers(1, codes, b, v, names),
        _movers(-1, codes, b, v, names),
        changed,
    )
