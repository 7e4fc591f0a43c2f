"""``verify`` of a ledger that rates games: replay every event in commit order through
the in-memory engine and compare every stored outcome, change and current rating
to the hundredth. (A ledger that rates periods re-rates them:
:meth:`chessrate.ledger.periods.Periods.verify`.)"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from ..engine import Engine as ReplayEngine
from ..records import GameRecord, Player
from .schema import ratings
from .writes import LedgerWrites


class LedgerVerify(LedgerWrites):
    """The replay check (the :class:`~chessrate.ledger.Ledger`'s share)."""

    def verify(self) -> list[str]:
        """Replay every event in commit order through the engine and compare every stored
        outcome, change and current rating to the hundredth. Returns the differences."""
        replay: ReplayEngine[Any] = ReplayEngine(self.system)
        problems: list[str] = []
        for seq, kind, ref, payload, at in self.events():
            if kind == "player":
                replay.set_player(Player.from_mapping(json.loads(payload), f"event {seq}"))
            elif kind == "game":
                record = GameRecord.from_mapping(json.loads(payload), f"event {seq}")
                rating = replay.apply(record)
                try:
                    stored = self.get_game(ref)
                except (ValueError, ArithmeticError, KeyError, TypeError) as error:
                    problems.append(f"game {ref}: the stored game cannot be read ({error!r})")
                    continue
                outcome = stored.outcome if not stored.annulled else rating.outcome.value
                if outcome != rating.outcome.value:
                    problems.append(f"game {ref}: outcome {outcome}, replay {rating.outcome.value}")
                kept = tuple(c for c in stored.changes if not c.rule.endswith("S10"))
                if kept != rating.changes:
                    problems.append(f"game {ref}: stored changes differ from the replay")
            elif kind == "annulment":
                data = json.loads(payload)
                replay.annul(ref, data["reason"], at, data["by"])
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

    def _compare_row(self, player: Player, pool: str, state: Any, row: Any) -> list[str]:
        """Every column of a stored rating against the replay's, to the hundredth."""
        expected = self._rating_row(player, pool, state)
        return [
            f"{player.id} {pool}: {name} is {getattr(row, name)!r} in the ledger, "
            f"{value!r} by the replay"
            for name, value in expected.items()
            if getattr(row, name) != value
        ]
