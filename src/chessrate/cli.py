"""The ``chessrate`` command line. Thin: parses arguments, calls the library,
prints, and maps every :class:`ChessrateError` to exit code 2 in one place."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from . import __version__
from .errors import ChessrateError, InvalidInput, LedgerUnavailable
from .io.fide import (
    new_list,
    new_list_rows,
    new_list_text,
    read_events,
    read_start_list,
    report_json,
    report_text,
)
from .io.games import (
    annulments_text,
    games_lines,
    players_text,
    read_annulments,
    read_players,
)
from .io.lists import history_text, write_all
from .io.tabular import FORMATS
from .rating import ENGINES, RatedFile, rate_file
from .records import Outcome
from .systems import LEDGER_SYSTEMS, SYSTEM_IDS
from .systems.fide import RULESETS, FideRules, FideSystem, adjust_2024, format_pending

if TYPE_CHECKING:
    from .ledger import Ledger

F = TypeVar("F", bound=Callable[..., Any])

PROGRESS_THRESHOLD = 20_000
"""Inputs with at least this many games show a progress bar on stderr."""

PGN_PROGRESS_BYTES = 4_000_000
"""PGN files at least this big show a reading progress bar (bytes read) on stderr."""

TOP = 20
"""``rate`` prints this many entries of each pool unless told (``--top``, ``--all``)."""


def reports_errors(command: F) -> F:
    """Map chessrate's domain errors (:mod:`chessrate.errors`) to ``error: ...`` on
    stderr and exit code 2; anything else is a bug (a traceback)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ChessrateError as error:
            click.echo(f"error: {_error_message(error)}", err=True)
            raise SystemExit(2) from None

    return wrapper  # type: ignore[return-value]


def _error_message(error: ChessrateError) -> str:
    """What ``error: ...`` says: the error's message; a database URL the ledger cannot
    use is the ``--db`` option's (or CHESSRATE_DATABASE_URL's) fault."""
    if isinstance(error, LedgerUnavailable) and error.url:
        return f"--db: {error}"
    return str(error)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="chessrate")
def main() -> None:
    """chessrate: exact chess ratings (arena, corr, site, fide)."""


@main.command()
@click.argument("games", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--system", "system_id", type=click.Choice(SYSTEM_IDS), required=True,
    help="The rating system to rate by.",
)  # fmt: skip
@click.option(
    "--players", "players_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Players file (CSV or JSON Lines): membership, bots, imported ratings.",
)  # fmt: skip
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS),
    help="Format of GAMES (default: from the extension).",
)  # fmt: skip
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path),
    help="Write the rating list (.csv or .json).",
)  # fmt: skip
@click.option(
    "--history", type=click.Path(dir_okay=False, path_type=Path),
    help="Write every change with its explanation (.csv or .jsonl).",
)  # fmt: skip
@click.option(
    "--annul", "annul_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Fair-play annulments (site S10) to apply after the replay: one game id a line, "
    "optionally followed by the reason.",
)  # fmt: skip
@click.option(
    "--annulled-at", type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"]),
    help="When the annulments were decided (UTC; default: now).",
)  # fmt: skip
@click.option(
    "--skip-invalid", is_flag=True,
    help="Rate the valid records and list the invalid ones instead of stopping.",
)  # fmt: skip
@click.option(
    "--engine", "engine_choice", type=click.Choice(ENGINES), default="auto", show_default=True,
    help="compiled: the numba replay (same results, much faster on big files); reference: "
    "the pure-Python engine; auto: compiled for a file of 2 MB or more unless --history "
    "asks for explanations, else reference (quicker to start on small files).",
)  # fmt: skip
@click.option(
    "--top", "top", type=click.IntRange(0), default=TOP, show_default=True,
    help="Print this many entries of each pool's list (the file of --out has them all).",
)  # fmt: skip
@click.option("--all", "print_all", is_flag=True, help="Print every entry of every list.")
@reports_errors
def rate(
    games: Path,
    system_id: str,
    players_path: Path | None,
    fmt: str | None,
    out: Path | None,
    history: Path | None,
    annul_path: Path | None,
    annulled_at: datetime | None,
    skip_invalid: bool,
    engine_choice: str,
    top: int,
    print_all: bool,
) -> None:
    """Rate a file of GAMES (JSON Lines, CSV or PGN) and print the top of each pool's
    rating list (--top, --all; the whole list goes to --out).

    An invalid record stops the run with exit code 2 and FILE:LINE: field: reason,
    and nothing is written (unless --skip-invalid). The library call behind it is
    chessrate.rate_file.
    """
    if engine_choice == "compiled" and history is not None:
        raise InvalidInput("--history needs the reference engine (--engine reference or auto)")
    on_invalid = (lambda error: None) if skip_invalid else None
    with _ProgressBars() as bars:
        rated = rate_file(
            games,
            system_id,
            players=players_path,
            annulments=annul_path,
            engine=engine_choice,
            on_invalid=on_invalid,
            progress=bars,
            fmt=fmt,
            history=history is not None,
            annulled_at=annulled_at.replace(tzinfo=UTC) if annulled_at is not None else None,
        )
    files: dict[Path, str] = {}
    if out is not None:
        files[out] = rated.list_text(out)
    if history is not None:
        files[history] = history_text(rated.ratings, history, rated.annulments)
    write_all(files)
    _print_rated(rated, None if print_all else top, out)


def _print_rated(rated: RatedFile, top: int | None, out: Path | None) -> None:
    """The top of every pool's list, the annulments and the summary line, as ``rate``
    prints them: rich tables on a terminal, aligned plain text otherwise."""
    console = Console(highlight=False)
    system_id = rated.system.id
    for pool in rated.system.pools:
        size = rated.pool_size(pool)
        if size == 0:
            click.echo(f"{system_id} · {pool}: no players yet")
            continue
        label = "site Elo" if (system_id, pool) == ("site", "site") else pool
        title = f"{system_id} · {label} ({size} players)"
        rows = _list_rows(rated, pool, top)
        if console.is_terminal:
            console.print(_list_table(title, rows))
        else:
            click.echo(_plain_table(title, rows))
        if len(rows) < size:
            where = f"the whole list is in {out}" if out else "--all prints it, --out writes it"
            click.echo(f"… {size - len(rows):,} more in {label}: {where}")
    for annulment in rated.annulments:
        moved = ", ".join(
            f"{c.player} {c.pool} {c.change:+}" for c in annulment.changes if c.change is not None
        )
        reason = f" ({annulment.reason})" if annulment.reason else ""
        click.echo(f"annulled {annulment.game_id}{reason}: {moved or 'nothing moved'}")
    outcomes = rated.outcome_counts()
    summary = f"{rated.games} games from {rated.source}: " + ", ".join(
        f"{outcomes[o]} {o.value}" for o in Outcome
    )
    if rated.annulments:
        summary += f" ({len(rated.annulments)} annulled)"
    if rated.skipped:
        for invalid in rated.skipped:
            click.echo(f"skipped {invalid}", err=True)
        summary += f"; {len(rated.skipped)} invalid records skipped"
    click.echo(summary, err=True)


LIST_HEADER = ("#", "player", "rating", "state", "games")


def _list_rows(rated: RatedFile, pool: str, top: int | None) -> list[tuple[str, ...]]:
    """The printed rows of a pool's list: rank (rated entries only), name (id), the
    displayed rating, state, games."""
    rows: list[tuple[str, ...]] = []
    rank = 0
    for entry in rated.top(pool, top):
        shown = "-"
        if entry.rating is not None:
            rank += 1
            shown = str(rank)
        name = rated.player(entry.player).name
        player = entry.player if name is None else f"{name} ({entry.player})"
        rows.append((shown, player, entry.display, entry.state, str(entry.games)))
    return rows


def _list_table(title: str, rows: list[tuple[str, ...]]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in LIST_HEADER:
        table.add_column(column, justify="left" if column in ("player", "state") else "right")
    for row in rows:
        table.add_row(*row)
    return table


def _plain_table(title: str, rows: list[tuple[str, ...]]) -> str:
    """The list as aligned plain text (for a pipe or a file: no box drawing)."""
    widths = [max(len(row[i]) for row in (LIST_HEADER, *rows)) for i in range(len(LIST_HEADER))]
    lines = [title]
    for row in (LIST_HEADER, *rows):
        cells = [
            cell.ljust(width) if column in ("player", "state") else cell.rjust(width)
            for column, cell, width in zip(LIST_HEADER, row, widths, strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


class _ProgressBars:
    """``rate_file``'s progress as rich bars on stderr: reading (bytes, for a big PGN
    file) and rating (games, for PROGRESS_THRESHOLD games or more); nothing shown for
    small inputs."""

    def __init__(self) -> None:
        self._progress: Progress | None = None
        self._tasks: dict[str, Any] = {}

    def __enter__(self) -> _ProgressBars:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def __call__(self, stage: str, advance: int, total: int) -> None:
        if stage not in self._tasks:
            threshold = PGN_PROGRESS_BYTES if stage == "reading" else PROGRESS_THRESHOLD
            if total < threshold:
                self._tasks[stage] = None
                return
            if self._progress is None:
                self._progress = Progress(
                    TextColumn("{task.description}"),
                    BarColumn(),
                    DownloadColumn() if stage == "reading" else MofNCompleteColumn(),
                    TimeRemainingColumn(),
                    console=Console(stderr=True),
                    transient=True,
                )
                self._progress.start()
            self._tasks[stage] = self._progress.add_task(stage, total=total)
        task = self._tasks[stage]
        if task is not None and self._progress is not None:
            self._progress.advance(task, advance)


@main.group()
def fide() -> None:
    """FIDE rating periods (B.02 section 8) from TRF-16 tournament files."""


@fide.command("rate")
@click.argument(
    "trf_files", nargs=-1, required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
)  # fmt: skip
@click.option(
    "--list", "list_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Rating list at the start of the period (CSV: id, name, rating, games, "
    "reached_2400; a list written by --out). Without it, every player comes from the "
    "TRF files (a player the files rate is rated; the others unrated).",
)  # fmt: skip
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path),
    help="Write the new list: .csv, .json or .jsonl (the next period's --list as it is: "
    "rating, games, K, birth year, pending results, and this period's change, games "
    "and K), or .txt (FIDE's fixed-width standard list layout).",
)  # fmt: skip
@click.option(
    "--report", type=click.Path(dir_okay=False, path_type=Path),
    help="Write every player's calculation (.txt, or .json).",
)  # fmt: skip
@click.option(
    "--rules", "ruleset", type=click.Choice(sorted(RULESETS)), default="seed",
    show_default=True,
    help="seed: the regulations of seed 003 (spec fide.md); fide-2024: the FIDE Rating "
    "Regulations in force since 1 March 2024 (docs/fide-2024.md).",
)  # fmt: skip
@click.option(
    "--period", "period", type=click.DateTime(formats=["%Y-%m-%d"]),
    help="The date of the list being made (e.g. 2024-04-01): fide-2024 needs it for the "
    "junior K and to expire pending results after 26 months.",
)  # fmt: skip
@click.option(
    "--bonus", type=Decimal, default=None,
    help="B: rating points per half point over 50 % for a first rating (seed; default "
    "12.5, the seed's worked examples use 15).",
)  # fmt: skip
@click.option(
    "--floor", type=int, default=None,
    help="The rating floor for first ratings (seed F6: 1000; fide-2024: 1400).",
)  # fmt: skip
@click.option(
    "--round-robin/--swiss", "round_robin", default=None,
    help="Treat every file as a round robin or a Swiss (default: from the file's 092 line).",
)  # fmt: skip
@reports_errors
def fide_rate(
    trf_files: tuple[Path, ...],
    list_path: Path | None,
    out: Path | None,
    report: Path | None,
    ruleset: str,
    period: datetime | None,
    bonus: Decimal | None,
    floor: int | None,
    round_robin: bool | None,
) -> None:
    """Rate a period's tournaments (TRF-16 files) against the starting list, print the
    new list, and optionally write it and the rating officer's report."""
    start = read_start_list(list_path) if list_path is not None else {}
    warnings: list[str] = []
    events = read_events(trf_files, round_robin, warnings)
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)
    rules = FideRules.named(ruleset)
    if bonus is not None:
        rules = replace(rules, bonus_per_half_point=bonus)
    if floor is not None:
        rules = replace(rules, floor=floor)
    system = FideSystem(rules)
    list_date = period.date() if period is not None else None
    result = system.rate_period(start, events, list_date)
    entries = new_list(result)
    files: dict[Path, str] = {}
    if out is not None:
        files[out] = new_list_text(new_list_rows(result, system), out, list_date)
    if report is not None:
        files[report] = (
            report_json(result) if report.suffix.lower() == ".json" else report_text(result)
        )
    write_all(files)
    table = Table(title=f"fide · new list ({len(entries)} players)", title_justify="left")
    for column, justify in (("#", "right"), ("player", "left"), ("id", "left"),
                            ("old", "right"), ("new", "right"), ("change", "right"),
                            ("games", "right")):  # fmt: skip
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    rank = 0
    for entry, player in zip(entries, result.reports, strict=True):
        shown = "-"
        if entry.rating is not None:
            rank += 1
            shown = str(rank)
        old = "unrated" if player.old_rating is None else str(player.old_rating)
        new = "unrated" if player.new_rating is None else str(player.new_rating)
        delta = ""
        if player.old_rating is not None and player.new_rating is not None:
            delta = f"{player.new_rating - player.old_rating:+d}"
        table.add_row(shown, player.name, player.player, old, new, delta, str(entry.games))
    Console(highlight=False).print(table)
    click.echo(f"{len(events)} tournaments, {len(entries)} players", err=True)


@fide.command("adjust-2024")
@click.argument("list_path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
    help="Write the adjusted list (.csv, .json or .jsonl).",
)  # fmt: skip
@reports_errors
def fide_adjust_2024(list_path: Path, out: Path) -> None:
    """The one-time adjustment of 1 March 2024: every rating from 1000 up to 2000 is
    raised by 0.4 x (2000 - R), rounded (docs/fide-2024.md); the rest of the list is
    kept."""
    start = read_start_list(list_path)
    adjusted = adjust_2024(start.values())
    rows = [
        {"id": p.id, "name": p.name, "rating": p.rating, "games": p.games,
         "reached_2400": p.reached_2400, "k": p.k, "birth_year": p.birth_year,
         "met_rated": p.met_rated, "pending": format_pending(p.pending),
         "old_rating": old.rating, "change": None if p.rating is None or old.rating is None
         else p.rating - old.rating, "period_games": None, "period_k": None}
        for p, old in zip(adjusted, start.values(), strict=True)
    ]  # fmt: skip
    if out.suffix.lower() == ".txt":
        raise InvalidInput(f"{out}: write the adjusted list as .csv, .json or .jsonl")
    write_all({out: new_list_text(rows, out, None)})
    moved = sum(1 for row in rows if row["change"])
    click.echo(f"{len(rows)} players, {moved} ratings raised", err=True)


# -- the ledger --------------------------------------------------------------------------
# The ledger commands import the ledger (SQLAlchemy, Alembic) only when they run, so that
# ``chessrate rate`` starts as fast as before.

ROLES = ("writer", "moderator")


def db_option(command: F) -> F:
    """``--db URL``: the ledger's database (else CHESSRATE_DATABASE_URL, else
    ./chessrate.db)."""
    return click.option(
        "--db", "db", metavar="URL",
        help="The ledger's database: a SQLite file path, sqlite:///PATH or "
        "postgresql://... (default: $CHESSRATE_DATABASE_URL, else ./chessrate.db).",
    )(command)  # fmt: skip


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _shown(url: str) -> str:
    """The URL as printed: without its password."""
    from .ledger.connection import display_url

    return display_url(url)


def _ledger_system(url: str) -> str | None:
    """The system of the ledger at ``url``; None when there is no ledger yet."""
    from .ledger import Ledger
    from .ledger.connection import sqlite_path

    path = sqlite_path(url)
    if path is not None and not path.exists():
        return None
    ledger = Ledger(url)
    try:
        return ledger.system_id
    except InvalidInput:
        return None
    finally:
        ledger.dispose()


def _open_ledger(db: str | None) -> Ledger:
    """The existing ledger of ``--db``; refused when there is none (no file is made)."""
    from .ledger import Ledger, database_url
    from .ledger.connection import sqlite_path

    url = database_url(db)
    path = sqlite_path(url)
    if path is not None and not path.exists():
        raise InvalidInput(f"{path}: no ledger here (create it with chessrate init --system ...)")
    ledger = Ledger(url)
    try:
        ledger.system_id  # noqa: B018 - refuses a database that is not a ledger
    except BaseException:
        ledger.dispose()
        raise
    return ledger


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
    from .ledger import Ledger, database_url

    url = database_url(db)
    existing = _ledger_system(url)
    ledger = Ledger.create(url, system_id, _now())
    counts = ledger.counts()
    ledger.dispose()
    if existing is None:
        click.echo(f"created a ledger at {_shown(url)} (system {system_id})")
    else:
        click.echo(
            f"{_shown(url)}: a ledger of system {system_id} with {counts['players']} players "
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
    CHESSRATE_ACTIVE_DAYS).
    """
    from .ledger import Ledger, database_url
    from .samples import is_empty, load_sample

    url = database_url(db)
    existing = _ledger_system(url)
    if existing is not None and existing != system_id:
        click.echo(
            f"note: {_shown(url)} is a ledger of system {existing} (--system applies to a new one)",
            err=True,
        )
    ledger = Ledger.create(url, existing or system_id, _now())
    try:
        if existing is None:
            click.echo(f"created a ledger at {_shown(url)} (system {system_id})", err=True)
        if sample and is_empty(ledger):
            click.echo(load_sample(ledger, _now()), err=True)
    finally:
        ledger.dispose()
    os.environ["CHESSRATE_DATABASE_URL"] = url
    if active_days is not None:
        os.environ["CHESSRATE_ACTIVE_DAYS"] = str(active_days)
    import uvicorn

    click.echo(
        f"serving {_shown(url)} (system {existing or system_id}) on http://{host}:{port}/",
        err=True,
    )
    uvicorn.run(
        "chessrate.server:create_app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
    )


@main.group()
def token() -> None:
    """API tokens (bearer tokens for writers and moderators)."""


@token.command("create")
@click.option("--role", type=click.Choice(ROLES), required=True,
              help="writer: submit games and players; moderator: also annul games.")  # fmt: skip
@click.option("--label", default="", help="Whom or what the token is for.")
@click.option(
    "--expires", type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"]), default=None,
    help="The moment (UTC) the token stops working: 2027-01-01 (midnight) or "
    "2027-01-01T12:00:00. Default: never.",
)  # fmt: skip
@click.option("--days", type=click.IntRange(1, 36_500), default=None,
              help="The token stops working this many days from now.")  # fmt: skip
@db_option
@reports_errors
def token_create(
    role: str, label: str, expires: datetime | None, days: int | None, db: str | None
) -> None:
    """Create a token and print it once: only its SHA-256 is stored, so it cannot be
    shown again."""
    if expires is not None and days is not None:
        raise InvalidInput("give --expires or --days, not both")
    now = _now()
    until = expires.replace(tzinfo=UTC) if expires is not None else None
    if days is not None:
        until = now + timedelta(days=days)
    ledger = _open_ledger(db)
    try:
        secret = ledger.tokens.create(role, label, now, expires_at=until, by=_cli_user())
    finally:
        ledger.dispose()
    click.echo(secret)
    labelled = f" ({label})" if label else ""
    ending = f", valid until {until.isoformat()}" if until else ""
    click.echo(
        f"{role} token{labelled} created{ending}; keep it now: it is not stored and cannot "
        "be shown again",
        err=True,
    )


def _cli_user() -> str:
    """Who acts from the command line, as the audit log names them."""
    import getpass

    try:
        return f"cli:{getpass.getuser()}"
    except Exception:  # no user name in this environment
        return "cli"


@token.command("list")
@db_option
@reports_errors
def token_list(db: str | None) -> None:
    """Every token: id, role, label, created, expires, status (valid, expired,
    revoked). The tokens themselves are not stored and cannot be shown."""
    ledger = _open_ledger(db)
    try:
        found = ledger.tokens.list()
    finally:
        ledger.dispose()
    now = datetime.now(UTC)
    rows = [
        (str(t.id), t.role, t.label or "—", t.created_at.strftime("%Y-%m-%d %H:%M"),
         t.expires_at.strftime("%Y-%m-%d %H:%M") if t.expires_at else "never",
         t.status(now) + (f" {t.revoked_at:%Y-%m-%d %H:%M}" if t.revoked_at else ""))
        for t in found
    ]  # fmt: skip
    header = ("id", "role", "label", "created (UTC)", "expires (UTC)", "status")
    click.echo(_columns([header, *rows]))


def _columns(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(row[n]) for row in rows) for n in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


@token.command("revoke")
@click.argument("token_id", type=int)
@click.option("--reason", default="", help="Why (kept in the audit log).")
@db_option
@reports_errors
def token_revoke(token_id: int, reason: str, db: str | None) -> None:
    """Revoke a token (its id from token list): every request with it is refused (401)
    within the servers' token cache time (CHESSRATE_TOKEN_CACHE_SECONDS, 5 s)."""
    ledger = _open_ledger(db)
    try:
        view = ledger.tokens.revoke(token_id, _now(), by=_cli_user(), why=reason)
    finally:
        ledger.dispose()
    click.echo(f"token {view.id} ({view.role}, {view.label or 'no label'}) revoked")


@main.command()
@click.option("--target", default=None, help="Only this game id (or 'token N').")
@click.option("--limit", type=click.IntRange(1, 10_000), default=100, show_default=True)
@db_option
@reports_errors
def audit(target: str | None, limit: int, db: str | None) -> None:
    """The moderation audit log, newest first: reports, confirmations, dismissals,
    reopenings, annulments, tokens created and revoked."""
    ledger = _open_ledger(db)
    try:
        entries, total = ledger.audit.log(0, limit, target)
    finally:
        ledger.dispose()
    rows = [
        (e.at.strftime("%Y-%m-%d %H:%M:%S"), e.who, e.action, e.target, e.details) for e in entries
    ]
    click.echo(_columns([("at (UTC)", "who", "action", "target", "why"), *rows]))
    click.echo(f"{len(entries)} of {total} entries", err=True)


@main.command()
@db_option
@click.option(
    "--engine", "engine_choice", type=click.Choice(["auto", "compiled", "reference"]),
    default="auto", show_default=True,
    help="compiled: the numba replay, columns compared in bulk (a ledger whose players' "
    "events all come before its first game, without annulments); reference: event by "
    "event; auto: compiled when the ledger allows it.",
)  # fmt: skip
@reports_errors
def verify(db: str | None, engine_choice: str) -> None:
    """Replay the ledger and compare every stored rating with the replay.

    Replays the events in commit order and compares every stored outcome, reason,
    change and rating to the hundredth. Prints OK with the counts, or every difference
    and exits with code 1. A fide ledger: re-rates every closed period from its
    stored files.
    """
    from .operations import verify_periods

    ledger = _open_ledger(db)
    try:
        if ledger.info.rates_periods:
            problems, periods = verify_periods(ledger)
            summary = f"{periods} closed periods"
        else:
            problems = ledger.verify(engine_choice)
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
    ledger = _open_ledger(db)
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
    """Run one pairing pass (issue 16), for cron or by hand.

    Pairs the compatible open seeks by site Elo, closest first, each seek's acceptable
    difference widening while it waits, and opens their live games; marks the expired
    seeks. The numbers are the server's settings (CHESSRATE_PAIR_WINDOW_START, _STEP,
    _EVERY, _MAX, CHESSRATE_SEEK_SECONDS). Safe beside the service's own passes: a
    seek is paired once. Prints one line per pair: the live game, White, Black, the
    time control, rated or casual.
    """
    from .application.settings import Settings
    from .ledger.seeks import Seeks
    from .timecontrol import as_players_write

    now = at.replace(tzinfo=UTC) if at is not None else datetime.now(UTC)
    ledger = _open_ledger(db)
    try:
        report = Seeks(ledger, Settings().pairing_rules()).pair(now)
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
    click.echo(
        f"{len(report.pairs)} pairs, {report.expired} seeks expired at {now.isoformat()}", err=True
    )
    if report.failed:
        raise SystemExit(1)


@main.command()
@db_option
@click.option(
    "--limit", type=click.IntRange(1), default=20, show_default=True,
    help="Analyse at most this many games in this run.",
)  # fmt: skip
@click.option(
    "--stockfish", metavar="PATH",
    help="The Stockfish binary (default: $CHESSRATE_STOCKFISH, else /usr/games/stockfish).",
)  # fmt: skip
@click.option(
    "--flagged", "list_flagged", is_flag=True,
    help="Analyse nothing: list the stored analyses that flagged a player.",
)  # fmt: skip
@reports_errors
def detect(db: str | None, limit: int, stockfish: str | None, list_flagged: bool) -> None:
    """Run the fair-play detector over the finished live games, for cron.

    Analyses the finished rated online live games not analysed yet, the earliest ended
    first, with Stockfish at the detector's limits (depth 10, one thread, at most 60 s
    per game): per player the engine top-move match rate and the average centipawn
    loss over the moves after the opening (from ply 17). Flags a player whose
    statistics are improbable for their rating (README "Fair play: the detector").
    Stores every analysis; prints one line per analysed game, FLAGGED lines last.
    """
    from .fairplay import StockfishDetector
    from .fairplay.job import DetectionJob

    ledger = _open_ledger(db)
    try:
        if list_flagged:
            for view in ledger.analyses.list(flagged=True, limit=1000):
                click.echo(f"FLAGGED\t{view.game_id}\t{','.join(view.flags)}\t"
                           f"{_evidence_text(view.evidence)}")  # fmt: skip
            return
        with StockfishDetector(path=stockfish) as detector:
            report = DetectionJob(ledger, detector, _now).run(limit)
    finally:
        ledger.dispose()
    for view in report.analysed:
        shown = view.note or _evidence_text(view.evidence)
        click.echo(f"{view.game_id}\t{shown}")
    for game_id, player in report.flags:
        click.echo(f"FLAGGED\t{game_id}\t{player}")
    click.echo(
        f"{len(report.analysed)} games analysed, {len(report.flags)} players flagged",
        err=True,
    )


def _evidence_text(evidence: dict[str, Any] | None) -> str:
    """``white 1850: 52% match, ACPL 31.2 (25 moves)\tblack ...`` from stored evidence."""
    if evidence is None:
        return "-"
    parts = []
    for side in ("white", "black"):
        stats = evidence[side]
        rating = "unrated" if stats["rating"] is None else stats["rating"]
        parts.append(
            f"{side} {rating}: {stats['match_rate']:.0%} match, ACPL {stats['acpl']:.1f} "
            f"({stats['moves']} moves)"
        )
    return "\t".join(parts)


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
@db_option
@reports_errors
def import_(
    games: Path, players_path: Path | None, annul_path: Path | None, fmt: str | None,
    db: str | None,
) -> None:  # fmt: skip
    """Import GAMES (JSON Lines or CSV) into the ledger, all or nothing.

    The players, every game in file order (the ledger rates in commit order; an
    export is in commit order) and the annulments, in one transaction. Players named in games but
    absent from the ledger and the players file are created with no attributes. Games
    already in the ledger with the same content are skipped. One invalid record stops
    the import with exit code 2 and FILE:LINE: field: reason, and nothing is stored.
    """
    from .operations import import_file

    players = read_players(players_path) if players_path is not None else []
    annulments = read_annulments(annul_path) if annul_path is not None else []
    ledger = _open_ledger(db)
    try:
        with _ProgressBars() as bars:
            report = import_file(
                ledger, games, fmt, players, _now(), annulments,
                by=None if annul_path is None else str(annul_path), progress=bars,
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
    from .operations import export_records

    if games.suffix.lower() not in (".jsonl", ".ndjson"):
        raise InvalidInput(f"{games}: games are exported as JSON Lines (.jsonl)")
    ledger = _open_ledger(db)
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


if __name__ == "__main__":  # pragma: no cover
    main()
