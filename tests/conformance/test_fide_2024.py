"""Conformance tests for the ``fide-2024`` ruleset: the FIDE Rating Regulations in
force since 1 March 2024 with the amendment of 1 October 2025 (handbook B.02,
https://handbook.fide.com/chapter/B022024), restated in docs/fide-2024.md.

One hand-computed test per rule, named after it, and three of FIDE's own published
calculations reproduced exactly (F-N01, F-P01/F-P02, F-P05: FIDE's per-player
calculation pages, as transcribed with their URLs in github.com/zugzwang-foundation/
Chess-ELO-Rating, tests/fixtures/fide_calculator/, commit 477bdd94; the numbers used
are written below as literals, with the FIDE URL of each). Table A / Table B are the
handbook's 8.1.1 / 8.1.2 (the same as the seed's, tests/test_tables.py).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest

from chessrate.systems.fide import (
    RULESETS,
    Event,
    FideRules,
    FideSystem,
    ListedPlayer,
    PendingGame,
    PeriodResult,
    adjust_2024,
    adjusted_rating,
    format_pending,
    months_between,
    parse_pending,
)
from tests.conformance.test_fide import event, line_vs, listed, start_list

D = Decimal
RULES = RULESETS["fide-2024"]
SYSTEM = FideSystem(RULES)


def rate(
    players: dict[str, ListedPlayer], *events: Event, period: date | None = None
) -> PeriodResult:
    return SYSTEM.rate_period(players, list(events), period)


def newcomer(
    player: str = "X",
    *,
    birth_year: int | None = None,
    pending: tuple[PendingGame, ...] = (),
    met_rated: bool = False,
) -> ListedPlayer:
    """An unrated player on the list (no games yet)."""
    return ListedPlayer(
        player, player, None, 0, False,
        birth_year=birth_year, pending=pending, met_rated=met_rated,
    )  # fmt: skip


def swiss(
    name: str, player: str, opponents: list[tuple[int, str]], prefix: str, own: int | None = None
) -> tuple[Event, list[ListedPlayer]]:
    """``player`` (rated ``own`` in the file, None: unrated) meets one opponent per
    ``(rating, result)``, results from his side (``1-0`` he wins); the opponents are
    ``prefix0``, ``prefix1``, ... on the list with 40 games."""
    names = [f"{prefix}{n}" for n in range(len(opponents))]
    ratings: dict[str, int | None] = {player: own}
    ratings.update({n: r for n, (r, _) in zip(names, opponents, strict=True)})
    games = [(player, n, res) for n, (_, res) in zip(names, opponents, strict=True)]
    return event(name, ratings, games), [
        listed(n, r) for n, (r, _) in zip(names, opponents, strict=True)
    ]


# -- the ruleset by name ---------------------------------------------------------------


def test_fide2024_rulesets_are_chosen_by_name() -> None:
    """The seed stays the default; fide-2024 holds the handbook's numbers (docs/fide-2024.md);
    an unknown name is refused with the known ones."""
    assert FideRules.named("seed") == FideRules() == RULESETS["seed"]
    r = FideRules.named("fide-2024")
    assert (r.floor, r.first_rating_min_games, r.pool_months) == (1400, 5, 26)
    assert (r.hypothetical_opponents, r.hypothetical_rating, r.first_rating_max) == (2, 1800, 2200)
    assert (r.k_new, r.new_player_games, r.k, r.k_top, r.top_rating) == (40, 30, 20, 10, 2400)
    assert (r.k_junior, r.junior_age, r.junior_below, r.k_games_cap) == (40, 18, 2300, 700)
    assert (r.max_difference, r.uncapped_from) == (400, 2650)
    assert (r.adjustment_factor, r.adjustment_from, r.adjustment_below) == (D("0.4"), 1000, 2000)
    with pytest.raises(ValueError, match="known: seed, fide-2024"):
        FideRules.named("fide-2025")


# -- published worked examples ----------------------------------------------------------


def test_fide2024_published_first_rating_f_n01() -> None:
    """fide-2024 8.2.2, 8.2.3, 7.1.4: FIDE's published first rating of player 39998126
    (https://ratings.fide.com/a_indv_calculation.php?id_number=39998126&rating_period=
    2025-12-01&t=0; 1st Annual Washington Dulles Open, 7-9 Nov 2025; first published
    rating 1922 on the December 2025 list, K 40). Five games against rated opponents:
    1902 draw, 1877 draw, 1884 win, 2012 loss, 1832 win: 3 points.
    Ra = (9507 + 2 x 1800) / 7 = 1872.43; p = (3 + 1) / 7 = 0.571 -> 0.57 -> dp 50;
    Ru = 1922.43 -> 1922. (The archived 2022 rule, 1901.4 + 20, gives FIDE's printed Rp
    1921, which is not the published rating.)"""
    dulles, opponents = swiss(
        "Dulles",
        "X",
        [(1902, "="), (1877, "="), (1884, "1-0"), (2012, "0-1"), (1832, "1-0")],
        "O",
    )
    players = start_list(newcomer(birth_year=2004), *opponents)
    result = rate(players, dulles, period=date(2025, 12, 1))
    x = result.report("X")
    assert x.pool is not None
    assert (x.pool.games, x.pool.points, x.pool.p, x.pool.dp) == (5, D(3), D("0.57"), 50)
    assert x.pool.ra.quantize(D("0.01")) == D("1872.43")
    assert (x.pool.ru, x.new_rating, x.new_games, x.next_k) == (1922, 1922, 5, 40)
    assert "Ra = (9507 + 2 × 1800) / 7 = 1872.43" in x.combined
    assert x.pending == ()
    carried = SYSTEM.next_list(result)["X"]
    assert (carried.rating, carried.games, carried.k, carried.birth_year) == (1922, 5, 40, 2004)


def f_p01_event() -> tuple[Event, dict[str, ListedPlayer]]:
    """1st Annual Washington Dulles Open (7-9 Nov 2025) as FIDE rated it for player
    2016192, rated 2813, K 10 (https://ratings.fide.com/a_indv_calculation.php?id_number=
    2016192&rating_period=2025-12-01&t=0): wins against 1787, 2025, 2310 and P2 (2400,
    player 9953698, whose calculation https://ratings.fide.com/a_indv_calculation.php?
    id_number=9953698&rating_period=2025-12-01&t=0 shows this loss against "2800 *"),
    draw against 2505."""
    games = [
        ("P1", "A", "1-0"),
        ("B", "P1", "0-1"),
        ("P1", "C", "1-0"),
        ("P2", "P1", "0-1"),
        ("P1", "E", "="),
    ]
    ratings: dict[str, int | None] = {
        "P1": 2813, "A": 1787, "B": 2025, "C": 2310, "P2": 2400, "E": 2505,
    }  # fmt: skip
    players = start_list(
        listed("P1", 2813, 1000, True),
        listed("P2", 2400, 300, True),
        *(listed(p, ratings[p] or 0) for p in ("A", "B", "C", "E")),
    )
    return event("Dulles", ratings, games), players


def test_fide2024_published_8_3_1_real_difference_from_2650_and_8_3_4_rounding_f_p01() -> None:
    """fide-2024 8.3.1 (1 Oct 2025) and 8.3.4, FIDE's published calculation of player
    2016192 (December 2025 list: 2813 -> 2810): rated 2813, he uses the real differences:
    1026 and 788 -> PD 1.00 (+0.00), 503 -> 0.96 (+0.04), 413 -> 0.93 (+0.07), 308 ->
    0.86 (draw -0.36): ΣΔR -0.25, K 10: -2.50, rounded away from zero to -3: 2810
    (rounding the rating half up, as the seed's 8.57, would give 2810.5 -> 2811). His
    opponent P2, rated 2400,
    sees the difference capped: -413 -> -400 -> PD 0.08, loss -0.08, as published."""
    dulles, players = f_p01_event()
    result = rate(players, dulles, period=date(2025, 12, 1))
    p1 = result.report("P1")
    assert [(line.d, line.pd, line.delta) for line in p1.games] == [
        (1026, D("1.00"), D("0.00")),
        (788, D("1.00"), D("0.00")),
        (503, D("0.96"), D("0.04")),
        (413, D("0.93"), D("0.07")),
        (308, D("0.86"), D("-0.36")),
    ]
    assert "real difference counts (8.3.1)" in line_vs(p1, "A").note
    assert (p1.k, p1.sum_delta, p1.change, p1.new_rating) == (10, D("-0.25"), D("-2.50"), 2810)
    versus = line_vs(result.report("P2"), "P1")
    assert (versus.d, versus.pd, versus.delta) == (-400, D("0.08"), D("-0.08"))
    assert "D capped at 400 (8.3.1)" in versus.note
    rating_rounded = FideSystem(replace(RULES, round_change=False))
    assert rating_rounded.rate_period(players, [dulles]).report("P1").new_rating == 2811


# F-P05: https://ratings.fide.com/a_indv_calculation.php?id_number=25759884&rating_period=
# 2026-10-01&t=0 - five opens (Barcelona, Trieste, Zaragoza, Medjugorje, Zagreb),
# 21 Aug - 27 Sep 2026, rated 2054, born 2003, K 20 on the list; per event:
# (opponent rating used, score) and FIDE's Σ(W - We) for the event.
F_P05 = [
    (
        [(2406, "0"), (1908, "1"), (2220, "1"), (2216, "0"), (2204, "="), (2189, "1"),
         (2223, "0"), (2221, "=")],
        "1.44",
    ),
    (
        [(2350, "0"), (1928, "0"), (2085, "1"), (1993, "1"), (1931, "1"), (2055, "="),
         (2454, "="), (1861, "1")],
        "1.14",
    ),
    ([(2217, "1"), (1743, "1"), (1947, "1"), (2266, "="), (2189, "="), (2186, "1")], "2.34"),
    (
        [(1654, "1"), (2283, "0"), (1822, "1"), (2251, "0"), (1884, "1"), (2215, "="),
         (2210, "="), (1872, "1")],
        "0.79",
    ),
    (
        [(1654, "1"), (2247, "1"), (2308, "0"), (2168, "0"), (1810, "0"), (1747, "1"),
         (1852, "1"), (1875, "="), (1654, "1")],
        "-0.27",
    ),
]  # fmt: skip


def test_fide2024_published_k_700_cap_f_p05() -> None:
    """fide-2024 8.3.3 (K x n <= 700) and 8.3.4, FIDE's published calculation of player
    25759884 (October 2026 list: 2054 -> 2146, K 20 on the list): 39 games in the period,
    20 x 39 = 780 > 700, so K = 17 (17 x 39 = 663, 18 x 39 = 702); ΣΔR per event 1.44,
    1.14, 2.34, 0.79, -0.27 = 5.44; 17 x 5.44 = 92.48 -> 92: 2146."""
    events, players = [], [ListedPlayer("P", "P", 2054, 200, False, birth_year=2003)]
    for number, (games, _sum) in enumerate(F_P05):
        opponents = [(r, {"1": "1-0", "0": "0-1"}.get(s, "=")) for r, s in games]
        one, listed_opponents = swiss(f"open{number}", "P", opponents, f"E{number}-", own=2054)
        events.append(one)
        players += listed_opponents
    p = rate(start_list(*players), *events, period=date(2026, 10, 1)).report("P")
    for number, (_games, published) in enumerate(F_P05):
        lines = [line for line in p.games if line.event == f"open{number}"]
        assert sum((line.delta or D(0) for line in lines), D(0)) == D(published), number
    assert len(p.games) == 39
    assert (p.k, p.sum_delta, p.change, p.new_rating) == (17, D("5.44"), D("92.48"), 2146)
    assert "K 20 × 39 games exceeds 700: K 17 (8.3.3)" in p.notes
    assert p.next_k == 20  # the list publishes K before the cap


# -- 7.1.4, 8.2: first ratings -----------------------------------------------------------


def test_fide2024_first_rating_hypothetical_draws_and_2200_maximum() -> None:
    """fide-2024 8.2.2, 8.2.3: 5/5 against five 2200s: Ra = (11000 + 3600) / 7 = 2085.71;
    p = (5 + 1) / 7 = 0.857 -> 0.86 -> dp 309: Ra + dp = 2394.71 -> 2395, at most 2200."""
    open_, opponents = swiss("open", "X", [(2200, "1-0")] * 5, "R")
    x = rate(start_list(newcomer(), *opponents), open_).report("X")
    assert x.pool is not None
    assert (x.pool.p, x.pool.dp, x.pool.ru) == (D("0.86"), 309, 2200)
    assert "Ru = Ra + dp = 2394.71 → 2395" in x.combined
    assert "at most 2200 (8.2.3)" in x.combined
    assert (x.new_rating, x.new_games) == (2200, 5)


def test_fide2024_first_rating_needs_5_games_pooled_over_periods() -> None:
    """fide-2024 7.1.4: period 1 (April 2024 list): 2/3 against 1800, 1900, 2000 - three
    games, not published; they go on the next list as pending results. Period 2 (June):
    a draw with 1700 and a loss to 2100 make five: Ra = (9500 + 3600) / 7 = 1871.43,
    p = (2.5 + 1) / 7 = 0.50 -> dp 0: Ru 1871, published, with 5 games."""
    april, first_opponents = swiss("april", "X", [(1800, "1-0"), (1900, "1-0"), (2000, "0-1")], "A")
    result = rate(start_list(newcomer(), *first_opponents), april, period=date(2024, 4, 1))
    x = result.report("X")
    assert x.new_rating is None
    assert x.pool is not None and not x.pool.published
    assert "2 × 1800" in x.combined
    assert "fewer than 5: not published yet, the results are pending (7.1.4)" in x.notes[-1]
    assert x.pending == (
        PendingGame(date(2024, 4, 1), 1800, D(1)),
        PendingGame(date(2024, 4, 1), 1900, D(1)),
        PendingGame(date(2024, 4, 1), 2000, D(0)),
    )
    carried = SYSTEM.next_list(result)
    assert (carried["X"].pending, carried["X"].met_rated) == (x.pending, True)
    # the list's text form round-trips exactly
    text = format_pending(carried["X"].pending)
    assert text == "2024-04-01:1800:1 2024-04-01:1900:1 2024-04-01:2000:0"
    assert parse_pending(text) == x.pending
    june, second_opponents = swiss("june", "X", [(1700, "="), (2100, "0-1")], "J")
    players = dict(carried) | start_list(*second_opponents)
    x = rate(players, june, period=date(2024, 6, 1)).report("X")
    assert x.pool is not None
    assert (x.pool.games, x.pool.earlier, x.pool.p, x.pool.dp) == (5, 3, D("0.50"), 0)
    assert (x.new_rating, x.new_games, x.pending) == (1871, 5, ())
    assert "Ra = (9500 + 2 × 1800) / 7 = 1871.43" in x.combined


@pytest.mark.parametrize(
    ("period", "kept", "rating"),
    [
        # 2024-04 -> 2026-05: 25 months, the 26th period: pooled. Four pending draws and
        # one new, all against 2000: Ra = (10000 + 3600) / 7 = 1942.86, p 0.50: 1943.
        (date(2026, 5, 1), 4, 1943),
        # 2024-04 -> 2026-06: 26 months: the pending four expire, one game is left.
        (date(2026, 6, 1), 0, None),
    ],
)
def test_fide2024_pending_results_expire_after_26_months(
    period: date, kept: int, rating: int | None
) -> None:
    """fide-2024 7.1.4 ("consecutive rating periods of not more than 26 months";
    Decision: the 26 monthly periods ending with the one being rated)."""
    assert months_between(date(2024, 4, 1), period) == (25 if kept else 26)
    pending = tuple(PendingGame(date(2024, 4, 1), 2000, D("0.5")) for _ in range(4))
    later, opponents = swiss("later", "X", [(2000, "=")], "L")
    players = start_list(newcomer(pending=pending, met_rated=True), *opponents)
    x = rate(players, later, period=period).report("X")
    assert x.pool is not None
    assert (x.pool.earlier, x.pool.games) == (kept, kept + 1)
    assert x.new_rating == rating
    if rating is None:
        assert "4 pending result(s) older than 26 months dropped (7.1.4)" in x.notes
        assert x.pending == (PendingGame(period, 2000, D("0.5")),)


@pytest.mark.parametrize(
    ("order", "rating", "games"),
    [
        # the zero first: disregarded; five draws with 2000s alone: Ra 1942.86, p 0.50
        (("zero", "draws"), 1943, 5),
        # the zero second: it counts: Ra = (16000 + 3600) / 10 = 1960, p = 3.5 / 10 =
        # 0.35 -> dp -110: 1850
        (("draws", "zero"), 1850, 8),
    ],
)
def test_fide2024_8_2_1_a_zero_in_the_first_event_is_disregarded(
    order: tuple[str, str], rating: int, games: int
) -> None:
    """fide-2024 8.2.1: 0/3 against 2000s in his first event is disregarded; the same
    zero in a later event counts."""
    zero, zero_opponents = swiss("zero", "X", [(2000, "0-1")] * 3, "Z")
    draws, draw_opponents = swiss("draws", "X", [(2000, "=")] * 5, "Q")
    by_name = {"zero": zero, "draws": draws}
    players = start_list(newcomer(), *zero_opponents, *draw_opponents)
    x = rate(players, *(by_name[name] for name in order)).report("X")
    assert (x.new_rating, x.new_games) == (rating, games)
    disregarded = [calc.event for calc in x.first_rating if "(8.2.1)" in calc.discarded]
    assert disregarded == (["zero"] if order[0] == "zero" else [])


def test_fide2024_8_2_1_not_first_event_when_met_rated_on_the_list() -> None:
    """fide-2024 8.2.1: a player the list says has met rated opponents before
    (met_rated) has no first event left: his 0/3 joins his four pending draws against
    2000s: Ra = (14000 + 3600) / 9 = 1955.56, p = (2 + 1) / 9 = 0.33 -> dp -125:
    1830.56 -> 1831."""
    pending = tuple(PendingGame(None, 2000, D("0.5")) for _ in range(4))
    zero, opponents = swiss("zero", "X", [(2000, "0-1")] * 3, "Z")
    x = rate(start_list(newcomer(pending=pending, met_rated=True), *opponents), zero).report("X")
    assert (x.new_rating, x.new_games) == (1831, 7)


def test_fide2024_8_2_an_opponent_rated_in_one_event_and_blank_in_another() -> None:
    """fide-2024 8.2 with F7 (8.4), for each event apart: P is listed at 2000 but blank
    in the first event's file, rated in the second. X's win against P in the first
    event does not count; his draw with P in the second does. Pooled: a draw with A
    (first event) and four with P, B, C, D (second), all 2000: Ra = (10000 + 3600) / 7
    = 1942.86, p = (2.5 + 1) / 7 = 0.50 -> dp 0: 1943 with 5 games (counting the win
    against P would make 6 games and 1994)."""
    blank = event("blank", {"X": None, "P": None, "A": 2000}, [("X", "P", "1-0"), ("X", "A", "=")])
    rated = event(
        "rated",
        {"X": None, "P": 2000, "B": 2000, "C": 2000, "D": 2000},
        [("X", "P", "="), ("B", "X", "="), ("X", "C", "="), ("D", "X", "=")],
    )
    others = (listed(key, 2000) for key in "PABCD")
    x = rate(start_list(newcomer(), *others), blank, rated).report("X")
    assert (x.new_rating, x.new_games) == (1943, 5)
    first, second = x.first_rating
    assert (first.event, first.games, second.event, second.games) == ("blank", 1, "rated", 4)
    assert [line.note for line in first.lines if line.opponent == "P"] == [
        "unrated opponent: does not count (8.2)"
    ]


# -- 7.1.4, 7.2.1: the floor 1400 ---------------------------------------------------------


def test_fide2024_floor_1400_a_first_rating_below_is_not_published() -> None:
    """fide-2024 7.1.4: 1/5 against five 1400s: Ra = (7000 + 3600) / 7 = 1514.29,
    p = (1 + 1) / 7 = 0.29 -> dp -158: Ru 1356.29 -> 1356, below 1400: not published;
    the five results stay pending."""
    open_, opponents = swiss("open", "X", [(1400, "1-0")] + [(1400, "0-1")] * 4, "R")
    x = rate(start_list(newcomer(), *opponents), open_, period=date(2024, 5, 1)).report("X")
    assert x.pool is not None
    assert (x.pool.ru, x.pool.published, x.new_rating) == (1356, False, None)
    assert "Ru 1356 is below the rating floor 1400" in x.notes[-1]
    assert len(x.pending) == 5


@pytest.mark.parametrize(("losses", "rating"), [(1, 1400), (2, None)])
def test_fide2024_floor_1400_a_rated_player_below_is_unrated_next_list(
    losses: int, rating: int | None
) -> None:
    """fide-2024 7.2.1: P 1410 (K 20) loses to Q 1410 players: D 0 -> 0.50, -0.50 x 20 = -10
    a game: one loss 1400 (the floor: still rated), two 1390: unrated on the next list,
    his games kept (40 + 2)."""
    games = [("P", f"Q{n}", "0-1") for n in range(losses)]
    open_ = event("open", {"P": 1410, **{f"Q{n}": 1410 for n in range(losses)}}, games)
    players = start_list(listed("P", 1410), *(listed(f"Q{n}", 1410) for n in range(losses)))
    result = rate(players, open_)
    p = result.report("P")
    assert (p.change, p.new_rating, p.new_games) == (D(-10 * losses), rating, 40 + losses)
    carried = SYSTEM.next_list(result)["P"]
    assert (carried.rating, carried.games, carried.met_rated) == (rating, 40 + losses, True)
    if rating is None:
        assert "new rating 1390 is below the rating floor 1400" in p.notes[-1]


# -- 8.3.1: the 400-point rule ------------------------------------------------------------


@pytest.mark.parametrize(
    ("own", "d", "pd", "new"),
    [
        # 2650 - 2200 = 450 counts in full -> 0.94, draw -0.44 x 10 = -4.4 -> -4
        (2650, 450, "0.94", 2646),
        # 2649 - 2200 = 449 -> 400 -> 0.92, draw -0.42 x 10 = -4.2 -> -4
        (2649, 400, "0.92", 2645),
    ],
)
def test_fide2024_8_3_1_400_cap_except_from_2650(own: int, d: int, pd: str, new: int) -> None:
    """fide-2024 8.3.1 (1 Oct 2025): a difference over 400 counts as 400, except for a
    player rated 2650 or more; the 2200 sees 400 either way: 0.08, +0.42 x 20 = 8.4 -> 2208."""
    duel = event("duel", {"P": own, "Q": 2200}, [("P", "Q", "=")])
    result = rate(start_list(listed("P", own, 500, True), listed("Q", 2200)), duel)
    p, q = result.report("P"), result.report("Q")
    assert (line_vs(p, "Q").d, line_vs(p, "Q").pd, p.new_rating) == (d, D(pd), new)
    assert (line_vs(q, "P").d, q.change, q.new_rating) == (-400, D("8.40"), 2208)


def test_fide2024_8_3_1_games_against_unrated_players_do_not_count() -> None:
    """fide-2024 8.3.1 ("for each game played against a rated player"), 8.2.4: R's win
    over the unrated X is listed, not rated; only his draw with Q (2000, D 0) counts:
    ΣΔR 0, K 20: unchanged, 41 games."""
    open_ = event("open", {"R": 2000, "X": None, "Q": 2000}, [("R", "X", "1-0"), ("R", "Q", "=")])
    r = rate(start_list(listed("R", 2000), listed("Q", 2000)), open_).report("R")
    assert line_vs(r, "X").delta is None
    assert "only games against rated players count (8.3.1)" in line_vs(r, "X").note
    assert (r.sum_delta, r.new_rating, r.new_games) == (D("0.00"), 2000, 41)


# -- 8.3.3: K ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "period", "k"),
    [
        # 40 until 30 games
        (ListedPlayer("P", "P", 2000, 29, False), None, 40),
        (ListedPlayer("P", "P", 2000, 30, False), None, 20),
        # junior: until the end of the year of the 18th birthday (born 2008: 2026),
        # while below 2300; the list of 1 Jan 2027 rates December 2026's games
        (ListedPlayer("P", "P", 2299, 100, False, birth_year=2008), date(2026, 12, 1), 40),
        (ListedPlayer("P", "P", 2299, 100, False, birth_year=2008), date(2027, 1, 1), 40),
        (ListedPlayer("P", "P", 2299, 100, False, birth_year=2008), date(2027, 2, 1), 20),
        (ListedPlayer("P", "P", 2300, 100, False, birth_year=2008), date(2026, 12, 1), 20),
        # no birth year, or no period: not a junior (docs/fide-2024.md, K Decision)
        (ListedPlayer("P", "P", 2000, 100, False), date(2026, 12, 1), 20),
        (ListedPlayer("P", "P", 2000, 100, False, birth_year=2008), None, 20),
        # 10 once the published rating has reached 2400, even below it, even a junior
        # or with fewer than 30 games
        (ListedPlayer("P", "P", 2350, 100, True), None, 10),
        (ListedPlayer("P", "P", 2290, 100, True, birth_year=2010), date(2026, 12, 1), 10),
        (ListedPlayer("P", "P", 2450, 10, True), None, 10),
    ],
)
def test_fide2024_8_3_3_k(player: ListedPlayer, period: date | None, k: int) -> None:
    """fide-2024 8.3.3: K 40 / 20 / 10 and the junior rule, seen in a period with one draw
    against an equal opponent."""
    duel = event("duel", {"P": player.rating, "Q": player.rating}, [("P", "Q", "=")])
    result = rate(start_list(player, listed("Q", player.rating or 0)), duel, period=period)
    assert result.report("P").k == k


def test_fide2024_8_3_3_k_700_cap() -> None:
    """fide-2024 8.3.3: a new player (K 40) with 18 games in the period: 40 x 18 = 720 >
    700, K = 38 (38 x 18 = 684, 39 x 18 = 702). 17 draws and one win against 1600s:
    ΣΔR 0.50, 38 x 0.50 = 19: 1619. With 17 games, 40 x 17 = 680: K 40."""
    for games, k, new in [(18, 38, 1619), (17, 40, 1620)]:
        names = [f"Q{n}" for n in range(games)]
        results = ["1-0"] + ["="] * (games - 1)
        open_ = event(
            "open",
            {"P": 1600, **dict.fromkeys(names, 1600)},
            [("P", n, r) for n, r in zip(names, results, strict=True)],
        )
        players = start_list(listed("P", 1600, 10), *(listed(n, 1600) for n in names))
        p = rate(players, open_).report("P")
        assert (p.k, p.sum_delta, p.new_rating) == (k, D("0.50"), new), games


def test_fide2024_next_list_publishes_k_for_the_next_period() -> None:
    """fide-2024 7.1.2, 8.3.3: the new list carries K for the next period: a junior born
    2008 rated on the list of 1 Jan 2027 (December 2026's games: K 40) has K 20 for 2027;
    a player reaching 2400 has K 10 from then on (reached_2400 carried)."""
    duel = event("duel", {"J": 2000, "T": 2395}, [("J", "T", "0-1")])
    players = start_list(
        ListedPlayer("J", "J", 2000, 100, False, birth_year=2008), listed("T", 2395, 100)
    )
    result = rate(players, duel, period=date(2027, 1, 1))
    # J: D -395 -> 0.08, loss -0.08 x 40 = -3.2 -> -3: 1997; T: +0.08 x 20 = 1.6 -> 2: 2397
    assert (result.report("J").k, result.report("J").new_rating) == (40, 1997)
    carried = SYSTEM.next_list(result)
    assert (carried["J"].k, carried["J"].birth_year) == (20, 2008)
    assert (carried["T"].rating, carried["T"].k, carried["T"].reached_2400) == (2397, 20, False)
    win = event("duel", {"T": 2397, "U": 2700}, [("T", "U", "1-0")])
    # T: D -303 -> 0.14, +0.86 x 20 = 17.2 -> 17: 2414, reached 2400: K 10 next
    again = rate(carried | start_list(listed("U", 2700, 100, True)), win, period=date(2027, 2, 1))
    t = SYSTEM.next_list(again)["T"]
    assert (t.rating, t.reached_2400, t.k) == (2414, True, 10)


# -- the adjustment of 1 March 2024 --------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "adjusted"),
    [
        (1000, 1400),  # +400
        (1001, 1401),  # +399.6 -> 400
        (1500, 1700),  # +200 (chess.com's example)
        (1600, 1760),  # +160 (FIDE news 2538's example)
        (1950, 1970),  # +20
        (1999, 1999),  # +0.4 -> 0
        (2000, 2000),  # 2000 and above: unchanged
        (2650, 2650),
        (999, 999),  # Decision: below 1000 (not on FIDE's list then) unchanged
    ],
)
def test_fide2024_adjustment_of_1_march_2024(rating: int, adjusted: int) -> None:
    """fide-2024, the one-time adjustment (docs/fide-2024.md A1): R + 0.4 x (2000 - R)
    for ratings from 1000 below 2000, to the nearest integer."""
    assert adjusted_rating(rating) == adjusted


def test_fide2024_adjust_2024_rewrites_a_list() -> None:
    """adjust_2024: ratings adjusted, order kept, unrated players and every other field
    unchanged."""
    pending = (PendingGame(date(2024, 2, 1), 1500, D("0.5")),)
    before = [
        ListedPlayer("A", "Ann", 2100, 50, False, birth_year=1990),
        ListedPlayer("B", "Bob", 1234, 12, False, birth_year=2012, k=40),
        ListedPlayer("C", "Cy", None, 0, False, pending=pending, met_rated=True),
    ]
    after = adjust_2024(before)
    assert [p.rating for p in after] == [2100, 1540, None]  # 1234 + 93.6 -> 94
    assert after[1] == ListedPlayer("B", "Bob", 1540, 12, False, birth_year=2012, k=40)
    assert after[2] == before[2]


# -- pending results as text ---------------------------------------------------------------


def test_fide2024_pending_games_round_trip_through_text() -> None:
    """PendingGame.to_text / from_text: PERIOD:RATING:SCORE, the period optional; bad text
    is refused with the reason."""
    games = (
        PendingGame(date(2025, 1, 1), 1650, D(1)),
        PendingGame(None, 2010, D("0.5")),
        PendingGame(date(2025, 2, 1), 1499, D("0.0")),
    )
    text = format_pending(games)
    assert text == "2025-01-01:1650:1 :2010:0.5 2025-02-01:1499:0"
    assert parse_pending(text) == games
    assert parse_pending("") == ()
    with pytest.raises(ValueError, match="PERIOD:RATING:SCORE"):
        PendingGame.from_text("1650:1")
    with pytest.raises(ValueError, match=r"1, 0\.5 or 0"):
        PendingGame.from_text("2025-01-01:1650:0.7")
