"""PGN ``TimeControl`` values as :class:`~chessrate.timecontrol.TimeControl`.

:func:`parse_pgn_time_control` reads what :func:`chessrate.timecontrol.parse_time_control`
reads, and the PGN standard's periods and sandclock, lichess daily games and the
sentences of broadcast exports.
"""

from __future__ import annotations

import re

from ...timecontrol import ClockKind, TimeControl, parse_time_control

_SECONDS_PER_DAY = 86_400
_PERIOD = re.compile(r"(?:(\d+)/)?(\d+)(?:\+(\d+))?")
_PGN_FORM = re.compile(r"[\d/+:\s]+")
_SANDCLOCK = re.compile(r"\*(\d+)")
_AMOUNT = re.compile(
    r"(\d+)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s|'|\")(?![a-z])\.?",
    re.IGNORECASE,
)
_MOVES = re.compile(r"(?:/|\bfor\b|\bin\b)\s*\d+\s*moves?", re.IGNORECASE)
_PER_MOVE = re.compile(r"per\s+move|/\s*move|a\s+move|increment|bonus", re.IGNORECASE)
_UNIT = {"d": _SECONDS_PER_DAY, "h": 3600, "m": 60, "'": 60, "s": 1, '"': 1}


def parse_pgn_time_control(text: str) -> TimeControl | None:
    """A PGN ``TimeControl`` value as a time control; None for ``?`` or empty.

    Besides :func:`chessrate.timecontrol.parse_time_control`'s forms (``300+3``,
    ``-``, ``5m+3s``, ``3d``):

    * the PGN standard's periods ``40/5400+30:1800+30`` (moves/seconds, ``:`` between
      periods) and sandclock ``*180``;
    * lichess daily games ``1/259200``: one move in N days is N days per move;
    * broadcast sentences: ``15 min. + 10 s. per move``, ``15 minutes + 10 seconds
      increment per move, starting from move 1``, ``90 min/40 moves + 30 min + 30 s.
      per move``, ``3 days per move``.

    Several periods are one clock whose base is the sum of the periods' times and
    whose increment is the last period's (FIDE classical 90/40 + 30 + 30 s is
    7200+30): the estimate of site S2 is about the game's length, not the periods.
    Raises ``ValueError`` with the reason."""
    stripped = text.strip()
    if stripped in ("", "?"):
        return None
    if stripped == "-":
        return TimeControl(ClockKind.UNCLOCKED)
    if _PGN_FORM.fullmatch(stripped) and ("/" in stripped or ":" in stripped):
        return _pgn_periods(text, stripped)
    sandclock = _SANDCLOCK.fullmatch(stripped)
    if sandclock:
        return parse_time_control(sandclock.group(1))
    try:
        return parse_time_control(stripped)
    except ValueError as error:
        if not _AMOUNT.search(stripped):
            raise error from None
    return _sentence(text, stripped)


def _pgn_periods(text: str, stripped: str) -> TimeControl:
    base = increment = 0
    periods = stripped.split(":")
    for index, period in enumerate(periods):
        match = _PERIOD.fullmatch(period.strip())
        if match is None:
            raise ValueError(f"{text!r} is not a PGN time control (e.g. '40/5400+30:1800+30')")
        moves, seconds, bonus = match.groups()
        if moves is not None and int(moves) == 1 and len(periods) == 1 and bonus is None:
            days, rest = divmod(int(seconds), _SECONDS_PER_DAY)
            if rest or not days:
                raise ValueError(f"{text!r}: one move per {seconds} s is not whole days per move")
            return TimeControl(ClockKind.CORRESPONDENCE, days_per_move=days)
        base += int(seconds)
        if index == len(periods) - 1 and bonus is not None:
            increment = int(bonus)
    if base == 0 and increment == 0:
        raise ValueError(f"{text!r}: a clock needs a base time or an increment")
    return TimeControl(ClockKind.CLOCKED, base=base, increment=increment)


def _sentence(text: str, stripped: str) -> TimeControl:
    base = 0
    increment: int | None = None
    days: int | None = None
    for part in stripped.split("+"):
        part = _MOVES.sub(" ", part)
        amounts = [int(value) * _UNIT[unit[0].lower()] for value, unit in _AMOUNT.findall(part)]
        units = [unit[0].lower() for _, unit in _AMOUNT.findall(part)]
        if not amounts:
            raise ValueError(f"{text!r}: no time in {part.strip()!r}")
        if "d" in units:
            if len(amounts) != 1 or not _PER_MOVE.search(part):
                raise ValueError(f"{text!r}: days are read only as 'N days per move'")
            days = amounts[0] // _SECONDS_PER_DAY
        elif _PER_MOVE.search(part):
            if increment is not None or len(amounts) != 1:
                raise ValueError(f"{text!r}: more than one increment")
            increment = amounts[0]
        else:
            base += sum(amounts)
    if days is not None:
        if base or increment:
            raise ValueError(f"{text!r}: days per move with a clock")
        return TimeControl(ClockKind.CORRESPONDENCE, days_per_move=days)
    if base == 0 and not increment:
        raise ValueError(f"{text!r}: a clock needs a base time or an increment")
    return TimeControl(ClockKind.CLOCKED, base=base, increment=increment or 0)
