"""F2, F7: a rated player's change over the period."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from ...numbers import round_half_away
from ...tables import expected_score
from .calculation import FideCalculation
from .model import Event, FirstRatingCalc, GameLine, ListedPlayer, PlayerReport
from .rules import ListKind


class RatedChanges(FideCalculation):
    """A rated player's new rating (F2, F7; 2024 8.3)."""

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
        rule = (
            "8.3.1"
            if self.rules.list_kind == ListKind.STANDARD
            else "7.3.1 of the rapid and blitz regulations"
        )
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
                        why = f"only games against rated players count ({rule})"
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
                    article = rule if pooled else "8.54"
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
