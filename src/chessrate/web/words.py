"""The systems' formulas in words, for the pages.

A change's note is the system's text (``system.note``): the API answers it as it is
and the conformance data compares it, so it stays terse (``0.04 × diff 72.96 +16 =
+18.92``). The pages show the same numbers with words around them, as site's notes
already read (``expected 0.50 (opponent 1500.00); K 32 × (1 − 0.50) = +16.00``):
:func:`in_words` rewrites the terse formulas of corr (C5/C6) and arena (A6, A7, A10)
and leaves every other text as it is.
"""

from __future__ import annotations

import re

NUMBER = r"[+-]?\d+(?:\.\d+)?"

CORR_FORMULA = re.compile(
    rf"(?P<factor>{NUMBER}) × diff (?P<diff>{NUMBER})"
    rf"(?: \(clamped from (?P<raw>{NUMBER})\))? (?P<bonus>[+-]\d+(?:\.\d+)?) = "
    rf"(?P<result>{NUMBER})"
)
"""corr C5: ``factor × diff D (clamped from R) ±bonus = result``."""

ARENA_FORMULA = re.compile(
    rf"D = (?P<d>[^;→]+?) → PD (?P<pd>{NUMBER}); (?P<score>{NUMBER}|½) − (?P=pd) = "
    rf"(?P<delta>{NUMBER}) × K (?P<k>\d+) = (?P<change>{NUMBER})"
)
"""arena A7: ``D = d → PD p; score − p = delta × K k = change``."""

ARENA_FIRST = re.compile(
    r"^Ra = (?P<ra>[^,]+), s = (?P<s>[^:]+): (?P<how>.*?) = (?P<rf>\S+?)(?=;|$)"
)
"""arena A6: ``Ra = mean, s = points: how = Rf``."""


def _bonus_words(bonus: str) -> str:
    if bonus.lstrip("+-") in ("0", "0.00"):
        return f"{bonus} for the draw"
    return f"{bonus} for the {'loss' if bonus.startswith('-') else 'win'}"


def _corr(found: re.Match[str]) -> str:
    raw = found.group("raw")
    clamp = f" (clamped from {raw})" if raw else ""
    return (
        f"{found.group('factor')} × the rating difference {found.group('diff')}{clamp}, "
        f"{_bonus_words(found.group('bonus'))} = {found.group('result')}"
    )


def _arena(found: re.Match[str]) -> str:
    return (
        f"rating difference D = {found.group('d')} → expected score PD {found.group('pd')}; "
        f"score {found.group('score')} − expected {found.group('pd')} = {found.group('delta')}"
        f" × K {found.group('k')} = {found.group('change')}"
    )


def _first(found: re.Match[str]) -> str:
    how = found.group("how")
    how = how.replace("Rf = Ra", "first rating Rf = Ra").replace("p = ", "share of points p = ")
    how = how.replace("+ dp (", "+ dp from the table (")
    return (
        f"the opponents' mean rating Ra = {found.group('ra')}, points s = {found.group('s')}: "
        f"{how} = {found.group('rf')}"
    )


def in_words(text: str) -> str:
    """``text`` with corr's and arena's formulas in words (``0.04 × diff 72.96 +16 =
    +18.92`` → ``0.04 × the rating difference 72.96, +16 for the win = +18.92``);
    any other text unchanged."""
    text = CORR_FORMULA.sub(_corr, text)
    text = ARENA_FORMULA.sub(_arena, text)
    text = ARENA_FIRST.sub(_first, text)
    return text.replace("against a unrated", "against an unrated")


__all__ = ["in_words"]
