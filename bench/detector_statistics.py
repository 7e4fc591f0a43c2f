"""Which statistic tells a cheater's game from a human's best, on the stored analyses?

The detector's score (``chessrate.fairplay.model``: the z-scores of matches and of
losses against the model of human play) is one way to read a game's analysed
positions. This script reads the same positions (``bench/data/fairplay``, analysed at
the detector's limits; no engine is run) in three other ways and compares all four at
the same false-positive rates on the human games, so a change of statistic can be
judged by its numbers:

* ``shipped``: the detector's own score (``judge``), as ``bench/detector_eval.py``;
* ``rank z``: each evidence move put in one of three classes by the engine's ranking
  of the move played (its first choice, its second, any other); the share of first
  choices and, with twice the weight, the share of *other* moves (an engine's move is
  almost never outside the judge's two best) as z-scores against the human share of
  the same cell (band x spread x decided, fitted like the shipped model);
* ``LR``: the log-likelihood ratio (in nats) of the five outcome classes (first,
  second, other by how much worse than the second: under 0.02, under 0.06, more)
  under an engine model against the human model of the player's rating; the engine
  model is fitted on the ``full`` made-up cheaters' moves, leaving out the player
  judged (leave one player out);
* ``mixture LR``: the same classes, the alternative being a player who takes the
  engine's move on a share ``s`` of their moves and plays as a human on the rest; the
  statistic is the log-likelihood ratio at the best ``s`` (0 when no share beats all
  human), so a partial cheater is not scored as a full one who plays badly.

For each statistic, a per-game threshold is set at the human player-games' 99th and
99.7th percentiles and above their maximum (over both parts of the corpus, games with
10 evidence moves or more), and each cheater kind's games of 40 plies or more above
it are counted; then players of five games at a threshold above every human run of
five games. Printed as markdown tables (bench/RESULTS.md, "Other statistics tried").

``python bench/detector_statistics.py``
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detector_eval import human_records
from fairplay_cheaters import HUMAN_FILES, held_out
from fairplay_cheaters import OUT as CHEATERS
from fairplay_corpus import CORPUS_LIMITS, DATA, load_cache, positions_of, read_games

from chessrate.fairplay.detector import DetectorRules, judge_record, judge_side
from chessrate.fairplay.detector import PlayerGame as Verdict
from chessrate.fairplay.model import (
    BAND_EDGES,
    SPREAD_EDGES,
    Move,
    band_of,
    blend,
    default_model,
    evidence_move,
    expected,
)
from chessrate.systems.site_live import Side

CLASSES = 5
"""first choice, second choice, other within 0.02 of the second, within 0.06, worse."""
PRIOR_MOVES = 30.0
"""A cell's weight of moves borrowed from the same cell of every band, as the model's."""
KINDS = ("full", "strong", "weak", "share30", "share40", "share50", "late", "none")


@dataclass(slots=True)
class PlayerGame:
    group: str  # "train", "test" (human) or "cheat"
    kind: str  # the human file, or the cheater's kind
    player: str
    rating: int
    plies: int
    moves: list[tuple[Move, int]]  # the evidence move and its outcome class
    scores: dict[str, float] = field(default_factory=dict)
    verdict: Verdict | None = None


def outcome(move: Move, rank: int, gap: float) -> int:
    if rank == 1:
        return 0
    if rank == 2:
        return 1
    worse = move.loss - gap
    return 2 if worse < 0.02 else 3 if worse < 0.06 else 4


def load() -> list[PlayerGame]:
    rules = DetectorRules()
    cache = load_cache()
    out: list[PlayerGame] = []
    sources = [(DATA / f, False) for f in HUMAN_FILES] + [(CHEATERS, True)]
    for path, made_up in sources:
        for game in read_games(path):
            record = cache.get(game.digest(CORPUS_LIMITS))
            if record is None:
                continue
            moves: list[tuple[Move, int]] = []
            for p in positions_of(record):
                m = evidence_move(p, rules.moves)
                if m is None:
                    continue
                rank = 1 if m.matched else 2 if len(p.top) > 1 and p.played == p.top[1][0] else 3
                gap = expected(p.top[0][1]) - expected(p.top[1][1]) if len(p.top) > 1 else 1.0
                moves.append((m, outcome(m, rank, gap)))
            sides = [(1, game.white, game.white_elo), (0, game.black, game.black_elo)]
            if made_up:
                cheater = 1 if game.headers["Cheater"] == "white" else 0
                sides = [s for s in sides if s[0] == cheater]
                group, kind = "cheat", game.headers["Kind"]
            else:
                group, kind = ("test" if held_out(game) else "train"), path.name
            for parity, name, rating in sides:
                if rating is not None:
                    mine = [(m, c) for m, c in moves if m.ply % 2 == parity]
                    out.append(PlayerGame(group, kind, name, rating, len(game.moves), mine))
    return out


Cells = dict[tuple[int, int, bool], list[float]]


def fit_human(games: Sequence[PlayerGame]) -> Cells:
    """Each cell's shares of the outcome classes, smoothed toward every band's."""
    own: dict[tuple[int, int, bool], list[float]] = defaultdict(lambda: [0.0] * CLASSES)
    pooled: dict[tuple[int, bool], list[float]] = defaultdict(lambda: [0.0] * CLASSES)
    for g in games:
        for m, c in g.moves:
            own[(band_of(g.rating), m.spread, m.decided)][c] += 1
            pooled[(m.spread, m.decided)][c] += 1
    cells: Cells = {}
    for band in range(len(BAND_EDGES) + 1):
        for spread in range(len(SPREAD_EDGES) + 1):
            for decided in (False, True):
                prior = pooled[(spread, decided)]
                total = sum(prior) or 1.0
                counts = [
                    own[(band, spread, decided)][k] + PRIOR_MOVES * prior[k] / total + 0.5
                    for k in range(CLASSES)
                ]
                cells[(band, spread, decided)] = [x / sum(counts) for x in counts]
    return cells


def human_shares(cells: Cells, rating: int, spread: int, decided: bool) -> list[float]:
    """The cell for ``rating``, blended between the two nearest bands' centres (as
    the shipped model blends its cells)."""
    low, high, t = blend(rating)
    a, b = cells[(low, spread, decided)], cells[(high, spread, decided)]
    return [x + t * (y - x) for x, y in zip(a, b, strict=True)]


def fit_engine(games: Sequence[PlayerGame]) -> dict[tuple[int, bool], list[float]]:
    counts: dict[tuple[int, bool], list[float]] = defaultdict(lambda: [0.5] * CLASSES)
    for g in games:
        for m, c in g.moves:
            counts[(m.spread, m.decided)][c] += 1
    return {key: [x / sum(v) for x in v] for key, v in counts.items()} | {
        (s, d): [1.0 / CLASSES] * CLASSES
        for s in range(len(SPREAD_EDGES) + 1)
        for d in (False, True)
        if (s, d) not in counts
    }


def rank_z(game: PlayerGame, cells: Cells) -> float:
    """z of first choices plus twice the z of moves outside the two best (fewer is
    better), with their covariance."""
    first = other = var_first = var_other = cov = 0.0
    for m, c in game.moves:
        p = human_shares(cells, game.rating, m.spread, m.decided)
        p1, po = p[0], sum(p[2:])
        first += (c == 0) - p1
        other += po - (c >= 2)
        var_first += p1 * (1 - p1)
        var_other += po * (1 - po)
        cov += p1 * po  # cov(first, -other): the two are exclusive
    var = var_first + 4 * var_other + 4 * cov
    return (first + 2 * other) / math.sqrt(var) if var > 0 else 0.0


def ratios(
    game: PlayerGame, cells: Cells, engine: dict[tuple[int, bool], list[float]]
) -> list[float]:
    return [
        engine[(m.spread, m.decided)][c] / human_shares(cells, game.rating, m.spread, m.decided)[c]
        for m, c in game.moves
    ]


def mixture(values: Sequence[float]) -> float:
    """max over s in [0, 1] of sum(log(1 - s + s r)): concave in s, by ternary search."""

    def f(s: float) -> float:
        return sum(math.log(1 - s + s * r) for r in values)

    lo, hi = 0.0, 1.0
    for _ in range(50):
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        lo, hi = (a, hi) if f(a) < f(b) else (lo, b)
    return max(0.0, f((lo + hi) / 2))


def together(run: Sequence[PlayerGame]) -> PlayerGame:
    """A run of one player's games as one game (their moves one after the other)."""
    first = run[0]
    moves = [m for g in run for m in g.moves]
    return PlayerGame(first.group, first.kind, first.player, first.rating, 0, moves)


def main() -> None:
    games = load()
    humans = [g for g in games if g.group != "cheat"]
    cheats = [g for g in games if g.group == "cheat"]
    cells = fit_human([g for g in humans if g.group == "train"])
    full = [g for g in cheats if g.kind == "full"]
    engine_all = fit_engine(full)
    engines = {p: fit_engine([g for g in full if g.player != p]) for p in {g.player for g in full}}
    model, rules = default_model(), DetectorRules()
    for g in games:
        engine = engines.get(g.player, engine_all)
        side = Side.WHITE if g.moves and g.moves[0][0].ply % 2 else Side.BLACK
        moves = [m for m, _ in g.moves]
        g.verdict = judge_side(side, g.rating, moves, rules, model)
        g.scores["shipped"] = g.verdict.score
        g.scores["rank z"] = rank_z(g, cells)
        r = ratios(g, cells, engine)
        g.scores["LR"] = sum(math.log(x) for x in r)
        g.scores["mixture LR"] = mixture(r)
    names = ("shipped", "rank z", "LR", "mixture LR")

    print("### Per game: cheaters' games of 40+ plies above a human percentile\n")
    long = {k: [g for g in cheats if g.kind == k and g.plies >= 40] for k in KINDS}
    print("| statistic | human limit | threshold | " + " | ".join(KINDS) + " |")
    print("|---|---|---:|" + "---:|" * len(KINDS))
    scored = [g for g in humans if len(g.moves) >= 10]
    for name in names:
        values = sorted(g.scores[name] for g in scored)
        for label, threshold in (
            ("p99", values[int(0.99 * len(values))]),
            ("p99.7", values[int(0.997 * len(values))]),
            ("max", values[-1]),
        ):
            cells_ = [f"{sum(g.scores[name] > threshold for g in long[k])}/{len(long[k])}"
                      for k in KINDS]  # fmt: skip
            print(f"| {name} | {label} of {len(values)} | {threshold:.2f} | "
                  + " | ".join(cells_) + " |")  # fmt: skip

    print("\n### Players of five games, above every human run of five\n")
    runs = human_records(humans, lambda g: g.kind)  # each human file's kind is its name
    players: dict[str, list[PlayerGame]] = defaultdict(list)
    for g in cheats:
        players[g.player].append(g)
    whole = {p: v for p, v in players.items() if len(v) == 5}
    combine: dict[str, Callable[[Sequence[PlayerGame]], float]] = {
        "shipped": lambda run: (
            judge_record(
                [(str(i), g.verdict) for i, g in enumerate(run) if g.verdict], rules, model
            ).score
        ),
        "rank z": lambda run: rank_z(together(run), cells),
        "LR": lambda run: sum(g.scores["LR"] for g in run),
        "mixture LR": lambda run: mixture(
            [x for g in run for x in ratios(g, cells, engines.get(g.player, engine_all))]
        ),
    }
    print(f"| statistic | threshold (max of {len(runs)} human runs) | " + " | ".join(KINDS) + " |")
    print("|---|---:|" + "---:|" * len(KINDS))
    for name in names:
        threshold = max(combine[name](run) for run in runs)
        row = []
        for kind in KINDS:
            mine = [v for v in whole.values() if v[0].kind == kind]
            row.append(f"{sum(combine[name](v) > threshold for v in mine)}/{len(mine)}")
        print(f"| {name} | {threshold:.2f} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
