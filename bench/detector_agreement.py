"""How often the detector's search picks the move a cheater's engine played, by depth.

The made-up cheaters' engine (``bench/fairplay_cheaters.py``) is Stockfish at a fixed
depth from a cleared hash. For each setting of the judge (depth, candidates, hash
cleared before every position or kept through the game) this replays the first
``--games`` games of a kind, searches every position from ply 11 as the detector does,
and counts, over the cheater's engine moves, how often the move played is the judge's
first choice (``top1``) or one of its first two (``top2``), with the judge's time per
position (one thread, 16 MB of hash).

    python bench/detector_agreement.py [--kind full] [--games 5]
        [--settings 9:2:clear,9:2:kept,10:2:kept,11:2:kept,12:2:kept,12:1:kept,12:1:clear]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from chessrate.fairplay.detector import stockfish_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fairplay_cheaters import OUT as CHEATERS

SETTINGS = "9:2:clear,9:2:kept,10:2:kept,11:2:kept,12:2:kept,12:1:kept,12:1:clear"


def games_of(kind: str, count: int) -> list[chess.pgn.Game]:
    found: list[chess.pgn.Game] = []
    with CHEATERS.open(encoding="utf-8") as handle:
        while len(found) < count and (game := chess.pgn.read_game(handle)) is not None:
            if game.headers["Kind"] == kind:
                found.append(game)
    return found


def agreement(
    engine: chess.engine.SimpleEngine, games: list[chess.pgn.Game], depth: int,
    candidates: int, kept: bool,
) -> tuple[int, int, int, float]:  # fmt: skip
    """Engine moves, first-choice matches, top-two matches, seconds per position."""
    moves = top1 = top2 = positions = 0
    spent = 0.0
    for game in games:
        engine_plies = set(map(int, game.headers["EnginePlies"].split()))
        board = game.board()
        token = object()
        for ply, move in enumerate(game.mainline_moves(), 1):
            if ply > 10:
                began = time.perf_counter()
                infos = engine.analyse(
                    board, chess.engine.Limit(depth=depth), multipv=candidates,
                    game=token if kept else object(),
                )  # fmt: skip
                spent += time.perf_counter() - began
                positions += 1
                if ply in engine_plies:
                    best = [info["pv"][0] for info in infos if info.get("pv")]
                    moves += 1
                    top1 += best[0] == move
                    top2 += move in best[:2]
            board.push(move)
    return moves, top1, top2, spent / max(1, positions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", default="full")
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--settings", default=SETTINGS, help="depth:candidates:clear|kept,...")
    args = parser.parse_args()
    games = games_of(args.kind, args.games)
    engine = chess.engine.SimpleEngine.popen_uci(stockfish_path())
    engine.configure({"Threads": 1, "Hash": 16})
    print(f"{len(games)} `{args.kind}` games\n")
    print("| judge | engine moves | top1 | top2 | ms a position |")
    print("|---|---:|---:|---:|---:|")
    try:
        for spec in args.settings.split(","):
            depth, candidates, mode = spec.split(":")
            n, one, two, seconds = agreement(
                engine, games, int(depth), int(candidates), mode == "kept"
            )
            row = f"| depth {depth}, {candidates} candidates, hash {mode} | {n} | "
            row += f"{one / n:.3f} | {two / n:.3f} | {1000 * seconds:.1f} |"
            print(row, flush=True)
    finally:
        engine.quit()


if __name__ == "__main__":
    main()
