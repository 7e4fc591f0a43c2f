"""What a compiled replay holds when it is done: the engine's answers (rating lists,
outcomes, games) from the state arrays, and site S10 annulments on top of it."""

from __future__ import annotations

import gc
import itertools
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import Annulment
from ..errors import InvalidRecord
from ..io.lists import ListColumns
from ..numbers import display_hundredths, format_hundredths, from_hundredths
from ..records import Outcome, Player
from ..systems.base import ListEntry, RatingSystem
from . import kernels
from .batch import GameBatch
from .compiled import I64, OUTCOME_OF, RATED, Decided, SystemKernel
from .roster import Roster


class CompiledReplay:
    """The result of :func:`replay`: what ``Engine`` would hold after the same replay
    (rating lists, outcomes, games), and S10 annulments on top of it."""

    def __init__(self, roster: Roster, batch: GameBatch, names: list[str]) -> None:
        self.roster = roster
        self.system_id = roster.system_id
        self.batch = batch
        self.names = names
        self.codes: dict[str, int] = {}
        """Player id -> row of the state arrays (``names`` inverted)."""
        self.kept = np.zeros(0, np.int64)  # kept rows, rating order
        self.action = np.zeros(0, np.int8)
        self.decided: Decided | None = None
        self.rated_rows = np.zeros(0, np.int64)
        self.rated_order_of_row = np.zeros(0, np.int64)
        self.kernel: SystemKernel | None = None
        """The system's state arrays and kernel (its compiled half's)."""
        self.imported = np.zeros((len(names), 0), np.bool_)
        self.annulments: dict[str, Annulment] = {}
        self.applied: int | None = None
        """While a replay runs: how many rows (in rating order) were applied; None once
        every game was (an annulment sees only the games applied before it)."""
        self.position: I64 | None = None
        """Each batch row's place in rating order (set while annulments are
        interleaved)."""
        self._row_of_game: I64 | None = None
        self._game_codes: dict[str, int] | None = None
        self._rank: I64 | None = None
        self._names: npt.NDArray[np.object_] | None = None
        self._lists: dict[str, PoolList] | None = None

    # -- like Engine ---------------------------------------------------------------

    @property
    def system(self) -> RatingSystem[Any]:
        return self.roster.system

    @property
    def games(self) -> int:
        """Games applied (``len(Engine.ratings)``): repeats and refused games excluded."""
        return int(self.kept.shape[0])

    def player(self, player_id: str) -> Player:
        return self.roster.player(player_id)

    def outcome_counts(self) -> Counter[Outcome]:
        """Games per outcome now, an annulled game counting as void (``Engine.outcome``)."""
        codes = np.bincount(self.action[self.kept], minlength=RATED + 1)
        counts: Counter[Outcome] = Counter()
        for code, outcome in OUTCOME_OF.items():
            counts[outcome] = int(codes[code])
        counts[Outcome.RATED] -= len(self.annulments)
        counts[Outcome.VOID] += len(self.annulments)
        return counts

    def outcome(self, game_id: str) -> Outcome | None:
        """A game's outcome now (``Engine.outcome``): an annulled game is void; None for
        a game that was not applied."""
        if game_id in self.annulments:
            return Outcome.VOID
        row = self._row(game_id)
        return None if row is None else OUTCOME_OF[int(self.action[row])]

    def _row(self, game_id: str) -> int | None:
        """The applied row of ``game_id`` (the first of its identical repeats)."""
        ids = self.batch.game_ids
        if self._row_of_game is None:
            row_of_game = np.full(len(ids), -1, np.int64)
            row_of_game[self.batch.game[self.kept]] = self.kept
            self._row_of_game = row_of_game
        from .strings import ByteStrings

        if isinstance(ids, ByteStrings):  # read by the CSV scanner: a hash probe
            code = ids.code(game_id)
        else:
            if self._game_codes is None:
                self._game_codes = {name: code for code, name in enumerate(ids)}
            code = self._game_codes.get(game_id)
        if code is None:
            return None
        row = int(self._row_of_game[code])
        if row < 0:
            return None
        if self.applied is not None:
            assert self.position is not None
            if int(self.position[row]) >= self.applied:
                return None  # not applied yet
        return row

    def annul(self, game_id: str, reason: str, at: datetime, by: str | None = None) -> Annulment:
        """site S10, as :meth:`Engine.annul`: the same checks and errors, and the
        reference system's own ``annul`` on the game's changes and the touched states."""
        where = f"game {game_id}"
        row = self._row(game_id)
        if row is None:
            raise InvalidRecord(where, "id", "no such game to annul")
        if game_id in self.annulments:
            first = self.annulments[game_id]
            raise InvalidRecord(where, "id", f"already annulled at {first.at.isoformat()}")
        outcome = OUTCOME_OF[int(self.action[row])]
        if outcome is not Outcome.RATED:
            raise InvalidRecord(where, "id", f"the game is {outcome.value}: no rating to annul")
        changes, states = self.system.annul(self._kernel().rated_game(self, row), self._state)
        for (player_id, pool), state in states.items():
            self._set_state(player_id, pool, state)
        self._lists = None
        annulment = Annulment(game_id, at, reason, by, changes)
        self.annulments[game_id] = annulment
        return annulment

    @property
    def states(self) -> dict[str, I64]:
        """Every array of the players' rating state, by name (the benchmarks measure
        their bytes per (player, pool))."""
        return self._kernel().states

    def _kernel(self) -> SystemKernel:
        assert self.kernel is not None, "the replay has not started its kernel"
        return self.kernel

    def _state(self, player_id: str, pool: str) -> Any:
        """The reference state of a player in a pool, from the arrays."""
        return self._kernel().state(self.codes[player_id], self.system.pools.index(pool))

    def _set_state(self, player_id: str, pool: str, state: Any) -> None:
        self._kernel().set_state(self.codes[player_id], self.system.pools.index(pool), state)

    # -- rating lists ----------------------------------------------------------------

    def rating_arrays(self) -> dict[str, PoolList]:
        """Every pool's list as arrays, in list order (what :meth:`rating_lists` turns into
        ``ListEntry`` objects), in the system's pool order. Cheap: no Python object per
        player."""
        pools = self.roster.system.pools
        return {name: self._arrays(p, name) for p, name in enumerate(pools)}

    def pool_arrays(self, pool: str) -> PoolList:
        """One pool's list as arrays (kept until the next annulment)."""
        if self._lists is None:
            self._lists = {}
        if pool not in self._lists:
            self._lists[pool] = self._arrays(self.system.pools.index(pool), pool)
        return self._lists[pool]

    def locate(self, player_id: str, pool: str) -> tuple[int | None, ListEntry] | None:
        """A player's entry in a pool's list and his rank (None while he has no
        rating); None when he is not listed there."""
        code = self.codes.get(player_id)
        if code is None:
            return None
        arrays = self.pool_arrays(pool)
        at = np.flatnonzero(arrays.player == code)
        if at.shape[0] == 0:
            return None
        row = int(at[0])
        (entry,) = self.entries(arrays.slice(row, row + 1))
        rank = int(arrays.has_rating[:row].sum()) + 1 if arrays.has_rating[row] else None
        return rank, entry

    def rating_lists(self) -> dict[str, list[ListEntry]]:
        """Every pool's list, in the system's pool order (``Engine.rating_lists``)."""
        arrays = self.rating_arrays()
        collecting = gc.isenabled()
        gc.disable()  # hundreds of thousands of acyclic entries: no cycle to find
        try:
            return {name: self.entries(pool_list) for name, pool_list in arrays.items()}
        finally:
            if collecting:
                gc.enable()

    def _name_rank(self) -> I64:
        """Each player's position among the player ids in string order (the lists'
        last sort key)."""
        if self._rank is None:
            rank = np.empty(len(self.names), np.int64)
            rank[sorted(range(len(self.names)), key=self.names.__getitem__)] = np.arange(
                len(self.names)
            )
            self._rank = rank
        return self._rank

    def _arrays(self, p: int, pool: str) -> PoolList:
        """One pool's listed players (``list_entry`` is not None) in list order: rated
        before qualifying, by rating, games, then player id (``Engine.rating_list``)."""
        listed = self._kernel().listed(p, self.imported)
        rows = listed.rows
        order = np.lexsort((self._name_rank()[rows], -listed.games, -listed.rating,
                            ~listed.has_rating))  # fmt: skip
        return PoolList(
            pool=pool,
            player=rows[order],
            rating=listed.rating[order].astype(np.int64),
            has_rating=listed.has_rating[order],
            games=listed.games[order].astype(np.int64),
            state=listed.state[order],
        )

    def displays(self, arrays: PoolList) -> npt.NDArray[np.object_]:
        """Each entry's display text, as the system's display function writes it
        (:meth:`display_codes`)."""
        codes, texts = self.display_codes(arrays)
        return np.array(texts, object)[codes]

    def display_codes(self, arrays: PoolList) -> tuple[I64, list[str]]:
        """Each entry's display as a code into the distinct display texts, and those
        texts: the rating rounded by :func:`chessrate.numbers.display_hundredths` (the
        array form of ``numbers.display``), then the system's mark (``site_mark``,
        ``corr_mark``) decided once per distinct (state, games); arena's qualifying
        players show ``display_arena``'s training rating."""
        if len(arrays) == 0:
            return np.zeros(0, np.int64), []
        shown, inverse = np.unique(display_hundredths(arrays.rating), return_inverse=True)
        # (int8, int64, int64, int64): the signature the time controls use, one compilation
        codes, first = kernels.factorize(arrays.state, arrays.games, arrays.games, arrays.games)
        kernel = self._kernel()
        found = [kernel.mark(int(arrays.state[r]), int(arrays.games[r])) for r in first.tolist()]
        marks = sorted(set(found))  # few texts: most (state, games) have the same mark
        mark_of = {mark: m for m, mark in enumerate(marks)}
        mark = np.array([mark_of[text] for text in found], np.int64)[codes]
        combined = inverse.reshape(-1) * len(marks) + mark
        unrated = shown.shape[0] * len(marks)  # the code of a listed row without a rating
        if not bool(arrays.has_rating.all()):
            combined[~arrays.has_rating] = unrated
        distinct, at = np.unique(combined, return_inverse=True)
        numbers = shown.tolist()
        texts = [
            kernel.no_rating_display()
            if code == unrated
            else f"{numbers[code // len(marks)]}{marks[code % len(marks)]}"
            for code in distinct.tolist()
        ]
        return at.reshape(-1).astype(np.int64), texts

    def list_json(self) -> str | None:
        """Every pool's list as the ``.json`` list file's text (the bytes
        ``io.lists.list_columns_text`` writes), written by a kernel
        (:mod:`chessrate.fast.listtext`); None when a player id needs a JSON escape."""
        from .listtext import Part, json_table, list_json, plain_names

        names = plain_names(self.names)
        if names is None:
            return None
        states = json_table(self.system.states)
        parts = []
        for pool in self.system.pools:
            arrays = self.pool_arrays(pool)
            codes, texts = self.display_codes(arrays)
            parts.append(
                Part(pool, arrays.player, arrays.rating, arrays.has_rating, codes,
                     json_table(texts), arrays.state, states, arrays.games)
            )  # fmt: skip
        return list_json(names, parts)

    def columns(self, arrays: PoolList) -> ListColumns:
        """A pool's list (or a slice of it) as the columns the list files write."""
        values, inverse = np.unique(arrays.rating, return_inverse=True)
        texts = np.array([format_hundredths(v) for v in values.tolist()] + [None], object)
        rated = np.where(arrays.has_rating, inverse.reshape(-1), values.shape[0])
        n = len(arrays)
        return ListColumns(
            player=self._names_array()[arrays.player].tolist(),
            pool=[arrays.pool] * n,
            rating=texts[rated].tolist(),
            display=self.displays(arrays).tolist(),
            state=self._state_names()[arrays.state].tolist(),
            games=arrays.games.tolist(),
        )

    def entries(self, arrays: PoolList) -> list[ListEntry]:
        """``ListEntry`` objects for a pool's arrays (a Decimal per distinct rating, the
        display texts of :meth:`displays`; the columns gathered by numpy)."""
        n = len(arrays)
        if n == 0:
            return []
        values, inverse = np.unique(arrays.rating, return_inverse=True)
        decimals = np.array([from_hundredths(v) for v in values.tolist()] + [None], object)
        rated = np.where(arrays.has_rating, inverse.reshape(-1), values.shape[0])
        return list(
            map(
                ListEntry,
                self._names_array()[arrays.player].tolist(),
                itertools.repeat(arrays.pool, n),
                decimals[rated].tolist(),
                self.displays(arrays).tolist(),
                self._state_names()[arrays.state].tolist(),
                arrays.games.tolist(),
            )
        )

    def _state_names(self) -> npt.NDArray[np.object_]:
        """``PoolList.state`` codes as the system's state names."""
        return np.array(self.system.states, object)

    def _names_array(self) -> npt.NDArray[np.object_]:
        if self._names is None:
            self._names = np.array(self.names, object)
        return self._names


@dataclass(frozen=True, slots=True)
class PoolList:
    """One pool's rating list as arrays, in list order: ``player`` indexes
    ``CompiledReplay.names``; ``rating`` in hundredths (0 where ``has_rating`` is
    false: arena's qualifying players); ``state`` indexes the system's ``states``."""

    pool: str
    player: I64
    rating: I64
    has_rating: npt.NDArray[np.bool_]
    games: I64
    state: npt.NDArray[np.int8]

    def __len__(self) -> int:
        return int(self.player.shape[0])

    def slice(self, start: int, stop: int) -> PoolList:
        """The entries ``start:stop`` of the list."""
        part = slice(start, stop)
        return PoolList(
            self.pool,
            self.player[part],
            self.rating[part],
            self.has_rating[part],
            self.games[part],
            self.state[part],
        )

    def head(self, count: int) -> PoolList:
        """The first ``count`` entries."""
        return self.slice(0, count)
