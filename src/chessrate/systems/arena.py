"""``arena``: an online club's official rapid/blitz/bullet ratings on FIDE's tables.

Seeds 000 (Spanish) and 002 (English); the rules are
numbered A1-A11 with every ambiguity settled, cited on each function below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC
from decimal import Decimal
from enum import StrEnum
from typing import Any

from ..errors import InvalidRecord
from ..numbers import HALF, display, exact_text, round_half_away
from ..records import GameRecord, Outcome, Player, Termination
from ..tables import dp_for_fraction, expected_scores, table_b_d
from ..timecontrol import TimeControl
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

RAPID, BLITZ, BULLET = "rapid", "blitz", "bullet"
POOLS = (RAPID, BLITZ, BULLET)

# arena A2: the official controls, (base minutes, increment seconds) -> pool.
OFFICIAL_CONTROLS: dict[tuple[int, int], str] = {
    **{c: RAPID for c in ((15, 0), (25, 0), (45, 0), (10, 10), (15, 10), (25, 10), (45, 10))},
    **{c: BLITZ for c in ((3, 0), (5, 0), (10, 0), (3, 2), (3, 3), (5, 3))},
    **{c: BULLET for c in ((1, 0), (2, 0), (1, 1), (1, 2))},
}


FOREIGN_TERMINATIONS = frozenset({Termination.BOT_NO_MOVE, Termination.EXPIRED})
"""Endings that do not occur in arena (no bots, every game has a clock): refused."""


def allowed_controls() -> str:
    """The official controls in words, pool by pool (for A2's refusal)."""
    parts = []
    for pool in POOLS:
        controls = [f"{m}+{s}" for (m, s), p in OFFICIAL_CONTROLS.items() if p == pool]
        parts.append(f"{pool} {', '.join(controls)}")
    return "; ".join(parts)


RULES = ("arena A6", "arena A7", "arena A10")
"""The rules a change cites (stored as their position)."""

# The reasons of a decision (GameRating.reason_code; stored as such): arena A4, A6, A7, A9
(R_CASUAL, R_FORFEIT, R_NO_RESULT, R_NEITHER, R_BOTH, R_WHITE_QUALIFIES, R_BLACK_QUALIFIES,
 R_WHITE_LOSS_IGNORED, R_BLACK_LOSS_IGNORED) = range(9)  # fmt: skip


class ArenaStatus(StrEnum):
    """arena A5: the three states of a player in a pool."""

    UNRATED = "unrated"
    QUALIFYING = "qualifying"
    RATED = "rated"


@dataclass(frozen=True, slots=True)
class ArenaState:
    """A player's state in one pool.

    ``games`` counts rated games (A8's 30, qualifying games included) while rated;
    ``qualifying`` holds (opponent's rating at that game, score) while qualifying.
    """

    status: ArenaStatus = ArenaStatus.UNRATED
    rating: Decimal | None = None
    games: int = 0
    qualifying: tuple[tuple[Decimal, Decimal], ...] = ()

    @property
    def counted_games(self) -> int:
        """The games that count for this pool's rules (rating list ``games``)."""
        return len(self.qualifying) if self.status is ArenaStatus.QUALIFYING else self.games


@dataclass(frozen=True, slots=True)
class ArenaRules(Rules):
    """The ruleset's parameters; the defaults are the spec's."""

    training_rating: int = 1500  # A5 Decision
    floor: Decimal = Decimal("1000.00")  # A6, A10
    k: dict[str, int] = field(default_factory=lambda: {RAPID: 20, BLITZ: 20, BULLET: 10})  # A8
    k_new_player: int = 40  # A8
    new_player_games: int = 30  # A8
    qualifying_games: int = 5  # A6
    bonus_per_half_point: Decimal = Decimal("20")  # A6


class ArenaSystem:
    """The ``arena`` rating system (rules A1-A11)."""

    id = "arena"
    pools: tuple[str, ...] = POOLS
    rules_cited: tuple[str, ...] = RULES
    states: tuple[str, ...] = tuple(ArenaStatus)

    def __init__(self, rules: ArenaRules | None = None) -> None:
        self.rules = rules or ArenaRules()

    # -- players -----------------------------------------------------------------

    def check_player(self, player: Player) -> None:
        for pool, imported in player.imported.items():
            if pool not in POOLS:
                raise InvalidRecord(
                    player.source or f"player {player.id}",
                    f"rating_{pool}",
                    f"arena has no pool {pool!r} (pools: {', '.join(POOLS)})",
                )
            if imported.rating < self.rules.floor:
                raise InvalidRecord(
                    player.source or f"player {player.id}",
                    f"rating_{pool}",
                    f"{imported.rating} is below the floor of {self.rules.floor} (A10)",
                )
        if player.bot:
            raise InvalidRecord(player.source or f"player {player.id}", "bot", "arena has no bots")

    def initial_state(self, player: Player, pool: str) -> ArenaState:
        """A5: everyone starts unrated; A8: an imported rating starts rated with its games."""
        imported = player.imported.get(pool)
        if imported is None:
            return ArenaState()
        return ArenaState(ArenaStatus.RATED, imported.rating, imported.games)

    # -- one game ------------------------------------------------------------------

    def pool_of(self, game: GameRecord) -> str:
        """A2: the pool of a rated game's official time control; refuses any other."""
        control = game.time_control
        if control is None:
            raise game.refuse(
                "time_control",
                f"is required for a rated game (A2; allowed: {allowed_controls()})",
            )
        pool = pool_for_control(control)
        if pool is None:
            raise game.refuse(
                "time_control",
                f"{control.describe()} is not an official arena control for a rated game "
                f"(A2; allowed: {allowed_controls()}); play it unrated instead",
            )
        return pool

    def check_membership(self, game: GameRecord, players: PlayerLookup) -> None:
        """A3: both players need a membership valid on the day the game was played."""
        day = game.played_at.astimezone(UTC).date()  # dates are UTC days
        for side, player_id in (("white", game.white), ("black", game.black)):
            player = players(player_id)
            if not player.is_member_on(day):
                until = player.membership_until
                why = f"expired on {until}" if until else "none"
                raise game.refuse(
                    side,
                    f"player {player_id!r} has no valid arena membership on {day} ({why}); "
                    "only members play rated games (A3)",
                )

    def rate(
        self, game: GameRecord, players: PlayerLookup, states: StateLookup[ArenaState]
    ) -> GameRating[ArenaState]:
        if not game.rated:
            return decided(self.reason, game, Outcome.UNRATED, R_CASUAL)
        pool = self.pool_of(game)
        self.check_membership(game, players)
        if game.termination is Termination.FORFEIT:
            return decided(self.reason, game, Outcome.VOID, R_FORFEIT)
        if game.termination in FOREIGN_TERMINATIONS:
            raise game.refuse("termination", f"{game.termination.value!r} does not occur in arena")
        if game.score(game.white) is None:
            return decided(self.reason, game, Outcome.VOID, R_NO_RESULT)
        white, black = states(game.white, pool), states(game.black, pool)
        rated = ArenaStatus.RATED
        if white.status is rated and black.status is rated:
            return self._rate_between_rated(game, pool, white, black)
        if white.status is not rated and black.status is not rated:
            return decided(self.reason, game, Outcome.RATED, R_NEITHER)
        if white.status is rated:
            return self._qualifying_game(game, pool, game.black, black, white)
        return self._qualifying_game(game, pool, game.white, white, black)

    def reason(self, game: GameRecord, code: int, changes: tuple[Change, ...] = ()) -> str:
        """The game's decision in words, from its reason code (``R_*``) and the game: what
        the ledger shows for a stored game."""
        if code == R_CASUAL:
            return "casual game: moves nothing (A4)"
        if code == R_FORFEIT:
            return "forfeit: counts for nothing (A4)"
        if code == R_NO_RESULT:
            return "no result (*): counts for nothing"
        pool = self.pool_of(game)
        if code == R_NEITHER:
            return f"{pool}: neither player is rated, so the game counts for neither (A6)"
        if code == R_BOTH:
            return f"{pool}: both rated (A7)"
        unrated = game.white if code in (R_WHITE_QUALIFIES, R_WHITE_LOSS_IGNORED) else game.black
        opponent = game.opponent(unrated)
        text = f"{pool}: {opponent} is rated, {unrated} is not: A6 for {unrated}, A9 for {opponent}"
        if code in (R_WHITE_LOSS_IGNORED, R_BLACK_LOSS_IGNORED):
            text += "; a loss before the count starts is ignored (A6)"
        return text

    def k_factor(self, pool: str, state: ArenaState) -> int:
        """A8: K 40 until 30 rated games (qualifying games included), else the pool's K."""
        if state.games < self.rules.new_player_games:
            return self.rules.k_new_player
        return self.rules.k[pool]

    def _rate_between_rated(
        self, game: GameRecord, pool: str, white: ArenaState, black: ArenaState
    ) -> GameRating[ArenaState]:
        """A7: ΔR = score - PD (Table B), new rating = old + ΔR x K, from pre-game ratings."""
        assert white.rating is not None and black.rating is not None
        d = abs(white.rating - black.rating)
        pd_high, pd_low = expected_scores(d)
        changes: list[Change] = []
        new_states: dict[PoolKey, ArenaState] = {}
        for player_id, own, other in (
            (game.white, white, black),
            (game.black, black, white),
        ):
            assert own.rating is not None and other.rating is not None
            score = game.score(player_id)
            assert score is not None
            pd = pd_high if own.rating >= other.rating else pd_low
            k = self.k_factor(pool, own)
            delta = score - pd
            change = round_half_away(delta * k)
            after = own.rating + change
            if after < self.rules.floor:
                new_state = ArenaState()
                rule = "arena A10"
            else:
                new_state = ArenaState(ArenaStatus.RATED, after, own.games + 1)
                rule = "arena A7"
            new_states[(player_id, pool)] = new_state
            changes.append(
                explained(
                    Change(
                        game_id=game.id,
                        player=player_id,
                        pool=pool,
                        rule=rule,
                        opponent=game.opponent(player_id),
                        score=score,
                        before=own.rating,
                        after=after,
                        state_before=own.status.value,
                        state_after=new_state.status.value,
                        games_before=own.games,
                        games_after=new_state.counted_games,
                        opponent_rating=other.rating,
                        k=k,
                        d=d,
                        pd=pd,
                        delta=delta,
                        change=change,
                    ),
                    self.note,
                )
            )
        return decided(self.reason, game, Outcome.RATED, R_BOTH, tuple(changes), new_states)

    def _qualifying_game(
        self,
        game: GameRecord,
        pool: str,
        player_id: str,
        own: ArenaState,
        rated_opponent: ArenaState,
    ) -> GameRating[ArenaState]:
        """A6 for the unrated/qualifying player; A9: nothing for the rated opponent."""
        assert rated_opponent.rating is not None
        score = game.score(player_id)
        assert score is not None
        white = player_id == game.white
        if own.status is ArenaStatus.UNRATED and score < HALF:
            ignored = R_WHITE_LOSS_IGNORED if white else R_BLACK_LOSS_IGNORED
            return decided(self.reason, game, Outcome.RATED, ignored)
        entries = (*own.qualifying, (rated_opponent.rating, score))
        basis: Decimal | None = None
        points: int | None = None
        if len(entries) < self.rules.qualifying_games:
            new_state = ArenaState(ArenaStatus.QUALIFYING, qualifying=entries)
            after = None
        else:
            basis, total, rf, _how = self.first_rating(entries)
            points = int(total * 2)
            if rf < self.rules.floor:
                new_state = ArenaState()
            else:
                new_state = ArenaState(ArenaStatus.RATED, rf, len(entries))
            after = rf
        change = Change(
            game_id=game.id,
            player=player_id,
            pool=pool,
            rule="arena A6",
            opponent=game.opponent(player_id),
            score=score,
            before=None,
            after=after,
            state_before=own.status.value,
            state_after=new_state.status.value,
            games_before=own.counted_games,
            games_after=new_state.counted_games,
            opponent_rating=rated_opponent.rating,
            basis=basis,
            code=points,
        )
        code = R_WHITE_QUALIFIES if white else R_BLACK_QUALIFIES
        return decided(
            self.reason,
            game,
            Outcome.RATED,
            code,
            (explained(change, self.note),),
            {(player_id, pool): new_state},
        )

    def state_after(self, change: Change, before: ArenaState) -> ArenaState:
        """The state a change leaves, from its numbers and the state ``before`` it (a
        qualifying game adds its opponent's rating and score to the entries before):
        how a stored ledger's current rating is rebuilt from its last change."""
        status = ArenaStatus(change.state_after)
        if status is ArenaStatus.UNRATED:
            return ArenaState()
        if status is ArenaStatus.QUALIFYING:
            assert change.opponent_rating is not None
            entry = (change.opponent_rating, change.score)
            return ArenaState(status, qualifying=(*before.qualifying, entry))
        return ArenaState(status, change.after, change.games_after)

    def note(self, change: Change) -> str:
        """A change in words, from its numbers alone (A6, A7, A10): how the reference
        explains it, and what the ledger shows for a stored change. A completed
        qualification carries Ra as ``basis`` and its points (in half points) as
        ``code``."""
        floor = self.rules.floor
        if change.rule == "arena A6":
            count = change.games_before + 1  # this game's place among the qualifying games
            if change.after is None:
                first = "count starts (scored at least ½); " if count == 1 else ""
                return f"{first}qualifying game {count} of {self.rules.qualifying_games}"
            assert change.basis is not None and change.code is not None
            _rf, how = self.first_rating_of(change.basis, Decimal(change.code) / 2, count)
            if change.state_after == ArenaStatus.UNRATED.value:
                return f"{how}; below {floor}: not rated, the count is reset (A6)"
            return f"{how}; rated from now on (A6)"
        assert change.d is not None and change.pd is not None and change.change is not None
        note = (
            f"D = {table_b_d(change.d)} → PD {change.pd}; {change.score} − {change.pd} = "
            f"{change.delta} × K {change.k} = {change.change:+}"
        )
        if change.rule == "arena A10":
            note += (
                f"; {change.after} is below {floor}: the {change.pool} rating is lost, "
                "qualify again (A10)"
            )
        return note

    def first_rating(
        self, entries: tuple[tuple[Decimal, Decimal], ...]
    ) -> tuple[Decimal, Decimal, Decimal, str]:
        """A6: Ra = mean of the opponents' ratings (2 decimals), s = points;
        Rf = Ra (s = 50 %), Ra + 20 per half point over 50 %, or Ra + dp(s/n) (Table A).

        Returns (Ra, s, Rf, the calculation in words).
        """
        count = len(entries)
        ra = round_half_away(sum((rating for rating, _ in entries), Decimal(0)) / count)
        points = sum((score for _, score in entries), Decimal(0))
        rf, how = self.first_rating_of(ra, points, count)
        return ra, points, rf, how

    def first_rating_of(self, ra: Decimal, points: Decimal, count: int) -> tuple[Decimal, str]:
        """A6 from Ra, the points s and the number of games n: (Rf, the calculation in
        words)."""
        half = Decimal(count) / 2
        if points == half:
            rf, how = ra, "50 %, Rf = Ra"
        elif points > half:
            bonus = (points - half) / HALF * self.rules.bonus_per_half_point
            rf, how = ra + bonus, f"over 50 %, Rf = Ra + {bonus:.0f}"
        else:
            dp = dp_for_fraction(points / count)
            rf, how = (
                ra + dp,
                f"under 50 %, p = {round_half_away(points / count)}, Rf = Ra + dp ({dp})",
            )
        rf = round_half_away(rf)
        return rf, f"Ra = {ra}, s = {points.normalize():f}: {how} = {rf}"

    # -- lists ---------------------------------------------------------------------

    def annul(
        self, rating: GameRating[ArenaState], states: StateLookup[ArenaState]
    ) -> tuple[tuple[Change, ...], dict[PoolKey, ArenaState]]:
        raise no_annulment(self.id, rating)

    def standing(self, state: str, games: int, player: Player | None = None) -> str:
        """A5: unrated (the training rating shown), qualifying (n of A6's games), rated."""
        if state == ArenaStatus.QUALIFYING:
            return f"qualifying: {games} of {self.rules.qualifying_games}"
        if state == ArenaStatus.UNRATED:
            return f"unrated — training rating {self.rules.training_rating}"
        return "rated"

    def list_entry(self, player: Player, pool: str, state: ArenaState) -> ListEntry | None:
        """Rating list row: rated players with their rating, qualifying players with the
        training rating shown (A5) and their qualifying games; others are not listed."""
        if state.status is ArenaStatus.UNRATED:
            return None
        return ListEntry(
            player.id,
            pool,
            state.rating,
            display_arena(state, self.rules),
            state.status.value,
            state.counted_games,
        )

    def established(self, pool: str, active_days: int | None) -> Established:
        """Leaderboards: rated players (A5: not unrated or qualifying) with a membership
        valid on the ledger's date (A3, the same inclusive day as
        :meth:`check_membership`); ``active_days`` does not apply."""
        return Established(
            states=(ArenaStatus.RATED.value,), state_rule="A5", membership=True,
            membership_rule="A3",
        )  # fmt: skip


class ArenaCodec:
    """An ``ArenaState`` as a ledger stores it (its qualifying games as [Ra, score])."""

    def dump(self, state: ArenaState) -> dict[str, Any]:
        return {
            "status": state.status.value,
            "rating": exact_text(state.rating),
            "games": state.games,
            "qualifying": [[exact_text(r), str(s)] for r, s in state.qualifying],
        }

    def load(self, data: dict[str, Any]) -> ArenaState:
        rating = data["rating"]
        return ArenaState(
            ArenaStatus(data["status"]),
            None if rating is None else Decimal(str(rating)),
            int(data["games"]),
            tuple((Decimal(r), Decimal(s)) for r, s in data["qualifying"]),
        )


def display_arena(state: ArenaState, rules: ArenaRules | None = None) -> str:
    """A11: the rating rounded to an integer; A5 Decision: a qualifying player shows the
    training rating (1500); an unrated player shows nothing."""
    if state.status is ArenaStatus.QUALIFYING:
        return str((rules or ArenaRules()).training_rating)
    if state.rating is None:
        return ""
    return str(display(state.rating))


def pool_for_control(control: TimeControl) -> str | None:
    """A2: the pool of an official control, or None."""
    minutes = control.minutes_increment
    return OFFICIAL_CONTROLS.get(minutes) if minutes else None
