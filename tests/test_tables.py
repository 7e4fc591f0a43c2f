"""FIDE Tables A and B (the spec, "FIDE tables A and B"), checked entry by entry
against the fixtures transcribed from seed 002 (tests/data/README.md)."""

from __future__ import annotations

import csv
from decimal import Decimal
from itertools import pairwise
from pathlib import Path

import pytest

from chessrate import dp_for_fraction, expected_score, expected_scores

DATA = Path(__file__).parent / "data"
D = Decimal


def _rows(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


TABLE_A = {D(row["p"]): int(row["dp"]) for row in _rows("seed002_table_a.csv")}
TABLE_B = [
    (
        int(row["d_min"]),
        int(row["d_max"]) if row["d_max"] else None,
        D(row["pd_h"]),
        D(row["pd_l"]),
    )
    for row in _rows("seed002_table_b.csv")
]


def _band(d: int) -> tuple[Decimal, Decimal]:
    """The fixture's (PD_H, PD_L) for a whole difference d."""
    for low, high, pd_h, pd_l in TABLE_B:
        if low <= d and (high is None or d <= high):
            return pd_h, pd_l
    raise AssertionError(f"D {d} is in no band of the fixture")


def test_fixtures_are_complete() -> None:
    """The fixtures cover p 0.00..1.00 (101 rows) and D 0..735 plus "over 735"."""
    assert sorted(TABLE_A) == [D(n) / 100 for n in range(101)]
    assert TABLE_B[0][0] == 0
    assert TABLE_B[-1][:2] == (736, None)
    for (_, high, _, _), (low, _, _, _) in pairwise(TABLE_B):
        assert high is not None
        assert low == high + 1


@pytest.mark.parametrize("hundredths", range(101))
def test_table_a_every_entry(hundredths: int) -> None:
    """Table A: dp for every p in 0.00..1.00 equals the seed's table."""
    p = D(hundredths) / 100
    assert dp_for_fraction(p) == TABLE_A[p]


def test_table_a_ends() -> None:
    """Table A: p = 1.00 -> +800, p = 0.00 -> -800 (seeds 000/002)."""
    assert dp_for_fraction(D("1.00")) == 800
    assert dp_for_fraction(D("0.00")) == -800
    assert dp_for_fraction(D(1)) == 800
    assert dp_for_fraction(D(0)) == -800


@pytest.mark.parametrize("hundredths", range(101))
def test_table_a_is_symmetric(hundredths: int) -> None:
    """Table A: dp(p) == -dp(1 - p)."""
    p = D(hundredths) / 100
    assert dp_for_fraction(p) == -dp_for_fraction(1 - p)


@pytest.mark.parametrize(
    ("points", "games", "dp"),
    [
        (D(2), D(9), -220),  # 2/9 = 0.222... -> 0.22 -> -220
        (D(7), D(9), 220),  # 0.777... -> 0.78 -> +220
        (D(1), D(3), -125),  # 0.333... -> 0.33 -> -125
        (D(1), D(8), -322),  # 0.125 -> 0.13 (half up, not 0.12 -> -336) -> -322
        (D(3), D(8), -87),  # 0.375 -> 0.38 -> -87
        (D(5), D(8), 95),  # 0.625 -> 0.63 -> +95
        (D("4.5"), D(9), 0),  # 0.5
    ],
)
def test_table_a_p_is_rounded_half_up(points: Decimal, games: Decimal, dp: int) -> None:
    """The spec: p for a Table A look-up is rounded half up to two decimals (2/9 -> 0.22)."""
    assert dp_for_fraction(points / games) == dp


@pytest.mark.parametrize("d", range(1001))
def test_table_b_every_whole_difference(d: int) -> None:
    """Table B: for every D in 0..1000, (PD_H, PD_L) equals the fixture's band
    ("over 735" -> 1.00 / 0.00)."""
    assert expected_scores(D(d)) == _band(d)


@pytest.mark.parametrize(
    ("d", "pd_h"),
    [
        ("3.49", "0.50"),
        ("3.50", "0.51"),
        ("10.49", "0.51"),
        ("10.50", "0.52"),
        ("735.49", "0.99"),
        ("735.50", "1.00"),
        ("0.49", "0.50"),
        ("-3.50", "0.51"),
    ],
)
def test_table_b_fractional_d_is_rounded_half_up(d: str, pd_h: str) -> None:
    """The spec's decision: a fractional D is first rounded half up to an integer."""
    high, low = expected_scores(D(d))
    assert high == D(pd_h)
    assert low == 1 - D(pd_h)


def test_table_b_pd_of_each_side() -> None:
    """Table B: the higher rated gets PD_H, the lower PD_L (D 100 -> .64 / .36)."""
    assert expected_score(D("1800.00"), D("1700.00")) == D("0.64")
    assert expected_score(D("1700.00"), D("1800.00")) == D("0.36")
    assert expected_score(D("1800.00"), D("1800.00")) == D("0.50")
    assert expected_score(D("2600.00"), D("1800.00")) == D("1.00")
    assert expected_score(D("1800.00"), D("2600.00")) == D("0.00")
