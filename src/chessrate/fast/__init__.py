"""The compiled replay path for the systems that rate games one by one.

The pure-Python systems in :mod:`chessrate.systems` are the reference; this package
computes the same rating lists and outcomes for whole batches, with the state of
each pool in flat numpy arrays (ratings as integer hundredths) and the rules in
numba kernels (each system's compiled half, :mod:`chessrate.fast.compiled`, named by
its registry entry)::

    from chessrate.fast import encode, replay
    result = replay(system, encode(records), players)  # a system id or object
    result.rating_lists()      # == Engine.rating_lists()
    result.outcome_counts()    # rated / unrated / void, as `chessrate rate` prints

:func:`chessrate.fast.columnar.read_batch` reads a CSV or JSON Lines file straight
into a :class:`GameBatch`.
"""

from __future__ import annotations

from ..systems.registry import REGISTRY
from .batch import GameBatch, encode
from .compiled import CompiledSystem, compiled_half, compiled_of
from .replay import Annul, kernel_again, replay
from .result import CompiledReplay, PoolList
from .roster import Roster

SYSTEMS = tuple(info.id for info in REGISTRY.values() if info.compiled is not None)
"""The registered systems with a compiled half when this package was imported."""

__all__ = [
    "SYSTEMS", "Annul", "CompiledReplay", "CompiledSystem", "GameBatch", "PoolList", "Roster",
    "compiled_half", "compiled_of", "encode", "kernel_again", "replay",
]  # fmt: skip
