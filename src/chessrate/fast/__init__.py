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

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType


def _numba_without_scipy() -> None:
    """Import numba's array functions (``numba.np.arraymath``, which numba imports at its
    first compile or cache load) with SciPy hidden. That module probes for a BLAS by
    importing ``scipy.linalg`` (with SciPy installed, as fair-play's dependencies have it:
    0.2 to 0.4 s of every ``chessrate rate``, more than loading all of chessrate's
    kernels). No kernel here uses a BLAS (integers only); the probe's only use is the
    inner product of ``np.convolve`` and ``np.correlate`` on floats, which then takes
    numba's own loop. ``np.dot`` and ``np.linalg`` in numba code still find SciPy when
    they are compiled. Nothing is hidden if SciPy's linalg or that module is loaded."""
    if "scipy.linalg" in sys.modules or "numba.np.arraymath" in sys.modules:
        return

    class Hidden(importlib.abc.MetaPathFinder):
        def find_spec(
            self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
        ) -> ModuleSpec | None:
            if name == "scipy" or name.startswith("scipy."):
                raise ModuleNotFoundError(f"{name} is hidden while numba starts", name=name)
            return None

    hidden = Hidden()
    sys.meta_path.insert(0, hidden)
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        sys.meta_path.remove(hidden)


_numba_without_scipy()

from ..systems.registry import REGISTRY  # noqa: E402
from .batch import GameBatch, encode  # noqa: E402
from .compiled import CompiledSystem, compiled_half, compiled_of  # noqa: E402
from .replay import Annul, kernel_again, replay  # noqa: E402
from .result import CompiledReplay, PoolList  # noqa: E402
from .roster import Roster  # noqa: E402

SYSTEMS = tuple(info.id for info in REGISTRY.values() if info.compiled is not None)
"""The registered systems with a compiled half when this package was imported."""

__all__ = [
    "SYSTEMS", "Annul", "CompiledReplay", "CompiledSystem", "GameBatch", "PoolList", "Roster",
    "compiled_half", "compiled_of", "encode", "kernel_again", "replay",
]  # fmt: skip
