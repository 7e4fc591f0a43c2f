"""PGN to a columnar :class:`~chessrate.fast.batch.GameBatch`: the second sink of the
PGN scanner (:mod:`chessrate.io.pgn` builds game records; this one builds columns).

* :mod:`.columns`: every game's record tags as integer codes into per-tag tables of
  distinct values (:func:`read_pgn_columns`);
* :mod:`.batch`: each distinct value decided once by :mod:`chessrate.io.pgn.tags`,
  the games the values do not decide by ``game_from_tags`` (:func:`read_pgn_batch`).
"""

from .batch import read_pgn_batch
from .columns import PgnColumns, read_pgn_columns

__all__ = ["PgnColumns", "read_pgn_batch", "read_pgn_columns"]
