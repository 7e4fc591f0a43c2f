"""The rules' numbers as the kernels read them: one int64 array per ``Rules`` object.

A kernel knows no rule number of its own: every threshold, factor, floor and weight
comes from the system's ``Rules`` (:mod:`chessrate.systems`) through the arrays built
here, in integer hundredths where the rule is a rating. A ``Rules`` object with
other values gives other arrays, and both engines follow (``tests/fast`` shows it).
Fractions (corr's factor 0.04, site's weights) travel as exact numerator and
denominator. The index names below are the arrays' layout; nothing else is.

When a kernel emits the ledger's rows (:mod:`chessrate.fast.rows`), the codes it writes
(a rule's position in the system's ``rules_cited``, a state's in ``states``, a reason
code of ``GameRating.reason_code``) come the same way, from the system's own tuples and
``R_*`` constants through one int64 array per system (``*_codes``).
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, Decimal
from typing import Any

import numpy as np
import numpy.typing as npt

from ..numbers import to_hundredths
from ..systems import arena, corr
from ..systems.arena import POOLS as ARENA_POOLS
from ..systems.arena import ArenaRules, ArenaStatus
from ..systems.base import RatingSystem
from ..systems.corr import CorrRules, CorrStatus
from ..systems.site import POOLS as SITE_POOLS
from ..systems.site import GameType, SiteRules

I64 = npt.NDArray[np.int64]

ONE_POINT = 100
"""1.00 (a rating point, a whole score, an expected score of 1) in hundredths."""
HALF_POINT = 50
"""A half point of score in hundredths of a point (scores are counted in halves)."""

# the kernels' states: arena's (arena A5) and corr's (corr C1)
UNRATED, QUALIFYING, RATED = 0, 1, 2
PROVISIONAL, ESTABLISHED = 1, 2

# arena: A6, A8, A10
A_FLOOR, A_K_NEW, A_NEW_GAMES, A_QUALIFYING, A_BONUS, A_K_POOL = range(6)
# corr: C1, C3, C4, C5, C6
(C_ESTABLISHED, C_MARGIN, C_UNRATED, C_GAP, C_FACTOR_NUM, C_FACTOR_DEN, C_BONUS,
 C_CLAMP) = (0, 1, 2, 5, 6, 7, 8, 9)  # fmt: skip
"""``C_UNRATED + halves``: the performance against an unrated opponent (loss, draw,
win)."""
# site: S3, S4, S5; every pool's weight is ``params[S_WEIGHTS + pool]`` over one common
# denominator ``params[S_DENOMINATOR]``, which is ``1 << params[S_SHIFT]`` when it is a
# power of two (S_SHIFT -1 otherwise): the kernel then rounds with shifts, not a division
S_START, S_K_NEW, S_K, S_K_GAMES, S_FLOOR, S_DENOMINATOR, S_SHIFT, S_WEIGHTS = range(8)


def fraction(value: Decimal) -> tuple[int, int]:
    """An exact Decimal as (numerator, denominator), denominator > 0."""
    numerator, denominator = value.as_integer_ratio()
    return int(numerator), int(denominator)


def arena_params(rules: ArenaRules) -> I64:
    """``ArenaRules`` for :func:`chessrate.fast.kernels.arena_kernel`."""
    values = [
        to_hundredths(rules.floor),
        rules.k_new_player,
        rules.new_player_games,
        rules.qualifying_games,
        to_hundredths(rules.bonus_per_half_point),
        *(rules.k[pool] for pool in ARENA_POOLS),
    ]
    return np.array(values, np.int64)


def corr_params(rules: CorrRules) -> I64:
    """``CorrRules`` for :func:`chessrate.fast.kernels.corr_kernel`."""
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


def site_params(rules: SiteRules) -> I64:
    """``SiteRules`` for :func:`chessrate.fast.kernels.site_kernel`. A type's pool
    carries its S2 weight in the site Elo; the site Elo's own slot holds 1 (the weight
    of a type rating)."""
    weights = []
    for pool in SITE_POOLS:
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


# -- the codes an emitting kernel writes (fast/rows.py) ------------------------------
# arena: the rules A6, A7, A10; ``EA_STATE + status`` (a kernel status); the reasons
# neither rated, both rated, ``EA_QUALIFIES + side`` and ``EA_LOSS_IGNORED + side``
# (side 0 White, 1 Black)
EA_A6, EA_A7, EA_A10, EA_STATE, EA_NEITHER, EA_BOTH, EA_QUALIFIES, EA_LOSS_IGNORED = (
    0, 1, 2, 3, 6, 7, 8, 10)  # fmt: skip
# corr: the rules C2, C5, C6; ``EC_STATE + status``; the reasons counted for someone or
# for neither (C4)
EC_C2, EC_C5, EC_C6, EC_STATE, EC_RATED, EC_NEITHER = 0, 1, 2, 3, 6, 7
# site: the rules S3, S5; the state "rated"; ``ES_KIND + pool``: the game type (its
# position in GameType) of a type's pool, a site Elo change's ``code``
ES_S3, ES_S5, ES_RATED, ES_KIND = 0, 1, 2, 3


ARENA_STATUSES: dict[int, ArenaStatus] = {
    UNRATED: ArenaStatus.UNRATED,
    QUALIFYING: ArenaStatus.QUALIFYING,
    RATED: ArenaStatus.RATED,
}
CORR_STATUSES: dict[int, CorrStatus] = {
    UNRATED: CorrStatus.UNRATED,
    PROVISIONAL: CorrStatus.PROVISIONAL,
    ESTABLISHED: CorrStatus.ESTABLISHED,
}
"""The kernels' status codes as the systems' statuses."""


def _by_status(states: tuple[str, ...], statuses: dict[int, str]) -> list[int]:
    """Each kernel status's position in the system's ``states``, by kernel status."""
    return [states.index(statuses[status]) for status in sorted(statuses)]


def arena_codes(system: RatingSystem[Any]) -> I64:
    """The codes :func:`chessrate.fast.kernels.arena_kernel` writes into emitted rows."""
    rules = system.rules_cited
    states = _by_status(system.states, dict(ARENA_STATUSES))
    values = [
        rules.index("arena A6"), rules.index("arena A7"), rules.index("arena A10"), *states,
        arena.R_NEITHER, arena.R_BOTH, arena.R_WHITE_QUALIFIES, arena.R_BLACK_QUALIFIES,
        arena.R_WHITE_LOSS_IGNORED, arena.R_BLACK_LOSS_IGNORED,
    ]  # fmt: skip
    return np.array(values, np.int64)


def corr_codes(system: RatingSystem[Any]) -> I64:
    """The codes :func:`chessrate.fast.kernels.corr_kernel` writes into emitted rows (a
    C5/C6 change's ``code``, the opponent's state, is his status's position too)."""
    rules = system.rules_cited
    states = _by_status(system.states, dict(CORR_STATUSES))
    values = [
        rules.index("corr C2"), rules.index("corr C5"), rules.index("corr C6"), *states,
        corr.R_RATED, corr.R_NEITHER,
    ]  # fmt: skip
    return np.array(values, np.int64)


def site_codes(system: RatingSystem[Any]) -> I64:
    """The codes :func:`chessrate.fast.kernels.site_kernel` writes into emitted rows."""
    rules = system.rules_cited
    kinds = tuple(GameType)
    by_pool = [
        next((kinds.index(kind) for kind in kinds if kind.value == pool), -1)
        for pool in system.pools
    ]
    values = [rules.index("site S3"), rules.index("site S5"), system.states.index("rated")]
    return np.array([*values, *by_pool], np.int64)
