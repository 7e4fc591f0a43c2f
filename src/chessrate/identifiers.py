"""The rules of an id and of free text, for every way in (records, API bodies, PGN
tags, TRF names, the pages' forms).

Ids (of games, players, live games) are 1 to ``ID_LONGEST`` (200) characters of any
script, without a control character (C0, DEL, C1), without ``/``, not starting or
ending with whitespace, without a character that shows nothing or turns the text around
(the bidirectional controls U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C and
the zero-width U+200B–U+200D, U+2060, U+FEFF: with them one id looks like another in
every list; but a joiner where a script needs one, after a virama or a non-joiner
between Arabic-script letters, as IDNA allows them: :func:`_joiner_in_context`), in
Unicode NFC (:func:`id_refusal` says why a text is not one). An id
arrives normalised: :func:`normal_id` turns every way of writing it in (an API body,
a file, a PGN tag, the library's readers) into NFC before it is checked, and the
service normalises the paths and queries that name one, so the NFD spelling of
``Novák`` finds the player ``Novák`` and is never a second player. No ``/``:
an id is one segment of the API's paths (``/api/v1/players/{id}``,
``/api/v1/games/{id}``), which a ``/`` would split (and a ``Location`` header would
point to a 404). PGN ``Link`` and ``GameId`` URLs become ids without ``/``
(:func:`chessrate.io.pgn.tags.id_from_url`). Ids stored before the rule keep working
(the pages' paths take a ``/``); new records cannot name them. The same for ids stored
before the NFC and invisible-character rules: they are not rewritten (the history
stays as it was written); ``chessrate verify`` lists them (:func:`stored_id_problem`).
"""

from __future__ import annotations

import re
import unicodedata

CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""A control character (C0, DEL, C1): never in an id."""
ID_LONGEST = 200
"""The longest id, in characters."""
TEXT_LONGEST = 1000
"""The longest text field (a reason, a time control), in characters."""
NAME_LONGEST = 200
"""The longest name, in characters."""
PLAIN_ID = re.compile(rf"[!-.0-~]{{1,{ID_LONGEST}}}")
"""Ids ``chessrate.records.FieldReader.ident`` accepts as they are (printable ASCII
without a space or ``/``): the columnar readers take such a cell without asking it."""
BIDI_CONTROL = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""The bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069):
left open in a text, one turns the rest of its line around (the pages show a free text
holding one without it: :func:`chessrate.web.pages.said`)."""
INVISIBLE = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b-\u200d\u2060\ufeff]")
"""The characters no id holds: the bidirectional controls (U+202A–U+202E embeddings and
overrides, U+2066–U+2069 isolates, U+200E/U+200F marks, U+061C the Arabic letter mark)
and the zero-width ones (U+200B–U+200D, U+2060, U+FEFF): they show nothing, or turn
the text around, so an id holding one looks like another."""
_INVISIBLE_KIND = {"\u200b": "a zero-width space", "\u200c": "a zero-width non-joiner",
                   "\u200d": "a zero-width joiner", "\u2060": "a word joiner",
                   "\ufeff": "a zero-width no-break space"}  # fmt: skip


def normal_id(value: str) -> str:
    """``value`` in Unicode NFC, the one spelling of an id: what every way in stores and
    looks up (an ASCII text is already NFC)."""
    return value if value.isascii() else unicodedata.normalize("NFC", value)


ZWNJ, ZWJ = "\u200c", "\u200d"
VIRAMA = 9
"""The canonical combining class of a virama (Devanagari's U+094D and its kin)."""
ARABIC_JOINING = re.compile(
    "[\u0620\u0622-\u064a\u066e-\u0673\u0675-\u06d3\u06d5\u06ee\u06ef\u06fa-\u06fc"
    "\u06ff\u0750-\u077f\u08a0-\u08c8]"
)
"""Arabic-script letters (Persian, Urdu, ... included) that join a neighbour: all but
the non-joining hamza (U+0621, U+0674); the presentation forms are not letters one
types."""
RIGHT_JOINING = re.compile(
    "[\u0622-\u0625\u0627\u0629\u062f-\u0632\u0648\u0671-\u0673\u0675-\u0677"
    "\u0688-\u0699\u06c0\u06c3-\u06cb\u06cd\u06cf\u06d2\u06d3\u06d5\u06ee\u06ef"
    "\u0759-\u075b\u076b\u076c\u0771\u0773\u0774\u0778\u0779\u08aa-\u08ac\u08ae"
    "\u08b1\u08b2\u08b9]"
)
"""Of those, the letters that join only the letter before them (alef, dal, reh, waw,
...: Unicode's ArabicShaping.txt, joining type R): a non-joiner after one changes
nothing that shows."""


def _joiner_in_context(value: str, at: int) -> bool:
    """Whether the joiner (ZWJ or ZWNJ) at ``at`` is where a script needs one, as
    IDNA's CONTEXTJ rules allow it (RFC 5892, appendix A.1-A.2): after a virama
    (Indic conjuncts), or, for a non-joiner, after an Arabic-script letter that joins
    the next one and before a letter that joins (Persian's mi-khaham). There it
    changes how the word is drawn, so the id does not look like the one without it."""
    before = value[at - 1] if at > 0 else ""
    if before and unicodedata.combining(before) == VIRAMA:
        return True
    after = value[at + 1] if at + 1 < len(value) else ""
    return (
        value[at] == ZWNJ
        and bool(before and ARABIC_JOINING.match(before) and not RIGHT_JOINING.match(before))
        and bool(after and ARABIC_JOINING.match(after))
    )


def _invisible_problem(value: str) -> str | None:
    found = next(
        (
            m for m in INVISIBLE.finditer(value)
            if m.group() not in (ZWJ, ZWNJ) or not _joiner_in_context(value, m.start())
        ),
        None,
    )  # fmt: skip
    if found is None:
        return None
    char = found.group()
    kind = _INVISIBLE_KIND.get(char, "a bidirectional control")
    return (
        f"{value!r} is not a valid id: it holds U+{ord(char):04X} ({kind}), which shows "
        "nothing or turns the text around, so the id would look like another"
    )


def stored_id_problem(value: str) -> str | None:
    """Why an id a ledger holds could not be given today although it was stored before
    the rule (not in NFC; an invisible or bidirectional character), or None.
    ``chessrate verify`` reports them; nothing rewrites them."""
    if value.isascii():
        return None
    if not unicodedata.is_normalized("NFC", value):
        return f"{value!r} is not in Unicode NFC (new ids are normalised to it)"
    return _invisible_problem(value)


def id_refusal(value: str, stored: bool = False) -> str | None:
    """Why ``value`` is not an id (see the module), or None when it is one:
    the one test of every way in (records, API bodies, PGN tags, TRF names), after
    :func:`normal_id`. ``stored``: an id read back from a ledger (a fide period's
    stored list and files, a player's stored attributes), which may hold a ``/``, an
    invisible character or another spelling than NFC from before the rules."""
    if not value:
        return "is required"
    if len(value) > ID_LONGEST:
        return f"is {len(value):,} characters long; at most {ID_LONGEST:,}"
    if "/" in value and not stored:
        return (
            f"{value!r} is not a valid id: '/' is not allowed in an id (the API's paths "
            "could not reach it)"
        )
    if CONTROL_CHARACTER.search(value):
        return f"{value!r} is not a valid id (no control characters)"
    if value[0].isspace() or value[-1].isspace():
        return f"{value!r} is not a valid id (no space at its start or end)"
    if not stored and not value.isascii():
        problem = _invisible_problem(value)
        if problem is not None:
            return problem
        if not unicodedata.is_normalized("NFC", value):
            return f"{value!r} is not a valid id: not in Unicode NFC (normalise it first)"
    return None


def text_problem(value: str) -> str | None:
    """Why ``value`` is not text a field may hold, or None. Text never holds a NUL
    character or half of a UTF-16 surrogate pair (no database stores them, and they
    are never what a person typed). The API's request models ask it of every string
    (:class:`chessrate.application.common.RequestModel`), and the ledger of every free
    text it stores (reasons, notes, moves: the pages' forms and library callers too)."""
    if "\x00" in value:
        return "must not contain a NUL character"
    if not value.isascii() and any("\ud800" <= c <= "\udfff" for c in value):
        return "must not contain a lone surrogate (not valid Unicode text)"
    return None
