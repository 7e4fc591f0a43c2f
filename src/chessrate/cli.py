"""The ``chessrate`` command line. Thin: parses arguments, calls the library,
prints, and maps every :class:`ChessrateError` to exit code 2 in one place."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from . import __version__
from .engine import Engine
from .errors import ChessrateError, InvalidRecord
from .io.fide import new_list, read_events, read_start_list, report_json, report_text
from .io.games import read_annulments, read_games, read_players
from .io.lists import history_text, rating_list_text, write_all
from .io.tabular import FORMATS
from .records import Outcome
from .systems import SYSTEM_IDS, get_system
from .systems.base import ListEntry
from .systems.fide import FideRules, FideSystem

F = TypeVar("F", bound=Callable[..., Any])

PROGRESS_THRESHOLD = 20_000
"""Inputs with at least this many games show a progress bar on stderr."""


def reports_errors(command: F) -> F:
    """Map chessrate's input errors to ``error: ...`` on stderr and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ChessrateError as error:
            click.echo(f"error: {error}", err=True)
            raise SystemExit(2) from None

    return wrapper  # type: ignore[return-value]


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
) -> None:
    """Rate a file of GAMES (JSON Lines or CSV) and print one rating list per pool.

    An invalid record stops the run with exit code 2 and FILE:LINE: field: reason,
    and nothing is written (unless --skip-invalid).
    """
    skipped: list[InvalidRecord] = []
    on_invalid = skipped.append if skip_invalid else None
    engine: Engine[Any] = Engine(get_system(system_id))
    if players_path is not None:
        for player in read_players(players_path):
            engine.add_player(player)
    records = read_games(games, fmt, on_invalid)
    with Progress(
        TextColumn("rating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=len(records) < PROGRESS_THRESHOLD,
    ) as progress:
        task = progress.add_task("rating", total=len(records))
        engine.replay(records, on_invalid, lambda n: progress.advance(task, n))
    annulments = []
    if annul_path is not None:
        now = (
            annulled_at.replace(tzinfo=UTC)
            if annulled_at is not None
            else datetime.now(UTC).replace(microsecond=0)
        )
        for where, game_id, reason in read_annulments(annul_path):
            try:
                annulments.append(engine.annul(game_id, reason, now, by=str(annul_path)))
            except InvalidRecord as error:
                located = InvalidRecord(where, error.field, f"{game_id}: {error.reason}")
                if on_invalid is None:
                    raise located from None
                on_invalid(located)
    lists = engine.rating_lists()
    files: dict[Path, str] = {}
    if out is not None:
        files[out] = rating_list_text([e for pool in lists.values() for e in pool], out)
    if history is not None:
        files[history] = history_text(engine.ratings, history, annulments)
    write_all(files)
    console = Console(highlight=False)
    for pool, entries in lists.items():
        if entries:
            console.print(_list_table(engine, system_id, pool, entries))
        else:
            console.print(f"{system_id} · {pool}: no players yet", markup=False)
    for annulment in annulments:
        moved = ", ".join(
            f"{c.player} {c.pool} {c.change:+}" for c in annulment.changes if c.change is not None
        )
        reason = f" ({annulment.reason})" if annulment.reason else ""
        click.echo(f"annulled {annulment.game_id}{reason}: {moved or 'nothing moved'}")
    outcomes = Counter(engine.outcome(rating.game.id) for rating in engine.ratings)
    summary = f"{len(engine.ratings)} games from {games}: " + ", ".join(
        f"{outcomes[o]} {o.value}" for o in Outcome
    )
    if annulments:
        summary += f" ({len(annulments)} annulled)"
    if skipped:
        for invalid in skipped:
            click.echo(f"skipped {invalid}", err=True)
        summary += f"; {len(skipped)} invalid records skipped"
    click.echo(summary, err=True)


def _list_table(engine: Engine[Any], system_id: str, pool: str, entries: list[ListEntry]) -> Table:
    label = "site Elo" if (system_id, pool) == ("site", "site") else pool
    table = Table(title=f"{system_id} · {label} ({len(entries)} players)", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("player")
    table.add_column("rating", justify="right")
    table.add_column("state")
    table.add_column("games", justify="right")
    rank = 0
    for entry in entries:
        shown = "-"
        if entry.rating is not None:
            rank += 1
            shown = str(rank)
        player = engine.player(entry.player)
        name = entry.player if player.name is None else f"{player.name} ({entry.player})"
        table.add_row(shown, name, entry.display, entry.state, str(entry.games))
    return table


@main.group()
def fide() -> None:
    """FIDE rating periods (B.02 section 8) from TRF-16 tournament files."""


@fide.command("rate")
@click.argument(
    "trf_files", nargs=-1, required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
)  # fmt: skip
@click.option(
    "--list", "list_path", required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Rating list at the start of the period (CSV: id, name, rating, games, reached_2400).",
)  # fmt: skip
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path),
    help="Write the new list (.csv or .json).",
)  # fmt: skip
@click.option(
    "--report", type=click.Path(dir_okay=False, path_type=Path),
    help="Write every player's calculation (.txt, or .json).",
)  # fmt: skip
@click.option(
    "--bonus", type=Decimal, default=Decimal("12.5"), show_default=True,
    help="B: rating points per half point over 50 % for a first rating (the seed's "
    "worked examples use 15).",
)  # fmt: skip
@click.option(
    "--floor", type=int, default=1000, show_default=True,
    help="The rating floor for first ratings (F6).",
)  # fmt: skip
@click.option(
    "--round-robin/--swiss", "round_robin", default=None,
    help="Treat every file as a round robin or a Swiss (default: from the file's 092 line).",
)  # fmt: skip
@reports_errors
def fide_rate(
    trf_files: tuple[Path, ...],
    list_path: Path,
    out: Path | None,
    report: Path | None,
    bonus: Decimal,
    floor: int,
    round_robin: bool | None,
) -> None:
    """Rate a period's tournaments (TRF-16 files) against the starting list, print the
    new list, and optionally write it and the rating officer's report."""
    start = read_start_list(list_path)
    events = read_events(trf_files, round_robin)
    system = FideSystem(FideRules(bonus_per_half_point=bonus, floor=floor))
    result = system.rate_period(start, events)
    entries = new_list(result)
    files: dict[Path, str] = {}
    if out is not None:
        files[out] = rating_list_text(entries, out)
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


if __name__ == "__main__":  # pragma: no cover
    main()
