"""Buchholz, Sonneborn–Berger and the performance rating on a small tournament
checked by hand (the numbers below were worked out on paper, not by the code).

Four players, three rounds; start numbers and ratings 1 (2000), 2 (1900), 3 (1800),
4 (unrated):

- round 1: 1–4 1-0, 2–3 ½-½
- round 2: 1–3 ½-½, 2–4 forfeit (2 wins +, 4 loses -)
- round 3: 1–2 0-1, 3 a half-point bye, 4 absent (zero)

Points: 1: 1½, 2: 2½, 3: 1½, 4: 0.
Adjusted scores (unplayed rounds as draws): 1: 1.5, 2: 0.5+0.5+1 = 2.0,
3: 0.5+0.5+0.5 = 1.5, 4: 0+0.5+0.5 = 1.0.
Virtual opponents (Svon = SPR + (1 − SfPR) + 0.5 × (n − R), n = 3):
2 in round 2: 0.5 + 0 + 0.5 = 1.0; 3 in round 3: 1.0 + 0.5 + 0 = 1.5;
4 in round 2: 0 + 1 + 0.5 = 1.5; 4 in round 3: 0 + 1 + 0 = 1.0.
Buchholz: 1: 1.0+1.5+2.0 = 4.5; 2: 1.5+1.0+1.5 = 4.0; 3: 2.0+1.5+1.5 = 5.0;
4: 1.5+1.5+1.0 = 4.0. Cut 1: 3.5, 3.0, 3.5, 3.0.
Sonneborn–Berger: 1: 1×1.0 + ½×1.5 + 0 = 1.75; 2: ½×1.5 + 1×1.0 + 1×1.5 = 3.25;
3: ½×2.0 + ½×1.5 + ½×1.5 = 2.5; 4: 0.
Ranks: 2 (2½), then 3 before 1 (1½ each, Buchholz 5.0 > 4.5), then 4.
Performance (rated results against rated opponents only):
1: 1800 ½, 1900 0: Ra 1850, p 0.25, dp −193 → 1657;
2: 1800 ½, 2000 1 (the forfeit does not count): Ra 1900, p 0.75, dp +193 → 2093;
3: 1900 ½, 2000 ½: Ra 1950, p 0.50, dp 0 → 1950;
4: 2000 0: Ra 2000, p 0, dp −800 → 1200.
"""

from __future__ import annotations

from decimal import Decimal

from chessrate.systems.tiebreaks import (
    Entrant,
    Round,
    Standing,
    Tiebreak,
    parse_tiebreaks,
    standings,
    virtual_opponent,
)

D = Decimal
WIN, DRAW, LOSS = D(1), D("0.5"), D(0)


def game(opponent: int, points: Decimal) -> Round:
    return Round(opponent, points, played=True, rated=True)


TOURNAMENT = (
    Entrant(1, 2000, (game(4, WIN), game(3, DRAW), game(2, LOSS))),
    Entrant(2, 1900, (game(3, DRAW), Round(4, WIN, played=False), game(1, WIN))),
    Entrant(3, 1800, (game(2, DRAW), game(1, DRAW), Round(None, DRAW, played=False))),
    Entrant(4, None, (game(1, LOSS), Round(2, LOSS, played=False), Round(None, LOSS, False))),
)


def by_number(
    tiebreaks: tuple[Tiebreak, ...] = (Tiebreak.BUCHHOLZ, Tiebreak.SONNEBORN_BERGER),
) -> dict[int, Standing]:
    return {s.number: s for s in standings(TOURNAMENT, tiebreaks)}


def test_buchholz_counts_virtual_opponents_and_opponents_unplayed_rounds_as_draws() -> None:
    found = by_number()
    assert {n: s.tiebreaks[0] for n, s in found.items()} == {
        1: D("4.5"),
        2: D("4.0"),
        3: D("5.0"),
        4: D("4.0"),
    }


def test_sonneborn_berger() -> None:
    found = by_number()
    assert {n: s.tiebreaks[1] for n, s in found.items()} == {
        1: D("1.75"),
        2: D("3.25"),
        3: D("2.5"),
        4: D(0),
    }


def test_points_and_unique_ranks() -> None:
    found = by_number()
    assert {n: s.points for n, s in found.items()} == {1: D("1.5"), 2: D("2.5"), 3: D("1.5"), 4: 0}
    assert [s.number for s in standings(TOURNAMENT)] == [2, 3, 1, 4]
    assert [s.rank for s in standings(TOURNAMENT)] == [1, 2, 3, 4]


def test_equal_on_everything_the_start_number_decides() -> None:
    twins = (Entrant(1, None, (game(2, DRAW),)), Entrant(2, None, (game(1, DRAW),)))
    assert [(s.number, s.rank) for s in standings(twins)] == [(1, 1), (2, 2)]


def test_virtual_opponent() -> None:
    assert virtual_opponent(TOURNAMENT[1].rounds, 1) == D("1.0")
    assert virtual_opponent(TOURNAMENT[2].rounds, 2) == D("1.5")
    assert virtual_opponent(TOURNAMENT[3].rounds, 1) == D("1.5")
    assert virtual_opponent(TOURNAMENT[3].rounds, 2) == D("1.0")


def test_performance_rating() -> None:
    found = by_number()
    shown = {n: s.performance for n, s in found.items()}
    assert {n: p.rating for n, p in shown.items() if p} == {1: 1657, 2: 2093, 3: 1950, 4: 1200}
    two = shown[2]
    assert two is not None
    assert (two.games, two.score, two.ra, two.p, two.dp) == (2, D("1.5"), D(1900), D("0.75"), 193)


def test_no_rated_opponent_no_performance() -> None:
    alone = (Entrant(1, None, (game(2, WIN),)), Entrant(2, None, (game(1, LOSS),)))
    assert all(s.performance is None for s in standings(alone))


def test_a_fractional_average_is_rounded_with_dp_at_the_end() -> None:
    # 1 meets 2 (1901) and 3 (1900): Ra 1900.5, 1/2 = 0.50, dp 0: 1900.5 → 1901
    three = (
        Entrant(1, None, (game(2, WIN), game(3, LOSS))),
        Entrant(2, 1901, (game(1, LOSS),)),
        Entrant(3, 1900, (Round(None, LOSS, False), game(1, WIN))),
    )
    first = next(s for s in standings(three) if s.number == 1)
    assert first.performance is not None and first.performance.rating == 1901


def test_buchholz_cut_1() -> None:
    found = by_number((Tiebreak.BUCHHOLZ_CUT_1,))
    assert {n: s.tiebreaks[0] for n, s in found.items()} == {
        1: D("3.5"),
        2: D("3.0"),
        3: D("3.5"),
        4: D("3.0"),
    }


def test_parse_tiebreaks() -> None:
    assert parse_tiebreaks("BH:C1, SB DE") == (
        (Tiebreak.BUCHHOLZ_CUT_1, Tiebreak.SONNEBORN_BERGER),
        ("DE",),
    )
    assert parse_tiebreaks("") == ((), ())
