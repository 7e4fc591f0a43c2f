"""How the pages write numbers and moments: one helper each, used by the templates and
the charts."""

from __future__ import annotations

from datetime import UTC, datetime


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


def moment_text(moment: datetime) -> str:
    """A moment as the pages write it: ``2024-03-02 14:05 UTC``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
