"""Benchmark: ``chessrate rate`` end to end on a big arena file, as a user runs it.

One run measures, on the same generated files (bench/generate_stream.py: arena, 1 M
games, 50 k players, a players file with memberships and imported ratings):

* a hand-written script, the yardstick: Python's ``csv`` module reads the games file
  and a plain float Elo update (K 20, everyone from 1500) is applied to every rated
  row; no validation, no rules, no output file;
* ``chessrate rate GAMES --system arena --players PLAYERS --out OUT.json``, process
  start to exit: stdout to a file (plain text) and on a terminal (rich tables, through
  ``script``);
* the same command in one process with its stages timed (imports, numba's start,
  players file, the wait for the games file, which a thread reads meanwhile, replay,
  the top of the lists, the --out text, printing), so that the printing's share is
  measured, not guessed. The in-process total leaves out the interpreter's start and
  exit (``chessrate`` ends without the teardown: ``chessrate.cli.run``).

Every row is best of ``--repeat`` runs. Prints a table; ``--write-results`` replaces
the "rate end to end" section of bench/RESULTS.md.

    .venv/bin/python bench/rate_cli.py [--games 1000000] [--players 50000] [--repeat 3]
        [--data DIR] [--write-results]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from results_file import replace_section  # noqa: E402

PYTHON = sys.executable
CHESSRATE = str(Path(PYTHON).with_name("chessrate"))

HAND_WRITTEN = r"""
import csv, sys
ratings = {}
rated = 0
with open(sys.argv[1], newline="", encoding="utf-8") as handle:
    for row in csv.DictReader(handle):
        if row["rated"] == "false" or row["result"] not in ("1-0", "0-1", "1/2-1/2"):
            continue
        white, black = row["white"], row["black"]
        ra, rb = ratings.get(white, 1500.0), ratings.get(black, 1500.0)
        expected = 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))
        score = 1.0 if row["result"] == "1-0" else 0.0 if row["result"] == "0-1" else 0.5
        ratings[white] = ra + 20.0 * (score - expected)
        ratings[black] = rb - 20.0 * (score - expected)
        rated += 1
print(rated, len(ratings), round(sum(ratings.values()), 2))
"""

STAGES = r"""
import sys, time
t0 = time.perf_counter()
from pathlib import Path
from chessrate import cli, rating
from chessrate.cli import rate as rate_command
from chessrate.io.games import read_players
times = {"import chessrate": time.perf_counter() - t0}
def timed(name, function):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            times[name] = times.get(name, 0.0) + time.perf_counter() - start
    return wrapper
rating._read_ahead = timed("numba's start, then the games reader's thread started",
                           rating._read_ahead)
rating.read_players = timed("players file (the games file is read meanwhile)",
                            rating.read_players)
rating._registered = timed("players registered (the games file is read meanwhile)",
                           rating._registered)
rating._ReadAhead.result = timed("waiting for the games reader",
                                 rating._ReadAhead.result)
rating._rate_compiled = timed("replay (and the games file when it was not read ahead)",
                              rating._rate_compiled)
rating.RatedFile.list_text = timed("--out: the list's text (its columns included)",
                                   rating.RatedFile.list_text)
rating._CompiledFile.list_columns = timed("--out: the list's columns",
                                          rating._CompiledFile.list_columns)
rate_command._print_rated = timed("printing (top 20 of each pool, summary)",
                                   rate_command._print_rated)
start = time.perf_counter()
try:
    cli.main(sys.argv[1:])
except SystemExit as stop:
    assert not stop.code, stop.code
times["whole command"] = time.perf_counter() - start + times["import chessrate"]
print(repr(times), file=sys.stderr)
"""


def best(repeat: int, command: list[str], **kwargs: object) -> tuple[float, str]:
    """The best wall time of ``repeat`` runs of a command, and its stdout."""
    seconds, output = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        run = subprocess.run(command, capture_output=True, text=True, check=True, **kwargs)  # type: ignore[call-overload]
        seconds = min(seconds, time.perf_counter() - start)
        output = run.stdout
    return seconds, output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=None, help="generated files (kept)")
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()

    data = args.data or HERE / ".data" / f"rate_{args.games}_{args.players}"
    games, players = data / "arena_games.csv", data / "arena_players.csv"
    if not games.exists():
        subprocess.run(
            [PYTHON, str(HERE / "generate_stream.py"), "--games", str(args.games),
             "--players", str(args.players), "--out", str(data), "--pgn-games", "0"],
            check=True,
        )  # fmt: skip
    work = Path(tempfile.mkdtemp(prefix="chessrate-rate-bench-"))
    try:
        rows = measure(args.repeat, games, players, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    table = render(rows, games, players, args)
    print(table)
    if args.write_results:
        write_results(table)


def measure(repeat: int, games: Path, players: Path, work: Path) -> list[tuple[str, float, str]]:
    script = work / "hand_written.py"
    script.write_text(HAND_WRITTEN)
    rows: list[tuple[str, float, str]] = []
    seconds, printed = best(repeat, [PYTHON, str(script), str(games)])
    rated, count, _total = printed.split()
    rows.append(("hand-written: csv module + float Elo (K 20), no validation, no output",
                 seconds, f"{int(rated):,} rated games, {int(count):,} players"))  # fmt: skip
    out = work / "out.json"
    command = [CHESSRATE, "rate", str(games), "--system", "arena", "--players", str(players),
               "--out", str(out)]  # fmt: skip
    seconds, printed = best(repeat, command)
    entries = len(json.loads(out.read_text(encoding="utf-8")))
    note = f"{entries:,} list entries written; {len(printed.splitlines())} lines printed"
    rows.append(("chessrate rate --out, stdout to a file (plain text)", seconds, note))
    shell = " ".join(f"'{part}'" for part in command)
    seconds, printed = best(repeat, ["script", "-qec", f"{shell} > /dev/tty", "/dev/null"],
                            env={**os.environ, "COLUMNS": "120", "TERM": "xterm"})  # fmt: skip
    rows.append(("chessrate rate --out, on a terminal (rich tables, via script)", seconds,
                 "the same run, tables drawn on a pseudo-terminal"))  # fmt: skip
    stages: dict[str, float] = {}
    for _ in range(repeat):
        run = subprocess.run([PYTHON, "-c", STAGES, *command[1:]], capture_output=True,
                             text=True, check=True)  # fmt: skip
        measured = eval(run.stderr.strip().splitlines()[-1])  # our own repr of a dict
        if not stages or measured["whole command"] < stages["whole command"]:
            stages = measured
    whole = stages["whole command"]
    for name, value in stages.items():
        if name != "whole command":
            rows.append((f"  stage: {name}", value, f"{100 * value / whole:.1f} % of the command"))
    rows.append(
        ("  stage: the whole command, in one process", whole, "the run the stages are from")
    )
    return rows


def render(rows: list[tuple[str, float, str]], games: Path, players: Path,
           args: argparse.Namespace) -> str:  # fmt: skip
    lines = [
        f"machine: {platform.machine()}, {os.cpu_count()} cores; CPython "
        f"{platform.python_version()}; {date.today().isoformat()}",
        f"input: {games.name} ({games.stat().st_size / 2**20:.0f} MiB, {args.games:,} games), "
        f"{players.name} ({args.players:,} players); best of {args.repeat}",
        "",
        "| measurement | seconds | games/s | note |",
        "|---|---:|---:|---|",
    ]
    for name, seconds, note in rows:
        rate = "" if name.startswith("  stage") else f"{args.games / seconds:,.0f}"
        lines.append(f"| {name} | {seconds:.2f} | {rate} | {note} |")
    return "\n".join(lines)


def write_results(table: str) -> None:
    heading = "## `chessrate rate` end to end (bench/rate_cli.py)"
    replace_section(
        heading,
        f"{heading}\n\nWritten by `bench/rate_cli.py --write-results`, which replaces this "
        "section.\n\n" + table + "\n",
    )


if __name__ == "__main__":
    main()
