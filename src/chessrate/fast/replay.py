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
4. the rated games run through the system's numba kernel on integer hundredths
   (with ``on_rows``, the kernels also write every change as the ledger's numbers:
   :mod:`chessrate.fast.rows`);
5. :class:`CompiledReplay` answers like the engine: rating lists, outcomes, S10
   annulments.
"""

from __future__ import annotations

import gc
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import Annulment, Engine
from ..errors import InvalidRecord
from ..io.lists import ListColumns
from ..numbers import display_hundredths, format_hundredths, from_hundredths, to_hundredths
from ..records import MICROSECONDS_PER_DAY, GameRecord, Outcome, Player, Termination
from ..systems import arena, corr, get_system, site
from ..systems.arena import FOREIGN_TERMINATIONS as ARENA_FOREIGN
from ..systems.arena import POOLS as ARENA_POOLS
from ..systems.arena import (
    ArenaRules,
    ArenaState,
    ArenaStatus,
    display_arena,
    pool_for_control,
)
from ..systems.base import Change, GameRating, ListEntry, RatingSystem
from ..systems.corr import FOREIGN_TERMINATIONS as CORR_FOREIGN
from ..systems.corr import CorrRules, CorrStatus, corr_mark
from ..systems.site import (
    BOT_NEVER_LOSES_BY,
    ENDINGS_WITH_A_LOSER,
    GameType,
    SiteRules,
    SiteState,
    SiteSystem,
    site_mark,
)
from ..systems.site import POOLS as SITE_POOLS
from ..timecontrol import TimeControl
from . import kernels, params
from .batch import (
    BLACK_WINS,
    DRAW,
    NO_PLIES,
    NO_RESULT,
    OTB,
    T_BOT_NO_MOVE,
    T_EXPIRED,
    T_FORFEIT,
    TC_CLOCKED,
    TC_NONE,
    TERMINATIONS,
    WHITE_WINS,
    GameBatch,
)
from .rows import OUTCOMES, ROW_CHUNK, RowChunk, RowWriter
from .tables import site_expected_table, table_a_dp, table_b_pd_high

SYSTEMS = ("arena", "corr", "site")
"""The per-game systems the compiled replay runs (``fide`` rates periods)."""

UNDECIDED, REFUSED, UNRATED, VOID, RATED = range(5)
OUTCOME_OF = {UNRATED: Outcome.UNRATED, VOID: Outcome.VOID, RATED: Outcome.RATED}

CHUNK = 1 << 20
"""Games per kernel call (the progress callback is told after each)."""

I64 = npt.NDArray[np.int64]
B = npt.NDArray[np.bool_]
NO_MEMBERSHIP = np.iinfo(np.int64).min // 2
_EPOCH_DAY = date(1970, 1, 1)

# site S2: each game type's column among the pools (0 is the site Elo)
_KINDS = tuple(GameType)
_KIND_POOL = np.array([SITE_POOLS.index(kind.value) for kind in _KINDS], np.int64)


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


class Roster:
    """The players file, registered exactly as :class:`Engine` registers it (same
    order, same checks, same errors), and the attribute lookup the rules use.

    ``system`` is a system id (its default rules) or a system object with its own
    ``Rules``: the kernels read their numbers from those rules."""

    def __init__(self, system: str | RatingSystem[Any], players: Iterable[Player] = ()) -> None:
        system_id = system if isinstance(system, str) else system.id
        if system_id not in SYSTEMS:
            raise ValueError(f"no compiled replay for {system_id!r} (known: {', '.join(SYSTEMS)})")
        self.system_id = system_id
        chosen = get_system(system) if isinstance(system, str) else system
        self.engine: Engine[Any] = Engine(chosen, players)
        self._table: tuple[int, dict[str, int], tuple[I64, B, I64, B, I64, I64]] | None = None

    @property
    def system(self) -> RatingSystem[Any]:
        return self.engine.system

    @property
    def players(self) -> dict[str, Player]:
        return self.engine.players

    def player(self, player_id: str) -> Player:
        return self.engine.player(player_id)

    def attributes(self, names: list[str]) -> Attributes:
        """The attributes of the players ``names`` as arrays (an unregistered player
        has none). The registered players' arrays are built once per roster: the
        players file is read once and replayed against many batches."""
        if self._table is None or self._table[0] != len(self.engine.players):
            self._table = (len(self.engine.players), *self._build())
        _, index, table = self._table
        unregistered = len(index)
        rows = np.fromiter(
            (index.get(name, unregistered) for name in names), np.int64, count=len(names)
        )
        until, bot, bot_rating, imported, rating, games = table
        return Attributes(
            until[rows], bot[rows], bot_rating[rows], imported[rows], rating[rows], games[rows]
        )

    def _build(self) -> tuple[dict[str, int], tuple[I64, B, I64, B, I64, I64]]:
        players = list(self.engine.players.values())
        pools = self.system.pools
        n = len(players) + 1  # the last row: an unregistered player
        until = np.full(n, NO_MEMBERSHIP, np.int64)
        bot = np.zeros(n, np.bool_)
        bot_rating = np.zeros(n, np.int64)
        imported = np.zeros((n, len(pools)), np.bool_)
        rating = np.zeros((n, len(pools)), np.int64)
        games = np.zeros((n, len(pools)), np.int64)
        for i, player in enumerate(players):
            if player.membership_until is not None:
                until[i] = (player.membership_until - _EPOCH_DAY).days
            if player.bot:
                bot[i] = True
                assert player.bot_rating is not None
                bot_rating[i] = to_hundredths(player.bot_rating)
            for pool, entry in player.imported.items():
                p = pools.index(pool)
                imported[i, p] = True
                rating[i, p] = to_hundredths(entry.rating)
                games[i, p] = entry.games
        index = {player.id: i for i, player in enumerate(players)}
        return index, (until, bot, bot_rating, imported, rating, games)


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
class _Decided:
    """Outcome per game (input order) and what the kernels need: the pool (site: the
    game type's pool) and White's score in half points; with ``reasons``, the reason
    code (``GameRating.reason_code``) of each game the kernel does not decide."""

    action: npt.NDArray[np.int8]
    pool: I64
    white_halves: I64
    reason: npt.NDArray[np.int16] | None = None


NO_REASON = -1
"""The reason code of a game the kernel gives its reason (and of a refused one)."""


class _Decider:
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


def _halves(result: npt.NDArray[np.int8]) -> I64:
    """White's score in half points (0 for no result: such games are not rated)."""
    return np.select([result == WHITE_WINS, result == DRAW], [2, 1], 0).astype(np.int64)


def _per_control(batch: GameBatch, decide: Callable[[TimeControl | None], int]) -> I64:
    """``decide`` of every game's time control, called once per distinct control: the
    reference's own function decides, the games take its answer by code."""
    codes, controls = batch.controls()
    answers = np.array([decide(control) for control in controls], np.int64)
    return answers[codes]


def _is_in(codes: npt.NDArray[np.int8], members: Iterable[Termination]) -> B:
    """The games whose termination is one of ``members``."""
    return np.isin(codes, [TERMINATIONS.index(member) for member in members])


NO_POOL = -1


def _arena_pool(control: TimeControl | None) -> int:
    pool = None if control is None else pool_for_control(control)
    return NO_POOL if pool is None else ARENA_POOLS.index(pool)


def _decide_arena(batch: GameBatch, member_until: I64, reasons: bool = False) -> _Decided:
    """arena.rate's checks, in its order (A2, A3, A4)."""
    decide = _Decider(len(batch), reasons)
    pool = _per_control(batch, _arena_pool)  # A2, by arena.pool_for_control
    day = batch.played_at // MICROSECONDS_PER_DAY
    decide(~batch.rated, UNRATED, arena.R_CASUAL)
    decide(pool == NO_POOL, REFUSED)
    decide(member_until[batch.white] < day, REFUSED)
    decide(member_until[batch.black] < day, REFUSED)
    decide(batch.termination == T_FORFEIT, VOID, arena.R_FORFEIT)
    decide(_is_in(batch.termination, ARENA_FOREIGN), REFUSED)
    decide(batch.result == NO_RESULT, VOID, arena.R_NO_RESULT)
    decide(True, RATED)  # its reason: the kernel's
    return _Decided(decide.action, pool, _halves(batch.result), decide.reason)


def _decide_corr(batch: GameBatch, reasons: bool = False) -> _Decided:
    """corr.rate's checks, in its order."""
    decide = _Decider(len(batch), reasons)
    decide(~batch.rated, UNRATED, corr.R_CASUAL)
    decide(batch.termination == T_FORFEIT, VOID, corr.R_FORFEIT)
    decide(_is_in(batch.termination, CORR_FOREIGN), REFUSED)
    decide(batch.result == NO_RESULT, VOID, corr.R_NO_RESULT)
    decide(True, RATED)  # its reason: the kernel's
    pool = np.zeros(len(batch), np.int64)
    return _Decided(decide.action, pool, _halves(batch.result), decide.reason)


NO_CONTROL, TOO_SLOW = -1, -2
"""``_site_control`` codes of a game that cannot be typed by its control."""


def _decide_site(
    batch: GameBatch, is_bot: B, system: SiteSystem, reasons: bool = False
) -> _Decided:
    """site.rate's checks, in its order (S1, S2, S7, S8, S9), with ``system``'s rules;
    a rated game's reason is its type's (``R_RATED`` + the type's position)."""
    rules = system.rules
    n = len(batch)
    decide = _Decider(n, reasons)
    white_bot, black_bot = is_bot[batch.white], is_bot[batch.black]
    any_bot = white_bot | black_bot
    otb = batch.venue == OTB

    def control_kind(control: TimeControl | None) -> int:  # S2, by SiteSystem.control_type
        if control is None:
            return NO_CONTROL
        kind = system.control_type(control)
        return TOO_SLOW if kind is None else _KINDS.index(kind)

    by_control = _per_control(batch, control_kind)
    kind = np.select(
        [any_bot, otb], [_KINDS.index(GameType.BOTS), _KINDS.index(GameType.OTB)], by_control
    )
    plies, result, termination = batch.plies, batch.result.copy(), batch.termination
    has_plies = plies != NO_PLIES
    decide(~batch.rated, UNRATED, site.R_CASUAL)
    free = ~any_bot & ~otb
    decide(free & (by_control == NO_CONTROL), REFUSED)
    decide(free & (by_control == TOO_SLOW), REFUSED)
    decide(white_bot & black_bot, UNRATED, site.R_TWO_BOTS)
    otb_pending = (kind == _KINDS.index(GameType.OTB)) & (batch.confirmed != 1)
    decide(otb_pending, UNRATED, site.R_OTB_PENDING)
    decide(termination == T_FORFEIT, VOID, site.R_FORFEIT)
    decide(has_plies & (plies < rules.aborted_below_plies), VOID, site.R_ABORTED)
    no_move = termination == T_BOT_NO_MOVE
    human_loses = np.where(black_bot, BLACK_WINS, WHITE_WINS).astype(np.int8)
    decide(no_move & ~any_bot, REFUSED)
    decide(no_move & ~has_plies, REFUSED)
    decide(no_move & (plies < rules.bot_void_before_plies), VOID, site.R_BOT_NO_MOVE)
    decide(no_move & (result != human_loses) & (result != NO_RESULT), REFUSED)
    counted = no_move & (decide.action == UNDECIDED)
    result[counted] = human_loses[counted]
    rated_reason = site.R_RATED + kind
    decide(no_move, RATED, rated_reason)
    bot_lost = (black_bot & (result == WHITE_WINS)) | (
        white_bot & ~black_bot & (result == BLACK_WINS)
    )
    decide(_is_in(termination, BOT_NEVER_LOSES_BY) & bot_lost, REFUSED)
    expired = termination == T_EXPIRED
    decide(expired & ((batch.tc_kind == TC_NONE) | (batch.tc_kind == TC_CLOCKED)), REFUSED)
    decide(expired & ((result == DRAW) | (result == NO_RESULT)), REFUSED)
    white_to_move = plies % 2 == 0
    decide(expired & has_plies & (white_to_move != (result == BLACK_WINS)), REFUSED)
    decide((result == NO_RESULT) & _is_in(termination, ENDINGS_WITH_A_LOSER), REFUSED)
    decide(result == NO_RESULT, VOID, site.R_NO_RESULT)
    decide(True, RATED, rated_reason)
    kind = np.maximum(kind, 0)  # a refused game's kind is never read
    return _Decided(decide.action, _KIND_POOL[kind], _halves(result), decide.reason)


def _no_states(player_id: str, pool: str) -> Any:
    raise AssertionError("a refused game does not read states")


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
        self.decided: _Decided | None = None
        self.rated_rows = np.zeros(0, np.int64)
        self.rated_order_of_row = np.zeros(0, np.int64)
        self.changes: npt.NDArray[np.int32] | I64 = np.zeros((0, 4), np.int64)
        self.states: dict[str, I64] = {}
        """Every array of the players' rating state, by name (bench/run.py measures
        their bytes per (player, pool))."""
        self.imported = np.zeros((len(names), 0), np.bool_)
        self.annulments: dict[str, Annulment] = {}
        self.applied: int | None = None
        """While a replay runs: how many rows (in rating order) were applied; None once
        every game was (an annulment sees only the games applied before it)."""
        self._position: I64 | None = None
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
            assert self._position is not None
            if int(self._position[row]) >= self.applied:
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
        changes, states = self.system.annul(self._game_rating(row), self._state)
        for (player_id, pool), state in states.items():
            self._set_state(player_id, pool, state)
        self._lists = None
        annulment = Annulment(game_id, at, reason, by, changes)
        self.annulments[game_id] = annulment
        return annulment

    def _game_rating(self, row: int) -> GameRating[Any]:
        """The rated game of ``row`` with the changes the kernel made (site: the type
        rating and the site Elo of each human, in the reference's order)."""
        record = self.batch.record(row)
        if self.system_id != "site":
            return GameRating(record, Outcome.RATED, "")
        assert self.decided is not None
        t = int(self.rated_order_of_row[row])
        white, black = int(self.batch.white[row]), int(self.batch.black[row])
        halves = int(self.decided.white_halves[row])
        is_bot = self.states["is_bot"]
        changes = []
        for slot in range(4):
            own, other = (white, black) if slot % 2 == 0 else (black, white)
            if is_bot[own]:
                continue  # a bot's rating does not move
            pool = int(self.decided.pool[row]) if slot < 2 else 0
            changes.append(
                Change(
                    game_id=record.id,
                    player=self.names[own],
                    pool=SITE_POOLS[pool],
                    rule="site S3",
                    opponent=self.names[other],
                    score=Decimal(halves if own == white else 2 - halves) / 2,
                    before=None,
                    after=None,
                    state_before="rated",
                    state_after="rated",
                    games_before=0,
                    games_after=0,
                    change=from_hundredths(int(self.changes[t, slot])),
                )
            )
        return GameRating(record, Outcome.RATED, "", tuple(changes))

    def _state(self, player_id: str, pool: str) -> Any:
        """The reference state of a player in a pool, from the arrays (site)."""
        i, p = self.codes[player_id], self.system.pools.index(pool)
        rating, games = self.states["rating"], self.states["games"]
        return SiteState(from_hundredths(int(rating[i, p])), int(games[i, p]))

    def _set_state(self, player_id: str, pool: str, state: Any) -> None:
        assert isinstance(state, SiteState)
        i, p = self.codes[player_id], self.system.pools.index(pool)
        self.states["rating"][i, p] = to_hundredths(state.rating)
        self.states["games"][i, p] = state.games

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
        states = self.states
        if self.system_id == "arena":
            status = states["status"][:, p]
            listed = np.flatnonzero(status != kernels.UNRATED)
            qualifying = status[listed] == kernels.QUALIFYING
            rating = np.where(qualifying, 0, states["rating"][listed, p])
            games = np.where(qualifying, states["q_count"][listed, p], states["games"][listed, p])
            state = np.where(qualifying, _QUALIFYING, _RATED).astype(np.int8)
        elif self.system_id == "corr":
            status = states["status"]
            listed = np.flatnonzero(status != kernels.UNRATED)
            qualifying = np.zeros(listed.shape[0], np.bool_)
            rating, games = states["rating"][listed], states["games"][listed]
            provisional = status[listed] == kernels.PROVISIONAL
            state = np.where(provisional, _PROVISIONAL, _ESTABLISHED).astype(np.int8)
        else:
            games_all = states["games"][:, p]
            listed = np.flatnonzero(
                ~states["is_bot"].astype(np.bool_) & ((games_all > 0) | self.imported[:, p])
            )
            qualifying = np.zeros(listed.shape[0], np.bool_)
            rating, games = states["rating"][listed, p], games_all[listed]
            state = np.full(listed.shape[0], _RATED, np.int8)
        order = np.lexsort((self._name_rank()[listed], -games, -rating, qualifying))
        return PoolList(
            pool=pool,
            player=listed[order],
            rating=rating[order].astype(np.int64),
            has_rating=~qualifying[order],
            games=games[order].astype(np.int64),
            state=state[order],
        )

    def _mark(self, state: int, games: int) -> str:
        """What the reference display puts after the displayed rating for this state
        (``site_mark``: S6's ``?``; ``corr_mark``: C7's ``P (n)``; arena: nothing)."""
        if self.system_id == "site":
            return site_mark(games, self.system.rules)  # type: ignore[attr-defined]
        if self.system_id == "corr":
            status = CorrStatus.PROVISIONAL if state == _PROVISIONAL else CorrStatus.ESTABLISHED
            return corr_mark(status, games)
        return ""

    def displays(self, arrays: PoolList) -> npt.NDArray[np.object_]:
        """Each entry's display text, as the system's display function writes it: the
        rating rounded by :func:`chessrate.numbers.display_hundredths` (the array form
        of ``numbers.display``), then the system's mark (``site_mark``, ``corr_mark``)
        decided once per distinct (state, games); arena's qualifying players show
        ``display_arena``'s training rating."""
        shown, inverse = np.unique(display_hundredths(arrays.rating), return_inverse=True)
        numbers = np.array([str(value) for value in shown.tolist()], object)
        # (int8, int64, int64, int64): the signature the time controls use, one compilation
        codes, first = kernels.factorize(arrays.state, arrays.games, arrays.games, arrays.games)
        marks = np.array(
            [self._mark(int(arrays.state[r]), int(arrays.games[r])) for r in first.tolist()],
            object,
        )
        texts: npt.NDArray[np.object_] = numbers[inverse.reshape(-1)] + marks[codes]
        if not bool(arrays.has_rating.all()):
            rules: Any = self.system.rules  # type: ignore[attr-defined]
            texts[~arrays.has_rating] = display_arena(ArenaState(ArenaStatus.QUALIFYING), rules)
        return texts

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
            state=_STATE_NAMES[arrays.state].tolist(),
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
                _STATE_NAMES[arrays.state].tolist(),
                arrays.games.tolist(),
            )
        )

    def _names_array(self) -> npt.NDArray[np.object_]:
        if self._names is None:
            self._names = np.array(self.names, object)
        return self._names


_RATED, _QUALIFYING, _PROVISIONAL, _ESTABLISHED = range(4)
STATE_NAMES = (
    ArenaStatus.RATED.value,
    ArenaStatus.QUALIFYING.value,
    CorrStatus.PROVISIONAL.value,
    CorrStatus.ESTABLISHED.value,
)
"""``PoolList.state`` codes: the list entry's state."""
_STATE_NAMES = np.array(STATE_NAMES, object)


@dataclass(frozen=True, slots=True)
class PoolList:
    """One pool's rating list as arrays, in list order: ``player`` indexes
    ``CompiledReplay.names``; ``rating`` in hundredths (0 where ``has_rating`` is
    false: arena's qualifying players); ``state`` indexes :data:`STATE_NAMES`."""

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
    """Replay ``batch`` through a system's rules (arena, corr or site; an id for the
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
    reasons = on_rows is not None
    if system_id == "arena":
        decided = _decide_arena(batch, attributes.until, reasons)
    elif system_id == "corr":
        decided = _decide_corr(batch, reasons)
    else:
        assert isinstance(roster.system, SiteSystem)
        decided = _decide_site(batch, attributes.bot, roster.system, reasons)
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
                    errors.append(
                        record.refuse(
                            "id",
                            f"game id {record.id!r} was already used for a different game "
                            f"(at {earlier.where})",
                        )
                    )
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
        result._position = position
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

_WIDTH = {"arena": 2, "corr": 2, "site": 4}
"""The most changes one game makes (site: type rating and site Elo of two humans)."""


_ARENA_STATUS = {status: code for code, status in params.ARENA_STATUSES.items()}
_CORR_STATUS = {status: code for code, status in params.CORR_STATUSES.items()}
"""The reference's statuses as the kernels' codes (a ledger's ratings to continue
from)."""


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
        rules: Any = result.system.rules  # type: ignore[attr-defined]
        system_id = result.system_id
        if system_id == "arena":
            self._arena_states(players, rules)
        elif system_id == "corr":
            self._corr_states(players, rules)
        else:
            self._site_states(players, rules)

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
        ``on_rows`` (the decided reasons are needed: ``_decide_*(..., reasons=True)``)."""
        result = self.result
        decided = result.decided
        assert decided is not None and decided.reason is not None
        system_id = result.system_id
        codes = {"arena": params.arena_codes, "corr": params.corr_codes}.get(
            system_id, params.site_codes
        )(result.system)
        self.writer = RowWriter(
            on_rows, result.kept, result.action, _OUTCOME_OF_ACTION, RATED, decided.reason,
            system_id != "site", _WIDTH[system_id], codes,
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

    def _arena_states(self, players: Attributes, rules: ArenaRules) -> None:
        status = np.where(players.imported, kernels.RATED, kernels.UNRATED).astype(np.int64)
        rating = np.where(players.imported, players.rating, 0)
        games = np.where(players.imported, players.games, 0)
        q_count, q_sum, q_halves = (np.zeros(status.shape, np.int64) for _ in range(3))
        for (i, p), state in self._started():  # A5's states, as ArenaState holds them
            status[i, p] = _ARENA_STATUS[state.status]
            rating[i, p] = 0 if state.rating is None else to_hundredths(state.rating)
            games[i, p] = state.games
            q_count[i, p] = len(state.qualifying)
            q_sum[i, p] = sum(to_hundredths(r) for r, _ in state.qualifying)
            q_halves[i, p] = sum(int(score * 2) for _, score in state.qualifying)
        self.result.states = {
            "status": status, "rating": rating, "games": games,
            "q_count": q_count, "q_sum": q_sum, "q_halves": q_halves,
        }  # fmt: skip
        self.params = params.arena_params(rules)
        self.pd_high, self.dp = table_b_pd_high(), table_a_dp()

    def _corr_states(self, players: Attributes, rules: CorrRules) -> None:
        imported = players.imported[:, 0]
        rating = np.where(imported, players.rating[:, 0], 0)
        games = np.where(imported, players.games[:, 0], 0)
        established = games >= rules.established_after  # C1, as CorrSystem.initial_state
        status = np.where(
            imported,
            np.where(established, kernels.ESTABLISHED, kernels.PROVISIONAL),
            kernels.UNRATED,
        ).astype(np.int64)
        total = np.where(imported & ~established, rating * games, 0)
        for (i, _p), state in self._started():  # C1's states, as CorrState holds them
            status[i] = _CORR_STATUS[state.status]
            rating[i] = 0 if state.rating is None else to_hundredths(state.rating)
            games[i] = state.games
            total[i] = to_hundredths(state.performances)
        self.result.states = {"status": status, "rating": rating, "games": games, "total": total}
        self.params = params.corr_params(rules)
        in_hundredths = self.params[params.C_FACTOR_DEN] == params.ONE_POINT
        self.in_hundredths = True if in_hundredths else None  # a flag by its type

    def _site_states(self, players: Attributes, rules: SiteRules) -> None:
        # one player's pools side by side, rating and games of a pool together: a game
        # reads and writes two pools of two players, a few cache lines
        state = np.empty((*players.imported.shape, 2), np.int64)
        rating, games = state[:, :, 0], state[:, :, 1]
        rating[...] = np.where(players.imported, players.rating, to_hundredths(rules.start))
        games[...] = np.where(players.imported, players.games, 0)
        for (i, p), started in self._started():  # S3's states, as SiteState holds them
            rating[i, p] = to_hundredths(started.rating)
            games[i, p] = started.games
        is_bot = players.bot.astype(np.int64)
        # S10's log: int32 when the largest change (up to the floor's lift from the
        # lowest rating there is) fits
        floor = to_hundredths(rules.floor)
        lowest = int(rating.min()) if rating.size else floor
        largest = params.largest_site_change(rules) + max(0, floor - lowest)
        small = largest < np.iinfo(np.int32).max
        rows = self.result.rated_rows.shape[0]
        log: npt.NDArray[np.int32] | I64 = (
            np.zeros((rows, 4), np.int32) if small else np.zeros((rows, 4), np.int64)
        )
        self.result.changes = log
        self.result.states = {
            "rating": rating, "games": games, "is_bot": is_bot, "bot_rating": players.bot_rating,
        }  # fmt: skip
        self.params = params.site_params(rules)
        shifts = self.params[params.S_SHIFT] >= 0
        self.by_shift = True if shifts else None  # a flag by its type
        self.expected = site_expected_table()
        self.is_bot = players.bot

    def _call(self, chunk: I64, start: int, rows: tuple[I64, I64, I64] | None) -> int:
        """The kernel on ``chunk`` (with ``rows``: writing them); the changes written."""
        result, states = self.result, self.result.states
        decided = result.decided
        assert decided is not None
        if result.system_id == "arena":
            count = kernels.arena_kernel(
                chunk, decided.pool, self.white, self.black, decided.white_halves,
                states["status"], states["rating"], states["games"], states["q_count"],
                states["q_sum"], states["q_halves"], self.pd_high, self.dp, self.params, rows,
            )  # fmt: skip
        elif result.system_id == "corr":
            count = kernels.corr_kernel(
                chunk, self.white, self.black, decided.white_halves, states["status"],
                states["rating"], states["games"], states["total"], self.params, self.in_hundredths,
                rows,
            )  # fmt: skip
        else:
            count = kernels.site_kernel(
                chunk, decided.pool, self.white, self.black, decided.white_halves,
                self.is_bot, states["bot_rating"], states["rating"], states["games"],
                self.expected, result.changes[start : start + chunk.shape[0]], self.params,
                self.by_shift, rows,
            )  # fmt: skip
        return int(count)


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
