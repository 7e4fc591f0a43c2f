"""The ledger commands: ``init``, ``serve``, ``import``, ``export``, ``verify``,
``backup``, and the cron passes ``sweep`` and ``pair``.

They import the ledger (SQLAlchemy, Alembic) only when they run, so that ``chessrate
rate`` starts as fast as before.
"""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from ..errors import InvalidInput
from ..io.games import annulments_text, games_lines, players_text, read_annulments, read_players
from ..io.lists import write_all
from ..io.tabular import FORMATS
from ..records import Outcome
from ..systems import LEDGER_SYSTEMS
from .common import (
    ProgressBars,
    db_option,
    ledger_system,
    main,
    open_ledger,
    reports_errors,
    shown_url,
    utc_now,
)

MULTIPROCESS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus-client's multiprocess mode: where the workers keep their metrics."""


@main.command()
@click.option(
    "--system", "system_id", type=click.Choice(LEDGER_SYSTEMS), required=True,
    help="The rating system of the ledger (fixed once chosen).",
)  # fmt: skip
@db_option
@reports_errors
def init(system_id: str, db: str | None) -> None:
    """Create a ledger (or bring an existing one's schema up to date).

    A ledger rates by one system: init on an existing ledger of another system is
    refused.
    """
    from ..ledger import Ledger, database_url

    url = database_url(db)
    existing = ledger_system(url)
    ledger = Ledger.create(url, system_id, utc_now())
    counts = ledger.counts()
    ledger.dispose()
    if existing is None:
        click.echo(f"created a ledger at {shown_url(url)} (system {system_id})")
    else:
        click.echo(
            f"{shown_url(url)}: a ledger of system {system_id} with {counts['players']} players "
            f"and {counts['games']} games; schema up to date"
        )


@main.command()
@db_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on.")  # fmt: skip
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1),
              help="Worker processes (several workers share one ledger).")  # fmt: skip
@click.option(
    "--system", "system_id", type=click.Choice(LEDGER_SYSTEMS), default="site",
    show_default=True,
    help="The rating system of a ledger that does not exist yet (an existing ledger "
    "keeps its own).",
)  # fmt: skip
@click.option(
    "--sample", is_flag=True,
    help="Load the sample data of the ledger's system first, if it has no games.",
)  # fmt: skip
@click.option(
    "--active-days", type=click.IntRange(1, 36_500), default=None,
    help="site leaderboards: an established player played a rated game in the pool in "
    "the last this many days before the ledger's latest game (default: "
    "CHESSRATE_ACTIVE_DAYS, else the server's default, Settings.active_days).",
)  # fmt: skip
@reports_errors
def serve(
    db: str | None,
    host: str,
    port: int,
    workers: int,
    system_id: str,
    sample: bool,
    active_days: int | None,
) -> None:
    """Serve the ledger's HTTP API and web pages (uvicorn).

    Creates the ledger when it does not exist (with --system), brings its schema up to
    date, and passes it to the workers as CHESSRATE_DATABASE_URL (and --active-days as
    CHESSRATE_ACTIVE_DAYS). Logs one line per request (CHESSRATE_LOG_FORMAT=json: JSON
    lines) on stderr. With several workers, /metrics reports them all: their values
    are kept in PROMETHEUS_MULTIPROC_DIR (emptied at start), else in a directory made
    for this run and removed at exit.
    """
    # Before anything imports prometheus-client: its mode is chosen at import.
    metrics_dir, made = _metrics_dir(workers)
    try:
        _serve(db, host, port, workers, system_id, sample, active_days)
    finally:
        if made and metrics_dir is not None:
            os.environ.pop(MULTIPROCESS_VARIABLE, None)
            shutil.rmtree(metrics_dir, ignore_errors=True)


def _serve(
    db: str | None,
    host: str,
    port: int,
    workers: int,
    system_id: str,
    sample: bool,
    active_days: int | None,
) -> None:
    from ..application.settings import load_settings
    from ..ledger import Ledger, database_url
    from ..samples import is_empty, load_sample

    settings = load_settings()  # a bad CHESSRATE_* variable stops it before anything
    url = database_url(db)
    existing = ledger_system(url)
    if existing is not None and existing != system_id:
        click.echo(
            f"note: {shown_url(url)} is a ledger of system {existing} "
            "(--system applies to a new one)",
            err=True,
        )
    ledger = Ledger.create(url, existing or system_id, utc_now())
    try:
        if existing is None:
            click.echo(f"created a ledger at {shown_url(url)} (system {system_id})", err=True)
        if sample and is_empty(ledger):
            click.echo(load_sample(ledger, utc_now()), err=True)
    finally:
        ledger.dispose()
    os.environ["CHESSRATE_DATABASE_URL"] = url
    if active_days is not None:
        os.environ["CHESSRATE_ACTIVE_DAYS"] = str(active_days)
    import uvicorn

    click.echo(
        f"serving {shown_url(url)} (system {existing or system_id}) on http://{host}:{port}/",
        err=True,
    )
    uvicorn.run(
        "chessrate.server:create_app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_config=_log_config(settings.log_format),
        access_log=False,  # chessrate.access logs each request (chessrate.server.Observe)
    )


def _log_config(log_format: str = "text") -> dict[str, Any]:
    """uvicorn's logging, and chessrate's own lines (the detector's start-up line, the
    background jobs' reports, one line per request on ``chessrate.access``) at INFO
    through uvicorn's handler (stderr); ``json``: every line as JSON
    (:class:`chessrate.logs.JsonFormatter`)."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["chessrate"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    if log_format == "json":
        config["formatters"]["json"] = {"()": "chessrate.logs.JsonFormatter"}
        for handler in config["handlers"].values():
            handler["formatter"] = "json"
    return config


def _metrics_dir(workers: int) -> tuple[Path | None, bool]:
    """The directory of prometheus-client's multiprocess mode, and whether it was made
    for this run: ``PROMETHEUS_MULTIPROC_DIR`` when set (made if missing; the values a
    previous run left there are removed), else, for several workers, a new private
    directory in the system's temporary directory, removed at exit. One worker
    without the variable keeps its values in memory (None)."""
    given = os.environ.get(MULTIPROCESS_VARIABLE)
    if given:
        folder = Path(given)
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.db"):
            stale.unlink(missing_ok=True)
        return folder, False
    if workers == 1:
        return None, False
    folder = Path(tempfile.mkdtemp(prefix="chessrate-metrics-"))
    os.environ[MULTIPROCESS_VARIABLE] = str(folder)
    return folder, True


@main.command()
@db_option
@click.option(
    "--engine", "engine_choice", type=click.Choice(["auto", "compiled", "reference"]),
    default="auto", show_default=True,
    help="compiled: the numba replay, columns compared in bulk (a ledger whose players' "
    "events all come before each one's first game, without annulments); reference: "
    "event by event; auto: compiled when the ledger allows it.",
)  # fmt: skip
@reports_errors
def verify(db: str | None, engine_choice: str) -> None:
    """Replay the ledger and compare every stored rating with the replay.

    Replays the events in commit order and compares every stored outcome, reason,
    change and rating to the hundredth. Prints OK with the counts, or every difference
    and exits with code 1. A fide ledger: re-rates every closed period from its
    stored files. Ids stored before the rules on ids (not in Unicode NFC, an invisible
    or bidirectional character) are listed as warnings; they do not fail it.
    """
    from ..operations import verify_periods

    ledger = open_ledger(db)
    try:
        if ledger.info.rates_periods:
            problems, periods = verify_periods(ledger)
            summary = f"{periods} closed periods"
        else:
            problems = ledger.verify(engine_choice)
            for warning in ledger.players.id_problems():
                click.echo(f"warning: {warning}", err=True)
            counts = ledger.counts()
            annulled = len(ledger.annulments.list())
            summary = f"{counts['players']} players, {counts['games']} games"
            if annulled:
                summary += f", {annulled} annulments"
    finally:
        ledger.dispose()
    if problems:
        for problem in problems:
            click.echo(problem)
        click.echo(f"{len(problems)} differences ({summary})", err=True)
        raise SystemExit(1)
    click.echo(f"OK: {summary}; every stored rating matches the replay to the hundredth")


@main.command()
@click.argument("destination", type=click.Path(dir_okay=False, path_type=Path))
@db_option
@reports_errors
def backup(destination: Path, db: str | None) -> None:
    """Copy a SQLite ledger to DESTINATION, also while the service writes.

    SQLite's online backup: the copy is the ledger at one moment (what is committed
    meanwhile is not in it) and writers are not blocked. DESTINATION must be a new
    file; it appears only once complete, readable by its owner only. Check the copy
    with chessrate verify --db DESTINATION. A PostgreSQL ledger is backed up with
    pg_dump.
    """
    from ..ledger import database_url
    from ..ledger.backup import backup_sqlite

    url = database_url(db)
    size = backup_sqlite(url, destination)
    click.echo(f"backed up {shown_url(url)} to {destination} ({size:,} bytes)")
    click.echo(f"check it with: chessrate verify --db {destination}", err=True)


@main.command()
@db_option
@click.option(
    "--now", "at", type=click.DateTime(["%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"]),
    help="Apply the deadlines passed at this UTC time (default: now).",
)  # fmt: skip
@click.option(
    "--limit", type=click.IntRange(1), help="End at most this many games in this run."
)  # fmt: skip
@reports_errors
def sweep(db: str | None, at: datetime | None, limit: int | None) -> None:
    """End the live games whose deadline has passed (site S7-S9), for cron.

    First-move deadlines abort a game (void), a missing bot move voids it before move
    10 and is the human's loss after, a clock or correspondence deadline is a loss on
    time, a rated unclocked game expires after 7 days. Each ended game is rated like a
    submitted one. Safe beside the service's own sweepers and other sweeps: a game is
    ended once. Prints one line per ended game.
    """

    now = at.replace(tzinfo=UTC) if at is not None else datetime.now(UTC)
    ledger = open_ledger(db)
    try:
        report = ledger.live.sweep(now, limit)
    finally:
        ledger.dispose()
    for view in report.ended:
        game = view.game
        shown = view.outcome or "?"
        click.echo(f"{game.id}\t{view.result}\t{view.termination}\t{shown}\t{view.ending}")
    for game_id, reason in report.failed:
        click.echo(f"could not end {game_id}: {reason}", err=True)
    click.echo(f"{len(report.ended)} live games ended at {now.isoformat()}", err=True)
    if report.failed:
        raise SystemExit(1)


@main.command()
@db_option
@click.option(
    "--now", "at", type=click.DateTime(["%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"]),
    help="Pair as at this UTC time (default: now).",
)  # fmt: skip
@reports_errors
def pair(db: str | None, at: datetime | None) -> None:
    """Run one pairing pass, for cron or by hand.

    Pairs the compatible open seeks by site Elo (the most games, then the smallest
    total difference; marked players only with each other), each seek's acceptable
    difference widening while it waits, and opens their live games; marks the expired
    seeks, and deletes those closed longer ago than CHESSRATE_SEEK_RETENTION_DAYS (30).
    The numbers are the server's settings (CHESSRATE_PAIR_WINDOW_START, _STEP, _EVERY,
    _MAX, CHESSRATE_SEEK_SECONDS, CHESSRATE_CORRESPONDENCE_SEEK_SECONDS). Safe
    beside the service's own passes: a seek is paired once. Prints one line per pair:
    the live game, White, Black, the time control, rated or casual.
    """
    from ..application.settings import load_settings
    from ..ledger.seeks import Seeks
    from ..timecontrol import as_players_write

    now = at.replace(tzinfo=UTC) if at is not None else datetime.now(UTC)
    ledger = open_ledger(db)
    try:
        report = Seeks(ledger, load_settings().pairing_rules()).pair(now)
    finally:
        ledger.dispose()
    for _, _, view in report.pairs:
        game = view.game
        kind = "rated" if game.rated else "casual"
        click.echo(f"{game.id}\t{game.white}\t{game.black}\t{as_players_write(game.time_control)}"
                   f"\t{kind}")  # fmt: skip
    for game_id, reason in report.failed:
        click.echo(f"could not open {game_id}: {reason}", err=True)
    if report.busy:
        click.echo("another pairing pass is running; it pairs the open seeks", err=True)
    purged = f", {report.purged} old seeks deleted" if report.purged else ""
    click.echo(
        f"{len(report.pairs)} pairs, {report.expired} seeks expired{purged} at {now.isoformat()}",
        err=True,
    )
    if report.failed:
        raise SystemExit(1)


@main.command("import")
@click.argument("games", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--players", "players_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Players file (CSV or JSON Lines): created, or updated when they exist.",
)  # fmt: skip
@click.option(
    "--annulments", "annul_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Fair-play annulments (site S10) to apply after the games: one game id a line, "
    "optionally followed by the reason.",
)  # fmt: skip
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS),
    help="Format of GAMES (default: from the extension).",
)  # fmt: skip
@click.option(
    "--skip-invalid", is_flag=True,
    help="Import the records that can be read and list the others (a variant, a bad "
    "field, a game reusing an earlier game's id in the file for another game) instead "
    "of stopping; a game the ledger refuses still stops the import.",
)  # fmt: skip
@click.option(
    "--moves", "with_moves", is_flag=True,
    help="PGN: store each game's moves from its movetext, for the fair-play detector "
    "(python-chess reads every game: slower).",
)  # fmt: skip
@db_option
@reports_errors
def import_(
    games: Path, players_path: Path | None, annul_path: Path | None, fmt: str | None,
    skip_invalid: bool, with_moves: bool, db: str | None,
) -> None:  # fmt: skip
    """Import GAMES (JSON Lines, CSV or PGN) into the ledger, all or nothing.

    The players, every game in file order (the ledger rates in commit order; an
    export is in commit order) and the annulments, in one transaction. Players named in games but
    absent from the ledger and the players file are created with no attributes. Games
    already in the ledger with the same content are skipped. One invalid record stops
    the import with exit code 2 and FILE:LINE: field: reason, and nothing is stored
    (--skip-invalid: the unreadable ones are listed and left out). A game's moves (a
    moves or movetext field; with --moves, a PGN game's movetext) are checked and
    stored with it, and a site ledger's detector analyses it.
    """
    from ..operations import import_file

    players = read_players(players_path) if players_path is not None else []
    annulments = read_annulments(annul_path) if annul_path is not None else []
    ledger = open_ledger(db)
    try:
        with ProgressBars() as bars:
            report = import_file(
                ledger, games, fmt, players, utc_now(), annulments,
                by=None if annul_path is None else str(annul_path), progress=bars,
                moves=with_moves, skip_invalid=skip_invalid,
            )  # fmt: skip
    finally:
        ledger.dispose()
    if report.created_players or report.updated_players:
        click.echo(
            f"players: {len(report.created_players)} created, {len(report.updated_players)} updated"
        )
    if report.implicit_players:
        click.echo(
            f"{len(report.implicit_players)} players named in games were not in the ledger "
            f"or a players file; created with no attributes: {', '.join(report.implicit_players)}"
        )
    outcomes = ", ".join(f"{report.outcomes.get(o.value, 0)} {o.value}" for o in Outcome)
    line = f"games: {report.new_games} stored ({outcomes}) from {games}"
    if report.repeated_games:
        line += f"; {report.repeated_games} already in the ledger"
    for invalid in report.skipped:
        click.echo(f"skipped {invalid}", err=True)
    if report.skipped:
        line += f"; {len(report.skipped)} invalid records skipped"
    click.echo(line)
    if report.annulled:
        click.echo(f"annulled: {', '.join(report.annulled)}")


@main.command()
@click.argument("games", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--players", "players_path", type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the players' attributes (.csv or .jsonl).",
)  # fmt: skip
@click.option(
    "--annulments", "annul_path", type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the annulments (game id, tab, reason), for import --annulments.",
)  # fmt: skip
@db_option
@reports_errors
def export(games: Path, players_path: Path | None, annul_path: Path | None, db: str | None) -> None:
    """Write the ledger's games, players and annulments to files.

    GAMES gets every game record in commit order (JSON Lines, the record form of the
    spec). `chessrate import` of these files into a new ledger of the same system rebuilds the
    same ratings. The files are written all or nothing (temporary files, then renamed).
    """
    from ..operations import export_records

    if games.suffix.lower() not in (".jsonl", ".ndjson"):
        raise InvalidInput(f"{games}: games are exported as JSON Lines (.jsonl)")
    ledger = open_ledger(db)
    try:
        exported = export_records(ledger)
        files: dict[Path, str | Iterator[str]] = {games: games_lines(exported.games)}
        if players_path is not None:
            files[players_path] = players_text(exported.players, players_path)
        if annul_path is not None:
            files[annul_path] = annulments_text((a.game_id, a.reason) for a in exported.annulments)
        write_all(files)  # the games stream from the ledger to the file
    finally:
        ledger.dispose()
    click.echo(f"{exported.count} games written to {games}")
    if players_path is not None:
        click.echo(f"{len(exported.players)} players written to {players_path}")
    if annul_path is not None:
        click.echo(f"{len(exported.annulments)} annulments written to {annul_path}")
    elif exported.annulments:
        click.echo(
            f"warning: the ledger has {len(exported.annulments)} annulments: write them with "
            "--annulments FILE to carry them over",
            err=True,
        )
    for warning in exported.warnings:
        click.echo(f"warning: {warning}", err=True)
