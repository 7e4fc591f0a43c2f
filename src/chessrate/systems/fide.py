"""``fide``: FIDE rating regulations B.02 section 8, rated per rating period (seed 003).

The rules are restated and settled in ``shared/spec/fide.md`` (F1-F8); each
function cites its rule and the regulation's article. Pure: the period's
events and the starting list in, the new list and every player's calculation
out. Reading TRF files is ``io/trf.py``'s job, not this module's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal

from ..numbers import HALF, round_half_away
from ..tables import dp_for_fraction, expected_score

POOL = "fide"


@dataclass(frozen=True, slots=True)
class FideRules:
    """The ruleset's parameters; the defaults are the spec's."""

    bonus_per_half_point: Decimal = Decimal("12.5")  # F4 Decision (the examples use 15)
    k: int = 30  # F3
    k_top: int = 20  # F3: published rating reached 2400 and 30 games
    top_rating: int = 2400
    top_games: int = 30
    floor: int = 1000  # F6
    max_difference: int = 400  # F2, 8.54


@dataclass(frozen=True, slots=True)
class ListedPlayer:
    """A player of the starting list (or taken from a tournament file, spec fide.md)."""

    id: str
    name: str
    rating: int | None
    games: int
    reached_2400: bool
    source: str = ""


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
class PlayerReport:
    """A player's whole calculation for the period."""

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

    @property
    def state(self) -> str:
        return "rated" if self.new_rating is not None else "unrated"


@dataclass(frozen=True, slots=True)
class PeriodResult:
    """Every player's report, in the order of the new list (by new rating, the
    players without a rating last)."""

    reports: tuple[PlayerReport, ...]
    rules: FideRules = field(default_factory=FideRules)

    def report(self, player: str) -> PlayerReport:
        for report in self.reports:
            if report.player == player:
                return report
        raise KeyError(player)


# -- the calculation -----------------------------------------------------------------


class FideSystem:
    """The ``fide`` rating system (spec fide.md): rates a period's events."""

    id = "fide"
    pools: tuple[str, ...] = (POOL,)

    def __init__(self, rules: FideRules | None = None) -> None:
        self.rules = rules or FideRules()

    def k_factor(self, player: ListedPlayer) -> int:
        """F3 (8.56): K 20 once the published rating has reached 2400 with at least 30
        rated games, permanently; K 30 for everyone else."""
        if player.reached_2400 and player.games >= self.rules.top_games:
            return self.rules.k_top
        return self.rules.k

    def rate_period(
        self, listed: Mapping[str, ListedPlayer], events: Sequence[Event]
    ) -> PeriodResult:
        """Rate a period: F4/F8 first ratings per event, F7 games against unrated
        players, F2 rated players' changes, F5 several events, F6 the floor."""
        players = dict(listed)
        for event in events:
            for entry in event.entries:
                if entry.player not in players:
                    players[entry.player] = self.from_event(entry, event)
        first = {id(event): self._first_ratings(event, players) for event in events}
        reports = []
        for player in players.values():
            if player.rating is not None:
                reports.append(self._rated(player, events, players, first))
            else:
                reports.append(self._unrated(player, events, first))
        reports.sort(key=lambda r: (r.new_rating is None, -(r.new_rating or 0), r.name, r.player))
        return PeriodResult(tuple(reports), self.rules)

    def from_event(self, entry: EventEntry, event: Event) -> ListedPlayer:
        """A player missing from the starting list: the event's rating (none: unrated),
        at least 30 games, reached 2400 if that rating is 2400 or more (spec fide.md)."""
        rating = entry.event_rating
        return ListedPlayer(
            entry.player,
            entry.name,
            rating,
            self.rules.top_games if rating is not None else 0,
            rating is not None and rating >= self.rules.top_rating,
            source=event.source,
        )

    # -- F4, F8: first ratings in one event ---------------------------------------------

    def rated_in_event(self, entry: EventEntry, players: Mapping[str, ListedPlayer]) -> bool:
        """F7 (8.4): rated for his opponents when rated on the starting list and in the
        event's file; a player who got a rating only after the event counts as unrated
        for his opponents."""
        return players[entry.player].rating is not None and entry.event_rating is not None

    def _first_ratings(
        self, event: Event, players: Mapping[str, ListedPlayer]
    ) -> dict[str, FirstRatingCalc]:
        """Every unrated player's Ru in this event (F4), iterated for round robins (F8)."""
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
            if points_vs_rated < 1:
                calcs[entry.player] = replace(
                    calc,
                    discarded=f"{points_vs_rated} against rated opponents, less than 1 "
                    "point: the tournament is discarded (8.21)",
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
    ) -> PlayerReport:
        """F2 (8.5): ΣΔR over the period's games against rated opponents and unrated ones
        who got an Ru in that event (F7), D capped at 400; change K × ΣΔR; rounded."""
        assert player.rating is not None
        own = Decimal(player.rating)
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
                elif calc is not None and calc.ru is not None and not calc.discarded:
                    opponent_rating = calc.ru
                else:
                    why = calc.discarded if calc is not None else "unrated"
                    lines.append(
                        GameLine(event.name, game.round, game.opponent, game.score, None,
                                 note=f"not rated: opponent unrated ({why}) (F7)")
                    )  # fmt: skip
                    continue
                assert opponent_rating is not None
                cap = self.rules.max_difference
                d = max(-cap, min(cap, player.rating - opponent_rating))
                pd = expected_score(Decimal(d), Decimal(0))
                note = (
                    "" if abs(player.rating - opponent_rating) <= cap else "D capped at 400 (8.54)"
                )
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
        k = self.k_factor(player)
        sum_delta = sum((line.delta for line in counted if line.delta is not None), Decimal(0))
        expected = sum((line.pd for line in counted if line.pd is not None), Decimal(0))
        change = k * sum_delta
        new = int(round_half_away(own + change, 0))
        return PlayerReport(
            player.id, player.name, player.rating, new, player.games,
            player.games + len(counted), k=k, games=tuple(lines), sum_delta=sum_delta,
            expected=expected, change=change,
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
