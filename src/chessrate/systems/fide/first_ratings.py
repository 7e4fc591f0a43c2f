"""F4, F8: first ratings in one event; F4, F5, F6: an unrated player's first rating
from the period's events (the seed's first ratings)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace
from decimal import Decimal

from ...numbers import HALF, round_half_away
from ...tables import dp_for_fraction
from .calculation import FideCalculation
from .model import Event, EventEntry, FirstRatingCalc, GameLine, ListedPlayer, PlayerReport


class FirstRatings(FideCalculation):
    """The seed's first ratings: per event (F4, F8), then over the period's events
    (F5) at the floor or above (F6)."""

    # -- F4, F8: first ratings in one event ---------------------------------------------

    def _first_ratings(
        self,
        event: Event,
        rated: AbstractSet[str],
        players: Mapping[str, ListedPlayer],
        first_meeting: Mapping[str, int] | None = None,
        index: int = 0,
    ) -> dict[str, FirstRatingCalc]:
        """Every unrated player's Ru in this event (F4), iterated for round robins (F8).
        8.21 discards the event only for a player for whom it is the first tournament in
        which he meets rated opponents (``first_meeting``: player -> that event).
        ``rated``: the ids rated in this event (F7, 8.4)."""
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
                event.name, event.round_robin, len(counted), points, points_vs_rated,
                lines=self._lines(event, entry, rating),
            )  # fmt: skip
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

    def _lines(
        self, event: Event, entry: EventEntry, rating: Mapping[str, int]
    ) -> tuple[GameLine, ...]:
        """The unrated player's games in the event for his report: against a rated
        opponent at that opponent's rating; against an unrated one without a rating,
        with why (F4: a round robin counts the game in p, a Swiss not at all)."""
        if event.round_robin:
            why = "unrated opponent: counts in p, not in Rar (F4)"
        else:
            why = "unrated opponent: does not count (F4)"
        return tuple(
            GameLine(event.name, game.round, game.opponent, game.score,
                     rating.get(game.opponent), note="" if game.opponent in rating else why)
            for game in entry.games
        )  # fmt: skip

    def _round_robin_rc(
        self, event: Event, rated: AbstractSet[str], rating: Mapping[str, int], n: int
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
        rated: AbstractSet[str],
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
