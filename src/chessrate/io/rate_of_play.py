"""A tournament's rate of play as arbiters write it (a TRF file's ``122`` record), read
as the minutes each player has for 60 moves: the measure of FIDE's rate-of-play rules
(1.1: standard; rapid and blitz 1.1.1, 1.1.2: "the time allotted + 60 times any
increment").

What is read (case and spacing free):

* amounts with a unit: ``90 minutes``, ``90 min.``, ``90'``, ``1h``, ``1 hour``,
  ``30 seconds``, ``30 sec``, ``30 s.``, ``30"`` or ``30''``;
* ``A+B`` or ``A + B`` without units: A minutes plus B seconds a move (``90+30``);
* ``M/T``: T minutes for M moves (``40/120, 60``: 120 minutes, then 60);
* a bare number: minutes (``60``); a number followed by ``moves`` counts nothing
  (``after 40 moves``).

Every minute amount is time allotted; every seconds amount is an increment a move, so
it adds itself in minutes over 60 moves (30 seconds a move: 30 minutes). Text with no
amount (``Standard``, blank) reads as nothing (:data:`None`).
"""

from __future__ import annotations

import re
from decimal import Decimal

_AMOUNT = re.compile(
    r"(?P<moves>\d+)\s*/\s*(?P<per>\d+(?:[.,]\d+)?)"  # 40/120: 120 minutes for 40 moves
    r"|(?P<a>\d+(?:[.,]\d+)?)\s*\+\s*(?P<b>\d+(?:[.,]\d+)?)(?!\s*(?:[a-z'\"]))"  # 90+30
    r"|(?P<value>\d+(?:[.,]\d+)?)\s*"
    r"(?P<unit>hours?\b|hrs?\b|h\b|minutes?\b|mins?\b\.?|m\b|''|'|\"|seconds?\b|secs?\b\.?|s\b"
    r"|moves?\b)?",
    re.IGNORECASE,
)
_MINUTES = {"hour": Decimal(60), "hours": Decimal(60), "hr": Decimal(60), "hrs": Decimal(60),
            "h": Decimal(60)}  # fmt: skip


def minutes_for_60_moves(text: str) -> Decimal | None:
    """The minutes a player has for 60 moves at this rate of play (see the module), or
    None when the text gives no amount."""
    total = Decimal(0)
    found = False
    for match in _AMOUNT.finditer(text):
        if match.group("per") is not None:
            total += _number(match.group("per"))
            found = True
            continue
        if match.group("a") is not None:
            total += _number(match.group("a")) + _number(match.group("b"))
            found = True
            continue
        value = _number(match.group("value"))
        unit = (match.group("unit") or "").lower().rstrip(".")
        if unit.startswith("move"):
            continue
        found = True
        if unit in _MINUTES:
            total += value * _MINUTES[unit]
        elif unit in ('"', "''") or unit.startswith("s"):
            total += value  # seconds a move, over 60 moves: that many minutes
        else:
            total += value  # minutes (or no unit: minutes)
    return total if found else None


def _number(text: str) -> Decimal:
    return Decimal(text.replace(",", "."))
