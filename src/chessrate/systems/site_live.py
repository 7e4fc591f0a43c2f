"""``site`` games while they are played: the deadlines of S7-S9 and how a game ends.

Pure like the rating systems: no clock, no database. Every number is a field of
:class:`~chessrate.systems.site.SiteRules` (the ledger's), and the words are written
from them. The live service keeps a
:class:`LiveGame` (who plays, the time control, every ply's timestamp), asks
:func:`deadline` when the game must next hear from the player to move, and, when that
moment has passed, :func:`deadline_ending` says how the game ends. A finished game
becomes a :class:`~chessrate.records.GameRecord` (:func:`game_record`) that goes
through the same rating path as a submitted one, where ``site`` S7-S9 decide what the
ending means (void, rated loss).

Decisions (the spec is silent; README "Live games"):

* S8's bot deadlines ("against a bot 60 s live and 10 min unclocked") are the bot's
  deadline for each of its moves (the seed: "its move is computed by your browser");
  the human side keeps the deadlines of the game's type.
* After both sides moved, a clocked game's side to move has the clock the server can
  prove from the ply timestamps: base + increment x that side's moves - the time it
  used on its moves after the first two plies (the clocks start when both moved). When
  it runs out the game ends as that side's loss on time. A correspondence game's side
  to move has its days per move. A client may report a timeout earlier (its own clock).
* A rated unclocked game's side to move has 7 days (S9, ``expired``); a casual
  unclocked game has no deadline once both moved.
* When every ply carried its move, the board has its say (the rules of play, as on
  any chess site; :class:`Board`): a move that checkmates, stalemates, or leaves
  neither side the material to mate ends the game there with that result
  (:func:`board_ending`), and a side that runs out of time against an opponent left
  without mating material draws (:func:`deadline_ending`, :func:`timeout_problem`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from ..errors import Conflict, InvalidRecord
from ..records import Result, Termination, Venue
from ..timecontrol import ClockKind, TimeControl
from .site import GameType, SiteRules, SiteSystem


class Side(StrEnum):
    WHITE = "white"
    BLACK = "black"

    @property
    def other(self) -> Side:
        return Side.BLACK if self is Side.WHITE else Side.WHITE

    def loses(self) -> Result:
        """The result of a game this side lost."""
        return Result.BLACK_WINS if self is Side.WHITE else Result.WHITE_WINS


class LiveStatus(StrEnum):
    """Where a live game is: being played, an otb result waiting for the other
    player's confirmation, an otb result the other player disputed, or ended (and
    stored as a game of the ledger)."""

    OPEN = "open"
    AWAITING_CONFIRMATION = "awaiting_confirmation"
    DISPUTED = "disputed"
    ENDED = "ended"


class DeadlineKind(StrEnum):
    FIRST_MOVE = "first_move"  # S8
    BOT_MOVE = "bot_move"  # S7
    CLOCK = "clock"  # S8: running out of time after both moved
    EXPIRY = "expiry"  # S9


@dataclass(frozen=True, slots=True)
class Ply:
    """One half-move: its number (1 = White's first move), when the service received
    it, and optionally the move itself (SAN or UCI, not checked)."""

    number: int
    at: datetime
    move: str | None = None


@dataclass(frozen=True, slots=True)
class Deadline:
    """When ``side`` must have moved; ``rule`` cites the spec, ``note`` says it."""

    at: datetime
    kind: DeadlineKind
    side: Side
    rule: str
    note: str


@dataclass(frozen=True, slots=True)
class Ending:
    """How a game ends: the record's result and termination and why."""

    result: Result
    termination: Termination
    reason: str


@dataclass(frozen=True, slots=True)
class Board:
    """What a game's moves make of its last position (known when every ply carried a
    legal move): the ending the rules of play make there (``how``: checkmate,
    stalemate, insufficient material; ``result``), if any, and the sides without the
    material to mate."""

    how: str | None = None
    result: Result | None = None
    cannot_mate: frozenset[Side] = frozenset()


@dataclass(frozen=True, slots=True)
class LiveGame:
    """A game being played (or an otb result being confirmed)."""

    id: str
    white: str
    black: str
    opened_at: datetime
    time_control: TimeControl | None
    rated: bool = True
    venue: Venue = Venue.ONLINE
    bot: Side | None = None
    plies: tuple[Ply, ...] = field(default=())

    @property
    def ply_count(self) -> int:
        return len(self.plies)

    @property
    def to_move(self) -> Side:
        return Side.WHITE if len(self.plies) % 2 == 0 else Side.BLACK

    def both_moved(self, rules: SiteRules) -> bool:
        """S8: from here on the game is no longer aborted but won and lost (the plies
        ``aborted_below_plies`` asks for were made)."""
        return len(self.plies) >= rules.aborted_below_plies

    @property
    def last_at(self) -> datetime:
        """The last ply's time, or the opening time before any move."""
        return self.plies[-1].at if self.plies else self.opened_at

    def player(self, side: Side) -> str:
        return self.white if side is Side.WHITE else self.black

    def side_of(self, player_id: str) -> Side | None:
        if player_id == self.white:
            return Side.WHITE
        if player_id == self.black:
            return Side.BLACK
        return None

    def with_ply(self, ply: Ply) -> LiveGame:
        return LiveGame(
            self.id, self.white, self.black, self.opened_at, self.time_control, self.rated,
            self.venue, self.bot, (*self.plies, ply),
        )  # fmt: skip


def _seconds(amount: int) -> str:
    if amount % 86400 == 0 and amount >= 2 * 86400:
        days = amount // 86400
        return f"{days} day{'s' if days != 1 else ''}"
    if amount % 3600 == 0:
        return f"{amount // 3600} h"
    if amount % 60 == 0 and amount >= 600:
        return f"{amount // 60} min"
    return f"{amount} s"


def _live_clock(control: TimeControl | None) -> bool:
    return control is not None and control.kind is ClockKind.CLOCKED


FAST = frozenset({GameType.BULLET, GameType.BLITZ})
"""S8: the game types with the short first-move deadline."""


def first_move_seconds(game: LiveGame, side: Side, rules: SiteRules) -> int:
    """S8: the first-move deadline of ``side``: 30 s bullet/blitz, 60 s rapid/classical,
    24 h unclocked/correspondence; a bot's move 60 s live, 10 min unclocked (the
    defaults; the game type is S2's, by the rules' own boundaries)."""
    control = game.time_control
    if game.bot is side:
        return rules.bot_move_live if _live_clock(control) else rules.bot_move_unclocked
    if control is None or control.kind is not ClockKind.CLOCKED:
        return rules.first_move_unclocked
    fast = SiteSystem(rules).control_type(control) in FAST
    return rules.first_move_fast if fast else rules.first_move_slow


def clock_left(game: LiveGame, side: Side) -> timedelta:
    """S8 Decision: what ``side``'s clock holds now by the ply timestamps: base +
    increment x its moves - the time it spent on its moves after the first two plies."""
    control = game.time_control
    assert control is not None and control.kind is ClockKind.CLOCKED
    left = timedelta(seconds=control.base)
    previous = game.opened_at
    for ply in game.plies:
        mover = Side.WHITE if ply.number % 2 == 1 else Side.BLACK
        if mover is side:
            if ply.number > 2:
                left -= ply.at - previous
            left += timedelta(seconds=control.increment)
        previous = ply.at
    return left


def deadline(game: LiveGame, rules: SiteRules | None = None) -> Deadline | None:
    """When the game must next hear from the side to move, or None when it can wait
    for ever (a casual unclocked game once both moved)."""
    rules = rules or SiteRules()
    side = game.to_move
    since = game.last_at
    control = game.time_control
    if not game.both_moved(rules):
        seconds = first_move_seconds(game, side, rules)
        whose = "the bot's" if game.bot is side else f"{side.value.capitalize()}'s"
        return Deadline(
            since + timedelta(seconds=seconds), DeadlineKind.FIRST_MOVE, side, "site S8",
            f"{whose} first move within {_seconds(seconds)}, else the game is aborted",
        )  # fmt: skip
    if game.bot is side:
        seconds = rules.bot_move_live if _live_clock(control) else rules.bot_move_unclocked
        move = SiteSystem(rules).bot_loss_move
        return Deadline(
            since + timedelta(seconds=seconds), DeadlineKind.BOT_MOVE, side, "site S7",
            f"the bot's move within {_seconds(seconds)}, else void before move {move} and "
            f"the human's loss from move {move}",
        )  # fmt: skip
    if control is not None and control.kind is ClockKind.CLOCKED:
        left = clock_left(game, side)
        return Deadline(
            since + max(left, timedelta(0)), DeadlineKind.CLOCK, side, "site S8",
            f"{side.value.capitalize()}'s clock runs out: a loss on time",
        )  # fmt: skip
    if control is not None and control.kind is ClockKind.CORRESPONDENCE:
        seconds = control.days_per_move * 86400
        return Deadline(
            since + timedelta(seconds=seconds), DeadlineKind.CLOCK, side, "site S8",
            f"{side.value.capitalize()} has {_seconds(seconds)} per move: a loss on time",
        )  # fmt: skip
    if not game.rated:
        return None  # S9: casual unclocked games do not expire once both moved
    return Deadline(
        since + timedelta(seconds=rules.expiry), DeadlineKind.EXPIRY, side, "site S9",
        f"{side.value.capitalize()} must move within {_seconds(rules.expiry)}, "
        "else loses (expired)",
    )  # fmt: skip


def board_ending(
    game: LiveGame, board: Board | None, rules: SiteRules | None = None
) -> Ending | None:
    """How the game ends by the rules of play at its last position (checkmate,
    stalemate, no mating material), if it does: that result, a normal ending; void
    before both moved (S8), as any ending then."""
    if board is None or board.result is None:
        return None
    rules = rules or SiteRules()
    if not game.both_moved(rules):
        return finish_ending(game, board.result, Termination.NORMAL, rules)
    return Ending(
        board.result, Termination.NORMAL,
        f"{board.how} after {game.ply_count} plies: {board.result.value} (the rules of play)",
    )  # fmt: skip


def timeout_problem(game: LiveGame, result: Result, board: Board | None) -> str | None:
    """Why ``result`` cannot end ``game`` on time: the side it makes the winner has not
    the material to mate, so a loss on time against it is a draw (the rules of play);
    None when it can."""
    if board is None or result not in (Result.WHITE_WINS, Result.BLACK_WINS):
        return None
    winner = Side.WHITE if result is Result.WHITE_WINS else Side.BLACK
    if winner not in board.cannot_mate:
        return None
    return (
        f"is {result.value} on time, but {winner.value.capitalize()} has not the material "
        f"to mate after ply {game.ply_count}: a loss on time against it is a draw "
        f"({Result.DRAW.value})"
    )


def deadline_ending(
    game: LiveGame, passed: Deadline, rules: SiteRules | None = None, board: Board | None = None
) -> Ending:
    """How the game ends when ``passed`` has passed without a move from its side
    (``board``: what the moves make of the last position, when known)."""
    rules = rules or SiteRules()
    side = passed.side
    name = "the bot" if game.bot is side else side.value.capitalize()
    if passed.kind is DeadlineKind.FIRST_MOVE:
        termination = Termination.BOT_NO_MOVE if game.bot is side else Termination.TIMEOUT
        return Ending(
            Result.NO_RESULT, termination,
            f"aborted: {name} did not make a first move in time (site S8)",
        )  # fmt: skip
    if passed.kind is DeadlineKind.BOT_MOVE:
        move = SiteSystem(rules).bot_loss_move
        if game.ply_count < rules.bot_void_before_plies:
            return Ending(
                Result.NO_RESULT, Termination.BOT_NO_MOVE,
                f"the bot's move did not arrive before move {move} ({game.ply_count} plies): "
                "void (site S7)",
            )  # fmt: skip
        human = side.other
        return Ending(
            human.loses(), Termination.BOT_NO_MOVE,
            f"the bot's move did not arrive from move {move} on ({game.ply_count} plies): "
            f"{human.value.capitalize()} loses (site S7)",
        )  # fmt: skip
    if passed.kind is DeadlineKind.CLOCK:
        if board is not None and side.other in board.cannot_mate:
            return Ending(
                Result.DRAW, Termination.TIMEOUT,
                f"{name} ran out of time, but {side.other.value.capitalize()} has not the "
                "material to mate: a draw (site S8, the rules of play)",
            )  # fmt: skip
        return Ending(side.loses(), Termination.TIMEOUT, f"{name} ran out of time (site S8)")
    return Ending(
        side.loses(), Termination.EXPIRED,
        f"{name} did not move for {_seconds(rules.expiry)}: expired (site S9)",
    )  # fmt: skip


def due(game: LiveGame, now: datetime, rules: SiteRules | None = None) -> Deadline | None:
    """The deadline that has passed at ``now``, if any."""
    upcoming = deadline(game, rules)
    if upcoming is not None and upcoming.at <= now:
        return upcoming
    return None


SERVICE_ENDINGS = frozenset({Termination.EXPIRED, Termination.BOT_NO_MOVE})
"""Endings only the service declares, when their deadline passes (S7, S9)."""


def abort_ending(game: LiveGame, by: str, rules: SiteRules | None = None) -> Ending:
    """S8: either player may abort until both sides have made their first move; after,
    the game can only be won, lost or drawn (a :class:`Conflict`)."""
    rules = rules or SiteRules()
    if game.both_moved(rules):
        raise Conflict(
            f"live game {game.id}: both sides have moved: the game can no longer be "
            "aborted (S8); resign instead"
        )
    return Ending(
        Result.NO_RESULT, Termination.NORMAL, f"aborted by {by} before both sides moved (site S8)"
    )


def finish_ending(
    game: LiveGame, result: Result, termination: Termination, rules: SiteRules | None = None
) -> Ending:
    """How a game ends as the players' site reports it: before both moved it can only be
    void (S8); ``expired`` and ``bot_no_move`` are the service's to declare (S7, S9)."""
    rules = rules or SiteRules()
    if termination in SERVICE_ENDINGS:
        raise InvalidRecord(
            f"live game {game.id}", "termination",
            f"{termination.value!r} is declared by the service itself when its deadline "
            "passes (S7, S9)",
        )  # fmt: skip
    if not game.both_moved(rules):
        reason = (
            f"ended by {termination.value} after {game.ply_count} plies, before both sides "
            "moved: void (site S8)"
        )
    else:
        reason = f"{termination.value}: {result.value} after {game.ply_count} plies"
    return Ending(result, termination, reason)


def plies_text(plies: Sequence[Ply]) -> list[list[object]]:
    """The plies in their stored form: ``[[number, iso time, move or null], ...]``."""
    return [[p.number, p.at.isoformat(), p.move] for p in plies]
