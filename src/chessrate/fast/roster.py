"""The players of a compiled replay: registered as the engine registers them, and their
attributes as arrays for the decisions and the kernels."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

import numpy as np

from ..engine import Engine
from ..numbers import to_hundredths
from ..records import Player
from ..systems.base import RatingSystem
from ..systems.registry import system_info
from .compiled import I64, Attributes, B, CompiledSystem, compiled_of

NO_MEMBERSHIP = np.iinfo(np.int64).min // 2
"""The membership day of a player without one (before every game)."""
_EPOCH_DAY = date(1970, 1, 1)


class Roster:
    """The players file, registered exactly as :class:`Engine` registers it (same
    order, same checks, same errors), and the attribute lookup the rules use.

    ``system`` is a system id (its default rules) or a system object with its own
    ``Rules``: the kernels read their numbers from those rules."""

    def __init__(self, system: str | RatingSystem[Any], players: Iterable[Player] = ()) -> None:
        chosen = system_info(system).rating_system() if isinstance(system, str) else system
        self.compiled: CompiledSystem = compiled_of(chosen)
        """The system's compiled half (its registry entry's)."""
        self.system_id = chosen.id
        self.engine: Engine[Any] = Engine(chosen, players)
        self._table: tuple[int, dict[str, int], tuple[I64, B, I64, B, I64, I64]] | None = None
        self._rows: tuple[list[str], I64] | None = None
        """The last ``names`` given to :meth:`attributes` (a copy) and their rows in the
        table: a roster replayed against one batch again and again finds them here."""

    def for_system(self, system: RatingSystem[Any]) -> Roster:
        """The same players for another system object of the same id (other rules, as
        the rating lab replays): registered again by it (its checks may refuse a
        player), sharing the attribute arrays, which hold the players' attributes and
        not the rules (and the rows of the last ``names`` asked for)."""
        if system.id != self.system_id:
            raise ValueError(f"the roster is for {self.system_id}, not {system.id}")
        other = Roster(system, self.players.values())
        if self._table is None:
            self.attributes([])
        other._table = self._table
        other._rows = self._rows
        return other

    @property
    def system(self) -> RatingSystem[Any]:
        return self.engine.system

    @property
    def players(self) -> dict[str, Player]:
        return self.engine.players

    def player(self, player_id: str) -> Player:
        return self.engine.player(player_id)

    def attributes(self, names: list[str]) -> Attributes:
        """The attributes of the players ``names`` as arrays (an unregistered player
        has none). The registered players' arrays are built once per roster: the
        players file is read once and replayed against many batches."""
        if self._table is None or self._table[0] != len(self.engine.players):
            self._table = (len(self.engine.players), *self._build())
        _, index, table = self._table
        if self._rows is not None and self._rows[0] == names:
            rows = self._rows[1]
        else:
            unregistered = len(index)
            rows = np.fromiter(
                (index.get(name, unregistered) for name in names), np.int64, count=len(names)
            )
            self._rows = (list(names), rows)
        until, bot, bot_rating, imported, rating, games = table
        return Attributes(
            until[rows], bot[rows], bot_rating[rows], imported[rows], rating[rows], games[rows]
        )

    def _build(self) -> tuple[dict[str, int], tuple[I64, B, I64, B, I64, I64]]:
        players = list(self.engine.players.values())
        pools = self.system.pools
        n = len(players) + 1  # the last row: an unregistered player
        until = np.full(n, NO_MEMBERSHIP, np.int64)
        bot = np.zeros(n, np.bool_)
        bot_rating = np.zeros(n, np.int64)
        imported = np.zeros((n, len(pools)), np.bool_)
        rating = np.zeros((n, len(pools)), np.int64)
        games = np.zeros((n, len(pools)), np.int64)
        for i, player in enumerate(players):
            if player.membership_until is not None:
                until[i] = (player.membership_until - _EPOCH_DAY).days
            if player.bot:
                bot[i] = True
                assert player.bot_rating is not None
                bot_rating[i] = to_hundredths(player.bot_rating)
            for pool, entry in player.imported.items():
                p = pools.index(pool)
                imported[i, p] = True
                rating[i, p] = to_hundredths(entry.rating)
                games[i, p] = entry.games
        index = {player.id: i for i, player in enumerate(players)}
        return index, (until, bot, bot_rating, imported, rating, games)
