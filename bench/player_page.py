"""Benchmark: a 20,000-game player's page (the target: under 300 KB and ~200 ms).

Builds a site ledger where ``busy`` played 20,000 blitz games (tests/support/
busy_player.py: bulk import), then renders the player's page and reads the API's
games list in process (FastAPI's test client, no network), several times each, and
prints the size and the best and median times of each.

    .venv/bin/python bench/player_page.py [--games 20000] [--runs 7]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.busy_player import BUSY, busy_ledger

PATHS = (
    f"/players/{BUSY}",
    f"/players/{BUSY}?page=400",
    f"/players/{BUSY}?range=1y",
    f"/api/v1/players/{BUSY}/games?offset=19950&limit=50",
    f"/api/v1/players/{BUSY}/stats",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

    from chessrate.server import create_app

    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        ledger = busy_ledger(f"sqlite:///{folder}/busy.db", Path(folder), args.games)
        print(f"ledger: {args.games} games in {time.perf_counter() - started:.1f} s")
        print(f"machine: {platform.machine()}, Python {platform.python_version()}")
        client = TestClient(create_app(ledger))
        print(f"{'path':52s} {'bytes':>8s} {'best ms':>8s} {'median ms':>10s}")
        for path in PATHS:
            times, size = [], 0
            for _ in range(args.runs):
                start = time.perf_counter()
                response = client.get(path)
                times.append((time.perf_counter() - start) * 1000)
                assert response.status_code == 200, response.text
                size = len(response.content)
            print(f"{path:52s} {size:8d} {min(times):8.0f} {statistics.median(times):10.0f}")
        ledger.dispose()


if __name__ == "__main__":
    main()
