"""The fair-play detector on human games it was neither fitted nor checked on.

``bench/data/fairplay`` holds a few hundred human games; in some rating bands (2000-2599)
only a few dozen player-games, too few to show a false-positive rate. This script takes
more games from a public PGN collection (for the recorded run: Magnus Carlsen's
over-the-board games from pgnmentor.com, as in the corpus), leaves out every game the
corpus holds (the same White, Black, Date and Round), keeps the games of 30 plies or
more with both Elo tags and at least one player in ``--bands``, takes ``--games`` of
them evenly spaced, screens them with ``chessrate detect`` (the detector's default
limits and shipped model, ``--jobs`` processes at once) and prints, per rating band,
the player-games screened, how many were flagged (whole game, window or choices) and
by the choices, and the highest game score and choice score; then the players with
five or more of these games and their records.

    .venv/bin/python bench/detector_unseen.py SOURCE.pgn [--bands 2000-2599]
        [--games 300] [--jobs 2]
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import chess.pgn

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from detector_eval import band_name  # noqa: E402
from fairplay_cheaters import HUMAN_FILES  # noqa: E402
from fairplay_corpus import DATA  # noqa: E402

from chessrate.fairplay.model import band_of  # noqa: E402

CHESSRATE = str(Path(sys.executable).with_name("chessrate"))
KEY_TAGS = ("White", "Black", "Date", "Round")


def _key(headers: Any) -> tuple[str, ...]:
    return tuple(headers.get(tag, "?") for tag in KEY_TAGS)


def _elo(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() and int(text) > 0 else None


def corpus_keys() -> set[tuple[str, ...]]:
    """The games the corpus holds, by their identifying tags."""
    keys = set()
    for name in HUMAN_FILES:
        with (DATA / name).open(encoding="utf-8") as handle:
            while (headers := chess.pgn.read_headers(handle)) is not None:
                keys.add(_key(headers))
    return keys


def chosen_games(source: Path, low: int, high: int, count: int) -> list[str]:
    """The PGN text of ``count`` evenly spaced games of ``source`` that qualify."""
    taken = corpus_keys()
    found = []
    with source.open(encoding="utf-8", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            headers = game.headers
            ratings = [_elo(headers.get("WhiteElo")), _elo(headers.get("BlackElo"))]
            if None in ratings or _key(headers) in taken or game.errors:
                continue
            if not any(low <= r <= high for r in ratings if r is not None):
                continue
            if sum(1 for _ in game.mainline_moves()) < 30:
                continue
            game.headers["Event"] = headers.get("Event", "?")
            exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=False)
            found.append(game.accept(exporter))
    if len(found) <= count:
        return found
    step = len(found) / count
    return [found[int(i * step)] for i in range(count)]


def screen(games: Sequence[str], jobs: int) -> tuple[list[dict[str, Any]], float]:
    """``chessrate detect`` over the games, ``jobs`` files at once: every JSON line, and
    the wall-clock seconds."""
    lines: list[dict[str, Any]] = []
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for job in range(jobs):
            part = Path(folder) / f"part{job}.pgn"
            part.write_text("\n\n".join(games[job::jobs]) + "\n", encoding="utf-8")
            files.append(part)
        running = [
            subprocess.Popen([CHESSRATE, "detect", str(f)], stdout=subprocess.PIPE, text=True)
            for f in files
        ]
        for process in running:
            out, _ = process.communicate()
            if process.returncode != 0:
                raise SystemExit(f"chessrate detect failed ({process.returncode})")
            lines.extend(json.loads(line) for line in io.StringIO(out) if line.strip())
    return lines, time.monotonic() - began


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("--bands", default="2000-2599", help="LOW-HIGH: a player rated so")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    low, high = (int(x) for x in args.bands.split("-"))
    games = chosen_games(args.source, low, high, args.games)
    lines, seconds = screen(games, args.jobs)
    player_games = [line for line in lines if line["type"] == "game"]
    players = [line for line in lines if line["type"] == "player"]
    print(f"{len(games)} games of {args.source.name} not in the corpus, a player rated "
          f"{low}-{high}; {len(player_games)} player-games; {seconds:.0f} s with "
          f"{args.jobs} processes\n")  # fmt: skip
    print("| band | player-games | 10+ evidence moves | flagged | by the choices | "
          "highest game score | highest choice score |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|")
    bands: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for line in player_games:
        if line["rating"] is not None:
            bands[band_of(int(line["rating"]))].append(line)
    for band in sorted(bands):
        items = bands[band]
        counted = [g for g in items if g["moves_analysed"] >= 10]
        flagged = [g for g in items if g["flagged"]]
        choices = [g for g in items if g["reason"] == "choices"]
        top = max((g["score"] for g in counted), default=0.0)
        top_choice = max((g["choice_score"] for g in counted), default=0.0)
        print(f"| {band_name(band)} | {len(items)} | {len(counted)} | {len(flagged)} | "
              f"{len(choices)} | {top:.2f} | {top_choice:.2f} |")  # fmt: skip
    regulars = [p for p in players if p["games"] >= 5]
    flagged_players = [p for p in players if p["flagged"]]
    print(f"\nplayers: {len(players)}, {len(flagged_players)} flagged; with 5 or more of "
          f"these games: {len(regulars)}, record scores (choice scores) "
          + ", ".join(f"{p['player']} {p['score']:.2f} ({p.get('choice_score', 0.0):.2f}; "
                      f"{p['games']} games)" for p in regulars))  # fmt: skip
    for line in player_games:
        if line["flagged"]:
            print(f"flagged: {line['game']} {line['player']} ({line['rating']}) score "
                  f"{line['score']:.2f}, choice score {line['choice_score']:.2f}, "
                  f"{line['moves_analysed']} moves ({line['reason']})")  # fmt: skip


if __name__ == "__main__":
    main()
