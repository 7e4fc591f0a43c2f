"""The pure-Python PGN tag scanner: the reference that the compiled one follows.

:func:`scan_text` finds the complete games of a piece of decoded text: each game's
first line and its tags (escapes undone, the last of a repeated tag winning), and
where the first incomplete game starts, to be scanned again with the next piece.
:func:`section_tags` reads one tag section. How games are told apart, and where that
differs from python-chess, is in ``docs/internals.md`` ("PGN reading").
"""

from __future__ import annotations

import re

Tags = dict[str, str]
"""One game's tags: name to value, in file order."""

_HEAD = re.compile(r"\[[^\n]*\n(?:[\[%;][^\n]*\n)*")
"""A tag section: lines starting with ``[``, and ``%``/``;`` lines among them."""
_TAIL = re.compile(
    r"""
    (?: ^%[^\n]*+                      # % escape line
      | [^\n{;]++                      # moves, results, variations, NAGs
      | \{[^}]*+\}                     # brace comment (may span lines, hold [ and ")
      | ;[^\n]*+                       # rest-of-line comment
      | \n(?!\[)                       # a line end not followed by a tag line
    )*+
    """,
    re.MULTILINE | re.VERBOSE,
)
"""Movetext, up to the line end before the next line that starts with ``[``."""
_TAG = re.compile(r'^\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+"([^\r\n]*)"\][ \t]*\r?$', re.MULTILINE)
"""One tag pair: python-chess's ``TAG_REGEX`` (the value runs to the last ``"]``)."""
_TAG_NAME = re.compile(r"\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)")
_VALID_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#=:-]*")
_ESCAPE = re.compile(r'\\(["\\])')
_known_names: set[str] = set()


def unescape(value: str) -> str:
    """A tag value with its ``\\"`` and ``\\\\`` escapes undone."""
    return _ESCAPE.sub(r"\1", value)


def _unescape(tags: Tags) -> Tags:
    return {name: unescape(value) for name, value in tags.items()}


def _slow_tags(text: str, start: int, end: int) -> Tags:
    """The tag pairs of ``text[start:end]`` by python-chess's tag regex, escapes undone."""
    tags = dict(_TAG.findall(text, start, end))
    if text.find("\\", start, end) != -1:
        tags = _unescape(tags)
    return tags


def _check_names(tags: Tags) -> bool:
    for name in tags:
        if name not in _known_names:
            if not _VALID_NAME.fullmatch(name):
                return False
            if len(_known_names) < 10_000:
                _known_names.add(name)
    return True


def section_tags(text: str, pos: int) -> tuple[Tags, int]:
    """The tags of the tag section at ``pos`` and where the section ends.

    Fast path: the section is every line up to the first blank line, each exactly
    ``[Name "Value"]`` (checked by counting), split into names and values by C string
    methods; anything else takes the regex path."""
    blank = text.find("\n\n", pos)
    if blank != -1:
        head_end = blank + 1
        block = text[pos:head_end]
        lines = block.count("\n")
        if (
            block.count('"]\n[') == lines - 1
            and block.endswith('"]\n')
            and block.count('"') == 2 * lines
            and "\\" not in block
        ):
            items = block[1:-3].replace('"]\n[', ' "').split(' "')
            if len(items) == 2 * lines:
                pairs = iter(items)
                tags = dict(zip(pairs, pairs, strict=False))  # len checked: even
                if _known_names.issuperset(tags) or _check_names(tags):
                    return tags, head_end
    head_end = _HEAD.match(text, pos).end()  # type: ignore[union-attr]
    return _slow_tags(text, pos, head_end), head_end


def scan_text(text: str, line: int, final: bool, out: list[tuple[int, Tags]]) -> tuple[int, int]:
    """Append the complete games of ``text`` (whose first line is ``line``) to ``out``.
    ``text`` starts at a game or at the input's start, and ends with a line end
    unless ``final`` (the input's end).

    Returns (offset, line) of the first incomplete game, to be scanned again with the
    next chunk appended (``len(text)`` when every game was complete).

    The fast path per game, all in C string methods: the tag section by
    :func:`section_tags`; the movetext runs to the next line with ``[`` when
    the text has no ``;`` comment, no ``%`` line and that line is not inside a brace
    comment (the last brace before it closes). Anything else takes the regex path."""
    size = len(text)
    find = text.find
    rfind = text.rfind
    count = text.count
    plain_movetext = ";" not in text and "\n%" not in text
    braces = "{" in text
    pos = 0
    if not text.startswith("["):  # text before the first game: skip it like movetext
        skipped = _TAIL.match(text, 0).end()  # type: ignore[union-attr]
        if skipped >= size or text[skipped] != "\n":
            return (size, line + count("\n")) if final else (0, line)
        pos = skipped + 1
    last = 0
    # a header-only game followed by one blank line: the next tag section may go on with
    # it (python-chess's one blank line inside a tag section); (offset, line, tags)
    pending: tuple[int, int, Tags] | None = None
    while pos < size:
        line += count("\n", last, pos)
        last = pos
        tags, head_end = section_tags(text, pos)
        # the movetext
        end = find("\n[", head_end)
        if end == -1 or not (
            end == head_end
            or (
                (
                    plain_movetext
                    or (find(";", head_end, end) == -1 and find("\n%", head_end - 1, end) == -1)
                )
                and (not braces or rfind("{", head_end, end) <= rfind("}", head_end, end))
            )
        ):
            end = _TAIL.match(text, head_end).end()  # type: ignore[union-attr]
        complete = end < size and text[end] == "\n"
        if not complete:  # reached the end of the text, or an open comment
            if not final:
                return (pending[0], pending[1]) if pending is not None else (pos, line)
            end = size
        game_start, game_line = pos, line
        if pending is not None:
            first = _TAG_NAME.match(text, pos)
            if first is None or first.group(1) not in pending[2]:
                pending[2].update(tags)  # one blank line inside a tag section
                game_start, game_line, tags = pending
            else:
                out.append((pending[1], pending[2]))
            pending = None
        pos = end + 1
        gap = text[head_end:end] if complete and end - head_end < 8 else "x"
        if not gap.strip() and "\n" not in gap:  # no movetext and one blank line
            pending = (game_start, game_line, tags)
            continue
        out.append((game_line, tags))
    if pending is not None:
        out.append((pending[1], pending[2]))
    return size, line + count("\n", last)
