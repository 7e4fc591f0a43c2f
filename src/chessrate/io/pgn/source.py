"""The bytes of a PGN input: opened, decompressed, cut into pieces of whole lines.

A source is a path or a binary stream; plain, ``.gz`` or ``.zst`` input is told by
its first bytes, not its name. :func:`line_pieces` gives the input in pieces that end
at a line end; :func:`map_file` maps a big plain file in memory instead. Progress
callbacks receive the number of file bytes read (compressed bytes for compressed
input). Nothing here knows what a game is (see ``docs/internals.md``, "PGN reading").
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from ...errors import InvalidInput

Source = Path | str | BinaryIO
Progress = Callable[[int], None]
"""Called with the number of (compressed) bytes of the file read since the last call."""

CHUNK_BYTES = 4 << 20
"""Bytes read (after decompression) at a time."""
MAPPED_MIN_BYTES = 1 << 20
"""A plain file from this size may be memory-mapped (:func:`map_file`)."""
BOM = "\ufeff"
BOM_BYTES = BOM.encode("utf-8")
NEWLINE = 10
_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def source_name(source: Source) -> str:
    """How errors name the input: the path, else the stream's ``name``, else ``<pgn>``."""
    if isinstance(source, str | Path):
        return str(source)
    return str(getattr(source, "name", "<pgn>"))


def open_binary(source: Source) -> tuple[BinaryIO, str, bool]:
    """(binary stream, name for messages, whether it was opened here and must be closed)."""
    if isinstance(source, str | Path):
        try:
            return open(source, "rb"), str(source), True
        except OSError as error:
            raise InvalidInput(f"{source}: cannot read: {error.strerror}") from None
    return source, source_name(source), False


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


def chunks(raw: BinaryIO, progress: Progress | None, name: str) -> Iterator[bytes]:
    """The decompressed bytes of ``raw`` in chunks of ``CHUNK_BYTES`` (gzip and zstd
    told by their magic bytes). A broken compressed stream raises :class:`InvalidInput`."""
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


def line_pieces(data: Iterable[bytes]) -> Iterator[tuple[bytes, bool]]:
    """``(piece, final)``: the bytes of ``data`` again, cut after the last line end of
    each chunk (a chunk without one is joined to the next). The last piece, flagged
    ``final``, holds what follows the last line end (it may be empty)."""
    pending = b""
    for chunk in data:
        chunk = pending + chunk
        cut = chunk.rfind(b"\n") + 1
        if cut == 0:
            pending = chunk
            continue
        pending = chunk[cut:]
        yield chunk[:cut], False
    yield pending, True


def decode(data: bytes) -> str:
    """UTF-8, else Latin-1 (which reads any bytes)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def is_utf8(data: bytes) -> bool:
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def strip_bom(data: bytes) -> bytes:
    """``data`` without the UTF-8 byte order marks it starts with."""
    while data.startswith(BOM_BYTES):
        data = data[len(BOM_BYTES) :]
    return data


@dataclass
class MappedFile:
    """A plain file mapped in memory (read-only): ``mapped`` (an ``mmap``) and
    ``array``, the same bytes as a numpy ``uint8`` array, without a copy."""

    mapped: Any
    array: Any

    @property
    def size(self) -> int:
        return int(self.array.size)

    def first_byte(self) -> int:
        """Where the text starts: after any byte order marks."""
        start = 0
        while self.mapped[start : start + len(BOM_BYTES)] == BOM_BYTES:
            start += len(BOM_BYTES)
        return start

    def line_end(self, start: int, end: int) -> int:
        """Just after the last line end in ``[start, end)``; ``start`` if none."""
        return max(int(self.mapped.rfind(b"\n", start, end)) + 1, start)


def map_file(source: Source) -> MappedFile | None:
    """The file memory-mapped, when ``source`` is a path to an uncompressed file of
    ``MAPPED_MIN_BYTES`` or more; else None (read it with :func:`line_pieces`, which
    also reports a file that cannot be read)."""
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
        return None
    if mapped[:2] == _GZIP_MAGIC or mapped[:4] == _ZSTD_MAGIC:
        return None
    return MappedFile(mapped, np.frombuffer(mapped, np.uint8))


def file_size(source: Source) -> int:
    """The size of a file named by path (0 for a stream or a file that cannot be read)."""
    try:
        return os.stat(source).st_size if isinstance(source, str | Path) else 0
    except OSError:
        return 0


class ProgressOnce:
    """A progress callback that can start again from byte 0 (a second reading of the
    same file) and then reports only the bytes past those reported before."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress
        self.total = 0
        self.skip = 0

    def restart(self) -> None:
        """Count again from 0, reporting only what goes past what was reported."""
        self.skip, self.total = self.total, 0

    def __call__(self, count: int) -> None:
        self.total += count
        if self.progress is not None and self.total > self.skip:
            self.progress(min(count, self.total - self.skip))
