"""How the pages write numbers and moments: one helper each, used by the templates and
the charts."""

from __future__ import annotations

from datetime import UTC, datetime

from ..errors import ChessrateError
from ..timecontrol import as_players_write


def signed(value: str | None) -> str:
    """A change with its sign (``+8.00``, ``-5.10``, ``±0`` for none)."""
    if value is None:
        return "±0"
    return value if value.startswith("-") else f"+{value}"


def signed_change(value: str | None) -> str:
    """A change as people read it: ``+8.00``, ``−5.10`` (a true minus sign)."""
    return signed(value).replace("-", "\u2212")


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
