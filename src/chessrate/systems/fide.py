"""``fide``: FIDE rating regulations B.02 section 8, rated per rating period.

Two rulesets, chosen by name (:data:`RULESETS`, :meth:`FideRules.named`):

- ``seed`` (the default): the seed's edition (seed 003), restated and settled in
  ``shared/spec/fide.md`` (F1-F8). An unrated player is rated per tournament and per
  period; nothing is carried to the next period but the list itself and the fact that
  he has met rated opponents (8.21 applies to his first such tournament only).
- ``fide-2024``: the FIDE Rating Regulations in force since 1 March 2024 with the
  amendment of 1 October 2025 (handbook B.02, https://handbook.fide.com/chapter/B022024),
  restated with citations and every Decision in ``docs/fide-2024.md``. An unrated
  player's results against rated opponents are pooled over periods (7.1.4) and travel
  with the list as :class:`PendingGame` rows.

Each function cites its rule (``F4``) or the regulation's article (``8.3.3``). Pure: the
period's events, the starting list and the list date in; the new list, every player's
calculation and the next period's starting list (:meth:`FideSystem.next_list`) out.
Reading TRF files and writing lists is ``io/``'s job, not this module's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from decimal import Decimal

from ..numbers import HALF, round_half_away
from ..tables import dp_for_fraction, expected_score
from .base import Rules

POOL = "fide"


@dataclass(frozen=True, slots=True)
class FideRules(Rules):
    """The ruleset's parameters and behaviour switches; the defaults are the seed's
    (spec fide.md). ``RULESETS["fide-2024"]`` holds today's (docs/fide-2024.md)."""

    bonus_per_half_point: Decimal = Decimal("12.5")  # F4 Decision (the examples use 15)
    k: int = 30  # F3; 2024 8.3.3: 20
    k_top: int = 20  # F3: published rating reached 2400 and top_games; 2024: 10
    top_rating: int = 2400
    top_games: int = 30  # F3: games needed for k_top as well; 2024: none (0)
    floor: int = 1000  # F6; 2024 7.1.4, 7.2.1: 1400
    max_difference: int = 400  # F2, 8.54; 2024 8.3.1
    name: str = "seed"
    unlisted_games: int = 30  # spec fide.md: a player missing from the list counts 30
    # -- K (2024 8.3.3); None: the seed has no such rule --------------------------------
    k_new: int | None = None  # 40 until new_player_games
    new_player_games: int = 30
    k_junior: int | None = None  # 40 until the end of the year of the 18th birthday...
    junior_age: int = 18
    junior_below: int = 2300  # ...while the rating is below 2300
    k_games_cap: int | None = None  # K x n <= 700
    # -- games and rounding ---------------------------------------------------------------
    uncapped_from: int | None = None  # 2024 8.3.1 (1 Oct 2025): no 400 cap from 2650
    rate_games_vs_unrated: bool = True  # F7; 2024 8.3.1: only games vs rated players
    round_change: bool = False  # 8.57 rounds the new rating; 2024 8.3.4 the change
    unrate_below_floor: bool = False  # 2024 7.2.1: below the floor -> unrated
    # -- first ratings ------------------------------------------------------------------
    first_event_min_points: Decimal = Decimal(1)  # F4 8.21 (< 1); 2024 8.2.1 (zero)
    first_rating_pooled: bool = False  # 2024 7.1.4, 8.2: pooled over events and periods
    first_rating_min_games: int = 1  # 2024 7.1.4: 5 games against rated opponents
    pool_months: int | None = None  # 2024 7.1.4: results within 26 months are pooled
    hypothetical_opponents: int = 0  # 2024 8.2.2: two, each a draw...
    hypothetical_rating: int = 1800  # ...rated 1800
    first_rating_max: int | None = None  # 2024 8.2.3: 2200
    # -- the one-time adjustment of 1 March 2024 (adjust_2024) --------------------------
    adjustment_factor: Decimal = Decimal("0.4")
    adjustment_from: int = 1000
    adjustment_below: int = 2000

    @classmethod
    def named(cls, name: str) -> FideRules:
        """The ruleset called ``name`` (``seed`` or ``fide-2024``); ValueError names
        the known ones."""
        try:
            return RULESETS[name]
        except KeyError:
            known = ", ".join(RULESETS)
            raise ValueError(f"unknown FIDE ruleset {name!r} (known: {known})") from None


RULESETS: Mapping[str, FideRules] = {
    "seed": FideRules(),
    "fide-2024": FideRules(
        name="fide-2024",
        k=20,
        k_top=10,
        top_games=0,
        floor=1400,
        k_new=40,
        k_junior=40,
        k_games_cap=700,
        uncapped_from=2650,
        rate_games_vs_unrated=False,
        round_change=True,
        unrate_below_floor=True,
        first_event_min_points=Decimal("0.5"),
        first_rating_pooled=True,
        first_rating_min_games=5,
        pool_months=26,
        hypothetical_opponents=2,
        first_rating_max=2200,
    ),
}
"""The rulesets by name; ``seed`` is the default (``FideRules()``)."""


@dataclass(frozen=True, slots=True)
class PendingGame:
    """A result against a rated opponent that counts towards a first rating but has not
    produced one yet (2024 7.1.4): it travels with the list to the next period.

    ``period`` is the date of the list whose period the game was rated in (FIDE's
    ``rating_period``, e.g. 2024-04-01 for games rated on the April 2024 list); None
    when the period was rated without a date (such a game never expires). As text
    (:meth:`to_text`): ``2024-04-01:1950:0.5``; several joined by spaces
    (:func:`format_pending`, :func:`parse_pending`)."""

    period: date | None
    opponent_rating: int
    score: Decimal

    def to_text(self) -> str:
        when = "" if self.period is None else self.period.isoformat()
        return f"{when}:{self.opponent_rating}:{self.score.normalize():f}"

    @classmethod
    def from_text(cls, text: str) -> PendingGame:
        """The inverse of :meth:`to_text`; ValueError says what is wrong."""
        parts = text.strip().split(":")
        if len(parts) != 3:
            raise ValueError(f"{text!r} is not PERIOD:RATING:SCORE (e.g. 2024-04-01:1950:0.5)")
        when, rating, score = parts
        period = date.fromisoformat(when) if when else None
        value = Decimal(score)
        if value not in (Decimal(0), HALF, Decimal(1)):
            raise ValueError(f"{text!r}: the score must be 1, 0.5 or 0")
        return cls(period, int(rating), value)


def format_pending(games: Iterable[PendingGame]) -> str:
    """Pending results as one text field: :meth:`PendingGame.to_text` joined by spaces."""
    return " ".join(game.to_text() for game in games)


def parse_pending(text: str) -> tuple[PendingGame, ...]:
    """The inverse of :func:`format_pending` (empty text: no pending results)."""
    return tuple(PendingGame.from_text(part) for part in text.split())


@dataclass(frozen=True, slots=True)
class ListedPlayer:
    """A player of the starting list (or taken from a tournament file, spec fide.md)."""

    id: str
    name: str
    rating: int | None
    games: int  # rated games so far (cumulative)
    reached_2400: bool  # the published rating has ever reached top_rating
    source: str = ""
    birth_year: int | None = None  # 2024 8.3.3: K 40 for juniors; None: not a junior
    pending: tuple[PendingGame, ...] = ()  # 2024 7.1.4: results towards a first rating
    met_rated: bool = False  # has played a tournament against rated opponents (8.21)
    k: int | None = None  # the K published with the list (information: recomputed)


@dataclass(frozen=True, slots=True)
class EventGame:
    """One rated game (result 1, = or 0) of a player in an event."""

    round: int
    opponent: str
    score: Decimal


@dataclass(frozen=True, slots=True)
class EventEntry:
    """A player in an event: his key (FIDE id, else name), the rating the event's file
    gives him (None: unrated there), and his rated games."""

    player: str
    name: str
    event_rating: int | None
    games: tuple[EventGame, ...]
    birth_year: int | None = None  # as the event's file gives it (None: not given)


@dataclass(frozen=True, slots=True)
class Event:
    """One tournament of the period."""

    name: str
    source: str
    round_robin: bool
    entries: tuple[EventEntry, ...]

    def entry(self, player: str) -> EventEntry:
        for entry in self.entries:
            if entry.player == player:
                return entry
        raise KeyError(player)


# -- the report ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameLine:
    """One game in a rated player's calculation (F2)."""

    event: str
    round: int
    opponent: str
    score: Decimal
    opponent_rating: int | None
    d: int | None = None  # own - opponent, capped at +-400 (8.54)
    pd: Decimal | None = None
    delta: Decimal | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class FirstRatingCalc:
    """An unrated player's calculation in one event (F4, F8)."""

    event: str
    round_robin: bool
    games: int  # counted games (p's denominator)
    points: Decimal
    points_vs_rated: Decimal
    rc: int | None = None
    p: Decimal | None = None
    dp: Decimal | None = None  # dp or dp x n/(n+1)
    bonus: Decimal | None = None
    ru: int | None = None
    steps: tuple[str, ...] = ()
    discarded: str = ""


@dataclass(frozen=True, slots=True)
class PooledRating:
    """fide-2024 (7.1.4, 8.2): an unrated player's first rating from all his pooled
    results against rated opponents (earlier periods' pending ones and this period's),
    with two hypothetical draws against 1800s."""

    games: int  # real games against rated opponents in the pool
    points: Decimal
    earlier: int  # of which pending from earlier periods
    hypothetical: int  # hypothetical opponents added (8.2.2)
    ra: Decimal  # exact average: (sum of ratings + 2 x 1800) / (games + 2)
    p: Decimal  # (points + 1) / (games + 2), to two decimals
    dp: int
    ru: int  # Ra + dp rounded, at most first_rating_max (8.2.3)
    published: bool
    steps: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayerReport:
    """A player's whole calculation for the period, and what goes on the next list
    (:meth:`FideSystem.next_list`)."""

    player: str
    name: str
    old_rating: int | None
    new_rating: int | None
    old_games: int
    new_games: int
    k: int | None = None
    games: tuple[GameLine, ...] = ()
    sum_delta: Decimal | None = None
    expected: Decimal | None = None
    change: Decimal | None = None
    first_rating: tuple[FirstRatingCalc, ...] = ()
    combined: str = ""
    notes: tuple[str, ...] = ()
    # -- carried to the next list -------------------------------------------------------
    birth_year: int | None = None
    reached_2400: bool = False  # on the next list: before, or new_rating >= top_rating
    met_rated: bool = False  # on the next list: he has met rated opponents (8.21, 8.2.1)
    pending: tuple[PendingGame, ...] = ()  # on the next list (fide-2024, still unrated)
    next_k: int | None = None  # K published with the next list (rated players)
    pool: PooledRating | None = None  # fide-2024 first rating calculation

    @property
    def state(self) -> str:
        return "rated" if self.new_rating is not None else "unrated"


@dataclass(frozen=True, slots=True)
class PeriodResult:
    """Every player's report, in the order of the new list (by new rating, the
    players without a rating last); ``period`` is the date of the new list."""

    reports: tuple[PlayerReport, ...]
    rules: FideRules = field(default_factory=FideRules)
    period: date | None = None

    def report(self, player: str) -> PlayerReport:
        for report in self.reports:
            if report.player == player:
                return report
        raise KeyError(player)


def months_between(earlier: date, later: date) -> int:
    """Whole calendar months from ``earlier``'s month to ``later``'s (2024-03 -> 2026-04
    is 25)."""
    return (later.year - earlier.year) * 12 + later.month - earlier.month


def adjusted_rating(rating: int, rules: FideRules | None = None) -> int:
    """The one-time adjustment of 1 March 2024 (docs/fide-2024.md, A1): a rating R from
    1000 up to (not including) 2000 becomes R + 0.4 x (2000 - R), rounded to the
    nearest integer (0.4 x a whole number is never a half: no tie to break); any other
    rating is unchanged."""
    r = rules or RULESETS["fide-2024"]
    if not r.adjustment_from <= rating < r.adjustment_below:
        return rating
    raise_by = r.adjustment_factor * (r.adjustment_below - rating)
    return rating + int(round_half_away(raise_by, 0))


def adjust_2024(
    players: Iterable[ListedPlayer], rules: FideRules | None = None
) -> list[ListedPlayer]:
    """The list after the one-time adjustment of 1 March 2024 (:func:`adjusted_rating`),
    in the same order; unrated players, games, pending results and everything else are
    unchanged (no adjusted rating reaches 2400, so ``reached_2400`` cannot change)."""
    return [
        player
        if player.rating is None
        else replace(player, rating=adjusted_rating(player.rating, rules))
        for player in players
    ]


# -- the calculation -----------------------------------------------------------------


class FideSystem:
    """The ``fide`` rating system (spec fide.md): rates a period's events."""

    id = "fide"
    pools: tuple[str, ...] = (POOL,)

    def __init__(self, rules: FideRules | None = None) -> None:
        self.rules = rules or FideRules()

    def k_factor(self, player: ListedPlayer, year: int | None = None) -> int:
        """K before the K x n cap, from the list (the K published with it).

        Seed, F3 (8.56): K 20 once the published rating has reached 2400 with at least
        30 rated games, permanently; K 30 for everyone else.
        fide-2024, 8.3.3 (precedence: docs/fide-2024.md, K Decision): 10 once the
        published rating has reached 2400; 40 for a junior (``year``, the year of the
        period's games, at most birth year + 18) rated below 2300; 40 below 30 games;
        20 otherwise. Without a birth year or a year the player is not a junior."""
        r = self.rules
        if player.reached_2400 and player.games >= r.top_games:
            return r.k_top
        if (
            r.k_junior is not None
            and year is not None
            and player.birth_year is not None
            and year <= player.birth_year + r.junior_age
            and (player.rating is None or player.rating < r.junior_below)
        ):
            return r.k_junior
        if r.k_new is not None and player.games < r.new_player_games:
            return r.k_new
        return r.k

    def period_k(self, k: int, games: int) -> int:
        """fide-2024 8.3.3: when K x n (the period's rated games) exceeds 700, K is the
        largest whole number with K x n <= 700. The seed has no such cap."""
        cap = self.rules.k_games_cap
        if cap is None or k * games <= cap:
            return k
        return cap // games

    def rate_period(
        self,
        listed: Mapping[str, ListedPlayer],
        events: Sequence[Event],
        period: date | None = None,
    ) -> PeriodResult:
        """Rate a period: F4/F8 first ratings per event, F7 games against unrated
        players, F2 rated players' changes, F5 several events, F6 the floor (seed); or
        the fide-2024 rules (docs/fide-2024.md).

        ``events`` are in the order they were played (8.21 and 8.2.1 look at a player's
        first tournament against rated opponents). ``period`` is the date of the list
        being made (the ``rating_period`` of FIDE's calculations, e.g. 2024-04-01 for
        the games rated on the April 2024 list): fide-2024 needs it for the junior K
        and to expire pending results after 26 months; without it nobody is a junior
        and nothing expires. The seed ignores it."""
        players = dict(listed)
        for event in events:
            for entry in event.entries:
                if entry.player not in players:
                    players[entry.player] = self.from_event(entry, event)
        first_meeting = self._first_meetings(events, players)
        pooled = self.rules.first_rating_pooled
        first = {
            id(event): {} if pooled else self._first_ratings(event, players, first_meeting, index)
            for index, event in enumerate(events)
        }
        year = None if period is None else (period - timedelta(days=1)).year
        reports = []
        for player in players.values():
            if player.rating is not None:
                report = self._rated(player, events, players, first, year)
            elif pooled:
                report = self._unrated_pooled(player, events, players, first_meeting, period)
            else:
                report = self._unrated(player, events, first)
            reports.append(self._carry(report, player, first_meeting, period))
        reports.sort(key=lambda r: (r.new_rating is None, -(r.new_rating or 0), r.name, r.player))
        return PeriodResult(tuple(reports), self.rules, period)

    def next_list(self, result: PeriodResult) -> dict[str, ListedPlayer]:
        """The next period's starting list, in the order of the new list: everything
        :meth:`rate_period` needs to go on (id, name, rating, cumulative games,
        reached_2400, birth year, met_rated, pending results) and the K published for
        the next period (rated players only; before the K x n cap)."""
        return {
            report.player: ListedPlayer(
                report.player,
                report.name,
                report.new_rating,
                report.new_games,
                report.reached_2400,
                birth_year=report.birth_year,
                pending=report.pending,
                met_rated=report.met_rated,
                k=report.next_k,
            )
            for report in result.reports
        }

    def _carry(
        self,
        report: PlayerReport,
        player: ListedPlayer,
        first_meeting: Mapping[str, int],
        period: date | None,
    ) -> PlayerReport:
        """What the next list carries: reached 2400, met rated opponents, birth year and
        the K for the next period (the year of its games is the new list's year)."""
        reached = player.reached_2400 or (
            report.new_rating is not None and report.new_rating >= self.rules.top_rating
        )
        met = player.met_rated or player.rating is not None or player.id in first_meeting
        report = replace(report, birth_year=player.birth_year, reached_2400=reached, met_rated=met)
        if report.new_rating is None:
            return report
        following = ListedPlayer(
            player.id, player.name, report.new_rating, report.new_games, reached,
            birth_year=player.birth_year,
        )  # fmt: skip
        return replace(
            report, next_k=self.k_factor(following, None if period is None else period.year)
        )

    def _first_meetings(
        self, events: Sequence[Event], players: Mapping[str, ListedPlayer]
    ) -> dict[str, int]:
        """F4 (8.21), 2024 8.2.1: for each player unrated in an event who has not met
        rated opponents before (``met_rated``), the index of the first event in which he
        meets them."""
        found: dict[str, int] = {}
        for index, event in enumerate(events):
            rated = {e.player for e in event.entries if self.rated_in_event(e, players)}
            for entry in event.entries:
                key = entry.player
                if key in rated or key in found or players[key].met_rated:
                    continue
                if any(game.opponent in rated for game in entry.games):
                    found[key] = index
        return found

    def from_event(self, entry: EventEntry, event: Event) -> ListedPlayer:
        """A player missing from the starting list: the event's rating (none: unrated),
        at least 30 games, reached 2400 if that rating is 2400 or more (spec fide.md),
        the birth year the event's file gives."""
        rating = entry.event_rating
        return ListedPlayer(
            entry.player,
            entry.name,
            rating,
            self.rules.unlisted_games if rating is not None else 0,
            rating is not None and rating >= self.rules.top_rating,
            source=event.source,
            birth_year=entry.birth_year,
        )

    # -- F4, F8: first ratings in one event ---------------------------------------------

    def rated_in_event(self, entry: EventEntry, players: Mapping[str, ListedPlayer]) -> bool:
        """F7 (8.4): rated for his opponents when rated on the starting list and in the
        event's file; a player who got a rating only after the event counts as unrated
        for his opponents."""
        return players[entry.player].rating is not None and entry.event_rating is not None

    def _first_ratings(
        self,
        event: Event,
        players: Mapping[str, ListedPlayer],
        first_meeting: Mapping[str, int] | None = None,
        index: int = 0,
    ) -> dict[str, FirstRatingCalc]:
        """Every unrated player's Ru in this event (F4), iterated for round robins (F8).
        8.21 discards the event only for a player for whom it is the first tournament in
        which he meets rated opponents (``first_meeting``: player -> that event)."""
        rated = {e.player for e in event.entries if self.rated_in_event(e, players)}
        rating = {key: players[key].rating or 0 for key in rated}
        calcs: dict[str, FirstRatingCalc] = {}
        for entry in event.entries:
            if entry.player in rated:
                continue
            vs_rated = [g for g in entry.games if g.opponent in rated]
            points_vs_rated = sum((g.score for g in vs_rated), Decimal(0))
            counted = list(entry.games) if event.round_robin else vs_rated
            points = sum((g.score for g in counted), Decimal(0))
            calc = FirstRatingCalc(
                event.name, event.round_robin, len(counted), points, points_vs_rated
            )
            if not vs_rated:
                calcs[entry.player] = replace(calc, discarded="no games against rated opponents")
                continue
            first_tournament = first_meeting is None or first_meeting.get(entry.player) == index
            if first_tournament and points_vs_rated < self.rules.first_event_min_points:
                calcs[entry.player] = replace(
                    calc,
                    discarded=f"{points_vs_rated} against rated opponents, less than 1 "
                    "point in his first tournament against rated opponents: the "
                    "tournament is discarded (8.21)",
                )
                continue
            if event.round_robin:
                rc, how = self._round_robin_rc(event, rated, rating, len(entry.games))
                steps = (how,)
            else:
                total = sum((Decimal(rating[g.opponent]) for g in vs_rated), Decimal(0))
                rc = int(round_half_away(total / len(vs_rated), 0))
                steps = (f"Rc = average of {len(vs_rated)} rated opponents {total}/"
                         f"{len(vs_rated)} = {rc}",)  # fmt: skip
            calc = self._ru(replace(calc, rc=rc, steps=steps))
            if event.round_robin:
                calc = self._iterate(calc, entry, rated, rating, rc)
            calcs[entry.player] = calc
        for key, calc in calcs.items():
            if calc.ru is not None and calc.ru < self.rules.floor:
                calcs[key] = replace(
                    calc,
                    discarded=f"Ru {calc.ru} is below the rating floor {self.rules.floor}: "
                    "the result is ignored (F6)",
                )
        return calcs

    def _round_robin_rc(
        self, event: Event, rated: set[str], rating: Mapping[str, int], n: int
    ) -> tuple[int, str]:
        """F4 round robin: Ra = Rar - dpa x n/(n+1), rounded, where Rar is the average
        rating of the rated players, dpa their average dp (each from his own score
        fraction against all his opponents) and n the number of the unrated player's
        opponents."""
        rar = Decimal(sum(rating[key] for key in rated)) / len(rated)
        dps = []
        for entry in event.entries:
            if entry.player in rated and entry.games:
                p = sum((g.score for g in entry.games), Decimal(0)) / len(entry.games)
                dps.append(dp_for_fraction(p))
        dpa = Decimal(sum(dps)) / len(dps) if dps else Decimal(0)
        ra = rar - dpa * n / (n + 1)
        rc = int(round_half_away(ra, 0))
        how = (
            f"Rar = {round_half_away(rar)}, dpa = {round_half_away(dpa)}, "
            f"Ra = Rar − dpa × {n}/{n + 1} = {round_half_away(ra)} → Rc {rc}"
        )
        return rc, how

    def _ru(self, calc: FirstRatingCalc) -> FirstRatingCalc:
        """F4: Ru from Rc and p: 8.22 50 %, 8.23 + B per half point over 50 %,
        8.24 Swiss + dp(p), 8.25 round robin + dp(p) x n/(n+1); rounded to an integer."""
        assert calc.rc is not None
        half = Decimal(calc.games) / 2
        p = round_half_away(calc.points / calc.games)
        if calc.points == half:
            return replace(calc, p=p, ru=calc.rc, steps=(*calc.steps, f"p = {p}: Ru = Rc"))
        if calc.points > half:
            bonus = (calc.points - half) / HALF * self.rules.bonus_per_half_point
            ru = int(round_half_away(calc.rc + bonus, 0))
            step = f"p = {p}: Ru = Rc + {bonus.normalize():f} = {ru}"
            return replace(calc, p=p, bonus=bonus, ru=ru, steps=(*calc.steps, step))
        dp = Decimal(dp_for_fraction(p))
        if calc.round_robin:
            dp = dp * calc.games / (calc.games + 1)
            how = f"dp({p}) × {calc.games}/{calc.games + 1} = {round_half_away(dp)}"
        else:
            how = f"dp({p}) = {dp}"
        ru = int(round_half_away(calc.rc + dp, 0))
        return replace(calc, p=p, dp=dp, ru=ru, steps=(*calc.steps, f"{how}: Ru = {ru}"))

    def _iterate(
        self,
        calc: FirstRatingCalc,
        entry: EventEntry,
        rated: set[str],
        rating: Mapping[str, int],
        base_rc: int,
    ) -> FirstRatingCalc:
        """F8 (8.58): rated opponents more than 400 above Ru count as Ru + 400; Rc is
        lowered by their excess / n and Ru computed again, until that set is stable."""
        n = len(entry.games)
        opponents = [rating[g.opponent] for g in entry.games if g.opponent in rated]
        previous: tuple[int, ...] = ()
        while True:
            assert calc.ru is not None
            cap = calc.ru + self.rules.max_difference
            above = tuple(sorted(r for r in opponents if r > cap))
            if above == previous:
                return calc
            previous = above
            excess = sum(r - cap for r in above)
            rc = int(round_half_away(base_rc - Decimal(excess) / n, 0))
            step = (
                f"{len(above)} rated opponent(s) over Ru + 400 = {cap} count as {cap}: "
                f"Rc = {base_rc} − {excess}/{n} = {rc}"
            )
            calc = self._ru(replace(calc, rc=rc, steps=(*calc.steps, step)))

    # -- F2, F7: rated players ----------------------------------------------------------

    def _rated(
        self,
        player: ListedPlayer,
        events: Sequence[Event],
        players: Mapping[str, ListedPlayer],
        first: Mapping[int, Mapping[str, FirstRatingCalc]],
        year: int | None = None,
    ) -> PlayerReport:
        """F2 (8.5): ΣΔR over the period's games against rated opponents and unrated ones
        who got an Ru in that event (F7), D capped at 400; change K × ΣΔR; the new
        rating rounded (8.57).

        fide-2024 (8.3): only games against rated players count; D capped at 400 except
        for a player rated 2650 or more; K of 8.3.3 with the K x n <= 700 cap; the
        change rounded, half away from zero (8.3.4); a new rating below the floor is
        unrated on the next list (7.2.1)."""
        assert player.rating is not None
        own = Decimal(player.rating)
        pooled = self.rules.first_rating_pooled
        lines: list[GameLine] = []
        for event in events:
            try:
                entry = event.entry(player.id)
            except KeyError:
                continue
            for game in entry.games:
                opponent = event.entry(game.opponent)
                calc = first[id(event)].get(game.opponent)
                if self.rated_in_event(opponent, players):
                    opponent_rating = players[game.opponent].rating
                elif (
                    self.rules.rate_games_vs_unrated
                    and calc is not None
                    and calc.ru is not None
                    and not calc.discarded
                ):
                    opponent_rating = calc.ru
                else:
                    if not self.rules.rate_games_vs_unrated:
                        why = "only games against rated players count (8.3.1)"
                    else:
                        reason = calc.discarded if calc is not None else "unrated"
                        why = f"opponent unrated ({reason}) (F7)"
                    lines.append(
                        GameLine(event.name, game.round, game.opponent, game.score, None,
                                 note=f"not rated: {why}")
                    )  # fmt: skip
                    continue
                assert opponent_rating is not None
                cap = self.rules.max_difference
                real = player.rating - opponent_rating
                uncapped = self.rules.uncapped_from
                if uncapped is not None and player.rating >= uncapped:
                    d, note = real, ""
                    if abs(real) > cap:
                        note = f"rated {uncapped} or more: the real difference counts (8.3.1)"
                else:
                    d = max(-cap, min(cap, real))
                    article = "8.3.1" if pooled else "8.54"
                    note = "" if abs(real) <= cap else f"D capped at {cap} ({article})"
                pd = expected_score(Decimal(d), Decimal(0))
                lines.append(
                    GameLine(event.name, game.round, game.opponent, game.score, opponent_rating,
                             d, pd, game.score - pd, note)
                )  # fmt: skip
        counted = [line for line in lines if line.delta is not None]
        if not counted:
            return PlayerReport(
                player.id, player.name, player.rating, player.rating, player.games,
                player.games, games=tuple(lines),
            )  # fmt: skip
        notes: list[str] = []
        listed_k = self.k_factor(player, year)
        k = self.period_k(listed_k, len(counted))
        if k != listed_k:
            notes.append(
                f"K {listed_k} × {len(counted)} games exceeds {self.rules.k_games_cap}: "
                f"K {k} (8.3.3)"
            )
        sum_delta = sum((line.delta for line in counted if line.delta is not None), Decimal(0))
        expected = sum((line.pd for line in counted if line.pd is not None), Decimal(0))
        change = k * sum_delta
        if self.rules.round_change:
            new: int | None = player.rating + int(round_half_away(change, 0))
        else:
            new = int(round_half_away(own + change, 0))
        assert new is not None
        if self.rules.unrate_below_floor and new < self.rules.floor:
            notes.append(
                f"new rating {new} is below the rating floor {self.rules.floor}: unrated on "
                "the next list (7.2.1)"
            )
            new = None
        return PlayerReport(
            player.id, player.name, player.rating, new, player.games,
            player.games + len(counted), k=k, games=tuple(lines), sum_delta=sum_delta,
            expected=expected, change=change, notes=tuple(notes),
        )  # fmt: skip

    # -- F4, F5, F6: unrated players ----------------------------------------------------

    def _unrated(
        self,
        player: ListedPlayer,
        events: Sequence[Event],
        first: Mapping[int, Mapping[str, FirstRatingCalc]],
    ) -> PlayerReport:
        """F4 one event: Ru; F5 several: total score over total games, Rc the game-
        weighted average of the events' Rc; F6: only a rating at the floor or above."""
        calcs = tuple(
            first[id(event)][player.id] for event in events if player.id in first[id(event)]
        )
        valid = [c for c in calcs if not c.discarded and c.ru is not None]
        games = sum(c.games for c in valid)
        base = PlayerReport(player.id, player.name, None, None, player.games, player.games,
                            first_rating=calcs)  # fmt: skip
        if not valid:
            return base
        if len(valid) == 1:
            rn = valid[0].ru
            combined = ""
        else:
            rn, combined = self._combined(valid)
        assert rn is not None
        if rn < self.rules.floor:
            note = f"Rn {rn} is below the rating floor {self.rules.floor}: not published (F6)"
            return replace(base, combined=combined, notes=(note,))
        return replace(base, new_rating=rn, new_games=player.games + games, combined=combined)

    def _combined(self, calcs: Sequence[FirstRatingCalc]) -> tuple[int, str]:
        """F5 (8.3): the events as one: p over all counted games, Rc weighted by games."""
        games = sum(c.games for c in calcs)
        points = sum((c.points for c in calcs), Decimal(0))
        weighted = sum((Decimal(c.rc or 0) * c.games for c in calcs), Decimal(0))
        rc = int(round_half_away(weighted / games, 0))
        half = Decimal(games) / 2
        p = round_half_away(points / games)
        how = f"{len(calcs)} events: {points}/{games}, Rc = {weighted}/{games} → {rc}"
        if points == half:
            return rc, f"{how}; p = {p}: Rn = Rc = {rc}"
        if points > half:
            bonus = (points - half) / HALF * self.rules.bonus_per_half_point
            rn = int(round_half_away(rc + bonus, 0))
            return rn, f"{how}; p = {p}: Rn = Rc + {bonus.normalize():f} = {rn}"
        dp = dp_for_fraction(p)
        rn = rc + dp
        return rn, f"{how}; p = {p}: Rn = Rc + dp ({dp}) = {rn}"

    # -- fide-2024 7.1.4, 8.2: first ratings from pooled results ------------------------

    def _unrated_pooled(
        self,
        player: ListedPlayer,
        events: Sequence[Event],
        players: Mapping[str, ListedPlayer],
        first_meeting: Mapping[str, int],
        period: date | None,
    ) -> PlayerReport:
        """fide-2024: the player's results against rated opponents are pooled with his
        pending ones from the last 26 months (7.1.4), except a zero score in his first
        event (8.2.1). Ra = (their ratings + 2 × 1800) / (n + 2), p = (points + 1) /
        (n + 2), Ru = Ra + dp(p) rounded, at most 2200 (8.2.2, 8.2.3). Published with
        at least 5 games and Ru at least 1400 (7.1.4); otherwise the pool is pending."""
        r = self.rules
        notes: list[str] = []
        pool = [game for game in player.pending if not self._expired(game, period)]
        if len(pool) < len(player.pending):
            notes.append(
                f"{len(player.pending) - len(pool)} pending result(s) older than "
                f"{r.pool_months} months dropped (7.1.4)"
            )
        earlier = len(pool)
        calcs: list[FirstRatingCalc] = []
        for index, event in enumerate(events):
            try:
                entry = event.entry(player.id)
            except KeyError:
                continue
            rated = {e.player for e in event.entries if self.rated_in_event(e, players)}
            vs_rated = [game for game in entry.games if game.opponent in rated]
            points = sum((game.score for game in vs_rated), Decimal(0))
            calc = FirstRatingCalc(event.name, event.round_robin, len(vs_rated), points, points)
            if not vs_rated:
                calc = replace(calc, discarded="no games against rated opponents")
            elif first_meeting.get(player.id) == index and points < r.first_event_min_points:
                calc = replace(
                    calc,
                    discarded=f"{points} against rated opponents in his first event against "
                    "rated opponents: disregarded (8.2.1)",
                )
            else:
                for game in vs_rated:
                    rating = players[game.opponent].rating
                    assert rating is not None
                    pool.append(PendingGame(period, rating, game.score))
            calcs.append(calc)
        base = PlayerReport(player.id, player.name, None, None, player.games, player.games,
                            first_rating=tuple(calcs), notes=tuple(notes))  # fmt: skip
        if not pool:
            return base
        calc_pool = self._pooled(pool, earlier)
        base = replace(base, pool=calc_pool, combined="; ".join(calc_pool.steps))
        why = ""
        if calc_pool.games < r.first_rating_min_games:
            why = (
                f"{calc_pool.games} game(s) against rated opponents, fewer than "
                f"{r.first_rating_min_games}: not published yet, the results are pending (7.1.4)"
            )
        elif calc_pool.ru < r.floor:
            why = (
                f"Ru {calc_pool.ru} is below the rating floor {r.floor}: not published, the "
                "results are pending (7.1.4)"
            )
        if why:
            return replace(
                base, pool=replace(calc_pool, published=False), pending=tuple(pool),
                notes=(*notes, why),
            )  # fmt: skip
        return replace(base, new_rating=calc_pool.ru, new_games=player.games + calc_pool.games)

    def _pooled(self, pool: Sequence[PendingGame], earlier: int) -> PooledRating:
        """8.2.2, 8.2.3: Ra with the hypothetical opponents, p, dp, Ru (rounded half away
        from zero, then at most first_rating_max)."""
        r = self.rules
        h = r.hypothetical_opponents
        n = len(pool)
        points = sum((game.score for game in pool), Decimal(0))
        total = sum(game.opponent_rating for game in pool) + h * r.hypothetical_rating
        ra = Decimal(total) / (n + h)
        fraction = (points + h * HALF) / (n + h)
        p = round_half_away(fraction)
        dp = dp_for_fraction(fraction)
        ru = int(round_half_away(ra + dp, 0))
        steps = [
            f"{n} game(s) against rated opponents ({earlier} pending from earlier periods), "
            f"{points.normalize():f} points",
            f"Ra = ({total - h * r.hypothetical_rating} + {h} × {r.hypothetical_rating}) / "
            f"{n + h} = {round_half_away(ra)}",
            f"p = ({points.normalize():f} + {(h * HALF).normalize():f}) / {n + h} = {p}: dp {dp}",
            f"Ru = Ra + dp = {round_half_away(ra + dp)} → {ru}",
        ]
        if r.first_rating_max is not None and ru > r.first_rating_max:
            steps.append(f"at most {r.first_rating_max} (8.2.3)")
            ru = r.first_rating_max
        return PooledRating(n, points, earlier, h, ra, p, dp, ru, True, tuple(steps))

    def _expired(self, game: PendingGame, period: date | None) -> bool:
        """7.1.4: results count within consecutive rating periods of at most 26 months:
        a pending result expires once the list being made is 26 or more months after
        the list it was rated in (Decision: the 26 monthly periods ending with this one)."""
        months = self.rules.pool_months
        if months is None or period is None or game.period is None:
            return False
        return months_between(game.period, period) >= months
