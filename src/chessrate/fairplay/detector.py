"""The detector: is a player's play in one game improbable for their rating?

A :class:`Detector` takes a game's moves and the players' ratings and answers
:class:`Evidence`: per player, how often they played the engine's first choice and how
many centipawns their moves lost on average, and which players it flags. One detector
is built in, :class:`StockfishDetector` (Debian's ``stockfish`` through python-chess's
UCI engine module); another can be passed wherever a detector is taken.

The statistics (all numbers live in :class:`DetectorRules`, the one source of truth):

* **Which moves.** Plies after the opening: from ply ``opening_plies + 1`` = 17 (White's
  9th move, Black's 9th) to the end; a move played where it was the only legal move
  (forced) is left out of both statistics. At most ``max_positions`` positions and
  ``game_seconds`` of analysis per game: a game cut short says so (``complete`` false)
  and is judged on the moves analysed.
* **The search.** Every position from ply 17 to the end (the one after the last move
  too) is searched once at ``Limit(depth=10)``, ``Threads=1``, ``Hash=16`` MB, with the
  hash cleared before each position (``ucinewgame``): the same position and history
  always gives the same answer, whatever was searched before.
* **Match.** The move played is the search's first move (``pv[0]``) in the position
  before it.
* **Centipawn loss.** Each evaluation is seen from the mover's side and mapped to
  centipawns, a mate (for or against) as ±``eval_cap_cp``, and clamped to ±1000; the
  loss of a move is ``max(0, eval before − eval after)``, capped at 1000, and 0 when the
  move matched. A checkmate played scores +1000 after; a stalemate or other draw by
  rule, 0. ACPL is the mean loss over the player's analysed moves.

The flag rule: a player is flagged when they have at least ``min_moves`` = 20 analysed
moves, and their match rate is at least the band's ``match_rate`` **and** their ACPL is
at most the band's ``acpl``, the band chosen by the player's rating before the game
(an unknown rating takes the top band, the hardest to meet). Both together: a human
who matches often in a quiet game still loses centipawns somewhere, and one who plays
a short accurate game matches less.

Calibration (``bench/detector_calibration.py``; ``bench/RESULTS.md``, "The fair-play
detector"): 240 rated lichess games of two players' exports (120 from each, seed 16,
at least 56 plies), both sides analysed at these limits: 472 human player-games with
20+ analysed moves, rated 1013-1973 (98 bullet, 126 blitz, 8 rapid, 1 classical and 7
correspondence games). Over all of them the match rate is at most 0.76 (p99 per band
0.53-0.75) and the ACPL at least 7.1 (p1 per band 9.9-15.3); no human with a match
rate of 0.60+ has an ACPL below 16.5, and none with an ACPL below 10 matches more than
0.46. Engine play sits far from both: the
detector's own engine matches 1.00 at ACPL 0.0; Stockfish at depth 14 (another setting,
as a cheater's engine would be) matched 0.69-0.89 at ACPL 0.0-1.9 in six games.

So the rule below 2000 is **match rate >= 0.65 and ACPL <= 6.0**: a human must reach a
match rate only 3 of the 472 reached (all with an ACPL of 17.3 or more) together with
an ACPL lower than any of the 472 (the lowest, 7.1, came with a match rate of 0.34). It
flags 0 of the 472 human player-games (rule of three: below 0.7 % at 95 %) and every
engine game long enough to judge. From 2000 the sample has no games: the thresholds
tighten with rating (0.70 and 5.0 for 2000-2399, 0.75 and 4.0 from 2400 and for an
unknown rating) because stronger players match more and lose less; they must be
checked on games at those ratings before they are trusted.

Not seen: a game shorter than about 55 plies gives a player fewer than 20 analysed
moves and is never flagged (four of the six depth-14 engine games ended sooner).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import chess
import chess.engine

from ..errors import InvalidInput
from ..systems.site_live import Side

DEFAULT_STOCKFISH = "/usr/games/stockfish"
"""Where Debian's ``stockfish`` package installs the engine."""


class UnanalysableGame(InvalidInput):
    """The game's moves cannot be analysed (a move not recorded, or illegal): the game
    is stored as not analysable, not tried again."""


def stockfish_path(configured: str | None = None) -> str:
    """The Stockfish binary: ``configured``, else ``$CHESSRATE_STOCKFISH``, else
    Debian's ``/usr/games/stockfish``."""
    return configured or os.environ.get("CHESSRATE_STOCKFISH") or DEFAULT_STOCKFISH


@dataclass(frozen=True, slots=True)
class Band:
    """Ratings below ``below`` (``None``: every rating) are flagged at a match rate of
    at least ``match_rate`` together with an ACPL of at most ``acpl``."""

    below: int | None
    match_rate: float
    acpl: float


@dataclass(frozen=True, slots=True)
class DetectorRules:
    """Every number of the detector: what is analysed, how deep, and the flag rule.
    The defaults are the calibrated ones (module docstring)."""

    opening_plies: int = 16
    depth: int = 10
    threads: int = 1
    hash_mb: int = 16
    eval_cap_cp: int = 1000
    max_loss_cp: int = 1000
    game_seconds: float = 60.0
    max_positions: int = 240
    min_moves: int = 20
    bands: tuple[Band, ...] = (
        Band(2000, 0.65, 6.0),  # calibrated: 472 human player-games rated 1013-1973
        Band(2400, 0.70, 5.0),  # extrapolated (no calibration games rated 2000+)
        Band(None, 0.75, 4.0),  # extrapolated; also an unknown rating
    )

    def band(self, rating: int | None) -> Band:
        """The band of a rating (the last, hardest one for an unknown rating)."""
        if rating is not None:
            for band in self.bands:
                if band.below is None or rating < band.below:
                    return band
        return self.bands[-1]

    def improbable(self, stats: PlayerStats) -> bool:
        """The flag rule: enough moves, and both statistics past the band's limits."""
        if stats.moves < self.min_moves:
            return False
        band = self.band(stats.rating)
        return stats.match_rate >= band.match_rate and stats.acpl <= band.acpl

    def limits(self) -> dict[str, Any]:
        """The analysis limits as stored beside each analysis."""
        return {
            "opening_plies": self.opening_plies, "depth": self.depth,
            "threads": self.threads, "hash_mb": self.hash_mb,
            "eval_cap_cp": self.eval_cap_cp, "max_loss_cp": self.max_loss_cp,
            "game_seconds": self.game_seconds, "max_positions": self.max_positions,
            "min_moves": self.min_moves,
            "bands": [asdict(band) for band in self.bands],
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class MoveCheck:
    """One analysed move: its ply (1 = White's first), the move played and the
    engine's first choice (UCI), and the centipawns it lost."""

    ply: int
    played: str
    best: str
    loss: int

    @property
    def matched(self) -> bool:
        return self.played == self.best


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's statistics in one game."""

    side: Side
    rating: int | None
    moves: int  # analysed moves (after the opening, not forced)
    matches: int
    total_loss: int

    @property
    def match_rate(self) -> float:
        return self.matches / self.moves if self.moves else 0.0

    @property
    def acpl(self) -> float:
        return self.total_loss / self.moves if self.moves else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "side": self.side.value, "rating": self.rating, "moves": self.moves,
            "matches": self.matches, "match_rate": round(self.match_rate, 4),
            "acpl": round(self.acpl, 1),
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a detector found in one game: per player statistics, who is flagged, and
    how (the engine and its limits; ``complete`` false when the time budget or the
    position limit cut the analysis short)."""

    engine: str
    limits: dict[str, Any]
    white: PlayerStats
    black: PlayerStats
    flagged: tuple[Side, ...]
    complete: bool = True
    checks: tuple[MoveCheck, ...] = field(default=())

    def stats(self, side: Side) -> PlayerStats:
        return self.white if side is Side.WHITE else self.black

    def to_json(self) -> dict[str, Any]:
        """The evidence as stored (and as a report will carry it)."""
        return {
            "engine": self.engine,
            "limits": self.limits,
            "white": self.white.to_json(),
            "black": self.black.to_json(),
            "flagged": [side.value for side in self.flagged],
            "complete": self.complete,
            "moves": [[c.ply, c.played, c.best, c.loss] for c in self.checks],
        }


class Detector(Protocol):
    """A pluggable detector: the game's moves (SAN or UCI, from the start position)
    and each side's rating before the game (None: unknown) in, evidence out."""

    def analyse(self, moves: Sequence[str | None], ratings: Mapping[Side, int | None]) -> Evidence:
        """Analyse one game. Moves that are missing or illegal raise UnanalysableGame;
        an engine that is missing or fails raises InvalidInput."""
        ...

    def close(self) -> None:
        """Release what the detector holds (an engine process)."""
        ...


def parse_moves(moves: Sequence[str | None]) -> list[chess.Move]:
    """The moves as python-chess moves, each UCI or SAN, checked legal from the start."""
    board = chess.Board()
    parsed = []
    for number, text in enumerate(moves, 1):
        if not text:
            raise UnanalysableGame(f"ply {number}: the move was not recorded")
        move = _parse(board, text.strip())
        if move is None:
            raise UnanalysableGame(f"ply {number}: {text!r} is not a legal move here")
        board.push(move)
        parsed.append(move)
    return parsed


def _parse(board: chess.Board, text: str) -> chess.Move | None:
    try:
        move = chess.Move.from_uci(text)
        if board.is_legal(move):
            return move
    except ValueError:
        pass
    try:
        return board.parse_san(text)
    except ValueError:
        return None


class StockfishDetector:
    """The built-in detector: Stockfish through python-chess (module docstring). The
    engine starts on the first game and runs until :meth:`close`."""

    def __init__(self, rules: DetectorRules | None = None, path: str | None = None) -> None:
        self.rules = rules or DetectorRules()
        self.path = stockfish_path(path)
        self._engine: chess.engine.SimpleEngine | None = None

    def __enter__(self) -> StockfishDetector:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def engine(self) -> chess.engine.SimpleEngine:
        if self._engine is None:
            if not Path(self.path).is_file():
                raise InvalidInput(
                    f"{self.path}: no Stockfish here (install Debian's stockfish package, "
                    "or set CHESSRATE_STOCKFISH)"
                )
            engine = chess.engine.SimpleEngine.popen_uci(self.path)
            engine.configure({"Threads": self.rules.threads, "Hash": self.rules.hash_mb})
            self._engine = engine
        return self._engine

    @property
    def name(self) -> str:
        return str(self.engine.id.get("name", "stockfish"))

    def close(self) -> None:
        engine, self._engine = self._engine, None
        if engine is not None:
            try:
                engine.quit()
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError):
                engine.close()

    def best(self, board: chess.Board) -> tuple[chess.Move | None, int]:
        """The engine's first choice in ``board`` and its evaluation for the side to
        move, in clamped centipawns; the hash cleared first (deterministic)."""
        rules = self.rules
        cap = rules.eval_cap_cp
        if board.is_checkmate():
            return None, -cap
        if board.is_game_over(claim_draw=False):
            return None, 0
        try:
            info = self.engine.analyse(board, chess.engine.Limit(depth=rules.depth), game=object())
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as error:
            self.close()  # started again on the next game
            raise InvalidInput(f"{self.path}: the engine failed: {error}") from error
        score = info["score"].pov(board.turn).score(mate_score=100 * cap)
        assert score is not None
        pv = info.get("pv") or []
        return (pv[0] if pv else None), max(-cap, min(cap, score))

    def analyse(self, moves: Sequence[str | None], ratings: Mapping[Side, int | None]) -> Evidence:
        rules = self.rules
        played = parse_moves(moves)
        board = chess.Board()
        for move in played[: rules.opening_plies]:
            board.push(move)
        started = time.monotonic()
        checks: list[MoveCheck] = []
        complete = True
        todo = played[rules.opening_plies :]
        if len(todo) > rules.max_positions:
            todo, complete = todo[: rules.max_positions], False
        best, before = self.best(board) if todo else (None, 0)
        for offset, move in enumerate(todo):
            if time.monotonic() - started > rules.game_seconds:
                complete = False
                break
            ply = rules.opening_plies + offset + 1
            forced = board.legal_moves.count() == 1
            board.push(move)
            next_best, next_eval = self.best(board)
            after = -next_eval  # the mover's side
            if not forced:
                loss = 0 if move == best else min(rules.max_loss_cp, max(0, before - after))
                assert best is not None
                checks.append(MoveCheck(ply, move.uci(), best.uci(), loss))
            best, before = next_best, next_eval
        white = _stats(Side.WHITE, ratings.get(Side.WHITE), checks)
        black = _stats(Side.BLACK, ratings.get(Side.BLACK), checks)
        flagged = tuple(s.side for s in (white, black) if rules.improbable(s))
        return Evidence(
            engine=self.name, limits=rules.limits(), white=white, black=black,
            flagged=flagged, complete=complete, checks=tuple(checks),
        )  # fmt: skip


def _stats(side: Side, rating: int | None, checks: Sequence[MoveCheck]) -> PlayerStats:
    mine = [c for c in checks if (c.ply % 2 == 1) == (side is Side.WHITE)]
    return PlayerStats(
        side=side, rating=rating, moves=len(mine),
        matches=sum(c.matched for c in mine), total_loss=sum(c.loss for c in mine),
    )  # fmt: skip
