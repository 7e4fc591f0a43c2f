"""PGN input: Lichess, chess.com and broadcast exports (``.pgn``, ``.gz``, ``.zst``).

Read as python-chess reads headers, a scanner and sinks apart:

* :mod:`.source`: the input's bytes (decompressed, in pieces of whole lines, or
  memory-mapped);
* :mod:`.scan`: the scanner contract and the choice of scanner, between
  :mod:`.scan_python` (the reference) and :mod:`.scan_numba` (compiled): every
  game's first line and tags;
* :mod:`.tags`: what each tag means in a game record, one public function per
  decision, and :func:`game_from_tags`; :mod:`.timecontrol`: ``TimeControl`` values;
* :mod:`.records`: the sink that builds game records (:func:`read_pgn_games`).
  The other sink, to a columnar ``GameBatch``, is :mod:`chessrate.fast.pgn`.

How it works, and where it differs from python-chess: ``docs/internals.md``, "PGN
reading".
"""

from .records import OnInvalid, iter_pgn_games, read_pgn_games
from .scan import COMPILED_MIN_BYTES, MAPPED_WINDOW, NotPlain, scan_headers
from .scan_python import Tags
from .source import CHUNK_BYTES, MAPPED_MIN_BYTES, Progress, Source
from .tags import (
    LICHESS_TERMINATIONS,
    RECORD_TAGS,
    PlayerIds,
    RefusedTag,
    game_from_tags,
    map_termination,
)
from .timecontrol import parse_pgn_time_control

__all__ = [
    "CHUNK_BYTES", "COMPILED_MIN_BYTES", "LICHESS_TERMINATIONS", "MAPPED_MIN_BYTES",
    "MAPPED_WINDOW", "RECORD_TAGS", "NotPlain", "OnInvalid", "PlayerIds", "Progress",
    "RefusedTag", "Source", "Tags", "game_from_tags", "iter_pgn_games", "map_termination",
    "parse_pgn_time_control", "read_pgn_games", "scan_headers",
]  # fmt: skip
