"""``chessrate evaluate``: how well a system's rules predict a games file, and what
varied rules would do (the rating lab, :mod:`chessrate.lab`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import InvalidInput, InvalidRecord
from ..io.lists import write_all
from ..systems import LEDGER_SYSTEMS
from .common import (
    ProgressBars,
    engine_option,
    games_file_options,
    main,
    no_cycle_collection,
    open_ledger,
    quick_exit,
    reports_errors,
    shown_url,
)

if TYPE_CHECKING:
    from ..lab import Evaluation, Progress

BARS = {"variants": 2}
"""The variants bar shows from two variants on; the games bar (one job) from
``PROGRESS_THRESHOLD`` games replayed over every variant."""


@main.command("evaluate")
@games_file_options(
    "The rating system whose rules are evaluated (with --db: the ledger's). fide: GAMES "
    "is a TRF file or a folder of them, rated as a chain of monthly periods, and "
    "--players the standard list at the start.",
    optional=True,
    systems=LEDGER_SYSTEMS,
)
@click.option(
    "--db", "db", metavar="URL",
    help="Evaluate this ledger's history instead of a file (a SQLite file path, "
    "sqlite:///PATH or postgresql://...): its games in commit order, annulled games left out.",
)  # fmt: skip
@click.option(
    "--vary", "vary", multiple=True, metavar="FIELD=V1,V2,...",
    help="Replay also with this rule field at each value (FIELD.KEY for one entry of a "
    "mapping, e.g. k.blitz); several --vary: every combination.",
)  # fmt: skip
@click.option(
    "--skip-invalid", is_flag=True,
    help="Leave out the invalid records (and the games a variant refuses), listing them.",
)  # fmt: skip
@click.option("--json", "as_json_output", is_flag=True, help="Print JSON for machines.")
@click.option(
    "--report", type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the evaluation as one self-contained HTML page (tables and plots) "
    "to this file; the text or JSON still goes to stdout.",
)  # fmt: skip
@engine_option(
    "compiled: the numba replay (the same evaluation, much faster on big files); "
    "reference: the pure-Python engine; auto: compiled for a system with a compiled half."
)
@click.option(
    "--jobs", type=click.IntRange(0), default=1, show_default=True,
    help="Replay the variants in this many processes (0: one per core); the same results.",
)  # fmt: skip
@reports_errors
def evaluate_command(
    games: Path | None,
    system_id: str | None,
    players_path: Path | None,
    fmt: str | None,
    db: str | None,
    vary: tuple[str, ...],
    skip_invalid: bool,
    as_json_output: bool,
    report: Path | None,
    engine_choice: str,
    jobs: int,
) -> None:
    """Replay GAMES under the system's rules and each --vary variant and report, per
    pool, the predictive quality of the expected scores (deviance, Brier,
    calibration) and each variant's effect on the final lists, beside two reference
    predictors (plain Elo, lichess's Glicko-2: not regulations). The library call
    behind it is chessrate.lab.evaluate."""
    # the lab is imported here: every other command would pay its imports at start
    from ..lab import evaluate
    from ..lab.output import as_json, as_text
    from ..lab.report import as_html

    if report is not None and not report.parent.is_dir():  # refused before the replays
        raise InvalidInput(f"--report {report}: the folder {report.parent} does not exist")
    skipped: list[InvalidRecord] = []
    on_invalid = skipped.append if skip_invalid else None
    with no_cycle_collection(), ProgressBars(BARS) as bars:
        if db is None:
            if games is None or system_id is None:
                raise InvalidInput("evaluate needs GAMES and --system, or --db URL (a ledger)")
            evaluation = evaluate(
                games, system_id, players_path, vary, fmt, on_invalid, engine_choice, jobs, bars
            )
        else:
            evaluation = _evaluate_db(db, games, system_id, players_path, fmt, vary,
                                      on_invalid, engine_choice, jobs, bars)  # fmt: skip
    if report is not None:  # a temporary file renamed into place: never half a page
        write_all({report: as_html(evaluation)})
    click.echo(as_json(evaluation) if as_json_output else as_text(evaluation))
    for where in dict.fromkeys(str(error) for error in skipped):
        click.echo(f"skipped {where}", err=True)
    quick_exit()  # all written and printed: the process may end without its teardown


def _evaluate_db(
    db: str,
    games: Path | None,
    system_id: str | None,
    players_path: Path | None,
    fmt: str | None,
    vary: tuple[str, ...],
    on_invalid: Callable[[InvalidRecord], None] | None,
    engine: str,
    jobs: int,
    progress: Progress,
) -> Evaluation:
    """``--db``: the ledger's history; GAMES, --players and --format do not go with it,
    and --system, when given, must be the ledger's."""
    from ..operations import evaluate_ledger

    if games is not None or players_path is not None or fmt is not None:
        raise InvalidInput(
            "--db evaluates a ledger's history: give no GAMES, --players or --format"
        )
    ledger = open_ledger(db)
    try:
        if system_id is not None and system_id != ledger.system_id:
            raise InvalidInput(
                f"--system {system_id}: the ledger at {shown_url(ledger.url)} rates "
                f"{ledger.system_id}"
            )
        source = shown_url(ledger.url)
        return evaluate_ledger(ledger, vary, source, on_invalid, engine, jobs, progress)
    finally:
        ledger.dispose()
