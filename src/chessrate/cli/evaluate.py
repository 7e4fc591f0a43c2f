"""``chessrate evaluate``: how well a system's rules predict a games file, and what
varied rules would do (the rating lab, :mod:`chessrate.lab`)."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import InvalidRecord
from ..lab import as_json, as_text, evaluate
from .common import (
    ProgressBars,
    engine_option,
    games_file_options,
    main,
    no_cycle_collection,
    quick_exit,
    reports_errors,
)

BARS = {"variants": 2}
"""The variants bar shows from two variants on; the games bar (one job) from
``PROGRESS_THRESHOLD`` games replayed over every variant."""


@main.command("evaluate")
@games_file_options("The rating system whose rules are evaluated.")
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
    games: Path,
    system_id: str,
    players_path: Path | None,
    fmt: str | None,
    vary: tuple[str, ...],
    skip_invalid: bool,
    as_json_output: bool,
    engine_choice: str,
    jobs: int,
) -> None:
    """Replay GAMES under the system's rules and each --vary variant and report, per
    pool, the predictive quality of the expected scores (deviance, Brier,
    calibration) and each variant's effect on the final lists, beside two reference
    predictors (plain Elo, lichess's Glicko-2: not regulations). The library call
    behind it is chessrate.lab.evaluate."""
    skipped: list[InvalidRecord] = []
    on_invalid = skipped.append if skip_invalid else None
    with no_cycle_collection(), ProgressBars(BARS) as bars:
        evaluation = evaluate(
            games, system_id, players_path, vary, fmt, on_invalid, engine_choice, jobs, bars
        )
    click.echo(as_json(evaluation) if as_json_output else as_text(evaluation))
    for where in dict.fromkeys(str(error) for error in skipped):
        click.echo(f"skipped {where}", err=True)
    quick_exit()  # all printed: the process may end without its teardown
