"""The compiled replay path for the per-game systems (``arena``, ``corr``, ``site``).

The pure-Python systems in :mod:`chessrate.systems` are the reference; this package
computes the same rating lists and outcomes for whole batches, with the state of
each pool in flat numpy arrays (ratings as integer hundredths) and the rules in
numba kernels::

    from chessrate.fast import encode, replay
    result = replay("site", encode(records), players)
    result.rating_lists()      # == Engine.rating_lists()
    result.outcome_counts()    # rated / unrated / void, as `chessrate rate` prints

:func:`chessrate.fast.columnar.read_batch` reads a CSV or JSON Lines file straight
into a :class:`GameBatch`.
"""

from __future__ import annotations

from .batch import GameBatch, encode
from .replay import SYSTEMS, Annul, CompiledReplay, Roster, kernel_again, replay

__all__ = [
    "SYSTEMS", "Annul", "CompiledReplay", "GameBatch", "Roster", "encode", "kernel_again",
    "replay",
]  # fmt: skip
