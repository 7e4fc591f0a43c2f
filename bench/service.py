"""Benchmark: sustained rated-game submissions over HTTP on loopback.

For SQLite and PostgreSQL, and 1, 4 and 16 concurrent clients: a fresh `site`
ledger with 1,000 players, `chessrate serve` (1 worker on SQLite, where there is
one writer anyway; 4 on PostgreSQL), then each client posts distinct rated games
(random pairs, every game type) for a fixed time. Prints games/s and the p50 and
p99 latency of the submissions. The clients run on the same machine as the
server and share its cores. The last columns are the CPU time each game cost
the server (its workers), PostgreSQL (the cluster's processes) and the clients,
from /proc.

    .venv/bin/python bench/service.py [--seconds 10] [--clients 1,4,16]

PostgreSQL is a throw-away cluster started for the run (Debian's package, as in
the test suite). Results go to bench/RESULTS.md by hand, with command and machine.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import platform
import random
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support import postgres
from tests.support.server import server_process

from chessrate import Player
from chessrate.ledger import Ledger

PLAYERS = 1_000
CONTROLS = ["1m+0s", "3m+2s", "5m+3s", "10m", "15m+10s", "30m", "-", "2d"]


def prepare(url: str) -> str:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    ledger = Ledger.create(url, "site", now)
    for number in range(PLAYERS):
        ledger.players.create(Player(f"p{number}"), now)
    token = ledger.tokens.create("writer", "bench", now)
    ledger.dispose()
    return token


TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(*roots: int) -> list[float]:
    """CPU seconds (user + system) so far of the process tree under each root (the
    server and its workers; PostgreSQL's postmaster and its backends): Linux's /proc."""
    children: dict[int, list[int]] = {}
    spent: dict[int, tuple[str, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        spent[int(entry.name)] = (name, (int(fields[11]) + int(fields[12])) / TICKS)
    totals = []
    for root in roots:
        total, stack = 0.0, [root] if root else []
        while stack:
            pid = stack.pop()
            total += spent.get(pid, ("", 0.0))[1]
            stack += children.get(pid, [])
        totals.append(total)
    return totals


def postmaster(admin_url: str) -> int:
    """The pid of the throw-away cluster's postmaster (0: not PostgreSQL)."""
    if not admin_url:
        return 0
    folder = admin_url.partition("host=")[2].partition("&")[0]
    return int((Path(folder) / "data" / "postmaster.pid").read_text().split()[0])


def run_clients(
    base: str, token: str, clients: int, seconds: float, tag: str
) -> tuple[int, list[float]]:
    counter = itertools.count()
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    start = datetime(2026, 2, 1, tzinfo=UTC)
    stop_at = time.perf_counter() + seconds

    def client(seed: int) -> None:
        rng = random.Random(seed)
        mine: list[float] = []
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        host, port = base.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        conn.connect()
        assert conn.sock is not None
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        while time.perf_counter() < stop_at:
            number = next(counter)
            white, black = rng.sample(range(PLAYERS), 2)
            game = {
                "id": f"{tag}{number}",
                "played_at": (start + timedelta(seconds=number)).isoformat(),
                "white": f"p{white}", "black": f"p{black}",
                "result": rng.choice(["1-0", "0-1", "1/2-1/2"]),
                "time_control": rng.choice(CONTROLS), "plies": rng.randint(2, 120),
            }  # fmt: skip
            began = time.perf_counter()
            conn.request("POST", "/api/v1/games", body=json.dumps(game), headers=headers)
            response = conn.getresponse()
            text = response.read()
            mine.append(time.perf_counter() - began)
            if response.status != 201:
                errors.append(f"{response.status} {text[:200]!r}")
        conn.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise SystemExit(f"{len(errors)} submissions failed, e.g. {errors[0]}")
    return len(latencies), latencies


@contextmanager
def database(kind: str) -> Iterator[tuple[str, str]]:
    """(admin URL or '', fresh URL factory seed) for one kind of database."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            yield "", folder
    else:
        with postgres.cluster() as admin:
            yield admin, ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", default="1,4,16")
    parser.add_argument("--databases", default="sqlite,postgres")
    args = parser.parse_args()
    machine = f"{platform.machine()}, {platform.python_implementation()}"
    print(f"machine: {machine} {platform.python_version()}; {PLAYERS} players; "
          f"{args.seconds:g} s per row")  # fmt: skip
    print("| database | workers | clients | games | games/s | p50 ms | p99 ms "
          "| CPU ms/game: server | postgres | clients |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind in args.databases.split(","):
        with database(kind) as (admin, folder):
            for clients in (int(c) for c in args.clients.split(",")):
                if kind == "sqlite":
                    url = f"sqlite:///{folder}/bench-{clients}.db"
                    workers = 1
                else:
                    url = postgres.fresh_database(admin)
                    workers = 4
                token = prepare(url)
                with server_process(url, workers=workers) as (base, process):
                    run_clients(base, token, clients, 1.0, "warm")  # warm up every worker
                    roots = (process.pid, postmaster(admin))
                    server, postgres_cpu = cpu_seconds(*roots)
                    mine = time.process_time()
                    began = time.perf_counter()
                    count, latencies = run_clients(base, token, clients, args.seconds, "b")
                    elapsed = time.perf_counter() - began
                    mine = time.process_time() - mine
                    server_after, postgres_after = cpu_seconds(*roots)
                cuts = statistics.quantiles(latencies, n=100)
                spent = (server_after - server, postgres_after - postgres_cpu, mine)
                print(
                    f"| {kind} | {workers} | {clients} | {count:,} | {count / elapsed:,.0f} | "
                    f"{cuts[49] * 1000:.1f} | {cuts[98] * 1000:.1f} | "
                    + " | ".join(f"{seconds * 1000 / count:.2f}" for seconds in spent)
                    + " |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
