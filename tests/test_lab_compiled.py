"""The rating lab's compiled path against its reference path.

On streams that reach every rule of arena, corr and site (players near the floors,
imported and new players, bots, refused games), the kernels' expected scores are the
reference engine's for every (game, pool), the whole evaluation with varied rules is
the same with either engine, and the predictors' numba kernels give what their Python
classes give.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest

from chessrate.errors import InvalidRecord
from chessrate.fast import encode
from chessrate.lab import evaluate_batch, evaluate_games, replay, scored_games, variants
from chessrate.lab.compiled import replay_variant
from chessrate.lab.predictors import PREDICTORS
from chessrate.records import microseconds, moment
from chessrate.systems import system_info
from tests.fast.test_rules_follow import START, stream

VARIED = {
    "arena": ["k.blitz=10,40", "qualifying_games=3"],
    "corr": ["factor=0.02,0.06", "established_after=10"],
    "site": ["k=10,40", "k_new=20"],
}


@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
@pytest.mark.parametrize("varied", [False, True], ids=["base", "varied"])
def test_the_kernels_expected_scores_are_the_reference_engines(
    system_id: str, varied: bool
) -> None:
    """Every (game, pool) scored: the same expected score to the hundredth (the pd the
    kernel emits, or the Elo expectation from the kernel's ``before`` ratings), the same
    source, score and experience; under the base rules and under other rules."""
    players, games = stream(system_id, 11)
    info = system_info(system_id)
    rules = info.rules
    if varied:  # the first value of each --vary: other rules the kernels must follow
        rules = variants(rules, [v.split(",")[0] for v in VARIED[system_id]])[-1].rules
        assert rules != info.rules
    refused: list[InvalidRecord] = []
    engine = replay(system_id, rules, games, players, refused.append)
    reference = {
        (s.game_id, s.pool): (s.expected, s.source, s.score, s.experience)
        for s in scored_games(engine.ratings)
    }
    batch = encode(games)
    run = replay_variant(system_id, rules, batch, players, True, None, lambda error: None)
    scores = run.scores
    ids = [batch.game_ids[int(batch.game[row])] for row in scores.row.tolist()]
    compiled = {
        (game_id, info.pools[pool]): (expected, "system" if own else "elo", score, experience)
        for game_id, pool, expected, own, score, experience in zip(
            ids, scores.pool.tolist(), scores.expected.tolist(), scores.system.tolist(),
            scores.score.tolist(), scores.experience.tolist(), strict=True,
        )
    }  # fmt: skip
    assert len(compiled) == scores.row.shape[0]  # one entry per (game, pool)
    assert len(reference) > 100
    assert compiled.keys() == reference.keys()
    for key, (expected, source, score, experience) in reference.items():
        fast = compiled[key]
        assert round(fast[0] * 100) == round(expected * 100), key
        assert fast[0] == pytest.approx(expected, abs=1e-12), key
        assert fast[1:] == (source, score, experience), key
    sources = {source for _, source, _, _ in reference.values()}
    assert sources == ({"elo"} if system_id == "corr" else {"system"})


def same(reference: Any, compiled: Any, where: str = "evaluation") -> None:
    """Equal dataclasses: floats up to summation-order noise (1e-12), everything else
    (counts, bins, labels, ratings, movers) exactly."""
    if dataclasses.is_dataclass(reference) and not isinstance(reference, type):
        assert type(compiled) is type(reference), where
        for f in dataclasses.fields(reference):
            same(getattr(reference, f.name), getattr(compiled, f.name), f"{where}.{f.name}")
    elif isinstance(reference, tuple):
        assert isinstance(compiled, tuple) and len(compiled) == len(reference), where
        for n, (a, b) in enumerate(zip(reference, compiled, strict=True)):
            same(a, b, f"{where}[{n}]")
    elif isinstance(reference, float):
        assert isinstance(compiled, float), where
        assert compiled == pytest.approx(reference, abs=1e-12), where
    else:
        assert type(compiled) is type(reference), where
        assert compiled == reference, where


@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_the_whole_evaluation_is_the_same_with_either_engine(system_id: str) -> None:
    players, games = stream(system_id, 5)
    vary = VARIED[system_id]
    refused: list[InvalidRecord] = []
    reference = evaluate_games(system_id, games, players, vary, "s", refused.append)
    skipped: list[InvalidRecord] = []
    compiled = evaluate_batch(system_id, encode(games), players, vary, "s", skipped.append)
    same(reference, compiled)
    assert [str(e) for e in skipped] == [str(e) for e in refused]
    assert len(reference.variants) == 3  # the base rules and 2 x 1 variants
    # the variants really rate otherwise: some list moved, the deviances differ
    moved = [p.comparison for r in reference.variants for p in r.pools if p.comparison]
    assert any(c.risers or c.fallers for c in moved)
    assert len({r.deviance for r in reference.variants}) > 1
    assert all(p.quality.games for pr in reference.predictors for p in pr.pools[:1])


@pytest.mark.parametrize("make", PREDICTORS, ids=[p.label for p in PREDICTORS])
def test_the_predictors_kernels_are_their_classes(make: Any) -> None:
    """A random stream of 3000 games among 40 players in three pools over a year (some
    players in almost every game, so the deviations reach their bounds; others back
    after weeks, so lichess's live deviation grows): the kernel's expected score before
    each game is the class's, game after game, to 1e-9."""
    rng = np.random.default_rng(7)
    n, players, pools = 3000, 40, 3
    white = np.where(rng.random(n) < 0.3, 0, rng.integers(0, players, n)).astype(np.int64)
    black = ((white + rng.integers(1, players, n)) % players).astype(np.int64)
    pool = rng.integers(0, pools, n).astype(np.int64)
    score = rng.choice([0.0, 0.5, 1.0], n)
    seconds = np.cumsum(rng.integers(0, 3 * 3600, n))  # up to three hours apart; ties
    at = (microseconds(START) + seconds * 1_000_000 + rng.integers(0, 10**6, n)).astype(np.int64)
    at.sort()
    fast = make().replay(white, black, pool, score, at, players, pools)
    predictor = make()
    expected = []
    for w, b, p, y, t in zip(white.tolist(), black.tolist(), pool.tolist(), score.tolist(),
                             at.tolist(), strict=True):  # fmt: skip
        when = moment(t)
        expected.append(predictor.expected(f"p{w}", f"p{b}", f"pool{p}", when))
        predictor.update(f"p{w}", f"p{b}", f"pool{p}", y, when)
    assert fast.shape == (n,)
    assert np.abs(fast - np.array(expected)).max() <= 1e-9
    learner = make()  # the same stream learnt in three parts, as the lab's thread does
    state = learner.begin(players, pools)
    parts = [learner.learn(state, white[a:b], black[a:b], pool[a:b], score[a:b], at[a:b])
             for a, b in ((0, 1000), (1000, 1001), (1001, n))]  # fmt: skip
    assert np.array_equal(np.concatenate(parts), fast)
    assert len(set(expected)) > n // 2  # the ratings moved
    assert not any(math.isnan(e) for e in fast.tolist())


def test_a_ledgers_order_is_kept_by_both_engines() -> None:
    """``in_order`` (a ledger's commit order): the games rated as given, not by
    ``played_at``; both engines give the same evaluation, and another one than by time."""
    players, games = stream("site", 9)
    shuffled = list(reversed(games))  # committed in another order than played
    refused: list[InvalidRecord] = []
    vary = VARIED["site"]
    reference = evaluate_games("site", shuffled, players, vary, "s", refused.append,
                               in_order=True)  # fmt: skip
    compiled = evaluate_batch("site", encode(shuffled), players, vary, "s", lambda e: None,
                              in_order=True)  # fmt: skip
    same(reference, compiled)
    by_time = evaluate_games("site", shuffled, players, vary, "s", lambda e: None)
    assert by_time.variants != reference.variants
