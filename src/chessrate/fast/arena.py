"""``arena``'s compiled half: its decision on arrays, its kernel and its state arrays.

The reference is :mod:`chessrate.systems.arena` (A1-A11): the decision checks what
``ArenaSystem.rate`` checks, in its order; the kernel is A6-A10 on integer hundredths
with every number read from ``ArenaRules`` (:func:`arena_params`); the lists and
displays are ``list_entry``'s. The conformance suite runs both on the same games.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..numbers import to_hundredths
from ..records import MICROSECONDS_PER_DAY
from ..systems import arena
from ..systems.arena import (
    FOREIGN_TERMINATIONS,
    POOLS,
    ArenaRules,
    ArenaState,
    ArenaStatus,
    ArenaSystem,
    display_arena,
    pool_for_control,
)
from ..timecontrol import TimeControl
from .batch import NO_RESULT, T_FORFEIT, GameBatch
from .compiled import (
    I64,
    NO_POOL,
    REFUSED,
    VOID,
    Attributes,
    Decided,
    Decider,
    Listed,
    WithoutAnnulment,
    halves,
    is_in,
    per_control,
)
from .compiled import (
    RATED as RATED_GAME,
)
from .compiled import (
    UNRATED as UNRATED_GAME,
)
from .kernels import round_div, write_change
from .params import HALF_POINT, ONE_POINT, by_status
from .rows import NULL
from .tables import table_a_dp, table_b_pd_high

# the kernel's states of a player in a pool (A5)
UNRATED, QUALIFYING, RATED = 0, 1, 2
STATUSES: dict[int, ArenaStatus] = {
    UNRATED: ArenaStatus.UNRATED,
    QUALIFYING: ArenaStatus.QUALIFYING,
    RATED: ArenaStatus.RATED,
}
"""The kernel's status codes as the reference's statuses."""
_STATUS = {status: code for code, status in STATUSES.items()}

# ``params``: A6, A8, A10
A_FLOOR, A_K_NEW, A_NEW_GAMES, A_QUALIFYING, A_BONUS, A_K_POOL = range(6)

# the codes an emitting kernel writes: the rules A6, A7, A10; ``EA_STATE + status``; the
# reasons neither rated, both rated, ``EA_QUALIFIES + side`` and ``EA_LOSS_IGNORED +
# side`` (side 0 White, 1 Black)
EA_A6, EA_A7, EA_A10, EA_STATE, EA_NEITHER, EA_BOTH, EA_QUALIFIES, EA_LOSS_IGNORED = (
    0, 1, 2, 3, 6, 7, 8, 10)  # fmt: skip


def arena_params(rules: ArenaRules) -> I64:
    """``ArenaRules`` for :func:`arena_kernel`."""
    values = [
        to_hundredths(rules.floor),
        rules.k_new_player,
        rules.new_player_games,
        rules.qualifying_games,
        to_hundredths(rules.bonus_per_half_point),
        *(rules.k[pool] for pool in POOLS),
    ]
    return np.array(values, np.int64)


def arena_codes(system: ArenaSystem) -> I64:
    """The codes :func:`arena_kernel` writes into emitted rows."""
    rules = system.rules_cited
    states = by_status(system.states, dict(STATUSES))
    values = [
        rules.index("arena A6"), rules.index("arena A7"), rules.index("arena A10"), *states,
        arena.R_NEITHER, arena.R_BOTH, arena.R_WHITE_QUALIFIES, arena.R_BLACK_QUALIFIES,
        arena.R_WHITE_LOSS_IGNORED, arena.R_BLACK_LOSS_IGNORED,
    ]  # fmt: skip
    return np.array(values, np.int64)


def _pool(control: TimeControl | None) -> int:
    pool = None if control is None else pool_for_control(control)
    return NO_POOL if pool is None else POOLS.index(pool)


def decide_arena(batch: GameBatch, member_until: I64, reasons: bool = False) -> Decided:
    """arena.rate's checks, in its order (A2, A3, A4)."""
    decide = Decider(len(batch), reasons)
    pool = per_control(batch, _pool)  # A2, by arena.pool_for_control
    day = batch.played_at // MICROSECONDS_PER_DAY
    decide(~batch.rated, UNRATED_GAME, arena.R_CASUAL)
    decide(pool == NO_POOL, REFUSED)
    decide(member_until[batch.white] < day, REFUSED)
    decide(member_until[batch.black] < day, REFUSED)
    decide(batch.termination == T_FORFEIT, VOID, arena.R_FORFEIT)
    decide(is_in(batch.termination, FOREIGN_TERMINATIONS), REFUSED)
    decide(batch.result == NO_RESULT, VOID, arena.R_NO_RESULT)
    decide(True, RATED_GAME)  # its reason: the kernel's
    return Decided(decide.action, pool, halves(batch.result), decide.reason)


class ArenaKernel(WithoutAnnulment):
    """A replay's arena states: status, rating and games per (player, pool), and the
    qualifying games folded (count, sum of the opponents' ratings, points in halves)."""

    def __init__(
        self, system: ArenaSystem, players: Attributes, started: list[tuple[tuple[int, int], Any]]
    ) -> None:
        self.system = system
        imported = players.imported
        status = np.where(imported, RATED, UNRATED).astype(np.int64)
        rating = np.where(imported, players.rating, 0)
        games = np.where(imported, players.games, 0)
        q_count, q_sum, q_halves = (np.zeros(status.shape, np.int64) for _ in range(3))
        for (i, p), state in started:  # A5's states, as ArenaState holds them
            status[i, p] = _STATUS[state.status]
            rating[i, p] = 0 if state.rating is None else to_hundredths(state.rating)
            games[i, p] = state.games
            q_count[i, p] = len(state.qualifying)
            q_sum[i, p] = sum(to_hundredths(r) for r, _ in state.qualifying)
            q_halves[i, p] = sum(int(score * 2) for _, score in state.qualifying)
        self.states = {
            "status": status, "rating": rating, "games": games,
            "q_count": q_count, "q_sum": q_sum, "q_halves": q_halves,
        }  # fmt: skip
        self.params = arena_params(system.rules)
        self.pd_high, self.dp = table_b_pd_high(), table_a_dp()

    def run(
        self, chunk: I64, start: int, decided: Decided, white: I64, black: I64,
        rows: tuple[I64, I64, I64] | None,
    ) -> int:  # fmt: skip
        s = self.states
        return int(
            arena_kernel(
                chunk,
                decided.pool,
                white,
                black,
                decided.white_halves,
                s["status"],
                s["rating"],
                s["games"],
                s["q_count"],
                s["q_sum"],
                s["q_halves"],
                self.pd_high,
                self.dp,
                self.params,
                rows,
            )
        )

    def listed(self, pool: int, imported: Any) -> Listed:
        s = self.states
        status = s["status"][:, pool]
        rows = np.flatnonzero(status != UNRATED)
        qualifying = status[rows] == QUALIFYING
        states = self.system.states
        code = np.where(
            qualifying, states.index(ArenaStatus.QUALIFYING), states.index(ArenaStatus.RATED)
        )
        return Listed(
            rows,
            ~qualifying,
            np.where(qualifying, 0, s["rating"][rows, pool]),
            np.where(qualifying, s["q_count"][rows, pool], s["games"][rows, pool]),
            code.astype(np.int8),
        )

    def mark(self, state: int, games: int) -> str:
        return ""  # an arena display has no mark

    def no_rating_display(self) -> str:
        return display_arena(ArenaState(ArenaStatus.QUALIFYING), self.system.rules)


class ArenaCompiled:
    """``arena``'s compiled half (:class:`chessrate.fast.compiled.CompiledSystem`)."""

    width = 2
    kernel_reasons = True

    def decide(
        self, system: ArenaSystem, batch: GameBatch, players: Attributes, reasons: bool
    ) -> Decided:
        return decide_arena(batch, players.until, reasons)

    def start(
        self, system: ArenaSystem, players: Attributes,
        started: list[tuple[tuple[int, int], Any]], rated_games: int,
    ) -> ArenaKernel:  # fmt: skip
        return ArenaKernel(system, players, started)

    def codes(self, system: ArenaSystem) -> I64:
        return arena_codes(system)


COMPILED = ArenaCompiled()
"""The half the registry names."""


@njit(cache=True)
def arena_kernel(
    order: Any,
    pool: Any,
    white: Any,
    black: Any,
    white_halves: Any,
    status: Any,
    rating: Any,
    games: Any,
    q_count: Any,
    q_sum: Any,
    q_halves: Any,
    pd_high: Any,
    dp: Any,
    params: Any,
    rows: Any = None,
) -> int:
    """arena A6-A10 for every game of ``order`` (all of them rated, with a result); the
    number of changes written to ``rows`` (0 without).

    ``pd_high[D]`` is Table B's PD of the higher rated (hundredths) for a whole D, its
    last entry standing for every larger D; ``dp[p]`` is Table A for p in hundredths;
    ``params`` the ``ArenaRules`` (:func:`arena_params`)."""
    floor = params[A_FLOOR]
    last = pd_high.shape[0] - 1
    c = 0
    for t in range(order.shape[0]):
        g = order[t]
        p = pool[g]
        a = white[g]
        b = black[g]
        sa = white_halves[g]
        sb = 2 - sa
        a_rated = status[a, p] == RATED
        b_rated = status[b, p] == RATED
        if a_rated and b_rated:  # A7
            ra = rating[a, p]
            rb = rating[b, p]
            d = ra - rb if ra >= rb else rb - ra
            high = pd_high[min(round_div(d, ONE_POINT), last)]  # Table B reads a whole D
            pda = high if ra >= rb else ONE_POINT - high
            pdb = high if rb >= ra else ONE_POINT - high
            ka = _arena_k(games[a, p], p, params)  # A8
            kb = _arena_k(games[b, p], p, params)
            na = ra + (sa * HALF_POINT - pda) * ka
            nb = rb + (sb * HALF_POINT - pdb) * kb
            if rows is not None:
                out, reason, codes = rows
                reason[t] = codes[EA_BOTH]
                c = _arena_row(out, c, t, 0, a, b, p, sa, ra, na, games[a, p], rb, ka, d, pda,
                               floor, codes)  # fmt: skip
                c = _arena_row(out, c, t, 1, b, a, p, sb, rb, nb, games[b, p], ra, kb, d, pdb,
                               floor, codes)  # fmt: skip
            for x, nx in ((a, na), (b, nb)):
                if nx < floor:  # A10: the rating is lost in this pool
                    status[x, p] = UNRATED
                    rating[x, p] = 0
                    games[x, p] = 0
                else:
                    rating[x, p] = nx
                    games[x, p] += 1
        elif a_rated or b_rated:  # A6 for the other player, A9 for the rated one
            x = b if a_rated else a
            s = sb if a_rated else sa
            opponent = rating[a, p] if a_rated else rating[b, p]
            if status[x, p] == UNRATED and s < 1:
                if rows is not None:  # a loss before the count starts is ignored
                    out, reason, codes = rows
                    reason[t] = codes[EA_LOSS_IGNORED + (1 if a_rated else 0)]
                continue
            status_before = status[x, p]
            count_before = q_count[x, p]
            q_count[x, p] += 1
            q_sum[x, p] += opponent
            q_halves[x, p] += s
            n = q_count[x, p]
            if n < params[A_QUALIFYING]:
                status[x, p] = QUALIFYING
                if rows is not None:
                    out, reason, codes = rows
                    reason[t] = codes[EA_QUALIFIES + (1 if a_rated else 0)]
                    c = write_change(
                        out, c, t, 0, x, p, codes[EA_A6], a if a_rated else b, s, NULL, NULL,
                        codes[EA_STATE + status_before], codes[EA_STATE + QUALIFYING],
                        count_before, n, opponent, NULL, NULL, NULL, NULL, NULL,
                    )  # fmt: skip
                continue
            ra = round_div(q_sum[x, p], n)  # Ra, the opponents' mean
            halves = q_halves[x, p]
            if halves == n:  # 50 %
                rf = ra
            elif halves > n:  # a bonus per half point over 50 %
                rf = ra + (halves - n) * params[A_BONUS]
            else:  # Table A on p = s/n, read in hundredths
                rf = ra + dp[round_div(HALF_POINT * halves, n)] * ONE_POINT
            q_count[x, p] = 0
            q_sum[x, p] = 0
            q_halves[x, p] = 0
            if rf < floor:
                status[x, p] = UNRATED
                rating[x, p] = 0
                games[x, p] = 0
            else:
                status[x, p] = RATED
                rating[x, p] = rf
                games[x, p] = n
            if rows is not None:  # A6's basis: Ra; its code: the points in half points
                out, reason, codes = rows
                reason[t] = codes[EA_QUALIFIES + (1 if a_rated else 0)]
                c = write_change(
                    out, c, t, 0, x, p, codes[EA_A6], a if a_rated else b, s, NULL, rf,
                    codes[EA_STATE + status_before], codes[EA_STATE + status[x, p]],
                    count_before, games[x, p], opponent, NULL, NULL, NULL, ra, halves,
                )  # fmt: skip
        elif rows is not None:  # neither is rated: the game counts for neither (A6)
            out, reason, codes = rows
            reason[t] = codes[EA_NEITHER]
    return c


@njit(cache=True, inline="always")
def _arena_row(
    out: Any, c: int, t: int, slot: int, own: int, other: int, p: int, halves: int,
    before: int, after: int, games: int, other_rating: int, k: int, d: int, pd: int,
    floor: int, codes: Any,
) -> int:  # fmt: skip
    """A7's change of one player (A10 when ``after`` is below the floor)."""
    lost = after < floor
    return write_change(
        out, c, t, slot, own, p, codes[EA_A10] if lost else codes[EA_A7], other, halves,
        before, after, codes[EA_STATE + RATED], codes[EA_STATE + (UNRATED if lost else RATED)],
        games, 0 if lost else games + 1, other_rating, k, d, pd, NULL, NULL,
    )  # fmt: skip


@njit(cache=True)
def _arena_k(games: int, pool: int, params: Any) -> int:
    """arena A8: the new player's K until his games reach the threshold, else the
    pool's."""
    if games < params[A_NEW_GAMES]:
        return int(params[A_K_NEW])
    return int(params[A_K_POOL + pool])
