"""What every command shares: the ``main`` group, the one place that maps a
:class:`ChessrateError` to exit code 2 (:func:`reports_errors`), the progress bars, and
the ledger commands' ``--db`` option and ledger opening."""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
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

from .. import __version__
from ..errors import ChessrateError, InvalidInput, LedgerUnavailable
from ..io.tabular import FORMATS
from ..rating import ENGINES
from ..systems import SYSTEM_IDS, system_info

if TYPE_CHECKING:
    from ..ledger import Ledger

F = TypeVar("F", bound=Callable[..., Any])

PROGRESS_THRESHOLD = 20_000
"""Inputs with at least this many games show a progress bar on stderr."""

PGN_PROGRESS_BYTES = 4_000_000
"""PGN files at least this big show a reading progress bar (bytes read) on stderr."""


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


_QUICK_EXIT = False


def run() -> None:
    """The ``chessrate`` program (the console script and ``python -m chessrate``):
    :data:`main`, then, after a command that asked for it (:func:`quick_exit`) and
    succeeded, an exit that skips the interpreter's teardown: stdout and stderr are
    flushed and the process ends (``os._exit``) without freeing, one by one, the
    hundreds of thousands of objects a big rating left (measured: 0.4 s or more after
    ``chessrate rate`` of a million games). Every file was written and closed before
    the command returned. Called as ``main(...)`` (the tests, a script), nothing
    changes: the quick exit is this function's alone."""
    try:
        main()
    except SystemExit as stop:
        if _QUICK_EXIT and stop.code in (None, 0):
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except (OSError, ValueError):  # a closed pipe: the usual exit reports it
                raise stop from None
            os._exit(0)
        raise


def quick_exit() -> None:
    """Let :func:`run` end the process without its teardown once this command succeeds
    (a command whose outputs are all written and closed when it returns)."""
    global _QUICK_EXIT
    _QUICK_EXIT = True


@contextlib.contextmanager
def no_cycle_collection() -> Iterator[None]:
    """The cyclic garbage collector off (and what was allocated before frozen) for a
    command that builds hundreds of thousands of acyclic objects (a big rating): each
    collection would walk all of them, and numba's and the imports' objects, again.
    The collector is back as it was afterwards."""
    collecting = gc.isenabled()
    gc.disable()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        if collecting:
            gc.enable()


class ProgressBars:
    """``rate_file``'s progress as rich bars on stderr: reading (bytes, for a big PGN
    file) and rating (games, for PROGRESS_THRESHOLD games or more); nothing shown for
    small inputs. Any other stage (``evaluate``'s variants and games) is counted the
    same way, shown from ``thresholds[stage]`` (else PROGRESS_THRESHOLD) on. Nothing
    is written when stderr is not a terminal."""

    def __init__(self, thresholds: Mapping[str, int] | None = None) -> None:
        self._progress: Progress | None = None
        self._tasks: dict[str, Any] = {}
        self._thresholds = {"reading": PGN_PROGRESS_BYTES, **(thresholds or {})}
        self._console = Console(stderr=True)

    def __enter__(self) -> ProgressBars:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def __call__(self, stage: str, advance: int, total: int) -> None:
        if stage not in self._tasks:
            threshold = self._thresholds.get(stage, PROGRESS_THRESHOLD)
            if total < threshold or not self._console.is_terminal:
                self._tasks[stage] = None  # (off a terminal rich would leave a blank line)
                return
            if self._progress is None:
                self._progress = Progress(
                    TextColumn("{task.description}"),
                    BarColumn(),
                    DownloadColumn() if stage == "reading" else MofNCompleteColumn(),
                    TimeRemainingColumn(),
                    console=self._console,
                    transient=True,
                )
                self._progress.start()
            self._tasks[stage] = self._progress.add_task(stage, total=total)
        task = self._tasks[stage]
        if task is not None and self._progress is not None:
            self._progress.advance(task, advance)


# -- the ledger --------------------------------------------------------------------------
# The ledger commands import the ledger (SQLAlchemy, Alembic) only when they run, so that
# ``chessrate rate`` starts as fast as before.


def db_option(command: F) -> F:
    """``--db URL``: the ledger's database (else CHESSRATE_DATABASE_URL, else
    ./chessrate.db)."""
    return click.option(
        "--db", "db", metavar="URL",
        help="The ledger's database: a SQLite file path, sqlite:///PATH or "
        "postgresql://... (default: $CHESSRATE_DATABASE_URL, else ./chessrate.db).",
    )(command)  # fmt: skip


def utc_now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def shown_url(url: str) -> str:
    """The URL as printed: without its password."""
    from ..ledger.connection import display_url

    return display_url(url)


def ledger_system(url: str) -> str | None:
    """The system of the ledger at ``url``; None when there is no ledger yet."""
    from ..ledger import Ledger
    from ..ledger.connection import sqlite_path

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


def open_ledger(db: str | None) -> Ledger:
    """The existing ledger of ``--db``; refused when there is none (no file is made)."""
    from ..ledger import Ledger, database_url
    from ..ledger.connection import sqlite_path

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


def cli_user() -> str:
    """Who acts from the command line, as the audit log names them."""
    import getpass

    try:
        return f"cli:{getpass.getuser()}"
    except Exception:  # no user name in this environment
        return "cli"


def columns(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(row[n]) for row in rows) for n in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


def engine_option(help_text: str) -> Callable[[F], F]:
    """``--engine auto|compiled|reference`` (default auto; ``help_text`` says what each
    does for the command), given to the command as ``engine_choice``."""
    return click.option(
        "--engine", "engine_choice", type=click.Choice(ENGINES), default="auto",
        show_default=True, help=help_text,
    )  # fmt: skip


def games_file_options(
    system_help: str, optional: bool = False, systems: Sequence[str] = SYSTEM_IDS
) -> Callable[[F], F]:
    """The options of a command that reads a games file as ``chessrate rate`` does:
    the GAMES argument, ``--system`` (``system_help`` says what for; one of
    ``systems``), ``--players`` and ``--format``; ``optional``: GAMES and ``--system``
    may be left out (the command reads its games from elsewhere then, and checks). With
    a system that rates periods among ``systems``, GAMES may be a folder (its TRF
    files)."""
    existing = click.Path(exists=True, dir_okay=False, path_type=Path)
    folders = any(system_info(s).rates_periods for s in systems)
    games = click.Path(exists=True, dir_okay=folders, path_type=Path)
    decorators = (
        click.argument("games", type=games, required=not optional),
        click.option("--system", "system_id", type=click.Choice(list(systems)),
                     required=not optional, help=system_help),
        click.option("--players", "players_path", type=existing,
                     help="Players file (CSV or JSON Lines): membership, bots, imported ratings."),
        click.option("--format", "fmt", type=click.Choice(FORMATS),
                     help="Format of GAMES (default: from the extension)."),
    )  # fmt: skip

    def decorate(command: F) -> F:
        for decorator in reversed(decorators):
            command = decorator(command)
        return command

    return decorate
