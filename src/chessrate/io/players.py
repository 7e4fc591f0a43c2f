"""Players CSV files read column by column, for :func:`chessrate.io.games.read_players`.

Each distinct cell of a column is decided once by the reference field readers
(:class:`~chessrate.records.PlayerFields`, what :meth:`Player.from_mapping` reads a
row with), and a :class:`Player` is built per row from the decided values. A row
with a refused cell, or a cell in an unknown column, is read by
:meth:`Player.from_mapping`, which raises its ``FILE:LINE: field: reason``; rows are
read in file order, so the first invalid player raises, as in the reference reader.
A file of another shape (quotes, ``\\r``, a BOM, ragged rows, ...) is left to the
reference reader (:func:`read_players_csv` returns None).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Hashable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TypeVar

from ..errors import InvalidRecord
from ..identifiers import PLAIN_ID
from ..numbers import parse_rating
from ..records import PLAYER_FIELDS, ImportedRating, Player, PlayerFields, imported_pools

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
FIELD_LIMIT = 131_072
"""The csv module's longest cell: a longer line is left to the reference reader."""


class _Refused:
    """The decision for a cell the reference refuses (its rows go to the reference)."""


REFUSED = _Refused()


def read_players_csv(path: Path) -> list[Player] | None:
    """Every player of a players CSV file, as the reference reader reads them (the
    same players, the same first error); None when the file's shape is the reference
    reader's to handle."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b'"' in data or b"\r" in data or b"\x00" in data or data.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    header = [name.strip() for name in lines[0].split(",")]
    if len(set(header)) != len(header) or "" in header:
        return None
    if max(map(len, lines)) > FIELD_LIMIT:
        return None
    numbers = [number for number, line in enumerate(lines, start=1) if line][1:]
    rows = [line.split(",") for line in lines[1:] if line]  # the csv module skips empty lines
    if any(len(cells) != len(header) for cells in rows):
        return None
    collecting = gc.isenabled()
    gc.disable()  # hundreds of thousands of acyclic objects: no cycle to find
    try:
        return _Players(path, header, rows, numbers).read()
    finally:
        if collecting:
            gc.enable()


def _decided(
    column: Sequence[K], read: Callable[[K], T], decided: dict[K, T | _Refused]
) -> list[T | _Refused]:
    """``read`` of each cell, called once per distinct cell (not in ``decided`` yet);
    REFUSED where it raises."""
    for cell in set(column).difference(decided):
        try:
            decided[cell] = read(cell)
        except InvalidRecord:
            decided[cell] = REFUSED
    return list(map(decided.__getitem__, column))


def _field(name: str, read: Callable[[PlayerFields], T]) -> Callable[[str], T]:
    """A reader of one cell of column ``name`` with ``read``; a blank cell is absent,
    as the reference reader drops it."""
    return lambda cell: read(PlayerFields({name: cell} if cell.strip() else {}, ""))


class _Players:
    def __init__(
        self, path: Path, header: list[str], rows: list[list[str]], numbers: list[int]
    ) -> None:
        self.path, self.header, self.rows, self.numbers = path, header, rows, numbers
        cells = zip(*rows, strict=True) if rows else ([] for _ in header)
        self.columns: dict[str, Sequence[str]] = dict(zip(header, cells, strict=True))
        self.blank: Sequence[str] = [""] * len(rows)
        self.refused: set[int] = set()
        self.ratings: dict[str, Decimal | _Refused | None] = {}

    def column(self, name: str) -> Sequence[str]:
        """The cells of column ``name`` (blank when the file has no such column)."""
        return self.columns.get(name, self.blank)

    def decide(
        self,
        column: Sequence[K],
        read: Callable[[K], T],
        decided: dict[K, T | _Refused] | None = None,
    ) -> list[T]:
        """The decided cells of a column (``decided``: cells decided before); the rows of
        refused ones are noted."""
        decided = {} if decided is None else decided
        if column is self.blank and self.rows:  # a column the file lacks: one blank cell
            (value,) = _decided(column[:1], read, decided)
            if value is REFUSED:
                self.refused.update(range(len(self.rows)))
            return [value] * len(self.rows)  # type: ignore[list-item]  # REFUSED: noted
        values = _decided(column, read, decided)
        if any(value is REFUSED for value in decided.values()):
            self.refused.update(i for i, value in enumerate(values) if value is REFUSED)
        return values  # type: ignore[return-value]  # REFUSED only at noted rows

    def decide_ratings(
        self, column: Sequence[str], rating: Callable[[str], Decimal | None]
    ) -> None:
        """The distinct rating cells of a column read at once: :func:`parse_rating` is
        what :meth:`PlayerFields.pool_rating` reads a non-blank cell with; if a cell is
        not a rating, each is read alone."""
        cells = [cell for cell in set(column).difference(self.ratings) if cell.strip()]
        try:
            self.ratings.update(zip(cells, map(parse_rating, cells), strict=True))
        except ValueError:
            _decided(cells, rating, self.ratings)

    def read(self) -> list[Player]:
        for name in self.header:  # a cell in an unknown column: the reference's error
            if name not in PLAYER_FIELDS and not imported_pools([name]):
                self.refused.update(i for i, cell in enumerate(self.columns[name]) if cell.strip())
        column = self.column("id")
        if all(map(PLAIN_ID.fullmatch, column)):  # ids the reference takes as they are
            ids = list(column)
        else:
            ident = _field("id", lambda f: f.ident("id"))
            ids = self.decide(
                column, lambda cell: cell if PLAIN_ID.fullmatch(cell) else ident(cell)
            )
        names = self.decide(self.column("name"), _field("name", PlayerFields.name))
        until = self.decide(
            self.column("membership_until"),
            _field("membership_until", PlayerFields.membership_until),
        )
        bots = self.decide(
            list(zip(self.column("bot"), self.column("bot_rating"), strict=True)), _bot
        )
        imported: list[dict[str, ImportedRating]] = [{} for _ in self.rows]
        for pool in imported_pools(self.header):
            for i, entry in enumerate(self.pool(pool)):
                if entry is not None:
                    imported[i][pool] = entry
        wheres = [f"{self.path}:{number}" for number in self.numbers]
        for i in self.refused:  # placeholders until the reference reads these rows
            bots[i] = (False, None)
        bot, bot_rating = [pair[0] for pair in bots], [pair[1] for pair in bots]
        players = list(map(Player, ids, names, until, bot, bot_rating, imported, wheres))
        for i in sorted(self.refused):  # in file order: the first invalid row raises
            players[i] = Player.from_mapping(self.mapping(i), wheres[i])
        return players

    def pool(self, pool: str) -> list[ImportedRating | None]:
        """A pool's imported ratings: each distinct rating cell (a rating reads alike in
        every pool) and games cell read, then the pairs checked, as the reference reads
        and checks them."""
        rating = _field(f"rating_{pool}", lambda f: f.pool_rating(pool))
        self.decide_ratings(self.column(f"rating_{pool}"), rating)
        ratings = self.decide(self.column(f"rating_{pool}"), rating, self.ratings)
        games = self.decide(
            self.column(f"games_{pool}"), _field(f"games_{pool}", lambda f: f.pool_games(pool))
        )
        check = PlayerFields({}, "").imported
        try:  # (a pool's two cells blank, as in most rows: no imported rating)
            return [
                None if rating is None and played is None else check(pool, rating, played)
                for rating, played in zip(ratings, games, strict=True)
            ]
        except (InvalidRecord, TypeError):  # row by row: which rows the reference reads
            pass
        entries: list[ImportedRating | None] = []
        for i, pair in enumerate(zip(ratings, games, strict=True)):
            entry = None
            if i not in self.refused:
                try:
                    entry = check(pool, *pair)
                except InvalidRecord:
                    self.refused.add(i)
            entries.append(entry)
        return entries

    def mapping(self, row: int) -> dict[str, object]:
        """The row as the reference reader hands it to ``from_mapping``."""
        cells = self.rows[row]
        return {name: cell for name, cell in zip(self.header, cells, strict=True) if cell.strip()}


def _bot(cells: tuple[str, str]) -> tuple[bool, Decimal | None]:
    """A row's bot and bot_rating cells, read and checked together as the reference
    reads them."""
    data = {
        name: cell for name, cell in zip(("bot", "bot_rating"), cells, strict=True) if cell.strip()
    }
    fields = PlayerFields(data, "")
    bot, bot_rating = fields.bot(), fields.bot_rating()
    fields.check_bot(bot, bot_rating)
    return bot, bot_rating
