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
4. the rated games run through the system's numba kernel on integer hundredths;
5. :class:`CompiledReplay` answers like the engine: rating lists, outcomes, S10
   annulments.
"""

from __future__ import annotations

import gc
import itertools
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import Annulment, Engine
from ..errors import InvalidRecord
from ..records import GameRecord, Outcome, Player
from ..systems import get_system
from ..systems.arena import OFFICIAL_CONTROLS
from ..systems.arena import POOLS as ARENA_POOLS
from ..systems.base import Change, ListEntry, RatingSystem
from ..systems.site import POOLS as SITE_POOLS
from ..systems.site import GameType
from . import kernels
from .batch import (
    BLACK_WINS,
    DRAW,
    MICROSECONDS_PER_DAY,
    NO_PLIES,
    NO_RESULT,
    OTB,
    T_ABANDON,
    T_BOT_NO_MOVE,
    T_DISCONNECT,
    T_EXPIRED,
    T_FORFEIT,
    T_RESIGN,
    T_TIMEOUT,
    TC_CLOCKED,
    TC_CORRESPONDENCE,
    TC_NONE,
    TC_UNCLOCKED,
    WHITE_WINS,
    GameBatch,
)
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

# site S2: the kind's column among the pools (0 is the site Elo) and its weight x 4
_KINDS = tuple(GameType)
_KIND_POOL = np.array([SITE_POOLS.index(kind.value) for kind in _KINDS], np.int64)
_KIND_QUARTERS = {
    GameType.BOTS: 2,
    GameType.OTB: 3,
    GameType.CORRESPONDENCE: 2,
    GameType.UNCLOCKED: 3,
    GameType.BULLET: 2,
    GameType.BLITZ: 3,
    GameType.RAPID: 4,
    GameType.CLASSICAL: 4,
}
_QUARTERS = np.array([_KIND_QUARTERS[kind] for kind in _KINDS], np.int64)


def hundredths(value: Decimal) -> int:
    """A two-decimal rating as integer hundredths (exact)."""
    return int(value.scaleb(2))


def decimal(value: int) -> Decimal:
    """Integer hundredths as the two-decimal rating."""
    return Decimal(int(value)).scaleb(-2)


class Roster:
    """The players file, registered exactly as :class:`Engine` registers it (same
    order, same checks, same errors), and the attribute lookup the rules use."""

    def __init__(self, system_id: str, players: Iterable[Player] = ()) -> None:
        if system_id not in SYSTEMS:
            raise ValueError(f"no compiled replay for {system_id!r} (known: {', '.join(SYSTEMS)})")
        self.system_id = system_id
        self.engine: Engine[Any] = Engine(get_system(system_id), players)
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
                bot_rating[i] = hundredths(player.bot_rating)
            for pool, entry in player.imported.items():
                p = pools.index(pool)
                imported[i, p] = True
                rating[i, p] = hundredths(entry.rating)
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
    """Outcome per game (input order) and what the kernels need."""

    action: npt.NDArray[np.int8]
    pool: I64
    white_halves: I64
    quarters: I64 = field(default_factory=lambda: np.zeros(0, np.int64))


class _Decider:
    """Outcome codes set condition by condition in the reference's order: the first
    condition that holds for a game decides it."""

    def __init__(self, n: int) -> None:
        self.action = np.full(n, UNDECIDED, np.int8)

    def __call__(self, condition: npt.NDArray[np.bool_] | bool, code: int) -> None:
        open_ = self.action == UNDECIDED
        self.action[open_ & condition] = code


def _halves(result: npt.NDArray[np.int8]) -> I64:
    """White's score in half points (0 for no result: such games are not rated)."""
    return np.select([result == WHITE_WINS, result == DRAW], [2, 1], 0).astype(np.int64)


def _decide_arena(batch: GameBatch, member_until: I64) -> _Decided:
    """arena.rate's checks, in its order (A2, A3, A4)."""
    decide = _Decider(len(batch))
    minutes = np.where(batch.tc_base % 60 == 0, batch.tc_base // 60, -1)
    pool = np.full(len(batch), -1, np.int64)
    clocked = batch.tc_kind == TC_CLOCKED
    for (base, increment), name in OFFICIAL_CONTROLS.items():
        hit = clocked & (minutes == base) & (batch.tc_increment == increment)
        pool[hit] = ARENA_POOLS.index(name)
    day = batch.played_at // MICROSECONDS_PER_DAY
    decide(~batch.rated, UNRATED)
    decide(pool < 0, REFUSED)
    decide(member_until[batch.white] < day, REFUSED)
    decide(member_until[batch.black] < day, REFUSED)
    decide(batch.termination == T_FORFEIT, VOID)
    decide((batch.termination == T_BOT_NO_MOVE) | (batch.termination == T_EXPIRED), REFUSED)
    decide(batch.result == NO_RESULT, VOID)
    decide(True, RATED)
    return _Decided(decide.action, pool, _halves(batch.result))


def _decide_corr(batch: GameBatch) -> _Decided:
    """corr.rate's checks, in its order."""
    decide = _Decider(len(batch))
    decide(~batch.rated, UNRATED)
    decide(batch.termination == T_FORFEIT, VOID)
    decide(batch.termination == T_BOT_NO_MOVE, REFUSED)
    decide(batch.result == NO_RESULT, VOID)
    decide(True, RATED)
    return _Decided(decide.action, np.zeros(len(batch), np.int64), _halves(batch.result))


def _decide_site(batch: GameBatch, is_bot: npt.NDArray[np.bool_]) -> _Decided:
    """site.rate's checks, in its order (S1, S2, S7, S8, S9)."""
    n = len(batch)
    decide = _Decider(n)
    white_bot, black_bot = is_bot[batch.white], is_bot[batch.black]
    any_bot = white_bot | black_bot
    otb = batch.venue == OTB
    kind_of = {kind: index for index, kind in enumerate(_KINDS)}
    estimate = batch.tc_base + 40 * batch.tc_increment
    kind = np.select(
        [
            any_bot,
            otb,
            batch.tc_kind == TC_CORRESPONDENCE,
            batch.tc_kind == TC_UNCLOCKED,
            estimate < 180,
            estimate < 480,
            estimate < 1500,
        ],
        [kind_of[k] for k in _KINDS[:7]],
        kind_of[GameType.CLASSICAL],
    ).astype(np.int64)
    plies, result, termination = batch.plies, batch.result.copy(), batch.termination
    has_plies = plies != NO_PLIES
    decide(~batch.rated, UNRATED)
    free = ~any_bot & ~otb
    decide(free & (batch.tc_kind == TC_NONE), REFUSED)
    decide(free & (batch.tc_kind == TC_CORRESPONDENCE) & (batch.tc_days > 7), REFUSED)
    decide(white_bot & black_bot, UNRATED)
    decide((kind == kind_of[GameType.OTB]) & (batch.confirmed != 1), UNRATED)
    decide(termination == T_FORFEIT, VOID)
    decide(has_plies & (plies < 2), VOID)
    no_move = termination == T_BOT_NO_MOVE
    human_loses = np.where(black_bot, BLACK_WINS, WHITE_WINS).astype(np.int8)
    decide(no_move & ~any_bot, REFUSED)
    decide(no_move & ~has_plies, REFUSED)
    decide(no_move & (plies < 18), VOID)
    decide(no_move & (result != human_loses) & (result != NO_RESULT), REFUSED)
    counted = no_move & (decide.action == UNDECIDED)
    result[counted] = human_loses[counted]
    decide(no_move, RATED)
    bot_lost = (black_bot & (result == WHITE_WINS)) | (
        white_bot & ~black_bot & (result == BLACK_WINS)
    )
    bot_ending = (
        (termination == T_TIMEOUT) | (termination == T_ABANDON) | (termination == T_EXPIRED)
    )
    decide(bot_ending & bot_lost, REFUSED)
    expired = termination == T_EXPIRED
    decide(expired & ((batch.tc_kind == TC_NONE) | (batch.tc_kind == TC_CLOCKED)), REFUSED)
    decide(expired & ((result == DRAW) | (result == NO_RESULT)), REFUSED)
    white_to_move = plies % 2 == 0
    decide(expired & has_plies & (white_to_move != (result == BLACK_WINS)), REFUSED)
    with_loser = (
        (termination == T_RESIGN)
        | (termination == T_TIMEOUT)
        | (termination == T_ABANDON)
        | (termination == T_DISCONNECT)
    )
    decide((result == NO_RESULT) & with_loser, REFUSED)
    decide(result == NO_RESULT, VOID)
    decide(True, RATED)
    return _Decided(decide.action, _KIND_POOL[kind], _halves(result), _QUARTERS[kind])


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
        self._row_of_game: I64 | None = None
        self._game_codes: dict[str, int] | None = None
        self._rank: I64 | None = None
        self._names: npt.NDArray[np.object_] | None = None

    # -- like Engine ---------------------------------------------------------------

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

    def _row(self, game_id: str) -> int | None:
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
        return None if row < 0 else row

    def annul(self, game_id: str, reason: str, at: datetime, by: str | None = None) -> Annulment:
        """site S10, as :meth:`Engine.annul`: the same checks, errors and changes."""
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
        if self.system_id != "site":
            raise InvalidRecord(
                where,
                "id",
                f"the {self.system_id} regulation has no fair-play annulment (that is site S10)",
            )
        assert self.decided is not None
        t = int(self.rated_order_of_row[row])
        rating, games = self.states["rating"], self.states["games"]
        white, black = int(self.batch.white[row]), int(self.batch.black[row])
        halves = int(self.decided.white_halves[row])
        changes = []
        for slot in range(4):
            own, other = (white, black) if slot % 2 == 0 else (black, white)
            if self.states["is_bot"][own]:
                continue  # a bot's rating does not move
            original = int(self.changes[t, slot])
            pool = int(self.decided.pool[row]) if slot < 2 else 0
            before, games_before = int(rating[own, pool]), int(games[own, pool])
            after = max(10_000, before - original)
            rating[own, pool] = after
            games[own, pool] = max(0, games_before - 1)
            score = halves if own == white else 2 - halves
            changes.append(
                Change(
                    game_id=game_id,
                    player=self.names[own],
                    pool=SITE_POOLS[pool],
                    rule="site S10",
                    opponent=self.names[other],
                    score=Decimal(score) / 2,
                    before=decimal(before),
                    after=decimal(after),
                    state_before="rated",
                    state_after="rated",
                    games_before=games_before,
                    games_after=int(games[own, pool]),
                    change=decimal(after - before),
                    note=f"fair-play annulment: the game's {decimal(original):+} is reversed",
                )
            )
        annulment = Annulment(game_id, at, reason, by, tuple(changes))
        self.annulments[game_id] = annulment
        return annulment

    # -- rating lists ----------------------------------------------------------------

    def rating_arrays(self) -> dict[str, PoolList]:
        """Every pool's list as arrays, in list order (what :meth:`rating_lists` turns into
        ``ListEntry`` objects), in the system's pool order. Cheap: no Python object per
        player."""
        pools = self.roster.system.pools
        return {name: self._arrays(p, name) for p, name in enumerate(pools)}

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

    def entries(self, arrays: PoolList) -> list[ListEntry]:
        """``ListEntry`` objects for a pool's arrays (a Decimal and a display text per
        distinct rating, not per player; the columns are gathered by numpy)."""
        n = len(arrays)
        if n == 0:
            return []
        values, inverse = np.unique(arrays.rating, return_inverse=True)
        texts = np.array([str(v) for v in shown_array(values).tolist()] + [""], object)
        decimals = np.array([decimal(v) for v in values.tolist()] + [None], object)
        rated = arrays.has_rating
        inverse = np.where(rated, inverse.reshape(-1), values.shape[0])
        display = texts[inverse]
        if not rated.all():  # arena A5 Decision: a qualifying player shows the training rating
            training = self.roster.engine.system.rules.training_rating  # type: ignore[attr-defined]
            display[~rated] = str(training)
        if self.system_id == "site":
            few = np.flatnonzero(arrays.games < 10)
            display[few] = [f"{text}?" for text in display[few].tolist()]
        provisional = np.flatnonzero(arrays.state == _PROVISIONAL)
        if provisional.shape[0]:
            display[provisional] = [
                f"{text}P ({g})"
                for text, g in zip(
                    display[provisional].tolist(),
                    arrays.games[provisional].tolist(),
                    strict=True,
                )
            ]
        return list(
            map(
                ListEntry,
                self._names_array()[arrays.player].tolist(),
                itertools.repeat(arrays.pool, n),
                decimals[inverse].tolist(),
                display.tolist(),
                _STATE_NAMES[arrays.state].tolist(),
                arrays.games.tolist(),
            )
        )

    def _names_array(self) -> npt.NDArray[np.object_]:
        if self._names is None:
            self._names = np.array(self.names, object)
        return self._names


_RATED, _QUALIFYING, _PROVISIONAL, _ESTABLISHED = range(4)
STATE_NAMES = ("rated", "qualifying", "provisional", "established")
"""``PoolList.state`` codes: the list entry's state."""
_STATE_NAMES = np.array(STATE_NAMES, object)


def shown_array(values: I64) -> I64:
    """:func:`shown` for an array: hundredths to the displayed integer, half away
    from zero."""
    magnitude = (2 * np.abs(values) + 100) // 200
    return np.where(values < 0, -magnitude, magnitude).astype(np.int64)


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


def replay(
    system_id: str,
    batch: GameBatch,
    players: Iterable[Player] | Roster = (),
    *,
    annulments: Iterable[tuple[str, str]] = (),
    annulled_at: datetime | None = None,
    on_invalid: Callable[[InvalidRecord], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> CompiledReplay:
    """Replay ``batch`` through ``system_id``'s rules (arena, corr or site), as
    ``Engine(get_system(system_id), players).replay(records, on_invalid)`` does.

    A refused game raises its reference :class:`InvalidRecord` (the first in rating
    order) and nothing is kept, unless ``on_invalid`` is given: then every refused game
    is reported there, in rating order, and skipped. ``annulments`` are (game id,
    reason) pairs applied afterwards (site S10); their errors always raise.
    ``progress`` is told how many games were applied after each chunk."""
    roster = players if isinstance(players, Roster) else Roster(system_id, players)
    if roster.system_id != system_id:
        raise ValueError(f"the roster is for {roster.system_id}, not {system_id}")
    names = list(batch.player_ids)
    codes = {name: code for code, name in enumerate(names)}
    for player_id in roster.players:
        if player_id not in codes:
            codes[player_id] = len(names)
            names.append(player_id)
    result = CompiledReplay(roster, batch, names)
    attributes = roster.attributes(names)
    result.imported = attributes.imported

    # 2. outcomes
    if system_id == "arena":
        decided = _decide_arena(batch, attributes.until)
    elif system_id == "corr":
        decided = _decide_corr(batch)
    else:
        decided = _decide_site(batch, attributes.bot)
    result.decided = decided
    action = decided.action

    # 3. refusals and repeated ids, in rating order
    stamps = batch.played_at
    if bool((stamps[1:] >= stamps[:-1]).all()):  # already in rating order
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

    # 4. the kernels
    rated_rows = kept[action[kept] == RATED]
    result.rated_rows = rated_rows
    rated_order_of_row = np.full(len(batch), -1, np.int64)
    rated_order_of_row[rated_rows] = np.arange(rated_rows.shape[0])
    result.rated_order_of_row = rated_order_of_row
    _run_kernel(result, attributes, progress)
    if progress is not None and kept.shape[0] > rated_rows.shape[0]:
        progress(int(kept.shape[0] - rated_rows.shape[0]))

    if annulments:
        at = annulled_at if annulled_at is not None else datetime.now().astimezone()
        for game_id, reason in annulments:
            result.annul(game_id, reason, at)
    return result


def _run_kernel(
    result: CompiledReplay, attributes: Attributes, progress: Callable[[int], None] | None
) -> None:
    """The system's kernel over the rated games, from the players' initial states."""
    batch, decided, rows = result.batch, result.decided, result.rated_rows
    assert decided is not None
    white = batch.white.astype(np.int64)
    black = batch.black.astype(np.int64)
    system_id = result.roster.system_id
    if system_id == "arena":
        _arena(result, decided, white, black, attributes, rows, progress)
    elif system_id == "corr":
        _corr(result, decided, white, black, attributes, rows, progress)
    else:
        _site(result, decided, white, black, attributes, rows, progress)


def kernel_again(result: CompiledReplay) -> int:
    """Run ``result``'s kernel again over its rated games from fresh initial states (its
    states are replaced by equal ones); the number of rated games. For benchmarks: the
    kernel alone, without reading, classifying or ordering."""
    _run_kernel(result, result.roster.attributes(result.names), None)
    return int(result.rated_rows.shape[0])


def _refusal(roster: Roster, record: GameRecord) -> InvalidRecord:
    """The reference system's own refusal of ``record``."""
    try:
        roster.system.rate(record, roster.player, _no_states)
    except InvalidRecord as error:
        return error
    raise AssertionError(f"{record.where}: the compiled replay refused a game the reference rates")


def _chunks(rows: I64, progress: Callable[[int], None] | None) -> Iterable[tuple[int, I64]]:
    for start in range(0, rows.shape[0], CHUNK):
        chunk = rows[start : start + CHUNK]
        yield start, chunk
        if progress is not None:
            progress(int(chunk.shape[0]))


def _arena(
    result: CompiledReplay,
    decided: _Decided,
    white: I64,
    black: I64,
    players: Attributes,
    rows: I64,
    progress: Callable[[int], None] | None,
) -> None:
    system = result.roster.system
    pools = system.pools
    status = np.where(players.imported, kernels.RATED, kernels.UNRATED).astype(np.int64)
    rating = np.where(players.imported, players.rating, 0)
    games = np.where(players.imported, players.games, 0)
    q_count, q_sum, q_halves = (np.zeros(status.shape, np.int64) for _ in range(3))
    k_pool = np.array([system.rules.k[pool] for pool in pools], np.int64)  # type: ignore[attr-defined]
    pd_high, dp = table_b_pd_high(), table_a_dp()
    for _, chunk in _chunks(rows, progress):
        kernels.arena_kernel(
            chunk, decided.pool, white, black, decided.white_halves,
            status, rating, games, q_count, q_sum, q_halves, pd_high, dp, k_pool,
        )  # fmt: skip
    result.states = {
        "status": status, "rating": rating, "games": games,
        "q_count": q_count, "q_sum": q_sum, "q_halves": q_halves,
    }  # fmt: skip


def _corr(
    result: CompiledReplay,
    decided: _Decided,
    white: I64,
    black: I64,
    players: Attributes,
    rows: I64,
    progress: Callable[[int], None] | None,
) -> None:
    imported = players.imported[:, 0]
    rating = np.where(imported, players.rating[:, 0], 0)
    games = np.where(imported, players.games[:, 0], 0)
    established = games >= 25
    status = np.where(
        imported,
        np.where(established, kernels.ESTABLISHED, kernels.PROVISIONAL),
        kernels.UNRATED,
    ).astype(np.int64)
    total = np.where(imported & ~established, rating * games, 0)
    for _, chunk in _chunks(rows, progress):
        kernels.corr_kernel(chunk, white, black, decided.white_halves, status, rating, games, total)
    result.states = {"status": status, "rating": rating, "games": games, "total": total}


def _site(
    result: CompiledReplay,
    decided: _Decided,
    white: I64,
    black: I64,
    players: Attributes,
    rows: I64,
    progress: Callable[[int], None] | None,
) -> None:
    # one player's pools side by side, rating and games of a pool together: a game
    # reads and writes two pools of two players, a few cache lines
    state = np.empty((*players.imported.shape, 2), np.int64)
    rating, games = state[:, :, 0], state[:, :, 1]
    rating[...] = np.where(players.imported, players.rating, 150_000)
    games[...] = np.where(players.imported, players.games, 0)
    is_bot = players.bot.astype(np.int64)
    bot_rating = players.bot_rating
    # S10's log: a change is at most 32 x (score - expected) = 32.00, or the rise to
    # the floor of 100.00 from the lowest rating there is: int32 when that fits
    lowest = int(rating.min()) if rating.size else 0
    small = 3_200 + max(0, 10_000 - lowest) < np.iinfo(np.int32).max
    changes = np.zeros((rows.shape[0], 4), np.int32 if small else np.int64)
    expected = site_expected_table()
    for start, chunk in _chunks(rows, progress):
        kernels.site_kernel(
            chunk, decided.pool, decided.quarters, white, black, decided.white_halves,
            players.bot, bot_rating, rating, games, expected,
            changes[start : start + chunk.shape[0]],
        )  # fmt: skip
    result.changes = changes
    result.states = {
        "rating": rating, "games": games, "is_bot": is_bot, "bot_rating": bot_rating,
    }  # fmt: skip
