"""A fide period's tournament as a crosstable, read from its stored TRF file: every
round of every player as players read it, the tiebreaks, the performance rating, and
(closed) each player's rating change in the period."""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, Field

from ..io.fide import player_key
from ..io.trf import TrfColour, TrfPlayer, TrfRound, parse_trf
from ..ledger import Ledger
from ..numbers import round_half_away
from ..systems.tiebreaks import DEFAULT_TIEBREAKS, Entrant, Round, parse_tiebreaks, standings
from .periods import periods_of, report_path


class CrosstableCellPublic(BaseModel):
    """One round of a player's crosstable row, as in the TRF file and as players read
    it."""

    round: int
    opponent: int | None = Field(description="the opponent's start number; null for a bye")
    colour: TrfColour
    code: str = Field(description="the TRF-16 result code (`1 0 = + - w d l h f u z`, blank)")
    result: str = Field(description="as players read it: `1`, `½`, `0`, `+`, `-`, or empty")
    points: str | None = Field(description="the points the round gave; null: no result")
    text: str = Field(description="the cell as printed: `10b 0`, `3w ½`, `+`, `bye ½`")
    note: str = Field(description="what a code means in words (forfeits, byes, …), else empty")


class CrosstableRowPublic(BaseModel):
    start_rank: int
    rank: int | None = Field(description="the final rank the file gives, if any")
    player: str = Field(description="the player's id in the period (FIDE id, else the name)")
    name: str
    title: str
    federation: str
    rating: int | None
    points: str = Field(description="total points: the file's, else the sum of the rounds")
    report: str | None = Field(
        description="the API path of the player's report in the period (null: not in its "
        "results, e.g. while the period is open)"
    )
    rounds: list[CrosstableCellPublic]
    place: int = Field(
        description="the rank by points, then the tiebreaks in order, then the start "
        "number: no two players share one"
    )
    tiebreaks: list[str] = Field(
        description="the values of the crosstable's tiebreaks, in their order, exact"
    )
    performance: int | None = Field(
        description="FIDE's performance rating: the average rating of the rated "
        "opponents met over the board + dp(p) (Table A); null without a rated opponent"
    )
    performance_ra: str | None = Field(description="that average, exact")
    performance_games: int = Field(description="the games against rated opponents it counts")
    performance_score: str | None = Field(description="the points scored in them")
    performance_p: str | None = Field(description="score / games, two decimals")
    performance_dp: int | None = Field(description="dp(p) from Table A")
    old_rating: int | None = Field(description="the rating before the period (closed)")
    new_rating: int | None = Field(description="the rating after the period (closed)")
    rating_change: int | None = Field(
        description="the period's change, new - old (all the period's tournaments); null: "
        "the period is open, the player unrated before or after, or not in its results"
    )


class TiebreakPublic(BaseModel):
    code: str = Field(description="FIDE's code: BH, BH:C1, BH:M1, SB, WIN, WON, PS")
    words: str


class CrosstablePublic(BaseModel):
    """A tournament of a period as a crosstable, from its stored TRF file."""

    period: int
    number: int = Field(description="the tournament's number in the period (upload order)")
    file: str
    name: str = Field(description="record 012 (else the file's name)")
    city: str
    federation: str
    start: str
    end: str
    kind: str = Field(description="record 092, as written")
    round_robin: bool | None = Field(description="as uploaded, else what 092 says")
    rounds: int
    players: list[CrosstableRowPublic] = Field(description="by start number")
    tiebreaks: list[TiebreakPublic] = Field(
        description="the tiebreaks, in order: those the file declares (record 202) that "
        "can be computed, else Buchholz and Sonneborn–Berger"
    )
    declared: str | None = Field(description="the file's record 202 as written, if any")
    not_computed: list[str] = Field(
        description="tiebreaks the file declares that are not computed (left out)"
    )
    closed: bool = Field(description="whether the period is closed (its rating changes known)")


# The TRF codes in words, and as players read a crosstable's cell.
_CODE_NOTES = {
    "+": "forfeit win", "-": "forfeit loss", "w": "win, less than one move: not rated",
    "d": "draw, less than one move: not rated", "l": "loss, less than one move: not rated",
    "h": "half-point bye", "f": "full-point bye", "u": "pairing-allocated bye",
    "z": "zero-point bye",
}  # fmt: skip


_READ_AS = {"1": "1", "w": "1", "f": "1", "u": "1", "=": "½", "d": "½", "h": "½", "0": "0",
            "l": "0", "z": "0", "+": "+", "-": "-", " ": ""}  # fmt: skip


def _cell_public(entry: TrfRound) -> CrosstableCellPublic:
    result = _READ_AS[entry.code]
    if entry.opponent is not None:
        colour = "" if entry.colour == "-" else entry.colour
        text = f"{entry.opponent}{colour} {result}".strip()
    elif entry.code in "hfuz":
        text = f"bye {result}"
    else:
        text = result
    points = entry.score
    return CrosstableCellPublic(
        round=entry.round,
        opponent=entry.opponent,
        colour=TrfColour(entry.colour),
        code=entry.code,
        result=result,
        points=None if points is None else str(points),
        text=text,
        note=_CODE_NOTES.get(entry.code, ""),
    )


def _points_text(points: Decimal) -> str:
    """Points with one decimal at least (``7.0``, ``3.5``; ``1.75`` as it is)."""
    return f"{points:.1f}" if points == points.quantize(Decimal("0.1")) else f"{points:f}"


def period_crosstable(ledger: Ledger, period_id: int, number: int) -> CrosstablePublic:
    """A period's ``number``-th tournament (1-based, upload order) as a crosstable, read
    from its stored TRF file; each row links to the player's report in the period."""
    periods = periods_of(ledger)
    stored = periods.file(period_id, number)
    tournament = parse_trf(stored.content, stored.name)
    in_results = periods.names(period_id)
    closed = periods.get(period_id).closed_at is not None
    entries = {e.player: e for e in periods.new_list(period_id)} if closed else {}
    declared = next((rest.strip() for code, rest in tournament.headers if code == "202"), None)
    chosen, unknown = parse_tiebreaks(declared or "")
    if not chosen:
        chosen = DEFAULT_TIEBREAKS
    table = {s.number: s for s in standings([_entrant(p) for p in tournament.players], chosen)}
    rows = []
    for player in sorted(tournament.players, key=lambda p: p.start_rank):
        key = player_key(player)
        total = player.points
        if total is None:
            total = sum((r.score for r in player.rounds if r.score is not None), Decimal(0))
        standing = table[player.start_rank]
        perf = standing.performance
        entry = entries.get(key)
        old = entry.old_rating if entry else None
        new = entry.new_rating if entry else None
        rows.append(
            CrosstableRowPublic(
                start_rank=player.start_rank,
                rank=player.rank,
                player=key,
                name=player.name,
                title=player.title,
                federation=player.federation,
                rating=player.rating,
                points=_points_text(total),
                report=report_path(period_id, key, api=True) if key in in_results else None,
                rounds=[_cell_public(r) for r in player.rounds],
                place=standing.rank,
                tiebreaks=[_points_text(v) for v in standing.tiebreaks],
                performance=None if perf is None else perf.rating,
                performance_ra=None if perf is None else str(round_half_away(perf.ra)),
                performance_games=0 if perf is None else perf.games,
                performance_score=None if perf is None else _points_text(perf.score),
                performance_p=None if perf is None else str(perf.p),
                performance_dp=None if perf is None else perf.dp,
                old_rating=old,
                new_rating=new,
                rating_change=None if old is None or new is None else new - old,
            )
        )
    return CrosstablePublic(
        period=period_id,
        number=number,
        file=stored.name,
        name=tournament.name or stored.name,
        city=tournament.city,
        federation=tournament.federation,
        start=tournament.start,
        end=tournament.end,
        kind=tournament.kind,
        round_robin=tournament.is_round_robin if stored.round_robin is None else stored.round_robin,
        rounds=max((len(p.rounds) for p in tournament.players), default=0),
        players=rows,
        tiebreaks=[TiebreakPublic(code=t.value, words=t.words) for t in chosen],
        declared=declared,
        not_computed=list(unknown),
        closed=closed,
    )


def _entrant(player: TrfPlayer) -> Entrant:
    """A TRF player for the standings: a round is played over the board with a result
    of 1, =, 0 (rated) or w, d, l (less than a move) against an opponent; a forfeit, a
    bye or a blank round is not (C.07's unplayed rounds)."""
    rounds = tuple(
        Round(
            r.opponent,
            r.score if r.score is not None else Decimal(0),
            played=r.opponent is not None and r.code in _PLAYED,
            rated=r.rated,
        )
        for r in player.rounds
    )
    return Entrant(player.start_rank, player.rating, rounds)


_PLAYED = frozenset("10=wdl")
