"""What PGN tags mean in a game record: one public function per decision.

:func:`game_from_tags` builds a :class:`~chessrate.records.GameRecord` from one game's
tags by calling the functions below, in a fixed order, and nothing else; the columnar
reader (:mod:`chessrate.fast.pgn`) calls the same functions once per distinct value
(or distinct combination of values). A *value* function reads the value of one tag
(or two: a player's name and FIDE id), an absent tag reading as ``""``; a *game*
function reads a game's tags or fields. Each returns the field, or raises
:class:`RefusedTag` (the tag to blame, the reason) for a value no record may hold
(:func:`day_start` and :func:`clock_seconds` raise a plain ``ValueError`` for a date or
time off the calendar, which :func:`played_at` names). Only ``RECORD_TAGS`` are read.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, time, timedelta
from typing import Literal
from urllib.parse import urlsplit

from ...errors import InvalidRecord
from ...identifiers import CONTROL_CHARACTER, ID_LONGEST, id_refusal, normal_id
from ...records import (
    DECISIVE_TERMINATIONS,
    EARLIEST,
    LATEST,
    MAX_PLIES,
    GameRecord,
    Result,
    Termination,
    Venue,
)
from ...timecontrol import TimeControl
from .timecontrol import parse_pgn_time_control

PlayerIds = Literal["name", "fide"]
"""How players are named: by the ``White``/``Black`` name, or by FIDE id when given."""

RECORD_TAGS = (
    "White", "Black", "Result", "UTCDate", "UTCTime", "Date", "Time", "TimeControl",
    "Termination", "Event", "Site", "Round", "Variant", "FEN", "GameId", "Link",
    "PlyCount", "WhiteFideId", "BlackFideId",
)  # fmt: skip
"""Every tag :func:`game_from_tags` reads."""


class RefusedTag(ValueError):
    """A tag value no game record may hold: ``tag`` (the one to name) and ``reason``."""

    def __init__(self, tag: str, reason: str) -> None:
        super().__init__(f"{tag}: {reason}")
        self.tag = tag
        self.reason = reason


# -- standard chess only ---------------------------------------------------------------------

_STANDARD = frozenset({"standard", "chess", "normal", "standard chess"})
_START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def check_variant(value: str) -> None:
    """``Variant``: empty or standard chess (Standard, Chess, Normal, any case);
    anything else (``Chess960``, ``Crazyhouse``, lichess ``From Position``) is refused:
    only standard games are rated."""
    variant = value.strip()
    if variant and variant.lower() not in _STANDARD:
        raise RefusedTag(
            "Variant", f"{variant!r} is not standard chess: only standard games are rated"
        )


def check_fen(value: str) -> None:
    """``FEN``: empty or the initial position; a set-up position is refused."""
    fen = value.strip()
    if fen and fen != _START_FEN:
        raise RefusedTag(
            "FEN", "the game starts from a set-up position: only standard games are rated"
        )


# -- players -------------------------------------------------------------------------------


def player_name(value: str, color: str) -> str:
    """``White``/``Black`` (``color``) as written, stripped: a lichess user name, a
    broadcast's "Surname, Name". ``?``, an empty name, or a name that is not an id (a
    ``/``, a control character, more than 200 characters:
    :func:`~chessrate.identifiers.id_refusal`) is refused; a name is taken in NFC
    (:func:`~chessrate.identifiers.normal_id`)."""
    name = normal_id(value.strip())
    if not name or name == "?":
        raise RefusedTag(color, "is required (the player is unknown)")
    if not name.isalnum() or len(name) > ID_LONGEST:  # (the common form, at once)
        reason = id_refusal(name)
        if reason is not None:
            raise RefusedTag(color, reason)
    return name


def fide_id(value: str, color: str = "White") -> str | None:
    """``WhiteFideId``/``BlackFideId`` (of ``color``), stripped; None when empty or 0. A
    value that is not an id is refused."""
    found = normal_id(value.strip())
    if not found or not found.strip("0"):
        return None
    if not found.isdecimal():
        reason = id_refusal(found)
        if reason is not None:
            raise RefusedTag(f"{color}FideId", reason)
    return found


def player_id(name: str, fide: str, color: str, player_ids: PlayerIds) -> str:
    """The id of the ``color`` player from the values of its name and FIDE id tags: with
    ``player_ids="fide"`` the FIDE id when given (names vary in spelling between events;
    FIDE ids do not), else :func:`player_name`."""
    if player_ids == "fide":
        found = fide_id(fide, color)
        if found is not None:
            return found
    return player_name(name, color)


def check_players(white: str, black: str) -> None:
    """Two different players (game function)."""
    if white == black:
        raise RefusedTag("Black", f"a player cannot play himself ({white!r})")


# -- result, termination ---------------------------------------------------------------------

_RESULTS = {r.value: r for r in Result}


def game_result(value: str) -> Result:
    """``Result``: ``1-0``, ``0-1``, ``1/2-1/2`` or ``*``."""
    text = value.strip()
    result = _RESULTS.get(text)
    if result is None:
        if not text:
            raise RefusedTag("Result", "is required (1-0, 0-1, 1/2-1/2 or *)")
        raise RefusedTag("Result", f"{text!r} is not one of 1-0, 0-1, 1/2-1/2, *")
    return result


LICHESS_TERMINATIONS: dict[str, Termination] = {
    "normal": Termination.NORMAL,
    "time forfeit": Termination.TIMEOUT,
    "abandoned": Termination.ABANDON,
    "rules infraction": Termination.FORFEIT,
    "unterminated": Termination.NORMAL,  # the result is "*": no result
    "insufficient material": Termination.NORMAL,
    "adjudication": Termination.NORMAL,
    "emergency": Termination.NORMAL,
    "death": Termination.NORMAL,
    **{t.value: t for t in Termination},
}
"""The PGN standard's and lichess's ``Termination`` words (any case), and chessrate's
own termination names."""

_CHESS_COM = re.compile(
    r"^(?:(?P<winner>.+?) won (?P<how>by resignation|on time|by checkmate|by abandonment"
    r"|- game abandoned|by agreement|by game abandonment)"
    r"|game (?P<draw>drawn by (?:timeout vs insufficient material|agreement|repetition"
    r"|stalemate|insufficient material|50-move rule|the 50-move rule|timeout))"
    r"|(?P<aborted>game abandoned|game aborted))$",
    re.IGNORECASE,
)
_CHESS_COM_HOW = {
    "by resignation": Termination.RESIGN,
    "on time": Termination.TIMEOUT,
    "by checkmate": Termination.NORMAL,
    "by abandonment": Termination.ABANDON,
    "- game abandoned": Termination.ABANDON,
    "by game abandonment": Termination.ABANDON,
    "by agreement": Termination.NORMAL,
}


def _word(text: str) -> Termination | None:
    return LICHESS_TERMINATIONS.get(" ".join(text.split()).lower())


def map_termination(text: str, white: str, black: str, result: Result) -> Termination:
    """A ``Termination`` tag as chessrate's termination. Raises ``ValueError``.

    A word of ``LICHESS_TERMINATIONS``, or a chess.com sentence: "X won by
    resignation" resign, "X won on time" timeout, "X won by checkmate" normal, "X won -
    game abandoned"/"Game abandoned" abandon, "Game drawn by timeout vs insufficient
    material" timeout, other "Game drawn by ..." normal. The winner a sentence names
    must be the result's winner."""
    known = _word(text)
    if known is not None:
        return known
    stripped = " ".join(text.split())
    match = _CHESS_COM.match(stripped)
    if match is None:
        raise ValueError(
            f"{text!r} is not a known termination (lichess: Normal, Time forfeit, "
            "Abandoned, Rules infraction, Unterminated; chess.com: 'X won by resignation', "
            "'X won on time', 'Game drawn by ...')"
        )
    if match.group("aborted"):
        return Termination.ABANDON
    if match.group("draw"):
        if result is not Result.DRAW:
            raise ValueError(f"{text!r} but the result is {result.value}")
        return Termination.TIMEOUT if "timeout" in stripped.lower() else Termination.NORMAL
    winner = match.group("winner")
    expected = {white: Result.WHITE_WINS, black: Result.BLACK_WINS}.get(winner)
    if expected is not None and expected is not result:
        raise ValueError(f"{text!r} but the result is {result.value}")
    return _CHESS_COM_HOW[match.group("how").lower()]


def termination_word(value: str) -> Termination | None:
    """``Termination`` when the value alone decides it: normal when empty, else a word
    of ``LICHESS_TERMINATIONS``. None for anything else: a chess.com sentence (it names
    the winner, which must agree with the result) or an unknown value, which
    :func:`game_termination` decides with the rest of the game."""
    words = value.split()
    if not words:
        return Termination.NORMAL
    return LICHESS_TERMINATIONS.get(" ".join(words).lower())


def game_termination(tags: Mapping[str, str], result: Result) -> Termination:
    """``Termination`` of the game (game function): :func:`termination_word`, else
    :func:`map_termination` with the players' names and the result. An unknown value
    is refused rather than guessed."""
    text = tags.get("Termination", "")
    known = termination_word(text)
    if known is not None:
        return known
    try:
        return map_termination(text, tags.get("White", ""), tags.get("Black", ""), result)
    except ValueError as error:
        raise RefusedTag("Termination", str(error)) from None


def check_ending(result: Result, termination: Termination) -> None:
    """A draw cannot end by a decisive termination (timeout, resignation, ...)."""
    if result is Result.DRAW and termination in DECISIVE_TERMINATIONS:
        raise RefusedTag("Result", f"a game that ended by {termination.value} is not a draw")


# -- when ------------------------------------------------------------------------------------

_DATE = re.compile(r"(\d{4})[.\-/](\d{2})[.\-/](\d{2})")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ISO_TIME = time.fromisoformat
_SECOND = timedelta(seconds=1)
_days: dict[str, datetime] = {}
_TIME = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")


def date_tags(tags: Mapping[str, str]) -> tuple[str, str]:
    """The (date, time) tags a game's start is read from: ``UTCDate`` and ``UTCTime``
    when there is a ``UTCDate``, else ``Date`` and ``Time`` (read as UTC). A game
    without either date is refused: the rating order needs it."""
    if "UTCDate" in tags:
        return "UTCDate", "UTCTime"
    if "Date" in tags:
        return "Date", "Time"
    raise RefusedTag("Date", "is required (no UTCDate or Date tag): the rating order needs it")


def day_start(value: str, tag: str) -> datetime:
    """00:00 UTC of a ``YYYY.MM.DD`` date (``-`` or ``/`` also). A value that is not a
    date raises :class:`RefusedTag` (a date with ``??`` too: the rating order needs the
    day; a day before 1800 or from 2200 on: the records' range); a date that is not on
    the calendar raises ``ValueError`` (datetime's reason)."""
    start = _days.get(value)
    if start is not None:
        return start
    day = value.strip()
    match = _DATE.fullmatch(day)
    if match is None:
        reason = "is partial: the rating order needs the day" if "?" in day else "is not a date"
        raise RefusedTag(tag, f"{day!r} {reason} (YYYY.MM.DD)")
    year, month, day_of_month = match.groups()
    start = datetime(int(year), int(month), int(day_of_month), tzinfo=UTC)
    if not EARLIEST <= start < LATEST:
        raise RefusedTag(
            tag, f"{day!r} is out of range: a day from {EARLIEST:%Y.%m.%d} up to {LATEST:%Y.%m.%d}"
        )
    if len(_days) < 4096:  # (a file holds few distinct days)
        _days[value] = start
    return start


def clock_seconds(value: str, tag: str) -> int:
    """Seconds into the day of an ``HH:MM:SS`` time (``H:MM`` also); empty or
    ``??:??:??``: 0. A value that is not a time raises :class:`RefusedTag`; a time that
    is not on the clock raises ``ValueError`` (datetime's reason)."""
    clock = value.strip()
    if len(clock) == 8 and clock[2] == ":" == clock[5]:
        try:  # (the common HH:MM:SS in C; it takes only ASCII digits, on the clock)
            moment = _ISO_TIME(clock)
            return moment.hour * 3600 + moment.minute * 60 + moment.second
        except ValueError:
            pass  # the long way decides
    found = _TIME.fullmatch(clock)
    if found is None:
        if not clock or clock == "??:??:??":
            return 0
        raise RefusedTag(tag, f"{clock!r} is not a time (HH:MM:SS)")
    hours, minutes, seconds = found.groups()
    moment = time(int(hours), int(minutes), int(seconds) if seconds else 0)
    return moment.hour * 3600 + moment.minute * 60 + moment.second


def played_at(tags: Mapping[str, str]) -> datetime:
    """When the game started (game function): :func:`day_start` of the date of
    :func:`date_tags` plus :func:`clock_seconds` of its time (a missing time is
    00:00:00). PGN records when a game started, not when it ended; the start orders a
    batch the same way. A value that is not a date or a time is named before one that
    is not on the calendar or the clock (the date first)."""
    date_tag, time_tag = date_tags(tags)
    day = tags[date_tag]
    clock = tags.get(time_tag, "")
    late: ValueError | None = None
    start = _EPOCH
    seconds = 0
    try:
        start = day_start(day, date_tag)
    except RefusedTag:
        raise
    except ValueError as error:
        late = error
    try:
        seconds = clock_seconds(clock, time_tag)
    except RefusedTag:
        raise
    except ValueError as error:
        late = late or error
    if late is not None:
        tag = date_tag if any(w in str(late) for w in ("year", "month", "day")) else time_tag
        raise RefusedTag(tag, f"{day.strip()} {clock.strip()}: {late}")
    return start + _SECOND * seconds


# -- clock, rated, plies ---------------------------------------------------------------------

_time_controls: dict[str, TimeControl | None] = {}


def time_control(value: str) -> TimeControl | None:
    """``TimeControl`` by :func:`parse_pgn_time_control` (empty or ``?``: none, which
    a system that needs one refuses)."""
    control = _time_controls.get(value, _time_controls)
    if control is _time_controls:
        try:
            control = parse_pgn_time_control(value)
        except ValueError as error:
            raise RefusedTag("TimeControl", str(error)) from None
        if len(_time_controls) < 4096:
            _time_controls[value] = control
    return control  # type: ignore[return-value]


def rated(value: str) -> bool:
    """``Event``: false when it starts with "Casual" (lichess "Casual Blitz game"), else
    true (lichess "Rated ..." games and arenas, broadcast and OTB events)."""
    return not value.lstrip().lower().startswith("casual")


def plies(value: str) -> int | None:
    """``PlyCount`` when given (the movetext is not counted: site S8 aborts are known
    only from it, or from a lichess ``*``/``Abandoned`` game)."""
    text = value.strip()
    if not text:
        return None
    if not text.isdecimal():
        raise RefusedTag("PlyCount", f"{text[:40]!r} is not a whole number")
    if len(text.lstrip("0")) > 9:  # (int() refuses 4,301 digits and more)
        raise RefusedTag("PlyCount", f"must be at most {MAX_PLIES:,}")
    count = int(text)
    if count > MAX_PLIES:
        raise RefusedTag("PlyCount", f"must be at most {MAX_PLIES:,}")
    return count


# -- the game's id ---------------------------------------------------------------------------

_LICHESS_URL = re.compile(r"https?://lichess\.org/([A-Za-z0-9]{8})(?:[A-Za-z0-9]{4})?/?")
_LICHESS = "https://lichess.org/"
_ROSTER_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "UTCDate", "UTCTime")


_URL = ("http://", "https://")


def id_from_url(url: str, tag: str) -> str:
    """The game id of a URL (in ``tag``): ``HOST:SEGMENT:SEGMENT…``, so that it holds
    no ``/`` (ids never do): ``https://www.chess.com/game/live/123456789`` is
    ``chess.com:game:live:123456789``. The scheme, the user before ``@`` and a leading
    ``www.`` are dropped and the host is lower case (http and https, with or without
    ``www.``, name one game); the path's non-empty segments follow (a trailing ``/``
    changes nothing), then ``?QUERY`` and ``#FRAGMENT`` when present. A ``:`` inside
    the host (a port), a segment, the query or the fragment is written ``%3A``, a
    ``/`` inside the query or the fragment ``%2F``: two URLs give one id only when they
    differ in those ways alone (or in spelling a character percent-encoded or not).
    Refused when there is no host, or when the id would not be one (more than 200
    characters, a control character)."""
    if CONTROL_CHARACTER.search(url):  # (urlsplit would drop a tab or a line break)
        raise RefusedTag(tag, f"{url!r} is not a valid id (no control characters)")
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2].lower().removeprefix("www.")
    if not host:
        raise RefusedTag(tag, f"{url!r} is not the URL of a game (no host)")
    pieces = [host, *(s for s in parts.path.split("/") if s)]
    text = ":".join(piece.replace(":", "%3A") for piece in pieces)
    for mark, rest in (("?", parts.query), ("#", parts.fragment)):
        if rest:
            text += mark + rest.replace(":", "%3A").replace("/", "%2F")
    text = normal_id(text)
    reason = id_refusal(text)
    if reason is not None:
        raise RefusedTag(tag, f"{url!r}: the id it gives {reason}")
    return text


def id_from_game_id(value: str) -> str | None:
    """``GameId``, stripped (None when empty); a URL is read by :func:`id_from_url`.
    Any other value that is not an id (a ``/``, a control character, more than 200
    characters) is refused: a ``/`` is not guessed into something else."""
    text = normal_id(value.strip())
    if text.isalnum() and len(text) <= ID_LONGEST:  # (the common form, at once)
        return text
    if not text:
        return None
    if text.startswith(_URL):
        return id_from_url(text, "GameId")
    reason = id_refusal(text)
    if reason is not None:
        raise RefusedTag("GameId", reason)
    return text


def id_from_site(value: str) -> str | None:
    """The game id of a lichess URL in ``Site`` (``https://lichess.org/abcdefgh``)."""
    text = value.strip()
    if len(text) == 28 and text.startswith(_LICHESS) and text[20:].isascii():
        return text[20:] if text[20:].isalnum() else None  # (the common form, at once)
    lichess = _LICHESS_URL.fullmatch(text)
    return lichess.group(1) if lichess else None


def id_from_link(value: str) -> str | None:
    """A chess.com-style ``Link`` URL (``http://`` or ``https://``) by
    :func:`id_from_url`; None for anything else."""
    link = value.strip()
    return id_from_url(link, "Link") if link.startswith(_URL) else None


GAME_ID_TAGS: tuple[tuple[str, Callable[[str], str | None]], ...] = (
    ("GameId", id_from_game_id),
    ("Site", id_from_site),
    ("Link", id_from_link),
)
"""Where a game's id comes from, in order: the first tag whose function gives one."""


def roster_id(tags: Mapping[str, str]) -> str:
    """``pgn-`` and 16 hex digits of a BLAKE2 hash of Event, Site, Date, Round, White,
    Black, UTCDate and UTCTime: for a game no tag of ``GAME_ID_TAGS`` names. Not
    Result: a corrected result is the same game, refused by the engine as different
    content rather than rated twice."""
    roster = "\x1f".join(tags.get(name, "") for name in _ROSTER_TAGS)
    return "pgn-" + hashlib.blake2b(roster.encode(), digest_size=8).hexdigest()


def game_id(tags: Mapping[str, str]) -> str:
    """The game's id (game function): from the first of ``GAME_ID_TAGS`` that gives
    one, else :func:`roster_id`. A tag whose id is not one is refused (see each
    function)."""
    get = tags.get
    for tag, read in GAME_ID_TAGS:
        found = read(get(tag, ""))
        if found is not None:
            return found
    return roster_id(tags)


# -- the record --------------------------------------------------------------------------------


def game_from_tags(
    tags: Mapping[str, str], where: str, player_ids: PlayerIds = "name"
) -> GameRecord:
    """The game record of one game's tags. Venue online, ``confirmed`` unset: PGN has
    no venue tag, and a broadcast of an OTB event is not a game "registered on the
    site and confirmed by both players" (site S2 ``otb``).

    Raises :class:`InvalidRecord` naming ``where``, the tag and the reason (the first
    refusal, in the order of the fields below)."""
    get = tags.get
    try:
        check_variant(get("Variant", ""))
        check_fen(get("FEN", ""))
        white = player_id(get("White", ""), get("WhiteFideId", ""), "White", player_ids)
        black = player_id(get("Black", ""), get("BlackFideId", ""), "Black", player_ids)
        check_players(white, black)
        result = game_result(get("Result", ""))
        start = played_at(tags)
        control = time_control(get("TimeControl", ""))
        termination = game_termination(tags, result)
        check_ending(result, termination)
        ply_count = plies(get("PlyCount", ""))
        game = game_id(tags)
    except RefusedTag as refused:
        raise InvalidRecord(where, refused.tag, refused.reason) from None
    return GameRecord(
        id=game,
        played_at=start,
        white=white,
        black=black,
        result=result,
        rated=rated(get("Event", "")),
        time_control=control,
        termination=termination,
        plies=ply_count,
        venue=Venue.ONLINE,
        confirmed=None,
        source=where,
    )
