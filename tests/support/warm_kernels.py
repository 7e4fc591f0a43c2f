"""Compile the compiled replay's kernels once, before the suite starts.

numba compiles a kernel the first time a process calls it and caches the machine code
beside the source (``__pycache__``). On a fresh clone, the suite's processes would each
compile the kernels the first time one of their tests needs them, at the same moment
as the others: the same 20 to 40 s of CPU paid up to four times over. ``./test`` runs
this once, beside ruff and mypy, and the suite's processes then load the cached code.
It drives the real commands (rate of each system from CSV and PGN, import, verify,
evaluate) on a small generated stream; nothing it does is checked here, the suite
checks all of it.

Run as ``python tests/support/warm_kernels.py``; it prints how long it took. Once it
has run, it does nothing until a kernel's source changes (a digest of the compiled
modules' sources, kept in ``.venv``).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "chessrate"
STAMP = ROOT / ".venv" / "kernels-warmed"


def sources_digest() -> str:
    """A digest of every module that holds a compiled kernel."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_bytes()
        if b"@njit" in text or b"numba" in text:
            digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + text)
    return digest.hexdigest()


def main() -> None:
    began = time.perf_counter()
    digest = sources_digest()
    if STAMP.exists() and STAMP.read_text() == digest:
        return
    chessrate = [sys.executable, "-m", "chessrate"]
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        subprocess.run(
            [sys.executable, str(ROOT / "bench" / "generate_stream.py"), "--games", "600",
             "--players", "60", "--out", str(data), "--pgn-games", "0",
             "--format", "both"],
            check=True, capture_output=True,
        )  # fmt: skip
        commands: list[list[str]] = []
        for system in ("arena", "corr", "site"):
            games, players = data / f"{system}_games.csv", data / f"{system}_players.csv"
            out = data / f"{system}.json"
            db = f"sqlite:///{data / system}.db"
            commands += [
                ["rate", str(games), "--system", system, "--players", str(players),
                 "--engine", "compiled", "--out", str(out)],
                ["init", "--system", system, "--db", db],
                ["import", str(games), "--players", str(players), "--db", db],
                ["verify", "--db", db],
                ["evaluate", str(games), "--system", system, "--players", str(players),
                 "--engine", "compiled"],
            ]  # fmt: skip
        jsonl = data / "site_games.jsonl"
        commands.append(["rate", str(jsonl), "--system", "site", "--engine", "compiled"])
        pgn = ROOT / "tests" / "data" / "pgn" / "lichess_human_games.pgn"
        db = f"sqlite:///{data / 'pgn'}.db"
        commands += [
            ["rate", str(pgn), "--system", "site", "--engine", "compiled"],
            ["init", "--system", "site", "--db", db],
            ["import", str(pgn), "--db", db],
        ]
        for command in commands:  # failures are the suite's to report
            subprocess.run([*chessrate, *command], capture_output=True, check=False)
    STAMP.write_text(digest)
    print(f"kernels compiled and cached in {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
