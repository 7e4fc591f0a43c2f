"""The in-memory engine: replays game records through a rating system.

It keeps every player's state per pool and, for every game, the system's
decision (outcome, reason, changes with their explanations). A game is
applied whole or not at all: a refused game changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

from .errors import InvalidRecord
from .records import GameRecord, Outcome, Player
from .systems.base import Change, GameRating, ListEntry, PoolKey, RatingSystem

S = TypeVar("S")


def in_rating_order(games: Iterable[GameRecord]) -> list[GameRecord]:
    """The order rule: by ``played_at``, ties in input order (a stable sort)."""
    return sorted(games, key=lambda game: game.played_at)


@dataclass(frozen=True, slots=True)
class Annulment:
    """A fair-play annulment (site S10): which game, when, why, by whom, and the
    changes that reversed the game's effect."""

    game_id: str
    at: datetime
    reason: str
    by: str | None
    changes: tuple[Change, ...]


class Engine(Generic[S]):
    """Replays games in memory through one rating system."""

    def __init__(self, system: RatingSystem[S], players: Iterable[Player] = ()) -> None:
        self.system = system
        self.players: dict[str, Player] = {}
        self.states: dict[PoolKey, S] = {}
        self.ratings: list[GameRating[S]] = []
        self._by_id: dict[str, GameRating[S]] = {}
        self.annulments: dict[str, Annulment] = {}
        for player in players:
            self.add_player(player)

    # -- players and states ------------------------------------------------------

    def add_player(self, player: Player) -> None:
        """Register a player's attributes (refused if the system cannot use them)."""
        if player.id in self.players:
            first = self.players[player.id].source or "earlier"
            raise InvalidRecord(
                player.source or f"player {player.id}", "id", f"duplicate player (first at {first})"
            )
        self.system.check_player(player)
        self.players[player.id] = player

    def set_player(self, player: Player) -> None:
        """Register or replace a player's attributes (a ledger's attribute change).
        States already built stay as they are; imported ratings apply to new states."""
        self.system.check_player(player)
        self.players[player.id] = player

    def player(self, player_id: str) -> Player:
        """A player's attributes; one missing from the players file has none."""
        player = self.players.get(player_id)
        return player if player is not None else Player(player_id)

    def state(self, player_id: str, pool: str) -> S:
        """A player's current state in a pool."""
        state = self.states.get((player_id, pool))
        if state is None:
            return self.system.initial_state(self.player(player_id), pool)
        return state

    # -- games ---------------------------------------------------------------------

    def apply(self, game: GameRecord) -> GameRating[S]:
        """Rate one game. Raises :class:`InvalidRecord` (and changes nothing) to refuse it.

        A game whose id was seen before is answered with the earlier decision when its
        content is the same (a game's ``id``), and refused when it differs."""
        first = self._by_id.get(game.id)
        if first is not None:
            if first.game == game:  # the same game sent again: the same answer, no change
                return first
            raise game.reuses_id_of(first.game)
        rating = self.system.rate(game, self.player, self.state)
        self.states.update(rating.states)
        self._by_id[game.id] = rating
        self.ratings.append(rating)
        return rating

    def replay(
        self,
        games: Iterable[GameRecord],
        on_invalid: Callable[[InvalidRecord], None] | None = None,
        progress: Callable[[int], None] | None = None,
        in_order: bool = False,
    ) -> list[GameRating[S]]:
        """Apply games in rating order (``in_order``: in the order given, as a ledger
        rated them). A refused game raises, unless ``on_invalid`` is given: then it is
        reported there, skipped, and the rest is rated."""
        applied = []
        for game in games if in_order else in_rating_order(games):
            try:
                rating = self.apply(game)
                if rating.game is game:  # not a repeat of an earlier identical record
                    applied.append(rating)
            except InvalidRecord as error:
                if on_invalid is None:
                    raise
                on_invalid(error)
            if progress is not None:
                progress(1)
        return applied

    def annul(self, game_id: str, reason: str, at: datetime, by: str | None = None) -> Annulment:
        """site S10: reverse a rated game's changes to every rating it touched and take
        it out of the games counts; the annulment is kept. All or nothing."""
        where = f"game {game_id}"
        rating = self._by_id.get(game_id)
        if rating is None:
            raise InvalidRecord(where, "id", "no such game to annul")
        if game_id in self.annulments:
            first = self.annulments[game_id]
            raise InvalidRecord(where, "id", f"already annulled at {first.at.isoformat()}")
        if rating.outcome is not Outcome.RATED:
            raise InvalidRecord(
                where, "id", f"the game is {rating.outcome.value}: no rating to annul"
            )
        changes, states = self.system.annul(rating, self.state)
        self.states.update(states)
        annulment = Annulment(game_id, at, reason, by, changes)
        self.annulments[game_id] = annulment
        return annulment

    def outcome(self, game_id: str) -> Outcome | None:
        """A game's outcome now: an annulled game is void."""
        if game_id in self.annulments:
            return Outcome.VOID
        rating = self._by_id.get(game_id)
        return None if rating is None else rating.outcome

    # -- results -------------------------------------------------------------------

    def changes(self) -> Iterator[Change]:
        """Every change of every game in the order applied, then the annulments'."""
        for rating in self.ratings:
            yield from rating.changes
        for annulment in self.annulments.values():
            yield from annulment.changes

    def rating_list(self, pool: str) -> list[ListEntry]:
        """One pool's rating list: rated players first by rating (highest first), then
        the others; ties by player id."""
        entries = []
        for (player_id, state_pool), state in self.states.items():
            if state_pool != pool:
                continue
            entry = self.system.list_entry(self.player(player_id), pool, state)
            if entry is not None:
                entries.append(entry)
        for player in self.players.values():
            if (player.id, pool) not in self.states:
                entry = self.system.list_entry(player, pool, self.state(player.id, pool))
                if entry is not None:
                    entries.append(entry)
        entries.sort(key=lambda e: (e.rating is None, -(e.rating or 0), -e.games, e.player))
        return entries

    def rating_lists(self) -> dict[str, list[ListEntry]]:
        """Every pool's list, in the system's pool order."""
        return {pool: self.rating_list(pool) for pool in self.system.pools}
