"""``verify`` of a ledger that rates games: replay every event in commit order through
the in-memory engine and compare every stored number (each game's outcome and reason
code, each change's numbers and the words written from them, each current rating) to
the replay's. (A ledger that rates periods re-rates them:
:meth:`chessrate.ledger.periods.Periods.verify`.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import groupby
from typing import Any

from sqlalchemy import select

from ..engine import Engine as ReplayEngine
from ..records import Player
from ..systems.base import Change
from . import rows
from .bulk import LedgerBulk
from .schema import changes, players, ratings
from .schema import games as rows_games


class LedgerVerify(LedgerBulk):
    """The replay check (the :class:`~chessrate.ledger.Ledger`'s share)."""

    def verify(self) -> list[str]:
        """Replay every event in commit order through the engine and compare every stored
        number to the replay's. Returns the differences."""
        replay: ReplayEngine[Any] = ReplayEngine(self.system)
        problems: list[str] = []
        with self.reading() as conn:
            names = dict(conn.execute(select(players.c.key, players.c.id)).all())
        stored_changes = self._changes_by_seq(names)
        pending = next(stored_changes, None)
        for seq, kind, ref, data, at in self.events():
            mine: list[Change] | Exception = []
            while pending is not None and pending[0] < seq:
                problems.append(f"event {pending[0]}: changes stored without an event")
                pending = next(stored_changes, None)
            if pending is not None and pending[0] == seq:
                mine = pending[1]
                pending = next(stored_changes, None)
            if kind == "player":
                replay.set_player(Player.from_mapping(json.loads(data), f"event {seq}"))
                continue
            if kind == "game":
                try:
                    record = rows.record_from_row(data._mapping, names.__getitem__)
                except (ValueError, KeyError, IndexError) as error:
                    problems.append(f"game {ref}: the stored game cannot be read ({error!r})")
                    continue
                rating = replay.apply(record)
                outcome = rows.OUTCOMES[data.outcome]
                if outcome is not rating.outcome:
                    problems.append(
                        f"game {ref}: outcome {outcome.value}, replay {rating.outcome.value}"
                    )
                if data.reason != rating.reason_code:
                    problems.append(
                        f"game {ref}: reason code {data.reason}, replay {rating.reason_code}"
                    )
                expected: tuple[Change, ...] = rating.changes
            else:
                info = json.loads(data)
                expected = replay.annul(ref, info["reason"], at, info["by"]).changes
            if isinstance(mine, Exception):
                problems.append(f"{kind} {ref}: a stored change cannot be read ({mine!r})")
            elif tuple(mine) != expected:
                problems.append(f"{kind} {ref}: stored changes differ from the replay")
        if pending is not None:
            problems.append(f"event {pending[0]}: changes stored without an event")
        with self.reading() as conn:
            stored_rows = {(r.player_id, r.pool): r for r in conn.execute(select(ratings))}
        for (player_id, pool), state in replay.states.items():
            row = stored_rows.pop((player_id, pool), None)
            if row is None:
                problems.append(f"{player_id} {pool}: missing from the ledger")
                continue
            problems += self._compare_row(replay.player(player_id), pool, state, row)
        for (player_id, pool), row in stored_rows.items():
            # A rating seeded from an import, not moved by any game yet.
            state = replay.state(player_id, pool)
            problems += self._compare_row(replay.player(player_id), pool, state, row)
        return problems

    def _changes_by_seq(
        self, names: dict[int, str]
    ) -> Iterator[tuple[int, list[Change] | Exception]]:
        """Every stored change, grouped by event, in commit order (the error instead
        of an event's changes when one of them cannot be read)."""
        system = self.system
        with self.reading() as conn:
            game_ids = dict(conn.execute(select(rows_games.c.seq, rows_games.c.id)).all())
            found = conn.execute(select(changes).order_by(changes.c.seq, changes.c.slot))
            for seq, grouped in groupby(found, key=lambda r: r.seq):
                group = list(grouped)
                try:
                    if [r.slot for r in group] != list(range(len(group))):
                        raise ValueError(f"slots {[r.slot for r in group]}")
                    yield seq, [
                        rows.change_from_row(
                            system, r._mapping, names.__getitem__,
                            game_ids.get(r.game if r.game is not None else seq, "?"),
                        )
                        for r in group
                    ]  # fmt: skip
                except (ValueError, KeyError, IndexError, ArithmeticError) as error:
                    yield seq, error

    def _compare_row(self, player: Player, pool: str, state: Any, row: Any) -> list[str]:
        """Every column of a stored rating against the replay's, to the hundredth."""
        expected = self._rating_row(player, pool, state)
        return [
            f"{player.id} {pool}: {name} is {getattr(row, name)!r} in the ledger, "
            f"{value!r} by the replay"
            for name, value in expected.items()
            if getattr(row, name) != value
        ]
