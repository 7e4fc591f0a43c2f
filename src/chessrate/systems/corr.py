"""``corr``: a correspondence site's provisional/established rating (seed 001).

After US Chess correspondence practice; the rules are
numbered C1-C7 with every ambiguity settled, cited on each function below.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any

from ..errors import InvalidRecord
from ..numbers import HALF, ONE, display, exact_text, round_half_away
from ..records import GameRecord, Outcome, Player, Termination
from .base import (
    Change,
    Established,
    GameRating,
    ListEntry,
    PlayerLookup,
    PoolKey,
    Rules,
    StateLookup,
    decided,
    explained,
    no_annulment,
)

POOL = "corr"

FOREIGN_TERMINATIONS = frozenset({Termination.BOT_NO_MOVE})
"""Endings that do not occur in corr (it has no bots): refused."""

RULES = ("corr C2", "corr C5", "corr C6")
"""The rules a change cites (stored as their position)."""

# The reasons of a decision (GameRating.reason_code; stored as such)
R_CASUAL, R_FORFEIT, R_NO_RESULT, R_RATED, R_NEITHER = range(5)


class CorrStatus(StrEnum):
    """corr C1: the three states."""

    UNRATED = "unrated"
    PROVISIONAL = "provisional"
    ESTABLISHED = "established"


@dataclass(frozen=True, slots=True)
class CorrState:
    """A player's corr state. While provisional, ``performances`` is the exact sum of
    the per-game performances and ``games`` their count (C2); the rating is their mean
    rounded to two decimals."""

    status: CorrStatus = CorrStatus.UNRATED
    rating: Decimal | None = None
    games: int = 0
    performances: Decimal = Decimal(0)


@dataclass(frozen=True, slots=True)
class CorrRules(Rules):
    """The ruleset's parameters; the defaults are the spec's."""

    established_after: int = 25  # C1
    performance_margin: Decimal = Decimal(400)  # C3
    unrated_performance_win: Decimal = Decimal(1500)  # C3
    unrated_performance_draw: Decimal = Decimal(1300)  # C3
    unrated_performance_loss: Decimal = Decimal(1100)  # C3
    provisional_gap: Decimal = Decimal(400)  # C4
    factor: Decimal = Decimal("0.04")  # C5
    win_bonus: Decimal = Decimal(16)  # C5
    diff_clamp: Decimal = Decimal(350)  # C5 Decision


class CorrSystem:
    """The ``corr`` rating system (rules C1-C7)."""

    id = "corr"
    pools: tuple[str, ...] = (POOL,)
    rules_cited: tuple[str, ...] = RULES
    states: tuple[str, ...] = tuple(s.value for s in CorrStatus)

    def __init__(self, rules: CorrRules | None = None) -> None:
        self.rules = rules or CorrRules()

    def check_player(self, player: Player) -> None:
        where = player.source or f"player {player.id}"
        for pool in player.imported:
            if pool != POOL:
                raise InvalidRecord(where, f"rating_{pool}", f"corr has one pool, {POOL!r}")
        imported = player.imported.get(POOL)
        if imported is not None and imported.games < 1:
            raise InvalidRecord(where, f"games_{POOL}", "an imported rating needs games behind it")
        if player.bot:
            raise InvalidRecord(where, "bot", "corr has no bots")

    def initial_state(self, player: Player, pool: str) -> CorrState:
        """C1/C2 with an imported rating: established from 25 games, else provisional
        with ``games`` performances equal to the rating."""
        imported = player.imported.get(POOL)
        if imported is None:
            return CorrState()
        if imported.games >= self.rules.established_after:
            return CorrState(CorrStatus.ESTABLISHED, imported.rating, imported.games)
        return CorrState(
            CorrStatus.PROVISIONAL,
            imported.rating,
            imported.games,
            imported.rating * imported.games,
        )

    def rate(
        self, game: GameRecord, players: PlayerLookup, states: StateLookup[CorrState]
    ) -> GameRating[CorrState]:
        if not game.rated:
            return decided(self.reason, game, Outcome.UNRATED, R_CASUAL)
        if game.termination is Termination.FORFEIT:
            return decided(self.reason, game, Outcome.VOID, R_FORFEIT)
        if game.termination in FOREIGN_TERMINATIONS:
            raise game.refuse("termination", "'bot_no_move' does not occur in corr")
        if game.score(game.white) is None:
            return decided(self.reason, game, Outcome.VOID, R_NO_RESULT)
        white, black = states(game.white, POOL), states(game.black, POOL)
        changes = []
        new_states = {}
        for player_id, own, other in ((game.white, white, black), (game.black, black, white)):
            change, state = self._rate_one(game, player_id, own, other)
            if change is not None:
                changes.append(explained(change, self.note))
                new_states[(player_id, POOL)] = state
        code = R_RATED if changes else R_NEITHER
        return decided(self.reason, game, Outcome.RATED, code, tuple(changes), new_states)

    def reason(self, game: GameRecord, code: int, changes: tuple[Change, ...] = ()) -> str:
        """The game's decision in words, from its reason code (``R_*``) and its changes."""
        if code == R_CASUAL:
            return "casual game: moves nothing"
        if code == R_FORFEIT:
            return "forfeit: counts for nothing"
        if code == R_NO_RESULT:
            return "no result (*): counts for nothing"
        if code == R_NEITHER:
            return "rated: counted for neither player (C4)"
        return "rated: " + "; ".join(f"{c.player} {c.rule}" for c in changes)

    def state_after(self, change: Change, before: CorrState) -> CorrState:
        """The state a change leaves, from its numbers: C2 keeps the sum of the
        performances (``basis``); an established player's change keeps none."""
        status = CorrStatus(change.state_after)
        if change.rule == "corr C2":
            assert change.basis is not None
            return CorrState(status, change.after, change.games_after, change.basis)
        return CorrState(status, change.after, change.games_after)

    def note(self, change: Change) -> str:
        """A change in words, from its numbers alone (C2, C5, C6): how the reference
        explains it, and what the ledger shows. C2 carries the sum of the performances
        as ``basis``; C5/C6 the opponent's state as ``code``."""
        rules = self.rules
        if change.rule == "corr C2":
            opponent = CorrState(rating=change.opponent_rating)  # only its rating is read
            performance = self.performance(change.score, opponent)
            rating = change.opponent_rating
            against = "unrated opponent" if rating is None else f"opponent {_cents(rating)}"
            games = change.games_after
            assert change.basis is not None and change.after is not None
            note = (
                f"performance {performance} ({_word(change.score)} vs {against}); "
                f"mean of {games} performances {_cents(change.basis)}/{games} = "
                f"{_cents(change.after)}"
            )
            if change.state_after == CorrStatus.ESTABLISHED.value:
                note += f"; {games} games: established from now on (C1)"
            return note
        assert change.d is not None and change.code is not None
        raw_diff = change.d
        diff = max(-rules.diff_clamp, min(rules.diff_clamp, raw_diff))
        bonus = self._bonus(change.score)
        computed = round_half_away(rules.factor * diff + bonus)
        clamp = f" (clamped from {raw_diff})" if diff != raw_diff else ""
        note = f"{rules.factor} × diff {diff}{clamp} {bonus:+} = {computed:+}"
        if change.rule == "corr C6":
            opponent_state = tuple(CorrStatus)[change.code]
            note += f"; protected against a {opponent_state.value} opponent: 0 (C6)"
        return note

    def _bonus(self, score: Decimal) -> Decimal | int:
        """C5: +16 for a win, -16 for a loss, 0 for a draw."""
        win = self.rules.win_bonus
        return win if score == ONE else -win if score == 0 else 0

    def performance(self, score: Decimal, opponent: CorrState) -> Decimal:
        """C3: the per-game performance from the opponent's pre-game rating."""
        if opponent.rating is None:
            if score == ONE:
                return self.rules.unrated_performance_win
            if score == HALF:
                return self.rules.unrated_performance_draw
            return self.rules.unrated_performance_loss
        margin = self.rules.performance_margin
        if score == ONE:
            return opponent.rating + margin
        if score == HALF:
            return opponent.rating
        return opponent.rating - margin

    def _rate_one(
        self, game: GameRecord, player_id: str, own: CorrState, other: CorrState
    ) -> tuple[Change | None, CorrState]:
        score = game.score(player_id)
        assert score is not None
        if own.status is CorrStatus.ESTABLISHED:
            return self._established(game, player_id, score, own, other)
        return self._provisional(game, player_id, score, own, other)

    def _provisional(
        self, game: GameRecord, player_id: str, score: Decimal, own: CorrState, other: CorrState
    ) -> tuple[Change | None, CorrState]:
        """C2-C4: the mean of the per-game performances; the 400-point rule."""
        if (
            own.rating is not None
            and other.rating is not None
            and abs(other.rating - own.rating) >= self.rules.provisional_gap
        ):
            return None, own  # C4: not counted at all
        performance = self.performance(score, other)
        total = own.performances + performance
        games = own.games + 1
        rating = round_half_away(total / games)
        status = (
            CorrStatus.ESTABLISHED
            if games >= self.rules.established_after
            else CorrStatus.PROVISIONAL
        )
        state = CorrState(status, rating, games, total)
        return (
            Change(
                game_id=game.id,
                player=player_id,
                pool=POOL,
                rule="corr C2",
                opponent=game.opponent(player_id),
                score=score,
                before=own.rating,
                after=rating,
                state_before=own.status.value,
                state_after=status.value,
                games_before=own.games,
                games_after=games,
                opponent_rating=other.rating,
                change=None if own.rating is None else rating - own.rating,
                basis=total,
            ),
            state,
        )

    def _established(
        self, game: GameRecord, player_id: str, score: Decimal, own: CorrState, other: CorrState
    ) -> tuple[Change, CorrState]:
        """C5: 0.04 x diff (+16 win, -16 loss), diff clamped to +-350; C6 protection."""
        assert own.rating is not None
        rules = self.rules
        if other.rating is None:
            # C5 Decision: an unrated opponent's rating is the performance he earns here.
            opponent_rating = self.performance(ONE - score, own)
        else:
            opponent_rating = other.rating
        raw_diff = opponent_rating - own.rating
        diff = max(-rules.diff_clamp, min(rules.diff_clamp, raw_diff))
        change = round_half_away(rules.factor * diff + self._bonus(score))
        rule = "corr C5"
        if change < 0 and other.status is not CorrStatus.ESTABLISHED:
            change = Decimal("0.00")
            rule = "corr C6"
        after = own.rating + change
        return (
            Change(
                game_id=game.id,
                player=player_id,
                pool=POOL,
                rule=rule,
                opponent=game.opponent(player_id),
                score=score,
                before=own.rating,
                after=after,
                state_before=own.status.value,
                state_after=own.status.value,
                games_before=own.games,
                games_after=own.games + 1,
                opponent_rating=opponent_rating,
                d=raw_diff,
                change=change,
                code=tuple(CorrStatus).index(other.status),
            ),
            CorrState(CorrStatus.ESTABLISHED, after, own.games + 1),
        )

    def annul(
        self, rating: GameRating[CorrState], states: StateLookup[CorrState]
    ) -> tuple[tuple[Change, ...], dict[PoolKey, CorrState]]:
        raise no_annulment(self.id, rating)

    def standing(self, state: str, games: int, player: Player | None = None) -> str:
        """C1: unrated, provisional (its games so far of the ``established_after``
        that establish it), established."""
        if state == CorrStatus.PROVISIONAL:
            return f"provisional, {games} of {self.rules.established_after} games"
        return str(state)

    def list_entry(self, player: Player, pool: str, state: CorrState) -> ListEntry | None:
        if state.rating is None:
            return None
        return ListEntry(
            player.id, pool, state.rating, display_corr(state), state.status.value, state.games
        )

    def established(self, pool: str, active_days: int | None) -> Established:
        """Leaderboards: established ratings (C1: 25 counted games); ``active_days``
        does not apply."""
        return Established(states=(CorrStatus.ESTABLISHED.value,), state_rule="C1")


class CorrCodec:
    """A ``CorrState`` as a ledger stores it (the exact sum of the performances too)."""

    def dump(self, state: CorrState) -> dict[str, Any]:
        return {
            "status": state.status.value,
            "rating": exact_text(state.rating),
            "games": state.games,
            "performances": exact_text(state.performances),
        }

    def load(self, data: dict[str, Any]) -> CorrState:
        rating = data["rating"]
        return CorrState(
            CorrStatus(data["status"]),
            None if rating is None else Decimal(str(rating)),
            int(data["games"]),
            Decimal(data["performances"]),
        )


def display_corr(state: CorrState) -> str:
    """C7: ``Unrated``; ``1450P (7)`` while provisional; an integer once established."""
    if state.rating is None:
        return "Unrated"
    return f"{display(state.rating)}{corr_mark(state.status, state.games)}"


def corr_mark(status: CorrStatus, games: int) -> str:
    """C7: what follows a displayed rating: ``P (7)`` while provisional (7 games so
    far), nothing once established."""
    return f"P ({games})" if status is CorrStatus.PROVISIONAL else ""


def _cents(value: Decimal) -> Decimal:
    """A rating as the notes show it: with its hundredths (``1500.00``, also when the
    number was ``1500``: a stored number keeps no other form)."""
    return round_half_away(value)


def _word(score: Decimal) -> str:
    return "win" if score == ONE else "draw" if score == HALF else "loss"
