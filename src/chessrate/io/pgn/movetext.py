"""A PGN file's games with their moves, for an import that stores them
(``chessrate import --moves``): each game record (:mod:`.records`, from its tags) with
the moves of its movetext, checked legal from the standard position, as UCI
(:meth:`chessrate.records.GameFields.moves`, what a record's ``movetext`` field is
read with).

A game's movetext is the text after its tags up to the next game's first tag, the
games and their first lines being the header scanner's (:func:`.scan.scan_headers`),
so each record gets its own game's moves whatever the file holds between games. A
game without moves (a headers-only broadcast game, or ``*`` alone) has none; one whose
movetext cannot be read, or holds an illegal move, or whose ``PlyCount`` is not its
number of moves, raises ``FILE:LINE: movetext: reason``, ``LINE`` the game's first tag.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import replace

from ...errors import InvalidRecord
from ...records import GameFields, GameRecord
from .records import OnInvalid, iter_pgn_games
from .scan import scan_headers
from .source import Progress, Source, chunks, decode, open_binary, source_name, strip_bom


def _lines(source: Source) -> list[str]:
    """The file's text (decompressed, UTF-8 else Latin-1) as lines, line 1 first."""
    raw, name, opened = open_binary(source)
    try:
        data = strip_bom(b"".join(chunks(raw, None, name)))
    finally:
        if opened:
            raw.close()
    return decode(data).replace("\r\n", "\n").split("\n")


def movetext_at(lines: list[str], first: int, stop: int) -> str:
    """The movetext of the game whose first tag is on line ``first`` (1-based), the next
    game starting on line ``stop`` (or past the end): the lines after its tag lines."""
    at = first - 1
    while at < min(stop - 1, len(lines)) and lines[at].lstrip().startswith("["):
        at += 1
    return "\n".join(lines[at : stop - 1]).strip()


def iter_pgn_games_with_moves(
    source: Source,
    on_invalid: OnInvalid | None = None,
    *,
    progress: Progress | None = None,
) -> Iterator[GameRecord]:
    """The game records of a PGN file, each with its moves (module docstring)."""
    name = source_name(source)
    records = list(iter_pgn_games(source, on_invalid, progress=progress))
    lines = _lines(source)
    starts = [line for line, _ in scan_headers(source)]  # every game's, refused ones too
    for record in records:
        first = _line_of(record, name)
        following = bisect.bisect_right(starts, first)
        stop = starts[following] if following < len(starts) else len(lines) + 2
        text = movetext_at(lines, first, stop)
        try:  # read as a record's movetext field is (the same checks, the same words)
            moves = GameFields({"movetext": text} if text else {}, record.source).moves(
                record.id, record.result
            )
            if moves and record.plies is not None and record.plies != len(moves):
                raise InvalidRecord(
                    record.source, "movetext",
                    f"game {record.id}: the PlyCount tag says {record.plies} but the moves "
                    f"hold {len(moves)} plies",
                )  # fmt: skip
        except InvalidRecord as error:
            if on_invalid is None:
                raise
            on_invalid(error)
            continue
        yield replace(record, moves=moves, plies=len(moves) if moves else record.plies)


def _line_of(record: GameRecord, name: str) -> int:
    """The line of a record's first tag, from its ``FILE:LINE`` source."""
    assert record.source.startswith(f"{name}:"), record.source
    return int(record.source.rsplit(":", 1)[1])
