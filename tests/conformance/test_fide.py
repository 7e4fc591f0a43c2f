"""Conformance tests for the ``fide`` system: one or more tests per rule of
the spec's fide system (F1-F8), the seed's worked round robin and the 8.34 example,
real FIDE calculations, the new list and the rating officer's report.

Every expected number is computed by hand from the spec (the spec's Table A and
Table B) and written as a literal; the arithmetic is in each test's
docstring or comments.
"""

from __future__ import annotations

import csv
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from chessrate.io.fide import (
    event_from_tournament,
    new_list,
    read_start_list,
    report_json,
    report_text,
)
from chessrate.io.trf import read_trf
from chessrate.systems.fide import (
    Event,
    EventEntry,
    EventGame,
    FideRules,
    FideSystem,
    FirstRatingCalc,
    GameLine,
    ListedPlayer,
    PeriodResult,
    PlayerReport,
)

D = Decimal

DATA = Path(__file__).resolve().parent.parent / "data"
SEED_TRF = DATA / "trf" / "seed_round_robin.trf"
SEED_LIST = DATA / "fide" / "seed_round_robin_list.csv"
OFFICIAL_CSV = DATA / "fide_official_calculations.csv"

B15 = FideRules(bonus_per_half_point=D(15))
"""The seed's worked examples use a bonus of 15 per half point (F4 Decision)."""


# -- builders -------------------------------------------------------------------------

_SCORES = {"1": D(1), "0": D(0), "=": D("0.5"), "½": D("0.5")}
_RESULTS = {"1-0": (D(1), D(0)), "0-1": (D(0), D(1)), "=": (D("0.5"), D("0.5"))}


def event(
    name: str,
    ratings: dict[str, int | None],
    games: list[tuple[str, str, str]],
    *,
    round_robin: bool = False,
) -> Event:
    """An event from ``(white, black, result)`` triples, result ``1-0``, ``0-1`` or
    ``=``; ``ratings`` gives every player's rating in the event's file (None:
    unrated there), in entry order. Game n is played in round n."""
    played: dict[str, list[EventGame]] = {player: [] for player in ratings}
    for number, (white, black, result) in enumerate(games, start=1):
        white_score, black_score = _RESULTS[result]
        played[white].append(EventGame(number, black, white_score))
        played[black].append(EventGame(number, white, black_score))
    entries = tuple(
        EventEntry(player, player, rating, tuple(played[player]))
        for player, rating in ratings.items()
    )
    return Event(name, f"{name}.trf", round_robin, entries)


def crosstable(name: str, ratings: dict[str, int | None], table: str) -> Event:
    """A round robin from a crosstable (row player's score against the column player:
    ``1``, ``0``, ``=``/``½``; ``x`` the diagonal, ``.`` not played). The first line
    names the columns; anything after the last column (a total) is ignored."""
    lines = [line.split() for line in table.strip().splitlines()]
    columns = lines[0]
    assert columns == list(ratings)
    cells = {
        row[0]: dict(zip(columns, row[1 : len(columns) + 1], strict=True)) for row in lines[1:]
    }
    games: list[tuple[str, str, str]] = []
    for i, white in enumerate(columns):
        for black in columns[i + 1 :]:
            mine, theirs = cells[white][black], cells[black][white]
            if mine == ".":
                assert theirs == "."
                continue
            assert _SCORES[mine] + _SCORES[theirs] == 1, (white, black)
            games.append((white, black, {"1": "1-0", "0": "0-1"}.get(mine, "=")))
    return event(name, ratings, games, round_robin=True)


def listed(
    player: str, rating: int | None, games: int = 40, reached_2400: bool = False
) -> ListedPlayer:
    return ListedPlayer(player, player, rating, games, reached_2400)


def start_list(*players: ListedPlayer) -> dict[str, ListedPlayer]:
    return {player.id: player for player in players}


def rate(
    players: dict[str, ListedPlayer], *events: Event, rules: FideRules | None = None
) -> PeriodResult:
    return FideSystem(rules).rate_period(players, list(events))


def line_vs(report: PlayerReport, opponent: str, event_name: str | None = None) -> GameLine:
    found = [
        line
        for line in report.games
        if line.opponent == opponent and (event_name is None or line.event == event_name)
    ]
    assert len(found) == 1, found
    return found[0]


def only_calc(report: PlayerReport) -> FirstRatingCalc:
    assert len(report.first_rating) == 1
    return report.first_rating[0]


# -- the seed's worked round robin ------------------------------------------------------

SEED_RATINGS: dict[str, int | None] = {
    "A": 2600,
    "B": 2500,
    "C": None,
    "D": 2400,
    "E": None,
    "F": 2150,
    "G": 2300,
    "H": None,
    "I": None,
    "J": 2300,
}

SEED_CROSSTABLE = """
   A B C D E F G H I J
A  x 1 1 1 1 1 1 1 1 0   8
B  0 x 1 1 0 1 1 1 1 1   7
C  0 0 x 1 1 1 1 1 1 1   7
D  0 0 0 x 1 1 1 1 1 1   6
E  0 1 0 0 x 1 1 1 1 1   6
F  0 0 0 0 0 x 1 1 1 1   4
G  0 0 0 0 0 0 x 1 1 1   3
H  0 0 0 0 0 0 0 x 1 1   2
I  0 0 0 0 0 0 0 0 x 1   1
J  1 0 0 0 0 0 0 0 0 x   1
"""

SEED_LIST_PLAYERS = start_list(
    listed("A", 2600, 120, True),
    listed("B", 2500, 80, True),
    listed("D", 2400, 45, True),
    listed("F", 2150, 60, False),
    listed("G", 2300, 90, False),
    listed("J", 2300, 75, False),
)

# player: (new rating, expected score, K, change); the spec's fide system, the seed's example.
SEED_RATED = {
    "A": (2613, D("7.36"), 20, D("12.80")),
    "B": (2510, D("6.48"), 20, D("10.40")),
    "D": (2412, D("5.40"), 20, D("12.00")),
    "F": (2194, D("2.55"), 30, D("43.50")),
    "G": (2264, D("4.21"), 30, D("-36.30")),
    "J": (2204, D("4.21"), 30, D("-96.30")),
}
SEED_UNRATED = {"C": 2423, "E": 2393, "H": 2144, "I": 2006}


def seed_result() -> PeriodResult:
    return rate(SEED_LIST_PLAYERS, crosstable("seed", SEED_RATINGS, SEED_CROSSTABLE), rules=B15)


def seed_trf_result(players: dict[str, ListedPlayer] | None = None) -> PeriodResult:
    seed = event_from_tournament(read_trf(SEED_TRF))
    return rate(read_start_list(SEED_LIST) if players is None else players, seed, rules=B15)


TRF_KEYS = {
    "A": "9000001",
    "B": "9000002",
    "C": "Player C",
    "D": "9000004",
    "E": "Player E",
    "F": "9000006",
    "G": "9000007",
    "H": "Player H",
    "I": "Player I",
    "J": "9000010",
}


def assert_seed_numbers(result: PeriodResult, key: dict[str, str]) -> None:
    """The seed's table: new ratings, expected scores, K and changes; Rc 2348 for all
    four unrated players, and H's and I's F8 iteration."""
    for player, (new, expected, k, change) in SEED_RATED.items():
        report = result.report(key[player])
        assert (report.new_rating, report.expected, report.k, report.change) == (
            new,
            expected,
            k,
            change,
        ), player
        assert report.state == "rated"
    for player, ru in SEED_UNRATED.items():
        report = result.report(key[player])
        assert report.old_rating is None
        assert report.new_rating == ru, player
        calc = only_calc(report)
        assert calc.round_robin
        assert calc.games == 9
        assert calc.ru == ru
        # Rar = 14250/6 = 2375, dpa = (351 + 220 + 125 - 43 - 125 - 351)/6 = 29.5,
        # Ra = 2375 - 29.5 x 9/10 = 2348.45 -> 2348
        assert "Rar = 2375" in calc.steps[0]
        assert "dpa = 29.50" in calc.steps[0]
        assert calc.steps[0].endswith("Rc 2348")
    # C 7/9: 2.5 over 50 % = 5 half points x 15 = 75 -> 2423; E 6/9: 3 x 15 = 45 -> 2393
    assert only_calc(result.report(key["C"])).rc == 2348
    assert only_calc(result.report(key["C"])).bonus == D(75)
    assert only_calc(result.report(key["E"])).rc == 2348
    assert only_calc(result.report(key["E"])).bonus == D(45)
    # H 2/9 = 0.22 -> dp -220 x 9/10 = -198: Ru 2150; A 2600 > 2550 counts as 2550:
    # Rc = 2348 - 50/9 = 2342.44 -> 2342, Ru = 2342 - 198 = 2144; cap 2544: still {A}.
    h = only_calc(result.report(key["H"]))
    assert (h.rc, h.ru, h.p, h.dp) == (2342, 2144, D("0.22"), D(-198))
    assert len(h.steps) == 4
    assert h.steps[1].endswith("Ru = 2150")
    assert "2550" in h.steps[2]
    assert "Rc = 2348 − 50/9 = 2342" in h.steps[2]
    assert h.steps[3].endswith("Ru = 2144")
    # I 1/9 = 0.11 -> dp -351 x 9/10 = -315.9: Ru 2032.1 -> 2032; A and B over 2432
    # count as 2432: Rc = 2348 - (168 + 68)/9 = 2321.78 -> 2322, Ru 2006.1 -> 2006;
    # cap 2406: still {A, B} (D 2400 is not over it).
    i = only_calc(result.report(key["I"]))
    assert (i.rc, i.ru, i.p, i.dp) == (2322, 2006, D("0.11"), D("-315.9"))
    assert len(i.steps) == 4
    assert i.steps[1].endswith("Ru = 2032")
    assert "2432" in i.steps[2]
    assert "Rc = 2348 − 236/9 = 2322" in i.steps[2]
    assert i.steps[3].endswith("Ru = 2006")


def test_f8_seed_worked_round_robin_built_from_the_crosstable() -> None:
    """fide F8 (8.58) with F2/F4, the seed's worked example (B = 15): new ratings A 2613,
    B 2510, D 2412, F 2194, G 2264, J 2204, C 2423, E 2393, H 2144, I 2006; expected
    scores, changes, Rc 2348 and H's and I's iterations as in the spec's fide system."""
    assert_seed_numbers(seed_result(), {player: player for player in SEED_RATINGS})


def test_f8_seed_worked_round_robin_through_the_trf_fixture() -> None:
    """fide F8 (8.58), the seed's worked example end to end: read_trf +
    event_from_tournament + read_start_list give the same numbers; players are keyed
    by FIDE id, the unrated ones (no FIDE id) by name."""
    tournament = read_trf(SEED_TRF)
    seed = event_from_tournament(tournament)
    assert seed.round_robin
    assert [entry.player for entry in seed.entries] == list(TRF_KEYS.values())
    assert [entry.event_rating for entry in seed.entries] == list(SEED_RATINGS.values())
    assert_seed_numbers(seed_trf_result(), TRF_KEYS)


def test_f8_rated_players_use_the_final_ru() -> None:
    """fide F8 (8.58): the rated players' changes use the unrated players' final Ru
    (H 2144 not 2150, I 2006 not 2032)."""
    result = seed_result()
    a = result.report("A")
    # A - H: 2600 - 2144 = 456 -> 400 (8.54) -> 0.92, win: +0.08
    assert line_vs(a, "H").opponent_rating == 2144
    assert (line_vs(a, "H").d, line_vs(a, "H").pd, line_vs(a, "H").delta) == (
        400,
        D("0.92"),
        D("0.08"),
    )
    d = result.report("D")
    # D - I: 2400 - 2006 = 394 (not capped; with 2032 it would be 368 -> 0.90) -> 0.92
    i_line = line_vs(d, "I")
    assert (i_line.opponent_rating, i_line.d, i_line.pd, i_line.delta) == (
        2006,
        394,
        D("0.92"),
        D("0.08"),
    )
    assert i_line.note == ""
    f = result.report("F")
    # F - H: 2150 - 2144 = 6 -> 0.51, win: +0.49 (with 2150: D 0 -> 0.50)
    assert (line_vs(f, "H").opponent_rating, line_vs(f, "H").pd) == (2144, D("0.51"))
    # G - I: 2300 - 2006 = 294 -> 0.85, win: +0.15
    assert (line_vs(result.report("G"), "I").d, line_vs(result.report("G"), "I").pd) == (
        294,
        D("0.85"),
    )


def test_f8_iterates_until_the_set_over_ru_plus_400_is_stable() -> None:
    """fide F8 (8.58): X's set S of rated opponents over Ru + 400 grows from {A} to
    {A, B}; Rc is recomputed from the F4 Rc each time; it stops when S repeats.

    Rar = (2700 + 2560 + 2150 + 2100)/4 = 2377.5; p: A 3.5/4 = 0.875 -> 0.88 -> 336,
    B 0.75 -> 193, C 0.50 -> 0, D 0.125 -> 0.13 -> -322: dpa = 207/4 = 51.75;
    Ra = 2377.5 - 51.75 x 4/5 = 2336.1 -> Rc 2336. X 1/4 = 0.25 -> -193 x 4/5 = -154.4:
    Ru 2181.6 -> 2182. Over 2582: {A}: Rc = 2336 - 118/4 = 2306.5 -> 2307, Ru 2152.6 ->
    2153. Over 2553: {A, B}: Rc = 2336 - (147 + 7)/4 = 2297.5 -> 2298, Ru 2143.6 -> 2144.
    Over 2544: {A, B} again: stop."""
    rr = crosstable(
        "rr",
        {"A": 2700, "B": 2560, "C": 2150, "D": 2100, "X": None},
        """
           A B C D X
        A  x 1 1 = 1
        B  0 x 1 1 1
        C  0 0 x 1 1
        D  = 0 0 x 0
        X  0 0 0 1 x
        """,
    )
    players = start_list(
        listed("A", 2700, 100, True),
        listed("B", 2560, 100, True),
        listed("C", 2150),
        listed("D", 2100),
    )
    result = rate(players, rr)
    x = only_calc(result.report("X"))
    assert (x.rc, x.ru, x.p, x.dp) == (2298, 2144, D("0.25"), D("-154.4"))
    assert len(x.steps) == 6
    assert x.steps[0].endswith("Rc 2336")
    assert x.steps[1].endswith("Ru = 2182")
    assert x.steps[2].startswith("1 rated opponent(s)")
    assert "Rc = 2336 − 118/4 = 2307" in x.steps[2]
    assert x.steps[3].endswith("Ru = 2153")
    assert x.steps[4].startswith("2 rated opponent(s)")
    assert "Rc = 2336 − 154/4 = 2298" in x.steps[4]
    assert x.steps[5].endswith("Ru = 2144")
    assert result.report("X").new_rating == 2144
    # the rated players use the final 2144: D 2100 - 2144 = -44 -> 0.44, loss: -0.44;
    # C 2150 - 2144 = 6 -> 0.51, win: +0.49; A 556 and B 416 -> 400 -> 0.92
    assert (line_vs(result.report("D"), "X").pd, line_vs(result.report("D"), "X").delta) == (
        D("0.44"),
        D("-0.44"),
    )
    assert (line_vs(result.report("C"), "X").pd, line_vs(result.report("C"), "X").delta) == (
        D("0.51"),
        D("0.49"),
    )
    assert line_vs(result.report("A"), "X").d == 400
    assert line_vs(result.report("B"), "X").d == 400


def test_f8_no_iteration_when_no_opponent_is_over_ru_plus_400() -> None:
    """fide F8 (8.58): C (Ru 2423, cap 2823) and E (Ru 2393) have nobody over Ru + 400:
    their Rc stays the F4 Rc 2348 and there is no iteration step."""
    result = seed_result()
    for player in ("C", "E"):
        calc = only_calc(result.report(player))
        assert calc.rc == 2348
        assert len(calc.steps) == 2


# -- F1: the tables -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("own", "opponent", "d", "pd"),
    [
        (2003, 2000, 3, "0.50"),  # band 0-3
        (2004, 2000, 4, "0.51"),  # band 4-10
        (2000, 2003, -3, "0.50"),
        (2000, 2004, -4, "0.49"),
        (2010, 2000, 10, "0.51"),
        (2011, 2000, 11, "0.52"),  # band 11-17
        (2391, 2000, 391, "0.91"),  # band 375-391
        (2392, 2000, 392, "0.92"),  # band 392-411
        (2000, 2392, -392, "0.08"),
        (2400, 2000, 400, "0.92"),
        (2735, 2000, 400, "0.92"),  # Table B would say 0.99; capped at 400 first
        (2736, 2000, 400, "0.92"),  # Table B would say 1.00
        (2000, 2736, -400, "0.08"),
    ],
)
def test_f1_table_b_gives_pd_at_the_band_edges(own: int, opponent: int, d: int, pd: str) -> None:
    """fide F1 (8.1, Table B): PD for D at the band edges (3 | 4, 10 | 11, 391 | 392), for
    the higher and the lower rated player; over 400 the 8.54 cap applies before the
    table, so 735 and 736 both read D 400 -> 0.92."""
    duel = event("duel", {"P": own, "Q": opponent}, [("P", "Q", "=")])
    result = rate(start_list(listed("P", own), listed("Q", opponent)), duel)
    line = line_vs(result.report("P"), "Q")
    assert (line.d, line.pd, line.delta) == (d, D(pd), D("0.5") - D(pd))


@pytest.mark.parametrize(
    ("own", "d", "pd"),
    [(2344, 344, "0.88"), (2345, 345, "0.89"), (2350, 350, "0.89"), (2736, 350, "0.89")],
)
def test_f1_table_b_with_a_350_cap(own: int, d: int, pd: str) -> None:
    """fide F1 (8.1) with F2 (8.54) and max_difference 350: D 344 -> 0.88 (band 329-344),
    345 -> 0.89 (band 345-357); a larger D counts as 350 -> 0.89."""
    duel = event("duel", {"P": own, "Q": 2000}, [("P", "Q", "1-0")])
    result = rate(
        start_list(listed("P", own), listed("Q", 2000)), duel, rules=FideRules(max_difference=350)
    )
    line = line_vs(result.report("P"), "Q")
    assert (line.d, line.pd) == (d, D(pd))


@pytest.mark.parametrize(
    ("wins", "p", "dp", "ru"),
    [
        (1, "0.13", -322, 1678),  # 1/8 = 0.125 -> 0.13 (not 0.12 -> -336)
        (3, "0.38", -87, 1913),  # 3/8 = 0.375 -> 0.38 (not 0.37 -> -95)
    ],
)
def test_f1_table_a_p_is_rounded_half_up_to_two_decimals(
    wins: int, p: str, dp: int, ru: int
) -> None:
    """fide F1 (8.1, Table A): p is the score fraction rounded half up to two decimals
    before the look-up: an unrated player scoring 1/8 or 3/8 against eight 2000s in a
    Swiss gets Ru = 2000 + dp(0.13) = 1678, 2000 + dp(0.38) = 1913."""
    opponents = [f"R{n}" for n in range(1, 9)]
    games = [("X", r, "1-0" if n < wins else "0-1") for n, r in enumerate(opponents)]
    swiss = event("swiss", {"X": None, **dict.fromkeys(opponents, 2000)}, games)
    result = rate(start_list(*(listed(r, 2000) for r in opponents)), swiss)
    calc = only_calc(result.report("X"))
    assert (calc.rc, calc.p, calc.dp, calc.ru) == (2000, D(p), D(dp), ru)
    assert result.report("X").new_rating == ru


def test_f1_table_a_two_ninths_is_0_22() -> None:
    """fide F1 (8.1, Table A): the seed's H scores 2/9 = 0.222... -> p 0.22 -> dp -220
    (x 9/10 in a round robin = -198)."""
    h = only_calc(seed_result().report("H"))
    assert h.p == D("0.22")
    assert h.dp == D(-198)


# -- F2: rated players ----------------------------------------------------------------


def test_f2_delta_r_is_score_minus_pd_and_the_change_is_k_times_the_sum() -> None:
    """fide F2 (8.5): P 2200 (K 30): win vs 2100 (D 100 -> 0.64, +0.36), draw vs 2300
    (D -100 -> 0.36, +0.14), loss vs 2250 (D -50 -> 0.43, -0.43): ΣΔR = +0.07,
    expected 1.43, change 30 x 0.07 = +2.10 exactly; 2202.1 -> 2202."""
    swiss = event(
        "open",
        {"P": 2200, "Q1": 2100, "Q2": 2300, "Q3": 2250},
        [("P", "Q1", "1-0"), ("Q2", "P", "="), ("P", "Q3", "0-1")],
    )
    players = start_list(
        listed("P", 2200), listed("Q1", 2100), listed("Q2", 2300), listed("Q3", 2250)
    )
    p = rate(players, swiss).report("P")
    assert [(line.opponent, line.d, line.pd, line.delta) for line in p.games] == [
        ("Q1", 100, D("0.64"), D("0.36")),
        ("Q2", -100, D("0.36"), D("0.14")),
        ("Q3", -50, D("0.43"), D("-0.43")),
    ]
    assert (p.k, p.sum_delta, p.expected, p.change) == (30, D("0.07"), D("1.43"), D("2.10"))
    assert str(p.change) == "2.10"
    assert (p.old_rating, p.new_rating, p.old_games, p.new_games) == (2200, 2202, 40, 43)


def test_f2_difference_over_400_counts_as_400_both_ways() -> None:
    """fide F2 (8.54): 2000 vs 2500 draw: D -500 -> -400 -> 0.08, +0.42 x 30 = +12.60 ->
    2013; the 2500 (K 20): D 500 -> 400 -> 0.92, -0.42 x 20 = -8.40 -> 2491.6 -> 2492.
    A difference of exactly 400 is not capped (no note)."""
    swiss = event(
        "open",
        {"P": 2000, "Q": 2500, "R": 2400},
        [("P", "Q", "="), ("R", "P", "1-0")],
    )
    players = start_list(
        listed("P", 2000), listed("Q", 2500, 50, True), listed("R", 2400, 50, True)
    )
    result = rate(players, swiss)
    p, q = result.report("P"), result.report("Q")
    low, high = line_vs(p, "Q"), line_vs(q, "P")
    assert (low.opponent_rating, low.d, low.pd, low.delta) == (2500, -400, D("0.08"), D("0.42"))
    assert (high.opponent_rating, high.d, high.pd, high.delta) == (2000, 400, D("0.92"), D("-0.42"))
    assert "8.54" in low.note
    assert "8.54" in high.note
    exact = line_vs(p, "R")  # 2000 - 2400 = -400: PD 0.08, loss -0.08
    assert (exact.d, exact.pd, exact.delta, exact.note) == (-400, D("0.08"), D("-0.08"), "")
    # P: ΣΔR = 0.42 - 0.08 = 0.34 x 30 = 10.20 -> 2010.2 -> 2010
    assert (p.change, p.new_rating) == (D("10.20"), 2010)
    assert (q.change, q.new_rating) == (D("-8.40"), 2492)


@pytest.mark.parametrize(
    ("own", "opponents", "result", "change", "new"),
    [
        # draw vs 2035: D -35 -> 0.45, +0.05 x 30 = +1.5: 2001.5 -> 2002
        (2000, (2035,), "=", "1.50", 2002),
        # draw vs 2000: D 35 -> 0.55, -0.05 x 30 = -1.5: 2033.5 -> 2034 (half up, not
        # 2033 as rounding the change away from zero first would give)
        (2035, (2000,), "=", "-1.50", 2034),
        # losses vs 2200 (D 100 -> 0.64) and 2220 (D 80 -> 0.61): -1.25 x 30 = -37.5:
        # 2262.5 -> 2263
        (2300, (2200, 2220), "0-1", "-37.50", 2263),
    ],
)
def test_f2_new_rating_is_rounded_half_up(
    own: int, opponents: tuple[int, ...], result: str, change: str, new: int
) -> None:
    """fide F2 (8.57): the change K x ΣΔR is kept exact; the new rating own + change is
    rounded half up to an integer (x.5 -> x + 1)."""
    names = [f"Q{n}" for n in range(len(opponents))]
    swiss = event(
        "open",
        {"P": own, **dict(zip(names, opponents, strict=True))},
        [("P", name, result) for name in names],
    )
    players = start_list(
        listed("P", own), *(listed(n, r) for n, r in zip(names, opponents, strict=True))
    )
    p = rate(players, swiss).report("P")
    assert p.k == 30
    assert p.change == D(change)
    assert p.new_rating == new


def test_f2_a_change_of_minus_36_5_gives_the_rating_rounded_half_up() -> None:
    """fide F2 (8.57) with K 10: 2375 loses five games to 2200s: D 175 -> 0.73 each,
    ΣΔR = -3.65, change 10 x -3.65 = -36.50 (kept exact); 2338.5 -> 2339 (half up on the
    rating, which is also half away from zero since ratings are positive; rounding the
    change first, half away from zero, would give -37 -> 2338)."""
    names = [f"Q{n}" for n in range(5)]
    swiss = event(
        "open", {"P": 2375, **dict.fromkeys(names, 2200)}, [("P", n, "0-1") for n in names]
    )
    players = start_list(listed("P", 2375), *(listed(n, 2200) for n in names))
    p = rate(players, swiss, rules=FideRules(k=10, k_top=10)).report("P")
    assert (p.k, p.sum_delta, p.change, p.new_rating) == (10, D("-3.65"), D("-36.50"), 2339)


def official_rows() -> list[dict[str, str]]:
    with OFFICIAL_CSV.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [row for row in rows if row["expected_rating_change"]]


@pytest.mark.parametrize("row", official_rows(), ids=lambda row: row["case_id"])
def test_f2_reproduces_published_fide_calculations(row: dict[str, str]) -> None:
    """fide F2 (8.5, 8.54): FIDE's published individual calculations of 2008-2010
    (K 15/10, differences capped at 350): ΣPD equals the published expected score and
    K x (W - We) the published change (rounded to 0.1 there)."""
    own, k = int(row["own_rating"]), int(row["k"])
    ratings = [int(r) for r in row["opponent_ratings"].split(";")]
    scores = [D(s) for s in row["results"].split(";")]
    names = [f"O{n}" for n in range(len(ratings))]
    games = [
        ("P", name, {D(1): "1-0", D(0): "0-1"}.get(score, "="))
        for name, score in zip(names, scores, strict=True)
    ]
    swiss = event("official", {"P": own, **dict(zip(names, ratings, strict=True))}, games)
    rules = FideRules(k=k, k_top=k, max_difference=350)
    p = rate(start_list(listed("P", own, 100, True)), swiss, rules=rules).report("P")
    assert p.k == k
    assert p.expected == D(row["expected_points_expected"])
    assert p.sum_delta == sum(scores) - p.expected
    assert p.change is not None
    assert p.change.quantize(D("0.1")) == D(row["expected_rating_change"]).quantize(D("0.1"))


def test_f2_official_calculations_fixture_is_read() -> None:
    """fide F2: the published-calculations fixture has 11 rows with a change (row 104,
    a performance only, is skipped)."""
    assert sorted(row["case_id"] for row in official_rows()) == sorted(
        ["100", "101", "102", "103", "105", "106", "107", "108", "109", "111", "112"]
    )


# -- F3: K ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "games", "reached", "k", "change", "new"),
    [
        # draw vs 2200: D 150 -> 0.70, -0.20; K 20 is permanent once earned
        (2350, 40, True, 20, "-4.00", 2346),
        # D 250 -> 0.81, -0.31: 29 games -> K 30 (-9.30), 30 games -> K 20 (-6.20)
        (2450, 29, True, 30, "-9.30", 2441),
        (2450, 30, True, 20, "-6.20", 2444),
        # never reached 2400 (as the list says): K 30 whatever the games
        (2450, 100, False, 30, "-9.30", 2441),
        # D -100 -> 0.36, +0.14 x 30 = +4.20
        (2100, 30, False, 30, "4.20", 2104),
    ],
)
def test_f3_k_20_needs_2400_reached_and_30_games(
    rating: int, games: int, reached: bool, k: int, change: str, new: int
) -> None:
    """fide F3 (8.56): K 20 for a player whose published rating has reached 2400 and who
    has at least 30 rated games, permanently (2350 now, reached before: K 20); K 30 for
    everyone else (29 games, or never reached 2400)."""
    swiss = event("open", {"P": rating, "Q": 2200}, [("P", "Q", "=")])
    p = rate(start_list(listed("P", rating, games, reached), listed("Q", 2200)), swiss).report("P")
    assert (p.k, p.change, p.new_rating) == (k, D(change), new)


def test_f3_k_is_a_ruleset_parameter() -> None:
    """fide F3: K (30) and the top K (20) are parameters: with k 40 / k_top 10 the same
    draws (D 250 -> 0.81, -0.31) give -12.40 and -3.10."""
    swiss = event("open", {"P": 2450, "T": 2450, "Q": 2200}, [("P", "Q", "="), ("T", "Q", "=")])
    players = start_list(
        listed("P", 2450, 10, False), listed("T", 2450, 30, True), listed("Q", 2200)
    )
    result = rate(players, swiss, rules=FideRules(k=40, k_top=10))
    assert (result.report("P").k, result.report("P").change) == (40, D("-12.40"))
    assert (result.report("T").k, result.report("T").change) == (10, D("-3.10"))


def test_f3_players_missing_from_the_list_take_the_event_rating() -> None:
    """fide F3 (the spec's fide system, the starting list): a player missing from the list takes
    the event's rating, counts 30 games and has reached 2400 iff that rating is 2400 or
    more: 2400 -> K 20, 2399 -> K 30. Draws vs the listed Q 2200: D 200 / 199 -> 0.76,
    -0.26 x 20 = -5.20 -> 2394.8 -> 2395; x 30 = -7.80 -> 2391.2 -> 2391."""
    swiss = event("open", {"P4": 2400, "P3": 2399, "Q": 2200}, [("P4", "Q", "="), ("Q", "P3", "=")])
    result = rate(start_list(listed("Q", 2200)), swiss)
    p4, p3 = result.report("P4"), result.report("P3")
    assert (p4.old_rating, p4.old_games, p4.k, p4.change, p4.new_rating) == (
        2400,
        30,
        20,
        D("-5.20"),
        2395,
    )
    assert (p3.old_rating, p3.old_games, p3.k, p3.change, p3.new_rating) == (
        2399,
        30,
        30,
        D("-7.80"),
        2391,
    )
    assert p4.new_games == 31
    # Q: D -200 and -199 -> 0.24 each, +0.26 twice: 0.52 x 30 = 15.60 -> 2215.6 -> 2216
    assert (result.report("Q").change, result.report("Q").new_rating) == (D("15.60"), 2216)


def test_f3_seed_trf_without_a_list_takes_the_file_ratings() -> None:
    """fide F3: rated from the TRF fixture alone, A 2600, B 2500 and D 2400 have reached
    2400 with 30 games (K 20), F, G, J (K 30) do not: the seed's new ratings are the same
    as with the starting list; the games are 30 + 9."""
    result = seed_trf_result({})
    for player, (new, _expected, k, change) in SEED_RATED.items():
        report = result.report(TRF_KEYS[player])
        assert (report.k, report.change, report.new_rating) == (k, change, new), player
        assert (report.old_games, report.new_games) == (30, 39)
    for player, ru in SEED_UNRATED.items():
        assert result.report(TRF_KEYS[player]).new_rating == ru


def test_f3_start_list_csv_is_read() -> None:
    """fide F3 (the spec's starting list): id, name, rating, games, reached_2400."""
    players = read_start_list(SEED_LIST)
    assert list(players) == ["9000001", "9000002", "9000004", "9000006", "9000007", "9000010"]
    a, g = players["9000001"], players["9000007"]
    assert (a.name, a.rating, a.games, a.reached_2400) == ("Player A", 2600, 120, True)
    assert (g.name, g.rating, g.games, g.reached_2400) == ("Player G", 2300, 90, False)


# -- F4: first rating in one event --------------------------------------------------------


def test_f4_swiss_counts_only_rated_opponents_and_rc_is_their_rounded_average() -> None:
    """fide F4 (8.2, 8.22): in a Swiss only games against rated opponents count; Rc is
    their average rating rounded: (2201 + 2202)/2 = 2201.5 -> 2202. X scores 1/2 against
    them (his win over the unrated U does not count): 50 % -> Ru = Rc = 2202."""
    swiss = event(
        "open",
        {"X": None, "R1": 2201, "R2": 2202, "U": None},
        [("X", "R1", "1-0"), ("R2", "X", "1-0"), ("X", "U", "1-0")],
    )
    result = rate(start_list(listed("R1", 2201), listed("R2", 2202)), swiss)
    x = result.report("X")
    calc = only_calc(x)
    assert not calc.round_robin
    assert (calc.games, calc.points, calc.points_vs_rated) == (2, D(1), D(1))
    assert (calc.rc, calc.p, calc.ru, calc.bonus, calc.dp) == (2202, D("0.50"), 2202, None, None)
    assert (x.new_rating, x.new_games) == (2202, 2)
    # U has no game against a rated opponent: nothing to rate
    u = result.report("U")
    assert u.new_rating is None
    assert only_calc(u).discarded == "no games against rated opponents"


@pytest.mark.parametrize(("bonus", "ru"), [("12.5", 2038), ("15", 2045)])
def test_f4_8_23_bonus_per_half_point_over_50_percent(bonus: str, ru: int) -> None:
    """fide F4 (8.23): 3.5/4 against four 2000s is 1.5 over 50 % = 3 half points:
    Ru = 2000 + 3 x 12.5 = 2037.5 -> 2038 (default B), 2000 + 3 x 15 = 2045 (B 15)."""
    names = [f"R{n}" for n in range(4)]
    results = ["1-0", "1-0", "1-0", "="]
    swiss = event(
        "open",
        {"X": None, **dict.fromkeys(names, 2000)},
        [("X", n, r) for n, r in zip(names, results, strict=True)],
    )
    rules = FideRules(bonus_per_half_point=D(bonus))
    result = rate(start_list(*(listed(n, 2000) for n in names)), swiss, rules=rules)
    calc = only_calc(result.report("X"))
    assert (calc.rc, calc.p, calc.bonus, calc.ru) == (2000, D("0.88"), 3 * D(bonus), ru)
    assert result.report("X").new_rating == ru


def test_f4_default_bonus_is_12_5() -> None:
    """fide F4 Decision: B defaults to 12.5 per half point."""
    assert FideRules().bonus_per_half_point == D("12.5")


def test_f4_8_24_swiss_below_50_percent_adds_dp() -> None:
    """fide F4 (8.24): in a Swiss, 1/4 against four 2000s: p 0.25 -> dp -193 (not scaled
    by n/(n+1)): Ru = 1807."""
    names = [f"R{n}" for n in range(4)]
    results = ["1-0", "0-1", "0-1", "0-1"]
    swiss = event(
        "open",
        {"X": None, **dict.fromkeys(names, 2000)},
        [("X", n, r) for n, r in zip(names, results, strict=True)],
    )
    result = rate(start_list(*(listed(n, 2000) for n in names)), swiss)
    calc = only_calc(result.report("X"))
    assert (calc.rc, calc.p, calc.dp, calc.ru) == (2000, D("0.25"), D(-193), 1807)


def test_f4_8_25_round_robin_below_50_percent_scales_dp() -> None:
    """fide F4 (8.25): in the seed's round robin (n = 9) H's dp(0.22) = -220 counts
    -220 x 9/10 = -198 (Ru 2348 - 198 = 2150 before F8) and I's dp(0.11) = -351 counts
    -315.9 (Ru 2032.1 -> 2032 before F8)."""
    result = seed_result()
    h, i = only_calc(result.report("H")), only_calc(result.report("I"))
    assert h.dp == D(-198)
    assert "Ru = 2150" in h.steps[1]
    assert i.dp == D("-315.9")
    assert "Ru = 2032" in i.steps[1]


def test_f4_round_robin_rc_from_rar_and_dpa_and_all_games_count() -> None:
    """fide F4 (8.2): in a round robin all the unrated player's games count (C: 7 in 9
    games, 4 of them against rated players) and Rc = Rar - dpa x n/(n+1) = 2375 -
    29.5 x 9/10 = 2348.45 -> 2348; 8.23 above 50 % adds B per half point, unscaled."""
    c = only_calc(seed_result().report("C"))
    assert (c.games, c.points, c.points_vs_rated) == (9, D(7), D(4))
    assert (c.rc, c.p, c.bonus, c.dp, c.ru) == (2348, D("0.78"), D(75), None, 2423)


@pytest.mark.parametrize("vs_r1", ["=", "0-1"])
def test_f4_8_21_less_than_one_point_against_rated_discards_the_event(vs_r1: str) -> None:
    """fide F4 (8.21) and F7 (8.52): X scores 0.5 (or 0) against the rated R1, R2 - his
    win over the unrated U does not help: the event is discarded for him (no Rc, no Ru,
    no rating), and his games do not count for R1 and R2 either."""
    swiss = event(
        "open",
        {"X": None, "R1": 2000, "R2": 2000, "U": None},
        [("X", "R1", vs_r1), ("R2", "X", "1-0"), ("X", "U", "1-0")],
    )
    result = rate(start_list(listed("R1", 2000), listed("R2", 2000)), swiss)
    x = result.report("X")
    calc = only_calc(x)
    assert "(8.21)" in calc.discarded
    assert "less than 1 point" in calc.discarded
    assert (calc.rc, calc.ru) == (None, None)
    assert (x.new_rating, x.state, x.new_games) == (None, "unrated", 0)
    for rated_id in ("R1", "R2"):
        report = result.report(rated_id)
        line = line_vs(report, "X")
        assert (line.opponent_rating, line.d, line.pd, line.delta) == (None, None, None, None)
        assert "8.21" in line.note
        assert "F7" in line.note
        assert (report.new_rating, report.change, report.new_games) == (2000, None, 40)


def test_f4_8_21_in_a_round_robin_counts_only_points_against_rated() -> None:
    """fide F4 (8.21): in a round robin, X scores 1 point but only against the unrated U
    (0 against the rated): discarded, although all games count for p."""
    rr = crosstable(
        "rr",
        {"R1": 2200, "R2": 2100, "U": None, "X": None},
        """
           R1 R2 U X
        R1 x  =  1 1
        R2 =  x  1 1
        U  0  0  x 0
        X  0  0  1 x
        """,
    )
    result = rate(start_list(listed("R1", 2200), listed("R2", 2100)), rr)
    calc = only_calc(result.report("X"))
    assert (calc.points, calc.points_vs_rated) == (D(1), D(0))
    assert "(8.21)" in calc.discarded
    assert result.report("X").new_rating is None


def two_swiss_for_8_21() -> tuple[dict[str, ListedPlayer], Event, Event]:
    """The issue's example: X scores 2/3 in one Swiss (beats R1 2000 and R2 2100, loses
    to R3 2200) and 0.5/3 in another (draws with S1, loses to S2 and S3, all 2000)."""
    good = event(
        "good",
        {"X": None, "R1": 2000, "R2": 2100, "R3": 2200},
        [("X", "R1", "1-0"), ("R2", "X", "0-1"), ("X", "R3", "0-1")],
    )
    poor = event(
        "poor",
        {"X": None, "S1": 2000, "S2": 2000, "S3": 2000},
        [("X", "S1", "="), ("S2", "X", "1-0"), ("X", "S3", "0-1")],
    )
    players = start_list(
        listed("R1", 2000), listed("R2", 2100), listed("R3", 2200),
        *(listed(s, 2000) for s in ("S1", "S2", "S3")),
    )  # fmt: skip
    return players, good, poor


def test_f4_8_21_applies_only_to_the_first_tournament_against_rated_opponents() -> None:
    """fide F4 (8.21, "in the first tournament in which he meets them") with F5 (8.3):
    X's 0.5/3 in his second tournament is not discarded; he is rated from 6 games, not 3.

    good: Rc (2000 + 2100 + 2200)/3 = 2100, 2/3 is one half point over 50 %: Ru 2112.5
    -> 2113. poor: Rc 2000, p 0.5/3 = 0.17 -> dp -273: Ru 1727. F5: 2.5/6, Rc = (2100 x 3
    + 2000 x 3)/6 = 2050, p 0.42 -> dp -57: Rn 1993 (before the fix: 2113 from 3 games).
    F7: S1 and S2 rate their games with X's Ru 1727: D 273 -> 0.83; S1's draw -0.33 x 30 =
    -9.90 -> 1990; S2's win +0.17 x 30 = +5.10 -> 2005."""
    players, good, poor = two_swiss_for_8_21()
    result = rate(players, good, poor)
    x = result.report("X")
    assert [(c.event, c.ru, c.discarded) for c in x.first_rating] == [
        ("good", 2113, ""),
        ("poor", 1727, ""),
    ]
    assert (x.new_rating, x.new_games) == (1993, 6)
    assert "2.5/6" in x.combined
    assert "12300/6" in x.combined
    assert x.met_rated
    s1, s2 = result.report("S1"), result.report("S2")
    assert (line_vs(s1, "X").opponent_rating, line_vs(s1, "X").pd) == (1727, D("0.83"))
    assert (s1.change, s1.new_rating) == (D("-9.90"), 1990)
    assert (s2.change, s2.new_rating) == (D("5.10"), 2005)


def test_f4_8_21_still_discards_the_first_tournament_when_it_comes_first() -> None:
    """fide F4 (8.21): the same two tournaments the other way round: the 0.5/3 is now his
    first tournament against rated opponents and is discarded; the 2/3 alone gives 2113.
    S1's game against X is not rated (F7)."""
    players, good, poor = two_swiss_for_8_21()
    result = rate(players, poor, good)
    x = result.report("X")
    assert "(8.21)" in x.first_rating[0].discarded
    assert "first tournament" in x.first_rating[0].discarded
    assert (x.first_rating[1].ru, x.first_rating[1].discarded) == (2113, "")
    assert (x.new_rating, x.new_games) == (2113, 3)
    assert line_vs(result.report("S1"), "X").delta is None


def test_f4_8_21_met_rated_opponents_in_an_earlier_period_carries_over() -> None:
    """fide F4 (8.21) across periods: X's 0.5/3 in period 1 is his first tournament against
    rated opponents: discarded, no rating; the next list says he has met rated opponents
    (met_rated), so the same 0.5/3 in period 2 counts: Ru = 2000 + dp(0.17) = 1727."""
    players, _good, poor = two_swiss_for_8_21()
    system = FideSystem()
    first = system.rate_period(players, [poor])
    assert first.report("X").new_rating is None
    carried = system.next_list(first)
    assert carried["X"].met_rated
    assert (carried["X"].rating, carried["X"].games, carried["X"].pending) == (None, 0, ())
    second = system.rate_period(carried, [poor])
    x = second.report("X")
    assert only_calc(x).discarded == ""
    assert (x.new_rating, x.new_games) == (1727, 3)


def test_f4_round_robin_n_is_the_number_of_his_opponents() -> None:
    """fide F4 (8.2): Ra = Rar - dpa x n/(n+1), n = number of HIS opponents. X's game vs C
    was not played (forfeit), so n = 2 for X while A and B have 3 games.
    Rar = 6900/3 = 2300; A 2.5/3 = 0.83 -> 273, B 1/3 = 0.33 -> -125, C 0.5/2 = 0.25 ->
    -193: dpa = -45/3 = -15. Ra = 2300 + 15 x 2/3 = 2310 -> Rc 2310; X 1/2 = 50 %:
    Ru = 2310 (with n = 3: 2300 + 11.25 = 2311.25 -> 2311)."""
    rr = crosstable(
        "rr",
        {"A": 2400, "B": 2300, "C": 2200, "X": None},
        """
           A B C X
        A  x = 1 1
        B  = x = 0
        C  0 = x .
        X  0 1 . x
        """,
    )
    players = start_list(listed("A", 2400), listed("B", 2300), listed("C", 2200))
    calc = only_calc(rate(players, rr).report("X"))
    assert (calc.games, calc.points) == (2, D(1))
    assert calc.rc == 2310
    assert calc.ru == 2310


# -- F5: several events -----------------------------------------------------------------


def three_swiss_events() -> list[Event]:
    """The 8.34 example: X meets opponents all rated 2200 (3 games, 1 point), all 2150
    (5 games, 3 points; plus a draw with the unrated U, which does not count) and all
    2200 (4 games, 2.5 points)."""
    first = event(
        "first",
        {"X": None, "R11": 2200, "R12": 2200, "R13": 2200},
        [("X", "R11", "1-0"), ("X", "R12", "0-1"), ("R13", "X", "1-0")],
    )
    second = event(
        "second",
        {"X": None, "R21": 2150, "R22": 2150, "R23": 2150, "R24": 2150, "R25": 2150, "U": None},
        [
            ("X", "R21", "1-0"),
            ("R22", "X", "0-1"),
            ("X", "R23", "1-0"),
            ("X", "R24", "0-1"),
            ("R25", "X", "1-0"),
            ("X", "U", "="),
        ],
    )
    third = event(
        "third",
        {"X": None, "R31": 2200, "R32": 2200, "R33": 2200, "R34": 2200},
        [("X", "R31", "1-0"), ("R32", "X", "0-1"), ("X", "R33", "="), ("X", "R34", "0-1")],
    )
    return [first, second, third]


def three_swiss_players() -> dict[str, ListedPlayer]:
    return start_list(
        *(listed(f"R1{n}", 2200) for n in (1, 2, 3)),
        *(listed(f"R2{n}", 2150) for n in (1, 2, 3, 4, 5)),
        *(listed(f"R3{n}", 2200) for n in (1, 2, 3, 4)),
    )


@pytest.mark.parametrize(
    ("bonus", "per_event", "rn"),
    [("12.5", (2075, 2163, 2213), 2192), ("15", (2075, 2165, 2215), 2194)],
)
def test_f5_8_34_three_events_are_combined(
    bonus: str, per_event: tuple[int, int, int], rn: int
) -> None:
    """fide F5 (8.3, 8.32, the 8.34 example): Rc = (2200 x 3 + 2150 x 5 + 2200 x 4)/12 =
    26150/12 = 2179.17 -> 2179; 6.5/12 is one half point over 50 %: Rn = 2179 + 12.5 =
    2191.5 -> 2192 (B 12.5), 2179 + 15 = 2194 (B 15). Each event meets 8.21 on its own
    (1, 3 and 2.5 points): Ru 2200 + dp(0.33) = 2075; 2150 + B; 2200 + B."""
    rules = FideRules(bonus_per_half_point=D(bonus))
    result = rate(three_swiss_players(), *three_swiss_events(), rules=rules)
    x = result.report("X")
    assert [calc.event for calc in x.first_rating] == ["first", "second", "third"]
    assert [(c.games, c.points) for c in x.first_rating] == [(3, D(1)), (5, D(3)), (4, D("2.5"))]
    assert [c.rc for c in x.first_rating] == [2200, 2150, 2200]
    assert tuple(c.ru for c in x.first_rating) == per_event
    assert all(not c.discarded for c in x.first_rating)
    assert (x.new_rating, x.new_games, x.state) == (rn, 12, "rated")
    assert "6.5/12" in x.combined
    assert "26150/12" in x.combined
    assert "2179" in x.combined
    assert x.combined.endswith(f"= {rn}")


def test_f5_a_discarded_event_does_not_count_in_the_combination() -> None:
    """fide F5 (8.3) with F4 (8.21): the same three events, but X scores 0.5 in the first
    (a draw with R11 instead of a win): that event is discarded and the other two are
    combined: Rc = (2150 x 5 + 2200 x 4)/9 = 19550/9 = 2172.2 -> 2172; 5.5/9 is two half
    points over 50 % (4.5): Rn = 2172 + 2 x 12.5 = 2197."""
    first, second, third = three_swiss_events()
    first = event(
        "first",
        {"X": None, "R11": 2200, "R12": 2200, "R13": 2200},
        [("X", "R11", "="), ("X", "R12", "0-1"), ("R13", "X", "1-0")],
    )
    x = rate(three_swiss_players(), first, second, third).report("X")
    assert "(8.21)" in x.first_rating[0].discarded
    assert (x.new_rating, x.new_games) == (2197, 9)
    assert "19550/9" in x.combined


# -- F6: the floor ------------------------------------------------------------------------


def floor_event(opponent_rating: int) -> tuple[dict[str, ListedPlayer], Event]:
    """X scores 1/4 against four players rated ``opponent_rating``: Ru = Rc - 193."""
    names = [f"Q{n}" for n in range(4)]
    results = ["1-0", "0-1", "0-1", "0-1"]
    swiss = event(
        "open",
        {"X": None, **dict.fromkeys(names, opponent_rating)},
        [("X", n, r) for n, r in zip(names, results, strict=True)],
    )
    return start_list(*(listed(n, opponent_rating) for n in names)), swiss


def test_f6_below_the_floor_gets_no_rating_and_a_note() -> None:
    """fide F6 (8.31, 8.33): 1/4 against four 1100s: Ru = 1100 - 193 = 907, below the
    default floor 1000: ignored, not published, and the report says why."""
    players, swiss = floor_event(1100)
    result = rate(players, swiss)
    x = result.report("X")
    calc = only_calc(x)
    assert calc.ru == 907
    assert "below the rating floor 1000" in calc.discarded
    assert "F6" in calc.discarded
    assert (x.new_rating, x.state, x.new_games) == (None, "unrated", 0)
    entry = next(e for e in new_list(result) if e.player == "X")
    assert entry.as_mapping()["rating"] is None
    text = report_text(result)
    assert "Ru 907 is below the rating floor 1000" in text
    assert FideRules().floor == 1000


@pytest.mark.parametrize(
    ("floor", "opponents", "ru", "published"),
    [
        (1000, 1193, 1000, True),  # exactly the floor: published
        (1000, 1192, 999, False),
        (1200, 1393, 1200, True),
        (1200, 1392, 1199, False),
    ],
)
def test_f6_a_rating_at_the_floor_is_published(
    floor: int, opponents: int, ru: int, published: bool
) -> None:
    """fide F6 (8.31, 8.33): only Rn at or above the floor (a ruleset parameter) is
    published: Ru = opponents - 193 (1/4)."""
    players, swiss = floor_event(opponents)
    x = rate(players, swiss, rules=FideRules(floor=floor)).report("X")
    assert only_calc(x).ru == ru
    assert x.new_rating == (ru if published else None)
    assert bool(only_calc(x).discarded) is not published


# -- F7: rated players meeting unrated ones -------------------------------------------------


def test_f7_a_game_against_an_unrated_counts_with_his_ru_from_this_event() -> None:
    """fide F7 (8.52, 8.53): X (unrated) beats R1 2000 and R2 2100, loses to R3 2200:
    Rc 2100, 2/3 is one half point over 50 %: Ru = 2112.5 -> 2113. R1's game counts with
    2113: D -113 -> 0.35, loss -0.35 x 30 = -10.50 -> 1989.5 -> 1990. R3: D 87 -> 0.62,
    win +0.38 x 30 = 11.40 -> 2211.4 -> 2211."""
    swiss = event(
        "open",
        {"X": None, "R1": 2000, "R2": 2100, "R3": 2200},
        [("X", "R1", "1-0"), ("R2", "X", "0-1"), ("X", "R3", "0-1")],
    )
    result = rate(start_list(listed("R1", 2000), listed("R2", 2100), listed("R3", 2200)), swiss)
    assert only_calc(result.report("X")).ru == 2113
    r1, r3 = result.report("R1"), result.report("R3")
    line = line_vs(r1, "X")
    assert (line.opponent_rating, line.d, line.pd, line.delta) == (
        2113,
        -113,
        D("0.35"),
        D("-0.35"),
    )
    assert (r1.change, r1.new_rating, r1.new_games) == (D("-10.50"), 1990, 41)
    line = line_vs(r3, "X")
    assert (line.opponent_rating, line.d, line.pd, line.delta) == (2113, 87, D("0.62"), D("0.38"))
    assert (r3.change, r3.new_rating) == (D("11.40"), 2211)


def test_f7_the_ru_is_the_one_from_the_same_event() -> None:
    """fide F7 (8.52): with several events, each rated opponent uses X's Ru from the
    event they played in (2075, 2163, 2213), never the combined Rn 2192.
    R11 2200 - 2075 = 125 -> 0.67, loss -0.67; R21 2150 - 2163 = -13 -> 0.48, loss
    -0.48; R31 2200 - 2213 = -13 -> 0.48, loss -0.48."""
    result = rate(three_swiss_players(), *three_swiss_events())
    for rated_id, ru, d, pd in [
        ("R11", 2075, 125, "0.67"),
        ("R21", 2163, -13, "0.48"),
        ("R31", 2213, -13, "0.48"),
    ]:
        line = line_vs(result.report(rated_id), "X")
        assert (line.opponent_rating, line.d, line.pd, line.delta) == (ru, d, D(pd), -D(pd))
    assert result.report("X").new_rating == 2192


def test_f7_a_game_against_a_discarded_unrated_does_not_count() -> None:
    """fide F7 (8.52): the opponent scored less than 1 point against rated players
    (8.21): the rated player's game against him is listed but not rated."""
    swiss = event(
        "open",
        {"R": 2000, "X": None, "Q": 2100},
        [("R", "X", "1-0"), ("R", "Q", "=")],
    )
    r = rate(start_list(listed("R", 2000), listed("Q", 2100)), swiss).report("R")
    assert len(r.games) == 2
    assert line_vs(r, "X").delta is None
    # only the draw with Q counts: D -100 -> 0.36, +0.14 x 30 = 4.20 -> 2004
    assert (r.sum_delta, r.change, r.new_rating, r.new_games) == (D("0.14"), D("4.20"), 2004, 41)


def test_f7_listed_but_blank_in_the_event_is_rated_but_unrated_for_opponents() -> None:
    """fide F7 (8.4): P is on the starting list (2200, K 30) but unrated in the event's
    file. He is rated himself: vs R1 2100 D 100 -> 0.64, win +0.36; vs R2 2300 D -100 ->
    0.36, draw +0.14: ΣΔR 0.50 x 30 = +15 -> 2215. For his opponents he is unrated, with
    his Ru from this event: Rc (2100 + 2300)/2 = 2200, 1.5/2 -> + 12.5 = 2212.5 -> 2213.
    R1: D -113 -> 0.35, loss -0.35 x 30 = -10.50 -> 2089.5 -> 2090; R2: D 87 -> 0.62,
    draw -0.12 x 30 = -3.60 -> 2296.4 -> 2296."""
    swiss = event(
        "open",
        {"P": None, "R1": 2100, "R2": 2300},
        [("P", "R1", "1-0"), ("R2", "P", "=")],
    )
    players = start_list(listed("P", 2200), listed("R1", 2100), listed("R2", 2300))
    result = rate(players, swiss)
    p = result.report("P")
    assert (p.old_rating, p.k) == (2200, 30)
    assert [
        (line.opponent, line.opponent_rating, line.d, line.pd, line.delta) for line in p.games
    ] == [
        ("R1", 2100, 100, D("0.64"), D("0.36")),
        ("R2", 2300, -100, D("0.36"), D("0.14")),
    ]
    assert (p.sum_delta, p.change, p.new_rating, p.state) == (D("0.50"), D("15.00"), 2215, "rated")
    r1, r2 = result.report("R1"), result.report("R2")
    assert line_vs(r1, "P").opponent_rating == 2213
    assert (line_vs(r1, "P").d, line_vs(r1, "P").pd) == (-113, D("0.35"))
    assert (r1.change, r1.new_rating) == (D("-10.50"), 2090)
    assert line_vs(r2, "P").opponent_rating == 2213
    assert (line_vs(r2, "P").d, line_vs(r2, "P").pd) == (87, D("0.62"))
    assert (r2.change, r2.new_rating) == (D("-3.60"), 2296)


# -- the new list and the reports -----------------------------------------------------------


def test_new_list_entries() -> None:
    """fide (the spec's fide system, the new list; its rating list): id = FIDE id, else the
    name in the TRF file; rating "2613.00", display "2613", state rated / unrated."""
    entries = {entry.player: entry.as_mapping() for entry in new_list(seed_trf_result())}
    assert entries["9000001"] == {
        "player": "9000001",
        "pool": "fide",
        "rating": "2613.00",
        "display": "2613",
        "state": "rated",
        "games": 129,
    }
    assert entries["Player C"] == {
        "player": "Player C",
        "pool": "fide",
        "rating": "2423.00",
        "display": "2423",
        "state": "rated",
        "games": 9,
    }
    assert entries["9000007"]["rating"] == "2264.00"
    assert entries["Player I"]["rating"] == "2006.00"
    assert len(entries) == 10


def test_new_list_unrated_without_a_first_rating_has_rating_none() -> None:
    """fide (the new list): an unrated player who did not get a rating is listed with
    rating null and state unrated."""
    swiss = event("open", {"X": None, "R": 2000}, [("X", "R", "0-1")])
    entries = {
        e.player: e.as_mapping() for e in new_list(rate(start_list(listed("R", 2000)), swiss))
    }
    assert entries["X"]["rating"] is None
    assert entries["X"]["state"] == "unrated"
    assert entries["X"]["display"] == ""


def test_report_text_shows_a_rated_players_calculation() -> None:
    """fide F2 (report): each opponent, the rating used, D, PD, the score, ΔR; ΣΔR, K and
    the change."""
    text = report_text(seed_result())
    assert "B = 15 per half point" in text
    assert "A: rated 2600, 120 games, K 20" in text
    assert re.search(r" J +2300 +300 +0\.85 +0 +-0\.85\n", text)
    assert re.search(r" I +2006 +400 +0\.92 +1 +\+0\.08 +D capped at 400 \(8\.54\)\n", text)
    assert "ΣΔR = +0.64 (score 8, expected 7.36); K 20 × +0.64 = +12.80; 2600 → 2613" in text
    assert "K 30 × -3.21 = -96.30; 2300 → 2204" in text


def test_report_text_shows_an_unrated_players_calculation() -> None:
    """fide F4/F8 (report): Rc, p, dp or bonus, Ru and the iteration steps."""
    text = report_text(seed_result())
    assert "C: unrated" in text
    assert "7 in 9 games (4 against rated opponents)" in text
    assert "Ra = Rar − dpa × 9/10" in text
    assert "p = 0.78: Ru = Rc + 75 = 2423" in text
    assert "dp(0.22) × 9/10 = -198.00: Ru = 2150" in text
    assert "count as 2550: Rc = 2348 − 50/9 = 2342" in text
    assert "new rating 2144" in text
    assert "count as 2432: Rc = 2348 − 236/9 = 2322" in text
    assert "new rating 2006" in text


def test_report_text_says_why_a_result_was_discarded() -> None:
    """fide F4 (8.21), F7 (report): the discarded event and the rated opponent's game
    that is not rated, with the reason."""
    swiss = event(
        "open",
        {"X": None, "R1": 2000, "R2": 2000},
        [("X", "R1", "="), ("R2", "X", "1-0")],
    )
    text = report_text(rate(start_list(listed("R1", 2000), listed("R2", 2000)), swiss))
    assert "X: unrated" in text
    assert "discarded: 0.5 against rated opponents, less than 1 point" in text
    assert "no rating this period" in text
    assert "not rated: opponent unrated" in text
    assert "no rated games this period: unchanged" in text


def test_report_json_is_exact() -> None:
    """fide (report): the JSON report keeps numbers as exact strings."""
    rows = {row["player"]: row for row in json.loads(report_json(seed_result()))}
    assert rows["A"]["new_rating"] == 2613
    assert rows["A"]["change"] == "12.80"
    assert rows["A"]["expected"] == "7.36"
    assert rows["I"]["first_rating"][0]["ru"] == 2006
    assert rows["I"]["first_rating"][0]["dp"] == "-315.9"


def test_an_unrated_players_report_lists_his_games() -> None:
    """fide F4 (report): each game of the unrated player's event, against a rated
    opponent at that opponent's rating, else without one and why; in the JSON and the
    text report alike."""
    result = seed_result()
    lines = result.report("I").first_rating[0].lines
    assert {(g.opponent, g.opponent_rating, g.score) for g in lines} == {
        ("A", 2600, Decimal(0)), ("B", 2500, Decimal(0)), ("C", None, Decimal(0)),
        ("D", 2400, Decimal(0)), ("E", None, Decimal(0)), ("F", 2150, Decimal(0)),
        ("G", 2300, Decimal(0)), ("H", None, Decimal(0)), ("J", 2300, Decimal(1)),
    }  # fmt: skip
    assert len(lines) == 9
    unrated = [g for g in lines if g.opponent_rating is None]
    assert {g.opponent for g in unrated} == {"C", "E", "H"}
    assert all("not in Rar" in g.note for g in unrated)
    rows = {row["player"]: row for row in json.loads(report_json(result))}
    stored = {g["opponent"]: g for g in rows["I"]["first_rating"][0]["lines"]}
    assert (stored["B"]["opponent_rating"], stored["J"]["score"]) == (2500, "1")
    assert stored["C"]["opponent_rating"] is None and "not in Rar" in stored["C"]["note"]
    text = report_text(result)
    assert "unrated opponent: counts in p, not in Rar (F4)" in text
