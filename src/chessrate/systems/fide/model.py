"""What a period's calculation takes (the starting list, the events, the pending
results) and what it gives (every player's report, the period's result)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from ...numbers import HALF
from .rules import FideRules


@dataclass(frozen=True, slots=True)
class PendingGame:
    """A result against a rated opponent that counts towards a first rating but has not
    produced one yet (2024 7.1.4): it travels with the list to the next period.

    ``period`` is the date of the list whose period the game was rated in (FIDE's
    ``rating_period``, e.g. 2024-04-01 for games rated on the April 2024 list); None
    when the period was rated without a date (such a game never expires). As text
    (:meth:`to_text`): ``2024-04-01:1950:0.5``; several joined by spaces
    (:func:`format_pending`, :func:`parse_pending`)."""

    period: date | None
    opponent_rating: int
    score: Decimal

    def to_text(self) -> str:
        when = "" if self.period is None else self.period.isoformat()
        return f"{when}:{self.opponent_rating}:{self.score.normalize():f}"

    @classmethod
    def from_text(cls, text: str) -> PendingGame:
        """The inverse of :meth:`to_text`; ValueError says what is wrong."""
        parts = text.strip().split(":")
        if len(parts) != 3:
            raise ValueError(f"{text!r} is not PERIOD:RATING:SCORE (e.g. 2024-04-01:1950:0.5)")
        when, rating, score = parts
        period = date.fromisoformat(when) if when else None
        value = Decimal(score)
        if value not in (Decimal(0), HALF, Decimal(1)):
            raise ValueError(f"{text!r}: the score must be 1, 0.5 or 0")
        return cls(period, int(rating), value)


def format_pending(games: Iterable[PendingGame]) -> str:
    """Pending results as one text field: :meth:`PendingGame.to_text` joined by spaces."""
    return " ".join(game.to_text() for game in games)


def parse_pending(text: str) -> tuple[PendingGame, ...]:
    """The inverse of :func:`format_pending` (empty text: no pending results)."""
    return tuple(PendingGame.from_text(part) for part in text.split())


@dataclass(frozen=True, slots=True)
class ListedPlayer:
    """A player of the starting list (or taken from a tournament file)."""

    id: str
    name: str
    rating: int | None
    games: int  # rated games so far (cumulative)
    reached_2400: bool  # the published rating has ever reached top_rating
    source: str = ""
    birth_year: int | None = None  # 2024 8.3.3: K 40 for juniors; None: not a junior
    pending: tuple[PendingGame, ...] = ()  # 2024 7.1.4: results towards a first rating
    met_rated: bool = False  # has played a tournament against rated opponents (8.21)
    k: int | None = None  # the K published with the list (information: recomputed)
    standard_rating: int | None = None  # R&B 7.2.1: unrated here, rated on the standard list
    sex: str = ""  # "m", "w" or "" (the list's Flag shows w for women)
    federation: str = ""
    title: str = ""
    last_played: date | None = None  # 7.2.2: the list date of his last rated games


@dataclass(frozen=True, slots=True)
class EventGame:
    """One rated game (result 1, = or 0) of a player in an event."""

    round: int
    opponent: str
    score: Decimal


@dataclass(frozen=True, slots=True)
class EventEntry:
    """A player in an event: his key (FIDE id, else name), the rating the event's file
    gives him (None: unrated there), and his rated games."""

    player: str
    name: str
    event_rating: int | None
    games: tuple[EventGame, ...]
    birth_year: int | None = None  # as the event's file gives it (None: not given)
    sex: str = ""
    federation: str = ""
    title: str = ""


@dataclass(frozen=True, slots=True)
class Event:
    """One tournament of the period."""

    name: str
    source: str
    round_robin: bool
    entries: tuple[EventEntry, ...]
    minutes: Decimal | None = None  # the rate of play: minutes for 60 moves (None: unknown)
    match: bool = False  # a match (6.1, 6.2): a TRF file of two players is one
    rounds: int = 0  # the games scheduled (a match: 6.2); 0: the most any player has
    waived: bool = False  # 6.2 waived by prior request: a decided match is rated on
    by_player: Mapping[str, EventEntry] = field(init=False, repr=False, compare=False)
    """The entries by player (made from ``entries``: a period of thousands of players
    looks each one up in one step)."""

    def __post_init__(self) -> None:
        index: dict[str, EventEntry] = {}
        for entry in self.entries:
            index.setdefault(entry.player, entry)  # the first, as a scan would find
        object.__setattr__(self, "by_player", index)

    def entry(self, player: str) -> EventEntry:
        return self.by_player[player]


# -- the report ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameLine:
    """One game in a rated player's calculation (F2)."""

    event: str
    round: int
    opponent: str
    score: Decimal
    opponent_rating: int | None
    d: int | None = None  # own - opponent, capped at +-400 (8.54)
    pd: Decimal | None = None
    delta: Decimal | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class FirstRatingCalc:
    """An unrated player's calculation in one event (F4, F8)."""

    event: str
    round_robin: bool
    games: int  # counted games (p's denominator)
    points: Decimal
    points_vs_rated: Decimal
    rc: int | None = None
    p: Decimal | None = None
    dp: Decimal | None = None  # dp or dp x n/(n+1)
    bonus: Decimal | None = None
    ru: int | None = None
    steps: tuple[str, ...] = ()
    discarded: str = ""
    lines: tuple[GameLine, ...] = ()
    """Each of his games in the event: against a rated opponent with the rating it
    counts at (``opponent_rating``), else without one and the reason in ``note``."""


@dataclass(frozen=True, slots=True)
class PooledRating:
    """fide-2024 (7.1.4, 8.2): an unrated player's first rating from all his pooled
    results against rated opponents (earlier periods' pending ones and this period's),
    with two hypothetical draws against 1800s."""

    games: int  # real games against rated opponents in the pool
    points: Decimal
    earlier: int  # of which pending from earlier periods
    hypothetical: int  # hypothetical opponents added (8.2.2)
    ra: Decimal  # exact average: (sum of ratings + 2 x 1800) / (games + 2)
    p: Decimal  # (points + 1) / (games + 2), to two decimals
    dp: int
    ru: int  # Ra + dp rounded, at most first_rating_max (8.2.3)
    published: bool
    steps: tuple[str, ...] = ()
    earlier_games: tuple[PendingGame, ...] = ()
    """The pending results from earlier periods in the pool (this period's games are
    the events' :attr:`FirstRatingCalc.lines` with a rating)."""
    hypothetical_rating: int | None = None  # the rating of each hypothetical opponent


@dataclass(frozen=True, slots=True)
class PlayerReport:
    """A player's whole calculation for the period, and what goes on the next list
    (:meth:`FideSystem.next_list`)."""

    player: str
    name: str
    old_rating: int | None
    new_rating: int | None
    old_games: int
    new_games: int
    k: int | None = None
    games: tuple[GameLine, ...] = ()
    sum_delta: Decimal | None = None
    expected: Decimal | None = None
    change: Decimal | None = None
    first_rating: tuple[FirstRatingCalc, ...] = ()
    combined: str = ""
    notes: tuple[str, ...] = ()
    # -- carried to the next list -------------------------------------------------------
    birth_year: int | None = None
    reached_2400: bool = False  # on the next list: before, or new_rating >= top_rating
    met_rated: bool = False  # on the next list: he has met rated opponents (8.21, 8.2.1)
    pending: tuple[PendingGame, ...] = ()  # on the next list (fide-2024, still unrated)
    next_k: int | None = None  # K published with the next list (rated players)
    pool: PooledRating | None = None  # fide-2024 first rating calculation
    sex: str = ""
    federation: str = ""
    title: str = ""
    last_played: date | None = None  # on the next list: the date of his last rated games
    flag: str = ""  # on the next list: i (inactive, 7.2.2), w (woman), wi
    standard_rating: int | None = None  # R&B 7.2.1: the standard rating he was rated with

    @property
    def state(self) -> str:
        return "rated" if self.new_rating is not None else "unrated"


@dataclass(frozen=True, slots=True)
class PeriodResult:
    """Every player's report, in the order of the new list (by new rating, the
    players without a rating last); ``period`` is the date of the new list."""

    reports: tuple[PlayerReport, ...]
    rules: FideRules = field(default_factory=FideRules)
    period: date | None = None

    def report(self, player: str) -> PlayerReport:
        for report in self.reports:
            if report.player == player:
                return report
        raise KeyError(player)
