"""The detector as a background job: analyse the finished rated games with moves (live
games, and games submitted with their moves) not analysed yet, at most ``limit`` per
run, store each analysis, and hand each flag to :meth:`DetectionJob.on_flag`.

Run by ``chessrate detect`` (cron) and by each service worker, by default, every 30 s
when Stockfish is found, one analysis at a time on the machine
(:mod:`chessrate.fairplay.background`, :mod:`chessrate.server`). Several runs at once,
on one machine or on several hosts of one database, analyse each game once: a run
claims a game before analysing it (:meth:`Analyses.claim
<chessrate.ledger.analyses.Analyses.claim>`; a game another run holds is skipped, and
a killed run's claim goes with its database session), and stores the analysis, its
flags and its reports in one transaction (:meth:`Analyses.storing
<chessrate.ledger.analyses.Analyses.storing>`): all of them, or none, and the game
waits for the next run.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..errors import ChessrateError
from ..ledger import Ledger
from ..ledger.analyses import AnalysisView, PendingGame, Storing
from ..systems.site_live import Side
from .detector import (
    Detector,
    DetectorRules,
    Evidence,
    PlayerGame,
    Reason,
    Record,
    UnanalysableGame,
    judge_record,
)

log = logging.getLogger(__name__)
DETECTOR_NAME = "detector:stockfish"
"""Who the detector's reports are by, with the side it accuses: ``detector:stockfish:white``
(a reporter files one report per game, and both players of a game can be flagged)."""

DETECT_BATCH = 20
"""Games analysed per run unless told: at depth 10 about 1-3 s each on one core."""


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
            with self.analyses.claim(game.id) as mine:
                # Another run holds the game, or stored it between the list and the claim.
                if not mine or self.analyses.analysed(game.id):
                    report.raced.append(game.id)
                    continue
                if self._analyse(game, report):
                    report.analysed.append(self.analyses.get(game.id))
                else:
                    report.raced.append(game.id)
        return report

    def _analyse(self, game: PendingGame, report: DetectReport) -> bool:
        """Analyse a claimed game, store the analysis with its flags and reports; False
        when it was stored meanwhile (nothing stored)."""
        established = self.rules.established_games
        ratings = {  # a rating too new to tell: judged as the top band
            side: rating if game.games.get(side, 0) >= established else None
            for side, rating in game.ratings.items()
        }
        log.info("detector: game %s: analysing %d plies", game.id, len(game.moves))
        evidence: Evidence | None = None
        note = None
        try:
            evidence = self.detector.analyse(game.moves, ratings)
        except UnanalysableGame as error:  # moves missing or illegal: never analysable
            note = f"not analysed: {error}"
        engine = evidence.engine if evidence is not None else "-"
        limits = evidence.limits if evidence is not None else self.rules.limits()
        flagged = bool(evidence and evidence.flagged)
        flags: list[tuple[str, str]] = []
        with self.analyses.storing(
            game.id, engine, limits, None if evidence is None else evidence.to_json(),
            flagged, note, self.clock(),
        ) as stored:  # fmt: skip
            if stored is None:
                return False
            if evidence is not None:
                for side in Side:
                    player = game.player(side)
                    if evidence.side(side).flagged:
                        self.on_flag(game.id, player, side, evidence, stored)
                        flags.append((game.id, player))
                        continue
                    record = self.record_of(player, stored)
                    if (
                        record is not None and record.flagged and record.carried_by
                        and not self.flagged_before(player, game.id, stored)
                    ):  # fmt: skip
                        self.on_record_flag(game.id, player, side, record, stored)
                        flags.append((game.id, player))
        report.flags += flags  # committed
        log.info("detector: game %s: analysis stored, %d flagged", game.id, len(flags))
        return True

    def record_of(self, player: str, stored: Storing | None = None) -> Record | None:
        """The player's record: their last ``record_games`` stored analyses judged
        together (:func:`~chessrate.fairplay.detector.judge_record`); None when none
        of them has a score (analyses stored before the model). An analysis made with
        another search (an earlier depth, say: ``DetectorRules.same_search``) is left
        out: its evidence is not on this model's scale. ``stored``: read in the
        transaction storing a game's analysis (which it counts)."""
        games: list[tuple[str, PlayerGame]] = []
        search = self.detector.rules
        for view in reversed(self._recent(player, stored)):
            side = view.side_of(player)
            if view.evidence is None or side is None or "version" not in view.evidence:
                continue
            if not search.same_search(view.limits):
                continue
            found = PlayerGame.from_json(view.evidence[side])
            if found is not None:
                games.append((view.game_id, found))
        if not games:
            return None
        return judge_record(games, self.rules, self.detector.model)

    def flagged_before(self, player: str, game_id: str, stored: Storing | None = None) -> bool:
        """Whether one of the player's other games of their record is flagged for them
        already: the moderators have the case, and a record that stays flagged as
        games come in files nothing more."""
        recent = self._recent(player, stored)
        return any(player in view.flags for view in recent if view.game_id != game_id)

    def _recent(self, player: str, stored: Storing | None) -> list[AnalysisView]:
        if stored is None:
            return self.analyses.recent_of(player, self.rules.record_games)
        return stored.recent_of(player, self.rules.record_games)

    # ---- THE HOOKS -----------------------------------------------------------------
    def on_flag(
        self, game_id: str, player: str, side: Side, evidence: Evidence, stored: Storing
    ) -> None:
        """Called once per player flagged by one game (``side``: the side they played),
        in the transaction ``stored`` that stores the game's analysis: records the flag
        in ``analyses.flags`` and files the detector's report accusing them for the
        moderators' review queue (source ``detector``, the evidence with it; idempotent,
        so a re-run files nothing twice). A game the queue refuses (annulled meanwhile)
        is logged, not retried."""
        mine = evidence.side(side)
        if mine.reason is Reason.WINDOW and mine.windows:
            runs = ", ".join(f"plies {w.from_ply}-{w.to_ply} score {w.score:.1f}"
                             for w in mine.windows)  # fmt: skip
            summary = (
                f"a run of {mine.windows[0].moves} moves: {runs} (whole game {mine.score:.1f})"
            )
        elif mine.reason is Reason.CHOICES:
            summary = (
                f"choice score {mine.choice_score:.1f} over the whole game (score "
                f"{mine.score:.1f}; {mine.outside_rate:.0%} of moves outside the engine's "
                "two best)"
            )
        else:
            summary = f"score {mine.score:.1f} over the whole game"
        summary += f", {mine.moves} moves, {mine.match_rate:.0%} engine matches"
        log.warning("detector: game %s: %s flagged, %s", game_id, player, summary)
        stored.record_flag(player)
        reason = f"engine-like play by {player}: {summary}"
        self._report(stored, player, side, reason, evidence.to_json())

    def on_record_flag(
        self, game_id: str, player: str, side: Side, record: Record, stored: Storing
    ) -> None:
        """Called when a player's record is flagged though the game just analysed is
        not flagged alone: the report goes on that game (the newest of the record),
        naming the games that carry it; in the transaction ``stored``, as
        :meth:`on_flag`."""
        games = ", ".join(record.carried_by)
        log.warning("detector: %s flagged on their last %d games (%s)", player,
                    len(record.games), games)  # fmt: skip
        stored.record_flag(player)
        measure = (
            f"choice score {record.choice_score:.1f} (score {record.score:.1f}; "
            if record.by_choices
            else f"score {record.score:.1f} ("
        )
        reason = (
            f"engine-like play by {player} over their last {len(record.games)} games: "
            f"{measure}{record.tally.moves} moves); carried by {games}"
        )
        self._report(stored, player, side, reason, record_evidence(player, record, self.rules))

    def _report(
        self, stored: Storing, player: str, side: Side, reason: str, evidence: dict[str, Any]
    ) -> None:
        try:
            stored.file_report(
                f"{DETECTOR_NAME}:{side.value}", reason, evidence, self.clock(), player
            )
        except ChessrateError as error:  # raised before it wrote anything
            log.warning("detector: game %s: no report filed: %s", stored.game_id, error)


def record_evidence(player: str, record: Record, rules: DetectorRules) -> dict[str, Any]:
    """A record flag's evidence, as a report carries it."""
    return {
        "version": 2, "kind": "record", "player": player,
        "score": round(record.score, 2), "choice_score": round(record.choice_score, 2),
        "by": record.by, "limit": rules.record_games,
        "moves": record.tally.moves,
        "games": [
            {"game": gid, "side": g.side.value, "score": round(g.score, 2),
             "choice_score": round(g.choice_score, 2), "moves": g.moves,
             "flagged": g.flagged, "carries": gid in record.carried_by}
            for gid, g in record.games
        ],
    }  # fmt: skip
