"""Search that folds case and accents for any script: ``Novák`` is found by ``novak``,
``Иван`` by ``иван``, ``Straße`` by ``strasse``.

A player's ``search`` column (:mod:`chessrate.ledger.schema`) holds the folded id and
name; a query is folded the same way and matched with ``LIKE`` whose wildcards
(``%``, ``_``) and escape character are escaped, so they match themselves.
"""

from __future__ import annotations

import unicodedata

ESCAPE = "\\"
# Latin letters with a stroke or a ligature, which no Unicode decomposition takes apart
# (``Łukasz`` ↔ ``lukasz``, ``Øystein`` ↔ ``oystein``); applied after case folding.
STROKES = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ħ": "h", "ŧ": "t", "ı": "i",
                         "æ": "ae", "œ": "oe", "þ": "th", "ð": "d"})  # fmt: skip


def fold(text: str) -> str:
    """``text`` as search compares it: compatibility-decomposed (NFKD), without its
    combining marks (accents, diaeresis, …), case-folded (Unicode ``casefold``: ß → ss,
    Σ/ς → σ), stroked Latin letters plain (ł → l, ø → o)."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare.casefold().translate(STROKES))


def search_key(player_id: str, name: str | None) -> str:
    """What a player's ``search`` column stores: the folded id and name, one per line
    (a query never holds a line break, so it matches within one of them)."""
    return fold(player_id) if not name else f"{fold(player_id)}\n{fold(name)}"


def contains_pattern(query: str) -> str:
    """A ``LIKE`` pattern (escape character ``\\``) for the folded ``query`` anywhere in
    the text: its ``%``, ``_`` and ``\\`` match themselves."""
    folded = fold(query)
    for special in (ESCAPE, "%", "_"):
        folded = folded.replace(special, ESCAPE + special)
    return f"%{folded}%"


__all__ = ["ESCAPE", "contains_pattern", "fold", "search_key"]
