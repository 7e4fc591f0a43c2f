"""What a moderation case page shows beyond the case itself: the accused players, the
game's moves with the analysis's suspicious moves marked and one position drawn as a
board, the accused players' record over their recent analysed games, and the effects
of confirming (whose ratings change). The evidence is read tolerantly
(:mod:`chessrate.application.evidence`): version 1 and 2, a game's or a record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import chess
import chess.svg
from markupsafe import Markup

from ..application import live as app_live
from ..application.evidence import (
    GameEvidence,
    PlayedMove,
    RecordEvidence,
    SideEvidence,
    game_moves,
    read_evidence,
)
from ..application.reviews import ReviewPublic
from ..errors import NotFound
from ..fairplay.detector import DetectorRules
from ..ledger import Ledger

RECORD_GAMES = 10
"""Analysed games of an accused player listed on a case page."""
SEARCH = DetectorRules()
"""The service's detector rules: a listed game analysed with another search is not in
the player's record (``DetectorRules.same_search``)."""
PLAYED = "#c0392b"
BEST = "#1e8449"


@dataclass(frozen=True, slots=True)
class RecordRow:
    """One recent analysed game of a player, as the case page lists it."""

    game: str
    href: str
    side: str | None
    played_at: Any
    score: float | None
    words: str
    flagged: bool
    current: bool


@dataclass(frozen=True, slots=True)
class Board:
    """The drawn position: before ``move`` (the played move red, the engine's green)."""

    move: PlayedMove
    svg: Markup


def accused_of(review: ReviewPublic) -> list[str]:
    """The players the case's reports accuse, in the order first named."""
    return list(dict.fromkeys(r.accused for r in review.reports if r.accused))


def side_words(found: SideEvidence | None) -> str:
    """A side's numbers in words (what the evidence holds of them)."""
    if found is None:
        return "not analysed"
    parts = []
    if found.score is not None:
        parts.append(f"score {found.score:.1f}")
    if found.moves is not None:
        parts.append(f"{found.moves} moves")
    if found.match_rate is not None:
        rate = f"match {found.match_rate:.0%}"
        if found.expected_match_rate is not None:
            rate += f" (expected {found.expected_match_rate:.0%})"
        parts.append(rate)
    if found.loss is not None:
        loss = f"loss {found.loss:.3f}"
        if found.expected_loss is not None:
            loss += f" (expected {found.expected_loss:.3f})"
        parts.append(loss)
    if found.choice_score is not None:
        choices = f"choice score {found.choice_score:.1f}"
        if found.outside_rate is not None:
            choices += f", outside the engine's two best {found.outside_rate:.0%}"
            if found.expected_outside_rate is not None:
                choices += f" (expected {found.expected_outside_rate:.0%})"
        parts.append(choices)
    if found.acpl is not None:
        parts.append(f"ACPL {found.acpl:.1f}")
    return ", ".join(parts) or "no numbers"


def _case_href(ledger: Ledger, game_id: str) -> str:
    try:
        ledger.reviews.get(game_id)
    except NotFound:
        return f"/games/{quote(game_id, safe='')}"
    return f"/moderation/{quote(game_id, safe='')}"


def record_of(ledger: Ledger, player_id: str, current: str) -> list[RecordRow]:
    """The player's last analysed games, newest first, with their side, score and
    flag; each linked to its case when it has one, else to the game."""
    rows = []
    for analysis in ledger.analyses.recent_of(player_id, RECORD_GAMES):
        side = analysis.side_of(player_id)
        found = read_evidence(analysis.evidence)
        stats = found.sides.get(side) if isinstance(found, GameEvidence) and side else None
        flagged = (
            stats.flagged
            if stats is not None
            else player_id in analysis.flags or (isinstance(found, GameEvidence)
                                                 and side in found.flagged)
        )  # fmt: skip
        words = side_words(stats) if analysis.evidence is not None else (
            f"not analysable: {analysis.note}" if analysis.note else "not analysable"
        )  # fmt: skip
        other = SEARCH.search_differences(analysis.limits) if analysis.evidence else []
        if other:
            words += f" (analysed otherwise: {'; '.join(other)}; not in the detector's record)"
        rows.append(
            RecordRow(
                analysis.game_id, _case_href(ledger, analysis.game_id), side,
                analysis.played_at, None if stats is None else stats.score, words, bool(flagged),
                analysis.game_id == current,
            )
        )  # fmt: skip
    return rows


def board_svg(move: PlayedMove, flip: bool) -> Markup | None:
    """The position before ``move``, the move played as a red arrow and the engine's
    choice (when another) as a green one; None when the position is not known."""
    if move.fen_before is None:
        return None
    board = chess.Board(move.fen_before)
    arrows = []
    played = best = None
    try:
        played = chess.Move.from_uci(move.uci) if move.uci else None
        if move.analysis is not None and move.analysis.best:
            best = chess.Move.from_uci(move.analysis.best)
    except ValueError:
        pass
    if best is not None and best != played:
        arrows.append(chess.svg.Arrow(best.from_square, best.to_square, color=BEST))
    if played is not None:
        arrows.append(chess.svg.Arrow(played.from_square, played.to_square, color=PLAYED))
    svg = chess.svg.board(
        board, arrows=arrows, orientation=chess.BLACK if flip else chess.WHITE, size=None,
        coordinates=True,
    )  # fmt: skip
    return Markup(svg)  # python-chess's drawing of a position: no text of ours in it


def case_view(ledger: Ledger, review: ReviewPublic, ply: int | None) -> dict[str, Any]:
    """The template context of a case page's evidence: the accused, the analysis, the
    moves, the board at ``ply`` (default: the first suspicious move), the records."""
    game_id = review.game.id
    try:
        analysis = ledger.analyses.get(game_id)
    except NotFound:
        analysis = None
    found = read_evidence(analysis.evidence) if analysis is not None else None
    if not isinstance(found, GameEvidence):  # a detector's report may carry the game's
        for report in review.reports:
            carried = read_evidence(report.evidence)
            if isinstance(carried, GameEvidence) and carried.moves:
                found = carried
                break
    game_evidence = found if isinstance(found, GameEvidence) else None
    recorded: list[str | None] | None = None
    submitted = ledger.games.get(game_id).record.moves  # a game submitted with its moves
    if submitted:
        recorded = list(submitted)
    elif ledger.info.live_games:
        try:
            recorded = [m.move for m in app_live.get_live_game(ledger, game_id).moves]
        except NotFound:
            recorded = None
    moves, replayed = game_moves(recorded, game_evidence)
    accused = accused_of(review)
    chosen = next((m for m in moves if m.ply == ply), None) if ply is not None else None
    if chosen is None:
        chosen = next((m for m in moves if m.suspicious), None)
    board = None
    if chosen is not None:
        flip = accused == [review.game.black]
        svg = board_svg(chosen, flip)
        board = None if svg is None else Board(chosen, svg)
    shown = accused or [review.game.white, review.game.black]
    records = {player: record_of(ledger, player, game_id) for player in shown}
    record_reports = {
        r.id: e for r in review.reports if isinstance(e := read_evidence(r.evidence),
                                                        RecordEvidence)
    }  # fmt: skip
    rows: dict[int, dict[str, PlayedMove]] = {}
    for m in moves:
        rows.setdefault(m.number, {})[m.side] = m
    return {
        "move_rows": sorted(rows.items()),
        "accused": accused,
        "analysis": analysis,
        "game_evidence": game_evidence,
        "moves": moves,
        "replayed": replayed,
        "board": board,
        "records": records,
        "record_reports": record_reports,
        "side_words": side_words,
    }


__all__ = ["case_view", "record_of"]
