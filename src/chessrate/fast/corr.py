"""``corr``'s compiled half: its decision on arrays, its kernel and its state arrays.

The reference is :mod:`chessrate.systems.corr` (C1-C7): the decision checks what
``CorrSystem.rate`` checks, in its order; the kernel is C2-C6 on integer hundredths with
every number read from ``CorrRules`` (:func:`corr_params`); the lists and displays are
``list_entry``'s. The conformance suite runs both on the same games.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..numbers import to_hundredths
from ..systems import corr
from ..systems.corr import FOREIGN_TERMINATIONS, CorrRules, CorrStatus, CorrSystem, corr_mark
from .batch import NO_RESULT, T_FORFEIT, GameBatch
from .compiled import (
    I64,
    REFUSED,
    VOID,
    Attributes,
    Decided,
    Decider,
    Listed,
    WithoutAnnulment,
    halves,
    is_in,
)
from .compiled import (
    RATED as RATED_GAME,
)
from .compiled import (
    UNRATED as UNRATED_GAME,
)
from .kernels import round_div, write_change
from .params import ONE_POINT, by_status, fraction
from .rows import NULL

# the kernel's states (C1)
UNRATED, PROVISIONAL, ESTABLISHED = 0, 1, 2
STATUSES: dict[int, CorrStatus] = {
    UNRATED: CorrStatus.UNRATED,
    PROVISIONAL: CorrStatus.PROVISIONAL,
    ESTABLISHED: CorrStatus.ESTABLISHED,
}
"""The kernel's status codes as the reference's statuses."""
_STATUS = {status: code for code, status in STATUSES.items()}

# ``params``: C1, C3, C4, C5, C6
(C_ESTABLISHED, C_MARGIN, C_UNRATED, C_GAP, C_FACTOR_NUM, C_FACTOR_DEN, C_BONUS,
 C_CLAMP) = (0, 1, 2, 5, 6, 7, 8, 9)  # fmt: skip
"""``C_UNRATED + halves``: the performance against an unrated opponent (loss, draw,
win)."""

# the codes an emitting kernel writes: the rules C2, C5, C6; ``EC_STATE + status``; the
# reasons counted for someone or for neither (C4)
EC_C2, EC_C5, EC_C6, EC_STATE, EC_RATED, EC_NEITHER = 0, 1, 2, 3, 6, 7


def corr_params(rules: CorrRules) -> I64:
    """``CorrRules`` for :func:`corr_kernel`."""
    numerator, denominator = fraction(rules.factor)
    if ONE_POINT % denominator == 0:  # a factor with two decimals: in hundredths
        numerator, denominator = numerator * (ONE_POINT // denominator), ONE_POINT
    values = [
        rules.established_after,
        to_hundredths(rules.performance_margin),
        to_hundredths(rules.unrated_performance_loss),
        to_hundredths(rules.unrated_performance_draw),
        to_hundredths(rules.unrated_performance_win),
        to_hundredths(rules.provisional_gap),
        numerator,
        denominator,
        to_hundredths(rules.win_bonus),
        to_hundredths(rules.diff_clamp),
    ]
    return np.array(values, np.int64)


def corr_codes(system: CorrSystem) -> I64:
    """The codes :func:`corr_kernel` writes into emitted rows (a C5/C6 change's ``code``,
    the opponent's state, is his status's position too)."""
    rules = system.rules_cited
    states = by_status(system.states, dict(STATUSES))
    values = [
        rules.index("corr C2"), rules.index("corr C5"), rules.index("corr C6"), *states,
        corr.R_RATED, corr.R_NEITHER,
    ]  # fmt: skip
    return np.array(values, np.int64)


def decide_corr(batch: GameBatch, reasons: bool = False) -> Decided:
    """corr.rate's checks, in its order."""
    decide = Decider(len(batch), reasons)
    decide(~batch.rated, UNRATED_GAME, corr.R_CASUAL)
    decide(batch.termination == T_FORFEIT, VOID, corr.R_FORFEIT)
    decide(is_in(batch.termination, FOREIGN_TERMINATIONS), REFUSED)
    decide(batch.result == NO_RESULT, VOID, corr.R_NO_RESULT)
    decide(True, RATED_GAME)  # its reason: the kernel's
    pool = np.zeros(len(batch), np.int64)
    return Decided(decide.action, pool, halves(batch.result), decide.reason)


class CorrKernel(WithoutAnnulment):
    """A replay's corr states: status, rating, games and the sum of the performances
    (while provisional) per player."""

    def __init__(
        self, system: CorrSystem, players: Attributes, started: list[tuple[tuple[int, int], Any]]
    ) -> None:
        self.system = system
        rules = system.rules
        imported = players.imported[:, 0]
        rating = np.where(imported, players.rating[:, 0], 0)
        games = np.where(imported, players.games[:, 0], 0)
        established = games >= rules.established_after  # C1, as CorrSystem.initial_state
        status = np.where(
            imported, np.where(established, ESTABLISHED, PROVISIONAL), UNRATED
        ).astype(np.int64)
        total = np.where(imported & ~established, rating * games, 0)
        for (i, _p), state in started:  # C1's states, as CorrState holds them
            status[i] = _STATUS[state.status]
            rating[i] = 0 if state.rating is None else to_hundredths(state.rating)
            games[i] = state.games
            total[i] = to_hundredths(state.performances)
        self.states = {"status": status, "rating": rating, "games": games, "total": total}
        self.params = corr_params(rules)
        self.in_hundredths = True if self.params[C_FACTOR_DEN] == ONE_POINT else None

    def run(
        self, chunk: I64, start: int, decided: Decided, white: I64, black: I64,
        rows: tuple[I64, I64, I64] | None,
    ) -> int:  # fmt: skip
        s = self.states
        return int(
            corr_kernel(
                chunk,
                white,
                black,
                decided.white_halves,
                s["status"],
                s["rating"],
                s["games"],
                s["total"],
                self.params,
                self.in_hundredths,
                rows,
            )
        )

    def listed(self, pool: int, imported: Any) -> Listed:
        s = self.states
        status = s["status"]
        rows = np.flatnonzero(status != UNRATED)
        states = self.system.states
        provisional = status[rows] == PROVISIONAL
        code = np.where(
            provisional,
            states.index(CorrStatus.PROVISIONAL),
            states.index(CorrStatus.ESTABLISHED),
        )
        return Listed(
            rows, np.ones(rows.shape[0], np.bool_), s["rating"][rows], s["games"][rows],
            code.astype(np.int8),
        )  # fmt: skip

    def mark(self, state: int, games: int) -> str:
        return corr_mark(CorrStatus(self.system.states[state]), games)

    def no_rating_display(self) -> str:
        raise AssertionError("every listed corr row has a rating")


class CorrCompiled:
    """``corr``'s compiled half (:class:`chessrate.fast.compiled.CompiledSystem`)."""

    width = 2
    kernel_reasons = True

    def decide(
        self, system: CorrSystem, batch: GameBatch, players: Attributes, reasons: bool
    ) -> Decided:
        return decide_corr(batch, reasons)

    def start(
        self, system: CorrSystem, players: Attributes,
        started: list[tuple[tuple[int, int], Any]], rated_games: int,
    ) -> CorrKernel:  # fmt: skip
        return CorrKernel(system, players, started)

    def codes(self, system: CorrSystem) -> I64:
        return corr_codes(system)


COMPILED = CorrCompiled()
"""The half the registry names."""


@njit(cache=True, inline="always")
def _corr_one(
    own_status: int,
    own_rating: int,
    own_games: int,
    own_sum: int,
    other_status: int,
    other_rating: int,
    halves: int,
    rules: Any,
    in_hundredths: Any,
    params: Any,
) -> tuple[bool, int, int, int, int, int, int]:
    """corr C2-C6 for one player: (counted, status, rating, games, sum, rule, opponent's
    rating): the rule as its ``EC_*`` code, the opponent's rating as C5 read it (C2: his
    rating). ``rules`` holds CorrRules numbers as values (see :func:`corr_kernel`),
    ``in_hundredths`` C5's rounding (:func:`factored`). Inlined into the kernel."""
    established, margin, gap_limit, clamp, win_bonus = rules
    if own_status == ESTABLISHED:  # C5, C6
        # C5 Decision: an unrated opponent's rating is the performance he earns here
        unrated = other_status == UNRATED
        opponent = own_rating + margin * (1 - halves) if unrated else other_rating
        diff = max(-clamp, min(clamp, opponent - own_rating))
        change = factored(diff, win_bonus * (halves - 1), params, in_hundredths)
        rule = EC_C5
        if change < 0 and other_status != ESTABLISHED:
            change = 0
            rule = EC_C6
        return True, ESTABLISHED, own_rating + change, own_games + 1, 0, rule, opponent
    if own_status != UNRATED and other_status != UNRATED:
        gap = other_rating - own_rating
        if gap >= gap_limit or gap <= -gap_limit:  # C4: not counted at all
            return False, own_status, own_rating, own_games, own_sum, EC_C2, other_rating
    if other_status == UNRATED:  # C3
        performance = params[C_UNRATED + halves]
    else:
        performance = other_rating + margin * (halves - 1)
    total = own_sum + performance
    count = own_games + 1
    status = ESTABLISHED if count >= established else PROVISIONAL
    return True, status, round_div(total, count), count, total, EC_C2, other_rating


@njit(cache=True, inline="always")
def _corr_row(
    out: Any, c: int, t: int, slot: int, own: int, other: int, halves: int, own_status: int,
    own_rating: int, own_games: int, other_status: int, after: int, status: int,
    games: int, total: int, rule: int, opponent: int, codes: Any,
) -> int:  # fmt: skip
    """One player's corr change: C2 with the sum of the performances as its basis (no
    rating before or opponent's rating where one is unrated); C5/C6 with D and the
    opponent's state as its code."""
    before = NULL if own_status == UNRATED else own_rating
    if rule == EC_C2:
        rated_opponent = NULL if other_status == UNRATED else opponent
        d, basis, code = NULL, total, NULL
    else:
        rated_opponent = opponent
        d, basis, code = opponent - own_rating, NULL, codes[EC_STATE + other_status]
    return write_change(
        out, c, t, slot, own, 0, codes[rule], other, halves, before, after,
        codes[EC_STATE + own_status], codes[EC_STATE + status], own_games, games,
        rated_opponent, NULL, d, NULL, basis, code,
    )  # fmt: skip


@njit(cache=True)
def factored(diff: int, bonus: int, params: Any, in_hundredths: Any) -> int:
    """corr C5's factor x diff + bonus, rounded: when ``in_hundredths`` is True the
    factor is in hundredths (0.04 is 4) and the division is by a constant, the usual
    case; when it is None, by the factor's own denominator. A flag by its type (see
    the site kernel's ``weighted``)."""
    if in_hundredths is None:
        denominator = params[C_FACTOR_DEN]
        return round_div(diff * params[C_FACTOR_NUM] + bonus * denominator, denominator)
    return round_div(diff * params[C_FACTOR_NUM] + bonus * ONE_POINT, ONE_POINT)


@njit(cache=True)
def corr_kernel(
    order: Any,
    white: Any,
    black: Any,
    white_halves: Any,
    status: Any,
    rating: Any,
    games: Any,
    total: Any,
    params: Any,
    in_hundredths: Any,
    rows: Any = None,
) -> int:
    """corr C2-C6 for every game of ``order``; both players from pre-game states;
    ``params`` the ``CorrRules`` (:func:`corr_params`), its
    numbers read once into values (not from the array again after each state write);
    ``in_hundredths`` True for a factor in hundredths, else None (:func:`factored`).
    The number of changes written to ``rows`` (0 without)."""
    rules = (
        params[C_ESTABLISHED], params[C_MARGIN], params[C_GAP], params[C_CLAMP],
        params[C_BONUS],
    )  # fmt: skip
    c = 0
    for t in range(order.shape[0]):
        g = order[t]
        a = white[g]
        b = black[g]
        sa = white_halves[g]
        ca, sta, ra, ga, ta, rule_a, opponent_a = _corr_one(
            status[a],
            rating[a],
            games[a],
            total[a],
            status[b],
            rating[b],
            sa,
            rules,
            in_hundredths,
            params,
        )
        cb, stb, rb, gb, tb, rule_b, opponent_b = _corr_one(
            status[b],
            rating[b],
            games[b],
            total[b],
            status[a],
            rating[a],
            2 - sa,
            rules,
            in_hundredths,
            params,
        )
        if rows is not None:
            out, reason, codes = rows
            reason[t] = codes[EC_RATED] if ca or cb else codes[EC_NEITHER]
            if ca:
                c = _corr_row(out, c, t, 0, a, b, sa, status[a], rating[a], games[a], status[b],
                              ra, sta, ga, ta, rule_a, opponent_a, codes)  # fmt: skip
            if cb:
                c = _corr_row(out, c, t, 1 if ca else 0, b, a, 2 - sa, status[b], rating[b],
                              games[b], status[a], rb, stb, gb, tb, rule_b, opponent_b,
                              codes)  # fmt: skip
        if ca:
            status[a], rating[a], games[a], total[a] = sta, ra, ga, ta
        if cb:
            status[b], rating[b], games[b], total[b] = stb, rb, gb, tb
    return c
