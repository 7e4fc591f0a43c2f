"""``site`` pairing: which open seeks make a game, and who takes White.

Pure like the rating systems: no clock, no database. The ledger (``ledger/seeks.py``)
gives each open seek with its player's **site Elo** (the ``site`` pool's current
rating; a player without one counts as the system's start, 1500) and asks
:func:`choose_pairs`; it asks :func:`colours` for the colours of each pair and
:func:`closest_bot` for "play a bot".

The rules (the spec is silent; README "Pairing" restates them):

* Two seeks pair when they are of two different players, of the same time control
  (compared parsed: ``3m+2s`` and ``180+2`` are one control) and the same rated flag,
  each player's site Elo is inside the other seek's absolute range (when given), and
  the difference of their site Elos is within BOTH seeks' current windows.
* A seek's window widens while it waits: ``start + step x floor(wait / every)``, at
  most ``most``. The defaults, 100 + 50 every 10 s up to 500: at 100 apart the
  stronger player is expected to score 64 % (site S3), a fair game; nobody waits
  more than 80 s for anyone within 500 (a 95 % favourite), past which a game is
  hardly worth playing. Steps of 10 s let a busy pool pair closely before widening.
* Closest first: of every compatible pair, the one with the smallest difference is
  made first, then the next among the seeks and players left (ties: the pair whose
  older seek waited longest, then the lower seek ids). A player is in at most one new
  game per pass, and a player already in an open live game is not paired (their seeks
  wait).
* A seek expires ``expiry`` seconds after it was made (default 10 min: longer than any
  window takes to open fully, so every seek gets its widest chance; short enough that
  the pool shows people who are still at their screen).
* Colours balance each player's recent colours: over their last ``colour_games``
  games (live games included) count whites minus blacks; the player with more whites
  gets Black. A tie goes by the seeks: the older seek (lower id) gets White, which is
  deterministic (tests) and rewards the one who waited.
* "Play a bot": the bot whose fixed rating is closest to the player's site Elo, inside
  the seek's range when given (ties: the lower id).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from ..timecontrol import TimeControl
from .site_live import Side


@dataclass(frozen=True, slots=True)
class PairingRules:
    """The pairing's numbers (seconds and rating points); see the module's docstring."""

    start: int = 100  # the acceptable difference of a new seek
    step: int = 50  # widened by this much ...
    every: int = 10  # ... every this many seconds of waiting
    most: int = 500  # up to this
    expiry: int = 10 * 60  # a seek's life
    colour_games: int = 10  # the recent games whose colours are balanced

    def __post_init__(self) -> None:
        if self.every < 1 or min(self.start, self.step, self.most, self.expiry) < 0:
            raise ValueError("pairing rules: every >= 1 s, the other numbers >= 0")
        if self.colour_games < 1:
            raise ValueError("pairing rules: colour_games >= 1")


@dataclass(frozen=True, slots=True)
class Seek:
    """An open seek as the pass sees it: its player's site Elo and, optionally, the
    absolute range of site Elo the seeker accepts."""

    id: int
    player: str
    control: TimeControl
    rated: bool
    created_at: datetime
    rating: Decimal
    min_rating: int | None = None
    max_rating: int | None = None

    def accepts(self, rating: Decimal) -> bool:
        """The rating is inside this seek's absolute range (when it has one)."""
        if self.min_rating is not None and rating < self.min_rating:
            return False
        return self.max_rating is None or rating <= self.max_rating


def wait_seconds(seek: Seek, now: datetime) -> int:
    """Whole seconds the seek has waited (0 for a clock that went back)."""
    return max(0, int((now - seek.created_at).total_seconds()))


def window(waited: int, rules: PairingRules) -> int:
    """The acceptable difference after ``waited`` seconds: start + step x floor(waited /
    every), at most ``most``."""
    return min(rules.most, rules.start + rules.step * (max(0, waited) // rules.every))


def seek_window(seek: Seek, now: datetime, rules: PairingRules) -> int:
    return window(wait_seconds(seek, now), rules)


def compatible(a: Seek, b: Seek, now: datetime, rules: PairingRules) -> bool:
    """The two seeks make a game now: two players, one control and rated flag, each
    inside the other's range, their difference within both windows."""
    if a.player == b.player:
        return False  # no self-pairing
    if a.control != b.control or a.rated != b.rated:
        return False
    if not (a.accepts(b.rating) and b.accepts(a.rating)):
        return False
    difference = abs(a.rating - b.rating)
    return difference <= seek_window(a, now, rules) and difference <= seek_window(b, now, rules)


def choose_pairs(
    seeks: Iterable[Seek],
    now: datetime,
    rules: PairingRules,
    busy: Iterable[str] = (),
) -> list[tuple[Seek, Seek]]:
    """The pairs to make now, closest first; each pair's older seek first. ``busy``:
    players in an open live game, whose seeks wait."""
    idle = set(busy)
    waiting = sorted((s for s in seeks if s.player not in idle), key=lambda s: s.id)
    candidates = []
    for i, a in enumerate(waiting):
        for b in waiting[i + 1 :]:
            if compatible(a, b, now, rules):
                older = a if (a.created_at, a.id) <= (b.created_at, b.id) else b
                newer = b if older is a else a
                key = (abs(a.rating - b.rating), older.created_at, older.id, newer.id)
                candidates.append((key, older, newer))
    candidates.sort(key=lambda c: c[0])
    taken: set[str] = set()
    pairs = []
    for _, older, newer in candidates:
        if older.player in taken or newer.player in taken:
            continue
        taken.update((older.player, newer.player))
        pairs.append((older, newer))
    return pairs


def colour_balance(colours: Iterable[Side]) -> int:
    """Whites minus blacks."""
    return sum(1 if side is Side.WHITE else -1 for side in colours)


def colours(first: str, first_balance: int, second: str, second_balance: int) -> tuple[str, str]:
    """(White, Black): the player with more whites (a higher balance) gets Black; on a
    tie ``first`` (the older seek's player) gets White."""
    if second_balance < first_balance:
        return second, first
    return first, second


def closest_bot(
    rating: Decimal,
    bots: Sequence[tuple[str, Decimal]],
    min_rating: int | None = None,
    max_rating: int | None = None,
) -> str | None:
    """The bot (id, fixed rating) closest to ``rating`` inside the range when given
    (ties: the lower id); None when no bot fits."""
    fitting = [
        (abs(bot_rating - rating), bot_id)
        for bot_id, bot_rating in bots
        if (min_rating is None or bot_rating >= min_rating)
        and (max_rating is None or bot_rating <= max_rating)
    ]
    return min(fitting)[1] if fitting else None
