"""The detector as a background job: analyse the finished rated games with moves (live
games, and games submitted with their moves) not analysed yet, at most ``limit`` per
run, store each analysis, and hand each flag to :meth:`DetectionJob.on_flag`.

Run by ``chessrate detect`` (cron) and by each service worker, by default, every 30 s
when Stockfish is found, one analysis at a time on the machine
(:mod:`chessrate.fairplay.background`, :mod:`chessrate.server`). Several runs at once
are safe: a game's analysis is stored once (its row's key); a run that finds the game
stored meanwhile drops its own (the work is repeated, not the row).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from ..errors import ChessrateError
from ..ledger import Ledger
from ..ledger.analyses import AnalysisView
from ..systems.site_live import Side
from .detector import Detector, DetectorRules, Evidence, UnanalysableGame

log = logging.getLogger(__name__)
DETECTOR_NAME = "detector:stockfish"
"""Who the detector's reports are by (one report per game: ``file_report`` keeps
one per reporter)."""

DETECT_BATCH = 20
"""Games analysed per run unless told: at depth 10 about 2-5 s each on one core."""


@dataclass
class DetectReport:
    """What one run did: the analyses it stored (flagged or not), the flags it raised
    (game id, player), and the games stored by another run meanwhile."""

    analysed: list[AnalysisView] = field(default_factory=list)
    flags: list[tuple[str, str]] = field(default_factory=list)
    raced: list[str] = field(default_factory=list)


class DetectionJob:
    """One ledger, one detector, a clock."""

    def __init__(
        self,
        ledger: Ledger,
        detector: Detector,
        clock: Callable[[], datetime],
        rules: DetectorRules | None = None,
    ) -> None:
        self.ledger = ledger
        self.detector = detector
        self.clock = clock
        self.rules = rules or getattr(detector, "rules", None) or DetectorRules()
        self.analyses = ledger.analyses

    def run(self, limit: int = DETECT_BATCH, stop: threading.Event | None = None) -> DetectReport:
        """Analyse at most ``limit`` games waiting for their analysis; when ``stop`` is
        set (a worker shutting down), stop after the game being analysed."""
        report = DetectReport()
        min_plies = self.rules.opening_plies + 1
        for game in self.analyses.pending(limit, min_plies):
            if stop is not None and stop.is_set():
                break
            ratings = game.ratings
            evidence: Evidence | None = None
            note = None
            try:
                evidence = self.detector.analyse(game.moves, ratings)
            except UnanalysableGame as error:  # moves missing or illegal: never analysable
                note = f"not analysed: {error}"
            engine = evidence.engine if evidence is not None else "-"
            limits = evidence.limits if evidence is not None else self.rules.limits()
            flagged = bool(evidence and evidence.flagged)
            stored = self.analyses.store(
                game.id, engine, limits, None if evidence is None else evidence.to_json(),
                flagged, note, self.clock(),
            )  # fmt: skip
            if not stored:
                report.raced.append(game.id)
                continue
            if evidence is not None:
                for side in evidence.flagged:
                    self.on_flag(game.id, game.player(side), evidence)
                    report.flags.append((game.id, game.player(side)))
            report.analysed.append(self.analyses.get(game.id))
        return report

    # ---- THE HOOK ------------------------------------------------------------------
    def on_flag(self, game_id: str, player: str, evidence: Evidence) -> None:
        """Called once per flagged player of a stored analysis: records the flag in
        ``analyses.flags`` and files the detector's report for the moderators' review
        queue (``Ledger.file_report``, source ``detector``, the evidence with it;
        idempotent per game, so a re-run files nothing twice). A game the queue
        refuses (annulled meanwhile) is logged, not retried."""
        summary = "; ".join(
            f"{s.value}: match {evidence.stats(s).match_rate:.0%}, ACPL "
            f"{evidence.stats(s).acpl:.1f}"
            for s in Side
        )
        log.warning("detector: game %s: %s flagged (%s)", game_id, player, summary)
        self.analyses.record_flag(game_id, player)
        try:
            self.ledger.reviews.file_report(
                game_id, DETECTOR_NAME, f"engine-like play by {player} ({summary})",
                evidence.to_json(), "detector", self.clock(),
            )  # fmt: skip
        except ChessrateError as error:
            log.warning("detector: game %s: no report filed: %s", game_id, error)
