"""The ``fide`` rating system: rates a period's events with its parts' rules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date, timedelta

from .edition_2024 import PooledFirstRatings
from .first_ratings import FirstRatings
from .model import Event, EventEntry, ListedPlayer, PeriodResult, PlayerReport
from .rated import RatedChanges
from .rules import POOL, FideRules


class FideSystem(RatedChanges, FirstRatings, PooledFirstRatings):
    """The ``fide`` rating system (rules F1-F8): rates a period's events."""

    id = "fide"
    pools: tuple[str, ...] = (POOL,)

    def __init__(self, rules: FideRules | None = None) -> None:
        self.rules = rules or FideRules()

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
        at least 30 games, reached 2400 if that rating is 2400 or more (F3),
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
