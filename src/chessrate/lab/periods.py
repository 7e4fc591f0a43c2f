"""The rating lab for a system that rates periods (``fide``): a chain of rating periods
replayed under the base rules and under every variant.

A period is rated from its starting list, and its starting list is the list the
period before it published: under a variant, the chain goes on from the variant's own
lists (each period's new list becomes the next period's starting list of the same list,
written and read back as ``fide rate --out`` and ``--list`` do), so that a change of K
in the first period moves the expected scores of every later one. Each list (standard,
rapid, blitz) chains on its own; a rapid or blitz period takes its unrated players'
standard ratings (rapid and blitz regulations 7.2.1) from the variant's standard list
before it.

The expected score of a game is the regulation's own: the ``PD`` of the player's
calculation (:attr:`~chessrate.systems.fide.GameLine.pd`, from the table of the ratings
on the period's starting list). A game is scored once, when both players were rated on
that list and it was rated: from the side of the player whose id sorts first (a TRF
game carries no colour into the calculation). Its experience is the smaller of the
two players' rated games on the starting list.

The periods come from a folder of TRF files (:func:`periods_from_files`: a tournament
is rated in the period of the month it ended, on the list of the first day of the next
month) or from a ledger's closed periods (:meth:`chessrate.ledger.periods.Periods.history`).
A variant is a real :class:`~chessrate.systems.fide.FideRules`: each period's rules (its
ruleset for its list and date) with the varied fields set. ``ruleset`` (``--vary
ruleset=seed,fide-2024``) replaces the ruleset itself: "what would today's rules have
made of our history". The 2024 rules for a period before they came in force (1 March
2024) are the rules as they first stood; the seed's edition, which has only the
standard list, rates a rapid or blitz list by its standard rules."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, InvalidRecord
from ..io.fide import (
    event_from_tournament,
    list_kind_of,
    new_list_rows,
    new_list_text,
    parse_start_list,
    read_start_list,
    tournament_end,
)
from ..io.trf import Tournament, read_trf
from ..systems.base import ListEntry
from ..systems.fide import (
    LIST_POOLS,
    Event,
    FideRules,
    FideSystem,
    ListedPlayer,
    ListKind,
    PeriodResult,
    Ruleset,
)
from ..systems.fide.rules import IN_FORCE_2024, RULESETS
from .lists import Comparison, compare
from .predictors import PREDICTORS
from .quality import Quality, quality
from .results import PoolResult, PredictorResult
from .variants import InvalidVariant, Variant, parse_value, variants

RULESET = "ruleset"
"""The ``--vary`` name that replaces a period's ruleset (the ``name`` of its rules)."""

KINDS = tuple(k.value for k in ListKind)
"""The lists in the order a month's periods are rated (standard first)."""

POOLS = tuple(LIST_POOLS.values())
"""The three lists' pools (``fide``, ``fide-rapid``, ``fide-blitz``)."""

NAMES = "names"
"""The key of a run's lists that holds the players' names (no pool is called so)."""

FIXED = ("list_kind", "dated", "amendments")
"""Fields of the rules that say which period they are for, not how it is rated: not
varied (the list is the period's; the amendments follow its date)."""

TRF_SUFFIXES = (".trf", ".txt")
"""The files of a folder that are read as TRF-16 tournaments."""


@dataclass(frozen=True, slots=True)
class Period:
    """One rating period of the chain."""

    name: str
    list_kind: str
    list_date: date | None
    played: datetime
    """When its games count as played (the reference predictors' clock)."""
    events: tuple[Event, ...]
    rules: FideRules
    """The base rules the period is rated by (its ruleset for its list and date)."""
    start: Mapping[str, ListedPlayer] | None = None
    """Its starting list as given (the first period of a list, or a list uploaded to a
    ledger); None: the previous list of the chain under each variant (none before it:
    an empty list, every player from the files)."""
    standard: int | None = None
    """For a rapid or blitz period: the index of the standard period whose new list
    gives its unrated players their standard rating (None: :attr:`Chain.standard`)."""
    ratings_from_list: bool = False
    """Its events carry no ratings of their own (a generated stream's, not a TRF
    file's): each player's rating in them is the one on the period's starting list
    under each variant, as the tournament's file would give it."""

    @property
    def pool(self) -> str:
        return LIST_POOLS[self.list_kind]


@dataclass(frozen=True, slots=True)
class Chain:
    """The periods in the order they are rated, and the standard ratings a rapid or
    blitz period without a standard period before it uses (a ``--players`` list)."""

    periods: tuple[Period, ...]
    standard: Mapping[str, int] = dataclasses.field(default_factory=dict)

    @property
    def games(self) -> int:
        return sum(len(_games(p)) for p in self.periods)


# -- reading the chain ----------------------------------------------------------------


def list_date_after(day: date) -> date:
    """The list a tournament that ended on ``day`` is rated on: the first day of the
    month after (FIDE's monthly lists)."""
    first = day.replace(day=1)
    return (first + timedelta(days=32)).replace(day=1)


def trf_files(path: Path) -> list[Path]:
    """A TRF file, or a folder's TRF files (``.trf``, ``.txt``) by name."""
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.suffix.lower() in TRF_SUFFIXES)
        if not found:
            raise InvalidInput(f"{path}: no TRF files (.trf, .txt) in the folder")
        return found
    return [path]


def played_on(tournaments: Sequence[Tournament], list_date: date | None) -> date | None:
    """The day a period's games count as played for the reference predictors' clocks:
    the last end date of its tournaments that can be read (:func:`tournament_end`),
    else the day before its list, else None."""
    days = []
    for tournament in tournaments:
        try:
            days.append(tournament_end(tournament))
        except InvalidRecord:
            continue
    if days:
        return max(days)
    return None if list_date is None else list_date - timedelta(days=1)


def noon(day: date) -> datetime:
    return datetime.combine(day, time(12), UTC)


def rules_for(ruleset: str, list_kind: str, list_date: date | None) -> FideRules:
    """The rules of ``ruleset`` for a period of ``list_kind`` dated ``list_date``, as an
    evaluation applies them (see the module): for the period's date; the 2024 rules
    before 1 March 2024 as they first stood; the seed's rules on any list."""
    if ruleset == Ruleset.SEED.value:
        return dataclasses.replace(FideRules.named(ruleset), list_kind=list_kind)
    if list_date is not None and list_date < IN_FORCE_2024:
        list_date = IN_FORCE_2024
    return FideRules.for_period(ruleset, list_kind, list_date)


def periods_from_files(
    path: Path,
    players: Path | None = None,
    on_invalid: Callable[[InvalidRecord], None] | None = None,
    ruleset: str = Ruleset.SEED.value,
) -> Chain:
    """The chain of a TRF file or folder: each tournament in the period of its list
    (the month after it ended) and of the list its rate of play belongs to (``122``,
    read as the 2024 regulations read it; standard when it says none). ``players``: the
    standard list's starting list (``fide rate --list``), also the standard ratings of
    the rapid and blitz lists' unrated players until a standard period is rated. A
    file that cannot be read raises, or with ``on_invalid`` is reported there and left
    out."""
    grouped: dict[tuple[date, str], list[tuple[Event, date]]] = {}
    reading = RULESETS[Ruleset.FIDE_2024.value]
    for file in trf_files(path):
        try:
            tournament = read_trf(file)
            ended = tournament_end(tournament)
            event = event_from_tournament(tournament)
        except InvalidRecord as error:
            if on_invalid is None:
                raise
            on_invalid(error)
            continue
        except InvalidInput as error:
            if on_invalid is None:
                raise
            on_invalid(InvalidRecord(str(file), "file", str(error)))
            continue
        found = list_kind_of(event.minutes, reading) or ListKind.STANDARD
        grouped.setdefault((list_date_after(ended), found.value), []).append((event, ended))
    start = read_start_list(players) if players is not None else None
    ordered = sorted(grouped, key=lambda key: (key[0], KINDS.index(key[1])))
    periods: list[Period] = []
    last_standard: int | None = None
    for list_date, kind in ordered:
        events = grouped[(list_date, kind)]
        first_of_kind = all(p.list_kind != kind for p in periods)
        given = start if kind == ListKind.STANDARD.value and first_of_kind else None
        last_day = max(ended for _, ended in events)
        periods.append(
            Period(
                f"{kind} list {list_date.isoformat()}",
                kind,
                list_date,
                noon(last_day),
                tuple(event for event, _ in events),
                rules_for(ruleset, kind, list_date),
                given,
                None if kind == ListKind.STANDARD.value else last_standard,
            )
        )
        if kind == ListKind.STANDARD.value:
            last_standard = len(periods) - 1
    standard = {} if start is None else {k: p.rating for k, p in start.items() if p.rating}
    return Chain(tuple(periods), standard)


# -- variants -------------------------------------------------------------------------


def period_variants(specs: Sequence[str]) -> list[Variant]:
    """:func:`~chessrate.lab.variants.variants` of the fide rules, with ``ruleset`` for
    the ruleset (the rules' ``name``: one of the known rulesets)."""
    renamed = []
    for spec in specs:
        name, sep, values = spec.partition("=")
        if name.strip() == "name":
            raise InvalidVariant(f"--vary {spec!r}: vary the ruleset as {RULESET}=...")
        if name.strip() in FIXED:
            raise InvalidVariant(
                f"--vary {name.strip()}: says which period the rules are for, not how it is "
                "rated (the list is the period's, the amendments follow its date)"
            )
        if name.strip() == RULESET:
            for value in values.split(","):
                if value.strip() and value.strip() not in RULESETS:
                    known = ", ".join(RULESETS)
                    raise InvalidVariant(
                        f"--vary {RULESET}: {value.strip()!r} is not a ruleset (known: {known})"
                    )
            spec = f"name{sep}{values}"
        renamed.append(spec)
    out = []
    for variant in variants(FideRules(), renamed):
        varied = tuple((RULESET if n == "name" else n, t) for n, t in variant.varied)
        label = " ".join(f"{n}={t}" for n, t in varied) or variant.label
        out.append(Variant(label, variant.rules, varied))
    return out


def varied_rules(period: Period, variant: Variant) -> FideRules:
    """The period's rules under the variant: its ruleset's (or the varied ruleset's)
    for its list and date, with the varied fields set; a value the fields' type
    refuses names the field."""
    rules = period.rules
    fields = dict(variant.varied)
    ruleset = fields.pop(RULESET, None)
    if ruleset is not None and ruleset != rules.name:
        rules = rules_for(ruleset, period.list_kind, period.list_date)
    for name, text in fields.items():
        rules = dataclasses.replace(rules, **{name: parse_value(rules, name, text)})
    return rules


# -- one variant's replay -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScoredGame:
    """A game's prediction: the key of the game (event, round, the two ids in order),
    the list's pool, the first player's expected score and score, the experience."""

    key: tuple[str, int, str, str]
    pool: str
    expected: float
    score: float
    experience: int


def _games(period: Period) -> list[tuple[tuple[str, int, str, str], float]]:
    """Each game of the period's events once (key, the first player's score), in the
    events' order and by round."""
    seen: dict[tuple[str, int, str, str], float] = {}
    for event in period.events:
        for entry in event.entries:
            for game in sorted(entry.games, key=lambda g: g.round):
                first, second = sorted((entry.player, game.opponent))
                key = (event.name, game.round, first, second)
                if key not in seen:
                    score = float(game.score)
                    seen[key] = score if entry.player == first else 1.0 - score
    return list(seen.items())


def scored(result: PeriodResult, pool: str) -> list[ScoredGame]:
    """The period's rated games between two players rated on its starting list, each
    once: the first player's (by id) ``PD`` and score (the other's when only his
    calculation rated it)."""
    before = {r.player: r for r in result.reports if r.old_rating is not None}
    found: dict[tuple[str, int, str, str], ScoredGame] = {}
    for report in result.reports:
        if report.old_rating is None:
            continue
        for line in report.games:
            other = before.get(line.opponent)
            if line.pd is None or other is None:
                continue
            first, second = sorted((report.player, line.opponent))
            key = (line.event, line.round, first, second)
            if key in found and report.player != first:
                continue
            experience = min(report.old_games, other.old_games)
            found[key] = ScoredGame(key, pool, float(line.pd), float(line.score), experience)
    return list(found.values())


def final_list(result: PeriodResult, pool: str) -> list[ListEntry]:
    """A period's new list as list entries; the state is ``rated``, ``unrated`` or
    ``inactive`` (flagged ``i``, 7.2.2)."""
    entries = []
    for report in result.reports:
        rating = None if report.new_rating is None else Decimal(report.new_rating)
        state = "inactive" if "i" in report.flag else report.state
        entries.append(
            ListEntry(report.player, pool, rating, "" if rating is None else str(rating),
                      state, report.new_games)
        )  # fmt: skip
    return entries


@dataclass(frozen=True, slots=True)
class ChainRun:
    """A variant's replay of the chain: each period's result, its scored games, and
    the final list of each pool (the last period of each list)."""

    results: tuple[PeriodResult, ...]
    scored: tuple[ScoredGame, ...]
    lists: dict[str, Any]
    """Each pool's final list (``ListEntry`` lists), and under :data:`NAMES` the
    players' names by id."""


def replay_chain(
    chain: Chain, variant: Variant, progress: Callable[[int], None] | None = None
) -> ChainRun:
    """Rate every period of the chain under the variant, each from the variant's list
    before it (see the module); ``progress`` told each period's games."""
    lists: dict[str, Mapping[str, ListedPlayer]] = {}
    results: list[PeriodResult] = []
    games: list[ScoredGame] = []
    final: dict[str, Any] = {NAMES: {}}
    for period in chain.periods:
        try:
            rules = varied_rules(period, variant)
        except ValueError as error:
            raise InvalidVariant(f"--vary {variant.label}: {period.name}: {error}") from None
        start = period.start if period.start is not None else lists.get(period.list_kind, {})
        standard: Mapping[str, int] = {}
        if period.list_kind != ListKind.STANDARD.value:
            if period.standard is None:
                standard = chain.standard
            else:
                standard = {r.player: r.new_rating for r in results[period.standard].reports
                            if r.new_rating is not None}  # fmt: skip
        events = period.events
        if period.ratings_from_list:
            events = tuple(_rated_from(event, start) for event in events)
        system = FideSystem(rules)
        result = system.rate_period(start, events, period.list_date, standard)
        results.append(result)
        games.extend(scored(result, period.pool))
        text = new_list_text(new_list_rows(result, system), Path("next.csv"), period.list_date)
        lists[period.list_kind] = parse_start_list(text, f"{period.name}: new list", stored=True)
        final[period.pool] = final_list(result, period.pool)
        final[NAMES].update((r.player, r.name) for r in result.reports)
        if progress is not None:
            progress(len(_games(period)))
    return ChainRun(tuple(results), tuple(games), final)


def _rated_from(event: Event, start: Mapping[str, ListedPlayer]) -> Event:
    """The event with each player's rating the one on the starting list (None: not on
    it, or unrated there)."""
    entries = []
    for entry in event.entries:
        listed = start.get(entry.player)
        rating = None if listed is None else listed.rating
        entries.append(dataclasses.replace(entry, event_rating=rating))
    return dataclasses.replace(event, entries=tuple(entries))


def qualities(run: ChainRun, pools: Sequence[str]) -> tuple[Quality, ...]:
    """The run's quality in each pool (the regulation's own expected scores)."""
    out = []
    for pool in pools:
        mine = [g for g in run.scored if g.pool == pool]
        pairs = [(g.expected, g.score) for g in mine]
        out.append(quality(pairs, "system" if mine else "none", [g.experience for g in mine]))
    return tuple(out)


def compare_lists(base: Mapping[str, Any], variant: Mapping[str, Any], pool: str) -> Comparison:
    """What the variant did to a pool's final list (a list no period rated: nobody),
    the players named as the lists name them."""
    names = dict(base.get(NAMES, {}))
    names.update(variant.get(NAMES, {}))
    return compare(base.get(pool, ()), variant.get(pool, ()), names)


# -- the reference predictors ---------------------------------------------------------


def chain_predictors(chain: Chain, base: ChainRun) -> tuple[PredictorResult, ...]:
    """Each reference predictor over every game of the chain in order (it learns from
    all of them, starting from nothing: the starting lists are the regulation's
    knowledge, not the predictor's), scored on the games the base rules scored."""
    evaluated = {(g.pool, g.key): g.experience for g in base.scored}
    pools = POOLS
    out = []
    for make in PREDICTORS:
        predictor = make()
        pairs: dict[str, list[tuple[float, float]]] = {pool: [] for pool in pools}
        learnt: dict[str, list[int]] = {pool: [] for pool in pools}
        for period in chain.periods:
            for key, score in _games(period):
                _, _, first, second = key
                expected = predictor.expected(first, second, period.pool, period.played)
                experience = evaluated.get((period.pool, key))
                if experience is not None:
                    pairs[period.pool].append((expected, score))
                    learnt[period.pool].append(experience)
                predictor.update(first, second, period.pool, score, period.played)
        out.append(
            PredictorResult(
                make.label,
                make.description,
                tuple(
                    PoolResult(pool, quality(pairs[pool], make.label, learnt[pool]), None)
                    for pool in pools
                ),
            )
        )
    return tuple(out)
