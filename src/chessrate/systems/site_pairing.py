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
* The most pairs, then the closest: each pass pairs by a maximum-weight matching
  over the compatible pairs (as Lichess's pools do), not greedily. Closest-first
  greedy pairing leaves seeks behind: at site Elo 1450, 1500, 1549 and 1599 it pairs
  1500-1549 and leaves 1450 and 1599, who later play 149 apart; the matching pairs
  1450-1500 and 1549-1599. It makes as many games as the windows allow, then, of
  those choices, the one with the smallest total difference of site Elo (in
  hundredths: exact integers). Ties go to the seeks that have waited longest: of
  two equally good choices, the one that pairs the oldest seek, then the next
  oldest, ... (then the lower seek ids); a choice still tied (the same seeks paired,
  other partners) is the algorithm's, the same for the same seeks. A player is in at
  most one new game per pass (the matching is over players; of a player's compatible
  seeks with one opponent, the pair of the longest-waiting seeks is taken), and a
  player already in an open live
  game is not paired (their seeks wait).
* A marked player (a moderator confirmed their cheating) is paired only with
  another marked player, never with an unmarked one.
* A seek expires ``expiry`` seconds after it was made (default 10 min: longer than any
  window takes to open fully, so every seek gets its widest chance; short enough that
  the pool shows people who are still at their screen); a correspondence seek after
  ``correspondence_expiry`` (default 7 days: a correspondence player comes back once
  a day or so, not within minutes).
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
from typing import TYPE_CHECKING

from ..numbers import to_hundredths
from ..timecontrol import ClockKind, TimeControl
from .site_live import Side

if TYPE_CHECKING:
    import networkx as nx


@dataclass(frozen=True, slots=True)
class PairingRules:
    """The pairing's numbers (seconds and rating points); see the module's docstring."""

    start: int = 100  # the acceptable difference of a new seek
    step: int = 50  # widened by this much ...
    every: int = 10  # ... every this many seconds of waiting
    most: int = 500  # up to this
    expiry: int = 10 * 60  # a seek's life
    correspondence_expiry: int = 7 * 24 * 3600  # a correspondence seek's life
    colour_games: int = 10  # the recent games whose colours are balanced
    neighbours: int = 8  # a seek's candidates in the matching: its nearest by site Elo
    pass_seeks: int = 200  # the longest-waiting seeks one pass matches; the rest wait
    retention: int = 30 * 24 * 3600  # a closed seek is deleted this long after expiry (0: kept)

    def __post_init__(self) -> None:
        numbers = (self.start, self.step, self.most, self.expiry, self.correspondence_expiry,
                   self.retention)  # fmt: skip
        if self.every < 1 or min(numbers) < 0:
            raise ValueError("pairing rules: every >= 1 s, the other numbers >= 0")
        if self.colour_games < 1:
            raise ValueError("pairing rules: colour_games >= 1")

    def seek_life(self, control: TimeControl) -> int:
        """Seconds a seek for ``control`` stays open: ``correspondence_expiry`` for days
        per move, else ``expiry``."""
        if control.kind is ClockKind.CORRESPONDENCE:
            return self.correspondence_expiry
        return self.expiry


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
    marked: bool = False  # the player is marked (confirmed cheating)

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
    if a.marked != b.marked:
        return False  # marked players are paired only with each other
    if a.control != b.control or a.rated != b.rated:
        return False
    if not (a.accepts(b.rating) and b.accepts(a.rating)):
        return False
    difference = abs(a.rating - b.rating)
    return difference <= seek_window(a, now, rules) and difference <= seek_window(b, now, rules)


_Candidate = tuple[tuple[Decimal, datetime, int, datetime, int], Seek, Seek]
"""A compatible pair: its place in the closest-first order, its older seek, its newer."""


def _order(a: Seek, b: Seek) -> _Candidate:
    """A compatible pair's place in the closest-first order (the difference, then the
    older seek by waiting order, then the newer one), its older seek and its newer."""
    older = a if (a.created_at, a.id) <= (b.created_at, b.id) else b
    newer = b if older is a else a
    key = (abs(a.rating - b.rating), older.created_at, older.id, newer.created_at, newer.id)
    return key, older, newer


def choose_pairs(
    seeks: Iterable[Seek],
    now: datetime,
    rules: PairingRules,
    busy: Iterable[str] = (),
) -> list[tuple[Seek, Seek]]:
    """The pairs to make now: a maximum-weight matching of the players whose seeks are
    compatible, with the most pairs, then the smallest total difference, then the
    longest-waiting seeks (the module's docstring). Listed closest first, each pair's
    older seek first. ``busy``: players in an open real-time live game, whose
    real-time seeks wait; their correspondence seeks are paired (a correspondence game
    is played over days, beside any other game).

    The matching runs in cubic time, so it is bounded: a pass takes the
    ``rules.pass_seeks`` longest-waiting seeks (the rest wait for the next pass), and
    a seek's candidates are its ``rules.neighbours`` nearest compatible seeks by site
    Elo (a pairing that skips a nearer seek for a farther one is almost never
    chosen; with fewer candidates than that, all of them). Each group of players
    linked by those candidates is matched on its own, by
    networkx's blossom algorithm, with exact integer weights (networkx then computes
    with integers only and checks the optimum): a pair's weight is ``(most + 1 -
    difference) x 2^n + 2^(n - 1 - rank(older)) + 2^(n - 1 - rank(newer))``, the
    difference in hundredths, ``n`` the group's seeks and ``rank`` a seek's place in
    waiting order (oldest 0). Among matchings of the most pairs, the first term makes
    the smallest total difference the heaviest (the second terms of a matching add up
    to less than ``2^n``); among those, the second terms make the one that pairs the
    oldest seek, then the next oldest, .... A choice still tied (the same seeks,
    other partners) is the algorithm's own, the same for the same seeks: it is given
    the players and the pairs in a fixed order."""
    import networkx as nx  # here: a few tenths of a second, for the pass only

    playing = set(busy)
    free = [s for s in seeks if s.player not in playing or s.control.correspondence]
    waiting = sorted(free, key=lambda s: s.id)
    waiting = sorted(waiting, key=lambda s: (s.created_at, s.id))[: rules.pass_seeks]
    waiting.sort(key=lambda s: s.id)
    near: dict[int, list[tuple[Decimal, int, int]]] = {s.id: [] for s in waiting}
    for i, a in enumerate(waiting):
        for j in range(i + 1, len(waiting)):
            b = waiting[j]
            if compatible(a, b, now, rules):
                difference = abs(a.rating - b.rating)
                near[a.id].append((difference, b.id, j))
                near[b.id].append((difference, a.id, i))
    kept: set[tuple[int, int]] = set()  # a seek's nearest candidates, both ways
    for i, a in enumerate(waiting):
        for _, _, j in sorted(near[a.id])[: rules.neighbours]:
            kept.add((min(i, j), max(i, j)))
    edges: dict[frozenset[str], _Candidate] = {}
    for i, j in sorted(kept):
        a, b = waiting[i], waiting[j]
        candidate = _order(a, b)
        players = frozenset((a.player, b.player))
        if players not in edges or candidate[0] < edges[players][0]:
            edges[players] = candidate  # one seek pair per two players
    graph: nx.Graph[str] = nx.Graph()
    graph.add_edges_from(sorted((min(players), max(players)) for players in edges))
    largest = max([rules.most * 100, *(to_hundredths(c[0][0]) for c in edges.values())])
    chosen: list[_Candidate] = []
    for component in sorted(nx.connected_components(graph), key=min):
        pairs = sorted(
            (edges[frozenset(e)] for e in graph.subgraph(component).edges), key=lambda c: c[0]
        )
        ordered = sorted({s.id: s for _, *two in pairs for s in two}.values(),
                         key=lambda s: (s.created_at, s.id))  # fmt: skip
        n = len(ordered)
        bonus = {seek.id: 1 << (n - 1 - rank) for rank, seek in enumerate(ordered)}
        weighted: nx.Graph[str] = nx.Graph()
        weighted.add_nodes_from(sorted(component))
        for order, older, newer in pairs:
            closeness = (largest + 1 - to_hundredths(order[0])) << n
            weighted.add_edge(older.player, newer.player,
                              weight=closeness + bonus[older.id] + bonus[newer.id])  # fmt: skip
        matched = nx.max_weight_matching(weighted, maxcardinality=True)
        chosen.extend(edges[frozenset(e)] for e in matched)
    chosen.sort(key=lambda c: c[0])
    return [(older, newer) for _, older, newer in chosen]


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
