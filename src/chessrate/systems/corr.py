"""``corr``: a correspondence site's provisional/established rating (seed 001).

After US Chess correspondence practice; the rules are restated and settled in
``shared/spec/corr.md`` (C1-C7), cited on each function below.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from ..errors import InvalidRecord
from ..numbers import HALF, ONE, display, round_half_away
from ..records import GameRecord, Outcome, Player, Termination
from .base import (
    Change,
    GameRating,
    ListEntry,
    PlayerLookup,
    PoolKey,
    StateLookup,
    no_annulment,
)

POOL = "corr"

FOREIGN_TERMINATIONS = frozenset({Termination.BOT_NO_MOVE})
"""Endings that do not occur in corr (it has no bots): refused."""


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
class CorrRules:
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
    """The ``corr`` rating system (spec corr.md)."""

    id = "corr"
    pools: tuple[str, ...] = (POOL,)

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
            return GameRating(game, Outcome.UNRATED, "casual game: moves nothing")
        if game.termination is Termination.FORFEIT:
            return GameRating(game, Outcome.VOID, "forfeit: counts for nothing")
        if game.termination in FOREIGN_TERMINATIONS:
            raise game.refuse("termination", "'bot_no_move' does not occur in corr")
        if game.score(game.white) is None:
            return GameRating(game, Outcome.VOID, "no result (*): counts for nothing")
        white, black = states(game.white, POOL), states(game.black, POOL)
        changes = []
        new_states = {}
        for player_id, own, other in ((game.white, white, black), (game.black, black, white)):
            change, state = self._rate_one(game, player_id, own, other)
            if change is not None:
                changes.append(change)
                new_states[(player_id, POOL)] = state
        reason = (
            "rated: " + "; ".join(f"{c.player} {c.rule}" for c in changes)
            if changes
            else "rated: counted for neither player (C4)"
        )
        return GameRating(game, Outcome.RATED, reason, tuple(changes), new_states)

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
        against = "unrated opponent" if other.rating is None else f"opponent {other.rating}"
        note = (
            f"performance {performance} ({_word(score)} vs {against}); "
            f"mean of {games} performances {total}/{games} = {rating}"
        )
        if status is CorrStatus.ESTABLISHED:
            note += f"; {games} games: established from now on (C1)"
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
                note=note,
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
        bonus = rules.win_bonus if score == ONE else -rules.win_bonus if score == 0 else 0
        change = round_half_away(rules.factor * diff + bonus)
        clamp = f" (clamped from {raw_diff})" if diff != raw_diff else ""
        note = f"0.04 × diff {diff}{clamp} {bonus:+} = {change:+}"
        rule = "corr C5"
        if change < 0 and other.status is not CorrStatus.ESTABLISHED:
            note += f"; protected against a {other.status.value} opponent: 0 (C6)"
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
                note=note,
            ),
            CorrState(CorrStatus.ESTABLISHED, after, own.games + 1),
        )

    def annul(
        self, rating: GameRating[CorrState], states: StateLookup[CorrState]
    ) -> tuple[tuple[Change, ...], dict[PoolKey, CorrState]]:
        raise no_annulment(self.id, rating)

    def list_entry(self, player: Player, pool: str, state: CorrState) -> ListEntry | None:
        if state.rating is None:
            return None
        return ListEntry(
            player.id, pool, state.rating, display_corr(state), state.status.value, state.games
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


def _word(score: Decimal) -> str:
    return "win" if score == ONE else "draw" if score == HALF else "loss"
