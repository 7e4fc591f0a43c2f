"""A fide-2024 period for the arbiter's pages: an eight-player round robin with two
new players, one who earns a first rating (six games against rated opponents, two
hypothetical draws: Ra = (11100 + 3600) / 8 = 1837.5, p = (3 + 1) / 8 = 0.50, dp 0,
Ru 1838) and one who misses four rounds (two games against rated opponents: pending,
no rating), and a second tournament that declares its tiebreaks (record 202) and gives
a player a new title."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal

from chessrate.io.trf import Tournament, TrfPlayer, TrfRound, write_trf
from chessrate.ledger import Ledger

# start rank: (name, rating, FIDE id, sex, title, federation, birth)
PLAYERS = {
    1: ("Anna Rated", 2100, "1001", "w", "wm", "GRE", "1990/04/02"),
    2: ("Boris Rated", 2000, "1002", "m", "f", "SRB", "1985/00/00"),
    3: ("Clara Rated", 1900, "1003", "w", "", "CYP", "2001"),
    4: ("Dmitri Rated", 1800, "1004", "m", "", "BUL", ""),
    5: ("Elena Rated", 1700, "1005", "w", "", "GRE", ""),
    6: ("Femi Rated", 1600, "1006", "m", "", "NGR", ""),
    7: ("Nova New", None, "1007", "m", "", "KEN", "2008/01/01"),
    8: ("Omar Newer", None, "1008", "m", "", "EGY", ""),
}
NOVA = {1: "0", 2: "0", 3: "=", 4: "1", 5: "=", 6: "1"}
"""Nova's results against the rated players: 3 of 6."""
OMAR_PLAYS = (1, 2, 7)
"""Omar plays rounds 1 and 2 (Anna: a draw, Boris: a loss), misses rounds 3 to 6
(forfeits) and loses to Nova in round 7 (a game between unrated players)."""
START_LIST = "id,name,rating,games,reached_2400\n" + "".join(
    f"{fid},{name},{rating},40,false\n"
    for name, rating, fid, *_ in PLAYERS.values()
    if rating is not None
)


def _pairings() -> dict[int, list[tuple[int, int]]]:
    """Round robin by the circle method: each round's (white, black)."""
    rounds: dict[int, list[tuple[int, int]]] = {}
    for r in range(1, 8):
        pairs = [(8, r) if r % 2 else (r, 8)]
        for k in range(1, 4):
            a, b = (r + k - 1) % 7 + 1, (r - k - 1) % 7 + 1
            pairs.append((a, b) if k % 2 else (b, a))
        rounds[r] = pairs
    return rounds


def _result(me: int, them: int, rnd: int) -> str:
    """The code of ``me``'s result against ``them`` in round ``rnd``."""
    if 8 in (me, them) and rnd not in OMAR_PLAYS:
        return "-" if me == 8 else "+"
    if me == 8:
        return "=" if them == 1 else "0"
    if them == 8:
        return "=" if me == 1 else "1"  # Nova too: she beats Omar
    if me == 7:
        return NOVA[them]
    if them == 7:
        return {"1": "0", "0": "1", "=": "="}[NOVA[me]]
    return "1" if me < them else "0"  # the higher rated wins


def _tournament(
    name: str,
    players: dict[int, tuple[str, int | None, str, str, str, str, str]],
    pairings: dict[int, list[tuple[int, int]]],
    headers: tuple[tuple[str, str], ...],
    result: Callable[[int, int, int], str] = _result,
) -> str:
    rows = []
    for number, (pname, rating, fid, sex, title, fed, birth) in players.items():
        rounds = []
        for rnd, pairs in pairings.items():
            for white, black in pairs:
                if number in (white, black):
                    other = black if number == white else white
                    colour = "w" if number == white else "b"
                    rounds.append(TrfRound(rnd, other, colour, result(number, other, rnd)))
        points = sum(
            (Decimal({"1": "1", "+": "1", "=": "0.5"}.get(r.code, "0")) for r in rounds),
            Decimal(0),
        )
        rows.append(
            TrfPlayer(number, sex, title, pname, rating, fed, fid, birth, points, None,
                      tuple(rounds), line=0)
        )  # fmt: skip
    return write_trf(
        Tournament(name, "Athens", "GRE", "2025/05/03", "2025/05/09", "Round Robin",
                   "90 minutes plus 30 seconds per move", tuple(rows), headers, name)
    )  # fmt: skip


def open_2024() -> str:
    return _tournament("Athens Open 2025", PLAYERS, _pairings(), ())


FOUR = {n: PLAYERS[n] for n in (1, 2, 3, 4)}
FOUR[1] = ("Anna Rated", 2100, "1001", "w", "wg", "GRE", "1990/04/02")  # a new title


def cup_2025() -> str:
    """Four rated players, three rounds, declaring BH:C1, SB and DE (not computed)."""
    pairings = {1: [(1, 4), (2, 3)], 2: [(4, 3), (1, 2)], 3: [(2, 4), (3, 1)]}
    return _tournament(
        "Piraeus Cup 2025", FOUR, pairings, (("202", "BH:C1 SB DE"),),
        result=lambda me, them, rnd: "=" if {me, them} == {1, 2} else ("1" if me < them else "0"),
    )  # fmt: skip


def fide_2024_period(ledger: Ledger, now: datetime) -> int:
    """The closed fide-2024 period (its id)."""
    periods = ledger.periods
    made = periods.create("June 2025", START_LIST, now, rules="fide-2024",
                          list_date=date(2025, 6, 1))  # fmt: skip
    periods.add_file(made.id, "athens.trf", open_2024())
    periods.add_file(made.id, "piraeus.trf", cup_2025())
    periods.close(made.id, now)
    return made.id
