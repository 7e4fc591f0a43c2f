"""What every rating system provides, and the explanation of a rating change.

A system is pure: given the game, the players' attributes and their states
before the game, it returns the outcome, the new states and an explanation of
every change. No I/O, no clock, no database: the pure core the ledger, the
service and the command line are a shell around.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from decimal import Decimal
from typing import Any, Generic, Protocol, TypeVar

from ..errors import InvalidRecord
from ..numbers import format_rating
from ..records import GameRecord, Outcome, Player

PoolKey = tuple[str, str]
"""(player id, pool name)."""

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class Change:
    """One player's change in one pool from one game, with the numbers that explain it.

    ``rule`` cites the spec (``arena A7``). ``d``, ``pd``, ``delta`` (score - PD) and
    ``k`` are set when a rating moved by a formula; ``note`` says it in words.
    """

    game_id: str
    player: str
    pool: str
    rule: str
    opponent: str
    score: Decimal
    before: Decimal | None
    after: Decimal | None
    state_before: str
    state_after: str
    games_before: int
    games_after: int
    opponent_rating: Decimal | None = None
    k: int | None = None
    d: Decimal | None = None
    pd: Decimal | None = None
    delta: Decimal | None = None
    change: Decimal | None = None
    note: str = ""
    basis: Decimal | None = None
    """A number the rule started from that is neither player's rating (arena A6: Ra, the
    opponents' average; corr C2: the sum of the performances; site S10: the change
    being reversed)."""
    code: int | None = None
    """A small whole number the note needs (arena A6: the qualifying points in half
    points; corr C5/C6: the opponent's state; site S3/S5 in the site Elo: the game
    type's pool)."""

    def as_row(self) -> dict[str, str]:
        """The change as a flat row of text (history files)."""

        def text(value: Decimal | int | None) -> str:
            if value is None:
                return ""
            return str(value)

        return {
            "game": self.game_id,
            "player": self.player,
            "pool": self.pool,
            "rule": self.rule,
            "opponent": self.opponent,
            "opponent_rating": format_rating(self.opponent_rating) or "",
            "score": text(self.score),
            "k": text(self.k),
            "d": text(self.d),
            "pd": text(self.pd),
            "delta": text(self.delta),
            "change": format_rating(self.change) or "",
            "before": format_rating(self.before) or "",
            "after": format_rating(self.after) or "",
            "state_before": self.state_before,
            "state_after": self.state_after,
            "games_before": text(self.games_before),
            "games_after": text(self.games_after),
            "note": self.note,
        }


HISTORY_COLUMNS = tuple(Change("", "", "", "", "", Decimal(0), None, None, "", "", 0, 0).as_row())


@dataclass(frozen=True, slots=True)
class GameRating(Generic[S]):
    """A system's decision for one game: outcome, reason, new states, changes."""

    game: GameRecord
    outcome: Outcome
    reason: str
    changes: tuple[Change, ...] = ()
    states: Mapping[PoolKey, S] = field(default_factory=dict)
    reason_code: int = 0
    """Which of the system's reasons ``reason`` says (``system.reason(game, code,
    changes)`` writes it again: the ledger stores the code)."""


@dataclass(frozen=True, slots=True)
class ListEntry:
    """One row of a rating list (the rating list's columns: player, pool, rating, display,
    state, games)."""

    player: str
    pool: str
    rating: Decimal | None
    display: str
    state: str
    games: int

    def as_mapping(self) -> dict[str, object]:
        return {
            "player": self.player,
            "pool": self.pool,
            "rating": format_rating(self.rating),
            "display": self.display,
            "state": self.state,
            "games": self.games,
        }


@dataclass(frozen=True, slots=True)
class Established:
    """Who a pool's default rating list shows (the leaderboards' "established players"):
    a system's rule as data, built by its ``established`` from its ``Rules`` numbers,
    so that the ledger can ask its database (paging and counting there) and a person
    can read it.

    A listed row is established when its state is one of ``states`` (any when empty),
    it has at least ``min_games`` games, its last rated game in the pool was played on
    or after :meth:`since` (``active_days`` before the ledger's date; no condition
    when None), and, with ``membership``, the player's membership is valid on the
    ledger's date. The ledger's date is the day (UTC) of its most recently recorded
    game. Each condition names the rule it rests on (``*_rule``: a rule id such as
    ``S6``)."""

    states: tuple[str, ...] = ()
    state_rule: str = ""
    min_games: int = 0
    games_rule: str = ""
    active_days: int | None = None
    membership: bool = False
    membership_rule: str = ""

    def since(self, day: date | None) -> date | None:
        """The first day a last rated game keeps a player active (None: no activity
        condition, or a ledger without games)."""
        if self.active_days is None or day is None:
            return None
        return day - timedelta(days=self.active_days)

    def inactive(self, state: str, games: int, last_played: date | None, day: date | None) -> bool:
        """Whether an otherwise established row (state and games) is not active on
        ``day``: no rated game in the pool since :meth:`since` (never, for a rating no
        game has moved)."""
        if self.active_days is None or day is None:
            return False
        if (self.states and state not in self.states) or games < self.min_games:
            return False
        since = self.since(day)
        return since is not None and (last_played is None or last_played < since)

    def inactive_from(self, last_played: date | None) -> date | None:
        """The first day a row whose last rated game was ``last_played`` is inactive
        (that day + ``active_days`` + 1); None without a game or a condition."""
        if self.active_days is None or last_played is None:
            return None
        return last_played + timedelta(days=self.active_days + 1)

    def describe(self, day: date | None) -> str:
        """Who the list shows, in words (``day``: the ledger's date)."""
        parts = []
        if self.states:
            parts.append(f"{' or '.join(self.states)} ({self.state_rule})")
        if self.min_games:
            parts.append(
                f"with at least {self.min_games} rated games in the pool ({self.games_rule})"
            )
        if self.active_days is not None:
            since = self.since(day)
            if since is None:
                parts.append("active (no game recorded yet)")
            else:
                parts.append(f"active: a rated game in the pool since {since.isoformat()}")
        if self.membership:
            on = f"on {day.isoformat()}" if day else "(no game recorded yet)"
            parts.append(f"with a membership valid {on} ({self.membership_rule})")
        return "Players " + ", ".join(parts) if parts else "Every listed player"

    def why_not(
        self,
        state: str,
        games: int,
        last_played: date | None,
        membership_until: date | None,
        day: date | None,
    ) -> str | None:
        """Why a listed row is not established (None when it is): the first condition
        it fails, in words."""
        if self.states and state not in self.states:
            return f"{state}, not {' or '.join(self.states)} ({self.state_rule})"
        if games < self.min_games:
            return f"{games} rated games, fewer than {self.min_games} ({self.games_rule})"
        since = self.since(day)
        if self.active_days is not None and (
            since is None or last_played is None or last_played < since
        ):
            last = last_played.isoformat() if last_played else "none in the ledger"
            gone = self.inactive_from(last_played)
            when = f" (inactive since {gone.isoformat()})" if gone else ""
            return (
                f"not active{when}: last rated game in the pool {last}, none since "
                f"{since.isoformat() if since else '-'} (the last {self.active_days} days)"
            )
        if self.membership and not (
            membership_until is not None and (day is None or day <= membership_until)
        ):
            why = f"ended on {membership_until}" if membership_until else "none"
            return f"no membership valid on {day} ({why}; {self.membership_rule})"
        return None


CHANGE_COLUMNS: tuple[str, ...] = (
    "slot", "player", "pool", "rule", "opponent", "score", "before", "after",
    "state_before", "state_after", "games_before", "games_after", "opponent_rating",
    "k", "d", "pd", "basis", "code",
)  # fmt: skip
"""A change as numbers (the ledger's ``changes`` columns besides its event, and the
compiled replay's emitted columns): ``slot`` is its place among its game's changes;
the words, ``delta`` and ``change`` are derived from the others."""


def decided(
    reason: Callable[[GameRecord, int, tuple[Change, ...]], str],
    game: GameRecord,
    outcome: Outcome,
    code: int,
    changes: tuple[Change, ...] = (),
    states: Mapping[PoolKey, S] | None = None,
) -> GameRating[S]:
    """A system's decision on a game: its reason code, and the words the system's
    ``reason`` writes from it (the ledger stores the code and writes them again)."""
    return GameRating(game, outcome, reason(game, code, changes), changes, states or {}, code)


def explained(change: Change, note: Callable[[Change], str]) -> Change:
    """The change with its note written by the system's ``note`` from its numbers."""
    return replace(change, note=note(change))


PlayerLookup = Callable[[str], Player]
StateLookup = Callable[[str, str], S]


class Rules:
    """A system's rule numbers: each system's ``Rules`` (``ArenaRules``, ``SiteRules``, ...)
    is a frozen dataclass of this kind whose defaults are the spec's. The reference
    functions and the compiled kernels both read a rule's number from here and nowhere
    else, so a ``Rules`` with other values changes both engines."""

    __slots__ = ()


class StateCodec(Protocol[S]):
    """A system's states to and from the JSON a ledger stores (its ``ratings.state``):
    Decimals travel as strings with their exact digits; nothing rounds."""

    def dump(self, state: S) -> dict[str, Any]:
        """The state as JSON-ready data."""

    def load(self, data: dict[str, Any]) -> S:
        """The state :meth:`dump` gave."""


class RatingSystem(Protocol[S]):
    """The interface the engine (and later the ledger) drives."""

    id: str
    pools: tuple[str, ...]

    @property
    def rules(self) -> Rules:
        """The numbers this system rates by."""

    rules_cited: tuple[str, ...]
    """Every rule a change can cite (``Change.rule``), in a fixed order."""
    states: tuple[str, ...]
    """Every state a change can name (``Change.state_before``/``state_after``)."""

    def check_player(self, player: Player) -> None:
        """Refuse attributes this system cannot use (e.g. an imported rating for an
        unknown pool) with an :class:`~chessrate.errors.InvalidRecord`."""

    def initial_state(self, player: Player, pool: str) -> S:
        """A player's state in ``pool`` before any game (imported ratings applied)."""

    def rate(
        self, game: GameRecord, players: PlayerLookup, states: StateLookup[S]
    ) -> GameRating[S]:
        """Decide one game. Raises :class:`~chessrate.errors.InvalidRecord` to refuse it."""

    def list_entry(self, player: Player, pool: str, state: S) -> ListEntry | None:
        """The player's rating-list row in ``pool``, or None when not listed."""

    def established(self, pool: str, active_days: int | None) -> Established:
        """Who the pool's default list shows (leaderboards): a condition on a listed
        row built from the system's ``Rules``; ``active_days``, where the system asks
        for recent play, is how recent (None: no activity condition)."""

    def note(self, change: Change) -> str:
        """A change in words, from its numbers alone (``Change.note``)."""

    def standing(self, state: str, games: int, player: Player | None = None) -> str:
        """A player's state in a pool in words for people, from the state's name and
        the games that count for it (``RatingView.state``/``games``), with the numbers
        of the system's rules ("provisional, 7 of 10 games"); ``player`` when known (a
        bot's fixed rating). The player page and the leaderboards say it so."""

    def state_after(self, change: Change, before: S) -> S:
        """The state ``change`` leaves its player in, from its numbers and the state
        ``before`` it (a stored ledger's current ratings are rebuilt so)."""

    def reason(self, game: GameRecord, code: int, changes: tuple[Change, ...] = ()) -> str:
        """A decision in words, from its reason code, the game and its changes
        (``GameRating.reason``)."""

    def annul(
        self, rating: GameRating[S], states: StateLookup[S]
    ) -> tuple[tuple[Change, ...], dict[PoolKey, S]]:
        """Reverse a rated game's changes (site S10): the reversing changes and the new
        states. Systems without annulment refuse with an InvalidRecord."""


def no_annulment(system_id: str, rating: GameRating[Any]) -> InvalidRecord:
    """The refusal of a system whose regulation has no annulment."""
    return InvalidRecord(
        f"game {rating.game.id}",
        "id",
        f"the {system_id} regulation has no fair-play annulment (that is site S10)",
    )
