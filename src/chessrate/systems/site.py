"""``site``: a chess site's per-type Elo plus the weighted site Elo (seed 004).

The rules, numbered S1-S10 with every ambiguity of the seed settled, are cited
on each function below. S8's first-move deadlines and S9's expiry need a clock
and belong to the live service; here a finished game's record says how it
ended (``plies``, ``termination``) and the rules decide what that means.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Any

from ..errors import InvalidRecord
from ..numbers import HALF, ONE, display, exact_text, round_half_away
from ..records import GameRecord, Outcome, Player, Result, Termination, Venue
from ..timecontrol import ClockKind, TimeControl
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
)

SITE = "site"


class GameType(StrEnum):
    """site S2: the game types, in the order the first match wins."""

    BOTS = "bots"
    OTB = "otb"
    CORRESPONDENCE = "correspondence"
    UNCLOCKED = "unclocked"
    BULLET = "bullet"
    BLITZ = "blitz"
    RAPID = "rapid"
    CLASSICAL = "classical"


WEIGHTS: dict[GameType, Decimal] = {
    GameType.BOTS: Decimal("0.5"),
    GameType.OTB: Decimal("0.75"),
    GameType.CORRESPONDENCE: Decimal("0.5"),
    GameType.UNCLOCKED: Decimal("0.75"),
    GameType.BULLET: Decimal("0.5"),
    GameType.BLITZ: Decimal("0.75"),
    GameType.RAPID: Decimal("1.0"),
    GameType.CLASSICAL: Decimal("1.0"),
}
"""site S2: each type's weight in the site Elo."""

POOLS: tuple[str, ...] = (
    SITE,
    *(t.value for t in (GameType.BULLET, GameType.BLITZ, GameType.RAPID, GameType.CLASSICAL)),
    *(t.value for t in (GameType.UNCLOCKED, GameType.CORRESPONDENCE, GameType.OTB, GameType.BOTS)),
)

ENDINGS_WITH_A_LOSER = frozenset(
    {Termination.RESIGN, Termination.TIMEOUT, Termination.ABANDON, Termination.DISCONNECT}
)
"""S8: once both sides moved, these endings are a rated loss, so a result is needed."""

BOT_NEVER_LOSES_BY = frozenset({Termination.TIMEOUT, Termination.ABANDON, Termination.EXPIRED})
"""S7: a bot never loses on time, by abandoning or by expiry (such a record is refused)."""

RULES = ("site S3", "site S5", "site S10")
"""The rules a change cites (stored as their position)."""

# The reasons of a decision (GameRating.reason_code; stored as such); a rated game's
# code is R_RATED plus its type's position in GameType.
(R_CASUAL, R_TWO_BOTS, R_OTB_PENDING, R_FORFEIT, R_ABORTED, R_BOT_NO_MOVE, R_NO_RESULT,
 R_RATED) = range(8)  # fmt: skip

EXPECTED_PLACES = 2
"""The logistic expected score is computed in float and rounded to two decimals
(the rounding rule: a logistic expected score is rounded to two decimals)."""


@dataclass(frozen=True, slots=True)
class SiteState:
    """One rating of a player (the site Elo or a type rating) and its rated games."""

    rating: Decimal = Decimal("1500.00")
    games: int = 0


@dataclass(frozen=True, slots=True)
class SiteRules(Rules):
    """The ruleset's parameters; the defaults are the spec's."""

    start: Decimal = Decimal("1500.00")  # S3
    k_new: int = 32  # S4
    k: int = 20  # S4
    k_new_games: int = 30  # S4
    floor: Decimal = Decimal("100.00")  # S5
    provisional_games: int = 10  # S6
    max_days_per_move: int = 7  # S2
    bullet_below: int = 3 * 60  # S2: estimate in seconds
    blitz_below: int = 8 * 60
    rapid_below: int = 25 * 60
    bot_void_before_plies: int = 18  # S7 Decision: moves 1-9
    aborted_below_plies: int = 2  # S8: before both sides moved
    # the deadlines of live games, in seconds (site_live)
    first_move_fast: int = 30  # S8: bullet and blitz
    first_move_slow: int = 60  # S8: rapid and classical
    first_move_unclocked: int = 24 * 3600  # S8: unclocked and correspondence
    bot_move_live: int = 60  # S8/S7: a bot's move in a clocked game
    bot_move_unclocked: int = 10 * 60  # S8/S7: a bot's move without a live clock
    expiry: int = 7 * 24 * 3600  # S9
    weights: dict[GameType, Decimal] = field(default_factory=lambda: dict(WEIGHTS))


def expected_score(own: Decimal, opponent: Decimal) -> Decimal:
    """site S3: 1 / (1 + 10^((R_opp - R_own) / 400)), in float, then quantized once.

    It is computed for the higher rated side and the lower rated gets 1 minus that,
    so the two expected scores of a game add up to exactly 1 (and equal K give a
    zero-sum game, as the seed's classical Elo intends)."""
    if own < opponent:
        return 1 - expected_score(opponent, own)
    value = 1.0 / (1.0 + 10.0 ** (float(opponent - own) / 400.0))
    return round_half_away(value, EXPECTED_PLACES)


class SiteSystem:
    """The ``site`` rating system (rules S1-S10)."""

    id = "site"
    rules_cited: tuple[str, ...] = RULES
    states: tuple[str, ...] = ("rated",)
    pools: tuple[str, ...] = POOLS

    def __init__(self, rules: SiteRules | None = None) -> None:
        self.rules = rules or SiteRules()

    # -- players -----------------------------------------------------------------

    def check_player(self, player: Player) -> None:
        where = player.source or f"player {player.id}"
        for pool, imported in player.imported.items():
            if pool not in POOLS:
                raise InvalidRecord(
                    where,
                    f"rating_{pool}",
                    f"site has no pool {pool!r} (pools: {', '.join(POOLS)})",
                )
            if imported.rating < self.rules.floor:
                raise InvalidRecord(
                    where,
                    f"rating_{pool}",
                    f"{imported.rating} is below the floor of {self.rules.floor} (S5)",
                )
        if player.bot and (player.bot_rating is None or player.bot_rating < self.rules.floor):
            raise InvalidRecord(
                where, "bot_rating", f"a bot needs a fixed rating of at least {self.rules.floor}"
            )
        if player.bot and player.imported:
            raise InvalidRecord(where, "bot", "a bot has a fixed bot_rating, no imported ratings")

    def initial_state(self, player: Player, pool: str) -> SiteState:
        """S3: everyone starts at 1500 with no games; an imported rating keeps its games."""
        imported = player.imported.get(pool)
        if imported is None:
            return SiteState(self.rules.start, 0)
        return SiteState(imported.rating, imported.games)

    # -- one game ------------------------------------------------------------------

    def game_type(self, game: GameRecord, white: Player, black: Player) -> GameType:
        """S2: the game's type, first match wins; refuses what cannot be rated."""
        if white.bot or black.bot:
            return GameType.BOTS
        if game.venue is Venue.OTB:
            return GameType.OTB
        control = game.time_control
        if control is None:
            raise game.refuse("time_control", "is required for a rated game (S2)")
        return self.type_of_control(game, control)

    def type_of_control(self, game: GameRecord, control: TimeControl) -> GameType:
        """S2: correspondence (1-7 days), unclocked, or by the estimated duration;
        refuses a correspondence game with more days per move than rated play allows."""
        kind = self.control_type(control)
        if kind is None:
            raise game.refuse(
                "time_control",
                f"{control.describe()}: more than {self.rules.max_days_per_move} days "
                "per move is not rated (S2)",
            )
        return kind

    def control_type(self, control: TimeControl) -> GameType | None:
        """S2 for a time control alone: the game type of a game between humans online,
        or None for a correspondence control slower than rated play allows."""
        if control.kind is ClockKind.CORRESPONDENCE:
            if control.days_per_move > self.rules.max_days_per_move:
                return None
            return GameType.CORRESPONDENCE
        if control.kind is ClockKind.UNCLOCKED:
            return GameType.UNCLOCKED
        estimate = control.estimated_seconds
        assert estimate is not None
        if estimate < self.rules.bullet_below:
            return GameType.BULLET
        if estimate < self.rules.blitz_below:
            return GameType.BLITZ
        if estimate < self.rules.rapid_below:
            return GameType.RAPID
        return GameType.CLASSICAL

    def rate(
        self, game: GameRecord, players: PlayerLookup, states: StateLookup[SiteState]
    ) -> GameRating[SiteState]:
        white, black = players(game.white), players(game.black)
        if not game.rated:
            return decided(self.reason, game, Outcome.UNRATED, R_CASUAL)
        kind = self.game_type(game, white, black)
        if white.bot and black.bot:
            return decided(self.reason, game, Outcome.UNRATED, R_TWO_BOTS)
        if game.venue is Venue.OTB and kind is GameType.OTB and not game.confirmed:
            return decided(self.reason, game, Outcome.UNRATED, R_OTB_PENDING)
        result = self._result(game, white, black)
        if not isinstance(result, Result):  # the reason (code) why the game is void
            return decided(self.reason, game, Outcome.VOID, result)
        return self._rate_humans_or_bot(game, kind, result, white, black, states)

    def reason(self, game: GameRecord, code: int, changes: tuple[Change, ...] = ()) -> str:
        """The game's decision in words, from its reason code (``R_*``) and the game: what
        the ledger shows for a stored game."""
        if code == R_CASUAL:
            return "casual game: moves nothing (S1)"
        if code == R_TWO_BOTS:
            return "two bots: nothing to rate (S7)"
        if code == R_OTB_PENDING:
            return "otb game not confirmed by both players: pending (S2)"
        if code == R_FORFEIT:
            return "forfeit: counts for nothing"
        if code == R_ABORTED:
            return f"aborted: {game.plies} plies, before both sides moved: void (S8)"
        if code == R_BOT_NO_MOVE:
            return (
                f"the bot's move did not arrive before move {self.bot_loss_move} "
                f"({game.plies} plies): void (S7)"
            )
        if code == R_NO_RESULT:
            return "no result (*): counts for nothing"
        kind = tuple(GameType)[code - R_RATED]
        return f"{kind.value}: type rating and site Elo (weight {self.rules.weights[kind]})"

    def state_after(self, change: Change, before: SiteState) -> SiteState:
        """The state a change leaves, from its numbers (S3, S5, S10)."""
        assert change.after is not None
        return SiteState(change.after, change.games_after)

    def note(self, change: Change) -> str:
        """A change in words, from its numbers alone (S3, S5, S10): how the reference
        explains it, and what the ledger shows. A change of the site Elo carries the
        game type's position in GameType as ``code``; S10 the reversed change as
        ``basis``."""
        if change.rule == "site S10":
            return f"fair-play annulment: the game's {change.basis:+} is reversed"
        assert change.pd is not None and change.k is not None
        expected, k, score = change.pd, change.k, change.score
        if change.pool == SITE:
            assert change.code is not None
            kind = tuple(GameType)[change.code]
            weight = self.rules.weights[kind]
            weight_text = f" × weight {weight} ({kind.value})"
        else:
            weight, weight_text = Decimal(1), ""
        computed = round_half_away(k * weight * (score - expected))
        note = (
            f"expected {expected} (opponent {round_half_away(change.opponent_rating or 0)}); "
            f"K {k}{weight_text} × ({_score_text(score)} − {expected}) = {computed:+}"
        )
        if change.rule == "site S5":
            note += f"; stops at the floor {self.rules.floor} (S5)"
        return note

    def _result(self, game: GameRecord, white: Player, black: Player) -> Result | int:
        """S7-S9 and forfeits: the result to rate, or the reason code of a void game."""
        termination = game.termination
        if termination is Termination.FORFEIT:
            return R_FORFEIT
        if game.plies is not None and game.plies < self.rules.aborted_below_plies:
            return R_ABORTED
        bot = black if black.bot else white if white.bot else None
        if termination is Termination.BOT_NO_MOVE:
            return self._bot_no_move(game, bot)
        if bot is not None and termination in BOT_NEVER_LOSES_BY:
            bot_score = game.score(bot.id)
            if bot_score is not None and bot_score == 0:
                raise game.refuse(
                    "termination",
                    f"a bot never loses by {termination.value} (S7)",
                )
        if termination is Termination.EXPIRED:
            self._check_expired(game)
        if game.result is Result.NO_RESULT and termination in ENDINGS_WITH_A_LOSER:
            raise game.refuse(
                "result",
                f"a game that ended by {termination.value} after both sides moved has a "
                "loser (S8): give the result",
            )
        if game.result is Result.NO_RESULT:
            return R_NO_RESULT
        return game.result

    def _bot_no_move(self, game: GameRecord, bot: Player | None) -> Result | int:
        """S7 Decision: the bot's move did not arrive: void before ``bot_void_before_plies``
        plies (moves 1-9 by default), from the move after on the human's loss."""
        if bot is None:
            raise game.refuse("termination", "'bot_no_move' needs a bot in the game (S7)")
        if game.plies is None:
            raise game.refuse("plies", "is required with termination 'bot_no_move' (S7)")
        if game.plies < self.rules.bot_void_before_plies:
            return R_BOT_NO_MOVE
        human_loses = Result.WHITE_WINS if bot.id == game.white else Result.BLACK_WINS
        if game.result not in (human_loses, Result.NO_RESULT):
            raise game.refuse(
                "result",
                f"from move {self.bot_loss_move} a missing bot move is the human's loss "
                f"({human_loses.value}) (S7)",
            )
        return human_loses

    def _check_expired(self, game: GameRecord) -> None:
        """S9: only a rated game without a live clock (unclocked or correspondence, a bot
        game included) expires, as the loss of the player to move (White when an even
        number of plies was played)."""
        control = game.time_control
        if control is None or control.kind is ClockKind.CLOCKED:
            shown = "a game without a time control" if control is None else control.describe()
            raise game.refuse(
                "termination",
                f"{shown} does not expire (S9: unclocked and correspondence games only)",
            )
        if game.result is Result.DRAW or game.result is Result.NO_RESULT:
            raise game.refuse("result", "an expired game is the loss of the player to move (S9)")
        if game.plies is not None:
            white_to_move = game.plies % 2 == 0
            loser_is_white = game.result is Result.BLACK_WINS
            if white_to_move != loser_is_white:
                raise game.refuse(
                    "result",
                    f"after {game.plies} plies {'White' if white_to_move else 'Black'} was to "
                    "move and loses an expired game (S9)",
                )

    @property
    def bot_loss_move(self) -> int:
        """S7 Decision: the first move at which a bot's missing move is the human's loss
        (10, after ``bot_void_before_plies`` = 18 plies)."""
        return move_of_ply(self.rules.bot_void_before_plies + 1)

    def k_factor(self, state: SiteState) -> int:
        """S4: 32 while the rating has fewer than 30 rated games, then 20."""
        return self.rules.k_new if state.games < self.rules.k_new_games else self.rules.k

    def _rate_humans_or_bot(
        self,
        game: GameRecord,
        kind: GameType,
        result: Result,
        white: Player,
        black: Player,
        states: StateLookup[SiteState],
    ) -> GameRating[SiteState]:
        """S1/S3: the type rating (w = 1) and the site Elo (w = the type's weight) move
        together; S7: against a bot only the human's, with the bot's fixed rating."""
        weight = self.rules.weights[kind]
        changes: list[Change] = []
        new_states: dict[PoolKey, SiteState] = {}
        for pool, w in ((kind.value, Decimal(1)), (SITE, weight)):
            sides = ((white, black), (black, white))
            for own, other in sides:
                if own.bot:
                    continue
                own_state = states(own.id, pool)
                if other.bot:
                    assert other.bot_rating is not None
                    opponent_rating = other.bot_rating
                else:
                    opponent_rating = states(other.id, pool).rating
                score = result.score(white=own.id == game.white)
                assert score is not None
                change, state = self._move(
                    game, pool, w, own.id, own_state, other.id, opponent_rating, score, kind
                )
                changes.append(explained(change, self.note))
                new_states[(own.id, pool)] = state
        code = R_RATED + tuple(GameType).index(kind)
        return decided(self.reason, game, Outcome.RATED, code, tuple(changes), new_states)

    def _move(
        self,
        game: GameRecord,
        pool: str,
        weight: Decimal,
        player_id: str,
        own: SiteState,
        opponent: str,
        opponent_rating: Decimal,
        score: Decimal,
        kind: GameType,
    ) -> tuple[Change, SiteState]:
        """S3: change = K x w x (score - expected), rounded; S5: never below 100."""
        expected = expected_score(own.rating, opponent_rating)
        k = self.k_factor(own)
        change = round_half_away(k * weight * (score - expected))
        after = own.rating + change
        rule = "site S3"
        if after < self.rules.floor:
            after = self.rules.floor
            rule = "site S5"
        return (
            Change(
                game_id=game.id,
                player=player_id,
                pool=pool,
                rule=rule,
                opponent=opponent,
                score=score,
                before=own.rating,
                after=after,
                state_before="rated",
                state_after="rated",
                games_before=own.games,
                games_after=own.games + 1,
                opponent_rating=opponent_rating,
                k=k,
                d=opponent_rating - own.rating,
                pd=expected,
                delta=score - expected,
                change=after - own.rating,
                code=tuple(GameType).index(kind) if pool == SITE else None,
            ),
            SiteState(after, own.games + 1),
        )

    # -- S10 -------------------------------------------------------------------------

    def annul(
        self, rating: GameRating[SiteState], states: StateLookup[SiteState]
    ) -> tuple[tuple[Change, ...], dict[PoolKey, SiteState]]:
        """S10: reverse the game's changes to every rating it touched and take the game
        out of the games counts (no rating goes below the floor, S5)."""
        changes = []
        new_states: dict[PoolKey, SiteState] = {}
        for original in rating.changes:
            assert original.change is not None
            key = (original.player, original.pool)
            current = new_states.get(key) or states(*key)
            after = max(self.rules.floor, current.rating - original.change)
            state = SiteState(after, max(0, current.games - 1))
            new_states[key] = state
            changes.append(
                explained(
                    Change(
                        game_id=original.game_id,
                        player=original.player,
                        pool=original.pool,
                        rule="site S10",
                        opponent=original.opponent,
                        score=original.score,
                        before=current.rating,
                        after=after,
                        state_before="rated",
                        state_after="rated",
                        games_before=current.games,
                        games_after=state.games,
                        change=after - current.rating,
                        basis=original.change,
                    ),
                    self.note,
                )
            )
        return tuple(changes), new_states

    # -- lists ---------------------------------------------------------------------

    def standing(self, state: str, games: int, player: Player | None = None) -> str:
        """S6: provisional under ``provisional_games`` rated games; S7: a bot's fixed
        rating, never listed."""
        if player is not None and player.bot:
            rating = "" if player.bot_rating is None else f" {display(player.bot_rating)}"
            return f"bot — fixed rating{rating}, not listed"
        needed = self.rules.provisional_games
        if games < needed:
            return f"provisional, {games} of {needed} games"
        return f"established, {games} games"

    def list_entry(self, player: Player, pool: str, state: SiteState) -> ListEntry | None:
        """A human with games (or an imported rating) in the pool; S6's ``1500?`` under
        10 games. Bots are not listed (S7)."""
        if player.bot or (state.games == 0 and pool not in player.imported):
            return None
        return ListEntry(
            player.id, pool, state.rating, display_site(state, self.rules), "rated", state.games
        )

    def established(self, pool: str, active_days: int | None) -> Established:
        """Leaderboards: a rating past S6's provisional games (no ``?``) whose player
        played a rated game in the pool within ``active_days`` of the ledger's date
        (bots are never listed, S7)."""
        return Established(
            min_games=self.rules.provisional_games, games_rule="S6", active_days=active_days
        )


class SiteCodec:
    """A ``SiteState`` as a ledger stores it."""

    def dump(self, state: SiteState) -> dict[str, Any]:
        return {"rating": exact_text(state.rating), "games": state.games}

    def load(self, data: dict[str, Any]) -> SiteState:
        return SiteState(Decimal(data["rating"]), int(data["games"]))


def move_of_ply(ply: int) -> int:
    """The move a ply belongs to (plies 1 and 2 are move 1)."""
    return (ply + 1) // 2


def display_site(state: SiteState, rules: SiteRules | None = None) -> str:
    """S6: the rating rounded to an integer, ``1500?`` while it has fewer than 10 rated
    games."""
    return f"{display(state.rating)}{site_mark(state.games, rules)}"


def site_mark(games: int, rules: SiteRules | None = None) -> str:
    """S6: what follows the displayed rating: ``?`` under 10 rated games, else nothing."""
    return "?" if games < (rules or SiteRules()).provisional_games else ""


def _score_text(score: Decimal) -> str:
    return "1" if score == ONE else "½" if score == HALF else "0"
