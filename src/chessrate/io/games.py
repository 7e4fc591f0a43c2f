"""Reading game records and players from JSON Lines or CSV files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import InvalidRecord
from ..records import GameRecord, Player
from .tabular import read_records

OnInvalid = Callable[[InvalidRecord], None]


def read_games(
    path: Path, fmt: str | None = None, on_invalid: OnInvalid | None = None
) -> list[GameRecord]:
    """Every game record of a file, validated.

    An invalid record raises :class:`InvalidRecord` naming ``FILE:LINE`` and the
    field, unless ``on_invalid`` is given: then it is reported there and skipped.
    """
    games = []
    for where, fields in read_records(path, fmt):
        try:
            games.append(GameRecord.from_mapping(fields, where))
        except InvalidRecord as error:
            if on_invalid is None:
                raise
            on_invalid(error)
    return games


def read_players(path: Path, fmt: str | None = None) -> list[Player]:
    """Every player of a players file (CSV or JSON Lines), validated; the first
    invalid one raises (players are few and a wrong one would skew every rating)."""
    return [Player.from_mapping(fields, where) for where, fields in read_records(path, fmt)]
