"""The detector as the service runs it: whether it runs and why, one analysis at a time
per machine, and the queue as ``/healthz`` shows it.

* **On by default.** A service on a ledger whose system plays live games (``site``)
  runs the detection job every :data:`DEFAULT_DETECT_SECONDS` seconds when Stockfish is
  found (:func:`chessrate.fairplay.detector.stockfish_path`: ``CHESSRATE_STOCKFISH``,
  else Debian's ``/usr/games/stockfish``); ``CHESSRATE_DETECT_SECONDS`` sets the
  interval, 0 turns it off. :func:`plan` decides, and says why in one line.
* **One at a time.** Analysing takes a core for seconds per game, so however many
  workers and services run on a machine, one analyses at a time: a round first takes
  :class:`MachineLock` (an ``fcntl`` lock on a file in :func:`runtime_dir`) without
  waiting; a worker that cannot take it skips the round (another is analysing). Each
  game's analysis is bounded by the detector's own budget (``DetectorRules``'
  ``game_seconds`` and ``max_positions``), a round by ``CHESSRATE_DETECT_GAMES``.
* **The queue.** :class:`DetectorStatus` keeps what ``/healthz`` says: on or off and
  why, the games waiting, analysed and flagged (counted at most every
  :data:`COUNTS_SECONDS` seconds per worker, so ``/healthz`` stays cheap), and this
  worker's last round.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from ..ledger import Ledger
from ..ledger.analyses import AnalysisCounts
from .detector import DetectorRules, stockfish_path
from .job import DetectReport

R = TypeVar("R")

DEFAULT_DETECT_SECONDS = 30.0
"""How often a worker runs the detection job unless ``CHESSRATE_DETECT_SECONDS`` says."""
FIRST_ROUND_SECONDS = 5.0
"""The first round comes this soon after start-up (or the interval, when shorter): the
games that arrived while the service was down wait no longer."""
COUNTS_SECONDS = 10.0
"""``/healthz`` counts the queue at most this often per worker."""
LOCK_NAME = "detector.lock"


@dataclass(frozen=True, slots=True)
class DetectorPlan:
    """Whether this service runs the detector, why, with which engine, how often."""

    on: bool
    why: str
    engine: str | None = None
    interval: float = 0.0
    missing: bool = False
    """Off for want of an engine (a warning, where the other reasons are choices)."""

    def line(self) -> str:
        """The start-up log line."""
        if self.on:
            return (
                f"fair-play detector on: {self.engine}, every {self.interval:g} s, one "
                f"analysis at a time on this machine ({self.why})"
            )
        return f"fair-play detector off: {self.why}"


def plan(
    system_id: str, live_games: bool, interval: float | None, stockfish: str | None
) -> DetectorPlan:
    """The detector's plan for a service on a ledger of ``system_id``: ``interval`` as
    configured (None: unset), ``stockfish`` the configured engine (None: the default)."""
    if not live_games:
        return DetectorPlan(
            False, f"not a site ledger (system {system_id} plays no live games: nothing to screen)"
        )
    if interval is not None and interval <= 0:
        return DetectorPlan(False, "turned off by CHESSRATE_DETECT_SECONDS=0")
    engine = stockfish_path(stockfish)
    if not (os.path.isfile(engine) and os.access(engine, os.X_OK)):
        return DetectorPlan(
            False,
            f"no Stockfish at {engine} (install Debian's stockfish package, or set "
            "CHESSRATE_STOCKFISH to the engine)",
            missing=True,
        )
    why = "CHESSRATE_DETECT_SECONDS" if interval is not None else "the default"
    return DetectorPlan(True, why, engine, DEFAULT_DETECT_SECONDS if interval is None else interval)


def runtime_dir(configured: str | None = None) -> Path:
    """Where a machine's services keep their lock files: ``configured``
    (``CHESSRATE_RUNTIME_DIR``), else ``$XDG_RUNTIME_DIR/chessrate``, else
    ``chessrate-<uid>`` in the system's temporary directory. Made when missing."""
    if configured:
        found = Path(configured)
    elif os.environ.get("XDG_RUNTIME_DIR"):
        found = Path(os.environ["XDG_RUNTIME_DIR"]) / "chessrate"
    else:
        found = Path(tempfile.gettempdir()) / f"chessrate-{os.getuid()}"
    found.mkdir(mode=0o700, parents=True, exist_ok=True)
    return found


class MachineLock:
    """An exclusive ``fcntl.flock`` on one file, taken without waiting: held by at most
    one open file on the machine at a time, whichever process or thread holds it; the
    system releases it when its holder exits, however it exits."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextlib.contextmanager
    def held(self) -> Iterator[bool]:
        """Yield True holding the lock, or False at once when another holds it."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def locked_run(run: Callable[[], R], lock: MachineLock) -> R | None:
    """``run()`` holding the machine's lock; None at once (``run`` not called, no engine
    started) when another holds it."""
    with lock.held() as mine:
        return run() if mine else None


class DetectorStatus:
    """What ``/healthz`` says of the detector in this worker."""

    def __init__(
        self,
        ledger: Ledger,
        detector_plan: DetectorPlan,
        rules: DetectorRules | None = None,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ledger = ledger
        self.plan = detector_plan
        self.min_plies = (rules or DetectorRules()).opening_plies + 1
        self.timer = timer
        self.last_run: datetime | None = None
        self.last_outcome: str | None = None
        self._counts: AnalysisCounts | None = None
        self._counted_at = 0.0
        self._guard = threading.Lock()

    def ran(self, at: datetime, report: DetectReport | None) -> None:
        """Note a round: its end, and what it did (None: skipped, another held the lock)."""
        with self._guard:
            self.last_run = at
            if report is None:
                self.last_outcome = "skipped: another process is analysing"
            else:
                flagged = len({game for game, _ in report.flags})
                self.last_outcome = f"{len(report.analysed)} analysed, {flagged} flagged"
            self._counts = None  # counted afresh on the next /healthz

    def failed(self, at: datetime, error: Exception) -> None:
        """Note a round that failed (the engine, the database): why, in a line."""
        with self._guard:
            self.last_run = at
            self.last_outcome = f"failed: {str(error)[:200] or type(error).__name__}"

    def counts(self) -> AnalysisCounts:
        with self._guard:
            now = self.timer()
            if self._counts is None or now - self._counted_at >= COUNTS_SECONDS:
                self._counts = self.ledger.analyses.counts(self.min_plies)
                self._counted_at = now
            return self._counts

    def public(self) -> dict[str, Any]:
        """The ``detector`` object of ``/healthz``."""
        counts = self.counts()
        return {
            "state": "on" if self.plan.on else "off",
            "why": self.plan.why,
            "engine": self.plan.engine,
            "interval_seconds": self.plan.interval if self.plan.on else None,
            "pending": counts.pending,
            "analysed": counts.analysed,
            "flagged": counts.flagged,
            "last_run": self.last_run,
            "last_outcome": self.last_outcome,
        }
