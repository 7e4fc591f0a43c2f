"""Screening PGN files without a ledger: every player-game judged, then every player's
record (``chessrate detect FILE.pgn...``).

A game's id is its ``GameId`` tag, else the last part of a lichess-style ``Site`` URL,
else ``FILE:LINE`` (where its tags start). Its players are the ``White`` and ``Black``
tags, their ratings the ``WhiteElo`` and ``BlackElo`` tags (a missing or unreadable
one takes the ``rating`` given, else none: the top band). A player's games are taken
in the order they were played (``UTCDate``/``UTCTime``, else ``Date``, else the files'
order; lichess exports are newest first), and their record is their last
``record_games`` games together.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from ..errors import InvalidRecord
from ..systems.site_live import Side
from .detector import Detector, Evidence, PlayerGame, judge_record


@dataclass(frozen=True, slots=True)
class PgnGame:
    """One game read from a PGN file: its id, where it is, its players and ratings, its
    moves (UCI) and when it was played (for the order of a player's games)."""

    id: str
    where: str
    white: str
    black: str
    ratings: dict[Side, int | None]
    moves: tuple[str, ...]
    played: str
    order: int


def _rating(text: str | None, fallback: int | None) -> int | None:
    try:
        return int(text) if text and text.strip() not in ("", "?", "-") else fallback
    except ValueError:
        return fallback


def _game_id(headers: chess.pgn.Headers, where: str) -> str:
    if headers.get("GameId"):
        return headers["GameId"]
    site = headers.get("Site", "")
    if site.startswith("http") and site.rstrip("/").rsplit("/", 1)[-1]:
        return site.rstrip("/").rsplit("/", 1)[-1]
    return where


def read_pgn(path: Path, rating: int | None = None, start: int = 0) -> Iterator[PgnGame]:
    """The games of a PGN file. A game python-chess cannot read (an illegal move, a
    broken tag) raises InvalidRecord naming ``FILE:LINE``; a game from a set-up
    position (``FEN``) or of another variant is skipped (the model is of chess from
    the start)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    handle = io.StringIO(text)
    order = start
    while True:
        offset = handle.tell()
        line = text.count("\n", 0, offset) + 1
        rest = text[offset:]
        stripped = len(rest) - len(rest.lstrip())
        line += rest[:stripped].count("\n")
        game = chess.pgn.read_game(handle)
        if game is None:
            return
        where = f"{path}:{line}"
        if game.errors:
            raise InvalidRecord(where, "movetext", str(game.errors[0]))
        headers = game.headers
        if "FEN" in headers or headers.get("Variant", "Standard").lower() not in (
            "standard", "chess", "",
        ):  # fmt: skip
            continue
        order += 1
        played = headers.get("UTCDate", headers.get("Date", "")) + " " + headers.get("UTCTime", "")
        yield PgnGame(
            _game_id(headers, where), where, headers.get("White", "?"),
            headers.get("Black", "?"),
            {Side.WHITE: _rating(headers.get("WhiteElo"), rating),
             Side.BLACK: _rating(headers.get("BlackElo"), rating)},
            tuple(m.uci() for m in game.mainline_moves()), played, order,
        )  # fmt: skip


def game_line(
    game: PgnGame, side: Side, evidence: PlayerGame, flagged_windows: Sequence[Any]
) -> dict[str, Any]:
    return {
        "type": "game", "game": game.id,
        "player": game.white if side is Side.WHITE else game.black,
        "side": side.value, "rating": game.ratings[side], "flagged": evidence.flagged,
        "reason": None if evidence.reason is None else evidence.reason.value,
        "score": round(evidence.score, 2), "choice_score": round(evidence.choice_score, 2),
        "moves_analysed": evidence.moves,
        "match_rate": round(evidence.match_rate, 3),
        "windows": list(flagged_windows),
    }  # fmt: skip


def screen(
    games: Iterable[PgnGame], detector: Detector,
    progress: Callable[[PgnGame], None] | None = None,
) -> Iterator[dict[str, Any]]:  # fmt: skip
    """One JSON object per player-game as each game is analysed, then one per player
    (first seen first) with their record."""
    seen: dict[str, list[tuple[PgnGame, PlayerGame]]] = {}
    for game in games:
        if progress is not None:
            progress(game)
        evidence: Evidence = detector.analyse(list(game.moves), game.ratings)
        for side in Side:
            player = evidence.side(side)
            windows = [w.to_json() for w in player.windows]
            yield game_line(game, side, player, windows)
            name = game.white if side is Side.WHITE else game.black
            seen.setdefault(name, []).append((game, player))
    rules = detector.rules
    for name, played in seen.items():
        ordered = sorted(played, key=lambda item: (item[0].played, item[0].order))
        record = judge_record([(g.id, p) for g, p in ordered], rules, detector.model)
        yield {
            "type": "player", "player": name, "games": len(ordered),
            "record_games": len(record.games), "flagged": record.flagged,
            "by": record.by, "score": round(record.score, 2),
            "choice_score": round(record.choice_score, 2), "games_flagged": list(record.carried_by),
        }  # fmt: skip
