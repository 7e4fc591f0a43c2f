"""Calibrate the fair-play detector on real human games .

Reads lichess user exports (PGN with full movetext and WhiteElo/BlackElo), draws a
fixed-seed sample of rated standard games long enough to judge both sides (at least
``opening_plies + 2 * min_moves`` plies), analyses both sides of each with
:class:`chessrate.fairplay.StockfishDetector` at the detector's own limits
(:class:`chessrate.fairplay.DetectorRules`), and prints:

* the percentiles of the match rate and of the ACPL per rating band (the player's
  rating before the game), over the player-games with at least ``min_moves``
  analysed moves;
* the most engine-like human player-games (highest match rate, then lowest ACPL);
* how many player-games the current rules flag;
* with ``--engine-games N``, what the detector says of N games in which White plays
  Stockfish at a deeper search than the detector's (``--engine-depth``, 14: another
  engine setting than the reference, as a cheater's would be) from move 5 on, against
  a club player (Black: one of the three best moves of a depth-4 search, at random).

Usage (from the repository root; the default inputs are the project's shared data):

    .venv/bin/python bench/detector_calibration.py --games 240 --csv calibration.csv
"""

from __future__ import annotations

import argparse
import csv
import glob
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

import chess.pgn

from chessrate.fairplay import DetectorRules, StockfishDetector
from chessrate.systems.site_live import Side

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_INPUTS = [str(ROOT.parent / "shared" / "data" / "pgn_lichess_user_export_*" / "*.pgn")]
BANDS = ((0, 1400), (1400, 1600), (1600, 1800), (1800, 2000), (2000, 9999))


def read_games(path: str, min_plies: int) -> list[tuple[str, int, int, list[str]]]:
    """(lichess id, WhiteElo, BlackElo, UCI moves) of the rated standard games."""
    found = []
    with open(path, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            headers = game.headers
            if headers.get("Variant", "Standard") != "Standard":
                continue
            if "rated" not in headers.get("Event", "").lower():
                continue
            try:
                white, black = int(headers["WhiteElo"]), int(headers["BlackElo"])
            except (KeyError, ValueError):
                continue
            moves = [move.uci() for move in game.mainline_moves()]
            if len(moves) >= min_plies:
                game_id = headers.get("GameId") or headers.get("Site", "").rsplit("/", 1)[-1]
                found.append((game_id, white, black, moves))
    return found


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="*", default=DEFAULT_INPUTS, help="PGN files or globs")
    parser.add_argument("--games", type=int, default=240,
                        help="human games sampled in all (0: none)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--depth", type=int, help="override DetectorRules.depth")
    parser.add_argument("--csv", type=Path, help="write one row per player-game")
    parser.add_argument("--engine-games", type=int, default=0)
    parser.add_argument("--engine-depth", type=int, default=14)
    args = parser.parse_args()

    rules = DetectorRules()
    if args.depth is not None:
        from dataclasses import replace

        rules = replace(rules, depth=args.depth)
    min_plies = rules.opening_plies + 2 * rules.min_moves
    files = sorted(path for pattern in args.inputs for path in glob.glob(pattern))
    if not files:
        sys.exit(f"no PGN files match {args.inputs}")
    rng = random.Random(args.seed)
    if args.engine_games:
        engine_games(rules, args.engine_games, args.engine_depth, rng)
    if args.games == 0:
        return
    per_file = args.games // len(files)
    sample = []
    for path in files:  # the same number of games from each export (each is one player)
        games = read_games(path, min_plies)
        chosen = rng.sample(games, min(per_file, len(games)))
        sample += [(Path(path).name, *game) for game in chosen]
        print(f"{Path(path).name}: {len(games)} rated standard games of >= {min_plies} plies, "
              f"{len(chosen)} sampled", file=sys.stderr)  # fmt: skip

    rows: list[dict[str, Any]] = []
    started = time.monotonic()
    with StockfishDetector(rules) as detector:
        for n, (source, game_id, white, black, moves) in enumerate(sample, 1):
            evidence = detector.analyse(moves, {Side.WHITE: white, Side.BLACK: black})
            for side in Side:
                stats = evidence.stats(side)
                rows.append({
                    "source": source, "game": game_id, "side": side.value,
                    "rating": stats.rating, "moves": stats.moves, "matches": stats.matches,
                    "match_rate": round(stats.match_rate, 4), "acpl": round(stats.acpl, 1),
                    "flagged": side in evidence.flagged, "complete": evidence.complete,
                })  # fmt: skip
            if n % 20 == 0:
                print(f"{n}/{len(sample)} games, {time.monotonic() - started:.0f} s",
                      file=sys.stderr)  # fmt: skip
        engine = detector.name
    seconds = time.monotonic() - started

    if args.csv:
        with args.csv.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)

    judged = [row for row in rows if row["moves"] >= rules.min_moves]
    print(f"machine: {platform.machine()}, CPython {platform.python_version()}; {engine}, "
          f"depth {rules.depth}, Threads {rules.threads}, Hash {rules.hash_mb} MB; "
          f"{len(sample)} games ({len(rows)} player-games, {len(judged)} with >= "
          f"{rules.min_moves} analysed moves) in {seconds:.0f} s")  # fmt: skip
    print()
    print("| rating band | player-games | match p50 | p90 | p99 | max | "
          "ACPL p50 | p10 | p1 | min |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for low, high in BANDS:
        band = [row for row in judged if low <= row["rating"] < high]
        if not band:
            continue
        match = [float(row["match_rate"]) for row in band]
        acpl = [float(row["acpl"]) for row in band]
        print(f"| {low}-{high - 1} | {len(band)} | "
              + " | ".join(f"{percentile(match, p):.2f}" for p in (50, 90, 99))
              + f" | {max(match):.2f} | "
              + " | ".join(f"{percentile(acpl, p):.1f}" for p in (50, 10, 1))
              + f" | {min(acpl):.1f} |")  # fmt: skip
    print()
    print("the most engine-like human player-games (match rate, then ACPL):")
    print("| game | side | rating | moves | match | ACPL |")
    print("|---|---|---:|---:|---:|---:|")
    for row in sorted(judged, key=lambda r: (-float(r["match_rate"]), float(r["acpl"])))[:8]:
        print(f"| {row['game']} | {row['side']} | {row['rating']} | {row['moves']} | "
              f"{row['match_rate']:.2f} | {row['acpl']:.1f} |")  # fmt: skip
    flagged = [row for row in judged if row["flagged"]]
    print()
    print(f"flagged by the rules: {len(flagged)} of {len(judged)} player-games "
          f"(bands: {[(b.below, b.match_rate, b.acpl) for b in rules.bands]})")  # fmt: skip


def engine_games(rules: DetectorRules, count: int, depth: int, rng: random.Random) -> None:
    """Games where White plays Stockfish at ``depth`` (hash cleared) from ply 9 on."""
    import chess
    import chess.engine

    print(f"| engine game | White: Stockfish depth {depth} | moves | match | ACPL | flagged |")
    print("|---|---|---:|---:|---:|---|")
    with StockfishDetector(rules) as detector:
        engine = detector.engine
        for n in range(1, count + 1):
            board = chess.Board()
            while len(board.move_stack) < 100 and not board.is_game_over():
                strong = board.turn == chess.WHITE and len(board.move_stack) >= 8
                limit = chess.engine.Limit(depth=depth if strong else 4)
                infos = engine.analyse(board, limit, multipv=1 if strong else 3, game=object())
                board.push(rng.choice([info["pv"][0] for info in infos]))
            moves = [move.uci() for move in board.move_stack]
            evidence = detector.analyse(moves, {Side.WHITE: 1500, Side.BLACK: 1500})
            white = evidence.white
            flagged = "yes" if Side.WHITE in evidence.flagged else "no"
            print(f"| {n} | {len(moves)} plies | {white.moves} | {white.match_rate:.2f} | "
                  f"{white.acpl:.1f} | {flagged} |")  # fmt: skip
    print()


if __name__ == "__main__":
    main()
