"""The detector: is a player's play improbable for a human of their rating?

A :class:`Detector` takes a game's moves and the players' ratings and answers
:class:`Evidence`: per player, the surprise of their moves against the model of human
play (:mod:`.model`) over the whole game and over every run of ``window`` consecutive
moves, and which players it flags. One detector is built in,
:class:`StockfishDetector` (Debian's ``stockfish`` through python-chess); another can
be passed wherever a detector is taken. A player's last games are judged together by
:func:`judge_record`.

All numbers live in :class:`DetectorRules`:

* **The search** (:mod:`.analysis`): every position from ply ``opening_plies + 1`` =
  11 on, at depth 10 with the 2 best moves (MultiPV), one thread, 16 MB of hash
  cleared at the game's first analysed position and kept from one position to the
  next; at most ``max_positions`` positions and
  ``game_seconds`` per game (a game cut short says so and is judged on what was
  analysed).
* **The evidence** (:mod:`.model`): a move's match and its loss in expected score,
  capped at ``loss_cap``; opening, forced and only moves carry none.
* **The flag rule.** A player's game is flagged when its score (the combined surprise,
  about a standard normal for a human the model describes) reaches ``game_score`` over
  at least ``min_moves`` moves, or when a run of ``window`` consecutive moves reaches
  ``window_score`` (higher: a game has many runs, and the best of them is looked at),
  or when its choice score (where the moves stand in the engine's list:
  :mod:`.model`, "The choices") reaches ``choice_score`` over at least ``min_moves``
  moves. The reason given is the first of these that holds: a window names the moves
  that carry it, the choices only the game.
  A player is flagged on their record when their last ``record_games`` analysed games
  together (at least ``record_min_games``, over at least ``record_min_moves`` moves)
  reach ``record_score`` in score or ``record_choice_score`` in choice score: the same
  two readings as one game's, of the games' moves summed.
* **Whose rating.** The job judges a player by their rating before the game once they
  have ``established_games`` rated games; before that their rating says little of
  their strength (a strong newcomer starts at the system's first rating), and they
  are judged as the top band.

Why these limits, and what they catch and miss: ``bench/detector_eval.py`` and
``bench/RESULTS.md`` ("The fair-play detector"); the short version is the README's
"Fair play".
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

import chess
import chess.engine

from ..errors import InvalidInput
from ..moves import legal_move
from ..systems.site_live import Side
from .analysis import GameAnalysis, Position, analyse_moves
from .model import HumanModel, Move, MoveSettings, Tally, default_model, evidence_move

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
class DetectorRules:
    """Every number of the detector: what is analysed and how deep, which moves carry
    evidence, and the flag rule. The defaults are the calibrated ones (module
    docstring; ``bench/detector_eval.py``)."""

    # the search
    opening_plies: int = 10
    depth: int = 10
    candidates: int = 2
    threads: int = 1
    hash_mb: int = 16
    keep_hash: bool = True
    game_seconds: float = 30.0
    max_positions: int = 300
    # which moves carry evidence, and how a loss counts
    only_move_gap: float = 0.20
    decided: float = 0.40
    loss_cap: float = 0.20
    # the flag rule
    min_moves: int = 10
    game_score: float = 3.75
    choice_score: float = 3.75
    window: int = 20
    window_score: float = 4.0
    record_games: int = 10
    record_min_games: int = 3
    record_min_moves: int = 40
    record_score: float = 3.75
    record_choice_score: float = 3.75
    established_games: int = 10

    @property
    def moves(self) -> MoveSettings:
        return MoveSettings(self.opening_plies, self.only_move_gap, self.decided, self.loss_cap)

    def limits(self) -> dict[str, Any]:
        """The rules as stored beside each analysis."""
        return asdict(self)

    def same_search(self, limits: Mapping[str, Any]) -> bool:
        """Whether an analysis stored with ``limits`` saw the game as these rules do:
        the same search (:data:`SEARCH_FIELDS`) and the same moves counted. Evidence of
        another depth or candidate count is not on the model's scale (a deeper search
        agrees with an engine user more often), so a record does not add it up."""
        return not self.search_differences(limits)

    def search_differences(self, limits: Mapping[str, Any]) -> list[str]:
        """What of :data:`SEARCH_FIELDS` an analysis stored with ``limits`` did
        otherwise, in words ("depth 9, now 10"; "keep_hash not recorded")."""
        words = []
        for name in SEARCH_FIELDS:
            mine = getattr(self, name)
            if name not in limits:
                words.append(f"{name} not recorded")
            elif limits[name] != mine:
                words.append(f"{name} {limits[name]}, now {mine}")
        return words


SEARCH_FIELDS = (
    "opening_plies", "depth", "candidates", "keep_hash", "only_move_gap", "decided",
    "loss_cap",
)  # fmt: skip
"""The rules that shape a move's evidence (what the engine saw and which moves count):
a record adds up only analyses made with the same values
(:meth:`DetectorRules.same_search`)."""


@dataclass(frozen=True, slots=True)
class Window:
    """The most surprising run of ``moves`` consecutive evidence moves of a player in a
    game, from ply ``from_ply`` to ``to_ply``."""

    from_ply: int
    to_ply: int
    moves: int
    score: float

    def to_json(self) -> dict[str, Any]:
        return {"from_ply": self.from_ply, "to_ply": self.to_ply, "moves": self.moves,
                "score": round(self.score, 2)}  # fmt: skip


class Reason(StrEnum):
    """What flagged a player's game: the whole game's score, the whole game's choices
    (first choices, and how rarely a move outside the engine's two best), or a run of
    moves in it."""

    GAME = "game"
    CHOICES = "choices"
    WINDOW = "window"


@dataclass(frozen=True, slots=True)
class PlayerGame:
    """One player's evidence in one game: the sums over their evidence moves, the
    score and the choice score, the most surprising window, and whether (and why) the
    game is flagged."""

    side: Side
    rating: int | None
    tally: Tally
    score: float
    window: Window | None
    reason: Reason | None
    windows: tuple[Window, ...] = ()
    choice_score: float = 0.0

    @property
    def flagged(self) -> bool:
        return self.reason is not None

    @property
    def moves(self) -> int:
        return self.tally.moves

    @property
    def match_rate(self) -> float:
        return self.tally.matches / self.tally.moves if self.tally.moves else 0.0

    @property
    def outside_rate(self) -> float:
        """The share of the moves outside the engine's two best."""
        return self.tally.outside / self.tally.moves if self.tally.moves else 0.0

    def to_json(self) -> dict[str, Any]:
        t = self.tally
        n = t.moves or 1
        return {
            "side": self.side.value, "rating": self.rating, "moves": t.moves,
            "matches": t.matches, "match_rate": round(t.matches / n, 4),
            "expected_match_rate": round(t.expected_matches / n, 4),
            "loss": round(t.loss / n, 4), "expected_loss": round(t.expected_loss / n, 4),
            "score": round(self.score, 2), "choice_score": round(self.choice_score, 2),
            "outside_rate": round(self.outside_rate, 4),
            "expected_outside_rate": round(t.expected_outside / n, 4),
            "window": None if self.window is None else self.window.to_json(),
            "windows": [w.to_json() for w in self.windows],
            "flagged": self.flagged, "reason": None if self.reason is None else self.reason.value,
            "tally": t.to_json(),
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlayerGame | None:
        """A player's game as stored; None for evidence kept before the model (it has
        no tally to add to a record)."""
        if "tally" not in data:
            return None
        window = data.get("window")
        return cls(
            Side(data["side"]), data.get("rating"), Tally.from_json(data["tally"]),
            float(data["score"]), None if window is None else _window(window),
            None if data.get("reason") is None else Reason(data["reason"]),
            tuple(_window(w) for w in data.get("windows", ())),
            float(data.get("choice_score", 0.0)),
        )  # fmt: skip


def _window(data: dict[str, Any]) -> Window:
    return Window(int(data["from_ply"]), int(data["to_ply"]), int(data["moves"]),
                  float(data["score"]))  # fmt: skip


def judge_side(
    side: Side, rating: int | None, moves: Sequence[Move], rules: DetectorRules,
    model: HumanModel,
) -> PlayerGame:  # fmt: skip
    """A player's game judged: the whole game's score and choice score, then every
    run of ``rules.window`` consecutive evidence moves."""
    mine = [m for m in moves if (m.ply % 2 == 1) == (side is Side.WHITE)]
    tallies = [model.tally_move(m, rating) for m in mine]
    total = sum(tallies, Tally())
    score = total.score(model.rho)
    choices = total.choice_score()
    runs: list[Window] = []
    if len(mine) > rules.window:
        for start in range(len(mine) - rules.window + 1):
            run = sum(tallies[start : start + rules.window], Tally())
            runs.append(Window(mine[start].ply, mine[start + rules.window - 1].ply,
                               rules.window, run.score(model.rho)))  # fmt: skip
    window = max(runs, key=lambda w: w.score, default=None)
    flagged: list[Window] = []  # the runs past the limit, best first, none overlapping
    for best in sorted(runs, key=lambda w: -w.score):
        if best.score < rules.window_score:
            break
        if all(best.to_ply < w.from_ply or best.from_ply > w.to_ply for w in flagged):
            flagged.append(best)
    reason = None  # the most telling first: a window names the moves, the choices do not
    if total.moves >= rules.min_moves and score >= rules.game_score:
        reason = Reason.GAME
    elif flagged:
        reason = Reason.WINDOW
    elif total.moves >= rules.min_moves and choices >= rules.choice_score:
        reason = Reason.CHOICES
    windows = tuple(sorted(flagged, key=lambda w: w.from_ply))
    return PlayerGame(side, rating, total, score, window, reason, windows, choices)


@dataclass(frozen=True, slots=True)
class Record:
    """A player's last games judged together: the games (id, the player's game
    evidence), the score and the choice score of their summed tallies, and whether it
    is flagged. ``carried_by`` names the games that carry a flag: those flagged alone,
    or, for a record flag, every game whose own score (its own choice score, when only
    the record's choice score reached its limit) is above 0. ``by``: what flags it,
    ``"score"`` or ``"choices"`` (the games together, the score first) or ``"game"``
    (only a game flagged alone); None when it is not flagged."""

    games: tuple[tuple[str, PlayerGame], ...]
    tally: Tally
    score: float
    flagged: bool
    carried_by: tuple[str, ...]
    choice_score: float = 0.0
    by: str | None = None

    @property
    def by_choices(self) -> bool:
        return self.by == "choices"


def judge_record(
    games: Sequence[tuple[str, PlayerGame]], rules: DetectorRules, model: HumanModel
) -> Record:
    """A player's record over their last ``rules.record_games`` games (``games`` oldest
    first): flagged when, over at least ``record_min_games`` games and
    ``record_min_moves`` moves, the summed tallies' score reaches ``record_score`` or
    their choice score ``record_choice_score``; or when one game is flagged alone."""
    recent = tuple(games[-rules.record_games :])
    total = sum((g.tally for _, g in recent), Tally())
    score, choices = total.score(model.rho), total.choice_score()
    alone = tuple(game_id for game_id, g in recent if g.flagged)
    enough = len(recent) >= rules.record_min_games and total.moves >= rules.record_min_moves
    by_score = enough and score >= rules.record_score
    by_choices = enough and not by_score and choices >= rules.record_choice_score
    carried = alone
    if by_score:
        carried = tuple(gid for gid, g in recent if g.flagged or g.score > 0)
    elif by_choices:
        carried = tuple(gid for gid, g in recent if g.flagged or g.choice_score > 0)
    by = "score" if by_score else "choices" if by_choices else "game" if alone else None
    return Record(recent, total, score, by is not None, carried, choices, by)


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a detector found in one game: each player's evidence, who is flagged, the
    moves that carry evidence, and how (the engine and its rules; ``complete`` false
    when the time budget or the position limit cut the analysis short)."""

    engine: str
    limits: dict[str, Any]
    white: PlayerGame
    black: PlayerGame
    complete: bool = True
    moves: tuple[Move, ...] = field(default=())
    expected: tuple[float, ...] = field(default=())

    @property
    def flagged(self) -> tuple[Side, ...]:
        return tuple(p.side for p in (self.white, self.black) if p.flagged)

    def side(self, side: Side) -> PlayerGame:
        return self.white if side is Side.WHITE else self.black

    def suspicious(self, move: Move) -> bool:
        """A move to show: a match (or a loss under 1 % of the expected score) by a
        flagged player, inside their flagged window (or anywhere in a game flagged
        whole)."""
        player = self.side(Side.WHITE if move.ply % 2 == 1 else Side.BLACK)
        if not player.flagged or not (move.matched or move.loss < 0.01):
            return False
        if player.reason is Reason.WINDOW:
            return any(w.from_ply <= move.ply <= w.to_ply for w in player.windows)
        return True

    def to_json(self) -> dict[str, Any]:
        """The evidence as stored (and as a report carries it)."""
        return {
            "version": 2,
            "engine": self.engine,
            "limits": self.limits,
            "complete": self.complete,
            "white": self.white.to_json(),
            "black": self.black.to_json(),
            "flagged": [side.value for side in self.flagged],
            "moves": [
                {"ply": m.ply, "played": m.played, "best": m.best, "loss": round(m.loss, 4),
                 "expected": round(p, 3), "counted": True, "suspicious": self.suspicious(m)}
                for m, p in zip(self.moves, self.expected, strict=True)
            ],
        }  # fmt: skip


def judge(
    positions: Sequence[Position], ratings: Mapping[Side, int | None], rules: DetectorRules,
    model: HumanModel, engine: str = "-", complete: bool = True,
) -> Evidence:  # fmt: skip
    """A game's evidence from its analysed positions: each side judged
    (:func:`judge_side`)."""
    moves = [m for p in positions if (m := evidence_move(p, rules.moves)) is not None]
    white = judge_side(Side.WHITE, ratings.get(Side.WHITE), moves, rules, model)
    black = judge_side(Side.BLACK, ratings.get(Side.BLACK), moves, rules, model)
    expected = tuple(
        model.cell(ratings.get(Side.WHITE if m.ply % 2 else Side.BLACK), m.spread, m.decided).p
        for m in moves
    )
    return Evidence(engine, rules.limits(), white, black, complete, tuple(moves), expected)


class Detector(Protocol):
    """A pluggable detector: the game's moves (SAN or UCI, from the start position)
    and each side's rating before the game (None: unknown) in, evidence out."""

    rules: DetectorRules
    model: HumanModel

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
        move = legal_move(board, text.strip())
        if move is None:
            raise UnanalysableGame(f"ply {number}: {text!r} is not a legal move here")
        board.push(move)
        parsed.append(move)
    return parsed


class StockfishDetector:
    """The built-in detector: Stockfish through python-chess (module docstring). The
    engine starts on the first game and runs until :meth:`close`."""

    def __init__(
        self, rules: DetectorRules | None = None, path: str | None = None,
        model: HumanModel | None = None,
    ) -> None:  # fmt: skip
        self.rules = rules or DetectorRules()
        self.model = model or default_model()
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

    def positions(self, moves: Sequence[str | None]) -> GameAnalysis:
        """The game's analysed positions (:func:`~chessrate.fairplay.analysis.analyse_moves`)."""
        played = parse_moves(moves)
        try:
            return analyse_moves(self.engine, played, self.rules)
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as error:
            self.close()  # started again on the next game
            raise InvalidInput(f"{self.path}: the engine failed: {error}") from error

    def analyse(self, moves: Sequence[str | None], ratings: Mapping[Side, int | None]) -> Evidence:
        analysis = self.positions(moves)
        return judge(analysis.positions, ratings, self.rules, self.model, self.name,
                     analysis.complete)  # fmt: skip
