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

import multiprocessing
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import Engine
from ..errors import InvalidInput, InvalidRecord
from ..io.games import read_games, read_players
from ..rating import ENGINES
from ..records import GameRecord, Outcome, Player
from ..systems import system_info
from ..systems.base import GameRating, Rules
from ..systems.fide import Ruleset
from .lists import MOVERS, Comparison, Mover, compare, spearman
from .periods import (
    Chain,
    ChainRun,
    chain_predictors,
    compare_lists,
    period_variants,
    periods_from_files,
    qualities,
    replay_chain,
    varied_rules,
)
from .predictors import PREDICTORS, elo_expected
from .quality import (
    BINS,
    CLAMP_HIGH,
    CLAMP_LOW,
    EXPERIENCE,
    Bin,
    Learning,
    Quality,
    deviance,
    experience_bucket,
    learning_label,
    quality,
    quality_of,
)
from .results import Evaluation, PoolResult, PredictorResult, Progress, VariantResult
from .variants import InvalidVariant, Variant, parse_value, parse_vary, variants

if TYPE_CHECKING:
    from ..fast import Roster

__all__ = [
    "BINS",
    "CLAMP_HIGH",
    "CLAMP_LOW",
    "EXPERIENCE",
    "MOVERS",
    "Bin",
    "Comparison",
    "Evaluation",
    "InvalidVariant",
    "Learning",
    "Mover",
    "PoolResult",
    "PredictorResult",
    "Progress",
    "Quality",
    "Scored",
    "Variant",
    "VariantResult",
    "compare",
    "deviance",
    "evaluate",
    "evaluate_batch",
    "evaluate_games",
    "evaluate_periods",
    "experience_bucket",
    "jobs_for",
    "learning_label",
    "parse_value",
    "parse_vary",
    "quality",
    "quality_of",
    "replay",
    "scored_games",
    "spearman",
    "uses_compiled",
    "variants",
]


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


# -- the evaluation -------------------------------------------------------------------


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

    def variants(self, vary: Sequence[str]) -> list[Variant]:
        """The base rules and each ``--vary`` combination (:func:`variants`)."""
        return variants(system_info(self.system_id).rules, vary)


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


class _Periods(_Replayer):
    """The replays of a chain of rating periods (:mod:`.periods`)."""

    def __init__(self, system_id: str, chain: Chain) -> None:
        super().__init__(system_id, chain.games)
        self.chain = chain
        self.base: ChainRun | None = None

    def run(
        self, variant: Variant, on_invalid: OnInvalid | None, progress: Callable[[int], None] | None
    ) -> tuple[tuple[Quality, ...], Lists]:
        run = replay_chain(self.chain, variant, progress)
        if not variant.varied:
            self.base = run
        return qualities(run, self.pools), run.lists

    def compare(self, base: Lists, variant: Lists, pool: str) -> Comparison:
        return compare_lists(base, variant, pool)

    def predictors(self) -> tuple[PredictorResult, ...]:
        assert self.base is not None, "the base rules were replayed first"
        return chain_predictors(self.chain, self.base)

    def variants(self, vary: Sequence[str]) -> list[Variant]:
        chosen = period_variants(vary)
        for variant in chosen:  # every period's rules made now: a bad value refused first
            for period in self.chain.periods:
                try:
                    varied_rules(period, variant)
                except ValueError as error:
                    raise InvalidVariant(
                        f"--vary {variant.label}: {period.name}: {error}"
                    ) from None
        return chosen


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
    chosen = replayer.variants(vary)
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
            f"the {system_id} system rates periods: evaluate its periods (evaluate_periods)"
        )


def evaluate_periods(
    system_id: str,
    chain: Chain,
    vary: Sequence[str] = (),
    source: str = "",
    jobs: int = 1,
    progress: Progress | None = None,
) -> Evaluation:
    """:func:`evaluate` of a chain of rating periods (:mod:`.periods`: from TRF files
    or a ledger's closed periods), by the reference engine (``fide`` has no compiled
    replay: its periods are small)."""
    if not system_info(system_id).rates_periods:
        raise InvalidInput(f"the {system_id} system rates games, not periods")
    if not chain.periods:
        raise InvalidInput(f"{source or 'the history'}: no rating periods to evaluate")
    return _evaluate(_Periods(system_id, chain), vary, source, None, jobs, progress)


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
    if info.rates_periods:
        if engine == "compiled":
            raise InvalidInput(
                f"the {system_id} system has no compiled replay: use the reference engine"
            )
        uses_compiled(system_id, engine)  # an unknown engine refused
        period_variants(vary)  # refuse a bad --vary before reading anything
        jobs_for(jobs)
        ruleset = Ruleset.SEED.value
        chain = periods_from_files(path, Path(players) if players else None, on_invalid, ruleset)
        return evaluate_periods(system_id, chain, vary, str(path), jobs, progress)
    _rating_system_check(system_id)
    if path.is_dir():
        raise InvalidInput(
            f"{path}: a folder; {system_id} reads a games file (a folder of TRF files is fide's)"
        )
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
