"""The project's sample data, for ``chessrate serve --sample``.

The files live in the repository's ``examples/`` folder. The wheel carries them as
``chessrate/sample_data/`` (``[tool.hatch.build.targets.wheel.force-include]`` in
pyproject.toml), read with :mod:`importlib.resources`; an editable install (a
checkout, as ``./run`` makes) reads them from ``examples/``.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from .engine import in_rating_order
from .errors import InvalidInput
from .io.games import parse_annulments, parse_games, parse_players
from .ledger import Ledger
from .operations import import_records

SAMPLE_FILES: dict[str, tuple[str, ...]] = {
    "arena": ("arena_games.jsonl", "arena_players.csv"),
    "corr": ("corr_games.jsonl", "corr_players.csv"),
    "site": ("site_games.jsonl", "site_players.csv", "site_annulments.txt"),
    "fide": (
        "fide_seed_round_robin.trf",
        "fide_start_list.csv",
        "fide_rapid_round_robin.trf",
        "fide_rapid_list.csv",
        "fide_blitz_round_robin.trf",
    ),
}
"""Each system's sample files (names in ``examples/`` and in ``sample_data/``)."""

PACKAGE_FOLDER = "sample_data"
CHECKOUT_FOLDER = Path(__file__).resolve().parents[2] / "examples"
SAMPLE_BY = "sample"
"""Who the sample's annulments are recorded as decided by."""
FIDE_SAMPLE_PERIOD = "sample: the seed's ten-player round robin"
FIDE_SAMPLE_BONUS = Decimal(15)
"""The seed's worked examples use a first-rating bonus of 15 per half point."""
FIDE_SAMPLE_LISTS = (
    (
        "sample: rapid, a six-player round robin",
        "rapid",
        "fide_rapid_round_robin.trf",
        "fide_rapid_list.csv",
    ),
    ("sample: blitz, a six-player round robin", "blitz", "fide_blitz_round_robin.trf", None),
)
"""The rapid and blitz sample periods (rated by fide-2024 for the list of
:data:`FIDE_SAMPLE_LIST_DATE`): name, list, file, starting list (None: the empty list,
everyone rated with his standard rating, R&B 7.2.1)."""
FIDE_SAMPLE_LIST_DATE = date(2026, 2, 1)


def sample_location(name: str) -> Traversable:
    """Where a sample file is read from: the installed package's ``sample_data/``, else
    the checkout's ``examples/``."""
    packaged = resources.files("chessrate").joinpath(PACKAGE_FOLDER, name)
    if packaged.is_file():
        return packaged
    checkout = CHECKOUT_FOLDER / name
    if checkout.is_file():
        return checkout
    raise InvalidInput(
        f"sample file {name} is missing: neither chessrate/{PACKAGE_FOLDER}/ in the "
        f"installed package nor {checkout} (reinstall chessrate)"
    )


def sample_text(name: str) -> str:
    """A sample file's text (see :func:`sample_location`)."""
    return sample_location(name).read_text(encoding="utf-8")


def is_empty(ledger: Ledger) -> bool:
    """No games yet (a ledger that rates periods, as ``fide``: no periods yet)."""
    if ledger.info.rates_periods:
        return not ledger.periods.all()
    return ledger.counts()["games"] == 0


def load_sample(ledger: Ledger, now: datetime) -> str:
    """Load the sample of the ledger's system; return what was loaded.

    ``arena``, ``corr``, ``site``: the players, the games in rating order (one
    transaction), and for ``site`` the fair-play annulments (by ``"sample"``).
    ``fide``: three periods, one per list, each created and closed: the seed's round
    robin against its starting list on the standard list (bonus 15, as in the seed's
    worked examples), then a rapid and a blitz round robin of six of its players by
    the fide-2024 rules (:data:`FIDE_SAMPLE_LISTS`).
    """
    system_id = ledger.system_id
    if ledger.info.rates_periods:
        trf_name, list_name = SAMPLE_FILES[system_id][:2]
        periods = ledger.periods
        period = periods.create(
            FIDE_SAMPLE_PERIOD, sample_text(list_name), now, bonus=FIDE_SAMPLE_BONUS
        )
        periods.add_file(period.id, trf_name, sample_text(trf_name))
        closed = periods.close(period.id, now)
        listed = len(periods.new_list(closed.id))
        for name, kind, trf, start in FIDE_SAMPLE_LISTS:
            faster = periods.create(
                name, None if start is None else sample_text(start), now, rules="fide-2024",
                list_date=FIDE_SAMPLE_LIST_DATE, list_kind=kind,
            )  # fmt: skip
            periods.add_file(faster.id, trf, sample_text(trf))
            periods.close(faster.id, now)
        return (
            f"loaded the {system_id} sample: period {closed.id} ({closed.name}), {listed} "
            f"players; a rapid and a blitz period"
        )
    names = SAMPLE_FILES[system_id]
    games = in_rating_order(parse_games(sample_text(names[0]), names[0], "jsonl"))
    players = parse_players(sample_text(names[1]), names[1], "csv")
    annulments = parse_annulments(sample_text(names[2]), names[2]) if len(names) > 2 else []
    report = import_records(ledger, games, players, now, annulments, by=SAMPLE_BY)
    people = len(report.created_players) + len(report.implicit_players)
    text = f"loaded the {system_id} sample: {people} players, {report.new_games} games"
    if report.annulled:
        text += f", {len(report.annulled)} annulments"
    return text
