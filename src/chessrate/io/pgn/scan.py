"""The PGN scanner contract: which games a source holds, and where their tags are.

Either scanner (:mod:`~chessrate.io.pgn.scan_python` on text, the reference;
:mod:`~chessrate.io.pgn.scan_numba` on UTF-8 bytes, compiled) turns a buffer into
:class:`ScannedGames`: every complete game's first line and tags, and, from the
compiled scanner, the byte spans of every tag (:class:`TagSpans`). Both give the same
games. :func:`choose_scanner` is the one place that picks a scanner: the compiled one
for big input or once numba is loaded. :func:`scan_games` reads a source buffer by
buffer; :func:`scan_mapped`, a big plain file through a memory map. Mechanics:
``docs/internals.md``, "PGN reading".
"""

from __future__ import annotations

import codecs
import importlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .scan_python import Tags, scan_text, section_tags, unescape
from .source import (
    BOM,
    CHUNK_BYTES,
    NEWLINE,
    MappedFile,
    Progress,
    Source,
    chunks,
    decode,
    is_utf8,
    line_pieces,
    map_file,
    open_binary,
    strip_bom,
)

if TYPE_CHECKING:
    from .scan_numba import Wanted, Workspace

PLAIN = 1
"""Section flag: only ``[Name "Value"]`` lines, split on ``"]\\n[`` and `` "``."""
FALLBACK = 2
"""Section flag: read by the Python scanner (the kernel cannot tell what it would read)."""

COMPILED_MIN_BYTES = CHUNK_BYTES
"""Input from which :func:`choose_scanner` takes the compiled scanner (when the first
piece is this big): below it, importing numba costs more than it saves, unless numba
is already loaded."""
MAPPED_WINDOW = 8 << 20
"""Bytes the compiled scanner reads at a time from a memory-mapped file."""
_NUMBA_SCANNER = __package__ + ".scan_numba"


@dataclass
class TagSpans:
    """Where the compiled scanner found the games of one byte buffer: games are
    ranges of tag sections (``game_sec0``/``game_sec1``), sections are ranges of tags
    (``sec_tag0``/``sec_tag1``) with flags (``PLAIN``, ``FALLBACK``), tags are the
    spans of a name and a value (a value holding a backslash is ``tag_escaped``). The
    arrays are longer than used; they are valid until the next scan with the same
    workspace."""

    games: int
    offset: int
    """Where the first incomplete game starts (the buffer's size if none)."""
    line: int
    """The line number at ``offset``."""
    bailed: bool
    """The kernel gave the buffer back: scan it with the Python scanner."""
    game_line: Any
    game_sec0: Any
    game_sec1: Any
    sec_head0: Any
    sec_head1: Any
    sec_tag0: Any
    sec_tag1: Any
    sec_flag: Any
    tag_name0: Any
    tag_name1: Any
    tag_value0: Any
    tag_value1: Any
    tag_escaped: Any
    tag_wanted: Any
    """The index of the tag's name among the wanted names (``Wanted``), or -1."""
    tag_hash: Any
    """A wanted tag's ``value_hash``."""


class ScannedGames:
    """The complete games a scanner found in one buffer, in file order: the games'
    first lines and ``(line, tags)`` by iteration; ``tags(game)`` for one game.

    ``spans`` is set when the compiled scanner read ``data`` (bytes or a uint8
    array): a reader may then take the tag values from the bytes itself, asking
    ``tags(game)`` for the games whose sections are flagged ``FALLBACK``."""

    def __init__(
        self,
        games: list[tuple[int, Tags]] | None = None,
        data: Any = None,
        spans: TagSpans | None = None,
    ) -> None:
        self._games = games
        self.data = data
        self.spans = spans

    def __len__(self) -> int:
        return len(self._games) if self._games is not None else self._spans().games

    def __iter__(self) -> Iterator[tuple[int, Tags]]:
        if self._games is not None:
            return iter(self._games)
        return _span_games(self._bytes(), self._spans())

    def lines(self) -> list[int]:
        if self._games is not None:
            return [line for line, _ in self._games]
        spans = self._spans()
        lines: list[int] = spans.game_line[: spans.games].tolist()
        return lines

    def tags(self, game: int) -> Tags:
        if self._games is not None:
            return self._games[game][1]
        spans = self._spans()
        data = self._bytes()
        first = int(spans.game_sec0[game])
        tags = _section_dict(data, spans, first)
        for more in range(first + 1, int(spans.game_sec1[game])):
            tags.update(_section_dict(data, spans, more))
        return tags

    def _spans(self) -> TagSpans:
        assert self.spans is not None
        return self.spans

    def _bytes(self) -> bytes:
        if not isinstance(self.data, bytes):
            self.data = bytes(self.data)  # a window of a memory-mapped file
        return self.data


def _section_dict(buffer: bytes, spans: TagSpans, section: int) -> Tags:
    flag = int(spans.sec_flag[section])
    start = int(spans.sec_head0[section])
    end = int(spans.sec_head1[section])
    if flag & PLAIN:
        pairs = iter(buffer[start + 1 : end - 3].decode("utf-8").replace('"]\n[', ' "').split(' "'))
        return dict(zip(pairs, pairs, strict=False))
    if flag & FALLBACK:  # by the Python scanner, given the blank line after it, if any,
        text = buffer[start:end].decode("utf-8")  # so that it takes the same path
        if buffer[end : end + 1] == b"\n":
            text += "\n"
        return section_tags(text, 0)[0]
    tags: Tags = {}
    for tag in range(int(spans.sec_tag0[section]), int(spans.sec_tag1[section])):
        value = buffer[int(spans.tag_value0[tag]) : int(spans.tag_value1[tag])].decode("utf-8")
        if spans.tag_escaped[tag]:
            value = unescape(value)
        name = buffer[int(spans.tag_name0[tag]) : int(spans.tag_name1[tag])].decode("utf-8")
        tags[name] = value
    return tags


def _span_games(buffer: bytes, spans: TagSpans) -> Iterator[tuple[int, Tags]]:
    games = spans.games
    lines = spans.game_line[:games].tolist()
    first = spans.game_sec0[:games].tolist()
    after = spans.game_sec1[:games].tolist()
    sections = after[-1] if games else 0
    flags = spans.sec_flag[:sections].tolist()
    head0 = spans.sec_head0[:sections].tolist()
    head1 = spans.sec_head1[:sections].tolist()
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
        tags = _section_dict(buffer, spans, section)
        for more in range(section + 1, after[game]):
            tags.update(_section_dict(buffer, spans, more))
        yield lines[game], tags


# -- the two scanners, fed piece by piece ---------------------------------------------------


class Scanner(Protocol):
    """Scans an input piece by piece (each ending at a line end, the last one
    ``final``), keeping the incomplete game at the end of a piece for the next one."""

    line: int

    def feed(self, piece: bytes, first: bool, final: bool) -> ScannedGames: ...


class PythonScanner:
    """The pure-Python scanner: a piece is decoded as UTF-8, else Latin-1."""

    def __init__(self, line: int = 1, text: str = "") -> None:
        self.line = line
        self.text = text

    def feed(self, piece: bytes, first: bool, final: bool) -> ScannedGames:
        chunk = decode(piece)
        if final or "\r" in chunk:
            chunk = chunk.replace("\r\n", "\n")
        if first:
            chunk = chunk.lstrip(BOM)
        text = self.text + chunk if self.text else chunk
        if final and text and not text.endswith("\n"):
            text += "\n"
        out: list[tuple[int, Tags]] = []
        offset, self.line = scan_text(text, self.line, final, out)
        self.text = text[offset:]
        return ScannedGames(out)


class CompiledScanner:
    """The numba scanner, on UTF-8 bytes only (:meth:`python` hands the input over to
    the Python scanner at a piece that is not UTF-8); a buffer the kernel gives back
    is scanned by the Python scanner. ``wanted`` tags get their index and value hash."""

    def __init__(self, wanted: Wanted | None = None, line: int = 1) -> None:
        self.kernel = importlib.import_module(_NUMBA_SCANNER)
        self.workspace: Workspace = self.kernel.Workspace()
        self.wanted = wanted
        self.line = line
        self.buffer = b""

    def feed(self, piece: bytes, first: bool, final: bool) -> ScannedGames:
        if final or b"\r" in piece:
            piece = piece.replace(b"\r\n", b"\n")
        if first:
            piece = strip_bom(piece)
        buffer = self.buffer + piece if self.buffer else piece
        if final and buffer and not buffer.endswith(b"\n"):
            buffer += b"\n"
        games, offset, self.line = self.scan(buffer, self.line, final)
        self.buffer = buffer[offset:]
        return games

    def scan(self, buffer: Any, line: int, final: bool) -> tuple[ScannedGames, int, int]:
        """The games of a UTF-8 buffer (bytes or a uint8 array) whose first line is
        ``line``: (games, offset of the first incomplete game, its line)."""
        spans: TagSpans = self.kernel.scan_buffer(buffer, line, final, self.workspace, self.wanted)
        if not spans.bailed:
            return ScannedGames(data=buffer, spans=spans), spans.offset, spans.line
        text = bytes(buffer).decode("utf-8")
        out: list[tuple[int, Tags]] = []
        offset, line = scan_text(text, line, final, out)
        return ScannedGames(out), len(text[:offset].encode("utf-8")), line

    def python(self) -> PythonScanner:
        """The Python scanner, going on where this one stopped."""
        return PythonScanner(self.line, self.buffer.decode("utf-8"))


def choose_scanner(
    size: int, compiled: bool | None = None, wanted: Wanted | None = None
) -> Scanner:
    """The scanner for an input whose first piece has ``size`` bytes: the compiled
    one from ``COMPILED_MIN_BYTES`` or when numba's scanner is already loaded, else
    the Python one. ``compiled`` True or False forces the choice."""
    if compiled is None:
        compiled = size >= COMPILED_MIN_BYTES or _NUMBA_SCANNER in sys.modules
    if compiled:
        try:
            return CompiledScanner(wanted)
        except ImportError:  # pragma: no cover - numba is a dependency
            pass
    return PythonScanner()


def scan_games(
    source: Source,
    progress: Progress | None = None,
    *,
    compiled: bool | None = None,
    wanted: Wanted | None = None,
) -> Iterator[ScannedGames]:
    """The games of a PGN source (plain, ``.gz`` or ``.zst``), piece by piece, by the
    scanner :func:`choose_scanner` picks. The compiled scanner reads UTF-8 only: from
    a piece that is not, the rest goes to the Python scanner (which reads that piece
    as Latin-1). Each :class:`ScannedGames` is valid until the next is asked for."""
    raw, name, owned = open_binary(source)
    try:
        scanner: Scanner | None = None
        first = True
        for piece, final in line_pieces(chunks(raw, progress, name)):
            if scanner is None:
                scanner = choose_scanner(len(piece), compiled, wanted)
            if isinstance(scanner, CompiledScanner) and not is_utf8(piece):
                scanner = scanner.python()
            yield scanner.feed(piece, first, final)
            first = False
    finally:
        if owned:
            raw.close()


def scan_headers(
    source: Source, progress: Progress | None = None, *, compiled: bool | None = None
) -> Iterator[tuple[int, Tags]]:
    """Yield ``(line, tags)`` for every game of a PGN file or binary stream.

    ``line`` is the 1-based line of the game's first tag; ``tags`` maps every tag
    name to its value, escapes undone, in file order. ``.gz`` and ``.zst`` input is
    decompressed on the fly. ``progress`` is called with the number of file bytes
    read (compressed bytes for compressed input). ``compiled`` forces the scanner
    (None: :func:`choose_scanner` decides).
    """
    for games in scan_games(source, progress, compiled=compiled):
        yield from games


class NotPlain(Exception):
    """Raised by :func:`scan_mapped` at a window that holds a carriage return or is
    not UTF-8, before its games are given: read the file with :func:`scan_games`."""


def scan_mapped(
    source: Source, progress: Progress | None, wanted: Wanted | None = None
) -> Iterator[ScannedGames] | None:
    """:func:`scan_games` of a plain PGN file read through a memory map by the
    compiled scanner, in windows, without copying chunks; None (use
    :func:`scan_games`) unless :func:`~chessrate.io.pgn.source.map_file` maps it.

    The file must be UTF-8 without carriage returns (then the pieces
    :func:`scan_games` would make are all UTF-8 and need no line-end change: both
    give the same games). Each window is checked just before it is scanned; one that
    is not plain raises :class:`NotPlain`, and the caller reads the file again with
    :func:`scan_games`."""
    mapped = map_file(source)
    if mapped is None:
        return None
    return _windows(mapped, progress, wanted)


def _windows(
    mapped: MappedFile, progress: Progress | None, wanted: Wanted | None
) -> Iterator[ScannedGames]:
    scanner = CompiledScanner(wanted)
    data = mapped.array
    size = mapped.size
    start = mapped.first_byte()
    line = 1
    window = MAPPED_WINDOW
    reported = 0
    checked = start
    while True:
        end = min(start + window, size)
        if end < size:
            end = mapped.line_end(start, end)
            if end <= start:  # no line end in the window: a bigger one
                window *= 2
                continue
        if checked < end:  # (a window starts at a line end: UTF-8 is checked in windows)
            has_cr, ascii_only = scanner.kernel.plain_bytes(data[checked:end])
            if has_cr:
                raise NotPlain
            if not ascii_only:
                try:
                    codecs.utf_8_decode(memoryview(mapped.mapped)[checked:end], "strict", True)
                except UnicodeDecodeError:
                    raise NotPlain from None
            checked = end
        final = end == size
        buffer: Any = data[start:end]
        if final and (end == start or data[end - 1] != NEWLINE):
            buffer = bytes(buffer) + b"\n"
        games, offset, line = scanner.scan(buffer, line, final)
        yield games
        if progress is not None:
            done = size if final else start + offset
            progress(done - reported)
            reported = done
        if final:
            return
        window = window * 2 if offset == 0 else MAPPED_WINDOW
        start += offset
