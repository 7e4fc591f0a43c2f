"""What only the fide-2024 ruleset has: first ratings from results pooled over periods
(7.1.4, 8.2) and the one-time adjustment of 1 March 2024."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace
from datetime import date
from decimal import Decimal

from ...numbers import HALF, round_half_away
from ...tables import dp_for_fraction
from .calculation import FideCalculation
from .model import (
    Event,
    FirstRatingCalc,
    GameLine,
    ListedPlayer,
    PendingGame,
    PlayerReport,
    PooledRating,
)
from .rules import RULESETS, FideRules


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


class PooledFirstRatings(FideCalculation):
    """fide-2024's first ratings, from results pooled over periods (7.1.4, 8.2)."""

    # -- fide-2024 7.1.4, 8.2: first ratings from pooled results ------------------------

    def _unrated_pooled(
        self,
        player: ListedPlayer,
        events: Sequence[tuple[int, Event, AbstractSet[str]]],
        players: Mapping[str, ListedPlayer],
        first_meeting: Mapping[str, int],
        period: date | None,
    ) -> PlayerReport:
        """fide-2024: the player's results against rated opponents are pooled with his
        pending ones from the last 26 months (7.1.4), except a zero score in his first
        event (8.2.1). Ra = (their ratings + 2 × 1800) / (n + 2), p = (points + 1) /
        (n + 2), Ru = Ra + dp(p) rounded, at most 2200 (8.2.2, 8.2.3). Published with
        at least 5 games and Ru at least 1400 (7.1.4); otherwise the pool is pending.

        ``events``: the events he plays in, in the period's order, each with its index
        among the period's events and the ids rated in it (F7, 8.4)."""
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
        for index, event, rated in events:
            entry = event.entry(player.id)
            vs_rated = [game for game in entry.games if game.opponent in rated]
            points = sum((game.score for game in vs_rated), Decimal(0))
            lines = tuple(
                GameLine(event.name, game.round, game.opponent, game.score,
                         players[game.opponent].rating if game.opponent in rated else None,
                         note="" if game.opponent in rated
                         else "unrated opponent: does not count (8.2)")
                for game in entry.games
            )  # fmt: skip
            calc = FirstRatingCalc(
                event.name, event.round_robin, len(vs_rated), points, points, lines=lines
            )
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
        calc_pool = replace(self._pooled(pool, earlier), earlier_games=tuple(pool[:earlier]))
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
        return PooledRating(n, points, earlier, h, ra, p, dp, ru, True, tuple(steps),
                            hypothetical_rating=r.hypothetical_rating if h else None)  # fmt: skip

    def _expired(self, game: PendingGame, period: date | None) -> bool:
        """7.1.4: results count within consecutive rating periods of at most 26 months:
        a pending result expires once the list being made is 26 or more months after
        the list it was rated in (Decision: the 26 monthly periods ending with this one)."""
        months = self.rules.pool_months
        if months is None or period is None or game.period is None:
            return False
        return months_between(game.period, period) >= months
