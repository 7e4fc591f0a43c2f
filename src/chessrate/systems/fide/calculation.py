"""The base of :class:`~chessrate.systems.fide.FideSystem`'s parts."""

from __future__ import annotations

from collections.abc import Mapping

from .model import EventEntry, ListedPlayer
from .rules import FideRules


class FideCalculation:
    """What every part of the period's calculation uses: the ruleset, K (F3, 2024
    8.3.3) and who counts as rated in an event (F7). Each part of
    :class:`~chessrate.systems.fide.FideSystem` builds on it."""

    rules: FideRules

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

    def rated_in_event(self, entry: EventEntry, players: Mapping[str, ListedPlayer]) -> bool:
        """F7 (8.4): rated for his opponents when rated on the starting list and in the
        event's file; a player who got a rating only after the event counts as unrated
        for his opponents."""
        return players[entry.player].rating is not None and entry.event_rating is not None
