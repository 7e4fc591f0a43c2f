"""Time controls: parsing and the estimated duration (the game record's ``time_control``).

Accepted forms:

* PGN seconds: ``300+3``, ``60`` (a bare number or number pair is seconds);
* with units: ``5m+3s``, ``3m + 2s``, ``15m``, ``90s``, ``1h+30s``;
* ``-``: no clock (unclocked);
* ``Nd``: N days per move (correspondence), e.g. ``3d``.

:func:`as_players_write` is the other way: a control as players write it (``3+2``,
``45+10``, ``unclocked``, ``3 days/move``); :func:`parse_written_time_control` reads
those of its forms that are not ambiguous too (``3 days/move``, ``unclocked``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

ESTIMATE_MOVES = 40
"""Estimated duration = base + 40 x increment (site S2)."""


class ClockKind(StrEnum):
    CLOCKED = "clocked"
    UNCLOCKED = "unclocked"
    CORRESPONDENCE = "correspondence"


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A parsed time control. ``base``/``increment`` are seconds (clocked games);
    ``days_per_move`` is set for correspondence."""

    kind: ClockKind
    base: int = 0
    increment: int = 0
    days_per_move: int = 0

    @property
    def correspondence(self) -> bool:
        """Days per move: a game played over days or weeks, beside any other."""
        return self.kind is ClockKind.CORRESPONDENCE

    @property
    def estimated_seconds(self) -> int | None:
        """base + 40 x increment, or None for games without a clock."""
        if self.kind is not ClockKind.CLOCKED:
            return None
        return self.base + ESTIMATE_MOVES * self.increment

    @property
    def minutes_increment(self) -> tuple[int, int] | None:
        """(base minutes, increment seconds) when the base is whole minutes."""
        if self.kind is not ClockKind.CLOCKED or self.base % 60:
            return None
        return self.base // 60, self.increment

    def __str__(self) -> str:
        if self.kind is ClockKind.UNCLOCKED:
            return "-"
        if self.kind is ClockKind.CORRESPONDENCE:
            return f"{self.days_per_move}d"
        return f"{self.base}+{self.increment}"

    def describe(self) -> str:
        """Human form: ``5m+3s``, ``unclocked``, ``3 days per move``."""
        if self.kind is ClockKind.UNCLOCKED:
            return "unclocked"
        if self.kind is ClockKind.CORRESPONDENCE:
            return f"{self.days_per_move} day{'s' if self.days_per_move != 1 else ''} per move"
        base = f"{self.base // 60}m" if self.base % 60 == 0 else f"{self.base}s"
        return base if not self.increment else f"{base}+{self.increment}s"


_UNIT_SECONDS = {"h": 3600, "m": 60, "s": 1, "": 1}
_PART = r"\s*(\d+)\s*(h|m|s|)\s*"
_CLOCKED = re.compile(rf"^{_PART}(?:\+{_PART})?$", re.IGNORECASE)
_DAYS = re.compile(r"^\s*(\d+)\s*d\s*$", re.IGNORECASE)


MAX_CLOCK_SECONDS = 7 * 24 * 3600
"""The longest base time or increment of a clock (a week: longer is correspondence)."""
MAX_DAYS_PER_MOVE = 365


def parse_time_control(text: str) -> TimeControl:
    """Parse a time control; raises ``ValueError`` with the reason on bad input."""
    stripped = text.strip()
    if stripped == "-":
        return TimeControl(ClockKind.UNCLOCKED)
    days = _DAYS.match(stripped)
    if days:
        count = int(days.group(1))
        if count < 1 or count > MAX_DAYS_PER_MOVE or len(days.group(1)) > 4:
            raise ValueError(f"{text!r}: days per move must be from 1 to {MAX_DAYS_PER_MOVE}")
        return TimeControl(ClockKind.CORRESPONDENCE, days_per_move=count)
    match = _CLOCKED.match(stripped)
    if not match or not stripped:
        raise ValueError(
            f"{text!r} is not a time control (expected e.g. '300+3', '5m+3s', '15m', '-' or '3d')"
        )
    base_value, base_unit, inc_value, inc_unit = match.groups()
    if len(base_value) > 9 or (inc_value is not None and len(inc_value) > 9):
        raise ValueError(f"{text!r}: too long a clock (at most {MAX_CLOCK_SECONDS:,} s)")
    base = int(base_value) * _UNIT_SECONDS[base_unit.lower()]
    increment = 0
    if inc_value is not None:
        if inc_unit.lower() in ("h", "m"):
            raise ValueError(f"{text!r}: the increment is given in seconds")
        increment = int(inc_value)
    if base == 0 and increment == 0:
        raise ValueError(f"{text!r}: a clock needs a base time or an increment")
    if base > MAX_CLOCK_SECONDS or increment > MAX_CLOCK_SECONDS:
        raise ValueError(f"{text!r}: too long a clock (at most {MAX_CLOCK_SECONDS:,} s)")
    return TimeControl(ClockKind.CLOCKED, base=base, increment=increment)


_WRITTEN_DAYS = re.compile(r"^\s*(\d+)\s*days?\s*(?:/\s*|per\s+)move\s*$", re.IGNORECASE)


def parse_written_time_control(text: str) -> TimeControl:
    """:func:`parse_time_control`'s forms, and the correspondence and unclocked forms
    that :func:`as_players_write` and :meth:`TimeControl.describe` write (``1 day/move``,
    ``3 days/move``, ``3 days per move``, ``unclocked``), so that a control the API
    answers can be sent back as it is. Players' clocked form (``3+2``: minutes) is not
    read so: ``3+2`` stays 3 seconds + 2 s, as in a PGN file. Raises ``ValueError``."""
    stripped = text.strip()
    if stripped.lower() == "unclocked":
        return TimeControl(ClockKind.UNCLOCKED)
    written = _WRITTEN_DAYS.match(stripped)
    if written:
        digits = written.group(1)
        if len(digits) > 4 or not 1 <= int(digits) <= MAX_DAYS_PER_MOVE:
            raise ValueError(f"{text!r}: days per move must be from 1 to {MAX_DAYS_PER_MOVE}")
        return TimeControl(ClockKind.CORRESPONDENCE, days_per_move=int(digits))
    try:
        return parse_time_control(text)
    except ValueError as error:
        if "is not a time control" not in str(error):
            raise
        raise ValueError(
            f"{text!r} is not a time control (expected e.g. '300+3', '5m+3s', '15m', '-', "
            "'3d' or '3 days/move')"
        ) from None


_FRACTIONS = {0: "", 15: "¼", 30: "½", 45: "¾"}


def as_players_write(control: TimeControl | str | None) -> str:
    """A time control as players write it: minutes + increment seconds (``3+2``,
    ``45+10``, ``½+0`` for 30 seconds, ``1½+0``), ``unclocked``, ``3 days/move``; a
    base that is not a quarter minute stays in seconds (``100s+2``). A stored control
    (``"180+2"``, ``"-"``, ``"3d"``) is parsed first; None (no control) is ``—``."""
    if control is None:
        return "—"
    if isinstance(control, str):
        control = parse_time_control(control)
    if control.kind is ClockKind.UNCLOCKED:
        return "unclocked"
    if control.kind is ClockKind.CORRESPONDENCE:
        days = control.days_per_move
        return f"{days} day{'s' if days != 1 else ''}/move"
    minutes, seconds = divmod(control.base, 60)
    if seconds in _FRACTIONS:
        base = f"{minutes or ''}{_FRACTIONS[seconds]}" or "0"
    else:
        base = f"{control.base}s"
    return f"{base}+{control.increment}"
