"""Benchmark: the reference (pure-Python) ``arena`` replay, games per second.

Generates a reproducible stream (players imported as rated, every game rated,
a mix of pools, ~10 % draws, some new players qualifying) and replays it
through :class:`chessrate.Engine`. Prints a table; copy it into
``bench/RESULTS.md`` with the command and the machine.

    .venv/bin/python bench/arena_replay.py [--games N] [--players P]
"""

from __future__ import annotations

import argparse
import platform
import random
import resource
import time
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from chessrate import Engine, GameRecord, Player, Result
from chessrate.records import ImportedRating
from chessrate.systems.arena import ArenaSystem
from chessrate.timecontrol import parse_time_control

CONTROLS = [parse_time_control(text) for text in ("300+3", "180+2", "900+10", "60+1", "600+0")]


def make_stream(games: int, players: int, seed: int = 1) -> tuple[list[Player], list[GameRecord]]:
    rng = random.Random(seed)
    until = date(2100, 1, 1)
    roster = []
    for index in range(players):
        imported = {}
        if index % 10:  # 90 % imported as rated, 10 % new players who must qualify
            for pool in ("rapid", "blitz", "bullet"):
                rating = Decimal(rng.randint(120_000, 240_000)) / 100
                imported[pool] = ImportedRating(rating, rng.randint(0, 200))
        roster.append(Player(f"p{index}", membership_until=until, imported=imported))
    start = datetime(2026, 1, 1, tzinfo=UTC)
    stream = []
    for number in range(games):
        white, black = rng.sample(range(players), 2)
        roll = rng.random()
        result = (
            Result.DRAW if roll < 0.1 else Result.WHITE_WINS if roll < 0.55 else Result.BLACK_WINS
        )
        stream.append(
            GameRecord(
                id=f"g{number}",
                played_at=start + timedelta(seconds=number),
                white=f"p{white}",
                black=f"p{black}",
                result=result,
                time_control=rng.choice(CONTROLS),
            )
        )
    return roster, stream


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=10_000)
    args = parser.parse_args()
    roster, stream = make_stream(args.games, args.players)
    engine = Engine(ArenaSystem(), roster)
    began = time.perf_counter()
    engine.replay(stream)
    elapsed = time.perf_counter() - began
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    changes = sum(1 for _ in engine.changes())
    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {platform.system()}")  # fmt: skip
    print("| path | games | players | changes | seconds | games/s | process peak RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(
        f"| arena reference (Engine.replay, explanations kept) | {args.games:,} | "
        f"{args.players:,} | {changes:,} | {elapsed:.2f} | {args.games / elapsed:,.0f} | "
        f"{peak_mib:.0f} |"
    )


if __name__ == "__main__":
    main()
