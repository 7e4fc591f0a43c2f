"""Rate a file of games: the library call behind ``chessrate rate``.

:func:`rate_file` reads a games file (JSON Lines, CSV or PGN), an optional players
file and optional site S10 annulments, rates them by one system with either engine,
and returns a :class:`RatedFile`: rating lists, outcomes, counts and a per-player
lookup, the same whichever engine ran::

    from chessrate import rate_file
    rated = rate_file("games.csv", "arena", players="players.csv")
    rated.top("blitz", 10)            # the first ten entries of the blitz list
    rated.entries_of("nadia")         # her entry in every pool she is listed in
    rated.outcome_counts()            # rated / unrated / void

``engine="auto"`` takes the compiled replay (:mod:`chessrate.fast`, numba) for a
file of :data:`COMPILED_FROM_BYTES` or more and the reference engine below that
(it has rated a small file before numba has loaded); ``history=True`` needs the
reference engine, the only one that keeps every change's explanation. Importing
this module loads neither numba nor pyarrow: the compiled path loads them when it
runs.
"""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .engine import Annulment, Engine
from .errors import InvalidInput, InvalidRecord
from .io.games import read_annulments, read_games, read_players
from .io.lists import ListColumns, list_columns_text
from .io.tabular import detect_format
from .records import GameRecord, Outcome, Player
from .systems import get_system
from .systems.base import GameRating, ListEntry, RatingSystem

if TYPE_CHECKING:
    from .fast import CompiledReplay, Roster

ENGINES = ("auto", "compiled", "reference")
"""The ``engine`` choices of :func:`rate_file`."""

COMPILED_FROM_BYTES = 2_000_000
"""``engine="auto"`` takes the compiled replay from this file size on (about 15,000
games): below it, the reference engine has rated the file before numba and pyarrow
are loaded (measured: bench/RESULTS.md)."""

OnInvalid = Callable[[InvalidRecord], None]


class Progress(Protocol):
    """Told how far a stage went: ``stage`` is ``"reading"`` (bytes of the games
    file, for PGN) or ``"rating"`` (games); ``advance`` is the amount just done and
    ``total`` the stage's whole amount."""

    def __call__(self, stage: str, advance: int, total: int) -> None: ...


@dataclass(frozen=True, slots=True)
class _AnnulmentLine:
    where: str | None  # FILE:LINE of an annulments file, else None
    game_id: str
    reason: str


def rate_file(
    path: str | Path,
    system: str | RatingSystem[Any],
    *,
    players: str | Path | Iterable[Player] | None = None,
    annulments: str | Path | Iterable[tuple[str, str]] | None = None,
    engine: str = "auto",
    on_invalid: OnInvalid | None = None,
    progress: Progress | None = None,
    fmt: str | None = None,
    history: bool = False,
    annulled_at: datetime | None = None,
    annulled_by: str | None = None,
) -> RatedFile:
    """Rate the games of ``path`` by ``system`` (an id, or a system object with its
    own rules) and return the result.

    ``players`` and ``annulments`` are files (CSV or JSON Lines; one game id a line
    with an optional reason) or the values themselves (:class:`Player` objects;
    (game id, reason) pairs). Annulments are applied after every game, at
    ``annulled_at`` (default: now), ``by`` the annulments file unless
    ``annulled_by`` is given. An invalid record raises its ``FILE:LINE: field:
    reason`` and nothing is returned, unless ``on_invalid`` is given: then each
    invalid record (game or annulment) is reported there and left out. ``history``
    keeps every change's explanation (:attr:`RatedFile.ratings`; reference engine
    only)."""
    path = Path(path)
    if engine not in ENGINES:
        raise InvalidInput(f"unknown engine {engine!r} (known: {', '.join(ENGINES)})")
    if engine == "compiled" and history:
        raise InvalidInput("a history needs the reference engine (engine='reference' or 'auto')")
    chosen = get_system(system) if isinstance(system, str) else system
    skipped: list[InvalidRecord] = []

    def invalid(error: InvalidRecord) -> None:
        skipped.append(error)
        if on_invalid is not None:
            on_invalid(error)

    report = invalid if on_invalid is not None else None
    ahead = _read_ahead(path, fmt, engine, history, report)
    registered: Roster | None = None
    try:
        roster = _players(players)
        requests, by = _annulments(annulments, annulled_by)
        if ahead is not None:  # the players registered while the games are still read
            registered = _registered(chosen, roster)
    except BaseException:
        if ahead is not None:
            ahead.abandon()  # their error is the one raised, as when read first
        raise
    batch = ahead.result() if ahead is not None else None
    at = annulled_at or datetime.now(UTC).replace(microsecond=0)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise InvalidInput(f"{path}: cannot read: {error.strerror}") from None
    compiled = engine == "compiled" or (
        engine == "auto" and not history and size >= COMPILED_FROM_BYTES
    )
    if compiled:
        rated: RatedFile = _rate_compiled(
            path, chosen, registered or roster, fmt, report, progress, batch
        )
    else:
        rated = _rate_reference(path, chosen, roster, fmt, report, progress)
    rated.skipped = skipped
    for request in requests:
        try:
            rated.annulments.append(rated._annul(request.game_id, request.reason, at, by))
        except InvalidRecord as error:
            located = error
            if request.where is not None:
                located = InvalidRecord(
                    request.where, error.field, f"{request.game_id}: {error.reason}"
                )
            if report is None:
                raise located from None
            report(located)
    return rated


def _registered(system: RatingSystem[Any], players: list[Player]) -> Roster:
    """The compiled replay's :class:`~chessrate.fast.Roster` of the players, with its
    attribute arrays built."""
    from .fast import Roster

    roster = Roster(system, players)
    roster.attributes([])  # builds the registered players' arrays once
    return roster


def _players(players: str | Path | Iterable[Player] | None) -> list[Player]:
    if players is None:
        return []
    if isinstance(players, str | Path):
        return read_players(Path(players))
    return list(players)


def _annulments(
    annulments: str | Path | Iterable[tuple[str, str]] | None, by: str | None
) -> tuple[list[_AnnulmentLine], str | None]:
    if annulments is None:
        return [], by
    if isinstance(annulments, str | Path):
        lines = read_annulments(Path(annulments))
        requests = [_AnnulmentLine(where, game_id, reason) for where, game_id, reason in lines]
        return requests, by if by is not None else str(annulments)
    return [_AnnulmentLine(None, game_id, reason) for game_id, reason in annulments], by


READ_AHEAD_SWITCH_SECONDS = 0.0005
"""Python's thread switch interval while a file is read ahead (its default is 5 ms)."""


class _SwitchInterval:
    """Python's thread switch interval shortened while any read-ahead runs, and put
    back when the last one ends. Each of the reader's numba scans releases the GIL, and
    the reader needs it back between scans; while the main thread runs the players
    file's Python, it held the GIL up to the whole interval (5 ms) each time, and the
    reader of a million games spent a third of a second waiting for it (0.3-0.5 s of
    the main thread waiting for the reader afterwards; 0-0.07 s at half a
    millisecond)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._saved = 0.0

    def enter(self) -> None:
        with self._lock:
            if self._running == 0:
                self._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(self._saved, READ_AHEAD_SWITCH_SECONDS))
            self._running += 1

    def leave(self) -> None:
        with self._lock:
            self._running -= 1
            if self._running == 0:
                sys.setswitchinterval(self._saved)


_SWITCH = _SwitchInterval()


class _ReadAhead:
    """The compiled reader of a CSV or JSON Lines games file, run in a thread while the
    players and annulments files are read and the players registered: its numba scans
    release the GIL, so on two cores they run while the players file's Python does
    (numba's start, Python too, is done before the thread: :func:`_read_ahead`; the
    stages are in ``bench/rate_cli.py``), Python switching threads every half
    millisecond meanwhile (:class:`_SwitchInterval`). Nothing it does is seen before
    :meth:`result`, called after the other files are read, whatever they raised: the
    records it refused are reported to ``on_invalid`` then, in file order, and its own
    error is raised then, as it would be had the file been read after the others."""

    def __init__(self, path: Path, fmt: str | None, on_invalid: OnInvalid | None) -> None:
        self._refused: list[InvalidRecord] = []
        self._report = on_invalid
        self._batch: Any = None
        self._error: BaseException | None = None
        deferred = self._refused.append if on_invalid is not None else None
        self._thread = threading.Thread(
            target=self._read, args=(path, fmt, deferred), name="chessrate-read", daemon=True
        )
        _SWITCH.enter()
        try:
            self._thread.start()
        except BaseException:  # no thread to put the interval back
            _SWITCH.leave()
            raise

    def _read(self, path: Path, fmt: str | None, on_invalid: OnInvalid | None) -> None:
        try:
            self._batch = read_compiled_batch(path, fmt, None, on_invalid)
        except BaseException as error:  # raised by result(), on the caller's thread
            self._error = error
        finally:
            _SWITCH.leave()

    def abandon(self) -> None:
        """Wait for the reader and drop what it read or raised."""
        self._thread.join()

    def result(self) -> Any:
        """The batch (after the refused records are reported), or the reader's error."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        if self._report is not None:
            for refused in self._refused:
                self._report(refused)
        return self._batch


def _read_ahead(
    path: Path, fmt: str | None, engine: str, history: bool, on_invalid: OnInvalid | None
) -> _ReadAhead | None:
    """A :class:`_ReadAhead` of the games file when the compiled replay will read it and
    it is CSV or JSON Lines (PGN reports its progress, so it is read in turn); else
    None (the file is read after the others, as always)."""
    try:
        size = path.stat().st_size
        kind = detect_format(path, fmt)
    except (OSError, InvalidInput):
        return None  # the error is raised where it always was
    compiled = engine == "compiled" or (
        engine == "auto" and not history and size >= COMPILED_FROM_BYTES
    )
    if not compiled or kind == "pgn":
        return None
    from .fast.columnar import start

    start()  # numba's start is Python: here, before the thread, not against the players
    return _ReadAhead(path, fmt, on_invalid)


def read_for_compiled(
    path: Path,
    fmt: str | None,
    players: Path | None,
    system: RatingSystem[Any],
    on_invalid: OnInvalid | None = None,
) -> tuple[Any, Roster]:
    """The games file as the compiled replay's batch (:func:`read_compiled_batch`) and
    the players file registered for ``system`` (a :class:`~chessrate.fast.Roster`, its
    arrays built), as ``rate_file`` reads them for the compiled replay: a CSV or JSON
    Lines games file in a thread while the players file is read and registered (the
    players file's error first, then the games file's)."""
    ahead = _read_ahead(path, fmt, "compiled", False, on_invalid)
    try:
        roster = _registered(system, _players(players))
    except BaseException:
        if ahead is not None:
            ahead.abandon()
        raise
    if ahead is not None:
        return ahead.result(), roster
    return read_compiled_batch(path, fmt, None, on_invalid), roster


def _stage(progress: Progress | None, stage: str, total: int) -> Callable[[int], None] | None:
    if progress is None:
        return None
    return lambda advance: progress(stage, advance, total)


def _rate_reference(
    path: Path,
    system: RatingSystem[Any],
    players: list[Player],
    fmt: str | None,
    on_invalid: OnInvalid | None,
    progress: Progress | None,
) -> RatedFile:
    engine: Engine[Any] = Engine(system, players)
    reading = None
    if detect_format(path, fmt) == "pgn":
        reading = _stage(progress, "reading", path.stat().st_size)
    records: list[GameRecord] = read_games(path, fmt, on_invalid, reading)
    engine.replay(records, on_invalid, _stage(progress, "rating", len(records)))
    return _ReferenceFile(system, path, "reference", state=engine)


def _rate_compiled(
    path: Path,
    system: RatingSystem[Any],
    players: list[Player] | Roster,
    fmt: str | None,
    on_invalid: OnInvalid | None,
    progress: Progress | None,
    batch: Any = None,
) -> RatedFile:
    """The compiled replay of the games file (``players``: maybe registered already;
    ``batch``: maybe read already)."""
    from .fast import Roster, replay

    roster = players if isinstance(players, Roster) else Roster(system, players)
    if batch is None:
        batch = read_compiled_batch(path, fmt, progress, on_invalid)
    result = replay(
        system,
        batch,
        roster,
        on_invalid=on_invalid,
        progress=_stage(progress, "rating", len(batch)),
    )
    return _CompiledFile(system, path, "compiled", state=result)


def read_compiled_batch(
    path: Path, fmt: str | None, progress: Progress | None, on_invalid: OnInvalid | None = None
) -> Any:
    """A games file (CSV, JSON Lines or PGN) as the compiled replay's
    :class:`~chessrate.fast.batch.GameBatch` (the same records and errors as the
    reference readers)."""
    if detect_format(path, fmt) == "pgn":
        from .fast.pgn import read_pgn_batch

        reading = _stage(progress, "reading", path.stat().st_size)
        return read_pgn_batch(path, on_invalid, progress=reading)
    from .fast.columnar import read_batch

    return read_batch(path, fmt, on_invalid)


class RatedFile:
    """A rated file: the rating lists, outcomes and counts, the same whichever engine
    ran (``engine`` says which). Lists are built when first asked for."""

    def __init__(self, system: RatingSystem[Any], source: Path, engine: str) -> None:
        self.system = system
        self.source = source
        self.engine = engine
        self.skipped: list[InvalidRecord] = []
        """The invalid records left out (with ``on_invalid``), in the order reported."""
        self.annulments: list[Annulment] = []
        """The annulments applied after the games (site S10)."""

    @property
    def games(self) -> int:
        """Games applied (refused records and repeats of a game excluded)."""
        raise NotImplementedError

    @property
    def ratings(self) -> Sequence[GameRating[Any]]:
        """Every applied game's decision with its explanations (reference engine)."""
        raise InvalidInput("the explanations are kept by the reference engine only")

    def player(self, player_id: str) -> Player:
        """A player's attributes (none for a player absent from the players file)."""
        raise NotImplementedError

    def outcome(self, game_id: str) -> Outcome | None:
        """A game's outcome (an annulled game is void); None for a game not applied."""
        raise NotImplementedError

    def outcome_counts(self) -> Counter[Outcome]:
        """Games per outcome, an annulled game counting as void."""
        raise NotImplementedError

    def pool_size(self, pool: str) -> int:
        """How many entries the pool's rating list has."""
        raise NotImplementedError

    def top(self, pool: str, count: int | None = None) -> list[ListEntry]:
        """The first ``count`` entries of a pool's list (all of them for None)."""
        raise NotImplementedError

    def rating_lists(self) -> dict[str, list[ListEntry]]:
        """Every pool's list, in the system's pool order."""
        return {pool: self.top(pool) for pool in self.system.pools}

    def entries(self) -> Iterator[ListEntry]:
        """Every list entry, pool after pool."""
        for pool in self.system.pools:
            yield from self.top(pool)

    def list_columns(self) -> list[ListColumns]:
        """Every pool's list as columns, pool after pool (what :meth:`list_text`
        writes)."""
        return [ListColumns.of(self.top(pool)) for pool in self.system.pools]

    def list_text(self, path: Path) -> str:
        """The whole rating list in ``path``'s format (.json or .csv), as ``--out``
        writes it (:func:`chessrate.io.lists.rating_list_text`)."""
        text = self._list_json() if path.suffix.lower() == ".json" else None
        return list_columns_text(self.list_columns(), path) if text is None else text

    def _list_json(self) -> str | None:
        """The ``.json`` list's text when the engine writes it by itself; else None."""
        return None

    def entries_of(self, player_id: str) -> dict[str, tuple[int | None, ListEntry]]:
        """The player's entry in each pool where he is listed, with his rank there
        (None while not rated, e.g. arena's qualifying players)."""
        found = {}
        for pool in self.system.pools:
            rank = 0
            for entry in self.top(pool):
                if entry.rating is not None:
                    rank += 1
                if entry.player == player_id:
                    found[pool] = (rank if entry.rating is not None else None, entry)
                    break
        return found

    def _annul(self, game_id: str, reason: str, at: datetime, by: str | None) -> Annulment:
        raise NotImplementedError


class _ReferenceFile(RatedFile):
    """The reference engine's result."""

    def __init__(
        self, system: RatingSystem[Any], source: Path, engine: str, *, state: Engine[Any]
    ) -> None:
        super().__init__(system, source, engine)
        self.state = state
        self._lists: dict[str, list[ListEntry]] = {}

    @property
    def games(self) -> int:
        return len(self.state.ratings)

    @property
    def ratings(self) -> Sequence[GameRating[Any]]:
        return self.state.ratings

    def player(self, player_id: str) -> Player:
        return self.state.player(player_id)

    def outcome(self, game_id: str) -> Outcome | None:
        return self.state.outcome(game_id)

    def outcome_counts(self) -> Counter[Outcome]:
        counts: Counter[Outcome] = Counter()
        for rating in self.state.ratings:
            outcome = self.state.outcome(rating.game.id)
            if outcome is not None:
                counts[outcome] += 1
        return counts

    def _list(self, pool: str) -> list[ListEntry]:
        if pool not in self._lists:
            self._lists[pool] = self.state.rating_list(pool)
        return self._lists[pool]

    def pool_size(self, pool: str) -> int:
        return len(self._list(pool))

    def top(self, pool: str, count: int | None = None) -> list[ListEntry]:
        entries = self._list(pool)
        return list(entries if count is None else entries[:count])

    def _annul(self, game_id: str, reason: str, at: datetime, by: str | None) -> Annulment:
        self._lists.clear()
        return self.state.annul(game_id, reason, at, by)


class _CompiledFile(RatedFile):
    """The compiled replay's result: lists are built from arrays, only as far as
    asked (the top of a list costs what its entries cost)."""

    def __init__(
        self, system: RatingSystem[Any], source: Path, engine: str, *, state: CompiledReplay
    ) -> None:
        super().__init__(system, source, engine)
        self.state = state

    @property
    def games(self) -> int:
        return self.state.games

    def player(self, player_id: str) -> Player:
        return self.state.player(player_id)

    def outcome(self, game_id: str) -> Outcome | None:
        return self.state.outcome(game_id)

    def outcome_counts(self) -> Counter[Outcome]:
        return self.state.outcome_counts()

    def pool_size(self, pool: str) -> int:
        return len(self.state.pool_arrays(pool))

    def top(self, pool: str, count: int | None = None) -> list[ListEntry]:
        arrays = self.state.pool_arrays(pool)
        return self.state.entries(arrays if count is None else arrays.head(count))

    def list_columns(self) -> list[ListColumns]:
        return [self.state.columns(self.state.pool_arrays(pool)) for pool in self.system.pools]

    def _list_json(self) -> str | None:
        return self.state.list_json()

    def entries_of(self, player_id: str) -> dict[str, tuple[int | None, ListEntry]]:
        found = {}
        for pool in self.system.pools:
            located = self.state.locate(player_id, pool)
            if located is not None:
                found[pool] = located
        return found

    def _annul(self, game_id: str, reason: str, at: datetime, by: str | None) -> Annulment:
        return self.state.annul(game_id, reason, at, by)
