"""The compiled PGN tag scanner: numba kernels over a UTF-8 byte buffer.

:func:`scan_buffer` does on bytes what :func:`~chessrate.io.pgn.scan_python.scan_text`
does on text, under the same contract (a buffer that starts at a game or at the
input's start and ends after a line end unless final; the games it completes; where
to go on), and returns the byte spans of every game, tag section and tag as
:class:`~chessrate.io.pgn.scan.TagSpans`: the two scanners can be swapped buffer by
buffer and give the same games. A section or a buffer it cannot read the way the
Python scanner would is marked (``FALLBACK``) or given back (``bailed``). For the
``wanted`` tags it also records the name's index and a hash of the value, for the
columnar reader. The rules it follows are in ``docs/internals.md`` ("PGN reading").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from .scan import FALLBACK, PLAIN, TagSpans

# byte values
_NL = 10
_CR = 13
_SPACE = 32
_TAB = 9
_QUOTE = 34
_BACKSLASH = 92
_LBRACKET = 91
_RBRACKET = 93
_LBRACE = 123
_RBRACE = 125
_SEMICOLON = 59
_PERCENT = 37

BAILED = 1
"""``status`` of a buffer the kernel gave up on: scan it with the Python scanner."""


@njit(cache=True, inline="always")
def _is_alnum(c: int) -> bool:
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122)


@njit(cache=True, inline="always")
def _is_name_char(c: int) -> bool:
    # [A-Za-z0-9_+#=:-]
    return _is_alnum(c) or c == 95 or c == 43 or c == 35 or c == 61 or c == 58 or c == 45


@njit(cache=True, inline="always")
def _maybe_space(c: int) -> bool:
    """A byte that str regex ``\\s`` (or str.strip) may take as whitespace, other
    than space and tab: \\v \\f \\r, \\x1c-\\x1f, and any non-ASCII byte."""
    return c == 11 or c == 12 or c == _CR or (28 <= c <= 31) or c >= 128


_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@njit(cache=True, inline="always")
def value_hash(b: Any, v0: int, v1: int, w: int) -> Any:
    """64-bit FNV-1a of a wanted tag's index ``w`` and its value bytes ``b[v0:v1]``,
    high bits folded into the low ones (a hash table takes the low bits)."""
    h = (_FNV_OFFSET ^ np.uint64(w)) * _FNV_PRIME
    for k in range(v0, v1):
        h = (h ^ np.uint64(b[k])) * _FNV_PRIME
    return h ^ (h >> np.uint64(29))


@njit(cache=True, inline="always")
def _wanted(
    b: Any, n0: int, n1: int, names: Any, name_at: Any, by_shape: Any, max_name: int
) -> int:
    """The index of tag name ``b[n0:n1]`` among the wanted names, or -1."""
    size = n1 - n0
    if size > max_name:
        return -1
    key = size * 256 + b[n0]
    for c in range(by_shape[key], by_shape[key + 1]):
        w0 = name_at[c]
        same = True
        for k in range(1, size):
            if names[w0 + k] != b[n0 + k]:
                same = False
                break
        if same:
            return c
    return -1


@njit(cache=True)
def plain_bytes(b: Any) -> tuple[bool, bool]:
    """(whether ``b`` holds a carriage return, whether it is all ASCII)."""
    high = 0
    for start in range(0, b.size, 1 << 16):
        cr = 0
        for i in range(start, min(start + (1 << 16), b.size)):
            c = b[i]
            cr |= c == _CR
            high |= c
        if cr:
            return True, high < 128
    return False, high < 128


_SPECIAL = np.zeros(256, np.bool_)
_SPECIAL[[_NL, _PERCENT, _SEMICOLON, _LBRACE]] = True


@njit(cache=True)
def _tail(b: Any, start: int, n: int) -> tuple[int, int]:
    """End of the movetext from ``start`` (``_TAIL``): the line end before the next
    line that starts with ``[``, or ``n``, or an unclosed ``{``; and the number of
    line ends before it."""
    special = _SPECIAL
    i = start
    lines = 0
    while i < n:
        c = b[i]
        if not special[c]:
            i += 1
        elif c == _NL:
            if i + 1 < n and b[i + 1] == _LBRACKET:
                return i, lines
            lines += 1
            i += 1
        elif c == _LBRACE:
            j = i + 1
            inside = 0
            while j < n and b[j] != _RBRACE:
                if b[j] == _NL:
                    inside += 1
                j += 1
            if j >= n:
                return i, lines  # an open comment: incomplete
            lines += inside
            i = j + 1
        else:  # a ; comment or a % line (at a line start), to the line end
            if c == _PERCENT and i > 0 and b[i - 1] != _NL:
                i += 1
                continue
            while i < n and b[i] != _NL:
                i += 1
    return n, lines


@njit(cache=True)
def _count_nl(b: Any, start: int, end: int) -> int:
    count = 0
    for i in range(start, end):
        if b[i] == _NL:
            count += 1
    return count


@njit(cache=True)
def _section(
    b: Any,
    pos: int,
    n: int,
    nt: int,
    t_n0: Any,
    t_n1: Any,
    t_v0: Any,
    t_v1: Any,
    t_esc: Any,
    t_w: Any,
    t_hash: Any,
    names: Any,
    name_at: Any,
    by_shape: Any,
    max_name: int,
) -> tuple[int, int, int, int]:
    """Read the tag section at ``pos`` (``_HEAD``): (end, tags appended, flags, line
    ends). A wanted tag (see :class:`Wanted`) gets its index and value hash."""
    plain = True
    fallback = False
    start_nt = nt
    i = pos
    lines = 0
    first = True
    while i < n:
        c = b[i]
        if not first and c != _LBRACKET and c != _PERCENT and c != _SEMICOLON:
            break
        first = False
        # the line [i, le)
        le = i
        quotes = 0
        has_cr = False
        has_bs = False
        while le < n:
            c = b[le]
            if c <= _BACKSLASH:
                if c == _NL:
                    break
                if c == _QUOTE:
                    quotes += 1
                elif c == _CR:
                    has_cr = True
                elif c == _BACKSLASH:
                    has_bs = True
            le += 1
        lines += 1
        c = b[i]
        if c != _LBRACKET:
            plain = False
            i = le + 1
            continue
        if has_cr:
            fallback = True
        # name
        j = i + 1
        ok = j < le and _is_alnum(b[j])
        if ok:
            j += 1
            while j < le and _is_name_char(b[j]):
                j += 1
            n0 = i + 1
            n1 = j
            # whitespace
            if j < le and (b[j] == _SPACE or b[j] == _TAB):
                if b[j] != _SPACE or j + 1 >= le or b[j + 1] != _QUOTE:
                    plain = False
                while j < le and (b[j] == _SPACE or b[j] == _TAB):
                    j += 1
                if j < le and b[j] == _QUOTE:
                    v0 = j + 1
                    t = le
                    while t > v0 and (b[t - 1] == _SPACE or b[t - 1] == _TAB):
                        t -= 1
                    if t != le:
                        plain = False
                    if t - 2 >= v0 and b[t - 1] == _RBRACKET and b[t - 2] == _QUOTE:
                        v1 = t - 2
                        if has_bs or quotes != 2:
                            plain = False
                        t_n0[nt] = n0
                        t_n1[nt] = n1
                        t_v0[nt] = v0
                        t_v1[nt] = v1
                        t_esc[nt] = has_bs
                        w = _wanted(b, n0, n1, names, name_at, by_shape, max_name)
                        t_w[nt] = w
                        if w >= 0:
                            t_hash[nt] = value_hash(b, v0, v1, w)
                        nt += 1
                    else:
                        ok = False
                else:
                    ok = False
                    if j < le and _maybe_space(b[j]):
                        fallback = True
            else:
                ok = False
                if j < le and _maybe_space(b[j]):
                    fallback = True
        if not ok:
            plain = False
        i = le + 1
    flags = 0
    if plain:
        flags |= PLAIN
    if fallback:
        flags |= FALLBACK
    if fallback:
        flags = FALLBACK
    if i > n:
        return n, nt - start_nt, flags, lines - 1
    return i, nt - start_nt, flags, lines


@njit(cache=True)
def _name_in(b: Any, n0: int, n1: int, t_n0: Any, t_n1: Any, start: int, end: int) -> bool:
    size = n1 - n0
    for t in range(start, end):
        if t_n1[t] - t_n0[t] == size:
            same = True
            for k in range(size):
                if b[t_n0[t] + k] != b[n0 + k]:
                    same = False
                    break
            if same:
                return True
    return False


@njit(cache=True)
def _scan(
    b: Any,
    line0: int,
    final: bool,
    g_line: Any,
    g_sec0: Any,
    g_sec1: Any,
    s_h0: Any,
    s_h1: Any,
    s_tag0: Any,
    s_tag1: Any,
    s_flag: Any,
    t_n0: Any,
    t_n1: Any,
    t_v0: Any,
    t_v1: Any,
    t_esc: Any,
    t_w: Any,
    t_hash: Any,
    names: Any,
    name_at: Any,
    by_shape: Any,
    max_name: int,
) -> tuple[int, int, int, int]:
    """(games, offset, line, status); see ``scan_python.scan_text`` for the game rules."""
    n = b.size
    ng = 0
    ns = 0
    nt = 0
    line = line0
    pos = 0
    if n > 0 and b[0] != _LBRACKET:  # text before the first game: skipped like movetext
        skipped, lines = _tail(b, 0, n)
        if skipped >= n or b[skipped] != _NL:
            if final:
                return 0, n, line + _count_nl(b, 0, n), 0
            return 0, 0, line, 0
        pos = skipped + 1
        line += lines + 1
    pending = False
    p_start = 0
    p_line = 0
    p_sec0 = 0
    while pos < n:
        head_end, added, flags, head_lines = _section(
            b, pos, n, nt, t_n0, t_n1, t_v0, t_v1, t_esc, t_w, t_hash, names, name_at, by_shape,
            max_name,
        )  # fmt: skip
        s_h0[ns] = pos
        s_h1[ns] = head_end
        s_tag0[ns] = nt
        s_tag1[ns] = nt + added
        s_flag[ns] = flags
        nt += added
        sec = ns
        ns += 1
        end, tail_lines = _tail(b, head_end, n)
        complete = end < n and b[end] == _NL
        game_line = line
        if complete:
            line += head_lines + tail_lines + 1
        else:
            if not final:
                if pending:
                    return ng, p_start, p_line, 0
                return ng, pos, line, 0
            line += _count_nl(b, pos, n)
            end = n
        game_sec0 = sec
        game_start = pos
        if pending:
            # the first tag name of this section (``_TAG_NAME``), in the pending game?
            j = pos + 1
            merge = True
            if j < n and _is_alnum(b[j]):
                j += 1
                while j < n and _is_name_char(b[j]):
                    j += 1
                for s in range(p_sec0, sec):
                    if s_flag[s] & FALLBACK:
                        return ng, 0, line0, BAILED
                merge = not _name_in(b, pos + 1, j, t_n0, t_n1, s_tag0[p_sec0], s_tag0[sec])
            if merge:
                game_line = p_line
                game_sec0 = p_sec0
                game_start = p_start
            else:
                g_line[ng] = p_line
                g_sec0[ng] = p_sec0
                g_sec1[ng] = sec
                ng += 1
            pending = False
        pos = end + 1
        if complete and end - head_end < 32:  # 8 characters are at most 32 bytes
            blank = True
            wide = False
            for k in range(head_end, end):
                c = b[k]
                if c >= 128:
                    wide = True
                elif not (c in (_TAB, 11, 12, _CR, _SPACE) or 28 <= c <= 31):
                    blank = False  # (a line end in the gap is not blank either)
                    break
            if blank and wide:
                return ng, 0, line0, BAILED  # str.strip() may or may not take it
            if blank and end - head_end < 8:
                pending = True
                p_start = game_start
                p_line = game_line
                p_sec0 = game_sec0
                continue
        g_line[ng] = game_line
        g_sec0[ng] = game_sec0
        g_sec1[ng] = sec + 1
        ng += 1
    if pending:
        g_line[ng] = p_line
        g_sec0[ng] = p_sec0
        g_sec1[ng] = ns
        ng += 1
    return ng, n, line, 0


class Wanted:
    """Tag names whose index and value hash the scanner records (by name length and
    first byte, then the bytes), in the order of ``names``. The names are sorted by
    (length, bytes): ``names`` is that order."""

    def __init__(self, names: Sequence[str] = ()) -> None:
        unique = {name.encode("utf-8") for name in names if name}
        encoded = sorted(unique, key=lambda name: (len(name), name))
        self.names = [name.decode("utf-8") for name in encoded]
        self.bytes = np.frombuffer(b"".join(encoded) or b"\0", np.uint8)
        self.at = np.zeros(len(encoded) + 1, np.int64)
        np.cumsum([len(name) for name in encoded], out=self.at[1:])
        self.max_name = max((len(name) for name in encoded), default=0)
        self.by_shape = np.zeros((self.max_name + 1) * 256 + 1, np.int64)
        for name in encoded:
            self.by_shape[len(name) * 256 + name[0] + 1] += 1
        np.cumsum(self.by_shape, out=self.by_shape)

    def args(self) -> tuple[Any, Any, Any, int]:
        return self.bytes, self.at, self.by_shape, self.max_name


_NOTHING = Wanted()


class Workspace:
    """The output arrays of :func:`scan_buffer`, kept from one buffer to the next
    (what a scan returns is valid until the next scan with the same workspace)."""

    def __init__(self) -> None:
        self.capacity = -1
        self.arrays: list[Any] = []

    def get(self, size: int) -> list[Any]:
        capacity = size // 7 + 2  # a tag line, a section, a game: 7 bytes at least
        if capacity > self.capacity:
            capacity = max(capacity, self.capacity * 5 // 4)
            self.capacity = capacity
            self.arrays = [np.empty(capacity, np.int64) for _ in range(11)]
            self.arrays.insert(7, np.empty(capacity, np.uint8))
            self.arrays.append(np.empty(capacity, np.bool_))
            self.arrays.append(np.empty(capacity, np.int32))
            self.arrays.append(np.empty(capacity, np.uint64))
        return self.arrays


def scan_buffer(
    data: Any,
    line: int,
    final: bool,
    workspace: Workspace | None = None,
    wanted: Wanted | None = None,
) -> TagSpans:
    """Scan a buffer of UTF-8 PGN (``\\n`` line ends, ending with one unless final)
    whose first line is ``line``; see the module docstring. ``data``: bytes or a
    uint8 array. The ``wanted`` tags get their name's index and value hash."""
    b = data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8)
    arrays = (workspace or Workspace()).get(b.size)
    args = [*arrays, *(wanted or _NOTHING).args()]
    games, offset, end_line, status = _scan(b, line, final, *args)
    return TagSpans(games, offset, end_line, status == BAILED, *arrays)
