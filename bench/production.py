"""Benchmark: the production targets in one table, measured before and after a change.

Each row is one thing an operator does, timed from process start to exit (the API rows:
sustained submissions for ``--seconds``), against its target:

* ``chessrate import`` of 200 k generated ``site`` games into a new SQLite ledger, as
  games/s and as a multiple of ``chessrate rate`` of the same file;
* the same with 10 k games into a ledger that already holds 90 k (the first 90 k
  imported first, untimed);
* ``chessrate verify`` of that 100 k-game ledger;
* the same import and verify into PostgreSQL (no target of their own);
* the API: 16 clients posting rated games to ``chessrate serve``, on PostgreSQL with 4
  workers and with one worker a core (docs/deployment.md's advice), and on SQLite
  (bench/service.py's clients and server);
* ``chessrate rate`` of a 1 M-game arena CSV against the hand-written csv + float Elo
  script of bench/rate_cli.py (speed-up: the script's time over the command's).

It runs the ``chessrate`` beside the Python that runs it, or ``--chessrate PATH``: the
recorded runs use a runtime-only install (``requirements.lock`` and the project, what
``./run`` and the deployment guide install), because the development venv holds pandas
(a bench library needs it) and pyarrow imports pandas at its first use where it is
installed, half a second at every command that an operator's install never pays. The
same script measures another checkout: ``... --chessrate OTHER/bin/chessrate --save
before.json``, then ``... --before before.json`` prints both columns.
``--write-results`` replaces the section "Production targets" of bench/RESULTS.md.

    .venv/bin/python bench/production.py [--seconds 10] [--only ROW,...]
        [--chessrate PATH] [--save FILE] [--before FILE] [--write-results]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
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
import rate_cli  # noqa: E402
from results_file import replace_section  # noqa: E402
from tests.support import postgres  # noqa: E402
from tests.support.server import server_process  # noqa: E402

import service  # noqa: E402

PYTHON = sys.executable
CHESSRATE = str(Path(PYTHON).with_name("chessrate"))
SECTION = "## Production targets (bench/production.py)"
SITE_GAMES, SITE_PLAYERS, HELD, ADDED = 200_000, 10_000, 90_000, 10_000

# (key, what, unit, target as text, met(value))
ROWS: list[tuple[str, str, str, str, Callable[[float], bool] | None]] = [
    ("rate_site", "`chessrate rate`, 200 k `site` games (the yardstick)", "games/s", "", None),
    ("import_new", "`chessrate import`, 200 k games into a new SQLite ledger", "games/s",
     "≥ 100,000", lambda v: v >= 100_000),
    ("import_ratio", "… as a multiple of `rate` of the file", "× rate", "≤ 1.5",
     lambda v: v <= 1.5),
    ("import_onto", "`chessrate import`, 10 k games onto 90 k (SQLite)", "games/s",
     "≥ 50,000", lambda v: v >= 50_000),
    ("verify", "`chessrate verify`, those 100 k games (SQLite)", "games/s", "≥ 200,000",
     lambda v: v >= 200_000),
    ("pg_import_new", "`chessrate import`, 200 k games into new PostgreSQL", "games/s", "", None),
    ("pg_import_onto", "`chessrate import`, 10 k games onto 90 k (PostgreSQL)", "games/s", "",
     None),
    ("pg_verify", "`chessrate verify`, those 100 k games (PostgreSQL)", "games/s", "", None),
    ("api_pg", "API, 16 clients, PostgreSQL, 4 workers", "games/s", "≥ 600",
     lambda v: v >= 600),
    ("api_pg_p99", "… p99 latency", "ms", "< 50", lambda v: v < 50),
    ("api_pg2", "API, 16 clients, PostgreSQL, one worker a core", "games/s", "≥ 600",
     lambda v: v >= 600),
    ("api_pg2_p99", "… p99 latency", "ms", "< 50", lambda v: v < 50),
    ("api_sqlite", "API, 16 clients, SQLite", "games/s", "≥ 600", lambda v: v >= 600),
    ("api_sqlite_p99", "… p99 latency", "ms", "< 50", lambda v: v < 50),
    ("rate_1m", "`chessrate rate` of a 1 M-game CSV, speed-up over the hand-written script",
     "×", "≥ 1.5", lambda v: v >= 1.5),
]  # fmt: skip


def as_installed(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a command is timed in: this one (or ``env``) without
    ``PYTHONDONTWRITEBYTECODE``, which some sandboxes and CI images set. With it, an
    editable install's modules are compiled again at every start (a third of a
    second); an installed package, and any machine without it, keeps their bytecode
    from the first run on, as the warm-up runs do here."""
    made = dict(os.environ if env is None else env)
    made.pop("PYTHONDONTWRITEBYTECODE", None)
    return made


def timed(command: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds from process start to exit; the command must succeed."""
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=as_installed(env))
    spent = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    return spent


def generated(games: int, players: int) -> Path:
    """The folder of a generated ``site``/``arena`` stream (made once, kept)."""
    data = HERE / ".data" / f"g{games}_p{players}_s8"
    if not (data / "site_games.csv").exists():
        subprocess.run(
            [PYTHON, str(HERE / "generate_stream.py"), "--games", str(games),
             "--players", str(players), "--out", str(data), "--pgn-games", "0"],
            check=True, capture_output=True,
        )  # fmt: skip
    return data


def split(games: Path, folder: Path) -> tuple[Path, Path]:
    """The first :data:`HELD` games and the next :data:`ADDED` of a CSV, as two files."""
    held, added = folder / "held.csv", folder / "added.csv"
    with games.open(encoding="utf-8") as source:
        header = source.readline()
        with held.open("w", encoding="utf-8") as first, added.open("w", encoding="utf-8") as then:
            first.write(header)
            then.write(header)
            for number, line in enumerate(source):
                if number >= HELD + ADDED:
                    break
                (first if number < HELD else then).write(line)
    return held, added


def warm_up(roster: Path, games: Path, work: Path) -> None:
    """Each command once on a small file, untimed: the first run of a checkout compiles
    and caches its kernels (several seconds), which no later run pays again."""
    timed([CHESSRATE, "rate", "--system", "site", "--players", str(roster), str(games),
           "--out", str(work / "warm.csv")])  # fmt: skip
    warm = work / "warm.db"
    timed([CHESSRATE, "init", "--system", "site", "--db", str(warm)])
    timed([CHESSRATE, "import", "--db", str(warm), "--players", str(roster), str(games)])
    timed([CHESSRATE, "verify", "--db", str(warm)])


def ledger_rows(values: dict[str, float], only: set[str] | None) -> None:
    data = generated(SITE_GAMES, SITE_PLAYERS)
    games, roster = data / "site_games.csv", data / "site_players.csv"
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        held, added = split(games, work)
        warm_up(roster, added, work)
        rate = timed([CHESSRATE, "rate", "--system", "site", "--players", str(roster),
                      str(games), "--out", str(work / "list.csv")])  # fmt: skip
        values["rate_site"] = SITE_GAMES / rate
        if only is None or "sqlite" in only:
            fresh = work / "fresh.db"
            timed([CHESSRATE, "init", "--system", "site", "--db", str(fresh)])
            spent = timed([CHESSRATE, "import", "--db", str(fresh), "--players", str(roster),
                           str(games)])  # fmt: skip
            values["import_new"] = SITE_GAMES / spent
            values["import_ratio"] = spent / rate
            onto = work / "onto.db"
            timed([CHESSRATE, "init", "--system", "site", "--db", str(onto)])
            timed([CHESSRATE, "import", "--db", str(onto), "--players", str(roster), str(held)])
            spent = timed([CHESSRATE, "import", "--db", str(onto), str(added)])
            values["import_onto"] = ADDED / spent
            spent = timed([CHESSRATE, "verify", "--db", str(onto)])
            values["verify"] = (HELD + ADDED) / spent
        if only is None or "postgres" in only:
            with postgres.cluster() as admin:
                env = {**os.environ, "CHESSRATE_DATABASE_URL": postgres.fresh_database(admin)}
                timed([CHESSRATE, "init", "--system", "site"], env)
                spent = timed([CHESSRATE, "import", "--players", str(roster), str(games)], env)
                values["pg_import_new"] = SITE_GAMES / spent
                env["CHESSRATE_DATABASE_URL"] = postgres.fresh_database(admin)
                timed([CHESSRATE, "init", "--system", "site"], env)
                timed([CHESSRATE, "import", "--players", str(roster), str(held)], env)
                values["pg_import_onto"] = ADDED / timed([CHESSRATE, "import", str(added)], env)
                values["pg_verify"] = (HELD + ADDED) / timed([CHESSRATE, "verify"], env)


def api_rows(values: dict[str, float], seconds: float) -> None:
    cores = os.cpu_count() or 2
    runs = (("postgres", 4, "api_pg"), ("postgres", cores, "api_pg2"), ("sqlite", 1, "api_sqlite"))
    for kind, workers, key in runs:
        with service.database(kind) as (admin, folder):
            url = postgres.fresh_database(admin) if admin else f"sqlite:///{folder}/api.db"
            token = service.prepare(url)
            with server_process(url, workers=workers) as (base, _process):
                service.run_clients(base, token, 16, 1.0, "warm")  # every worker warmed up
                began = time.perf_counter()
                count, latencies = service.run_clients(base, token, 16, seconds, "b")
                elapsed = time.perf_counter() - began
        values[key] = count / elapsed
        values[f"{key}_p99"] = statistics.quantiles(latencies, n=100)[98] * 1000


def rate_row(values: dict[str, float]) -> None:
    data = HERE / ".data" / "rate_1000000_50000"
    games, players = data / "arena_games.csv", data / "arena_players.csv"
    if not games.exists():
        subprocess.run(
            [PYTHON, str(HERE / "generate_stream.py"), "--games", "1000000",
             "--players", "50000", "--out", str(data), "--pgn-games", "0"],
            check=True, capture_output=True,
        )  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "hand_written.py"
        script.write_text(rate_cli.HAND_WRITTEN)
        written, _ = rate_cli.best(2, [PYTHON, str(script), str(games)], env=as_installed())
        command = [CHESSRATE, "rate", str(games), "--system", "arena", "--players",
                   str(players), "--out", str(Path(folder) / "out.json")]  # fmt: skip
        ours, _ = rate_cli.best(2, command, env=as_installed())
    values["rate_1m"] = written / ours


def shown(key: str, value: float | None) -> str:
    if value is None:
        return "–"
    unit = next(row[2] for row in ROWS if row[0] == key)
    if unit == "games/s":
        return f"{value:,.0f}"
    return f"{value:.0f}" if unit == "ms" else f"{value:.2f}"


def table(values: dict[str, float], before: dict[str, float] | None) -> str:
    load = os.getloadavg()[0]
    lines = [
        f"machine: {platform.machine()}, {os.cpu_count()} cores, CPython "
        f"{platform.python_version()}; {date.today().isoformat()}; load average at the end "
        f"{load:.1f}",
        "",
        "| what | unit | before | now | target | met? |" if before is not None else
        "| what | unit | now | target | met? |",
        "|---|---|---:|---:|---:|---|" if before is not None else "|---|---|---:|---:|---|",
    ]  # fmt: skip
    for key, what, unit, target, met in ROWS:
        now = values.get(key)
        verdict = "" if met is None or now is None else ("yes" if met(now) else "**no**")
        cells = [what, unit]
        if before is not None:
            cells.append(shown(key, before.get(key)))
        cells += [shown(key, now), target, verdict]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_results(text: str) -> None:
    replace_section(
        SECTION, f"{SECTION}\n\nWritten by `bench/production.py --write-results`.\n\n{text}\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10, help="per API row")
    parser.add_argument("--only", default="", help="of sqlite,postgres,api,rate (default: all)")
    parser.add_argument("--chessrate", help="the command to measure (default: beside python)")
    parser.add_argument("--save", type=Path, help="write the measurements as JSON")
    parser.add_argument("--before", type=Path, help="measurements saved by another checkout")
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()
    if args.chessrate:
        global CHESSRATE
        CHESSRATE = args.chessrate
    only = set(args.only.split(",")) if args.only else None
    values: dict[str, float] = {}
    if only is None or only & {"sqlite", "postgres"}:
        ledger_rows(values, only)
    if only is None or "api" in only:
        api_rows(values, args.seconds)
    if only is None or "rate" in only:
        rate_row(values)
    if args.save:
        args.save.write_text(json.dumps(values, indent=1), encoding="utf-8")
    before = json.loads(args.before.read_text(encoding="utf-8")) if args.before else None
    text = table(values, before)
    print(text)
    if args.write_results:
        write_results(text)


if __name__ == "__main__":
    main()
