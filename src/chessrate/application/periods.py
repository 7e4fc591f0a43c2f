"""fide rating periods (a fide ledger only; another ledger answers 404): open a period
with its starting list, add TRF files, close it (rate it); its new list (JSON or CSV),
each player's report, and a player's rating by period. Each tournament as a crosstable
is :mod:`.crosstables`'s; a player's card :mod:`.player_cards`'.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InvalidRecord, NotFound
from ..io.lists import csv_text
from ..io.trf import parse_trf
from ..ledger import Ledger
from ..ledger.periods import PeriodEntry, Periods, PeriodView, PlayerPeriod
from ..numbers import format_rating
from ..systems.fide import FideRules, ListKind, Ruleset
from .common import LIST_PAGE_MAX, Choice, PagePublic, RequestModel
from .settings import API_V1

# -- requests ---------------------------------------------------------------------------


class PeriodCreate(RequestModel):
    """A fide rating period: its name, ruleset and starting rating list (CSV text with
    the columns ``id,name,rating,games,reached_2400``, and optionally those a new list
    carries: ``k,birth_year,met_rated,pending``). Without a starting list the period
    starts from the last closed period's new list (the periods chain)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    rules: Annotated[Ruleset, Choice] = Field(
        default=Ruleset.SEED,
        description="seed: seed 003's B.02 (rules F1-F8); fide-2024: the FIDE Rating "
        "Regulations in force since 1 March 2024 (docs/fide-2024.md)",
    )
    list_date: date | None = Field(
        default=None,
        description="the date of the list the period makes (fide-2024: the junior K, "
        "the 26 months of pending results and the amendments in force)",
    )
    list_kind: Annotated[ListKind, Choice] = Field(
        default=ListKind.STANDARD,
        description="the list the period rates: standard, rapid or blitz (rapid and blitz: "
        "fide-2024 only); each list chains on its own, and its files' rate of play must "
        "belong to it",
    )
    bonus: Decimal | None = Field(
        default=None,
        ge=0,
        max_digits=6,
        decimal_places=2,
        description="first-rating bonus per half point over 50% (fide F4; default: the "
        "ruleset's, 12.5)",
        json_schema_extra={
            "anyOf": [
                {"type": "number", "minimum": 0, "maximum": 9999.99, "multipleOf": 0.01},
                {"type": "string", "pattern": "^[0-9]{1,4}([.][0-9]{1,2})?$"},
                {"type": "null"},
            ]
        },
    )
    floor: int | None = Field(
        default=None, ge=0, le=10_000,
        description="the rating floor (default: the ruleset's: seed 1000, fide-2024 1400)",
    )  # fmt: skip
    start_list: str | None = Field(
        default=None,
        description="the starting list, CSV text; none: the last closed period's new list",
    )


# -- answers ----------------------------------------------------------------------------


class AmendmentPublic(BaseModel):
    article: str
    since: date = Field(description="the day it took effect")
    says: str
    applied: bool = Field(description="whether it applies to this period")


class PeriodPublic(BaseModel):
    id: int
    name: str
    rules: str
    list_date: date | None
    list_kind: ListKind = Field(description="the list the period rates")
    rules_by_date: bool = Field(
        description="rated by the rules in force on the list's date, for its list; false: "
        "a period stored before the three lists, rated by its ruleset as it then stood"
    )
    bonus: str
    floor: int
    created_at: datetime
    closed_at: datetime | None
    closed: bool
    files: list[str]
    warnings: list[str] = Field(
        default_factory=list,
        description="what the upload's reading left out and why (a player entered twice, "
        "one entry never paired)",
    )
    amendments: list[AmendmentPublic] = Field(
        default_factory=list,
        description="fide-2024: each amendment of the regulations for the period's list, "
        "and whether it applies to the period (its games reach the amendment's date)",
    )


class PeriodsPublic(PagePublic):
    periods: list[PeriodPublic]


class PeriodEntryPublic(BaseModel):
    position: int
    player: str = Field(description="the FIDE id, else the name as written in the TRF file")
    name: str
    old_rating: int | None
    new_rating: int | None
    games: int = Field(description="rated games in all, after the period")
    change: str | None = Field(
        description="K × ΣΔR (fide F2), exact, two decimals; null without a calculation "
        "(a first rating, an unrated player, no rated game)"
    )
    k: int | None = Field(description="the K used (fide F3); null without a calculation")
    period_games: int = Field(description="rated games this period counted")
    flag: str = Field(
        default="", description="the list's Flag (7.2.2): `i` inactive, `w` woman, `wi` both"
    )


class PeriodListPublic(PagePublic):
    period: int
    entries: list[PeriodEntryPublic]


class PlayerPeriodPublic(BaseModel):
    """A player's line in one closed period."""

    period: int
    period_name: str
    list_kind: ListKind
    closed_at: datetime
    position: int
    old_rating: int | None
    new_rating: int | None
    change: str | None = Field(description="K × ΣΔR, exact (fide F2); null: no calculation")
    k: int | None
    games: int = Field(description="rated games in all, after the period")
    period_games: int = Field(description="rated games this period counted")
    report: str = Field(description="the API path of the player's report for the period")
    report_page: str = Field(description="the web page of that report")
    list_date: date | None = Field(default=None, description="the date of the period's list")


class PlayerListPublic(BaseModel):
    """A fide player on one of the three lists: the rating the last closed period of
    that list that has the player published, and every period of that list."""

    list_kind: ListKind
    rating: int | None = Field(description="the current rating on this list; null: unrated")
    games: int = Field(description="rated games in all on this list")
    k: int | None = Field(description="the K published with the list (for the next period)")
    period: int | None = Field(description="the period that published it; null: on no list")
    flag: str = Field(
        default="",
        description="the list's Flag (7.2.2) for the player: `i` inactive, `w` woman, `wi` both",
    )
    periods: list[PlayerPeriodPublic] = Field(description="this list's periods, oldest first")


class PlayerPeriodsPublic(PagePublic):
    """A fide player's rating by period, oldest first (paged), and the player on each
    of the three lists."""

    player: str
    name: str | None
    periods: list[PlayerPeriodPublic]
    lists: list[PlayerListPublic] = Field(
        description="standard, rapid and blitz, in that order: each list's current rating, "
        "games, K and periods (not paged)"
    )


class FideReportPublic(BaseModel):
    """A player's whole calculation for the period (the rating officer's report)."""

    model_config = ConfigDict(extra="allow")

    player: str
    name: str
    old_rating: int | None
    new_rating: int | None
    old_games: int
    new_games: int
    k: int | None = None
    games: list[dict[str, Any]] = Field(
        default_factory=list,
        description="each game of the calculation (F2), with its opponent's `opponent_name`",
    )
    sum_delta: str | None = None
    expected: str | None = None
    change: str | None = None
    first_rating: list[dict[str, Any]] = Field(default_factory=list)
    combined: str = ""
    notes: list[str] = Field(default_factory=list)


# -- services ---------------------------------------------------------------------------


def periods_of(ledger: Ledger) -> Periods:
    """The ledger's rating periods; a ledger of another system has none (404)."""
    if not ledger.info.rates_periods:
        raise NotFound(
            f"rating periods belong to a fide ledger; this ledger rates by {ledger.system_id}"
        )
    return ledger.periods


def period_public(view: PeriodView) -> PeriodPublic:
    return PeriodPublic(
        id=view.id,
        name=view.name,
        rules=view.rules,
        list_date=view.list_date,
        list_kind=ListKind(view.list_kind),
        rules_by_date=view.rules_by_date,
        bonus=str(view.bonus),
        floor=view.floor,
        created_at=view.created_at,
        closed_at=view.closed_at,
        closed=view.closed_at is not None,
        files=list(view.files),
        warnings=list(view.warnings),
        amendments=_amendments(view),
    )


def _amendments(view: PeriodView) -> list[AmendmentPublic]:
    """The amendments of the period's list, applied or not (none for the seed, or for a
    period stored before the rules by date)."""
    if view.rules != Ruleset.FIDE_2024.value or not view.rules_by_date:
        return []
    rules = FideRules.for_period(view.rules, view.list_kind, view.list_date)
    return [
        AmendmentPublic(article=a.article, since=a.since, says=a.says, applied=applied)
        for a, applied in rules.amendments_for(view.list_date)
    ]


def create_period(ledger: Ledger, body: PeriodCreate, now: datetime) -> PeriodPublic:
    periods = periods_of(ledger)
    view = periods.create(
        body.name, body.start_list, now, bonus=body.bonus, floor=body.floor, rules=body.rules.value,
        list_date=body.list_date, list_kind=body.list_kind.value,
    )  # fmt: skip
    return period_public(view)


def decode_text(data: bytes) -> str:
    """A text upload: UTF-8, else latin-1 (as the TRF reader reads files)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def add_period_file(
    ledger: Ledger, period_id: int, name: str, content: str, round_robin: bool | None
) -> PeriodPublic:
    periods = periods_of(ledger)
    if not content.strip():
        raise InvalidRecord(name, "body", "the TRF file is empty")
    tournament = parse_trf(content, name)
    if round_robin is None and tournament.is_round_robin is None:
        raise InvalidRecord(
            name,
            "round_robin",
            f"the file (092 {tournament.kind!r}) does not say whether it is a round robin "
            "or a Swiss: pass round_robin=true or round_robin=false",
        )
    return period_public(periods.add_file(period_id, name, content, round_robin))


def close_period(ledger: Ledger, period_id: int, now: datetime) -> PeriodPublic:
    return period_public(periods_of(ledger).close(period_id, now))


def list_periods(ledger: Ledger, offset: int = 0, limit: int = LIST_PAGE_MAX) -> PeriodsPublic:
    """A page of the rating periods, oldest first."""
    periods = periods_of(ledger)
    found = [period_public(p) for p in periods.all(offset, limit)]
    return PeriodsPublic(periods=found, total=periods.count(), offset=offset, limit=limit)


def get_period(ledger: Ledger, period_id: int) -> PeriodPublic:
    return period_public(periods_of(ledger).get(period_id))


def _entry_public(entry: PeriodEntry) -> PeriodEntryPublic:
    return PeriodEntryPublic(
        position=entry.position,
        player=entry.player,
        name=entry.name,
        old_rating=entry.old_rating,
        new_rating=entry.new_rating,
        games=entry.games,
        change=format_rating(entry.change),
        k=entry.k,
        period_games=entry.period_games,
        flag=entry.flag,
    )


def period_list(
    ledger: Ledger, period_id: int, offset: int = 0, limit: int = LIST_PAGE_MAX
) -> PeriodListPublic:
    """A page of the closed period's new list, by position (409 while it is open)."""
    periods = periods_of(ledger)
    entries = [_entry_public(e) for e in periods.new_list(period_id, offset, limit)]
    return PeriodListPublic(
        period=period_id, entries=entries, total=periods.list_size(period_id),
        offset=offset, limit=limit,
    )  # fmt: skip


PERIOD_LIST_COLUMNS = ("position", "id", "name", "old_rating", "new_rating", "change", "k", "games")
"""The new list as CSV; ``games``: the rated games the period counted (FIDE's "Gms")."""


def period_list_csv(ledger: Ledger, period_id: int) -> tuple[str, str]:
    """The closed period's new list as CSV (:data:`PERIOD_LIST_COLUMNS`, the values of
    :func:`period_list`): its file name and its text."""
    rows = [
        {**e.model_dump(), "id": e.player, "games": e.period_games}
        for e in period_list(ledger, period_id).entries
    ]
    return f"fide-period-{period_id}-list.csv", csv_text(PERIOD_LIST_COLUMNS, rows)


def report_path(period_id: int, player_id: str, api: bool) -> str:
    path = f"/periods/{period_id}/reports/{quote(player_id, safe='')}"
    return f"{API_V1}/fide{path}" if api else path


def period_report(ledger: Ledger, period_id: int, player_id: str) -> FideReportPublic:
    """The player's report; each game line carries its opponent's ``opponent_name``."""
    periods = periods_of(ledger)
    report = periods.report(period_id, player_id)
    names = periods.names(period_id)
    for line in report.get("games", ()):
        line["opponent_name"] = names.get(line.get("opponent", ""))
    for calc in report.get("first_rating", ()):
        for line in calc.get("lines", ()):  # reports stored before have no lines
            line["opponent_name"] = names.get(line.get("opponent", ""))
    return FideReportPublic.model_validate(report)


def player_periods(
    ledger: Ledger, player_id: str, offset: int = 0, limit: int = LIST_PAGE_MAX
) -> PlayerPeriodsPublic:
    """A fide player's rating by period: the closed periods the player is in, oldest
    first, a page of them (404 for an unknown player; a player without a period has an
    empty list). The name is the latest period's."""
    periods = periods_of(ledger)
    every = periods.of_player(player_id)  # one row per period: a few hundred
    views = {p.period_id: periods.get(p.period_id) for p in every}
    name = every[-1].entry.name if every else ledger.players.get(player_id).player.name
    found = every[offset : offset + limit]
    lists = []
    for kind in ListKind:
        mine = [p for p in every if p.list_kind == kind.value]
        last = mine[-1] if mine else None
        lists.append(
            PlayerListPublic(
                list_kind=kind,
                rating=None if last is None else last.entry.new_rating,
                games=0 if last is None else last.entry.games,
                k=None if last is None else last.next_k,
                period=None if last is None else last.period_id,
                flag="" if last is None else last.entry.flag,
                periods=[_player_period(p, player_id, views[p.period_id]) for p in mine],
            )
        )
    return PlayerPeriodsPublic(
        total=len(every),
        offset=offset,
        limit=limit,
        player=player_id,
        name=name,
        periods=[_player_period(p, player_id, views[p.period_id]) for p in found],
        lists=lists,
    )


def _player_period(p: PlayerPeriod, player_id: str, view: PeriodView) -> PlayerPeriodPublic:
    return PlayerPeriodPublic(
        period=p.period_id,
        period_name=p.period_name,
        list_kind=ListKind(p.list_kind),
        closed_at=p.closed_at,
        position=p.entry.position,
        old_rating=p.entry.old_rating,
        new_rating=p.entry.new_rating,
        change=format_rating(p.entry.change),
        k=p.entry.k,
        games=p.entry.games,
        period_games=p.entry.period_games,
        report=report_path(p.period_id, player_id, api=True),
        report_page=report_path(p.period_id, player_id, api=False),
        list_date=view.list_date,
    )
