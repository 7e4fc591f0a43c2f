"""PGN input: a fast tag-section scanner and the mapping of tags to game records.

Two layers, as in python-chess (``chess.pgn.read_headers``): :func:`scan_headers`
finds every game's tag pairs and skips its movetext; :func:`game_from_tags` builds a
:class:`~chessrate.records.GameRecord` from them. :func:`read_pgn_games` does both for
a file, with errors that name ``FILE:LINE`` (the line of the game's first tag), the
tag and the reason.

**Scanning.** The input is read in big chunks (plain, ``.gz`` or ``.zst``; told by
the first bytes, not the name), decoded once per chunk (UTF-8, else Latin-1 for that
chunk) and matched game by game with one compiled regular expression: a tag section
(lines starting with ``[``, and ``%``/``;`` lines among them) followed by the
movetext, which runs up to the next line that starts with ``[`` outside a ``{...}``
comment. Brace comments may span lines and hold ``[`` and ``"``; ``;`` comments run
to the end of the line (a ``{`` in them opens nothing); ``%`` lines are skipped;
variations and NAGs need nothing. A tag value's escapes ``\\"`` and ``\\\\`` are
undone. A line that starts with ``[`` but is not a tag pair is ignored, as
python-chess does. Where a tag is repeated the last value wins, as in python-chess.

**Compiled scanning.** On big input (from ``COMPILED_MIN_BYTES``, or once numba is
loaded) the chunks go to the numba kernel of :mod:`chessrate.io.pgnscan`, which finds
the same games and tag spans in the bytes; Python then only builds each game's dict
(one split for a plain section). A chunk that is not UTF-8, a section the kernel
marks and a buffer it gives up on are read by the Python scanner above, which stays
the reference: both give the same games. :mod:`chessrate.io.pgncolumns` reads the
tags a record needs as integer codes, without a dict per game.

Where this scanner and ``chess.pgn.read_headers`` differ, on purpose:

* a game whose movetext is followed directly by the next game's ``[`` line, with no
  blank line, is two games here (python-chess reads the second game's tags as
  movetext of the first);
* games with no movetext at all (header-only broadcast exports) are separate games
  here. A tag section that goes on after ONE blank line is still one game, as in
  python-chess, unless the first tag after the blank line was already in the game:
  then it is the next game's first tag (python-chess would merge all the games);
* a blank line inside the movetext does not end the game (python-chess would start
  a game without tags there); the movetext runs to the next tag line.

**Records** (:func:`game_from_tags`), tag by tag:

* ``id``: ``GameId``; else the game id of a lichess URL in ``Site`` (``https://
  lichess.org/abcdefgh``); else a chess.com-style ``Link`` URL; else ``pgn-`` and
  16 hex digits of a BLAKE2 hash of Event, Site, Date, Round, White, Black, UTCDate
  and UTCTime (not Result: a corrected result is the same game, refused by the
  engine as different content rather than rated twice).
* players: ``White``/``Black`` as written (a lichess user name, a broadcast's
  "Surname, Name"). With ``player_ids="fide"`` the ``WhiteFideId``/``BlackFideId``
  is used when present and not 0 (names vary in spelling between events; FIDE ids
  do not), else the name. ``?`` or an empty name is refused.
* ``result``: ``1-0``, ``0-1``, ``1/2-1/2``, ``*``.
* ``played_at``: ``UTCDate`` + ``UTCTime``, else ``Date`` + ``Time`` (read as UTC),
  a missing time being 00:00:00. PGN records when a game started, not when it ended:
  the start is used, which orders a batch the same way. A date with ``??`` is
  refused: the rating order needs the day.
* ``time_control``: ``TimeControl`` by :func:`parse_pgn_time_control` (absent or
  ``?``: none, which a system that needs one refuses).
* ``termination``: ``Termination``, lichess words and chess.com sentences (see
  ``LICHESS_TERMINATIONS`` and :func:`map_termination`); absent: normal. An
  unknown value is refused rather than guessed.
* ``rated``: false when ``Event`` starts with "Casual" (lichess "Casual Blitz game"),
  else true (lichess "Rated ..." games and arenas, broadcast and OTB events).
* ``plies``: ``PlyCount`` when present; the movetext is not counted (that is what
  makes the scanner fast), so site S8 aborts are known only from ``PlyCount`` or a
  lichess ``*``/``Abandoned`` game.
* ``venue``: always online, ``confirmed`` unset: PGN has no venue tag, and a
  broadcast of an OTB event is not a game "registered on the site and confirmed by
  both players" (site S2 ``otb``).
* **Variants: refused.** Only standard chess is rated: a ``Variant`` other than
  Standard (``Chess960``, ``Crazyhouse``, lichess ``From Position``, ...) or a
  ``SetUp``/``FEN`` other than the initial position is an invalid record (tag
  ``Variant`` or ``FEN``). Like every invalid record it stops the run, or, with
  ``on_invalid`` (``--skip-invalid``), is skipped and reported.
"""

from __future__ import annotations

import codecs
import gzip
import hashlib
import io
import os
import re
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, Protocol

from ..errors import InvalidInput, InvalidRecord
from ..records import (
    DECISIVE_TERMINATIONS,
    MAX_PLIES,
    GameRecord,
    Result,
    Termination,
    Venue,
)
from ..timecontrol import ClockKind, TimeControl, parse_time_control

if TYPE_CHECKING:
    from .pgnscan import BufferScan, Wanted, Workspace

Tags = dict[str, str]
Source = Path | str | BinaryIO
OnInvalid = Callable[[InvalidRecord], None]
Progress = Callable[[int], None]
"""Called with the number of (compressed) bytes of the file read since the last call."""
PlayerIds = Literal["name", "fide"]

CHUNK_BYTES = 4 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_BOM = "\ufeff"
_BOM_BYTES = _BOM.encode("utf-8")
_NEWLINE = 10

# -- scanning ----------------------------------------------------------------------------

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


def _unescape(tags: Tags) -> Tags:
    return {name: _ESCAPE.sub(r"\1", value) for name, value in tags.items()}


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


def _section_tags(text: str, pos: int) -> tuple[Tags, int]:
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


def _scan_text(text: str, line: int, final: bool, out: list[tuple[int, Tags]]) -> tuple[int, int]:
    """Append the complete games of ``text`` (whose first line is ``line``) to ``out``.

    Returns (offset, line) of the first incomplete game, to be scanned again with the
    next chunk appended (``len(text)`` when every game was complete).

    The fast path per game, all in C string methods: the tag section by
    :func:`_section_tags`; the movetext runs to the next line with ``[`` when
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
        tags, head_end = _section_tags(text, pos)
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


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class _Counted:
    """The raw file under a decompressor, counting the bytes read for progress."""

    def __init__(self, raw: BinaryIO, progress: Progress | None) -> None:
        self.raw = raw
        self.progress = progress

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        if self.progress is not None and data:
            self.progress(len(data))
        return data

    def readinto(self, buffer: bytearray | memoryview) -> int:  # for gzip's buffered reads
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _chunks(raw: BinaryIO, progress: Progress | None, name: str) -> Iterator[bytes]:
    """The decompressed bytes of ``raw`` in big chunks (gzip and zstd told by magic)."""
    head = raw.read(4)
    counted = _Counted(raw, progress)
    if progress is not None and head:
        progress(len(head))
    source = io.BufferedReader(_Prefixed(head, counted))
    stream: _Readable
    if head.startswith(_GZIP_MAGIC):
        stream = gzip.GzipFile(fileobj=source, mode="rb")
    elif head.startswith(_ZSTD_MAGIC):
        import zstandard

        stream = zstandard.ZstdDecompressor().stream_reader(source)
    else:
        stream = source
    try:
        while True:
            data = stream.read(CHUNK_BYTES)
            if not data:
                return
            yield data
    except (OSError, EOFError) as error:
        raise InvalidInput(f"{name}: cannot decompress: {error}") from None
    except Exception as error:  # zstandard.ZstdError is not an OSError
        if type(error).__module__.startswith("zstandard"):
            raise InvalidInput(f"{name}: cannot decompress: {error}") from None
        raise


class _Prefixed(io.RawIOBase):
    """A raw stream that first gives back the bytes already read to sniff the format."""

    def __init__(self, head: bytes, rest: _Counted) -> None:
        self.head = head
        self.rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self.head:
            size = min(len(buffer), len(self.head))
            buffer[:size] = self.head[:size]
            self.head = self.head[size:]
            return size
        return self.rest.readinto(buffer)


def _open(source: Source) -> tuple[BinaryIO, str, bool]:
    """(binary stream, name for messages, whether we opened it)."""
    if isinstance(source, str | Path):
        try:
            return open(source, "rb"), str(source), True
        except OSError as error:
            raise InvalidInput(f"{source}: cannot read: {error.strerror}") from None
    return source, str(getattr(source, "name", "<pgn>")), False


def scan_headers(
    source: Source, progress: Progress | None = None
) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(line, tags)`` for every game of a PGN file or binary stream.

    ``line`` is the 1-based line of the game's first tag; ``tags`` maps every tag
    name to its value, escapes undone, in file order. ``.gz`` and ``.zst`` input is
    decompressed on the fly. ``progress`` is called with the number of file bytes
    read (compressed bytes for compressed input). See the module docstring for how
    games are told apart.
    """
    return _scan_headers(source, progress)


def _scan_headers(
    source: Source, progress: Progress | None = None, compiled: bool | None = None
) -> Iterator[tuple[int, dict[str, str]]]:
    """:func:`scan_headers`, by the compiled scanner or not (None: when it pays)."""
    for piece in _pieces(source, progress, compiled):
        if isinstance(piece, list):
            yield from piece
        else:
            yield from _buffer_games(*piece)


COMPILED_MIN_BYTES = CHUNK_BYTES
"""Input from which :func:`scan_headers` uses the compiled scanner (when the first
chunk is this big): below it, importing numba costs more than it saves, unless
numba is already loaded."""

_Piece = list[tuple[int, Tags]] | tuple[bytes, "BufferScan"]


def _use_compiled(compiled: bool | None, size: int) -> bool:
    if compiled is False:
        return False
    if compiled is None and size < COMPILED_MIN_BYTES and _pgnscan is None:
        return False
    try:
        _load_pgnscan()
    except ImportError:  # pragma: no cover - numba is a dependency
        return False
    return True


def _utf8(data: bytes) -> bool:
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _strip_bom(data: bytes) -> bytes:
    while data.startswith(_BOM_BYTES):
        data = data[len(_BOM_BYTES) :]
    return data


def _pieces(
    source: Source, progress: Progress | None, compiled: bool | None, wanted: Wanted | None = None
) -> Iterator[_Piece]:
    """The games of the input, a chunk at a time: lists of ``(line, tags)`` from the
    Python scanner, or a buffer and what the compiled scanner found in it (with the
    index and value hash of the ``wanted`` tags).

    The compiled scanner reads bytes, so it takes the input while every chunk is
    UTF-8 (the Python scanner reads a chunk that is not as Latin-1: from such a chunk
    on, the rest of the input goes to the Python scanner, whose results are the
    reference)."""
    raw, name, owned = _open(source)
    try:
        pending_bytes = b""
        text = ""
        buffer = b""
        use_bytes: bool | None = None
        line = 1
        first = True
        out: list[tuple[int, Tags]] = []
        final = False
        chunks = _chunks(raw, progress, name)
        workspace = None
        while not final:
            data = next(chunks, None)
            if data is None:
                final = True
                piece = pending_bytes
                pending_bytes = b""
            else:
                data = pending_bytes + data
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    pending_bytes = data
                    continue
                pending_bytes = data[cut:]
                piece = data[:cut]
            if use_bytes is None:
                use_bytes = _use_compiled(compiled, len(piece))
                workspace = _load_pgnscan().Workspace() if use_bytes else None
            if use_bytes and not _utf8(piece):
                use_bytes = False
                text = buffer.decode("utf-8")
                buffer = b""
            if use_bytes:
                if final or b"\r" in piece:
                    piece = piece.replace(b"\r\n", b"\n")
                if first:
                    piece = _strip_bom(piece)
                buffer = buffer + piece if buffer else piece
                if final and buffer and not buffer.endswith(b"\n"):
                    buffer += b"\n"
                scanned, offset, line = _scan_bytes(buffer, line, final, workspace, wanted)
                yield scanned
                buffer = buffer[offset:]
            else:
                chunk = _decode(piece)
                if final or "\r" in chunk:
                    chunk = chunk.replace("\r\n", "\n")
                if first:
                    chunk = chunk.lstrip(_BOM)
                text = text + chunk if text else chunk
                if final and text and not text.endswith("\n"):
                    text += "\n"
                offset, line = _scan_text(text, line, final, out)
                text = text[offset:]
                yield out
                out = []
            first = False
    finally:
        if owned:
            raw.close()


MAPPED_MIN_BYTES = 1 << 20
"""A plain file from this size is memory-mapped by :func:`_mapped_pieces`."""
MAPPED_WINDOW = 8 << 20
"""Bytes the compiled scanner reads at a time from a memory-mapped file."""


def _mapped_pieces(source: Source, progress: Progress | None, wanted: Wanted | None) -> Iterator[
    _Piece
] | None:  # fmt: skip
    """:func:`_pieces` of a plain PGN file read through a memory map, without
    copying chunks; None (read it with :func:`_pieces`) unless the source is a path
    to an uncompressed file of ``MAPPED_MIN_BYTES`` or more. The file must be UTF-8
    without carriage returns (then every chunk :func:`_pieces` would make is UTF-8
    and needs no line-end change: both give the same games): each window is checked
    just before it is scanned, while its bytes are read anyway, and one that is not
    raises :class:`NotPlain` (the caller starts again with :func:`_pieces`)."""
    import mmap

    import numpy as np

    if not isinstance(source, str | Path):
        return None
    try:
        with open(source, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < MAPPED_MIN_BYTES:
                return None
            populate = getattr(mmap, "MAP_POPULATE", 0)  # read ahead in one go (Linux)
            mapped = mmap.mmap(
                handle.fileno(), 0, flags=mmap.MAP_SHARED | populate, prot=mmap.PROT_READ
            )
    except (OSError, ValueError):
        return None  # _pieces reports it
    if mapped[:2] == _GZIP_MAGIC or mapped[:4] == _ZSTD_MAGIC:
        return None
    return _mapped_windows(mapped, np.frombuffer(mapped, np.uint8), progress, wanted)


class NotPlain(Exception):
    """Raised by :func:`_mapped_pieces` at a window that holds a carriage return or is
    not UTF-8, before its games are given: read the file with :func:`_pieces`."""


def _mapped_windows(
    mapped: Any, data: Any, progress: Progress | None, wanted: Wanted | None
) -> Iterator[_Piece]:
    size = data.size
    start = 0
    while mapped[start : start + len(_BOM_BYTES)] == _BOM_BYTES:
        start += len(_BOM_BYTES)
    pgnscan = _load_pgnscan()
    workspace = pgnscan.Workspace()
    line = 1
    window = MAPPED_WINDOW
    reported = 0
    checked = start
    while True:
        end = min(start + window, size)
        if end < size:
            end = mapped.rfind(b"\n", start, end) + 1
            if end <= start:  # no line end in the window: a bigger one
                window *= 2
                continue
        if checked < end:  # (a window starts at a line end: UTF-8 is checked in windows)
            has_cr, ascii_only = pgnscan.plain_bytes(data[checked:end])
            if has_cr:
                raise NotPlain
            if not ascii_only:
                try:
                    codecs.utf_8_decode(memoryview(mapped)[checked:end], "strict", True)
                except UnicodeDecodeError:
                    raise NotPlain from None
            checked = end
        final = end == size
        buffer: Any = data[start:end]
        if final and (end == start or data[end - 1] != _NEWLINE):
            buffer = bytes(buffer) + b"\n"
        piece, offset, line = _scan_bytes(buffer, line, final, workspace, wanted)
        yield piece
        if progress is not None:
            done = size if final else start + offset
            progress(done - reported)
            reported = done
        if final:
            return
        window = window * 2 if offset == 0 else MAPPED_WINDOW
        start += offset


def _scan_bytes(
    buffer: bytes,
    line: int,
    final: bool,
    workspace: Workspace | None,
    wanted: Wanted | None = None,
) -> tuple[_Piece, int, int]:
    """The compiled scanner on a UTF-8 buffer; the Python one where it gives up."""
    scanned = _load_pgnscan().scan_buffer(buffer, line, final, workspace, wanted)
    if not scanned.bailed:
        return (buffer, scanned), scanned.offset, scanned.line
    text = bytes(buffer).decode("utf-8")
    out: list[tuple[int, Tags]] = []
    offset, line = _scan_text(text, line, final, out)
    return out, len(text[:offset].encode("utf-8")), line


def _fallback_section(buffer: bytes, start: int, end: int) -> Tags:
    """The tags of a section the kernel marked, by the Python scanner (given the
    blank line after it, if any, so that it takes the same path as on the text)."""
    text = buffer[start:end].decode("utf-8")
    if buffer[end : end + 1] == b"\n":
        text += "\n"
    return _section_tags(text, 0)[0]


def _section_dict(buffer: bytes, scanned: BufferScan, section: int) -> Tags:
    from .pgnscan import FALLBACK, PLAIN

    flag = int(scanned.sec_flag[section])
    start = int(scanned.sec_head0[section])
    end = int(scanned.sec_head1[section])
    if flag & PLAIN:
        pairs = iter(buffer[start + 1 : end - 3].decode("utf-8").replace('"]\n[', ' "').split(' "'))
        return dict(zip(pairs, pairs, strict=False))
    if flag & FALLBACK:
        return _fallback_section(buffer, start, end)
    tags: Tags = {}
    for tag in range(int(scanned.sec_tag0[section]), int(scanned.sec_tag1[section])):
        value = buffer[int(scanned.tag_value0[tag]) : int(scanned.tag_value1[tag])].decode("utf-8")
        if scanned.tag_escaped[tag]:
            value = _ESCAPE.sub(r"\1", value)
        name = buffer[int(scanned.tag_name0[tag]) : int(scanned.tag_name1[tag])].decode("utf-8")
        tags[name] = value
    return tags


def _buffer_games(buffer: bytes, scanned: BufferScan) -> Iterator[tuple[int, Tags]]:
    """``(line, tags)`` of the games the compiled scanner found in ``buffer``."""
    from .pgnscan import PLAIN

    games = scanned.games
    lines = scanned.game_line[:games].tolist()
    first = scanned.game_sec0[:games].tolist()
    after = scanned.game_sec1[:games].tolist()
    sections = after[-1] if games else 0
    flags = scanned.sec_flag[:sections].tolist()
    head0 = scanned.sec_head0[:sections].tolist()
    head1 = scanned.sec_head1[:sections].tolist()
    text = buffer.decode("ascii") if buffer.isascii() else None
    for game in range(games):
        section = first[game]
        if after[game] == section + 1 and flags[section] == PLAIN:
            start = head0[section] + 1
            end = head1[section] - 3
            block = text[start:end] if text is not None else buffer[start:end].decode("utf-8")
            pairs = iter(block.replace('"]\n[', ' "').split(' "'))
            yield lines[game], dict(zip(pairs, pairs, strict=False))
            continue
        tags = _section_dict(buffer, scanned, section)
        for more in range(section + 1, after[game]):
            tags.update(_section_dict(buffer, scanned, more))
        yield lines[game], tags


_pgnscan: ModuleType | None = None


def _load_pgnscan() -> ModuleType:
    global _pgnscan
    if _pgnscan is None:
        from . import pgnscan

        _pgnscan = pgnscan
    return _pgnscan


# -- time controls ------------------------------------------------------------------------

_SECONDS_PER_DAY = 86_400
_PERIOD = re.compile(r"(?:(\d+)/)?(\d+)(?:\+(\d+))?")
_PGN_FORM = re.compile(r"[\d/+:\s]+")
_SANDCLOCK = re.compile(r"\*(\d+)")
_AMOUNT = re.compile(
    r"(\d+)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s|'|\")(?![a-z])\.?",
    re.IGNORECASE,
)
_MOVES = re.compile(r"(?:/|\bfor\b|\bin\b)\s*\d+\s*moves?", re.IGNORECASE)
_PER_MOVE = re.compile(r"per\s+move|/\s*move|a\s+move|increment|bonus", re.IGNORECASE)
_UNIT = {"d": _SECONDS_PER_DAY, "h": 3600, "m": 60, "'": 60, "s": 1, '"': 1}


def parse_pgn_time_control(text: str) -> TimeControl | None:
    """A PGN ``TimeControl`` value as a time control; None for ``?`` or empty.

    Besides :func:`chessrate.timecontrol.parse_time_control`'s forms (``300+3``,
    ``-``, ``5m+3s``, ``3d``):

    * the PGN standard's periods ``40/5400+30:1800+30`` (moves/seconds, ``:`` between
      periods) and sandclock ``*180``;
    * lichess daily games ``1/259200``: one move in N days is N days per move;
    * broadcast sentences: ``15 min. + 10 s. per move``, ``15 minutes + 10 seconds
      increment per move, starting from move 1``, ``90 min/40 moves + 30 min + 30 s.
      per move``, ``3 days per move``.

    Several periods are one clock whose base is the sum of the periods' times and
    whose increment is the last period's (FIDE classical 90/40 + 30 + 30 s is
    7200+30): the estimate of site S2 is about the game's length, not the periods.
    Raises ``ValueError`` with the reason."""
    stripped = text.strip()
    if stripped in ("", "?"):
        return None
    if stripped == "-":
        return TimeControl(ClockKind.UNCLOCKED)
    if _PGN_FORM.fullmatch(stripped) and ("/" in stripped or ":" in stripped):
        return _pgn_periods(text, stripped)
    sandclock = _SANDCLOCK.fullmatch(stripped)
    if sandclock:
        return parse_time_control(sandclock.group(1))
    try:
        return parse_time_control(stripped)
    except ValueError as error:
        if not _AMOUNT.search(stripped):
            raise error from None
    return _sentence(text, stripped)


def _pgn_periods(text: str, stripped: str) -> TimeControl:
    base = increment = 0
    periods = stripped.split(":")
    for index, period in enumerate(periods):
        match = _PERIOD.fullmatch(period.strip())
        if match is None:
            raise ValueError(f"{text!r} is not a PGN time control (e.g. '40/5400+30:1800+30')")
        moves, seconds, bonus = match.groups()
        if moves is not None and int(moves) == 1 and len(periods) == 1 and bonus is None:
            days, rest = divmod(int(seconds), _SECONDS_PER_DAY)
            if rest or not days:
                raise ValueError(f"{text!r}: one move per {seconds} s is not whole days per move")
            return TimeControl(ClockKind.CORRESPONDENCE, days_per_move=days)
        base += int(seconds)
        if index == len(periods) - 1 and bonus is not None:
            increment = int(bonus)
    if base == 0 and increment == 0:
        raise ValueError(f"{text!r}: a clock needs a base time or an increment")
    return TimeControl(ClockKind.CLOCKED, base=base, increment=increment)


def _sentence(text: str, stripped: str) -> TimeControl:
    base = 0
    increment: int | None = None
    days: int | None = None
    for part in stripped.split("+"):
        part = _MOVES.sub(" ", part)
        amounts = [int(value) * _UNIT[unit[0].lower()] for value, unit in _AMOUNT.findall(part)]
        units = [unit[0].lower() for _, unit in _AMOUNT.findall(part)]
        if not amounts:
            raise ValueError(f"{text!r}: no time in {part.strip()!r}")
        if "d" in units:
            if len(amounts) != 1 or not _PER_MOVE.search(part):
                raise ValueError(f"{text!r}: days are read only as 'N days per move'")
            days = amounts[0] // _SECONDS_PER_DAY
        elif _PER_MOVE.search(part):
            if increment is not None or len(amounts) != 1:
                raise ValueError(f"{text!r}: more than one increment")
            increment = amounts[0]
        else:
            base += sum(amounts)
    if days is not None:
        if base or increment:
            raise ValueError(f"{text!r}: days per move with a clock")
        return TimeControl(ClockKind.CORRESPONDENCE, days_per_move=days)
    if base == 0 and not increment:
        raise ValueError(f"{text!r}: a clock needs a base time or an increment")
    return TimeControl(ClockKind.CLOCKED, base=base, increment=increment or 0)


# -- records ------------------------------------------------------------------------------

LICHESS_TERMINATIONS: dict[str, Termination] = {
    "normal": Termination.NORMAL,
    "time forfeit": Termination.TIMEOUT,
    "abandoned": Termination.ABANDON,
    "rules infraction": Termination.FORFEIT,
    "unterminated": Termination.NORMAL,  # the result is "*": no result
    "insufficient material": Termination.NORMAL,
    "adjudication": Termination.NORMAL,
    "emergency": Termination.NORMAL,
    "death": Termination.NORMAL,
    **{t.value: t for t in Termination},
}
"""The PGN standard's and lichess's ``Termination`` words (any case), and chessrate's
own termination names."""

_CHESS_COM = re.compile(
    r"^(?:(?P<winner>.+?) won (?P<how>by resignation|on time|by checkmate|by abandonment"
    r"|- game abandoned|by agreement|by game abandonment)"
    r"|game (?P<draw>drawn by (?:timeout vs insufficient material|agreement|repetition"
    r"|stalemate|insufficient material|50-move rule|the 50-move rule|timeout))"
    r"|(?P<aborted>game abandoned|game aborted))$",
    re.IGNORECASE,
)
_CHESS_COM_HOW = {
    "by resignation": Termination.RESIGN,
    "on time": Termination.TIMEOUT,
    "by checkmate": Termination.NORMAL,
    "by abandonment": Termination.ABANDON,
    "- game abandoned": Termination.ABANDON,
    "by game abandonment": Termination.ABANDON,
    "by agreement": Termination.NORMAL,
}


def map_termination(text: str, white: str, black: str, result: Result) -> Termination:
    """A ``Termination`` tag as chessrate's termination. Raises ``ValueError``.

    chess.com sentences: "X won by resignation" resign, "X won on time" timeout,
    "X won by checkmate" normal, "X won - game abandoned"/"Game abandoned" abandon,
    "Game drawn by timeout vs insufficient material" timeout, other "Game drawn by
    ..." normal. The winner a sentence names must be the result's winner."""
    stripped = " ".join(text.split())
    known = LICHESS_TERMINATIONS.get(stripped.lower())
    if known is not None:
        return known
    match = _CHESS_COM.match(stripped)
    if match is None:
        raise ValueError(
            f"{text!r} is not a known termination (lichess: Normal, Time forfeit, "
            "Abandoned, Rules infraction, Unterminated; chess.com: 'X won by resignation', "
            "'X won on time', 'Game drawn by ...')"
        )
    if match.group("aborted"):
        return Termination.ABANDON
    if match.group("draw"):
        if result is not Result.DRAW:
            raise ValueError(f"{text!r} but the result is {result.value}")
        return Termination.TIMEOUT if "timeout" in stripped.lower() else Termination.NORMAL
    winner = match.group("winner")
    expected = {white: Result.WHITE_WINS, black: Result.BLACK_WINS}.get(winner)
    if expected is not None and expected is not result:
        raise ValueError(f"{text!r} but the result is {result.value}")
    return _CHESS_COM_HOW[match.group("how").lower()]


_DATE = re.compile(r"(\d{4})[.\-/](\d{2})[.\-/](\d{2})")
_TIME = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")
_LICHESS_URL = re.compile(r"https?://lichess\.org/([A-Za-z0-9]{8})(?:[A-Za-z0-9]{4})?/?")
_ID_TEXT = re.compile(r"^[^\s\x00-\x1f][^\x00-\x1f]*$")
_STANDARD = frozenset({"standard", "chess", "normal", "standard chess"})
_START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
_RESULTS = {r.value: r for r in Result}
_ID_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "UTCDate", "UTCTime")
_time_controls: dict[str, TimeControl | None] = {}


def _time_control(text: str) -> TimeControl | None:
    control = _time_controls.get(text, _time_controls)
    if control is _time_controls:
        control = parse_pgn_time_control(text)
        if len(_time_controls) < 4096:
            _time_controls[text] = control
    return control  # type: ignore[return-value]


def _played_at(tags: Tags, fail: Callable[[str, str], InvalidRecord]) -> datetime:
    if "UTCDate" in tags:
        date_tag, time_tag = "UTCDate", "UTCTime"
    elif "Date" in tags:
        date_tag, time_tag = "Date", "Time"
    else:
        raise fail("Date", "is required (no UTCDate or Date tag): the rating order needs it")
    day = tags[date_tag].strip()
    match = _DATE.fullmatch(day)
    if match is None:
        reason = "is partial: the rating order needs the day" if "?" in day else "is not a date"
        raise fail(date_tag, f"{day!r} {reason} (YYYY.MM.DD)")
    hour = minute = second = 0
    clock = tags.get(time_tag, "").strip()
    if clock and clock != "??:??:??":
        found = _TIME.fullmatch(clock)
        if found is None:
            raise fail(time_tag, f"{clock!r} is not a time (HH:MM:SS)")
        hour, minute = int(found.group(1)), int(found.group(2))
        second = int(found.group(3) or 0)
    try:
        return datetime(
            int(match.group(1)),
            int(match.group(2)),
            int(match.group(3)),
            hour,
            minute,
            second,
            tzinfo=UTC,
        )
    except ValueError as error:
        field = date_tag if "day" in str(error) or "month" in str(error) else time_tag
        raise fail(field, f"{day} {clock}: {error}") from None


def _game_id(tags: Tags) -> str:
    game_id = tags.get("GameId", "").strip()
    if game_id:
        return game_id
    lichess = _LICHESS_URL.fullmatch(tags.get("Site", "").strip())
    if lichess:
        return lichess.group(1)
    link = tags.get("Link", "").strip()
    if link.startswith(("http://", "https://")):
        return link
    roster = "\x1f".join(tags.get(name, "") for name in _ID_TAGS)
    return "pgn-" + hashlib.blake2b(roster.encode(), digest_size=8).hexdigest()


def _player(
    tags: Tags, color: str, player_ids: PlayerIds, fail: Callable[[str, str], InvalidRecord]
) -> str:
    if player_ids == "fide":
        fide_id = tags.get(f"{color}FideId", "").strip()
        if fide_id and fide_id.strip("0"):
            return fide_id
    name = tags.get(color, "").strip()
    if not name or name == "?":
        raise fail(color, "is required (the player is unknown)")
    if not _ID_TEXT.match(name) or len(name) > 200:
        raise fail(color, f"{name!r} is not a valid player id")
    return name


def game_from_tags(
    tags: Mapping[str, str], where: str, player_ids: PlayerIds = "name"
) -> GameRecord:
    """The game record of one game's tags (see the module docstring for each field).

    Raises :class:`InvalidRecord` naming ``where``, the tag and the reason."""
    record = dict(tags)

    def fail(field: str, reason: str) -> InvalidRecord:
        return InvalidRecord(where, field, reason)

    variant = record.get("Variant", "").strip()
    if variant and variant.lower() not in _STANDARD:
        raise fail("Variant", f"{variant!r} is not standard chess: only standard games are rated")
    fen = record.get("FEN", "").strip()
    if fen and fen != _START_FEN:
        raise fail("FEN", "the game starts from a set-up position: only standard games are rated")
    white = _player(record, "White", player_ids, fail)
    black = _player(record, "Black", player_ids, fail)
    if white == black:
        raise fail("Black", f"a player cannot play himself ({white!r})")
    result_text = record.get("Result", "").strip()
    result = _RESULTS.get(result_text)
    if result is None:
        if not result_text:
            raise fail("Result", "is required (1-0, 0-1, 1/2-1/2 or *)")
        raise fail("Result", f"{result_text!r} is not one of 1-0, 0-1, 1/2-1/2, *")
    played_at = _played_at(record, fail)
    time_control = None
    if "TimeControl" in record:
        try:
            time_control = _time_control(record["TimeControl"])
        except ValueError as error:
            raise fail("TimeControl", str(error)) from None
    termination = Termination.NORMAL
    if record.get("Termination", "").strip():
        try:
            termination = map_termination(
                record["Termination"], record.get("White", ""), record.get("Black", ""), result
            )
        except ValueError as error:
            raise fail("Termination", str(error)) from None
    if result is Result.DRAW and termination in DECISIVE_TERMINATIONS:
        raise fail("Result", f"a game that ended by {termination.value} is not a draw")
    plies = None
    ply_count = record.get("PlyCount", "").strip()
    if ply_count:
        if not ply_count.isdigit():
            raise fail("PlyCount", f"{ply_count!r} is not a whole number")
        plies = int(ply_count)
        if plies > MAX_PLIES:
            raise fail("PlyCount", f"must be at most {MAX_PLIES:,}")
    game_id = _game_id(record)
    if not _ID_TEXT.match(game_id) or len(game_id) > 200:
        raise fail("GameId", f"{game_id!r} is not a valid id")
    return GameRecord(
        id=game_id,
        played_at=played_at,
        white=white,
        black=black,
        result=result,
        rated=not record.get("Event", "").lstrip().lower().startswith("casual"),
        time_control=time_control,
        termination=termination,
        plies=plies,
        venue=Venue.ONLINE,
        confirmed=None,
        source=where,
    )


def iter_pgn_games(
    source: Source,
    on_invalid: OnInvalid | None = None,
    *,
    progress: Progress | None = None,
    player_ids: PlayerIds = "name",
) -> Iterator[GameRecord]:
    """The game records of a PGN file (or ``.gz``/``.zst``), in file order.

    An invalid game raises :class:`InvalidRecord` (``FILE:LINE`` of its first tag, the
    tag, the reason), unless ``on_invalid`` is given: then it is reported there and
    skipped."""
    name = str(source) if isinstance(source, str | Path) else getattr(source, "name", "<pgn>")
    for line, tags in scan_headers(source, progress):
        try:
            yield game_from_tags(tags, f"{name}:{line}", player_ids)
        except InvalidRecord as error:
            if on_invalid is None:
                raise
            on_invalid(error)


def read_pgn_games(
    path: Source,
    on_invalid: OnInvalid | None = None,
    *,
    progress: Progress | None = None,
    player_ids: PlayerIds = "name",
) -> list[GameRecord]:
    """Every game record of a PGN file, validated (see :func:`iter_pgn_games`)."""
    return list(iter_pgn_games(path, on_invalid, progress=progress, player_ids=player_ids))
