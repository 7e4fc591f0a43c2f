"""PGN to game records: every game's tags (:mod:`~chessrate.io.pgn.scan`) through
:func:`~chessrate.io.pgn.tags.game_from_tags`, in file order.

An invalid game raises :class:`~chessrate.errors.InvalidRecord` (``FILE:LINE`` of its
first tag, the tag, the reason), or, with ``on_invalid``, is reported there and
skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ...errors import InvalidRecord
from ...records import GameRecord
from .scan import scan_headers
from .source import Progress, Source, source_name
from .tags import PlayerIds, game_from_tags

OnInvalid = Callable[[InvalidRecord], None]


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
    name = source_name(source)
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
