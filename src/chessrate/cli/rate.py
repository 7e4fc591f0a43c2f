"""``chessrate rate``: rate a games file and print the top of every pool's list."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from ..errors import InvalidInput
from ..io.lists import history_text, write_all
from ..rating import RatedFile, rate_file
from ..records import Outcome
from ..systems import system_info
from .common import (
    ProgressBars,
    engine_option,
    games_file_options,
    main,
    no_cycle_collection,
    quick_exit,
    reports_errors,
)

TOP = 20
"""``rate`` prints this many entries of each pool unless told (``--top``, ``--all``)."""


@main.command()
@games_file_options("The rating system to rate by.")
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
@engine_option(
    "compiled: the numba replay (same results, much faster on big files); reference: "
    "the pure-Python engine; auto: compiled for a file of 2 MB or more unless --history "
    "asks for explanations, else reference (quicker to start on small files)."
)
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
    with no_cycle_collection():
        with ProgressBars() as bars:
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
    quick_exit()  # every file is written: the process may end without its teardown


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
        label = system_info(system_id).pool_label(pool)
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
