"""Time controls (the spec, "The game record": time_control)."""

from __future__ import annotations

import pytest

from chessrate import TimeControl, parse_time_control
from chessrate.timecontrol import ClockKind


@pytest.mark.parametrize(
    ("text", "base", "increment", "estimated"),
    [
        ("300+3", 300, 3, 420),  # 300 + 40 x 3
        ("5m+3s", 300, 3, 420),
        ("3m + 2s", 180, 2, 260),
        ("3m+2", 180, 2, 260),
        ("15m", 900, 0, 900),
        ("60", 60, 0, 60),
        ("600+10", 600, 10, 1000),
        ("10m+10s", 600, 10, 1000),
        ("90s", 90, 0, 90),
        ("1h+30s", 3600, 30, 4800),
        ("0+1", 0, 1, 40),
        (" 5M+3S ", 300, 3, 420),
    ],
)
def test_clocked_controls(text: str, base: int, increment: int, estimated: int) -> None:
    """PGN seconds (a bare number or number pair is seconds) and forms with units;
    estimated duration = base + 40 x increment."""
    control = parse_time_control(text)
    assert control.kind is ClockKind.CLOCKED
    assert (control.base, control.increment) == (base, increment)
    assert control.estimated_seconds == estimated


def test_unclocked() -> None:
    """`-` = no clock; it has no estimated duration."""
    control = parse_time_control("-")
    assert control.kind is ClockKind.UNCLOCKED
    assert control.estimated_seconds is None
    assert control.minutes_increment is None
    assert str(control) == "-"


@pytest.mark.parametrize(("text", "days"), [("3d", 3), ("1d", 1), ("14d", 14), (" 3D ", 3)])
def test_correspondence(text: str, days: int) -> None:
    """`Nd` = N days per move (correspondence); no estimated duration."""
    control = parse_time_control(text)
    assert control.kind is ClockKind.CORRESPONDENCE
    assert control.days_per_move == days
    assert control.estimated_seconds is None
    assert str(control) == f"{days}d"


@pytest.mark.parametrize(
    ("text", "minutes_increment"),
    [("600+10", (10, 10)), ("5m+3s", (5, 3)), ("15m", (15, 0)), ("60", (1, 0)), ("90", None)],
)
def test_minutes_increment(text: str, minutes_increment: tuple[int, int] | None) -> None:
    assert parse_time_control(text).minutes_increment == minutes_increment


@pytest.mark.parametrize(
    ("text", "canonical", "described"),
    [
        ("5m+3s", "300+3", "5m+3s"),
        ("15m", "900+0", "15m"),
        ("90", "90+0", "90s"),
        ("3d", "3d", "3 days per move"),
        ("1d", "1d", "1 day per move"),
        ("-", "-", "unclocked"),
    ],
)
def test_str_and_describe(text: str, canonical: str, described: str) -> None:
    control = parse_time_control(text)
    assert str(control) == canonical
    assert control.describe() == described
    assert parse_time_control(str(control)) == control


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "abc",
        "5+",
        "+3",
        "5m+3m",  # increment in minutes
        "5m+1h",
        "0",
        "0+0",
        "0d",
        "3x",
        "1.5m",
        "300+3+2",
        "--",
        "-5",
        "3 days",
        "5m3s",
    ],
)
def test_garbage_is_rejected(text: str) -> None:
    """A value that is not a time control raises ValueError with the reason."""
    with pytest.raises(ValueError, match=r"."):
        parse_time_control(text)


def test_time_control_is_a_value() -> None:
    assert parse_time_control("300+3") == parse_time_control("5m+3s")
    assert parse_time_control("300+3") == TimeControl(ClockKind.CLOCKED, base=300, increment=3)
