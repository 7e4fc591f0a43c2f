"""Game records and player attributes (the spec, "The game record").

One shape for every input: JSON Lines, CSV with the same column names, and
later the HTTP API. Values may arrive typed (JSON) or as text (CSV); both are
validated here, and every error names the record, the field and the reason.

The rules of an id and of free text are :mod:`chessrate.identifiers`'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from enum import Enum, StrEnum
from typing import TYPE_CHECKING, TypeVar

from .errors import InvalidRecord
from .identifiers import (
    ID_LONGEST,
    NAME_LONGEST,
    TEXT_LONGEST,
    id_refusal,
    normal_id,
    text_problem,
)  # fmt: skip
from .numbers import HALF, ONE, RATING_HIGHEST, RATING_LOWEST, parse_rating
from .timecontrol import TimeControl, parse_time_control

if TYPE_CHECKING:
    from .moves import Played

E = TypeVar("E", bound=Enum)
LOSS = Decimal(0)


MAX_PLIES = 100_000
"""The most half-moves a game record may claim: more than any game of chess can have
(the 75-move rule ends every game long before), so a larger count is a data error."""


class Result(StrEnum):
    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"
    NO_RESULT = "*"

    def score(self, white: bool) -> Decimal | None:
        """The score of White (``white=True``) or Black; None when there is no result."""
        if self is Result.NO_RESULT:
            return None
        if self is Result.DRAW:
            return HALF
        return ONE if (self is Result.WHITE_WINS) == white else LOSS


class Termination(StrEnum):
    NORMAL = "normal"
    RESIGN = "resign"
    TIMEOUT = "timeout"
    ABANDON = "abandon"
    DISCONNECT = "disconnect"
    FORFEIT = "forfeit"
    BOT_NO_MOVE = "bot_no_move"
    EXPIRED = "expired"


DECISIVE_TERMINATIONS = frozenset(
    {Termination.RESIGN, Termination.ABANDON, Termination.DISCONNECT, Termination.FORFEIT}
)
"""Endings that have a winner: with them a draw result is a contradiction."""


class Venue(StrEnum):
    ONLINE = "online"
    OTB = "otb"


class Outcome(StrEnum):
    """What a system decided for a game (the spec, "Each game gets one of four
    outcomes"; the fourth, refused, is an :class:`InvalidRecord`)."""

    RATED = "rated"
    UNRATED = "unrated"
    VOID = "void"


GAME_FIELDS = (
    "id",
    "played_at",
    "white",
    "black",
    "result",
    "rated",
    "time_control",
    "termination",
    "plies",
    "venue",
    "confirmed",
    "moves",
    "movetext",
)
MOVE_FIELDS = ("moves", "movetext")
"""The two spellings of a game's moves (:meth:`GameFields.moves`): the columnar readers
leave a file that has either to the reference reader, which checks them."""

_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}
EARLIEST = datetime(1800, 1, 1, tzinfo=UTC)
LATEST = datetime(2200, 1, 1, tzinfo=UTC)
"""Timestamps are accepted from ``EARLIEST`` up to (not including) ``LATEST``, in UTC:
any chess game ever recorded, and every moment both databases store."""
INT_LARGEST = 2**31 - 1
"""The largest whole number a counted field takes (the schema's ``Integer``)."""
_SCALARS = (bool, int, float, Decimal)


def _text(value: object) -> str | None:
    """A field's value as stripped text (:func:`text_problem`); None when absent or
    empty."""
    if isinstance(value, str):
        problem = text_problem(value)
        if problem is not None:
            raise TypeError(problem)
        return value.strip() or None
    if value is None:
        return None
    if isinstance(value, float) and value != value:  # NaN
        raise TypeError("must be a number, not NaN")
    if isinstance(value, _SCALARS):
        return str(value)
    raise TypeError("must be a string")


class FieldReader:
    """Reads typed fields out of one mapping, raising :class:`InvalidRecord`."""

    def __init__(self, data: Mapping[str, object], where: str) -> None:
        self.data = data
        self.where = where

    def fail(self, name: str, reason: str) -> InvalidRecord:
        return InvalidRecord(self.where, name, reason)

    def text(self, name: str, *, required: bool = False, longest: int = TEXT_LONGEST) -> str | None:
        try:
            value = _text(self.data.get(name))
        except TypeError as error:
            raise self.fail(name, str(error)) from None
        if value is None and required:
            raise self.fail(name, "is required")
        if value is not None and len(value) > longest:
            raise self.fail(name, f"is {len(value):,} characters long; at most {longest:,}")
        return value

    def ident(self, name: str, stored: bool = False, normalise: bool = True) -> str:
        """An id, in NFC (:func:`normal_id`, :func:`id_refusal`; ``stored``: read back
        from a ledger, taken as it is). ``normalise=False``: a text the ledger keeps as
        it was sent and reads again (a fide start list), whose ids must already be NFC
        (refused otherwise, so that every reading gives the same ids)."""
        value = self.text(name, required=True, longest=ID_LONGEST)
        assert value is not None
        if normalise and not stored:
            value = normal_id(value)
        reason = id_refusal(value, stored)
        if reason is not None:
            raise self.fail(name, reason)
        return value

    def boolean(self, name: str) -> bool | None:
        raw = self.data.get(name)
        if isinstance(raw, bool) or raw is None:
            return raw
        value = self.text(name)
        if value is None:
            return None
        if value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
        raise self.fail(name, f"{value!r} is not true or false")

    def integer(self, name: str, minimum: int = 0, maximum: int | None = INT_LARGEST) -> int | None:
        raw = self.data.get(name)
        if isinstance(raw, bool):
            raise self.fail(name, "must be a whole number")
        value = self.text(name)
        if value is None:
            return None
        if not re.fullmatch(r"[+-]?\d{1,30}", value):
            raise self.fail(name, f"{value[:40]!r} is not a whole number")
        number = int(value)
        if number < minimum:
            raise self.fail(name, f"must be at least {minimum}")
        if maximum is not None and number > maximum:
            raise self.fail(name, f"must be at most {maximum:,}")
        return number

    def rating(self, name: str) -> Decimal | None:
        value = self.text(name)
        if value is None:
            return None
        try:
            rating = parse_rating(value)
        except ValueError as error:
            raise self.fail(name, str(error)) from None
        if not RATING_LOWEST <= rating <= RATING_HIGHEST:
            raise self.fail(
                name, f"{value[:40]!r} is out of range: a rating is from 0 to {RATING_HIGHEST}"
            )
        return rating

    def choice(self, name: str, enum: type[E], default: E) -> E:
        value = self.text(name)
        if value is None:
            return default
        try:
            return enum(value.lower() if value != "*" else value)
        except ValueError:
            allowed = ", ".join(str(member.value) for member in enum)
            raise self.fail(name, f"{value!r} is not one of {allowed}") from None

    def timestamp(self, name: str) -> datetime:
        value = self.text(name, required=True)
        assert value is not None
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise self.fail(
                name, f"{value!r} is not an ISO 8601 timestamp (e.g. 2026-03-01T18:30:00Z)"
            ) from None
        moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        try:
            utc = moment.astimezone(UTC)
        except OverflowError:
            utc = None
        if utc is None or not EARLIEST <= utc < LATEST:
            raise self.fail(
                name,
                f"{value!r} is out of range: a moment from {EARLIEST:%Y-%m-%d} up to "
                f"{LATEST:%Y-%m-%d} (UTC)",
            )
        return moment

    def day(self, name: str) -> date | None:
        value = self.text(name)
        if value is None:
            return None
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise self.fail(name, f"{value!r} is not a date (YYYY-MM-DD)") from None

    def reject_unknown(
        self, known: tuple[str, ...], pattern: re.Pattern[str] | None = None
    ) -> None:
        for name in self.data:
            if name in known or (pattern is not None and pattern.fullmatch(name)):
                continue
            raise self.fail(name, f"unknown field (known fields: {', '.join(known)})")


class GameFields(FieldReader):
    """The fields of a game record, one method each: the one place that says how a
    field is spelled, what it defaults to and why it is refused.
    :meth:`GameRecord.from_mapping` reads a whole record with them; the columnar
    readers (:mod:`chessrate.fast.columnar`) decide each distinct cell once with them
    (``GameFields({name: cell}, where).method()``)."""

    def time_control(self) -> TimeControl | None:
        text = self.text("time_control")
        if text is None:
            return None
        try:
            return parse_time_control(text)
        except ValueError as error:
            raise self.fail("time_control", str(error)) from None

    def result(self) -> Result:
        text = self.text("result", required=True)
        assert text is not None
        try:
            return Result(text.replace("½", "1/2"))
        except ValueError:
            raise self.fail("result", f"{text!r} is not one of 1-0, 0-1, 1/2-1/2, *") from None

    def venue(self) -> Venue:
        return self.choice("venue", Venue, Venue.ONLINE)

    def confirmed(self) -> bool | None:
        return self.boolean("confirmed")

    def rated(self) -> bool:
        rated = self.boolean("rated")
        return True if rated is None else rated

    def termination(self) -> Termination:
        return self.choice("termination", Termination, Termination.NORMAL)

    def played_at(self) -> datetime:
        return self.timestamp("played_at")

    def plies(self) -> int | None:
        return self.integer("plies", maximum=MAX_PLIES)

    def moves(self, game_id: str, result: Result | None = None) -> tuple[str, ...] | None:
        """The game's moves from the standard start position, checked legal, as UCI
        (:mod:`chessrate.moves`): ``moves``, a list of moves (SAN or UCI, one ply
        each), or ``movetext``, the PGN movetext as one string; not both. None when
        neither holds a move. A refusal names the game, the field, the ply and the
        move. With ``result``, moves that end the game by themselves (checkmate,
        stalemate, no mating material on either side) must end it with that result."""
        listed, text = self.data.get("moves"), self.data.get("movetext")
        if isinstance(listed, str) and not listed.strip():
            listed = None  # an empty cell (CSV)
        if listed is None and text is None:
            return None  # (python-chess is imported only for games with moves)
        from .moves import MovesRefused, read_list, read_movetext

        if listed is not None and text is not None:
            raise self.fail("movetext", "give the moves as moves (a list) or as movetext, not both")
        game = "" if self.where == f"game {game_id}" else f"game {game_id}: "
        try:
            if listed is not None:
                if not isinstance(listed, list | tuple):
                    raise MovesRefused(
                        "must be a list of moves, one a ply (SAN or UCI); PGN movetext as "
                        "one string goes in movetext"
                    )
                found = read_list(listed)
            elif text is not None:
                if not isinstance(text, str):
                    raise MovesRefused("must be a string (the PGN movetext)")
                problem = text_problem(text)
                if problem is not None:
                    raise MovesRefused(problem)
                found = read_movetext(text)
            else:
                return None
        except MovesRefused as error:
            raise self.fail(
                "moves" if listed is not None else "movetext", f"{game}{error}"
            ) from None
        if result is not None:
            self.check_moves_end(result, found)
        return found.moves or None

    def check_moves_end(self, result: Result, played: Played) -> None:
        """The result a game's last position imposes (the rules of play end the game
        at checkmate, stalemate and a position where neither side can mate)."""
        from .moves import result_problem

        problem = result_problem(result.value, played)
        if problem is not None:
            raise self.fail("result", problem)

    def check_plies(self, plies: int | None, moves: tuple[str, ...] | None) -> int | None:
        """The game's plies: as given, else the moves' count; refused when both are
        given and differ."""
        if moves is None:
            return plies
        if plies is not None and plies != len(moves):
            raise self.fail("plies", f"is {plies} but the moves hold {len(moves)} plies")
        return len(moves)

    def check_opponents(self, white: str, black: str) -> None:
        if white == black:
            raise self.fail("black", f"a player cannot play himself ({white!r})")

    def check_confirmed(self, venue: Venue, confirmed: bool | None) -> None:
        if confirmed is not None and venue is not Venue.OTB:
            raise self.fail("confirmed", "only an otb game is confirmed")

    def check_ending(self, result: Result, termination: Termination) -> None:
        if result is Result.DRAW and termination in DECISIVE_TERMINATIONS:
            raise self.fail("result", f"a game that ended by {termination.value} is not a draw")


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game, as submitted. ``source`` locates it (``FILE:LINE``)."""

    id: str
    played_at: datetime
    white: str
    black: str
    result: Result
    rated: bool = True
    time_control: TimeControl | None = None
    termination: Termination = Termination.NORMAL
    plies: int | None = None
    venue: Venue = Venue.ONLINE
    confirmed: bool | None = None
    moves: tuple[str, ...] | None = None
    """The moves (UCI, from the standard start position), when submitted."""
    source: str = field(default="", compare=False)

    @property
    def where(self) -> str:
        """How errors name this record: its source location, else its id."""
        return self.source or f"game {self.id}"

    def refuse(self, name: str, reason: str) -> InvalidRecord:
        return InvalidRecord(self.where, name, reason)

    def reuses_id_of(self, earlier: GameRecord) -> InvalidRecord:
        """The refusal of this game when ``earlier`` (another game: other content) came
        first under the same id."""
        return self.refuse(
            "id", f"game id {self.id!r} was already used for a different game (at {earlier.where})"
        )

    def score(self, player: str) -> Decimal | None:
        return self.result.score(white=player == self.white)

    def opponent(self, player: str) -> str:
        return self.black if player == self.white else self.white

    @classmethod
    def from_mapping(
        cls, data: Mapping[str, object], where: str, stored: bool = False
    ) -> GameRecord:
        """Validate one record; raises :class:`InvalidRecord` naming ``where`` and the
        field. ``stored``: a record the ledger holds, whose ids may be older than the
        rule against ``/`` (:func:`id_refusal`)."""
        fields = GameFields(data, where)
        fields.reject_unknown(GAME_FIELDS)
        game_id = fields.ident("id", stored)
        white = fields.ident("white", stored)
        black = fields.ident("black", stored)
        fields.check_opponents(white, black)
        time_control = fields.time_control()
        result = fields.result()
        venue = fields.venue()
        confirmed = fields.confirmed()
        fields.check_confirmed(venue, confirmed)
        rated = fields.rated()
        termination = fields.termination()
        fields.check_ending(result, termination)
        # A stored game was checked when it came in (and is kept as it was then).
        moves = fields.moves(game_id, None if stored else result)
        plies = fields.check_plies(fields.plies(), moves)
        return cls(
            id=game_id,
            played_at=fields.played_at(),
            white=white,
            black=black,
            result=result,
            rated=rated,
            time_control=time_control,
            termination=termination,
            plies=plies,
            venue=venue,
            confirmed=confirmed,
            moves=moves,
            source=where,
        )

    def to_mapping(self) -> dict[str, object]:
        """The record in its file form (JSON Lines); absent optional fields are left out."""
        data: dict[str, object] = {
            "id": self.id,
            "played_at": self.played_at.isoformat().replace("+00:00", "Z"),
            "white": self.white,
            "black": self.black,
            "result": self.result.value,
            "rated": self.rated,
        }
        if self.time_control is not None:
            data["time_control"] = str(self.time_control)
        if self.termination is not Termination.NORMAL:
            data["termination"] = self.termination.value
        if self.plies is not None:
            data["plies"] = self.plies
        if self.venue is not Venue.ONLINE:
            data["venue"] = self.venue.value
        if self.confirmed is not None:
            data["confirmed"] = self.confirmed
        if self.moves is not None:
            data["moves"] = list(self.moves)
        return data


@dataclass(frozen=True, slots=True)
class ImportedRating:
    """A rating brought in from an existing list, and the games behind it."""

    rating: Decimal
    games: int


PLAYER_FIELDS = ("id", "name", "membership_until", "bot", "bot_rating")
_IMPORTED = re.compile(r"(rating|games)_([a-z]+)")


@dataclass(frozen=True, slots=True)
class Player:
    """A player's attributes (the spec's players table)."""

    id: str
    name: str | None = None
    membership_until: date | None = None
    bot: bool = False
    bot_rating: Decimal | None = None
    imported: Mapping[str, ImportedRating] = field(default_factory=dict)
    source: str = field(default="", compare=False)

    @property
    def label(self) -> str:
        return self.name or self.id

    def is_member_on(self, day: date) -> bool:
        """arena A3: the membership is valid until ``membership_until``, inclusive."""
        return self.membership_until is not None and day <= self.membership_until

    def to_mapping(self) -> dict[str, object]:
        """The attributes in their file form (absent ones left out); round-trips
        through :meth:`from_mapping`."""
        data: dict[str, object] = {"id": self.id}
        if self.name is not None:
            data["name"] = self.name
        if self.membership_until is not None:
            data["membership_until"] = self.membership_until.isoformat()
        if self.bot:
            data["bot"] = True
        if self.bot_rating is not None:
            data["bot_rating"] = f"{self.bot_rating:.2f}"
        for pool, imported in sorted(self.imported.items()):
            data[f"rating_{pool}"] = f"{imported.rating:.2f}"
            data[f"games_{pool}"] = imported.games
        return data

    @classmethod
    def from_mapping(cls, data: Mapping[str, object], where: str, stored: bool = False) -> Player:
        """Validate one player's attributes (``stored``: as :meth:`GameRecord.from_mapping`)."""
        fields = PlayerFields(data, where)
        fields.reject_unknown(PLAYER_FIELDS, _IMPORTED)
        bot = fields.bot()
        bot_rating = fields.bot_rating()
        fields.check_bot(bot, bot_rating)
        imported: dict[str, ImportedRating] = {}
        for pool in imported_pools(data):
            entry = fields.imported(pool, fields.pool_rating(pool), fields.pool_games(pool))
            if entry is not None:
                imported[pool] = entry
        return cls(
            id=fields.ident("id", stored),
            name=fields.name(),
            membership_until=fields.membership_until(),
            bot=bot,
            bot_rating=bot_rating,
            imported=imported,
            source=where,
        )


def imported_pools(names: Iterable[str]) -> list[str]:
    """The pools of the imported-rating fields (``rating_POOL``, ``games_POOL``) among
    ``names``, in the order a player's fields are read."""
    return sorted({m.group(2) for name in names if (m := _IMPORTED.fullmatch(name))})


class PlayerFields(FieldReader):
    """The fields of a players file's row, one method each (as :class:`GameFields` for
    games): :meth:`Player.from_mapping` reads a row with them; the columnar players
    reader (:mod:`chessrate.io.players`) decides each distinct cell once with them."""

    def name(self) -> str | None:
        return self.text("name", longest=NAME_LONGEST)

    def membership_until(self) -> date | None:
        return self.day("membership_until")

    def bot(self) -> bool:
        return bool(self.boolean("bot"))

    def bot_rating(self) -> Decimal | None:
        return self.rating("bot_rating")

    def check_bot(self, bot: bool, bot_rating: Decimal | None) -> None:
        if bot and bot_rating is None:
            raise self.fail("bot_rating", "is required for a bot")
        if bot_rating is not None and not bot:
            raise self.fail("bot_rating", "is only for a bot (set bot to true)")

    def pool_rating(self, pool: str) -> Decimal | None:
        return self.rating(f"rating_{pool}")

    def pool_games(self, pool: str) -> int | None:
        return self.integer(f"games_{pool}")

    def imported(
        self, pool: str, rating: Decimal | None, games: int | None
    ) -> ImportedRating | None:
        """A pool's imported rating from its two fields (None when both are absent)."""
        if rating is None and games is None:
            return None
        if rating is None:
            raise self.fail(f"rating_{pool}", f"is required with games_{pool}")
        if games is None:
            raise self.fail(f"games_{pool}", f"is required with rating_{pool}")
        if rating <= 0:
            raise self.fail(f"rating_{pool}", "must be positive")
        return ImportedRating(rating, games)


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECONDS_PER_DAY = 86_400_000_000


def microseconds(moment: datetime) -> int:
    """A timestamp as whole microseconds since 1970-01-01 UTC (exact: datetimes have
    microsecond resolution; a naive one is taken as UTC). The ledger stores moments so,
    and the compiled replay orders games by it."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def moment(value: int) -> datetime:
    """The inverse of :func:`microseconds` (a UTC datetime)."""
    return EPOCH + timedelta(microseconds=value)


def strict_json(line: str) -> object:
    """One JSON value as records read it: numbers with a fraction as exact decimals;
    ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's json reads, and JSON
    forbids) refused with ``ValueError``, and so is nesting too deep for the reader (a
    record is one flat object)."""

    def refuse(constant: str) -> object:
        raise ValueError(f"{constant} is not a JSON number")

    try:
        return json.loads(line, parse_float=Decimal, parse_constant=refuse)
    except RecursionError:
        raise ValueError("nested too deeply (a record is one flat object)") from None
