"""``chessrate fide``: FIDE rating periods from TRF-16 files, and the 2024 adjustment."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from ..errors import InvalidInput
from ..io.fide import (
    list_kind_of_files,
    new_list,
    new_list_rows,
    new_list_text,
    read_events,
    read_start_list,
    report_json,
    report_text,
)
from ..io.lists import write_all
from ..systems.fide import (
    RULESETS,
    FideRules,
    FideSystem,
    ListKind,
    Ruleset,
    adjust_2024,
    format_pending,
)
from .common import main, reports_errors


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
    help="seed: the regulations of seed 003 (rules F1-F8); fide-2024: the FIDE Rating "
    "Regulations in force since 1 March 2024 with each amendment in force on the "
    "period's date (docs/fide-2024.md).",
)  # fmt: skip
@click.option(
    "--list-kind", "list_kind", type=click.Choice([k.value for k in ListKind]),
    help="The list the period is rated for (default: from the files' rate of play, 122). "
    "A file whose rate of play does not belong to it is refused.",
)  # fmt: skip
@click.option(
    "--standard-list", "standard_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Rapid and blitz: the standard list (as --list): an unrated player with a "
    "standard rating is rated with it (7.2.1 of the rapid and blitz regulations).",
)  # fmt: skip
@click.option(
    "--waive-6.2", "waive_match", is_flag=True,
    help="Rate every game of a match, also those after it was decided (6.2: waived by "
    "prior request).",
)  # fmt: skip
@click.option(
    "--period", "period", type=click.DateTime(formats=["%Y-%m-%d"]),
    help="The date of the list being made (e.g. 2024-04-01): fide-2024 needs it for the "
    "junior K, to expire pending results after 26 months, for inactivity, and to choose "
    "the amendments in force (without it: the rules as they stand today).",
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
    list_kind: str | None,
    standard_path: Path | None,
    waive_match: bool,
    period: datetime | None,
    bonus: Decimal | None,
    floor: int | None,
    round_robin: bool | None,
) -> None:
    """Rate a period's tournaments (TRF-16 files) against the starting list, print the
    new list, and optionally write it and the rating officer's report."""
    start = read_start_list(list_path) if list_path is not None else {}
    list_date = period.date() if period is not None else None
    seed = ruleset == Ruleset.SEED.value
    kind = list_kind or (
        ListKind.STANDARD.value if seed else list_kind_of_files(trf_files, FideRules.named(ruleset))
    )
    try:
        rules = FideRules.for_period(ruleset, kind, list_date)
    except ValueError as error:
        raise InvalidInput(str(error)) from None
    if standard_path is not None and kind == ListKind.STANDARD:
        raise InvalidInput("--standard-list is for a rapid or blitz list")
    standard = read_start_list(standard_path) if standard_path is not None else {}
    warnings: list[str] = []
    events = read_events(trf_files, round_robin, warnings, rules, refuse=not seed)
    if waive_match:
        events = [replace(event, waived=True) for event in events]
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)
    if bonus is not None:
        rules = replace(rules, bonus_per_half_point=bonus)
    if floor is not None:
        rules = replace(rules, floor=floor)
    system = FideSystem(rules)
    ratings = {key: p.rating for key, p in standard.items() if p.rating is not None}
    result = system.rate_period(start, events, list_date, ratings)
    entries = new_list(result)
    files: dict[Path, str] = {}
    if out is not None:
        files[out] = new_list_text(new_list_rows(result, system), out, list_date)
    if report is not None:
        files[report] = (
            report_json(result) if report.suffix.lower() == ".json" else report_text(result)
        )
    write_all(files)
    title = f"fide · {rules.list_kind} list ({len(entries)} players)"
    table = Table(title=title, title_justify="left")
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
