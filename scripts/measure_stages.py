"""Stage by stage timing of the compiled path on a generated stream (not the benchmark
suite, which is bench/; the stream comes from bench/generate_stream.py).

    .venv/bin/python bench/generate_stream.py --games 2000000 --out /tmp/stream
    .venv/bin/python scripts/measure_stages.py /tmp/stream [arena,corr,site] [REPEATS]

Per system, best of REPEATS (default 3), in games per second of the file's rows:
``kernel`` (the numba kernel on the rated games, fresh states), ``replay()``
(classification, order, refusals, kernel; players file already registered),
``read`` (``read_batch`` of the CSV), ``e2e+arrays`` (read + replay with the site
annulments + ``rating_arrays()``) and ``e2e+lists`` (the same + ``rating_lists()``).
Also the bytes per (player, pool) of the state arrays and the load average.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from chessrate.fast import Roster, replay
from chessrate.io.columnar import read_batch
from chessrate.io.games import read_annulments, read_players


def best(repeats: int, run: Callable[[], Any]) -> tuple[float, Any]:
    times, value = [], None
    for _ in range(repeats):
        began = time.perf_counter()
        value = run()
        times.append(time.perf_counter() - began)
    return min(times), value


def measure(system_id: str, data: Path, repeats: int) -> None:
    games_path = data / f"{system_id}_games.csv"
    roster = Roster(system_id, read_players(data / f"{system_id}_players.csv"))
    annulments: list[tuple[str, str]] = []
    if system_id == "site":
        requests = read_annulments(data / "site_annulments.txt")
        annulments = [(game_id, reason) for _, game_id, reason in requests]
    batch = read_batch(games_path)  # also loads the compiled kernels
    rows = len(batch)
    result = replay(system_id, batch, roster)
    kernel_of = getattr(importlib.import_module("chessrate.fast.replay"), f"_{system_id}")
    white, black = batch.white.astype(np.int64), batch.black.astype(np.int64)
    attributes = roster.attributes(result.names)

    def kernel() -> None:  # fresh states each time
        kernel_of(result, result.decided, white, black, attributes, result.rated_rows, None)

    def e2e(lists: bool) -> Any:
        done = replay(system_id, read_batch(games_path), roster, annulments=annulments)
        return done.rating_lists() if lists else done.rating_arrays()

    t_kernel, _ = best(repeats, kernel)
    t_replay, _ = best(repeats, lambda: replay(system_id, batch, roster))
    t_read, _ = best(repeats, lambda: read_batch(games_path))
    t_arrays, _ = best(repeats, lambda: e2e(False))
    t_lists, _ = best(repeats, lambda: e2e(True))
    state_bytes = sum(a.nbytes for a in result.states.values())
    per = state_bytes / (len(result.names) * len(roster.system.pools))
    rated = int(result.rated_rows.shape[0])
    print(
        f"{system_id}: {rows:,} rows ({rated:,} rated), {len(result.names):,} players; "
        f"kernel {rated / t_kernel / 1e6:.2f} M rated games/s ({t_kernel:.3f} s), "
        f"replay() {rows / t_replay / 1e6:.2f} M/s ({t_replay:.3f} s), "
        f"read {rows / t_read / 1e6:.2f} M/s ({t_read:.3f} s), "
        f"e2e+arrays {rows / t_arrays / 1e6:.2f} M/s ({t_arrays:.3f} s), "
        f"e2e+lists {rows / t_lists / 1e6:.2f} M/s ({t_lists:.3f} s); "
        f"state {per:.0f} bytes per (player, pool)",
        flush=True,
    )


def main() -> None:
    data = Path(sys.argv[1])
    systems = sys.argv[2].split(",") if len(sys.argv) > 2 else ["arena", "corr", "site"]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    print(f"load average {os.getloadavg()}; best of {repeats}")
    for system_id in systems:
        measure(system_id, data, repeats)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
