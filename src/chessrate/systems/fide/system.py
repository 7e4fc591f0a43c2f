"""The ``fide`` rating system: rates a period's events with its parts' rules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace
from datetime import date, timedelta

from .edition_2024 import PooledFirstRatings, months_between
from .exclusions import Exclusions
from .first_ratings import FirstRatings
from .model import Event, EventEntry, ListedPlayer, PeriodResult, PlayerReport
from .rated import RatedChanges
from .rules import LIST_POOLS, FideRules


class FideSystem(RatedChanges, FirstRatings, PooledFirstRatings, Exclusions):
    """The ``fide`` rating system (rules F1-F8): rates a period's events."""

    id = "fide"
    pools: tuple[str, ...] = tuple(LIST_POOLS.values())

    def __init__(self, rules: FideRules | None = None) -> None:
        self.rules = rules or FideRules()

    def rate_period(
        self,
        listed: Mapping[str, ListedPlayer],
        events: Sequence[Event],
        period: date | None = None,
        standard_ratings: Mapping[str, int] | None = None,
    ) -> PeriodResult:
        """Rate a period: F4/F8 first ratings per event, F7 games against unrated
        players, F2 rated players' changes, F5 several events, F6 the floor (seed); or
        the fide-2024 rules (docs/fide-2024.md).

        ``events`` are in the order they were played (8.21 and 8.2.1 look at a player's
        first tournament against rated opponents). ``period`` is the date of the list
        being made (the ``rating_period`` of FIDE's calculations, e.g. 2024-04-01 for
        the games rated on the April 2024 list): fide-2024 needs it for the junior K
        and to expire pending results after 26 months; without it nobody is a junior
        and nothing expires. The seed ignores it.

        ``standard_ratings`` (the rapid and blitz lists, R&B 7.2.1): players' standard
        ratings by id; a player unrated on this list who has one is rated with it (as
        :attr:`ListedPlayer.standard_rating` does)."""
        players = dict(listed)
        for event in events:
            for entry in event.entries:
                if entry.player not in players:
                    players[entry.player] = self.from_event(entry, event)
                else:
                    players[entry.player] = _profile(players[entry.player], entry)
        for key, rating in (standard_ratings or {}).items():
            if key in players and players[key].rating is None:
                players[key] = replace(players[key], standard_rating=rating)
        seeded: dict[str, int] = {}
        if self.rules.standard_for_unrated:
            players, events, seeded = self._standard_ratings(players, events)
        events, excluded = self.exclusions(events, players)
        played = {entry.player for event in events for entry in event.entries if entry.games}
        # Once per period, not once per player: who is rated in each event (F7, 8.4) and
        # which events each player is in (a player's calculation reads only his own).
        rated_in = [
            frozenset(e.player for e in event.entries if self.rated_in_event(e, players))
            for event in events
        ]
        played_in: dict[str, list[int]] = {}
        for index, event in enumerate(events):
            for key in event.by_player:
                played_in.setdefault(key, []).append(index)
        first_meeting = self._first_meetings(events, players, rated_in)
        pooled = self.rules.first_rating_pooled
        first = {
            id(event): {}
            if pooled
            else self._first_ratings(event, rated_in[index], players, first_meeting, index)
            for index, event in enumerate(events)
        }
        year = None if period is None else (period - timedelta(days=1)).year
        reports = []
        for player in players.values():
            indices = played_in.get(player.id, [])
            mine = [events[index] for index in indices]
            if player.rating is not None:
                report = self._rated(player, mine, players, first, year)
            elif pooled:
                report = self._unrated_pooled(
                    player, [(index, events[index], rated_in[index]) for index in indices],
                    players, first_meeting, period,
                )  # fmt: skip
            else:
                report = self._unrated(player, mine, first)
            report = self._carry(report, player, first_meeting, period)
            reports.append(self._profile_carry(report, player, period, played, seeded,
                                               excluded.get(player.id, ())))  # fmt: skip
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
                sex=report.sex,
                federation=report.federation,
                title=report.title,
                last_played=report.last_played,
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

    def _profile_carry(
        self,
        report: PlayerReport,
        player: ListedPlayer,
        period: date | None,
        played: set[str],
        seeded: Mapping[str, int],
        excluded: Sequence[str],
    ) -> PlayerReport:
        """What the next list shows beside the rating: sex, federation, title, the date
        of his last rated games and the Flag (7.2.2: ``i`` once a year has passed with
        no rated game, ``w`` for a woman, ``wi``); the games not rated and why, and the
        standard rating he was rated with (R&B 7.2.1), as notes."""
        r = self.rules
        last = player.last_played
        if period is not None and (player.id in played or last is None):
            last = period  # Decision: a list without the date starts the year here
        inactive = (
            r.inactive_months is not None
            and period is not None
            and last is not None
            and report.new_rating is not None
            and months_between(last, period) >= r.inactive_months
        )
        flag = ("w" if player.sex == "w" else "") + ("i" if inactive else "")
        notes = list(report.notes)
        if player.id in seeded:
            notes.insert(
                0,
                f"unrated on the {r.list_kind} list: rated with his standard rating "
                f"{seeded[player.id]} (7.2.1 of the rapid and blitz regulations)",
            )
        if inactive:
            assert last is not None
            notes.append(
                f"no rated game since the list of {last.isoformat()}: inactive, flag i (7.2.2)"
            )
        notes.extend(excluded)
        return replace(
            report, sex=player.sex, federation=player.federation, title=player.title,
            last_played=last, flag=flag, notes=tuple(notes),
            standard_rating=seeded.get(player.id),
        )  # fmt: skip

    def _standard_ratings(
        self, players: Mapping[str, ListedPlayer], events: Sequence[Event]
    ) -> tuple[dict[str, ListedPlayer], list[Event], dict[str, int]]:
        """Rapid and blitz 7.2.1: "If an unrated player has a standard rating at the
        beginning of a rapid or blitz tournament, their standard rating is used for
        rating calculation. Such a player is considered to be rated": he is rated with
        it (his games on this list so far: K 40 until 30), and counts as rated for his
        opponents in the period's events (his entries carry it)."""
        seeded = {
            key: player.standard_rating
            for key, player in players.items()
            if player.rating is None and player.standard_rating is not None
        }
        if not seeded:
            return dict(players), list(events), {}
        top = self.rules.top_rating
        updated = {
            key: replace(player, rating=seeded[key],
                         reached_2400=player.reached_2400 or seeded[key] >= top)
            if key in seeded else player
            for key, player in players.items()
        }  # fmt: skip
        rebuilt = [
            replace(event, entries=tuple(
                replace(entry, event_rating=seeded[entry.player])
                if entry.player in seeded and entry.event_rating is None else entry
                for entry in event.entries
            ))
            for event in events
        ]  # fmt: skip
        return updated, rebuilt, seeded

    def _first_meetings(
        self,
        events: Sequence[Event],
        players: Mapping[str, ListedPlayer],
        rated_in: Sequence[AbstractSet[str]],
    ) -> dict[str, int]:
        """F4 (8.21), 2024 8.2.1: for each player unrated in an event who has not met
        rated opponents before (``met_rated``), the index of the first event in which he
        meets them."""
        found: dict[str, int] = {}
        for index, (event, rated) in enumerate(zip(events, rated_in, strict=True)):
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
            sex=entry.sex,
            federation=entry.federation,
            title=entry.title,
        )


def _profile(player: ListedPlayer, entry: EventEntry) -> ListedPlayer:
    """A listed player's sex, federation and title from the event's file where the list
    has none (what the list shows beside the rating; nothing the calculation reads)."""
    if player.sex and player.federation and player.title:
        return player
    return replace(
        player,
        sex=player.sex or entry.sex,
        federation=player.federation or entry.federation,
        title=player.title or entry.title,
    )
