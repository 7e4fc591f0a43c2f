"""The rating lab: how well a system's rules predict, and what other rules would do.

:func:`evaluate` replays a games file under a system's base ``Rules`` and under every
combination of varied rule fields (:func:`variants`), with the compiled replay
(:mod:`.compiled`, numba kernels) or the reference engine, in one process or several
(``jobs``), and reports for each variant and each pool:

- the predictive quality of the expected score before each rated game where both
  players had a rating before it: the mean deviance of the Kaggle "Chess Ratings 2"
  contest (base-10 log loss, the expectation clamped to [0.01, 0.99]), the Brier
  score, and a calibration table of ten bins. Each game counts once, for White (the
  Black side is its mirror and adds nothing). The expectation is the system's own
  (``Change.pd``) where its change carries one, else the logistic Elo expectation from
  the two pre-game ratings (:attr:`Quality.expectation` says which);
- what the variant does to the final list against the base rules' list (the players
  rated in the pool in both): Spearman's rank correlation, the largest risers and
  fallers, and how many listed players end in a different state.

The two reference predictors of :mod:`.predictors` run on the same games and pools.
The metrics are floats (a log loss has no exact value), computed with numpy
(:func:`quality_of`); the ratings are the engines' exact hundredths. Both engines give
the same :class:`Evaluation`, the floats up to the order of their sums.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import math
import multiprocessing
import os
import typing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..engine import Engine
from ..errors import InvalidInput, InvalidRecord
from ..io.games import read_games, read_players
from ..rating import ENGINES
from ..records import GameRecord, Outcome, Player
from ..systems import system_info
from ..systems.base import GameRating, ListEntry, Rules
from .predictors import PREDICTORS, elo_expected

if TYPE_CHECKING:
    from ..fast import Roster

CLAMP_LOW = 0.01
CLAMP_HIGH = 0.99
"""The Kaggle "Chess Ratings 2" deviance clamps the expected score to [0.01, 0.99]."""

BINS = 10
"""Calibration bins of the expected score: [0, 0.1), ..., [0.9, 1]."""

MOVERS = 5
"""How many risers and fallers a comparison lists."""

EXPERIENCE = (0, 1, 5, 10, 20, 50, 100)
"""The lower ends of the games-played buckets of :attr:`Quality.by_games`: [0, 1),
[1, 5), ..., [100, inf). A game's experience is the number of rated games in the pool
that the less experienced of its two players had before it: how far each variant has
learnt the newer player."""


class InvalidVariant(InvalidInput):
    """A ``--vary`` the system's rules cannot take: an unknown field, or a value its
    type or the lab's checks refuse. Names the field and the value."""


# -- variants -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Variant:
    """One set of rules to replay with: ``label`` names the varied values (``base``
    for the system's own rules)."""

    label: str
    rules: Rules
    varied: tuple[tuple[str, str], ...] = ()


def parse_vary(spec: str) -> tuple[str, list[str]]:
    """``FIELD=V1,V2,...`` as the field and its values (text)."""
    name, sep, values = spec.partition("=")
    name = name.strip()
    texts = [v.strip() for v in values.split(",")] if sep else []
    if not name or not texts or any(not v for v in texts):
        raise InvalidVariant(f"--vary {spec!r}: expected FIELD=V1,V2,... (no empty value)")
    return name, texts


def _field_types(rules: Rules) -> dict[str, Any]:
    try:
        return typing.get_type_hints(type(rules))
    except Exception:  # an annotation that does not resolve: the default's type
        return {f.name: type(getattr(rules, f.name)) for f in dataclasses.fields(rules)}  # type: ignore[arg-type]


def _parse_scalar(kind: Any, text: str, name: str) -> Any:
    """``text`` as a value of ``kind`` (int, Decimal, str or an enum), refused with the
    field and the value named."""
    refused = f"--vary {name}: {text!r} is not "
    if kind is bool:
        lowered = text.lower()
        if lowered in ("true", "yes", "1"):
            return True
        if lowered in ("false", "no", "0"):
            return False
        raise InvalidVariant(refused + "true or false")
    if kind is int:
        try:
            value: Any = int(text)
        except ValueError:
            raise InvalidVariant(refused + "a whole number") from None
        if value < 0:
            raise InvalidVariant(f"--vary {name}: {text!r}: a rule's number is never negative")
        return value
    if kind is Decimal:
        try:
            number = Decimal(text)
        except InvalidOperation:
            raise InvalidVariant(refused + "a decimal number") from None
        if not number.is_finite():
            raise InvalidVariant(refused + "a finite number")
        if number < 0:
            raise InvalidVariant(f"--vary {name}: {text!r}: a rule's number is never negative")
        return number
    if kind is str:
        return text
    raise InvalidVariant(f"--vary {name}: a field of type {kind!r} cannot be varied")


def parse_value(rules: Rules, name: str, text: str) -> Any:
    """The value of rule field ``name`` for ``text``, parsed by the field's type: a
    whole number, a decimal, or (``FIELD.KEY``) one entry of a mapping field such as
    arena's ``k.blitz`` or site's ``weights.bullet``. Returns the whole field's new
    value (a mapping with the one entry replaced)."""
    top, _, key = name.partition(".")
    fields = {f.name for f in dataclasses.fields(rules)}  # type: ignore[arg-type]
    if top not in fields:
        known = ", ".join(sorted(fields))
        raise InvalidVariant(
            f"--vary {name}: the {type(rules).__name__} has no field {top!r} (fields: {known})"
        )
    kind = _field_types(rules)[top]
    current = getattr(rules, top)
    if isinstance(current, dict):
        if not key:
            keys = ", ".join(str(k) for k in current)
            raise InvalidVariant(
                f"--vary {name}: {top} is a mapping; vary one entry, {top}.KEY (keys: {keys})"
            )
        matching = [k for k in current if str(k) == key]
        if not matching:
            keys = ", ".join(str(k) for k in current)
            raise InvalidVariant(f"--vary {name}: {top} has no key {key!r} (keys: {keys})")
        args = typing.get_args(kind)
        value_kind = args[1] if len(args) == 2 else type(current[matching[0]])
        updated = dict(current)
        updated[matching[0]] = _parse_scalar(value_kind, text, name)
        return updated
    if key:
        raise InvalidVariant(f"--vary {name}: {top} is not a mapping (no .KEY)")
    return _parse_scalar(kind, text, name)


def variants(rules: Rules, specs: Sequence[str]) -> list[Variant]:
    """The base rules, then every combination (the cartesian product) of the varied
    fields' values, each a real ``Rules`` built with :func:`dataclasses.replace`."""
    axes: list[tuple[str, list[tuple[str, Any]]]] = []
    seen: set[str] = set()
    for spec in specs:
        name, texts = parse_vary(spec)
        if name in seen:
            raise InvalidVariant(f"--vary {name}: given twice")
        seen.add(name)
        axes.append((name, [(text, parse_value(rules, name, text)) for text in texts]))
    result = [Variant("base", rules)]
    if not axes:
        return result
    for combination in itertools.product(*(values for _, values in axes)):
        changed = rules
        varied: list[tuple[str, str]] = []
        for (name, _), (text, value) in zip(axes, combination, strict=True):
            top = name.partition(".")[0]
            if top == name or not isinstance(getattr(changed, top), dict):
                changed = dataclasses.replace(changed, **{top: value})  # type: ignore[type-var]
            else:  # merge the one entry into what earlier axes set
                merged = dict(getattr(changed, top))
                key = name.partition(".")[2]
                for k, v in value.items():
                    if str(k) == key:
                        merged[k] = v
                changed = dataclasses.replace(changed, **{top: merged})  # type: ignore[type-var]
            varied.append((name, text))
        label = " ".join(f"{n}={t}" for n, t in varied)
        result.append(Variant(label, changed, tuple(varied)))
    return result


# -- predictive quality ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bin:
    """One calibration bin: the games whose expectation fell in [low, high)."""

    low: float
    high: float
    count: int
    mean_expected: float | None
    mean_observed: float | None


@dataclass(frozen=True, slots=True)
class Learning:
    """The games whose experience (see :data:`EXPERIENCE`) was in [low, high); ``high``
    None for the last bucket."""

    low: int
    high: int | None
    count: int
    deviance: float | None


@dataclass(frozen=True, slots=True)
class Quality:
    """How well the expected scores of ``games`` predicted their results."""

    games: int
    deviance: float | None
    brier: float | None
    bins: tuple[Bin, ...]
    expectation: str = ""
    """Where the expected scores came from: ``system`` (the system's ``pd``), ``elo``
    (the logistic Elo expectation from the pre-game ratings), ``system+elo``, or the
    predictor's own."""
    by_games: tuple[Learning, ...] = ()
    """The mean deviance by the experience of the game's newer player (one bucket per
    :data:`EXPERIENCE` entry; empty when the games' experience is not known)."""


def deviance(expected: float, score: float) -> float:
    """Kaggle "Chess Ratings 2": -(y log10(E) + (1 - y) log10(1 - E)), E clamped to
    [0.01, 0.99]."""
    e = min(max(expected, CLAMP_LOW), CLAMP_HIGH)
    return -(score * math.log10(e) + (1.0 - score) * math.log10(1.0 - e))


def experience_bucket(games: int) -> int:
    """The index in :data:`EXPERIENCE` of the bucket of ``games`` games played."""
    return bisect.bisect_right(EXPERIENCE, games) - 1


def learning_label(bucket: Learning) -> str:
    """A games-played bucket in words: ``0``, ``1-4``, ..., ``100+``."""
    if bucket.high is None:
        return f"{bucket.low}+"
    if bucket.high == bucket.low + 1:
        return str(bucket.low)
    return f"{bucket.low}-{bucket.high - 1}"


def quality(
    pairs: Iterable[tuple[float, float]],
    expectation: str = "",
    experience: Iterable[int] | None = None,
) -> Quality:
    """Mean deviance, Brier score and calibration of (expected, score) pairs; with
    ``experience`` (each pair's games played by the newer player, in the same order),
    also the deviance by games played (:func:`quality_of`)."""
    items = list(pairs)
    expected = np.array([e for e, _ in items], np.float64)
    score = np.array([y for _, y in items], np.float64)
    games = None
    if experience is not None:
        games = np.fromiter(experience, np.int64)
        if games.shape[0] != len(items):
            raise ValueError("one experience per pair")
    return quality_of(expected, score, expectation, games)


def quality_of(
    expected: npt.NDArray[np.float64],
    score: npt.NDArray[np.float64],
    expectation: str = "",
    experience: npt.NDArray[np.int64] | None = None,
) -> Quality:
    """:func:`quality` of arrays: White's expected score and score of each game, and
    the newer player's games before it (numpy; the sums in numpy's order)."""
    n = int(expected.shape[0])
    index = np.minimum((expected * BINS).astype(np.int64), BINS - 1)
    counts = np.bincount(index, minlength=BINS)
    total_e = np.bincount(index, expected, minlength=BINS)
    total_y = np.bincount(index, score, minlength=BINS)
    bins = tuple(
        Bin(
            b / BINS,
            (b + 1) / BINS,
            int(counts[b]),
            float(total_e[b] / counts[b]) if counts[b] else None,
            float(total_y[b] / counts[b]) if counts[b] else None,
        )
        for b in range(BINS)
    )
    clamped = np.clip(expected, CLAMP_LOW, CLAMP_HIGH)
    losses = -(score * np.log10(clamped) + (1.0 - score) * np.log10(1.0 - clamped))
    by_games: tuple[Learning, ...] = ()
    if experience is not None:
        bucket = np.searchsorted(np.array(EXPERIENCE), experience, side="right") - 1
        learnt = np.bincount(bucket, minlength=len(EXPERIENCE))
        total = np.bincount(bucket, losses, minlength=len(EXPERIENCE))
        by_games = tuple(
            Learning(
                low,
                EXPERIENCE[i + 1] if i + 1 < len(EXPERIENCE) else None,
                int(learnt[i]),
                float(total[i] / learnt[i]) if learnt[i] else None,
            )
            for i, low in enumerate(EXPERIENCE)
        )
    if n == 0:
        return Quality(0, None, None, bins, expectation, by_games)
    return Quality(
        n,
        float(losses.sum() / n),
        float(((expected - score) ** 2).sum() / n),
        bins,
        expectation,
        by_games,
    )


@dataclass(frozen=True, slots=True)
class Scored:
    """One game's prediction in one pool, for White."""

    game_id: str
    pool: str
    expected: float
    score: float
    source: str  # "system" or "elo"
    experience: int = 0
    """The rated games in the pool the newer of the two players had before the game."""


def scored_games(ratings: Iterable[GameRating[Any]]) -> list[Scored]:
    """White's expectation and score of every rated game in each pool where both
    players had a rating before it (White's and Black's changes in the pool both
    have a ``before``)."""
    result = []
    for rating in ratings:
        if rating.outcome is not Outcome.RATED:
            continue
        game = rating.game
        whites = {c.pool: c for c in rating.changes if c.player == game.white}
        blacks = {c.pool: c for c in rating.changes if c.player == game.black}
        for pool, white in whites.items():
            black = blacks.get(pool)
            if black is None or white.before is None or black.before is None:
                continue
            if white.pd is not None:
                expected, source = float(white.pd), "system"
            else:
                expected = elo_expected(float(white.before), float(black.before))
                source = "elo"
            experience = min(white.games_before, black.games_before)
            result.append(Scored(game.id, pool, expected, float(white.score), source, experience))
    return result


def _sources(scored: Sequence[Scored]) -> str:
    found = sorted({s.source for s in scored}, key=("system", "elo").index)
    return "+".join(found) if found else "none"


# -- comparing final lists ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mover:
    player: str
    base: Decimal
    variant: Decimal

    @property
    def change(self) -> Decimal:
        return self.variant - self.base


@dataclass(frozen=True, slots=True)
class Comparison:
    """A variant's final list against the base rules' (players rated in both)."""

    players: int
    spearman: float | None
    risers: tuple[Mover, ...]
    fallers: tuple[Mover, ...]
    state_changed: int


def _ranks(values: Sequence[Decimal]) -> list[float]:
    """Ranks from 1, ties given their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for n in range(i, j + 1):
            ranks[order[n]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs: Sequence[Decimal], ys: Sequence[Decimal]) -> float | None:
    """Spearman's rank correlation (the Pearson correlation of the ranks, ties
    averaged); None for fewer than two players or a list with no spread."""
    if len(xs) < 2:
        return None
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    if vx == 0 or vy == 0:
        return None
    return cov / math.sqrt(vx * vy)


def compare(base: Sequence[ListEntry], variant: Sequence[ListEntry]) -> Comparison:
    """What the variant did to one pool's list."""
    base_by = {e.player: e for e in base}
    variant_by = {e.player: e for e in variant}
    both = sorted(set(base_by) & set(variant_by))
    changed = sum(1 for p in both if base_by[p].state != variant_by[p].state)
    movers = []
    for p in both:
        b, v = base_by[p].rating, variant_by[p].rating
        if b is not None and v is not None:
            movers.append(Mover(p, b, v))
    rho = spearman([m.base for m in movers], [m.variant for m in movers])
    risers = sorted((m for m in movers if m.change > 0), key=lambda m: (-m.change, m.player))
    fallers = sorted((m for m in movers if m.change < 0), key=lambda m: (m.change, m.player))
    return Comparison(len(movers), rho, tuple(risers[:MOVERS]), tuple(fallers[:MOVERS]), changed)


# -- the evaluation -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PoolResult:
    pool: str
    quality: Quality
    comparison: Comparison | None  # None for the base rules


@dataclass(frozen=True, slots=True)
class VariantResult:
    variant: Variant
    pools: tuple[PoolResult, ...]

    @property
    def deviance(self) -> float:
        """The mean deviance over every pool's scored games (the sort key; no games:
        infinity, last)."""
        total = sum(p.quality.games for p in self.pools)
        if total == 0:
            return math.inf
        return sum((p.quality.deviance or 0.0) * p.quality.games for p in self.pools) / total


@dataclass(frozen=True, slots=True)
class PredictorResult:
    label: str
    description: str
    pools: tuple[PoolResult, ...]


@dataclass(frozen=True, slots=True)
class Evaluation:
    system: str
    source: str
    games: int
    variants: tuple[VariantResult, ...]
    """Best first (lowest mean deviance), the base rules among them."""
    predictors: tuple[PredictorResult, ...] = field(default=())


Progress = Callable[[str, int, int], None]
"""Told how far :func:`evaluate` went (``chessrate.rating.Progress``'s form): stage
``variants`` (variants replayed of all) and, with one job, ``games`` (games replayed,
over every variant); the amount just done, the stage's whole amount."""


def replay(
    system_id: str,
    rules: Rules,
    games: Sequence[GameRecord],
    players: Sequence[Player],
    on_invalid: Callable[[InvalidRecord], None] | None = None,
    progress: Callable[[int], None] | None = None,
    in_order: bool = False,
) -> Engine[Any]:
    """The reference engine's replay of ``games`` under ``rules``: in rating order
    (``played_at``), or in the order given when ``in_order`` (a ledger's commit order)."""
    engine: Engine[Any] = Engine(system_info(system_id).rating_system(rules), players)
    engine.replay(games, on_invalid, progress, in_order)
    return engine


OnInvalid = Callable[[InvalidRecord], None]
Lists = dict[str, Any]
"""A variant's final lists by pool, as its replayer keeps them (``ListEntry`` lists,
or the compiled replay's arrays)."""


class _Replayer:
    """How the variants of one evaluation are replayed and measured (one engine): each
    variant's quality per pool and final lists; the predictors over the base rules'
    replay, once it ran."""

    def __init__(self, system_id: str, games: int) -> None:
        self.system_id = system_id
        self.pools = system_info(system_id).pools
        self.games = games
        self.threaded = False
        """Whether work may go on in a thread beside the replays (not when the process
        is forked for ``jobs``: a fork copies no thread)."""

    def run(
        self, variant: Variant, on_invalid: OnInvalid | None, progress: Callable[[int], None] | None
    ) -> tuple[tuple[Quality, ...], Lists]:
        raise NotImplementedError

    def compare(self, base: Lists, variant: Lists, pool: str) -> Comparison:
        """What the variant did to the pool's list (:func:`compare`)."""
        return compare(base[pool], variant[pool])

    def predictors(self) -> tuple[PredictorResult, ...]:
        raise NotImplementedError


class _Reference(_Replayer):
    """The reference engine's replays, on records."""

    def __init__(
        self, system_id: str, games: Sequence[GameRecord], players: Sequence[Player],
        in_order: bool = False,
    ):  # fmt: skip
        super().__init__(system_id, len(games))
        self.records = games
        self.players = players
        self.in_order = in_order
        self.base: tuple[Sequence[GameRating[Any]], list[Scored]] | None = None

    def run(
        self, variant: Variant, on_invalid: OnInvalid | None, progress: Callable[[int], None] | None
    ) -> tuple[tuple[Quality, ...], Lists]:
        engine = replay(
            self.system_id, variant.rules, self.records, self.players, on_invalid, progress,
            self.in_order,
        )  # fmt: skip
        scored = scored_games(engine.ratings)
        if not variant.varied:
            self.base = (engine.ratings, scored)
        qualities = []
        for pool in self.pools:
            in_pool = [s for s in scored if s.pool == pool]
            qualities.append(
                quality(
                    [(s.expected, s.score) for s in in_pool],
                    _sources(in_pool),
                    [s.experience for s in in_pool],
                )
            )
        return tuple(qualities), engine.rating_lists()

    def predictors(self) -> tuple[PredictorResult, ...]:
        assert self.base is not None, "the base rules were replayed first"
        return _predictors(*self.base, self.pools)


class _Compiled(_Replayer):
    """The compiled replays (:mod:`.compiled`), on a batch read by the fast reader."""

    def __init__(
        self, system_id: str, batch: Any, players: Sequence[Player] | Roster,
        in_order: bool = False,
    ):  # fmt: skip
        super().__init__(system_id, len(batch))
        self.batch = batch
        self.in_order = in_order
        self.registered: Roster | None = None
        """The players registered for the base rules (read while the games were)."""
        if isinstance(players, Sequence):
            self.players = list(players)
        else:
            self.registered = players
            self.players = list(players.players.values())
        self.base: Any = None

    def run(
        self, variant: Variant, on_invalid: OnInvalid | None, progress: Callable[[int], None] | None
    ) -> tuple[tuple[Quality, ...], Lists]:
        from .compiled import replay_variant

        base = not variant.varied
        registered = self.registered if self.base is None else self.base.roster
        run = replay_variant(
            self.system_id, variant.rules, self.batch, self.players, base, registered,
            on_invalid, progress, self.threaded, self.in_order,
        )  # fmt: skip
        if base:
            self.base = run
        scores = run.scores
        order = np.argsort(scores.pool, kind="stable")  # each pool's games, in game order
        bounds = np.searchsorted(scores.pool[order], np.arange(len(self.pools) + 1))
        expected, score = scores.expected[order], scores.score[order]
        own, experience = scores.system[order], scores.experience[order]
        qualities = []
        for p in range(len(self.pools)):
            at = slice(int(bounds[p]), int(bounds[p + 1]))
            system = own[at]
            found = [name for name, present in (("system", system.any()), ("elo", (~system).any()))
                     if present]  # fmt: skip
            label = "+".join(found) if found else "none"
            qualities.append(quality_of(expected[at], score[at], label, experience[at]))
        return tuple(qualities), run.lists

    def compare(self, base: Lists, variant: Lists, pool: str) -> Comparison:
        from .compiled import compare_arrays

        return compare_arrays(base[pool], variant[pool], self.base.names)

    def predictors(self) -> tuple[PredictorResult, ...]:
        assert self.base is not None and self.base.stream is not None
        assert self.base.learner is not None
        stream = self.base.stream
        scored = np.flatnonzero(stream.scored)  # each pool's scored games, in game order:
        scored = scored[np.argsort(stream.pool[scored], kind="stable")]
        bounds = np.searchsorted(stream.pool[scored], np.arange(len(self.pools) + 1))
        score, experience = stream.score[scored], stream.experience[scored]
        out = []
        for label, description, expected in self.base.learner.expected():
            mine = expected[scored]
            pools = []
            for p, pool in enumerate(self.pools):
                at = slice(int(bounds[p]), int(bounds[p + 1]))
                measured = quality_of(mine[at], score[at], label, experience[at])
                pools.append(PoolResult(pool, measured, None))
            out.append(PredictorResult(label, description, tuple(pools)))
        return tuple(out)


def _measured(
    replayer: _Replayer,
    variant: Variant,
    base_lists: Lists | None,
    on_invalid: OnInvalid | None,
    progress: Callable[[int], None] | None,
) -> tuple[VariantResult, Lists]:
    """One variant replayed and measured against the base rules' lists (None: it is the
    base); a record its rules refuse names the variant."""
    try:
        qualities, lists = replayer.run(variant, on_invalid, progress)
    except InvalidRecord as error:
        if not variant.varied:
            raise
        raise InvalidRecord(
            error.where, error.field, f"{error.reason} (under --vary {variant.label})"
        ) from None
    pools = tuple(
        PoolResult(
            pool, q, None if base_lists is None else replayer.compare(base_lists, lists, pool)
        )
        for pool, q in zip(replayer.pools, qualities, strict=True)
    )
    return VariantResult(variant, pools), lists


_JOB: tuple[_Replayer, Lists, bool] | None = None
"""What a worker process of ``--jobs`` inherits (it is forked): the replayer with its
games, the base rules' lists, whether invalid records are skipped."""


def _job(variant: Variant) -> tuple[str, Any, Any]:
    """One variant in a worker process: ("ok", its result, the invalid records it met)
    or ("refused", the InvalidRecord's where, field and reason)."""
    assert _JOB is not None
    replayer, base_lists, skipping = _JOB
    met: list[InvalidRecord] = []
    try:
        result, _ = _measured(replayer, variant, base_lists, met.append if skipping else None, None)
    except InvalidRecord as error:
        return "refused", (error.where, error.field, error.reason), None
    return "ok", result, [(e.where, e.field, e.reason) for e in met]


def jobs_for(jobs: int) -> int:
    """The processes ``--jobs`` asks for: 0 for the machine's cores."""
    if jobs < 0:
        raise InvalidInput(f"--jobs {jobs}: expected 0 (every core) or more")
    return jobs or os.cpu_count() or 1


def _evaluate(
    replayer: _Replayer,
    vary: Sequence[str],
    source: str,
    on_invalid: OnInvalid | None,
    jobs: int,
    progress: Progress | None,
) -> Evaluation:
    """Every variant replayed and measured (the base first: the others are compared
    with its lists), in ``jobs`` processes; the predictors over the base replay."""
    global _JOB
    info = system_info(replayer.system_id)
    chosen = variants(info.rules, vary)
    workers = min(jobs_for(jobs), len(chosen) - 1)

    def done() -> None:
        if progress is not None:
            progress("variants", 1, len(chosen))

    games: Callable[[int], None] | None = None
    if progress is not None and workers <= 1:
        total = replayer.games * len(chosen)
        told = progress

        def games(advance: int) -> None:
            told("games", advance, total)

    replayer.threaded = workers <= 1
    base, base_lists = _measured(replayer, chosen[0], None, on_invalid, games)
    done()
    results = [base]
    if workers <= 1:
        for variant in chosen[1:]:
            results.append(_measured(replayer, variant, base_lists, on_invalid, games)[0])
            done()
        predictors = replayer.predictors()
    else:
        _JOB = (replayer, base_lists, on_invalid is not None)
        try:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                answers = pool.imap(_job, chosen[1:])
                predictors = replayer.predictors()  # meanwhile, here
                for kind, answer, met in answers:
                    if kind == "refused":
                        raise InvalidRecord(*answer)
                    assert on_invalid is not None or not met
                    for where, name, reason in met:
                        on_invalid(InvalidRecord(where, name, reason))  # type: ignore[misc]
                    results.append(answer)
                    done()
        finally:
            _JOB = None
    ordered = sorted(results, key=lambda r: r.deviance)  # stable: base before its equals
    return Evaluation(replayer.system_id, source, replayer.games, tuple(ordered), predictors)


def _rating_system_check(system_id: str) -> None:
    info = system_info(system_id)
    if not info.rates_games:
        raise InvalidInput(
            f"the {system_id} system rates periods: evaluate needs one that rates games"
        )


def evaluate_games(
    system_id: str,
    games: Sequence[GameRecord],
    players: Sequence[Player] = (),
    vary: Sequence[str] = (),
    source: str = "",
    on_invalid: Callable[[InvalidRecord], None] | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
    in_order: bool = False,
) -> Evaluation:
    """:func:`evaluate` on records already read, by the reference engine (``in_order``:
    rated in the order given, as a ledger rated them, instead of by ``played_at``)."""
    _rating_system_check(system_id)
    replayer = _Reference(system_id, games, players, in_order)
    return _evaluate(replayer, vary, source, on_invalid, jobs, progress)


def evaluate_batch(
    system_id: str,
    batch: Any,
    players: Sequence[Player] | Roster = (),
    vary: Sequence[str] = (),
    source: str = "",
    on_invalid: Callable[[InvalidRecord], None] | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
    in_order: bool = False,
) -> Evaluation:
    """:func:`evaluate` on a :class:`chessrate.fast.GameBatch`, by the compiled replay
    (``players``: maybe registered already for the base rules, a
    :class:`chessrate.fast.Roster`; ``in_order`` as for :func:`evaluate_games`): the
    same :class:`Evaluation` as the reference engine's, the floats up to the order of
    their sums."""
    _rating_system_check(system_id)
    if system_info(system_id).compiled is None:
        raise InvalidInput(
            f"the {system_id} system has no compiled replay: use the reference engine"
        )
    replayer = _Compiled(system_id, batch, players, in_order)
    return _evaluate(replayer, vary, source, on_invalid, jobs, progress)


def _predictors(
    ratings: Sequence[GameRating[Any]], scored: Sequence[Scored], pools: Sequence[str]
) -> tuple[PredictorResult, ...]:
    """Each reference predictor over the base rules' rated games, in the pools the
    base rules rated each in: it learns from every rated game and is scored on the
    games the base rules were scored on."""
    evaluated = {(s.game_id, s.pool): s.experience for s in scored}
    out = []
    for make in PREDICTORS:
        predictor = make()
        pairs: dict[str, list[tuple[float, float]]] = {pool: [] for pool in pools}
        learnt: dict[str, list[int]] = {pool: [] for pool in pools}
        for rating in ratings:
            if rating.outcome is not Outcome.RATED:
                continue
            game = rating.game
            white_score = game.score(game.white)
            if white_score is None:
                continue
            y = float(white_score)
            for pool in dict.fromkeys(c.pool for c in rating.changes):
                e = predictor.expected(game.white, game.black, pool, game.played_at)
                experience = evaluated.get((game.id, pool))
                if experience is not None:
                    pairs.setdefault(pool, []).append((e, y))
                    learnt.setdefault(pool, []).append(experience)
                predictor.update(game.white, game.black, pool, y, game.played_at)
        out.append(
            PredictorResult(
                make.label,
                make.description,
                tuple(
                    PoolResult(pool, quality(pairs[pool], make.label, learnt[pool]), None)
                    for pool in pools
                ),
            )
        )
    return tuple(out)


def uses_compiled(system_id: str, engine: str) -> bool:
    """Whether :func:`evaluate` with ``engine`` replays by the compiled path."""
    if engine not in ENGINES:
        raise InvalidInput(f"unknown engine {engine!r} (known: {', '.join(ENGINES)})")
    if engine == "auto":
        return system_info(system_id).compiled is not None
    return engine == "compiled"


def evaluate(
    path: str | Path,
    system_id: str,
    players: str | Path | None = None,
    vary: Sequence[str] = (),
    fmt: str | None = None,
    on_invalid: Callable[[InvalidRecord], None] | None = None,
    engine: str = "auto",
    jobs: int = 1,
    progress: Progress | None = None,
) -> Evaluation:
    """Replay the games of ``path`` under the system's base rules and every variant
    of ``vary`` (``FIELD=V1,V2,...``) and measure each (see the module). An invalid
    record raises, unless ``on_invalid`` is given: then it is reported there and left
    out (a game a variant's rules refuse is left out of that variant's replay).

    ``engine`` says which replay runs: ``compiled`` (:mod:`chessrate.fast`'s kernels,
    :mod:`.compiled`), ``reference`` (the pure-Python engine) or ``auto`` (compiled for
    a system with a compiled half); the same evaluation either way.
    ``jobs`` processes replay the variants (0: one per core; the base rules first, in
    this one); ``progress`` is told the variants (and games) done."""
    path = Path(path)
    info = system_info(system_id)
    _rating_system_check(system_id)
    variants(info.rules, vary)  # refuse a bad --vary before reading anything
    jobs_for(jobs)
    if uses_compiled(system_id, engine):
        if info.compiled is None:
            raise InvalidInput(
                f"the {system_id} system has no compiled replay: use the reference engine"
            )
        from ..rating import read_for_compiled

        given = Path(players) if players is not None else None
        system = info.rating_system(info.rules)
        batch, registered = read_for_compiled(path, fmt, given, system, on_invalid)
        return evaluate_batch(
            system_id, batch, registered, vary, str(path), on_invalid, jobs, progress
        )
    games = read_games(path, fmt, on_invalid)
    roster = read_players(Path(players)) if players is not None else []
    return evaluate_games(system_id, games, roster, vary, str(path), on_invalid, jobs, progress)
