"""The fair-play corpus: the PGN games the detector is fitted and checked on, and their
engine analyses, kept in a JSON-lines file beside them so a fit or a check can be run
again without searching every position again.

``python bench/fairplay_corpus.py FILE.pgn... [--out bench/data/fairplay/analyses.jsonl.gz]``
analyses every game of the files that the cache does not hold yet, at the detector's
limits, one game at a time (one engine, one thread), and appends it (gzipped). A cached game is
found by its file's name, its index in the file and a digest of its moves and limits:
a changed game or changed limits is analysed again.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn

from chessrate.fairplay.analysis import Position, analyse_moves
from chessrate.fairplay.detector import DetectorRules, stockfish_path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "fairplay"
CACHE = DATA / "analyses.jsonl.gz"
CORPUS_LIMITS = DetectorRules()
"""The corpus is analysed at the detector's own limits: the hash is kept from one
position of a game to the next, so a search depends on where the game's analysis
began, and the corpus must begin where the detector does to hold what it sees."""


@dataclass(frozen=True, slots=True)
class CorpusGame:
    """One game of a corpus file: where it is, its players and ratings, its moves."""

    source: str
    index: int
    white: str
    black: str
    white_elo: int | None
    black_elo: int | None
    event: str
    moves: tuple[chess.Move, ...]
    headers: dict[str, str]

    @property
    def key(self) -> str:
        return f"{self.source}#{self.index}"

    def digest(self, limits: DetectorRules) -> str:
        text = " ".join(m.uci() for m in self.moves)
        spec = f"{limits.depth}/{limits.candidates}/{limits.opening_plies}"
        if limits.keep_hash:
            spec += "/kept"
        return hashlib.sha256(f"{spec}|{text}".encode()).hexdigest()[:16]


def _elo(text: str | None) -> int | None:
    try:
        return int(text) if text else None
    except ValueError:
        return None


def read_games(path: Path) -> Iterator[CorpusGame]:
    """The standard-chess games of a PGN file, in order."""
    with path.open(encoding="utf-8") as handle:
        index = 0
        while (game := chess.pgn.read_game(handle)) is not None:
            index += 1
            if game.errors or "FEN" in game.headers:
                continue
            h = game.headers
            yield CorpusGame(
                path.name, index, h.get("White", "?"), h.get("Black", "?"),
                _elo(h.get("WhiteElo")), _elo(h.get("BlackElo")), h.get("Event", ""),
                tuple(game.mainline_moves()), dict(h),
            )  # fmt: skip


def load_cache(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """The cached analyses by digest: of ``path``, else of every ``analyses*.jsonl``
    file (plain or gzipped) beside the corpus."""
    paths = [path] if path is not None else sorted(DATA.glob("analyses*.jsonl*"))
    cached = {}
    for each in paths:
        if not each.exists():
            continue
        opener = gzip.open if each.suffix == ".gz" else open
        with opener(each, "rt", encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    record = json.loads(line)
                    cached[record["digest"]] = record
    return cached


def positions_of(record: dict[str, Any]) -> tuple[Position, ...]:
    return tuple(Position.from_json(p) for p in record["positions"])


def analyse_corpus(
    games: Sequence[CorpusGame],
    cache: Path = CACHE,
    limits: DetectorRules = CORPUS_LIMITS,
    engine_path: str | None = None,
    progress: bool = True,
) -> dict[str, dict[str, Any]]:
    """Every game's cached analysis, analysing (and appending) the missing ones."""
    cached = load_cache()
    cached.update(load_cache(cache))
    missing = [g for g in games if g.digest(limits) not in cached]
    if missing:
        engine = chess.engine.SimpleEngine.popen_uci(stockfish_path(engine_path))
        engine.configure({"Threads": limits.threads, "Hash": limits.hash_mb})
        try:
            opener = gzip.open if cache.suffix == ".gz" else open
            with opener(cache, "at", encoding="utf-8") as out:
                for number, game in enumerate(missing, 1):
                    analysis = analyse_moves(engine, game.moves, limits)
                    record: dict[str, Any] = {
                        "digest": game.digest(limits), "key": game.key,
                        "plies": len(game.moves), "seconds": round(analysis.seconds, 3),
                        "complete": analysis.complete,
                        "positions": [p.to_json() for p in analysis.positions],
                    }  # fmt: skip
                    out.write(json.dumps(record, separators=(",", ":")) + "\n")
                    out.flush()
                    cached[record["digest"]] = record
                    if progress and number % 10 == 0:
                        print(f"  {number}/{len(missing)} analysed", file=sys.stderr)
        finally:
            engine.quit()
    return cached


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=CACHE)
    args = parser.parse_args(argv)
    games = [g for path in args.files for g in read_games(path)]
    analyse_corpus(games, args.out)


if __name__ == "__main__":
    main()
