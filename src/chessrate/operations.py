"""Ledger operations of the command line: importing files into a ledger whole or not at
all, exporting a ledger as files that import back to the same ratings, checking a
``fide`` ledger's closed periods, and the rating lab on a ledger's history
(:func:`evaluate_ledger`).

Thin over :class:`~chessrate.ledger.Ledger`: the ratings are computed by the ledger
(the same system functions as the batch engine); this module only orders the steps
and checks the input first, so that bad input never half-applies. It asks the
ledger's methods and runs no database query of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import lab
from .engine import Engine
from .errors import InvalidInput, InvalidRecord, NotFound
from .io.games import AnnulmentRequest, holds_moves, read_games
from .io.tabular import detect_format
from .lab import (
    Evaluation,
    evaluate_batch,
    evaluate_games,
    evaluate_periods,
    jobs_for,
    uses_compiled,
    variants,
)
from .lab.periods import period_variants
from .ledger import AnnulmentView, Ledger
from .records import GameRecord, Player

if TYPE_CHECKING:
    from .rating import Progress


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import did."""

    created_players: tuple[str, ...]
    updated_players: tuple[str, ...]
    implicit_players: tuple[str, ...]
    """Named in games, absent from the ledger and the players file: created with no
    attributes."""
    new_games: int
    repeated_games: int
    """Already in the ledger (or earlier in the file) with the same content."""
    outcomes: Mapping[str, int]
    """Outcome (rated, unrated, void) -> number of the new games."""
    annulled: tuple[str, ...]
    skipped: tuple[InvalidRecord, ...] = ()
    """The records left out, unreadable (``skip_invalid``), in file order."""


def import_records(
    ledger: Ledger,
    games: Sequence[GameRecord],
    players: Sequence[Player],
    now: datetime,
    annulments: Sequence[AnnulmentRequest] = (),
    by: str | None = None,
) -> ImportReport:
    """Store players (created, or updated when they exist), every game in the given
    order (the ledger rates in commit order) and the annulments, in ONE transaction.

    Everything is checked before anything is stored: players against the system,
    games by a rehearsal through the in-memory engine (malformed or refused records,
    an id reused for a different game in the file or in the ledger), annulments
    against the games. An invalid record raises :class:`InvalidRecord` naming its
    ``FILE:LINE`` and field, and nothing is stored.
    """
    system = ledger.system  # a fide ledger refuses here: it rates periods, not games
    plan = _plan_players(ledger, players, {side for g in games for side in (g.white, g.black)})
    to_create, to_update, implicit, final = plan

    stored_games: dict[str, GameRecord] = {}
    if games and ledger.counts()["games"]:
        stored_games = {game.id: game for game in ledger.games.export()}
    rehearsal: Engine[Any] = Engine(system)
    for player in final.values():
        rehearsal.set_player(player)
    for game in games:
        known = stored_games.get(game.id)
        if known is None:
            rehearsal.apply(game)  # raises InvalidRecord naming FILE:LINE and the field
        elif known != game:
            raise game.refuse(
                "id", f"game id {game.id!r} is already in the ledger for a different game"
            )

    already = {annulment.game_id for annulment in ledger.annulments.list()}
    wanted: list[AnnulmentRequest] = []
    for where, game_id, reason in annulments:
        if game_id in already:
            continue
        if not ledger.info.annulments:
            raise InvalidRecord(
                where, "id", f"the {system.id} regulation has no fair-play annulment (site S10)"
            )
        if rehearsal.outcome(game_id) is None and game_id not in stored_games:
            try:
                ledger.games.get(game_id)
            except NotFound:
                raise InvalidRecord(where, "id", f"{game_id}: no such game to annul") from None
        if rehearsal.outcome(game_id) is not None:
            try:
                rehearsal.annul(game_id, reason, now, by)
            except InvalidRecord as error:
                raise InvalidRecord(where, error.field, f"{game_id}: {error.reason}") from None
        wanted.append((where, game_id, reason))

    # One transaction for all of it: players, games, annulments, or nothing.
    stored, done = ledger.games.import_all(
        [*to_create, *(Player(player_id) for player_id in implicit)],
        _updates(to_update),
        games,
        [(game_id, reason) for _, game_id, reason in wanted],
        by,
        now,
    )
    outcomes = Counter(view.outcome for view, created in stored if created)
    annulled = [annulment.game_id for annulment in done]
    new = sum(1 for _, created in stored if created)
    return ImportReport(
        created_players=tuple(p.id for p in to_create),
        updated_players=tuple(p.id for p in to_update),
        implicit_players=tuple(implicit),
        new_games=new,
        repeated_games=len(stored) - new,
        outcomes=dict(outcomes),
        annulled=tuple(annulled),
    )


def _plan_players(
    ledger: Ledger, players: Sequence[Player], named: set[str], only_named: bool = False
) -> tuple[list[Player], list[Player], list[str], dict[str, Player]]:
    """The file's players against the ledger's: (to create, to update, named in games
    but nowhere else, every player's final attributes: of every stored player, or with
    ``only_named`` of the players the file names). Refuses a player the system cannot
    use, and the same id twice in the file."""
    system = ledger.system
    in_file: Engine[Any] = Engine(system)
    for player in players:
        in_file.add_player(player)  # duplicates and attributes the system cannot use
    if only_named:  # the bulk path reads only the players its games and file name
        stored_players = ledger.players.some(named | {player.id for player in players})
    else:
        stored_players = {player.id: player for player in ledger.players.all()}
    to_create: list[Player] = []
    to_update: list[Player] = []
    final: dict[str, Player] = dict(stored_players)
    for player in players:
        current = stored_players.get(player.id)
        if current is None:
            to_create.append(player)
            final[player.id] = player
            continue
        # The ledger's update keeps the attributes the file leaves out.
        merged = Player.from_mapping(
            {**current.to_mapping(), **player.to_mapping()}, player.source or player.id
        )
        system.check_player(merged)
        if merged != current:
            to_update.append(player)
        final[player.id] = merged
    implicit = sorted(named - final.keys())
    for player_id in implicit:
        final[player_id] = Player(player_id)
    return to_create, to_update, implicit, final


def _updates(to_update: Sequence[Player]) -> list[tuple[str, dict[str, Any]]]:
    return [(p.id, {k: v for k, v in p.to_mapping().items() if k != "id"}) for p in to_update]


def import_file(
    ledger: Ledger,
    path: Path,
    fmt: str | None,
    players: Sequence[Player],
    now: datetime,
    annulments: Sequence[AnnulmentRequest] = (),
    by: str | None = None,
    progress: Progress | None = None,
    moves: bool = False,
    skip_invalid: bool = False,
) -> ImportReport:
    """Import a games file: into a ledger that holds no game yet, or whose games were
    all played before the file's first game (and none of whose ids the file repeats),
    through the bulk path (:meth:`Bulk.run <chessrate.ledger.bulk.Bulk.run>`: the compiled
    replay, continuing from the ledger's current ratings, rows written in bulk); else
    game by game (:func:`import_records`). Either way one transaction, and the same
    rows (tests/ledger/test_bulk.py). A file that gives games' moves goes game by game:
    the moves are checked and stored with their games. ``moves``: a PGN file's own
    movetext is read too, and stored as each game's moves (game by game; python-chess
    reads every game: :mod:`chessrate.io.pgn.movetext`). ``skip_invalid``: a record
    that cannot be read (a variant, a bad tag or field, an illegal move) is left out
    and listed in the report's ``skipped`` instead of refusing the file, and so is a
    game that reuses an id an earlier game of the same file has, for another game (the
    first is kept: :func:`_first_of_each_id`); one the ledger refuses (the id of a game
    it holds, a player the system cannot take) still refuses the file."""
    skipped: list[InvalidRecord] = []

    def reading() -> Callable[[InvalidRecord], None] | None:
        skipped.clear()  # a fallback reads the file again: its refusals only
        return skipped.append if skip_invalid else None

    report = _import_file(ledger, path, fmt, players, now, annulments, by, progress, moves,
                          reading)  # fmt: skip
    return replace(report, skipped=tuple(sorted(skipped, key=_line_of)))


def _line_of(error: InvalidRecord) -> int:
    """The line of a refused record's ``FILE:LINE`` (0 when it names none)."""
    line = error.where.rpartition(":")[2]
    return int(line) if line.isdigit() else 0


def _import_file(
    ledger: Ledger, path: Path, fmt: str | None, players: Sequence[Player], now: datetime,
    annulments: Sequence[AnnulmentRequest], by: str | None, progress: Progress | None,
    moves: bool, reading: Callable[[], Callable[[InvalidRecord], None] | None],
) -> ImportReport:  # fmt: skip
    if moves:
        if detect_format(path, fmt) != "pgn":
            raise InvalidInput(
                f"{path}: reading the moves of the movetext is for PGN files (a CSV or JSON "
                "Lines file gives a game's moves in its moves or movetext field)"
            )
        from .io.pgn.movetext import iter_pgn_games_with_moves

        on_invalid = reading()
        records = _first_of_each_id(list(iter_pgn_games_with_moves(path, on_invalid)), on_invalid)
        return import_records(ledger, records, players, now, annulments, by)
    if ledger.info.compiled is None or holds_moves(path, fmt):  # only a compiled half
        return _import_read(ledger, path, fmt, players, now, annulments, by, reading)
    from .rating import read_compiled_batch

    on_invalid = reading()
    batch = read_compiled_batch(path, fmt, progress, on_invalid)
    if not ledger.bulk.appendable(batch) or (on_invalid is not None and _reuses_ids(batch)):
        return _import_read(ledger, path, fmt, players, now, annulments, by, reading)
    to_create, to_update, implicit, final = _plan_players(
        ledger, players, set(batch.player_ids), only_named=True
    )
    for where, _game_id, _reason in annulments:
        if not ledger.info.annulments:
            raise InvalidRecord(
                where, "id",
                f"the {ledger.system_id} regulation has no fair-play annulment (site S10)",
            )  # fmt: skip
    step = None if progress is None else _advance(progress, "rating and storing", len(batch))
    counts, done = ledger.bulk.run(
        batch, [*to_create, *(Player(player_id) for player_id in implicit)],
        _updates(to_update), list(final.values()), annulments, by, now, step,
    )  # fmt: skip
    return ImportReport(
        created_players=tuple(p.id for p in to_create),
        updated_players=tuple(p.id for p in to_update),
        implicit_players=tuple(implicit),
        new_games=sum(counts.values()),
        repeated_games=len(batch) - sum(counts.values()),
        outcomes=counts,
        annulled=tuple(a.game_id for a in done),
    )


def _import_read(
    ledger: Ledger, path: Path, fmt: str | None, players: Sequence[Player], now: datetime,
    annulments: Sequence[AnnulmentRequest], by: str | None,
    reading: Callable[[], Callable[[InvalidRecord], None] | None],
) -> ImportReport:  # fmt: skip
    """The game-by-game import of a file read as records."""
    on_invalid = reading()
    records = _first_of_each_id(read_games(path, fmt, on_invalid), on_invalid)
    return import_records(ledger, records, players, now, annulments, by)


def _first_of_each_id(
    records: Sequence[GameRecord], on_invalid: Callable[[InvalidRecord], None] | None
) -> Sequence[GameRecord]:
    """``records`` without the games that reuse an earlier game's id (in the same file)
    for another game: each is given to ``on_invalid`` (``--skip-invalid``) as the
    refusal the import would make, and left out. A game repeated as it was stays (the
    import skips a repeat). Without ``on_invalid``, ``records`` as they are: the import
    refuses the file at the first such game."""
    if on_invalid is None:
        return records
    first: dict[str, GameRecord] = {}
    kept = []
    for record in records:
        earlier = first.setdefault(record.id, record)
        if earlier is not record and earlier != record:
            on_invalid(record.reuses_id_of(earlier))
            continue
        kept.append(record)
    return kept


def _reuses_ids(batch: Any) -> bool:
    """Whether a game of ``batch`` (a :class:`~chessrate.fast.batch.GameBatch`) reuses
    an earlier game's id for another game (rare: only those ids' rows are compared)."""
    import numpy as np

    counts = np.bincount(batch.game, minlength=len(batch.game_ids))
    first: dict[int, Any] = {}
    for row in np.flatnonzero(counts[batch.game] > 1).tolist():
        record = batch.record(row)
        if first.setdefault(int(batch.game[row]), record) != record:
            return True
    return False


def _advance(progress: Progress, stage: str, total: int) -> Callable[[int], None]:
    def advance(count: int) -> None:
        progress(stage, count, total)

    return advance


@dataclass(frozen=True, slots=True)
class LedgerExport:
    """A ledger as files: its games in commit order, its players' current attributes,
    its annulments; and the reasons a re-import might not reproduce it exactly."""

    games: Iterator[GameRecord]
    """Streamed from the ledger in commit order (read it once)."""
    count: int
    players: list[Player]
    annulments: list[AnnulmentView]
    warnings: list[str]


def export_records(ledger: Ledger) -> LedgerExport:
    """Everything an import needs to rebuild the ledger's ratings.

    An import stores the players first, then the games in file order, then the
    annulments: it reproduces the ledger exactly unless a game was committed after an
    annulment, or a player's attributes changed after games were rated (the export
    carries the current attributes). Those cases are listed in ``warnings``.
    """
    late_games, changed = ledger.games.export_marks()
    warnings = []
    if late_games:
        warnings.append(
            f"{late_games} games were committed after an annulment; a re-import applies "
            "the annulments after all games, so ratings may differ"
        )
    if changed:
        warnings.append(
            f"{len(changed)} players' attributes changed after games were rated "
            f"({', '.join(sorted(changed)[:5])}{', …' if len(changed) > 5 else ''}); "
            "the export carries the current attributes, so ratings may differ on re-import"
        )
    return LedgerExport(
        games=ledger.games.export(),
        count=ledger.counts()["games"],
        players=ledger.players.all(),
        annulments=ledger.annulments.list(),
        warnings=warnings,
    )


def verify_periods(ledger: Ledger) -> tuple[list[str], int]:
    """A ledger that rates periods (``fide``): re-rate every closed period from its
    stored starting list and tournament files and compare the stored results and
    current ratings (:meth:`~chessrate.ledger.periods.Periods.verify`). Returns the
    differences and the number of closed periods."""
    return ledger.periods.verify()


@dataclass(frozen=True, slots=True)
class History:
    """What a ledger gives the rating lab (``chessrate evaluate --db URL``): its
    system, its rated history in commit order and its players; ``annulled`` games were
    left out.

    A ledger holds every game it rated, in the order it rated them (its commit order),
    and its players' attributes. :func:`evaluate_ledger` replays that history under the
    ledger's system's rules and the variants, as :func:`chessrate.lab.evaluate` replays a
    file:

    - the games in commit order (the ledger's rating order), not re-sorted by
      ``played_at``, so that the base rules reproduce the ledger's own ratings;
    - the players with their current attributes (membership, bot, imported ratings);
    - the games a moderator annulled (site S10) are left out of every replay: their
      results were a cheat's, not the players' strength, so they are no test of a
      prediction, and the ledger's ratings no longer count them. How many were left out
      is in :attr:`History.annulled`.

    Nothing is written: the ledger is only read.
    """

    system_id: str
    games: tuple[GameRecord, ...]
    players: tuple[Player, ...]
    annulled: int


def ledger_history(ledger: Ledger) -> History:
    """The games (commit order, annulled games left out) and players of ``ledger``."""
    info = ledger.info
    if not info.rates_games:
        raise InvalidInput(
            f"the ledger rates {ledger.system_id} periods: evaluate needs one that rates games"
        )
    annulled = {a.game_id for a in ledger.annulments.list()} if info.annulments else set()
    games = tuple(g for g in ledger.games.export() if g.id not in annulled)
    return History(ledger.system_id, games, tuple(ledger.players.all()), len(annulled))


def evaluate_ledger(
    ledger: Ledger,
    vary: Sequence[str] = (),
    source: str = "",
    on_invalid: Callable[[InvalidRecord], None] | None = None,
    engine: str = "auto",
    jobs: int = 1,
    progress: lab.Progress | None = None,
) -> Evaluation:
    """Replay ``ledger``'s history (see :class:`History`) under its system's base rules and
    every variant of ``vary``, and measure each as :func:`chessrate.lab.evaluate` does
    (``engine``, ``jobs`` and ``progress`` as there; the compiled replay rates the
    history in commit order too). ``source`` names the ledger in the result (a URL
    without its password)."""
    if ledger.info.rates_periods:
        if uses_compiled(ledger.system_id, engine):
            raise InvalidInput(
                f"the {ledger.system_id} system has no compiled replay: use the reference engine"
            )
        period_variants(vary)  # refuse a bad --vary before reading anything
        jobs_for(jobs)
        chain = ledger.periods.history()
        return evaluate_periods(ledger.system_id, chain, vary, source, jobs, progress)
    variants(ledger.info.rules, vary)  # refuse a bad --vary before reading anything
    jobs_for(jobs)
    compiled = uses_compiled(ledger.system_id, engine)
    history = ledger_history(ledger)
    if compiled:
        from .fast import encode

        return evaluate_batch(
            history.system_id, encode(history.games), history.players, vary, source,
            on_invalid, jobs, progress, in_order=True,
        )  # fmt: skip
    return evaluate_games(
        history.system_id, history.games, history.players, vary, source, on_invalid,
        jobs, progress, in_order=True,
    )  # fmt: skip
