"""Benchmark: a site's history into a fresh ledger, as a user does it.

On one generated ``site`` stream (bench/generate_stream.py, default 1 M games, 20 k
players, CSV), each command timed from process start to exit:

* ``chessrate rate --system site`` of the file (the yardstick: rating only);
* ``chessrate import`` into a fresh SQLite ledger (the bulk path: compiled replay,
  rows written with ``executemany``), then ``chessrate verify`` of it (the compiled
  verify), and the ledger's size in bytes per game;
* the same import into a fresh PostgreSQL database (rows written with ``COPY``; the
  cluster is the test suite's: fsync off), and its ``verify``.

Prints a table; ``--write-results`` replaces the section "A history into
the ledger" of bench/RESULTS.md.

    .venv/bin/python bench/ledger_import.py [--games 1000000] [--players 20000]
        [--data DIR] [--write-results]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.support import postgres  # noqa: E402

PYTHON = sys.executable
CHESSRATE = str(Path(PYTHON).with_name("chessrate"))
SECTION = "## A history into the ledger (bench/ledger_import.py)"


def timed(command: list[str]) -> float:
    """Seconds from process start to exit; the command must succeed."""
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    spent = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()
    data = args.data or HERE / ".data" / f"g{args.games}_p{args.players}_s8"
    games, roster = data / "site_games.csv", data / "site_players.csv"
    if not games.exists():
        subprocess.run(
            [PYTHON, str(HERE / "generate_stream.py"), "--games", str(args.games),
             "--players", str(args.players), "--out", str(data), "--pgn-games", "0"],
            check=True,
        )  # fmt: skip
    count = args.games
    rows: list[tuple[str, float, str]] = []
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "list.csv"
        rate = timed([CHESSRATE, "rate", "--system", "site", "--players", str(roster),
                      str(games), "--out", str(out)])  # fmt: skip
        rows.append(("chessrate rate (yardstick)", rate, ""))
        ledger = Path(folder) / "ledger.db"
        timed([CHESSRATE, "init", "--system", "site", "--db", str(ledger)])
        spent = timed([CHESSRATE, "import", "--db", str(ledger), "--players", str(roster),
                       str(games)])  # fmt: skip
        size = sum(p.stat().st_size for p in Path(folder).glob("ledger.db*"))
        rows.append(("import into SQLite", spent,
                     f"{spent / rate:.1f}× rate; {size / count:.0f} bytes a game"))  # fmt: skip
        spent = timed([CHESSRATE, "verify", "--db", str(ledger), "--engine", "compiled"])
        rows.append(("verify (compiled), SQLite", spent, ""))
    with postgres.cluster() as admin:
        url = postgres.fresh_database(admin)
        os.environ["CHESSRATE_DATABASE_URL"] = url
        timed([CHESSRATE, "init", "--system", "site"])
        spent = timed([CHESSRATE, "import", "--players", str(roster), str(games)])
        rows.append(("import into PostgreSQL (COPY)", spent, f"{spent / rate:.1f}× rate"))
        spent = timed([CHESSRATE, "verify", "--engine", "compiled"])
        rows.append(("verify (compiled), PostgreSQL", spent, ""))
        postgres.drop_database(admin, url)
    lines = [
        f"{count:,} `site` games, {args.players:,} players "
        f"({platform.machine()}, Python {platform.python_version()}, {date.today()}); "
        "one run each, process start to exit.",
        "",
        "| command | seconds | games/s | note |",
        "|---|---:|---:|---|",
        *(
            f"| {name} | {spent:.1f} | {count / spent:,.0f} | {note} |"
            for name, spent, note in rows
        ),
    ]
    table = "\n".join(lines)
    print(table)
    if args.write_results:
        results = HERE / "RESULTS.md"
        text = results.read_text(encoding="utf-8")
        block = f"{SECTION}\n\n{table}\n"
        if SECTION in text:
            start = text.index(SECTION)
            end = text.find("\n## ", start + len(SECTION))
            text = text[:start] + block + (text[end:] if end != -1 else "")
        else:
            text = text.rstrip("\n") + "\n\n" + block
        results.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
