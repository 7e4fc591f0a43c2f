"""The rating lab on a ledger's own history (``chessrate evaluate --db URL``).

A ledger holds every game it rated, in the order it rated them (its commit order),
and its players' attributes. :func:`evaluate_ledger` replays that history under the
ledger's system's rules and the variants, as :func:`chessrate.lab.evaluate` replays a
file:

- the games in commit order (the ledger's rating order), not re-sorted by
  ``played_at``, so that the base rules reproduce the ledger's own ratings;
- the players with their current attributes (membership, bot, imported ratings);
- the games a moderator annulled (site S10) are left out of every replay: their
  results were a cheat's, not the players' strength, so they are no test of a
  prediction, and the ledger's ratings no longer count them. How many were left out
  is in :attr:`History.annulled`.

Nothing is written: the ledger is only read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import InvalidInput, InvalidRecord
from ..ledger import Ledger
from ..records import GameRecord, Player
from . import Evaluation, evaluate_games, variants


@dataclass(frozen=True, slots=True)
class History:
    """What a ledger gives the lab: its system, its rated history in commit order and
    its players; ``annulled`` games were left out."""

    system_id: str
    games: tuple[GameRecord, ...]
    players: tuple[Player, ...]
    annulled: int


def ledger_history(ledger: Ledger) -> History:
    """The games (commit order, annulled games left out) and players of ``ledger``."""
    info = ledger.info
    if not info.rates_games:
        raise InvalidInput(
            f"the ledger rates {ledger.system_id} periods: evaluate needs one that rates games"
        )
    annulled = {a.game_id for a in ledger.annulments.list()} if info.annulments else set()
    games = tuple(g for g in ledger.games.export() if g.id not in annulled)
    return History(ledger.system_id, games, tuple(ledger.players.all()), len(annulled))


def evaluate_ledger(
    ledger: Ledger,
    vary: Sequence[str] = (),
    source: str = "",
    on_invalid: Callable[[InvalidRecord], None] | None = None,
) -> Evaluation:
    """Replay ``ledger``'s history (see the module) under its system's base rules and
    every variant of ``vary``, and measure each as :func:`chessrate.lab.evaluate` does.
    ``source`` names the ledger in the result (a URL without its password)."""
    variants(ledger.info.rules, vary)  # refuse a bad --vary before reading anything
    history = ledger_history(ledger)
    return evaluate_games(
        history.system_id, history.games, history.players, vary, source, on_invalid,
        in_order=True,
    )  # fmt: skip
