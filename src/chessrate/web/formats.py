"""How the pages write numbers and moments: one helper each, used by the templates and
the charts."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from ..errors import ChessrateError
from ..timecontrol import as_players_write

MINUS = "\u2212"
"""The minus sign every page writes (the API's JSON keeps ASCII ``-``)."""
SIGN = re.compile(r"(?<![\w.\-\u2212])-(?=\d)")
"""A hyphen-minus used as a number's sign: before a digit, not after a letter, digit,
point or dash (so ``2026-05-01``, ``1-0`` and ids such as ``s-12`` keep theirs)."""


def minus(value: object) -> str:
    """A number, or a text with numbers in it (a change's note), as pages write it: each
    negative sign the minus sign (``-16.64`` → ``−16.64``); ``None`` is empty."""
    return "" if value is None else SIGN.sub(MINUS, str(value))


def signed(value: object) -> str:
    """A change with its sign, as pages write it: ``+8.00``, ``−5.10`` (the minus
    sign), ``±0`` for none."""
    if value is None:
        return "±0"
    text = str(value)
    return minus(text) if text.startswith("-") else f"+{text}"


def signed_change(value: str | None) -> str:
    """A change as people read it: ``+8.00``, ``−5.10`` (:func:`signed`)."""
    return signed(value)


def change_class(value: str | None) -> str:
    """The CSS class of a change: ``up`` (green), ``down`` (red) or ``even``."""
    if value is None or value.strip("-0.") == "":
        return "even"
    return "down" if value.startswith("-") else "up"


def moment_text(value: datetime | str | None, seconds: bool = False) -> str:
    """A moment as every page writes it: UTC, to the minute (or the second), the zone
    said: ``2024-03-02 14:05 UTC``. Takes the ISO text answers carry too; a moment
    without a zone is UTC."""
    if value is None or value == "":
        return ""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC" if seconds else "%Y-%m-%d %H:%M UTC")


def time_control_text(stored: str | None) -> str:
    """A stored time control as players write it (``3+2``, ``45+10``, ``unclocked``,
    ``3 days/move``; none: ``—``); a control the parser cannot read is shown as
    stored."""
    try:
        return as_players_write(stored)
    except (ChessrateError, ValueError):
        return stored or "—"


def seconds_text(seconds: int | None) -> str:
    """A wait as people say it: ``45 s``, ``3 min 05 s``, ``1 h 02 min``."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {rest:02} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02} min"
