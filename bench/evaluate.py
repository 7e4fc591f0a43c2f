"""Benchmark: ``chessrate evaluate`` (the rating lab) on the compiled replay.

On the generated stream (bench/generate_stream.py: ``site``, 1 M games, 100 k players
with their players file), timed process start to exit, stdout to a file:

* ``chessrate evaluate --vary k=... --vary k_new=...``: the base rules and 50 variants
  (10 values of K times 5 of K for new players) at ``--jobs 2`` (target: 60 s);
* ``chessrate evaluate`` of the base rules alone (one variant) against ``chessrate
  rate`` of the same file (target: at most 1.5 times rate's time);
* with ``--one-job``, the 50 variants at ``--jobs 1`` too (what the jobs save).

Every run is checked: the JSON has every variant, and the one-variant run's base
deviance is the 50-variant run's. Then the predictive quality on the bigger stream
(``--deviance-games``, 2 M by default; every system the generator makes): the mean
deviance of each system's base rules beside the two reference predictors, from
``chessrate evaluate --json`` (its wall time too); and the same on the real games kept
in ``bench/data`` (:data:`REAL`: two lichess players' exports, Magnus Carlsen's
over-the-board games, a FIDE world rapid championship) under every system that rates
them (``--skip-invalid``: a record a system refuses, a non-member in ``arena``, a game
without a time control, is left out and counted); and ``fide``, which rates tournament
periods, on the real TRF files of ``bench/data/lab/trf`` under each of its rulesets.

Prints the machine (cores, CPU model, the load average before and after: other work
on the machine slows every row) and two tables; ``--write-results`` replaces the
"rating lab" section of bench/RESULTS.md.

    .venv/bin/python bench/evaluate.py [--games 1000000] [--players 100000]
        [--deviance-games 2000000] [--jobs 2] [--repeat 1] [--one-job] [--data DIR]
        [--write-results]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from results_file import replace_section  # noqa: E402

PYTHON = sys.executable
CHESSRATE = str(Path(PYTHON).with_name("chessrate"))

K = (10, 15, 20, 25, 30, 35, 40, 45, 50, 60)
K_NEW = (16, 24, 32, 40, 48)
SYSTEMS = ("arena", "corr", "site")
REAL = (
    ("fairplay/lichess_cmrade.pgn", "lichess, one player 1000-1800, mostly bullet"),
    ("fairplay/lichess_bfx.pgn", "lichess, one player 1600-2000, blitz and rapid"),
    ("fairplay/carlsen.pgn", "Carlsen's over-the-board games, 2000-2880"),
    ("lab/fwwrc_2024_rapid.pgn", "FIDE Women's World Rapid 2024, 110 players"),
)
"""The real games files under ``bench/data`` (their sources: the SOURCE.md beside them)."""


TOURNAMENTS = HERE / "data" / "lab" / "trf"
"""Real TRF tournaments (bench/data/lab/SOURCE.md): fide's input."""


def stream(games: int, players: int, data: Path | None) -> Path:
    """The generated files' folder (made when missing)."""
    folder = data or HERE / ".data" / f"g{games}_p{players}_s8"
    if not (folder / "site_games.csv").exists():
        subprocess.run(
            [PYTHON, str(HERE / "generate_stream.py"), "--games", str(games), "--players",
             str(players), "--out", str(folder), "--pgn-games", "0"],
            check=True, stdout=sys.stderr,
        )  # fmt: skip
    return folder


def timed(command: list[str], out: Path, repeat: int) -> float:
    """The best wall time of ``repeat`` runs of ``command`` with stdout to ``out``."""
    best = float("inf")
    for _ in range(repeat):
        with out.open("w", encoding="utf-8") as handle:
            start = time.perf_counter()
            subprocess.run(command, stdout=handle, stderr=subprocess.PIPE, check=True)
            best = min(best, time.perf_counter() - start)
    return best


def overall(pools: list[dict[str, Any]]) -> tuple[int, float | None]:
    """The scored games and mean deviance over every pool."""
    games = sum(p["quality"]["games"] for p in pools)
    if games == 0:
        return 0, None
    total = sum((p["quality"]["deviance"] or 0.0) * p["quality"]["games"] for p in pools)
    return games, total / games


def measure_speed(
    folder: Path, args: argparse.Namespace, work: Path
) -> list[tuple[str, float, str]]:
    games, players = folder / "site_games.csv", folder / "site_players.csv"
    evaluate = [CHESSRATE, "evaluate", str(games), "--system", "site", "--players", str(players),
                "--engine", "compiled", "--json"]  # fmt: skip
    vary = ["--vary", "k=" + ",".join(map(str, K)), "--vary", "k_new=" + ",".join(map(str, K_NEW))]
    rows = []
    out = work / "variants.json"
    seconds = timed([*evaluate, *vary, "--jobs", str(args.jobs)], out, args.repeat)
    data = json.loads(out.read_text(encoding="utf-8"))
    assert len(data["variants"]) == 1 + len(K) * len(K_NEW), len(data["variants"])
    base = next(v for v in data["variants"] if v["label"] == "base")
    best = data["variants"][0]
    many = seconds
    rows.append((f"evaluate: base + {len(K) * len(K_NEW)} variants, --jobs {args.jobs}", seconds,
                 f"{len(data['variants'])} variants measured; best {best['label']} "
                 f"(deviance {best['deviance']}), base {base['deviance']}"))  # fmt: skip
    if args.one_job:
        seconds = timed([*evaluate, *vary, "--jobs", "1"], work / "one_job.json", args.repeat)
        again = json.loads((work / "one_job.json").read_text(encoding="utf-8"))
        assert again == data, "--jobs 1 printed another evaluation"
        saved = f"the same JSON; --jobs {args.jobs} took {many / seconds:.2f} of this"
        rows.append((f"evaluate: base + {len(K) * len(K_NEW)} variants, --jobs 1", seconds, saved))
    seconds = timed(evaluate, work / "base.json", args.repeat)
    alone = json.loads((work / "base.json").read_text(encoding="utf-8"))
    assert alone["variants"][0]["deviance"] == base["deviance"]
    one = seconds
    rows.append(("evaluate: the base rules alone (one variant)", seconds,
                 f"deviance {alone['variants'][0]['deviance']}, as in the run above"))  # fmt: skip
    rate = [CHESSRATE, "rate", str(games), "--system", "site", "--players", str(players),
            "--engine", "compiled"]  # fmt: skip
    seconds = timed(rate, work / "rate.txt", args.repeat)
    printed = (work / "rate.txt").read_text(encoding="utf-8").splitlines()
    assert printed, "rate printed nothing"
    rows.append(("rate: the same file and players", seconds,
                 f"evaluate of one variant took {one / seconds:.2f} x rate's time"))  # fmt: skip
    return rows


def measure_deviance(
    folder: Path, work: Path
) -> list[tuple[str, int, int, float | None, float | None, float | None, float]]:
    rows = []
    for system in SYSTEMS:
        games = folder / f"{system}_games.csv"
        if not games.exists():
            continue
        out = work / f"{system}.json"
        players = folder / f"{system}_players.csv"
        command = [CHESSRATE, "evaluate", str(games), "--system", system, "--players",
                   str(players), "--engine", "compiled", "--json"]  # fmt: skip
        seconds = timed(command, out, 1)
        data = json.loads(out.read_text(encoding="utf-8"))
        scored, rules = overall(data["variants"][0]["pools"])
        found = {p["label"]: overall(p["pools"]) for p in data["predictors"]}
        assert all(g == scored for g, _ in found.values()), "the predictors scored other games"
        rows.append((system, data["games"], scored, rules, found["elo-k20"][1],
                     found["glicko2-lichess"][1], seconds))  # fmt: skip
    return rows


def measure_real(
    work: Path,
) -> list[tuple[str, str, str, int, int, int, float | None, float | None, float | None]]:
    """Each real file under each system: (file, what, system, games read, records left
    out, scored, base deviance, elo, glicko)."""
    rows = []
    for name, what in REAL:
        path = HERE / "data" / name
        for system in SYSTEMS:
            out = work / "real.json"
            command = [CHESSRATE, "evaluate", str(path), "--system", system, "--json",
                       "--skip-invalid"]  # fmt: skip
            with out.open("w", encoding="utf-8") as handle:
                done = subprocess.run(command, stdout=handle, stderr=subprocess.PIPE,
                                      text=True, check=True)  # fmt: skip
            skipped = sum(1 for line in done.stderr.splitlines() if line.startswith("skipped "))
            data = json.loads(out.read_text(encoding="utf-8"))
            scored, rules = overall(data["variants"][0]["pools"])
            found = {p["label"]: overall(p["pools"])[1] for p in data["predictors"]}
            rows.append((name, what, system, data["games"], skipped, scored, rules,
                         found["elo-k20"], found["glicko2-lichess"]))  # fmt: skip
    return rows


def measure_periods(
    work: Path,
) -> list[tuple[str, int, int, float | None, float | None, float | None]]:
    """fide on the real tournaments (:data:`TOURNAMENTS`), a chain of monthly periods,
    under each ruleset: (ruleset, games, scored, its deviance, elo, glicko)."""
    out = work / "periods.json"
    command = [CHESSRATE, "evaluate", str(TOURNAMENTS), "--system", "fide", "--vary",
               "ruleset=seed,fide-2024", "--json"]  # fmt: skip
    timed(command, out, 1)
    data = json.loads(out.read_text(encoding="utf-8"))
    found = {p["label"]: overall(p["pools"])[1] for p in data["predictors"]}
    rows = []
    for variant in data["variants"]:
        if variant["label"] == "base":
            continue  # the same rules as ruleset=seed
        scored, rules = overall(variant["pools"])
        rows.append((variant["label"].removeprefix("ruleset="), data["games"], scored, rules,
                     found["elo-k20"], found["glicko2-lichess"]))  # fmt: skip
    return sorted(rows)


SCORES = {"1-0": 1, "0-1": 0, "1/2-1/2": 0.5}
FLOOR = 1000
"""The seed's rating floor: the stream's starting list holds the players at it or above."""


def stream_chain(folder: Path) -> Any:
    """The generated ``site`` stream as a chain of ``fide`` periods: each calendar
    month's rated games between two people (no bot; a result 1-0, 0-1 or 1/2-1/2) one
    event, a game's round its line in the file, rated on the list of the first day of
    the next month, each player in it at his rating on that period's starting list; the
    standard list at the start from the players' imported site Elo (rounded to a whole
    number, with their games; those at the floor or above, the others start unrated)."""
    import csv
    from collections import defaultdict
    from datetime import UTC, datetime
    from decimal import Decimal

    from chessrate.lab.periods import Chain, Period, list_date_after, noon, rules_for
    from chessrate.systems.fide import Event, EventEntry, EventGame, ListedPlayer

    start: dict[str, Any] = {}
    bots = set()
    with (folder / "site_players.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["bot"] == "true":
                bots.add(row["id"])
            elif row["rating_site"]:
                rating = int(Decimal(row["rating_site"]).to_integral_value())
                if rating < FLOOR:  # a FIDE list holds no rating below its floor
                    continue
                start[row["id"]] = ListedPlayer(
                    row["id"], row["id"], rating, int(row["games_site"] or 0), rating >= 2400
                )
    months: dict[Any, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    last: dict[Any, Any] = {}
    half = Decimal("0.5")
    with (folder / "site_games.csv").open(encoding="utf-8", newline="") as handle:
        for line, row in enumerate(csv.DictReader(handle), start=2):
            score = SCORES.get(row["result"])
            white, black = row["white"], row["black"]
            if row["rated"] != "true" or score is None or white in bots or black in bots:
                continue
            played = datetime.fromisoformat(row["played_at"].replace("Z", "+00:00"))
            day = played.astimezone(UTC).date()
            month = day.replace(day=1)
            last[month] = max(last.get(month, day), day)
            exact = half if score == 0.5 else Decimal(score)
            months[month][white].append(EventGame(line, black, exact))
            months[month][black].append(EventGame(line, white, 1 - exact))
    periods: list[Any] = []
    for month in sorted(months):
        entries = tuple(EventEntry(p, p, None, tuple(g)) for p, g in months[month].items())
        event = Event(f"{month:%B %Y} games", "stream", False, entries)
        listed = list_date_after(month)
        periods.append(
            Period(f"standard list {listed}", "standard", listed, noon(last[month]), (event,),
                   rules_for("seed", "standard", listed), start if not periods else None,
                   ratings_from_list=True)
        )  # fmt: skip
    return Chain(tuple(periods))


def measure_fide_stream(folder: Path) -> list[tuple[str, int, int, float, float, float, float]]:
    """fide on the generated stream made a chain of monthly periods (:func:`stream_chain`),
    under each ruleset, at two jobs: (ruleset, games, scored, its deviance, elo, glicko,
    seconds of the evaluation)."""
    from chessrate.lab import evaluate_periods

    chain = stream_chain(folder)
    began = time.perf_counter()
    evaluation = evaluate_periods("fide", chain, ["ruleset=seed,fide-2024"], "stream", jobs=2)
    seconds = time.perf_counter() - began
    found = {p.label: _mean(p.pools) for p in evaluation.predictors}
    rows = []
    for variant in evaluation.variants:
        if not variant.variant.varied:
            continue  # the same rules as ruleset=seed
        scored = sum(p.quality.games for p in variant.pools)
        ruleset = variant.variant.label.removeprefix("ruleset=")
        rows.append((ruleset, evaluation.games, scored, variant.deviance, found["elo-k20"],
                     found["glicko2-lichess"], seconds))  # fmt: skip
    return sorted(rows)


def _mean(pools: Any) -> float:
    """The mean deviance over every pool's scored games."""
    games = sum(int(p.quality.games) for p in pools)
    total = sum(float(p.quality.deviance or 0.0) * int(p.quality.games) for p in pools)
    return total / max(games, 1)


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        listing = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in listing.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    return f"{cores} cores (nproc), {model}; CPython {platform.python_version()}"


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def number(value: float | None) -> str:
    return "-" if value is None else f"{value:.6f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--deviance-games", type=int, default=2_000_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--one-job", action="store_true", help="time --jobs 1 too")
    parser.add_argument("--data", type=Path, default=None, help="a folder for both streams")
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()

    small = stream(args.games, args.players, args.data and args.data / "speed")
    big = stream(args.deviance_games, args.players, args.data and args.data / "deviance")
    before = load()
    with tempfile.TemporaryDirectory(prefix="chessrate-evaluate-bench-") as folder:
        work = Path(folder)
        speed = measure_speed(small, args, work)
        deviance = measure_deviance(big, work)
        real = measure_real(work)
        periods = measure_periods(work)
    fide_stream = measure_fide_stream(big)
    lines = [
        f"machine: {machine()}; {date.today().isoformat()}",
        f"load average (1, 5, 15 min) before: {before}; after: {load()}",
        f"input: site_games.csv of {args.games:,} games, site_players.csv of "
        f"{args.players:,} players (bench/generate_stream.py); best of {args.repeat}; "
        "`--engine compiled`, stdout to a file; targets: the 50 variants in 60 s at "
        "--jobs 2, one variant in at most 1.5 x rate's time",
        "",
        "| measurement | seconds | note |",
        "|---|---:|---|",
    ]
    lines += [f"| {name} | {seconds:.2f} | {note} |" for name, seconds, note in speed]
    lines += [
        "",
        f"Mean deviance (Kaggle, base-10, clamped to [0.01, 0.99]; every pool, one count "
        f"per game) of each system's base rules and the reference predictors, on the "
        f"{args.deviance_games:,}-game stream:",
        "",
        "| system | games | scored | base rules | elo-k20 | glicko2-lichess | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {system} | {games:,} | {scored:,} | {number(rules)} | {number(elo)} | "
        f"{number(glicko)} | {seconds:.1f} |"
        for system, games, scored, rules, elo, glicko, seconds in deviance
    ]
    lines += [
        "",
        "The same on real games (bench/data; `--skip-invalid`: the records a system refuses "
        "are left out, e.g. every game of a non-member in arena, or without a time control "
        "in site); ratings start afresh (the files' Elo tags are not read):",
        "",
        "| file | what | system | games | left out | scored | base rules | elo-k20 | "
        "glicko2-lichess |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {name} | {what} | {system} | {games:,} | {skipped:,} | {scored:,} | "
        f"{number(rules)} | {number(elo)} | {number(glicko)} |"
        for name, what, system, games, skipped, scored, rules, elo, glicko in real
    ]
    lines += [
        "",
        "fide rates tournament periods, not a stream of games: measured on the real "
        "tournaments of bench/data/lab/trf (five TRF files, 2005-2025, standard and rapid), "
        "rated as a chain of monthly periods from the ratings the files give, under each "
        "ruleset (the predictors start from nothing; they are scored on the same games):",
        "",
        "| ruleset | games | scored | its deviance | elo-k20 | glicko2-lichess |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {ruleset} | {games:,} | {scored:,} | {number(rules)} | {number(elo)} | "
        f"{number(glicko)} |"
        for ruleset, games, scored, rules, elo, glicko in periods
    ]
    lines += [
        "",
        f"And on the {args.deviance_games:,}-game stream made a chain of fide periods (each "
        "month's rated games between two people one event, rated on the next month's list; "
        "the starting list from the players' imported site Elo of 1000 or more), both "
        "rulesets in one evaluation at --jobs 2, timed in this process (seconds: the whole "
        "evaluation, both rulesets and the predictors). A ruleset is scored on the games "
        "between two players rated on its starting list (fide-2024 has fewer: its floor of "
        "1400 leaves more players unrated); the predictors on the games the seed's rules "
        "scored:",
        "",
        "| ruleset | games | scored | its deviance | elo-k20 | glicko2-lichess | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {ruleset} | {games:,} | {scored:,} | {number(rules)} | {number(elo)} | "
        f"{number(glicko)} | {seconds:.1f} |"
        for ruleset, games, scored, rules, elo, glicko, seconds in fide_stream
    ]
    table = "\n".join(lines)
    print(table)
    if args.write_results:
        write_results(table)


def write_results(table: str) -> None:
    heading = "## The rating lab on the compiled replay (bench/evaluate.py)"
    replace_section(
        heading,
        f"{heading}\n\nWritten by `bench/evaluate.py --write-results`, which replaces this "
        "section.\n\n" + table + "\n",
    )


if __name__ == "__main__":
    main()
