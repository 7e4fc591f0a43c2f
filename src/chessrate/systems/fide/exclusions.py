"""The games of a period that are played but not rated: below the rate of play their
players' ratings need (1.1), matches against an unrated player (6.1), games after a
match is decided (6.2), and, on the rapid and blitz lists, games between ratings 600
points apart with a player rated above 2600 (7.3.1 of the rapid and blitz regulations,
from 1 December 2024)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from decimal import Decimal

from .calculation import FideCalculation
from .model import Event, EventEntry, EventGame, ListedPlayer


class Exclusions(FideCalculation):
    """Takes the games that are not rated out of the period's events, with the reason
    for each player's report."""

    def exclusions(
        self, events: Sequence[Event], players: Mapping[str, ListedPlayer]
    ) -> tuple[list[Event], dict[str, list[str]]]:
        """The events without the games that are not rated, and for each player the
        notes saying which games were left out and why (grouped by event, opponent and
        reason: ``rounds 1, 2 against Ana Lee not rated: ...``)."""
        notes: dict[str, list[str]] = defaultdict(list)
        kept: list[Event] = []
        for event in events:
            reasons = self._match_reasons(event, players)
            names = {entry.player: entry.name for entry in event.entries}
            entries = []
            for entry in event.entries:
                games: list[EventGame] = []
                left: dict[tuple[str, str], list[int]] = defaultdict(list)
                for game in entry.games:
                    why = reasons.get((entry.player, game.round)) or self._game_reason(
                        event, entry.player, game.opponent, players
                    )
                    if why:
                        left[(game.opponent, why)].append(game.round)
                    else:
                        games.append(game)
                for (opponent, why), rounds in left.items():
                    word = "round" if len(rounds) == 1 else "rounds"
                    listed = ", ".join(str(number) for number in rounds)
                    notes[entry.player].append(
                        f"{event.name}: {word} {listed} against {names.get(opponent, opponent)} "
                        f"not rated: {why}"
                    )
                entries.append(entry if len(games) == len(entry.games) else
                               replace(entry, games=tuple(games)))  # fmt: skip
            kept.append(replace(event, entries=tuple(entries)))
        return kept, dict(notes)

    def _game_reason(
        self, event: Event, player: str, opponent: str, players: Mapping[str, ListedPlayer]
    ) -> str:
        """Why a game is not rated for both its players, or ``""``."""
        r = self.rules
        own = players[player].rating
        other = players[opponent].rating if opponent in players else None
        if r.rate_of_play_bands and event.minutes is not None:
            top = max((rating for rating in (own, other) if rating is not None), default=0)
            need = r.standard_minutes
            if top >= r.top_rating:
                need = r.standard_minutes_2400
            elif top >= 1800:
                need = r.standard_minutes_1800
            if event.minutes < need:
                who = f"a player rated {top}" if need != r.standard_minutes else "any game"
                return (
                    f"the rate of play gives {_minutes(event.minutes)} minutes for 60 moves; "
                    f"{who} needs at least {need} (1.1)"
                )
        if (
            r.excluded_difference is not None
            and own is not None
            and other is not None
            and abs(own - other) >= r.excluded_difference
            and max(own, other) > r.excluded_above
        ):
            return (
                f"the ratings {own} and {other} differ by {r.excluded_difference} points or "
                f"more and one is above {r.excluded_above} (7.3.1 of the rapid and blitz "
                "regulations, from 1 December 2024)"
            )
        return ""

    def _match_reasons(
        self, event: Event, players: Mapping[str, ListedPlayer]
    ) -> dict[tuple[str, int], str]:
        """6.1 and 6.2 for an event of two players (a match): ``(player, round)`` of
        each game not rated, and why."""
        if not self.rules.match_rules or not event.match or len(event.entries) != 2:
            return {}
        first, second = event.entries
        unrated = [e for e in (first, second) if players[e.player].rating is None]
        if unrated:
            why = f"a match in which one player ({unrated[0].name}) is unrated is not rated (6.1)"
            return {(e.player, g.round): why for e in (first, second) for g in e.games}
        if event.waived:
            return {}
        scheduled = event.rounds or max(len(first.games), len(second.games))
        return _after_decided(first, second, scheduled)


def _after_decided(
    first: EventEntry, second: EventEntry, scheduled: int
) -> dict[tuple[str, int], str]:
    """6.2: "Where a match is over a specific number of games, those played after one
    player has won shall not be rated": a player has won once his points pass half the
    games scheduled."""
    half = Decimal(scheduled) / 2
    points = {first.player: Decimal(0), second.player: Decimal(0)}
    winner = ""
    decided_at = 0
    reasons: dict[tuple[str, int], str] = {}
    for game in sorted(first.games, key=lambda g: g.round):
        if winner:
            why = (
                f"played after {winner} had won the match in round {decided_at} "
                f"(more than {_minutes(half)} of {scheduled} points) (6.2)"
            )
            reasons[(first.player, game.round)] = why
            reasons[(second.player, game.round)] = why
            continue
        points[first.player] += game.score
        points[second.player] += 1 - game.score
        for entry in (first, second):
            if points[entry.player] > half:
                winner, decided_at = entry.name, game.round
    return reasons


def _minutes(value: Decimal) -> str:
    return f"{value.normalize():f}"
