"""How well the fair-play detector tells cheaters from humans, measured.

The human corpus (``bench/data/fairplay``: two lichess players' exports, 1000-2000,
and Magnus Carlsen's over-the-board games with his opponents', 2000-2880; see its
SOURCE.md) is split by game: every third game of each file is held out, the rest fit
the model of human play (``--fit`` writes ``src/chessrate/fairplay/model.json``). The
cheating games are made by ``bench/fairplay_cheaters.py`` (``cheaters.pgn``).

Every game is analysed at the detector's limits (``bench/fairplay_corpus.py``: the
analyses are kept in ``analyses.jsonl.gz`` and only missing ones are searched), then
judged with the detector's rules, exactly as ``chessrate detect`` judges it.

Printed (markdown tables, as recorded in bench/RESULTS.md):

* per rating band, the held-out human player-games flagged, and the human *players*
  flagged over five games (the main player of each file in runs of five of their
  held-out games, and every other player-game of the band in runs of five);
* per kind of cheater, the games of 40 plies or more flagged alone, and the players
  flagged over their five games;
* the seconds of analysis per game (one engine thread).

``python bench/detector_eval.py [--fit] [--time N]``; ``--time N`` analyses N games
again, now, and reports their time instead of the stored one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import chess.engine

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fairplay_cheaters import HUMAN_FILES, held_out
from fairplay_cheaters import OUT as CHEATERS
from fairplay_corpus import (
    CORPUS_LIMITS,
    DATA,
    CorpusGame,
    analyse_corpus,
    load_cache,
    positions_of,
    read_games,
)

from chessrate.fairplay.analysis import analyse_moves
from chessrate.fairplay.detector import (
    DetectorRules,
    PlayerGame,
    judge,
    judge_record,
    stockfish_path,
)
from chessrate.fairplay.model import (
    BAND_EDGES,
    HumanModel,
    band_of,
    default_model,
    evidence_move,
    fit,
)
from chessrate.systems.site_live import Side

MODEL = Path(__file__).resolve().parents[1] / "src" / "chessrate" / "fairplay" / "model.json"


def band_name(index: int) -> str:
    if index == 0:
        return f"< {BAND_EDGES[0]}"
    if index == len(BAND_EDGES):
        return f"{BAND_EDGES[-1]}+"
    return f"{BAND_EDGES[index - 1]}-{BAND_EDGES[index] - 1}"


@dataclass(frozen=True, slots=True)
class Judged:
    game: CorpusGame
    side: Side
    player: str
    rating: int | None
    verdict: PlayerGame

    @property
    def gid(self) -> str:
        return self.game.key


def judged_games(
    games: Sequence[CorpusGame], cache: dict[str, dict[str, Any]], rules: DetectorRules,
    model: HumanModel,
) -> list[Judged]:  # fmt: skip
    out = []
    for game in games:
        record = cache[game.digest(CORPUS_LIMITS)]
        positions = positions_of(record)
        ratings = {Side.WHITE: game.white_elo, Side.BLACK: game.black_elo}
        evidence = judge(positions, ratings, rules, model)
        for side, name in ((Side.WHITE, game.white), (Side.BLACK, game.black)):
            out.append(Judged(game, side, name, ratings[side], evidence.side(side)))
    return out


class Sample(Protocol):
    """A judged human player-game, as :func:`human_records` groups it."""

    @property
    def player(self) -> str: ...
    @property
    def rating(self) -> int | None: ...


S = TypeVar("S", bound=Sample)


def human_records(judged: Sequence[S], source: Callable[[S], str]) -> list[list[S]]:
    """Runs of five player-games: the main player of each file (``source``), then every
    other player-game of a band."""
    by_file: dict[str, list[S]] = defaultdict(list)
    for j in judged:
        by_file[source(j)].append(j)
    records: list[list[S]] = []
    pools: dict[int, list[S]] = defaultdict(list)
    for items in by_file.values():
        main, _ = Counter(j.player for j in items).most_common(1)[0]
        own = [j for j in items if j.player == main]
        records.extend(own[i : i + 5] for i in range(0, len(own) - 4, 5))
        for j in items:
            if j.player != main and j.rating is not None:
                pools[band_of(j.rating)].append(j)
    for pool in pools.values():
        records.extend(pool[i : i + 5] for i in range(0, len(pool) - 4, 5))
    return records


def record_flagged(items: Sequence[Judged], rules: DetectorRules, model: HumanModel) -> bool:
    return judge_record([(j.gid, j.verdict) for j in items], rules, model).flagged


def pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.1f} %)" if b else "-"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="fit the model and write it")
    parser.add_argument("--time", type=int, default=0, help="analyse N games again and time them")
    parser.add_argument("--scores", action="store_true", help="print score quantiles too")
    parser.add_argument("--cached", action="store_true", help="only the games analysed already")
    args = parser.parse_args(argv)
    rules = DetectorRules()
    humans = [g for f in HUMAN_FILES for g in read_games(DATA / f)]
    cheats = list(read_games(CHEATERS)) if CHEATERS.exists() else []
    if args.cached:
        cache = load_cache()
        humans = [g for g in humans if g.digest(CORPUS_LIMITS) in cache]
        cheats = [g for g in cheats if g.digest(CORPUS_LIMITS) in cache]
    else:
        cache = analyse_corpus(humans + cheats)
    train = [g for g in humans if not held_out(g)]
    test = [g for g in humans if held_out(g)]
    if args.fit:
        samples = []
        for game in train:
            positions = positions_of(cache[game.digest(CORPUS_LIMITS)])
            moves = [m for p in positions if (m := evidence_move(p, rules.moves)) is not None]
            for side, rating in ((1, game.white_elo), (0, game.black_elo)):
                if rating is not None:
                    samples.append((rating, [m for m in moves if m.ply % 2 == side]))
        fitted_on = (
            f"{len(samples)} human player-games of {len(train)} games (bench/data/fairplay: "
            f"lichess 1000-2000 and Carlsen's over-the-board games 2000-2880), every third "
            f"game held out; depth {rules.depth}, {rules.candidates} candidates"
        )
        model = fit(samples, fitted_on)
        MODEL.write_text(json.dumps(model.to_json(), indent=0) + "\n", encoding="utf-8")
        default_model.cache_clear()
        print(f"model written: {MODEL.name}: {fitted_on}; rho {model.rho:.3f}\n")
    model = default_model()

    for title, part in (("held out", test), ("fitted on", train)):
        judged = judged_games(part, cache, rules, model)
        bands: dict[int, list[Judged]] = defaultdict(list)
        for j in judged:
            if j.rating is not None:
                bands[band_of(j.rating)].append(j)
        records = human_records(judged, lambda j: j.game.source)
        record_bands: dict[int, list[list[Judged]]] = defaultdict(list)
        for rec in records:
            if rec[0].rating is not None:
                record_bands[band_of(rec[0].rating)].append(rec)
        print(f"### Human games, {title} part\n")
        print("| band | player-games | flagged | players (5 games) | flagged |")
        print("|---|---:|---:|---:|---:|")
        for band in sorted(bands):
            items = bands[band]
            flagged = sum(j.verdict.flagged for j in items)
            recs = record_bands.get(band, [])
            rflag = sum(record_flagged(r, rules, model) for r in recs)
            print(f"| {band_name(band)} | {len(items)} | {pct(flagged, len(items))} | "
                  f"{len(recs)} | {pct(rflag, len(recs))} |")  # fmt: skip
        if args.scores:
            games = sorted(j.verdict.score for j in judged)
            choices = sorted(j.verdict.choice_score for j in judged
                             if j.verdict.moves >= rules.min_moves)  # fmt: skip
            windows = sorted(j.verdict.window.score for j in judged if j.verdict.window)
            judged_records = [judge_record([(j.gid, j.verdict) for j in r], rules, model)
                              for r in records]  # fmt: skip
            recs_s = sorted(r.score for r in judged_records)
            recs_c = sorted(r.choice_score for r in judged_records)
            for name, values in (("game", games), ("choice", choices), ("window", windows),
                                 ("record", recs_s), ("record choice", recs_c)):  # fmt: skip
                if values:
                    q = statistics.quantiles(values, n=100)
                    print(f"\n{name} score: p50 {q[49]:.2f} p99 {q[98]:.2f} max {values[-1]:.2f}")
        print()

    if cheats:
        judged = [j for j in judged_games(cheats, cache, rules, model)
                  if j.game.headers.get("Cheater") == j.side.value]  # fmt: skip
        kinds: dict[str, list[Judged]] = defaultdict(list)
        for j in judged:
            kinds[j.game.headers["Kind"]].append(j)
        print("### Made-up cheaters\n")
        print("| kind | games of 40+ plies | flagged alone | players (5 games) | flagged | "
              "median game score |")  # fmt: skip
        print("|---|---:|---:|---:|---:|---:|")
        for kind, items in kinds.items():
            long = [j for j in items if len(j.game.moves) >= 40]
            gflag = sum(j.verdict.flagged for j in long)
            players: dict[str, list[Judged]] = defaultdict(list)
            for j in items:
                players[j.player].append(j)
            players = {k: v for k, v in players.items() if len(v) == 5}  # whole ones
            pflag = sum(record_flagged(v, rules, model) for v in players.values())
            median = statistics.median(j.verdict.score for j in items)
            print(f"| {kind} | {len(long)} | {pct(gflag, len(long))} | {len(players)} | "
                  f"{pct(pflag, len(players))} | {median:.2f} |")  # fmt: skip
        print()

    if args.time:
        engine = chess.engine.SimpleEngine.popen_uci(stockfish_path())
        engine.configure({"Threads": rules.threads, "Hash": rules.hash_mb})
        seconds = []
        try:
            for game in test[: args.time]:
                wall = time.monotonic()
                analyse_moves(engine, game.moves, rules)
                seconds.append(time.monotonic() - wall)
        finally:
            engine.quit()
        times = seconds
        timed = test[: args.time]
        label = f"{len(times)} held-out games analysed now"
    else:
        times = [float(cache[g.digest(CORPUS_LIMITS)]["seconds"]) for g in humans]
        timed = humans
        label = f"{len(times)} human games, as stored"
    plies = statistics.mean(len(g.moves) for g in timed)
    print(f"### Analysis time\n\n{label} (mean {plies:.0f} plies): mean "
          f"{statistics.mean(times):.2f} s, median {statistics.median(times):.2f} s, "
          f"max {max(times):.2f} s per game, one engine thread.")  # fmt: skip


if __name__ == "__main__":
    main()
