"""Benchmark: chessrate's replay paths, PyPI rating libraries, a C loop and PGN readers,
all on one generated game stream. Prints the machine, the command and two tables
(throughput, then memory).

    .venv/bin/python bench/run.py [--games 2000000] [--players 100000] [--quick]
        [--data DIR] [--pgn-dir DIR] [--reference-games 100000] [--peer-games 200000]
        [--write-results]

The stream is made by bench/generate_stream.py into bench/.data/ (git-ignored) when it
is not there yet. Every measured loop processes every game it claims, and its result is
checked: a checksum of the final ratings, the PyPI Elo libraries against a plain float
Elo loop, the C loop against the same integer algorithm in Python, the compiled replay
against the reference ``Engine`` on the reference slice, PGN header counts against
python-chess. A row measured on a slice says so and gives the extrapolated time for
the whole stream. ``--write-results`` puts the output in bench/RESULTS.md.

The PyPI library ``elo`` 0.1.1 cannot be installed by pip (its setup.py uses
``use_2to3``, which setuptools refuses since 58): when it is not importable, the script
fetches its sdist from PyPI (checking the index's sha256), converts its one module with
the standard library's 2to3 into the data folder, and imports it from there. Without a
network its row says it is missing.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.metadata
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from itertools import islice
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import generate_stream  # noqa: E402

from chessrate import Engine  # noqa: E402
from chessrate.io.games import read_annulments, read_games, read_players  # noqa: E402
from chessrate.systems import SYSTEM_IDS, get_system  # noqa: E402

SYSTEMS = SYSTEM_IDS  # arena, corr, site
POOLS = {"arena": 3, "corr": 1, "site": 9}
K = 20  # plain Elo for the PyPI libraries and the float loop
START = 1500.0
MISSING = "not available on this checkout"
ANNULLED_AT = datetime(2027, 6, 1, tzinfo=UTC)
TEN_MILLION = 10_000_000


@dataclass
class Row:
    """One line of the throughput table."""

    what: str
    system: str = ""
    items: int | None = None
    seconds: float | None = None
    unit: str = "games"
    check: str = ""
    note: str = ""

    def cells(self) -> list[str]:
        rate = "" if not self.items or not self.seconds else f"{self.items / self.seconds:,.0f}"
        return [
            self.what,
            self.system,
            "" if self.items is None else f"{self.items:,} {self.unit}",
            "" if self.seconds is None else seconds_text(self.seconds),
            rate,
            self.check,
            self.note,
        ]


def seconds_text(seconds: float) -> str:
    return f"{seconds:.2f}" if seconds >= 1 else f"{seconds:.3g}"


def duration(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 120 else f"{seconds:.0f} s"


def missing(what: str, system: str = "", why: str = MISSING, unit: str = "games") -> Row:
    return Row(what, system, unit=unit, note=why)


class Printer:
    """Prints as it goes and keeps everything printed (for --write-results)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, text: str = "") -> None:
        print(text, flush=True)
        self.lines.extend(text.split("\n"))

    def table(self, header: Sequence[str], align: str) -> Callable[[Sequence[str]], None]:
        self("| " + " | ".join(header) + " |")
        self("|" + "|".join("---:" if a == "r" else "---" for a in align) + "|")

        def row(cells: Sequence[str]) -> None:
            self("| " + " | ".join(cells) + " |")

        return row


# -- the machine and the data ----------------------------------------------------------


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = int(re.findall(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text())[0])
        memory = f", {kib / 1024**2:.0f} GiB"
    except (OSError, IndexError):
        pass
    versions = ", ".join(
        f"{name} {version(name) or 'not installed'}" for name in ("numpy", "numba", "chess")
    )
    return (
        f"{cpu}, {os.cpu_count()} cores{memory}; {platform.system()} {platform.release()}; "
        f"{platform.python_implementation()} {platform.python_version()}; {versions}; "
        f"gcc {gcc_version() or 'not found'}"
    )


def version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def gcc_version() -> str | None:
    gcc = shutil.which("gcc")
    if gcc is None:
        return None
    out = subprocess.run([gcc, "-dumpfullversion"], capture_output=True, text=True, check=False)
    return out.stdout.strip() or None


def ensure_data(folder: Path, games: int, players: int, seed: int, pgn_games: int) -> Path:
    manifest = folder / "manifest.json"
    if manifest.exists():
        data = json.loads(manifest.read_text())
        if (
            data.get("format_version") == generate_stream.FORMAT_VERSION
            and (data["games"], data["players"], data["seed"]) == (games, players, seed)
            and data["pgn_games"] >= min(pgn_games, games)
        ):
            return folder
    print(f"generating the stream into {folder} ...", file=sys.stderr, flush=True)
    generate_stream.generate(folder, games, players, seed, "csv", pgn_games)
    return folder


def head_file(source: Path, rows: int, target: Path) -> Path:
    """The header and the first ``rows`` records of a CSV file (the reference slice)."""
    if not target.exists():
        with source.open(encoding="utf-8") as inp, target.open("w", encoding="utf-8") as out:
            out.writelines(islice(inp, rows + 1))
    return target


# -- checksums -------------------------------------------------------------------------


def list_summary(lists: Any) -> tuple[int, int, int]:
    """(entries, sum of ratings in hundredths, sum of games) of rating lists given as
    {pool: [ListEntry or mapping]} or as a flat list of entries."""
    entries = lists.values() if isinstance(lists, dict) else [lists]
    count = total = games = 0
    for pool_entries in entries:
        for entry in pool_entries:
            rating = entry["rating"] if isinstance(entry, dict) else entry.rating
            played = entry["games"] if isinstance(entry, dict) else entry.games
            count += 1
            games += int(played)
            if rating is not None:
                total += int(Decimal(str(rating)) * 100)
    return count, total, games


def summary_text(summary: tuple[int, int, int]) -> str:
    count, total, games = summary
    return f"{count:,} entries, Σ rating {total / 100:,.2f}, Σ games {games:,}"


# -- the reference Engine (pure Python, explanations kept) -----------------------------


def reference_rows(system_id: str, data: Path, work: Path, slice_games: int, total: int) -> tuple[
    list[Row], tuple[int, int, int], Path
]:  # fmt: skip
    games_path = head_file(
        data / f"{system_id}_games.csv", slice_games, work / f"{system_id}_head.csv"
    )
    players_path = data / f"{system_id}_players.csv"
    began = time.perf_counter()
    players = read_players(players_path)
    games = read_games(games_path)
    read_seconds = time.perf_counter() - began
    annulments = read_annulments(data / "site_annulments.txt") if system_id == "site" else []
    wanted = {game.id for game in games}
    annulments = [a for a in annulments if a[1] in wanted]
    engine: Engine[Any] = Engine(get_system(system_id), players)
    gc.collect()
    began = time.perf_counter()
    applied = engine.replay(games)
    for _where, game_id, reason in annulments:
        engine.annul(game_id, reason, ANNULLED_AT)
    replay_seconds = time.perf_counter() - began
    if len(applied) != len(games):
        raise SystemExit(f"reference {system_id}: {len(games) - len(applied)} games not applied")
    outcomes: dict[str, int] = {}
    for rating in engine.ratings:
        outcomes[rating.outcome.value] = outcomes.get(rating.outcome.value, 0) + 1
    summary = list_summary(engine.rating_lists())
    shown = ", ".join(f"{v:,} {k}" for k, v in sorted(outcomes.items()))
    if annulments:
        shown += f", {len(annulments)} annulled"
    n = len(games)
    whole = duration(total / (n / replay_seconds))
    rows = [
        Row(
            "reference Engine.replay (pure Python, explanations kept)", system_id, n,
            replay_seconds, check=summary_text(summary),
            note=f"first {n:,} games ({shown}); the whole stream would take ≈ {whole}",
        ),
        Row(
            "reference end to end: read CSV + validate + replay", system_id, n,
            read_seconds + replay_seconds, check="the replay above, plus its read",
            note=f"read + validate {read_seconds:.1f} s of it (players file included)",
        ),
    ]  # fmt: skip
    del engine, games
    gc.collect()
    return rows, summary, games_path


# -- the compiled replay (chessrate.fast, chessrate.fast.columnar) ------------------------


def load_fast() -> tuple[ModuleType, ModuleType] | str:
    try:
        fast = importlib.import_module("chessrate.fast")
        columnar = importlib.import_module("chessrate.fast.columnar")
    except ImportError as error:
        return f"{MISSING} ({error})"
    return fast, columnar


def fast_replay(
    fast: ModuleType, system_id: str, batch: Any, players: Any, annulments: list[Any]
) -> Any:
    """``chessrate.fast.replay`` with the site annulments (S10) applied after it."""
    return fast.replay(
        system_id, batch, players,
        annulments=[fast.Annul(game_id, reason, ANNULLED_AT)
                    for _where, game_id, reason in annulments],
    )  # fmt: skip


def best_of(runs: int, work: Callable[[], Any]) -> tuple[float, Any]:
    """The shortest of ``runs`` timed calls of ``work``, and its last result."""
    best, result = float("inf"), None
    for _ in range(runs):
        gc.collect()
        began = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - began)
    return best, result


STATE_LAYOUTS: dict[str, list[tuple[str, str, int]]] = {}
"""Per system, the compiled state's arrays as (name, dtype, elements per player), taken
from a real replay by fast_rows, for the memory section."""


def fast_rows(
    system_id: str, data: Path, head: Path, reference: tuple[int, int, int], games: int
) -> list[Row]:
    loaded = load_fast()
    whats = (
        "chessrate.fast kernel only (compiled rules over the rated games)",
        "chessrate.fast.replay (classify, order, refuse, kernel)",
        "chessrate.fast.columnar.read_batch (CSV to columns, validated)",
        "chessrate.fast end to end: read + replay + rating arrays",
        "chessrate.fast end to end: read + replay + rating lists (ListEntry)",
    )
    if isinstance(loaded, str):
        return [missing(w, system_id, loaded) for w in whats]
    fast, columnar = loaded
    players_path = data / f"{system_id}_players.csv"
    games_path = data / f"{system_id}_games.csv"
    annul_path = data / "site_annulments.txt"
    annulments = read_annulments(annul_path) if system_id == "site" else []
    roster = fast.Roster(system_id, read_players(players_path))
    # the check: the compiled replay of the reference slice gives the reference's lists
    slice_batch = columnar.read_batch(head)
    wanted = {str(game_id) for game_id in slice_batch.game_ids}
    began = time.perf_counter()
    slice_result = fast_replay(
        fast, system_id, slice_batch, roster, [a for a in annulments if a[1] in wanted]
    )
    first_call = time.perf_counter() - began  # includes the JIT compilation (or its cache)
    same = list_summary(slice_result.rating_lists()) == reference
    check = "= reference on its slice" if same else "DIFFERS from the reference on its slice"
    read_seconds, batch = best_of(3, lambda: columnar.read_batch(games_path))
    rows = len(batch)
    replay_seconds, result = best_of(
        3, lambda: fast_replay(fast, system_id, batch, roster, annulments)
    )
    lists = result.rating_lists()
    summary = list_summary(lists)
    plain = fast_replay(fast, system_id, batch, roster, [])  # S10 changes states after
    plain_summary = list_summary(plain.rating_lists())
    kernel_seconds, rated = best_of(3, lambda: fast.kernel_again(plain))
    kernel_same = list_summary(plain.rating_lists()) == plain_summary

    def end_to_end(lists: bool) -> Any:
        again = fast_replay(fast, system_id, columnar.read_batch(games_path), roster, annulments)
        return again.rating_lists() if lists else again.rating_arrays()

    arrays_seconds, _ = best_of(2, lambda: end_to_end(False))
    e2e_seconds, lists_again = best_of(2, lambda: end_to_end(True))
    repeat = "same lists" if list_summary(lists_again) == summary else "lists DIFFER"
    counts = ", ".join(f"{n:,} {o.value}" for o, n in sorted(result.outcome_counts().items()))
    players = len(result.names)
    STATE_LAYOUTS[system_id] = [
        (name, str(array.dtype), array.size // players) for name, array in result.states.items()
    ]
    annulled = f"; {len(annulments):,} annulments applied" if annulments else ""
    return [
        Row(whats[0], system_id, rated, kernel_seconds,
            check=("same states as the replay" if kernel_same else "states DIFFER"),
            note=f"rated games only, fresh states; best of 3; {players:,} players"),
        Row(whats[1], system_id, rows, replay_seconds, check=f"{check}; {counts}",
            note=f"best of 3{annulled}; first call (compile or cache + slice) {first_call:.1f} s"),
        Row(whats[2], system_id, rows, read_seconds, check=f"{rows:,} rows",
            note="best of 3"),
        Row(whats[3], system_id, rows, arrays_seconds, check=summary_text(summary),
            note="best of 2; the players file read before, not timed"),
        Row(whats[4], system_id, rows, e2e_seconds, check=repeat,
            note="best of 2; what `chessrate rate` needs before printing"),
    ]  # fmt: skip


# -- plain Elo on (white, black, score): a float loop and the PyPI libraries -----------


class Clock:
    """Times the loop of a library's run, not its set-up (making 100 k player objects)."""

    def __init__(self) -> None:
        self.began = self.seconds = 0.0

    def start(self) -> None:
        self.began = time.perf_counter()

    def stop(self) -> None:
        self.seconds = time.perf_counter() - self.began


CLOCK = Clock()


def float_elo(white: list[int], black: list[int], score2: list[int], players: int) -> list[float]:
    """Plain Elo, K 20, everyone at 1500, expected 1 / (1 + 10^(diff / 400)): the loop
    the PyPI Elo libraries are checked against."""
    rating = [START] * players
    for w, b, s in zip(white, black, score2, strict=True):
        rw, rb = rating[w], rating[b]
        expected = 1.0 / (1.0 + 10.0 ** ((rb - rw) / 400.0))
        rating[w] = rw + K * (s / 2 - expected)
        rating[b] = rb + K * ((2 - s) / 2 - (1.0 - expected))
    return rating


ELO_SDIST = "elo-0.1.1.tar.gz"


def provide_elo(folder: Path) -> str | None:
    """Make sublee's ``elo`` 0.1.1 importable: installed, or built here from its sdist
    (2to3 on its one module). Returns why not, or None."""
    try:
        importlib.import_module("elo")
        return None
    except ImportError:
        pass
    import hashlib
    import io
    import tarfile
    import urllib.request

    target = folder / "elo-0.1.1"
    if not (target / "elo.py").exists():
        try:
            index = urllib.request.urlopen("https://pypi.org/simple/elo/", timeout=30).read()
            found = re.search(rf'href="([^"#]+/{ELO_SDIST})#sha256=([0-9a-f]+)"', index.decode())
            if found is None:
                return f"{ELO_SDIST} is not on PyPI's index"
            data = urllib.request.urlopen(found.group(1), timeout=60).read()
        except OSError as error:
            return f"cannot fetch {ELO_SDIST} ({error})"
        if hashlib.sha256(data).hexdigest() != found.group(2):
            return f"{ELO_SDIST}: sha256 differs from PyPI's index"
        with tarfile.open(fileobj=io.BytesIO(data)) as sdist:
            member = sdist.extractfile("elo-0.1.1/elo.py")
            assert member is not None
            source = member.read()
        target.mkdir(parents=True, exist_ok=True)
        (target / "elo.py").write_bytes(source)
        converted = subprocess.run(
            [sys.executable, "-W", "ignore", "-m", "lib2to3", "-w", "-n", str(target / "elo.py")],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if converted.returncode != 0:
            return f"2to3 failed on elo.py: {converted.stderr.strip()[-200:]}"
    sys.path.insert(0, str(target))
    return None


def peer_elo(white: list[int], black: list[int], score2: list[int], players: int) -> list[float]:
    import elo  # type: ignore[import-not-found]  # sublee's elo 0.1.1

    env = elo.Elo(k_factor=K, initial=START, beta=200)  # 2 * beta = 400
    rating: list[Any] = [START] * players
    CLOCK.start()
    for w, b, s in zip(white, black, score2, strict=True):
        if s == 2:
            rating[w], rating[b] = env.rate_1vs1(rating[w], rating[b])
        elif s == 0:
            rating[b], rating[w] = env.rate_1vs1(rating[b], rating[w])
        else:
            rating[w], rating[b] = env.rate_1vs1(rating[w], rating[b], drawn=True)
    CLOCK.stop()
    return [float(r) for r in rating]


def peer_elote(white: list[int], black: list[int], score2: list[int], players: int) -> list[float]:
    from elote import EloCompetitor

    people = [EloCompetitor(initial_rating=START, k_factor=K) for _ in range(players)]
    CLOCK.start()
    for w, b, s in zip(white, black, score2, strict=True):
        if s == 2:
            people[w].beat(people[b])
        elif s == 0:
            people[b].beat(people[w])
        else:
            people[w].tied(people[b])
    CLOCK.stop()
    return [p.rating for p in people]


def peer_skelo(white: list[int], black: list[int], score2: list[int], players: int) -> list[float]:
    from skelo.model.elo import EloModel

    model = EloModel(default_k=K, initial_value=START)
    model.build(range(players))

    def draw(a: int, b: int, when: int) -> None:
        """skelo's update() has winners and losers only: a draw does the same bookkeeping
        with its own evolve_rating at label 0.5."""
        ra, rb = model.get(a), model.get(b)
        ra["valid_to"] = rb["valid_to"] = when
        new_a = model.evolve_rating(ra["rating"], rb["rating"], label=0.5)
        new_b = model.evolve_rating(rb["rating"], ra["rating"], label=0.5)
        model.ratings[a].append({"valid_from": when, "valid_to": None, "rating": new_a})
        model.ratings[b].append({"valid_from": when, "valid_to": None, "rating": new_b})

    CLOCK.start()
    for when, (w, b, s) in enumerate(zip(white, black, score2, strict=True), start=1):
        if s == 2:
            model.update(w, b, when)
        elif s == 0:
            model.update(b, w, when)
        else:
            draw(w, b, when)
    CLOCK.stop()
    return [model.get(p)["rating"] for p in range(players)]


def peer_glicko2(
    white: list[int], black: list[int], score2: list[int], players: int
) -> list[float]:
    import glicko2  # type: ignore[import-untyped]

    people = [glicko2.Player() for _ in range(players)]
    CLOCK.start()
    for w, b, s in zip(white, black, score2, strict=True):
        pw, pb = people[w], people[b]
        rw, dw, rb, db = pw.rating, pw.rd, pb.rating, pb.rd
        pw.update_player([rb], [db], [s / 2])
        pb.update_player([rw], [dw], [1 - s / 2])
    CLOCK.stop()
    return [p.rating for p in people]


def peer_openskill(
    white: list[int], black: list[int], score2: list[int], players: int
) -> list[float]:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    people = [model.rating() for _ in range(players)]
    ranks: dict[int, list[float]] = {2: [0, 1], 0: [1, 0], 1: [0, 0]}
    CLOCK.start()
    for w, b, s in zip(white, black, score2, strict=True):
        [[people[w]], [people[b]]] = model.rate([[people[w]], [people[b]]], ranks=ranks[s])
    CLOCK.stop()
    return [p.mu for p in people]


PEERS: tuple[tuple[str, str, str, Callable[..., list[float]], bool], ...] = (
    # (package, import name, how it is driven, function, is plain Elo K 20)
    ("elo", "elo", "Elo.rate_1vs1", peer_elo, True),
    ("elote", "elote", "EloCompetitor.beat / tied", peer_elote, True),
    ("skelo", "skelo", "EloModel.update (draws: its evolve_rating at ½)", peer_skelo, True),
    ("glicko2", "glicko2", "Player.update_player, one game per period", peer_glicko2, False),
    ("openskill", "openskill", "PlackettLuce.rate, 1 vs 1", peer_openskill, False),
)


def peer_rows(pairs: Path, peer_games: int) -> list[Row]:
    elo_missing = provide_elo(pairs.parent)
    white_a, black_a, score_a, players = generate_stream.read_pairs(pairs)
    total = int(white_a.size)
    white, black, score2 = white_a.tolist(), black_a.tolist(), score_a.tolist()
    began = time.perf_counter()
    full = float_elo(white, black, score2, players)
    rows = [
        Row("plain Elo, float, pure Python loop (K 20)", "pairs", total,
            time.perf_counter() - began, check=f"Σ rating {sum(full):,.2f}",
            note="the reference for the Elo libraries below"),
    ]  # fmt: skip
    n = min(peer_games, total)
    sliced = (white[:n], black[:n], score2[:n])
    reference = np.array(float_elo(*sliced, players))
    for package, module, how, run, plain in PEERS:
        shown = version(package) or ("0.1.1 (its sdist, 2to3)" if package == "elo" else "")
        label = f"PyPI {package} {shown}: {how}".replace("  ", " ")
        try:
            importlib.import_module(module)
        except ImportError:
            why = "not installed"
            if package == "elo" and elo_missing:
                why += f" ({elo_missing})"
            rows.append(missing(f"PyPI {package}", "pairs", why))
            continue
        gc.collect()
        CLOCK.seconds = 0.0
        result = np.array(run(*sliced, players))
        seconds = CLOCK.seconds
        if plain:
            gap = float(np.max(np.abs(result - reference)))
            check = f"= float Elo (max diff {gap:.1e})" if gap < 1e-6 else f"DIFFERS by {gap:.3g}"
        else:
            rho = float(np.corrcoef(result, reference)[0, 1])
            check = f"Σ {result.sum():,.2f}; r = {rho:.3f} with float Elo"
        whole = duration(seconds * total / n)
        note = "" if n == total else f"first {n:,} games; all {total:,} would take ≈ {whole}"
        rows.append(Row(label, "pairs", n, seconds, check=check, note=note))
    return rows


# -- integer-hundredths Elo with a table: the same algorithm in C and in Python --------

C_SOURCE = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Integer-hundredths Elo over pairs.bin: expected score from a table by the rating
   difference in whole points (clamped to +-800), K 32 for a rating's first 30 games and
   20 after, every rounding half away from zero, a floor at 100.00. */

static int64_t div_round(int64_t x, int64_t q) { /* q > 0, half away from zero */
    return x >= 0 ? (2 * x + q) / (2 * q) : -((-2 * x + q) / (2 * q));
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: elo PAIRS TABLE REPEAT\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    int32_t head[2];
    if (!f || fread(head, 4, 2, f) != 2) { perror("pairs"); return 1; }
    int32_t n = head[0], players = head[1];
    int32_t *white = malloc(4 * (size_t)n), *black = malloc(4 * (size_t)n);
    int8_t *score = malloc((size_t)n);
    if (fread(white, 4, n, f) != (size_t)n || fread(black, 4, n, f) != (size_t)n
        || fread(score, 1, n, f) != (size_t)n) { perror("pairs"); return 1; }
    fclose(f);
    int32_t table[1601]; /* expected score of the player rated d points below, 1/10000 */
    FILE *t = fopen(argv[2], "r");
    for (int i = 0; i < 1601; i++) if (!t || fscanf(t, "%d", &table[i]) != 1) return 3;
    fclose(t);
    int repeat = atoi(argv[3]);
    int32_t *rating = malloc(4 * (size_t)players), *games = malloc(4 * (size_t)players);
    double best = 1e30;
    for (int r = 0; r < repeat; r++) {
        for (int32_t p = 0; p < players; p++) { rating[p] = 150000; games[p] = 0; }
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int32_t i = 0; i < n; i++) {
            int32_t w = white[i], k = black[i];
            int32_t rw = rating[w], rb = rating[k];
            int64_t d = div_round((int64_t)rb - rw, 100);
            if (d > 800) d = 800;
            if (d < -800) d = -800;
            int32_t ew = table[d + 800];           /* White's expected score */
            int32_t sw = score[i] * 5000;          /* White's score, 1/10000 */
            int32_t kw = games[w] < 30 ? 32 : 20, kb = games[k] < 30 ? 32 : 20;
            int32_t nw = rw + (int32_t)div_round((int64_t)kw * (sw - ew), 100);
            int32_t nb = rb + (int32_t)div_round((int64_t)kb * (ew - sw), 100);
            rating[w] = nw < 10000 ? 10000 : nw;
            rating[k] = nb < 10000 ? 10000 : nb;
            games[w]++; games[k]++;
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
        if (s < best) best = s;
    }
    int64_t sum = 0;
    uint64_t mix = 0;
    for (int32_t p = 0; p < players; p++) {
        sum += rating[p];
        mix = mix * 31 + (uint64_t)rating[p];
    }
    printf("%d %.9f %lld %llu\n", n, best, (long long)sum, (unsigned long long)mix);
    return 0;
}
"""


def expected_table() -> list[int]:
    """White's expected score in 1/10000 when Black is rated d points higher, d = -800..800
    (rounded half up; the values are never exactly on a half)."""
    return [int(10000 / (1 + 10 ** (d / 400)) + 0.5) for d in range(-800, 801)]


def int_elo(
    white: list[int], black: list[int], score2: list[int], players: int, table: list[int]
) -> tuple[int, int]:
    """The C loop's algorithm in pure Python; returns its (sum, mix) checksum."""

    def div_round(x: int, q: int) -> int:
        return (2 * x + q) // (2 * q) if x >= 0 else -((-2 * x + q) // (2 * q))

    rating = [150_000] * players
    games = [0] * players
    for w, b, s in zip(white, black, score2, strict=True):
        rw, rb = rating[w], rating[b]
        d = min(800, max(-800, div_round(rb - rw, 100)))
        ew = table[d + 800]
        sw = s * 5000
        kw = 32 if games[w] < 30 else 20
        kb = 32 if games[b] < 30 else 20
        rating[w] = max(10_000, rw + div_round(kw * (sw - ew), 100))
        rating[b] = max(10_000, rb + div_round(kb * (ew - sw), 100))
        games[w] += 1
        games[b] += 1
    mix = 0
    for r in rating:
        mix = (mix * 31 + r) & 0xFFFFFFFFFFFFFFFF
    return sum(rating), mix


def c_rows(pairs: Path, work: Path) -> list[Row]:
    white_a, black_a, score_a, players = generate_stream.read_pairs(pairs)
    total = int(white_a.size)
    table = expected_table()
    began = time.perf_counter()
    expected = int_elo(white_a.tolist(), black_a.tolist(), score_a.tolist(), players, table)
    python_seconds = time.perf_counter() - began
    rows = [
        Row("integer-hundredths Elo + table, pure Python loop", "pairs", total, python_seconds,
            check=f"Σ {expected[0] / 100:,.2f}", note="the C loop's algorithm, for its check"),
    ]  # fmt: skip
    gcc = shutil.which("gcc")
    what = "integer-hundredths Elo + table, C loop (gcc -O2): the speed limit"
    if gcc is None:
        return [*rows, missing(what, "pairs", "gcc not found")]
    source = work / "elo.c"
    source.write_text(C_SOURCE)
    binary = work / "elo"
    subprocess.run([gcc, "-O2", "-o", str(binary), str(source)], check=True)
    (work / "table.txt").write_text("\n".join(map(str, table)) + "\n")
    out = subprocess.run(
        [str(binary), str(pairs), str(work / "table.txt"), "5"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    games_text, seconds_text, sum_text, mix_text = out.stdout.split()
    same = (int(sum_text), int(mix_text)) == expected
    check = f"Σ {int(sum_text) / 100:,.2f}; " + ("= Python loop" if same else "DIFFERS from Python")
    rows.append(
        Row(what, "pairs", int(games_text), float(seconds_text), check=check,
            note="best of 5 runs of the whole stream; file read not timed")
    )  # fmt: skip
    return rows


# -- PGN headers -----------------------------------------------------------------------


def pgn_files(pgn_dir: Path | None, generated: Path) -> tuple[list[Path], str]:
    note = ""
    files: list[Path] = []
    if pgn_dir is None:
        note = "no --pgn-dir and no shared/data beside the checkout: real PGN files skipped"
    elif not pgn_dir.is_dir():
        note = f"{pgn_dir} is absent: real PGN files skipped"
    else:
        files = sorted(pgn_dir.glob("pgn_*/*.pgn"))
        if not files:
            note = f"no pgn_*/*.pgn under {pgn_dir}: real PGN files skipped"
    return [*files, generated], note


def python_chess_headers(path: Path) -> tuple[int, int]:
    """(games, games whose White or Black holds a quote or a backslash) by read_headers."""
    import chess.pgn

    count = escaped = 0
    with path.open(encoding="utf-8-sig", errors="replace") as handle:
        while (headers := chess.pgn.read_headers(handle)) is not None:
            count += 1
            if any(c in headers.get("White", "") + headers.get("Event", "") for c in '"\\'):
                escaped += 1
    return count, escaped


def chessrate_headers(module: ModuleType, path: Path) -> int:
    return sum(1 for _ in module.scan_headers(path))


def chessrate_pgn_rows(name: str, path: Path, tags: int, size: float) -> list[Row]:
    """chessrate's PGN paths on one file, best of 3 each (the numba kernels are compiled
    or loaded from their cache before): the kernel alone (every tag of every game
    located), the record's tags as columns, and whole GameRecords."""
    from chessrate.fast.pgn import read_pgn_columns
    from chessrate.io.pgn import read_pgn_games
    from chessrate.io.pgn.scan_numba import Workspace, scan_buffer

    data = path.read_bytes()
    workspace = Workspace()
    scan_buffer(data[:4096], 1, False, workspace)  # compile (or load) before timing
    kernel, scanned = best_of(3, lambda: scan_buffer(data, 1, True, workspace))
    columns_seconds, columns = best_of(3, lambda: read_pgn_columns(path))
    records_seconds, records = best_of(1, lambda: read_pgn_games(path, on_invalid=lambda _: None))

    def same(count: int) -> str:
        return "= Result tags in the file" if count == tags else f"DIFFERS: {tags:,} Result tags"

    bailed = " (gave the buffer back to Python)" if scanned.bailed else ""
    return [
        Row("chessrate.io.pgn.scan_numba.scan_buffer (compiled kernel: every tag located)", name,
            scanned.games, kernel, "headers", same(scanned.games) + bailed,
            f"{size:.1f} MiB in memory; best of 3"),
        Row("chessrate.fast.pgn.read_pgn_columns (the record's tags as columns)", name,
            len(columns), columns_seconds, "headers", same(len(columns)),
            "file read, decompressed, scanned, values decoded; best of 3"),
        Row("chessrate.io.pgn.read_pgn_games (GameRecords, validated)", name, len(records),
            records_seconds, "games", f"{len(records):,} valid of {tags:,}",
            "invalid ones (variants, ...) skipped"),
    ]  # fmt: skip


def result_tags(path: Path) -> int:
    """Games by an independent count: the lines that start with a Result tag."""
    data = path.read_bytes()
    return data.count(b"\n[Result ") + data.startswith(b"[Result ")


def pgn_rows(files: list[Path], expected_generated: int) -> list[Row]:
    rows = []
    try:
        pgn: ModuleType | None = importlib.import_module("chessrate.io.pgn")
    except ImportError as error:
        pgn, why = None, f"{MISSING} ({error})"
    for path in files:
        size = path.stat().st_size / 1024**2
        name = (
            f"{path.parent.name}/{path.name}" if path.parent.name.startswith("pgn_") else path.name
        )
        began = time.perf_counter()
        count, escaped = python_chess_headers(path)
        seconds = time.perf_counter() - began
        tags = result_tags(path)
        if count == tags:
            check = "= Result tags in the file"
        else:
            check = f"≠ {tags:,} Result tags in the file"
            if count < tags:
                check += " (headers-only games: python-chess merges them)"
        if path.name == "lichess.pgn":
            ok = count == expected_generated and escaped > 0
            check += f"; {'=' if ok else 'DIFFERS from'} generated, {escaped:,} with escapes"
        rows.append(
            Row("python-chess chess.pgn.read_headers", name, count, seconds, "headers",
                check, f"{size:.1f} MiB")
        )  # fmt: skip
        what = "chessrate.io.pgn.scan_headers"
        if pgn is None:
            rows.append(missing(what, name, why, "headers"))
            continue
        seconds, ours = best_of(3, lambda: chessrate_headers(pgn, path))  # noqa: B023
        same = "= Result tags in the file" if ours == tags else f"DIFFERS: {tags:,} Result tags"
        rows.append(Row(what, name, ours, seconds, "headers", same,
                        f"{size:.1f} MiB; dicts of every tag; best of 3"))  # fmt: skip
        rows += chessrate_pgn_rows(name, path, tags, size)
    return rows


# -- memory of the compiled state ------------------------------------------------------

# What one (player, pool) needs in a struct-of-arrays state: the bench's model of the
# layout, used while chessrate.fast is not on the checkout (fast_state_arrays is its call
# site). Ratings and sums are integer hundredths.
STATE_MODEL: dict[str, dict[str, str]] = {
    "arena": {  # status, rating, rated games; A6: qualifying count, Σ opponents, points
        "status": "i1", "rating": "i4", "games": "i4",
        "q_count": "i1", "q_opponents": "i4", "q_half_points": "i1",
    },
    "corr": {"status": "i1", "rating": "i4", "games": "i4", "performances": "i8"},
    "site": {"rating": "i4", "games": "i4"},  # per pool: the site Elo and 8 type ratings
}  # fmt: skip
PER_PLAYER_MODEL = {"arena": {"membership_day": "i4"}, "corr": {}, "site": {"bot_rating": "i4"}}


def fast_state_arrays(
    system_id: str, players: int, layout: list[tuple[str, str, int]] | None
) -> tuple[list[np.ndarray], str]:
    """The state arrays for ``players`` players, touched (written), and where the layout
    comes from: chessrate.fast's own (names, dtypes and sizes from a real replay), else
    the bench's model."""
    if layout:
        arrays = [np.full(players * per, 1, dtype=dtype) for _name, dtype, per in layout]
        return arrays, "chessrate.fast: " + ", ".join(
            f"{name} {dtype}" + (f"×{per}" if per > 1 else "") for name, dtype, per in layout
        )
    pools = POOLS[system_id]
    arrays = [np.full(players * pools, 1, dtype=d) for d in STATE_MODEL[system_id].values()]
    arrays += [np.full(players, 1, dtype=d) for d in PER_PLAYER_MODEL[system_id].values()]
    return arrays, "bench's layout model (chessrate.fast not on this checkout)"


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def memory_probe(
    system_id: str, players: int, layout: list[tuple[str, str, int]] | None
) -> dict[str, Any]:
    """Run in a fresh process: allocate and touch the state, measure it three ways."""
    gc.collect()
    rss_before = rss_bytes()
    tracemalloc.start()
    began = time.perf_counter()
    try:
        arrays, source = fast_state_arrays(system_id, players, layout)
    except MemoryError:
        return {"fits": False, "source": "", "array_bytes": 0}
    seconds = time.perf_counter() - began
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_after = rss_bytes()
    array_bytes = sum(a.nbytes for a in arrays)
    return {
        "fits": True, "source": source, "array_bytes": array_bytes,
        "tracemalloc_peak": peak, "rss_delta": rss_after - rss_before, "seconds": seconds,
    }  # fmt: skip


def memory_rows(players: int, big: int, out: Printer) -> None:
    total_memory = 0
    try:
        kib = int(re.findall(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text())[0])
        total_memory = kib * 1024
    except (OSError, IndexError):
        pass
    row = out.table(
        ["system", "pools", "bytes per (player, pool)", f"arrays for {players:,} players",
         "tracemalloc peak", "RSS growth", f"{big:,} players: arrays / RSS growth", "fits",
         "layout"],
        "lrrrrrrll",
    )  # fmt: skip
    mib = 1024**2
    for system_id in SYSTEMS:
        probes: list[dict[str, Any]] = []
        for count in (players, big):
            done = subprocess.run(
                [sys.executable, __file__, "--memory-probe", system_id, str(count),
                 json.dumps(STATE_LAYOUTS.get(system_id))],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            probe = json.loads(done.stdout) if done.returncode == 0 else {"fits": False}
            probes.append(probe)
        small, large = probes
        pools = POOLS[system_id]
        fits = large.get("fits") and (not total_memory or large["rss_delta"] < total_memory / 2)
        per = small["array_bytes"] / (players * pools)
        big_cell = (
            f"{large['array_bytes'] / mib:,.0f} MiB / {large['rss_delta'] / mib:,.0f} MiB"
            if large.get("fits") else "allocation failed"
        )  # fmt: skip
        row([
            system_id, str(pools), f"{per:.2f}", f"{small['array_bytes'] / mib:,.1f} MiB",
            f"{small['tracemalloc_peak'] / mib:,.1f} MiB", f"{small['rss_delta'] / mib:,.1f} MiB",
            big_cell,
            "yes" if fits else "no", small["source"],
        ])  # fmt: skip


# -- main ------------------------------------------------------------------------------


def shared_data_dir() -> Path | None:
    for candidate in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data"):
        if candidate.is_dir():
            return candidate
    return None


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=None, help="default 2,000,000")
    parser.add_argument("--players", type=int, default=None, help="default 100,000")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test")
    parser.add_argument("--data", type=Path, default=None, help="the stream's folder")
    parser.add_argument("--pgn-dir", type=Path, default=None, help="holds pgn_*/*.pgn")
    parser.add_argument("--pgn-games", type=int, default=None, help="default 200,000")
    parser.add_argument("--reference-games", type=int, default=None, help="default 100,000")
    parser.add_argument("--peer-games", type=int, default=None, help="default 200,000")
    parser.add_argument("--big-players", type=int, default=None, help="default 10,000,000")
    parser.add_argument("--write-results", action="store_true")
    parser.add_argument("--memory-probe", nargs=3, metavar=("SYSTEM", "PLAYERS", "LAYOUT"))
    args = parser.parse_args(argv)
    quick = args.quick
    defaults = {
        "games": 10_000 if quick else 2_000_000,
        "players": 1_000 if quick else 100_000,
        "pgn_games": 1_000 if quick else 200_000,
        "reference_games": 1_000 if quick else 100_000,
        "peer_games": 10_000 if quick else 200_000,
        "big_players": 100_000 if quick else TEN_MILLION,
    }
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    if args.memory_probe:
        system_id, count, layout = args.memory_probe
        print(json.dumps(memory_probe(system_id, int(count), json.loads(layout))))
        return 0
    out = Printer()
    command = "python bench/run.py " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
    )
    data = args.data or generate_stream.default_dir(args.games, args.players, args.seed)
    began = time.perf_counter()
    ensure_data(data, args.games, args.players, args.seed, args.pgn_games)
    manifest = json.loads((data / "manifest.json").read_text())
    out(f"machine: {machine()}")
    out(f"command: `{command.strip()}`  ({datetime.now(UTC):%Y-%m-%d})")
    out(
        f"stream: {args.games:,} games, {args.players:,} players, seed {args.seed}, "
        f"{manifest['draws']:,} draws; site: {manifest['counts']['site']}"
    )
    out()
    row = out.table(
        ["measurement", "system / file", "processed", "seconds", "per second", "check", "note"],
        "llrrrll",
    )
    pgn_dir = args.pgn_dir or shared_data_dir()
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="chessrate-bench-") as folder:
        work = Path(folder)
        for system_id in SYSTEMS:
            rows, summary, head = reference_rows(
                system_id, data, work, args.reference_games, args.games
            )
            for line in fast_rows(system_id, data, head, summary, args.games):
                row(line.cells())
            for line in rows:
                row(line.cells())
        pairs = data / "pairs.bin"
        for line in c_rows(pairs, work):
            row(line.cells())
        for line in peer_rows(pairs, args.peer_games):
            row(line.cells())
        files, note = pgn_files(pgn_dir, data / "lichess.pgn")
        if note:
            notes.append(note)
        for line in pgn_rows(files, manifest["pgn_games"]):
            row(line.cells())
    for note in notes:
        out(f"\nnote: {note}")
    out()
    out("Memory of the rating state (one process per measurement; arrays written to, so RSS")
    out("counts them):")
    out()
    memory_rows(args.players, args.big_players, out)
    out(f"\ntotal run time {time.perf_counter() - began:.0f} s")
    if args.write_results:
        write_results(out.lines)
    return 0


SECTION = "## One stream, every path (bench/run.py)"
ABOUT = """\
Written by `bench/run.py --write-results`, which replaces this section. One generated
stream (bench/generate_stream.py) feeds every row. Rows on a slice say so and give the
extrapolated time for the whole stream; the check column shows how each result was
verified. The PyPI libraries come with the `bench` extra, except `elo` 0.1.1, which pip
cannot build any more: run.py builds it from its sdist with 2to3. "kernel only" counts
the rated games the kernel rates; every other row counts the file's rows."""


def write_results(lines: list[str]) -> None:
    """Replace (or append) the run.py section of bench/RESULTS.md."""
    path = BENCH / "RESULTS.md"
    text = path.read_text(encoding="utf-8")
    body = "\n".join(lines).rstrip()
    section = f"{SECTION}\n\n{ABOUT}\n\n{body}\n"
    start = text.find(SECTION)
    if start == -1:
        text = text.rstrip() + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(SECTION))
        text = text[:start] + section + ("" if end == -1 else text[end:])
    path.write_text(text, encoding="utf-8")
    print(f"\nwrote the section {SECTION!r} of {path}")


if __name__ == "__main__":
    sys.exit(main())
