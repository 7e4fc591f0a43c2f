"""Reading game records and players from JSON Lines or CSV files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import InvalidInput, InvalidRecord
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


AnnulmentRequest = tuple[str, str, str]
"""(where, game id, reason)."""


def read_annulments(path: Path) -> list[AnnulmentRequest]:
    """An annulments file: one game id a line, optionally followed by whitespace and
    the reason; blank lines and lines starting with ``#`` are skipped."""
    requests = []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInput(f"{path}: cannot read: {error}") from None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        game_id, _, reason = (
            stripped.partition("\t") if "\t" in stripped else stripped.partition(" ")
        )
        requests.append((f"{path}:{number}", game_id.strip(), reason.strip()))
    return requests
