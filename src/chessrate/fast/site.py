"""``site``'s compiled half: its decision on arrays, its kernel and its state arrays.

The reference is :mod:`chessrate.systems.site` (S1-S10): the decision checks what
``SiteSystem.rate`` checks, in its order, with the system's own ``control_type`` for
S2; the kernel is S3-S5 on integer hundredths (the type rating and the weighted site
Elo) with every number read from ``SiteRules`` (:func:`site_params`), and it logs each
game's changes so that an S10 annulment can reverse them through the reference's
``annul``. The conformance suite runs both on the same games.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, Decimal
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from ..numbers import from_hundredths, to_hundredths
from ..records import Outcome
from ..systems import site
from ..systems.base import Change, GameRating
from ..systems.site import (
    BOT_NEVER_LOSES_BY,
    ENDINGS_WITH_A_LOSER,
    POOLS,
    GameType,
    SiteRules,
    SiteState,
    SiteSystem,
    site_mark,
)
from ..timecontrol import TimeControl
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
    WHITE_WINS,
    GameBatch,
)
from .compiled import (
    I64,
    RATED,
    REFUSED,
    UNDECIDED,
    UNRATED,
    VOID,
    Attributes,
    B,
    Decided,
    Decider,
    Listed,
    halves,
    is_in,
    per_control,
)
from .kernels import round_div, round_shift, write_change
from .params import HALF_POINT, ONE_POINT, fraction
from .rows import NULL
from .tables import site_expected_table

# ``params``: S3, S4, S5; every pool's weight is ``params[S_WEIGHTS + pool]`` over one
# common denominator ``params[S_DENOMINATOR]``, which is ``1 << params[S_SHIFT]`` when it
# is a power of two (S_SHIFT -1 otherwise): the kernel then rounds with shifts, not a
# division
S_START, S_K_NEW, S_K, S_K_GAMES, S_FLOOR, S_DENOMINATOR, S_SHIFT, S_WEIGHTS = range(8)

# the codes an emitting kernel writes: the rules S3, S5; the state "rated"; ``ES_KIND +
# pool``: the game type (its position in GameType) of a type's pool, a site Elo change's
# ``code``
ES_S3, ES_S5, ES_RATED, ES_KIND = 0, 1, 2, 3

# S2: each game type's column among the pools (0 is the site Elo)
_KINDS = tuple(GameType)
_KIND_POOL = np.array([POOLS.index(kind.value) for kind in _KINDS], np.int64)

NO_CONTROL, TOO_SLOW = -1, -2
"""``control_kind`` codes of a game that cannot be typed by its control."""


def site_params(rules: SiteRules) -> I64:
    """``SiteRules`` for :func:`site_kernel`. A type's pool carries its S2 weight in the
    site Elo; the site Elo's own slot holds 1 (the weight of a type rating)."""
    weights = []
    for pool in POOLS:
        kind = next((kind for kind in GameType if kind.value == pool), None)
        weights.append(fraction(rules.weights[kind] if kind is not None else Decimal(1)))
    denominator = math.lcm(*(d for _, d in weights))
    is_power = denominator & (denominator - 1) == 0
    values = [
        to_hundredths(rules.start),
        rules.k_new,
        rules.k,
        rules.k_new_games,
        to_hundredths(rules.floor),
        denominator,
        denominator.bit_length() - 1 if is_power else -1,
        *(n * (denominator // d) for n, d in weights),
    ]
    return np.array(values, np.int64)


def largest_site_change(rules: SiteRules) -> int:
    """The largest |change| in hundredths a site game can make before the floor:
    K x w x (score - expected) with |score - expected| <= 1."""
    weight = max(max(rules.weights.values(), default=Decimal(1)), Decimal(1))
    bound = max(rules.k_new, rules.k) * weight * 100
    return int(bound.to_integral_value(rounding=ROUND_CEILING))


def site_codes(system: SiteSystem) -> I64:
    """The codes :func:`site_kernel` writes into emitted rows."""
    rules = system.rules_cited
    kinds = tuple(GameType)
    by_pool = [
        next((kinds.index(kind) for kind in kinds if kind.value == pool), -1)
        for pool in system.pools
    ]
    values = [rules.index("site S3"), rules.index("site S5"), system.states.index("rated")]
    return np.array([*values, *by_pool], np.int64)


def decide_site(batch: GameBatch, is_bot: B, system: SiteSystem, reasons: bool = False) -> Decided:
    """site.rate's checks, in its order (S1, S2, S7, S8, S9), with ``system``'s rules;
    a rated game's reason is its type's (``R_RATED`` + the type's position)."""
    rules = system.rules
    n = len(batch)
    decide = Decider(n, reasons)
    white_bot, black_bot = is_bot[batch.white], is_bot[batch.black]
    any_bot = white_bot | black_bot
    otb = batch.venue == OTB

    def control_kind(control: TimeControl | None) -> int:  # S2, by SiteSystem.control_type
        if control is None:
            return NO_CONTROL
        kind = system.control_type(control)
        return TOO_SLOW if kind is None else _KINDS.index(kind)

    by_control = per_control(batch, control_kind)
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
    decide(is_in(termination, BOT_NEVER_LOSES_BY) & bot_lost, REFUSED)
    expired = termination == T_EXPIRED
    decide(expired & ((batch.tc_kind == TC_NONE) | (batch.tc_kind == TC_CLOCKED)), REFUSED)
    decide(expired & ((result == DRAW) | (result == NO_RESULT)), REFUSED)
    white_to_move = plies % 2 == 0
    decide(expired & has_plies & (white_to_move != (result == BLACK_WINS)), REFUSED)
    decide((result == NO_RESULT) & is_in(termination, ENDINGS_WITH_A_LOSER), REFUSED)
    decide(result == NO_RESULT, VOID, site.R_NO_RESULT)
    decide(True, RATED, rated_reason)
    kind = np.maximum(kind, 0)  # a refused game's kind is never read
    return Decided(decide.action, _KIND_POOL[kind], halves(result), decide.reason)


class SiteKernel:
    """A replay's site states: rating and games per (player, pool), side by side (a game
    reads and writes two pools of two players, a few cache lines), the bots and their
    fixed ratings, and the log of every rated game's four changes (for S10)."""

    def __init__(
        self, system: SiteSystem, players: Attributes,
        started: list[tuple[tuple[int, int], Any]], rated_games: int,
    ) -> None:  # fmt: skip
        self.system = system
        rules = system.rules
        state = np.empty((*players.imported.shape, 2), np.int64)
        rating, games = state[:, :, 0], state[:, :, 1]
        rating[...] = np.where(players.imported, players.rating, to_hundredths(rules.start))
        games[...] = np.where(players.imported, players.games, 0)
        for (i, p), begun in started:  # S3's states, as SiteState holds them
            rating[i, p] = to_hundredths(begun.rating)
            games[i, p] = begun.games
        # S10's log: int32 when the largest change (up to the floor's lift from the
        # lowest rating there is) fits
        floor = to_hundredths(rules.floor)
        lowest = int(rating.min()) if rating.size else floor
        largest = largest_site_change(rules) + max(0, floor - lowest)
        small = largest < np.iinfo(np.int32).max
        self.changes: npt.NDArray[np.int32] | I64 = (
            np.zeros((rated_games, 4), np.int32) if small else np.zeros((rated_games, 4), np.int64)
        )
        self.states = {
            "rating": rating, "games": games, "is_bot": players.bot.astype(np.int64),
            "bot_rating": players.bot_rating,
        }  # fmt: skip
        self.params = site_params(rules)
        self.by_shift = True if self.params[S_SHIFT] >= 0 else None  # a flag by its type
        self.expected = site_expected_table()
        self.is_bot = players.bot

    def run(
        self, chunk: I64, start: int, decided: Decided, white: I64, black: I64,
        rows: tuple[I64, I64, I64] | None,
    ) -> int:  # fmt: skip
        s = self.states
        return int(
            site_kernel(
                chunk,
                decided.pool,
                white,
                black,
                decided.white_halves,
                self.is_bot,
                s["bot_rating"],
                s["rating"],
                s["games"],
                self.expected,
                self.changes[start : start + chunk.shape[0]],
                self.params,
                self.by_shift,
                rows,
            )
        )

    def listed(self, pool: int, imported: Any) -> Listed:
        s = self.states
        games = s["games"][:, pool]
        rows = np.flatnonzero(~s["is_bot"].astype(np.bool_) & ((games > 0) | imported[:, pool]))
        return Listed(
            rows, np.ones(rows.shape[0], np.bool_), s["rating"][rows, pool], games[rows],
            np.full(rows.shape[0], self.system.states.index("rated"), np.int8),
        )  # fmt: skip

    def mark(self, state: int, games: int) -> str:
        return site_mark(games, self.system.rules)

    def no_rating_display(self) -> str:
        raise AssertionError("every listed site row has a rating")

    def rated_game(self, replay: Any, row: int) -> GameRating[Any]:
        """The type rating and the site Elo change of each human, in the reference's
        order, from the log."""
        record = replay.batch.record(row)
        decided = replay.decided
        t = int(replay.rated_order_of_row[row])
        white, black = int(replay.batch.white[row]), int(replay.batch.black[row])
        score = int(decided.white_halves[row])
        is_bot = self.states["is_bot"]
        changes = []
        for slot in range(4):
            own, other = (white, black) if slot % 2 == 0 else (black, white)
            if is_bot[own]:
                continue  # a bot's rating does not move
            pool = int(decided.pool[row]) if slot < 2 else 0
            changes.append(
                Change(
                    game_id=record.id,
                    player=replay.names[own],
                    pool=POOLS[pool],
                    rule="site S3",
                    opponent=replay.names[other],
                    score=Decimal(score if own == white else 2 - score) / 2,
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

    def state(self, player: int, pool: int) -> SiteState:
        s = self.states
        return SiteState(
            from_hundredths(int(s["rating"][player, pool])), int(s["games"][player, pool])
        )

    def set_state(self, player: int, pool: int, state: Any) -> None:
        assert isinstance(state, SiteState)
        self.states["rating"][player, pool] = to_hundredths(state.rating)
        self.states["games"][player, pool] = state.games


class SiteCompiled:
    """``site``'s compiled half (:class:`chessrate.fast.compiled.CompiledSystem`)."""

    width = 4
    """The type rating and the site Elo of two humans."""
    kernel_reasons = False

    def decide(
        self, system: SiteSystem, batch: GameBatch, players: Attributes, reasons: bool
    ) -> Decided:
        return decide_site(batch, players.bot, system, reasons)

    def start(
        self, system: SiteSystem, players: Attributes,
        started: list[tuple[tuple[int, int], Any]], rated_games: int,
    ) -> SiteKernel:  # fmt: skip
        return SiteKernel(system, players, started, rated_games)

    def codes(self, system: SiteSystem) -> I64:
        return site_codes(system)


COMPILED = SiteCompiled()
"""The half the registry names."""


@njit(cache=True)
def weighted(scaled: int, params: Any, by_shift: Any) -> int:
    """A site change over the weights' common denominator: :func:`round_shift` when
    ``by_shift`` is True (the denominator is ``1 << params[S_SHIFT]``, the usual case:
    the weights are halves and quarters), :func:`round_div` by any denominator when it
    is None. A flag by its type: numba compiles (and caches) one kernel for each, with
    no test per game (a function passed as an argument would do it too, but numba's
    cache cannot find such a kernel again: it compiled in every process)."""
    if by_shift is None:
        return round_div(scaled, params[S_DENOMINATOR])
    return round_shift(scaled, params[S_SHIFT])


@njit(cache=True)
def _site_change(
    own: int,
    opponent: int,
    halves: int,
    games: int,
    pool: int,
    table: Any,
    params: Any,
    by_shift: Any,
) -> tuple[int, int, int, bool]:
    """site S3-S5: (the rating after the game, K, the expected score, whether the floor
    stopped it): K x w x (score - expected) rounded, never below the floor; w is
    ``pool``'s weight (1 for a type rating)."""
    d = own - opponent
    last = table.shape[0] - 1
    expected = table[min(d, last)] if d >= 0 else ONE_POINT - table[min(-d, last)]
    k = params[S_K_NEW] if games < params[S_K_GAMES] else params[S_K]
    scaled = k * params[S_WEIGHTS + pool] * (halves * HALF_POINT - expected)
    after = own + weighted(scaled, params, by_shift)
    floor = params[S_FLOOR]
    return int(max(after, floor)), int(k), int(expected), after < floor


@njit(cache=True)
def site_kernel(
    order: Any,
    kind_pool: Any,
    white: Any,
    black: Any,
    white_halves: Any,
    is_bot: Any,
    bot_rating: Any,
    rating: Any,
    games: Any,
    expected: Any,
    changes: Any,
    params: Any,
    by_shift: Any,
    rows: Any = None,
) -> int:
    """site S1-S7 for every game of ``order``: the type rating (w = 1) and the site
    Elo (pool 0, w = the type's weight). ``expected[d]`` is the higher rated side's
    expected score (hundredths) for a difference of d hundredths; ``params`` the
    ``SiteRules`` (:func:`site_params`); ``by_shift`` how the
    weights' denominator divides (:func:`weighted`). ``changes[t]`` gets
    the four changes (type white, type black, site white, site black; 0 for a bot,
    who has none) for S10. The number of changes written to ``rows`` (0 without; a
    game's reason is its type's, decided before the kernel)."""
    c = 0
    for t in range(order.shape[0]):
        g = order[t]
        a = white[g]
        b = black[g]
        sa = white_halves[g]
        slot = 0  # the change's place among the game's changes
        for step in range(2):
            p = kind_pool[g] if step == 0 else 0
            weight = 0 if step == 0 else kind_pool[g]  # the site Elo weighs by the type
            ra = bot_rating[a] if is_bot[a] else rating[a, p]
            rb = bot_rating[b] if is_bot[b] else rating[b, p]
            na, ka, ea, fa = ra, 0, 0, False
            nb, kb, eb, fb = rb, 0, 0, False
            if not is_bot[a]:
                na, ka, ea, fa = _site_change(
                    ra, rb, sa, games[a, p], weight, expected, params, by_shift
                )
            if not is_bot[b]:
                nb, kb, eb, fb = _site_change(
                    rb, ra, 2 - sa, games[b, p], weight, expected, params, by_shift
                )
            if rows is not None:
                out, _, codes = rows
                code = NULL if step == 0 else codes[ES_KIND + kind_pool[g]]
                if not is_bot[a]:
                    c = _site_row(out, c, t, slot, a, b, p, sa, ra, na, games[a, p], rb, ka, ea,
                                  fa, code, codes)  # fmt: skip
                    slot += 1
                if not is_bot[b]:
                    c = _site_row(out, c, t, slot, b, a, p, 2 - sa, rb, nb, games[b, p], ra, kb,
                                  eb, fb, code, codes)  # fmt: skip
                    slot += 1
            if is_bot[a]:
                changes[t, 2 * step] = 0
            else:
                changes[t, 2 * step] = na - ra
                rating[a, p] = na
                games[a, p] += 1
            if is_bot[b]:
                changes[t, 2 * step + 1] = 0
            else:
                changes[t, 2 * step + 1] = nb - rb
                rating[b, p] = nb
                games[b, p] += 1
    return c


@njit(cache=True, inline="always")
def _site_row(
    out: Any, c: int, t: int, slot: int, own: int, other: int, p: int, halves: int,
    before: int, after: int, games: int, other_rating: int, k: int, expected: int,
    floored: bool, code: int, codes: Any,
) -> int:  # fmt: skip
    """One human's site change (S5 when the floor stopped it)."""
    rated = codes[ES_RATED]
    return write_change(
        out, c, t, slot, own, p, codes[ES_S5] if floored else codes[ES_S3], other, halves,
        before, after, rated, rated, games, games + 1, other_rating, k, other_rating - before,
        expected, NULL, code,
    )  # fmt: skip
