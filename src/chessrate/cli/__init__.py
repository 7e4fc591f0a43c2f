"""The ``chessrate`` command line. Thin: parses arguments, calls the library,
prints, and maps every :class:`ChessrateError` to exit code 2 in one place
(:func:`~chessrate.cli.common.reports_errors`).

One module per command group, each adding its commands to the ``main`` group of
:mod:`chessrate.cli.common` when imported: :mod:`~chessrate.cli.rate` (``rate``),
:mod:`~chessrate.cli.evaluate` (``evaluate``),
:mod:`~chessrate.cli.fide` (``fide rate``, ``fide adjust-2024``),
:mod:`~chessrate.cli.ledger` (``init``, ``serve``, ``import``, ``export``, ``verify``,
``backup``, ``sweep``, ``pair``) and :mod:`~chessrate.cli.moderation` (``token``, ``audit``,
``detect``).
"""

from __future__ import annotations

from . import evaluate, fide, ledger, moderation, rate
from .common import main, reports_errors, run

__all__ = ["evaluate", "fide", "ledger", "main", "moderation", "rate", "reports_errors", "run"]
