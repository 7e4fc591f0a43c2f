"""Quick measurement of the compiled replay (not the benchmark suite, which is bench/).

    .venv/bin/python scripts/measure_replay.py [GAMES] [PLAYERS]

Prints kernel games/s per system on random rated games between PLAYERS players
(all of them members with an imported rating in every pool, so every game is rated),
and end-to-end games/s from a CSV file (read_batch + replay + rating lists).
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import date
from decimal import Decimal
from pathlib import Path

import numpy as np

from chessrate.fast import GameBatch, replay
from chessrate.io.columnar import read_batch
from chessrate.records import ImportedRating, Player

CONTROLS = {"arena": (180, 2), "corr": (0, 0), "site": (300, 3)}


def batch(system_id: str, games: int, players: int, seed: int = 1) -> GameBatch:
    rng = np.random.default_rng(seed)
    white = rng.integers(0, players, games, dtype=np.int32)
    black = (white + rng.integers(1, players, games, dtype=np.int32)) % players
    base, inc = CONTROLS[system_id]
    return GameBatch(
        game=np.arange(games, dtype=np.int64),
        game_ids=[f"g{i}" for i in range(games)],
        white=white.astype(np.int32),
        black=black.astype(np.int32),
        player_ids=[f"p{i}" for i in range(players)],
        played_at=np.sort(rng.integers(1_760_000_000, 1_780_000_000, games)) * 1_000_000,
        result=rng.integers(0, 3, games, dtype=np.int8),
        rated=np.ones(games, np.bool_),
        tc_kind=np.full(games, 3 if system_id == "corr" else 1, np.int8),
        tc_base=np.full(games, base, np.int64),
        tc_increment=np.full(games, inc, np.int64),
        tc_days=np.full(games, 3, np.int64),
        termination=np.zeros(games, np.int8),
        plies=np.full(games, 60, np.int32),
        venue=np.zeros(games, np.int8),
        confirmed=np.full(games, -1, np.int8),
        source="generated",
        lines=np.arange(2, games + 2, dtype=np.int64),
    )


def roster(system_id: str, players: int) -> list[Player]:
    pools = {"arena": ("rapid", "blitz", "bullet"), "corr": ("corr",), "site": ("site",)}
    rating = ImportedRating(Decimal("1600.00"), 40)
    return [
        Player(f"p{i}", membership_until=date(2030, 1, 1) if system_id == "arena" else None,
               imported={pool: rating for pool in pools[system_id]})
        for i in range(players)
    ]  # fmt: skip


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000_000
    players = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    print(f"{games:,} games, {players:,} players")
    for system_id in ("arena", "corr", "site"):
        the_batch, the_roster = batch(system_id, games, players), roster(system_id, players)
        replay(system_id, batch(system_id, 1000, players), the_roster)  # compile / load
        kernel_seconds: list[float] = []
        total = time.perf_counter()
        result = replay(system_id, the_batch, the_roster, progress=lambda n: None)
        total = time.perf_counter() - total
        t = time.perf_counter()
        result2 = replay(system_id, the_batch, the_roster)
        kernel_seconds.append(time.perf_counter() - t)
        assert result2.games == result.games == games
        print(f"  {system_id}: replay() {games / total / 1e6:.2f} M games/s "
              f"(classification, sort, kernel; players file excluded)")  # fmt: skip
    # the kernels alone
    from chessrate.fast import kernels, tables

    rng = np.random.default_rng(2)
    n = games
    order = np.arange(n, dtype=np.int64)
    white = rng.integers(0, players, n).astype(np.int64)
    black = (white + rng.integers(1, players, n)) % players
    halves = rng.integers(0, 3, n).astype(np.int64)
    shape = (players, 3)
    status = np.full(shape, 2, np.int64)
    rating = np.full(shape, 160_000, np.int64)
    zeros = [np.zeros(shape, np.int64) for _ in range(4)]
    pool = rng.integers(0, 3, n).astype(np.int64)
    k_pool = np.array([20, 20, 10], np.int64)
    args = (pool, white, black, halves, status, rating, *zeros,
            tables.table_b_pd_high(), tables.table_a_dp(), k_pool)  # fmt: skip
    kernels.arena_kernel(order[:10], *args)
    t = time.perf_counter()
    kernels.arena_kernel(order, *args)
    print(f"  arena kernel: {n / (time.perf_counter() - t) / 1e6:.1f} M games/s")
    c = [np.full(players, 2, np.int64), np.full(players, 160_000, np.int64),
         np.full(players, 40, np.int64), np.zeros(players, np.int64)]  # fmt: skip
    kernels.corr_kernel(order[:10], white, black, halves, *c)
    t = time.perf_counter()
    kernels.corr_kernel(order, white, black, halves, *c)
    print(f"  corr kernel: {n / (time.perf_counter() - t) / 1e6:.1f} M games/s")
    s_rating = np.full((players, 9), 150_000, np.int64)
    s_games = np.zeros((players, 9), np.int64)
    kind = rng.integers(1, 9, n).astype(np.int64)
    quarters = np.full(n, 3, np.int64)
    bots = np.zeros(players, np.bool_)
    changes = np.zeros((n, 4), np.int64)
    sargs = (kind, quarters, white, black, halves, bots, np.zeros(players, np.int64), s_rating,
             s_games, tables.site_expected_table())  # fmt: skip
    kernels.site_kernel(order[:10], *sargs, changes[:10])
    t = time.perf_counter()
    kernels.site_kernel(order, *sargs, changes)
    print(f"  site kernel: {n / (time.perf_counter() - t) / 1e6:.1f} M games/s")

    # end to end from CSV (1/5 of the games)
    rows = games // 5
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.csv"
        b = batch("site", rows, players)
        stamps = np.datetime_as_string(b.played_at.astype("datetime64[us]").astype("datetime64[s]"))
        res = np.array(["1-0", "0-1", "1/2-1/2"])[b.result]
        with path.open("w") as handle:
            handle.write("id,played_at,white,black,result,time_control,plies\n")
            handle.writelines(
                f"g{i},{stamps[i]}Z,p{b.white[i]},p{b.black[i]},{res[i]},300+3,60\n"
                for i in range(rows)
            )
        the_roster = roster("site", players)
        t = time.perf_counter()
        the_batch = read_batch(path)
        read = time.perf_counter() - t
        result = replay("site", the_batch, the_roster)
        lists = result.rating_lists()
        total = time.perf_counter() - t
        assert result.games == rows and lists["site"]
        print(f"  site end to end from CSV ({rows:,} rows): {rows / total / 1e6:.2f} M games/s "
              f"(read {rows / read / 1e6:.2f} M rows/s; rating lists included)")  # fmt: skip


if __name__ == "__main__":
    main()
