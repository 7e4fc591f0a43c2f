"""A tournament's standings: points, tiebreaks and the performance rating, exact.

Pure: the players' rounds in (start numbers, points, played or not), the standings
out. The crosstable page reads the rounds from a TRF file (``application/periods``).

Unplayed rounds (forfeits, byes, absent rounds) follow FIDE's C.07 rule for unplayed
games (the tie-break regulations of 2009-2023):

- a player's own unplayed round counts as a game against a *virtual opponent* who had
  the player's points before that round, got the opposite of the player's result in
  it and drew every later round: ``Svon = SPR + (1 - SfPR) + 0.5 x (n - R)`` (SPR:
  the player's points before round R, SfPR: his points in round R, n: the rounds);
- an opponent's unplayed rounds count as draws in that opponent's score for the
  player's Buchholz and Sonneborn-Berger (his *adjusted score*).

The performance rating is FIDE's: the average rating of the rated opponents met over
the board (results 1, ½, 0) plus dp(p) of Table A for the score p against them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from ..numbers import HALF, ONE, round_half_away
from ..tables import dp_for_fraction


class Tiebreak(StrEnum):
    """The tiebreaks the standings can compute, by the codes FIDE's tie-break
    regulations use (and a TRF ``202`` record may declare)."""

    BUCHHOLZ = "BH"
    BUCHHOLZ_CUT_1 = "BH:C1"
    BUCHHOLZ_MEDIAN_1 = "BH:M1"
    SONNEBORN_BERGER = "SB"
    WINS = "WIN"
    WON = "WON"
    PROGRESSIVE = "PS"

    @property
    def words(self) -> str:
        return TIEBREAK_WORDS[self]


TIEBREAK_WORDS: dict[Tiebreak, str] = {
    Tiebreak.BUCHHOLZ: "Buchholz: the sum of the opponents' scores",
    Tiebreak.BUCHHOLZ_CUT_1: "Buchholz cut 1: the Buchholz without the lowest opponent's score",
    Tiebreak.BUCHHOLZ_MEDIAN_1: "median Buchholz: without the lowest and the highest score",
    Tiebreak.SONNEBORN_BERGER: "Sonneborn–Berger: the sum of each opponent's score times "
    "the points scored against him",
    Tiebreak.WINS: "wins: rounds won, played or not (a forfeit win, a full-point bye)",
    Tiebreak.WON: "games won over the board",
    Tiebreak.PROGRESSIVE: "progressive score: the sum of the running score after each round",
}
DEFAULT_TIEBREAKS = (Tiebreak.BUCHHOLZ, Tiebreak.SONNEBORN_BERGER)
"""What the standings use when the file declares no tiebreak."""

_ALIASES = {"BH-1": "BH:C1", "BHC1": "BH:C1", "BH1": "BH:C1", "MBH": "BH:M1",
            "BH:M": "BH:M1", "BU": "BH", "BUCHHOLZ": "BH", "SONNEBORN-BERGER": "SB",
            "SBERGER": "SB", "WINS": "WIN", "PROG": "PS"}  # fmt: skip


def parse_tiebreaks(text: str) -> tuple[tuple[Tiebreak, ...], tuple[str, ...]]:
    """The tiebreaks a TRF ``202`` record declares (codes separated by blanks, commas,
    semicolons or slashes, e.g. ``BH:C1 BH SB``): those known, in order, and those
    not known (left out)."""
    known: list[Tiebreak] = []
    unknown: list[str] = []
    for token in text.replace(",", " ").replace(";", " ").replace("/", " ").split():
        code = _ALIASES.get(token.upper(), token.upper())
        try:
            tiebreak = Tiebreak(code)
        except ValueError:
            unknown.append(token)
            continue
        if tiebreak not in known:
            known.append(tiebreak)
    return tuple(known), tuple(unknown)


@dataclass(frozen=True, slots=True)
class Round:
    """One round of a player: the opponent's start number (None: no opponent), the
    points it gave, whether the game was played over the board (a forfeit, a bye or
    an absent round is not) and whether it is a rated result (1, ½ or 0 played)."""

    opponent: int | None
    points: Decimal
    played: bool
    rated: bool = False


@dataclass(frozen=True, slots=True)
class Entrant:
    number: int  # start number
    rating: int | None
    rounds: tuple[Round, ...]


@dataclass(frozen=True, slots=True)
class Performance:
    """FIDE's performance rating: Ra (the exact average of the rated opponents'
    ratings) + dp(p), p = score / games, rounded half away from zero."""

    games: int
    score: Decimal
    ra: Decimal
    p: Decimal  # to two decimals (Table A's entry)
    dp: int
    rating: int


@dataclass(frozen=True, slots=True)
class Standing:
    number: int
    rank: int
    points: Decimal
    tiebreaks: tuple[Decimal, ...]  # in the order of the standings' tiebreaks
    performance: Performance | None


def _padded(entrant: Entrant, rounds: int) -> tuple[Round, ...]:
    """The rounds, the missing last ones as unplayed rounds worth nothing."""
    missing = rounds - len(entrant.rounds)
    return entrant.rounds + tuple(Round(None, Decimal(0), False) for _ in range(missing))


def adjusted_score(rounds: Sequence[Round]) -> Decimal:
    """A player's score as his opponents' tiebreaks count it: each unplayed round a
    draw (C.07)."""
    return sum((r.points if r.played else HALF for r in rounds), Decimal(0))


def virtual_opponent(rounds: Sequence[Round], index: int) -> Decimal:
    """Svon for the player's unplayed round ``index`` (0-based): SPR + (1 - SfPR) +
    0.5 x (n - R)."""
    before = sum((r.points for r in rounds[:index]), Decimal(0))
    later = len(rounds) - (index + 1)
    return before + (ONE - rounds[index].points) + HALF * later


def performance(entrant: Entrant, ratings: dict[int, int | None]) -> Performance | None:
    """FIDE's performance rating from the rated results against rated opponents; None
    without any."""
    games = [
        (rating, r.points)
        for r in entrant.rounds
        if r.rated and r.opponent is not None and (rating := ratings.get(r.opponent)) is not None
    ]
    if not games:
        return None
    score = sum((points for _, points in games), Decimal(0))
    ra = Decimal(sum(rating for rating, _ in games)) / len(games)
    fraction = score / len(games)
    dp = dp_for_fraction(fraction)
    return Performance(
        len(games), score, ra, round_half_away(fraction), dp, int(round_half_away(ra + dp, 0))
    )


def standings(
    entrants: Sequence[Entrant], tiebreaks: Sequence[Tiebreak] = DEFAULT_TIEBREAKS
) -> list[Standing]:
    """Every player's points, tiebreaks and performance, ranked: by points, then each
    tiebreak in order, then the start number (no two players share a rank)."""
    rounds = max((len(e.rounds) for e in entrants), default=0)
    padded = {e.number: _padded(e, rounds) for e in entrants}
    adjusted = {number: adjusted_score(rs) for number, rs in padded.items()}
    ratings = {e.number: e.rating for e in entrants}
    rows: list[tuple[int, Decimal, tuple[Decimal, ...], Performance | None]] = []
    for entrant in entrants:
        own = padded[entrant.number]
        # each round's opponent score for Buchholz and SB (C.07)
        faced = [
            adjusted.get(r.opponent, Decimal(0))
            if r.played and r.opponent is not None
            else virtual_opponent(own, index)
            for index, r in enumerate(own)
        ]
        values = tuple(_tiebreak(kind, own, faced) for kind in tiebreaks)
        points = sum((r.points for r in own), Decimal(0))
        rows.append((entrant.number, points, values, performance(entrant, ratings)))
    rows.sort(key=lambda row: (-row[1], tuple(-v for v in row[2]), row[0]))
    return [
        Standing(number, rank, points, values, perf)
        for rank, (number, points, values, perf) in enumerate(rows, start=1)
    ]


def _tiebreak(kind: Tiebreak, own: Sequence[Round], faced: Sequence[Decimal]) -> Decimal:
    if kind is Tiebreak.BUCHHOLZ:
        return sum(faced, Decimal(0))
    if kind is Tiebreak.BUCHHOLZ_CUT_1:
        return sum(faced, Decimal(0)) - min(faced, default=Decimal(0))
    if kind is Tiebreak.BUCHHOLZ_MEDIAN_1:
        if len(faced) < 3:
            return Decimal(0)
        return sum(faced, Decimal(0)) - min(faced) - max(faced)
    if kind is Tiebreak.SONNEBORN_BERGER:
        return sum((score * r.points for score, r in zip(faced, own, strict=True)), Decimal(0))
    if kind is Tiebreak.WINS:
        return Decimal(sum(1 for r in own if r.points == ONE))
    if kind is Tiebreak.WON:
        return Decimal(sum(1 for r in own if r.played and r.points == ONE))
    running, total = Decimal(0), Decimal(0)  # PROGRESSIVE
    for r in own:
        running += r.points
        total += running
    return total
