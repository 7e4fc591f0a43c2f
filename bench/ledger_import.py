"""Benchmark: a site's history into the ledger, as a user does it.

On one generated ``site`` stream (bench/generate_stream.py, default 200 k games, 20 k
players, CSV), each command timed from process start to exit, on SQLite and on
PostgreSQL (the test suite's throw-away cluster: fsync off):

* ``chessrate rate --system site`` of each file (the yardstick: rating only);
* ``chessrate import`` of the whole file into a fresh ledger (the bulk path: the
  compiled replay, rows written in bulk), and the ledger's size in bytes per game;
* the last tenth of the stream's first ``--appended`` games imported into a ledger
  that holds the first nine tenths (the bulk path continuing from the stored
  ratings);
* ``chessrate verify --engine compiled`` of a ledger of the first half of the
  stream.

``--before PYTHON`` runs the same commands with another checkout's interpreter too
(its ``chessrate`` beside it, e.g. main's ``.venv/bin/python``) and prints both. Each
interpreter first rates and imports a small file, so that numba's caches are
compiled before anything is timed. The machine's load (``uptime``) is printed at the
start and the end: on a shared machine the times are upper bounds.

Prints a table; ``--write-results`` replaces the section "A history into the
ledger" of bench/RESULTS.md.

    .venv/bin/python bench/ledger_import.py [--games 200000] [--players 20000]
        [--data DIR] [--before /work/main/.venv/bin/python] [--no-postgres] [--no-sqlite]
        [--write-results]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from results_file import replace_section  # noqa: E402
from tests.support import postgres  # noqa: E402

PYTHON = sys.executable
SECTION = "## A history into the ledger (bench/ledger_import.py)"

Row = tuple[str, int, dict[str, float]]
"""A measurement: its name, the games it handles, seconds by interpreter label."""


def timed(command: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds from process start to exit; the command must succeed."""
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    spent = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    return spent


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def head(source: Path, out: Path, first: int, last: int) -> Path:
    """Rows ``first:last`` of a CSV file (its header kept)."""
    if out.exists():
        return out
    with source.open(encoding="utf-8") as lines, out.open("w", encoding="utf-8") as written:
        written.write(next(lines))
        for n, line in enumerate(lines):
            if n >= last:
                break
            if n >= first:
                written.write(line)
    return out


class Files:
    """The stream and the files cut from it."""

    def __init__(self, data: Path, games: int, appended: int) -> None:
        self.games = data / "site_games.csv"
        self.roster = data / "site_players.csv"
        self.count = games
        self.half = games // 2
        self.verified = head(self.games, data / "half.csv", 0, self.half)
        self.base_count = appended - appended // 10
        self.appended_count = appended // 10
        self.base = head(self.games, data / "base.csv", 0, self.base_count)
        self.appended = head(self.games, data / "appended.csv", self.base_count, appended)
        self.small = head(self.games, data / "small.csv", 0, 2000)


def measure(python: str, files: Files, db: Callable[[str], tuple[list[str], dict[str, str]]],
            label: str) -> dict[str, float]:  # fmt: skip
    """The timings of one interpreter on one kind of database (``db(name)``: the
    ``--db`` arguments and environment of a fresh ledger named ``name``)."""
    chessrate = str(Path(python).with_name("chessrate"))
    found: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        out = str(Path(folder) / "list.csv")

        def rate(path: Path) -> float:
            return timed([chessrate, "rate", "--system", "site", "--players",
                          str(files.roster), str(path), "--out", out])  # fmt: skip

        def fresh(name: str) -> tuple[list[str], dict[str, str]]:
            args, env = db(name)
            if args and Path(args[1]).exists():
                raise SystemExit(f"{args[1]} exists: a measured ledger must be new")
            timed([chessrate, "init", "--system", "site", *args], env)
            return args, env

        def imported(args: list[str], env: dict[str, str], path: Path, roster: bool) -> float:
            players = ["--players", str(files.roster)] if roster else []
            return timed([chessrate, "import", *args, *players, str(path)], env)

        rate(files.small)  # numba's caches compiled, not timed
        args, env = fresh("warm")
        imported(args, env, files.small, True)
        timed([chessrate, "verify", *args, "--engine", "compiled"], env)
        found["rate"] = rate(files.games)
        found["rate appended"] = rate(files.appended)
        found["rate verified"] = rate(files.verified)
        args, env = fresh("whole")
        found["import"] = imported(args, env, files.games, True)
        if args:
            size = sum(p.stat().st_size for p in Path(args[1]).parent.glob("whole.db*"))
            found["bytes"] = size / files.count
        args, env = fresh("appended")
        imported(args, env, files.base, True)
        found["import appended"] = imported(args, env, files.appended, False)
        args, env = fresh("verified")
        imported(args, env, files.verified, True)
        found["verify"] = timed([chessrate, "verify", *args, "--engine", "compiled"], env)
        print(f"  {label}: {found}", file=sys.stderr)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--appended", type=int, default=100_000,
                        help="the appended import: the last tenth of this many games onto the "
                        "first nine tenths")  # fmt: skip
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--before", default=None, help="another checkout's Python")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()
    data = args.data or HERE / ".data" / f"g{args.games}_p{args.players}_s8"
    if not (data / "site_games.csv").exists():
        subprocess.run(
            [PYTHON, str(HERE / "generate_stream.py"), "--games", str(args.games),
             "--players", str(args.players), "--out", str(data), "--pgn-games", "0",
             "--format", "csv"],
            check=True, capture_output=True,
        )  # fmt: skip
    files = Files(data, args.games, args.appended)
    pythons = {"now": PYTHON} if args.before is None else {"before": args.before, "now": PYTHON}
    began = load()
    results: dict[str, dict[str, dict[str, float]]] = {"SQLite": {}, "PostgreSQL": {}}
    for label, python in pythons.items() if not args.no_sqlite else ():
        with tempfile.TemporaryDirectory() as folder:  # new ledgers for each interpreter

            def sqlite(name: str, folder: str = folder) -> tuple[list[str], dict[str, str]]:
                return ["--db", str(Path(folder) / f"{name}.db")], dict(os.environ)

            results["SQLite"][label] = measure(python, files, sqlite, label)
    if not args.no_postgres:
        with postgres.cluster() as admin:
            made: list[str] = []

            def database(_name: str) -> tuple[list[str], dict[str, str]]:
                url = postgres.fresh_database(admin)
                made.append(url)
                return [], {**os.environ, "CHESSRATE_DATABASE_URL": url}

            for label, python in pythons.items():
                results["PostgreSQL"][label] = measure(python, files, database, label)
            for url in made:
                postgres.drop_database(admin, url)
    ended = load()
    table = render(results, files, args.players, began, ended)
    print(table)
    if args.write_results:
        replace_section(SECTION, f"{SECTION}\n\n{table}\n")


def render(results: dict[str, dict[str, dict[str, float]]], files: Files, players: int,
           began: str, ended: str) -> str:  # fmt: skip
    labels = next(iter(r for r in results.values() if r), {}).keys()
    head_row = "| measurement | games | " + " | ".join(
        f"{label}: s | {label}: games/s | {label}: × rate" for label in labels
    )
    lines = [
        f"`site` games, {players:,} players ({platform.machine()}, Python "
        f"{platform.python_version()}, {date.today()}); one run each, process start to exit.",
        f"Load at the start: `{began}`; at the end: `{ended}`.",
        "",
        head_row + " |",
        "|---|---:|" + "---:|---:|---:|" * len(labels),
    ]
    measured = [
        ("rate (yardstick)", "rate", "rate", files.count),
        ("import into a new ledger", "import", "rate", files.count),
        (f"import {files.appended_count:,} onto {files.base_count:,}", "import appended",
         "rate appended", files.appended_count),
        (f"verify (compiled) of {files.half:,}", "verify", "rate verified", files.half),
    ]  # fmt: skip
    for database, by_label in results.items():
        if not by_label:
            continue
        for name, key, yardstick, games in measured:
            cells = []
            for label in labels:
                found = by_label[label]
                spent, rate = found[key], found[yardstick]
                cells.append(f"{spent:.2f} | {games / spent:,.0f} | {spent / rate:.1f}×")
            lines.append(f"| {database}: {name} | {games:,} | " + " | ".join(cells) + " |")
        sizes = [f"{by_label[label].get('bytes', 0):.0f}" for label in labels]
        if any(size != "0" for size in sizes):
            lines.append(f"| {database}: bytes a game | | " + " | ".join(
                f"{size} | | " for size in sizes) + " |")  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    main()
