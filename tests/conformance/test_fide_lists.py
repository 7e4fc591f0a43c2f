"""Conformance tests for FIDE's three lists, the amendments of the 2024 regulations by
date, matches and inactivity (docs/fide-2024.md: "Three lists", "Rules by date",
"Matches", "Inactivity").

The rapid and blitz rules are FIDE's "Rapid and Blitz Rating Regulations effective from
1 March 2024" (handbook B.02, https://handbook.fide.com/chapter/B02RBRegulations2024):
the same text as the standard regulations but for the rate of play (1.1.1, 1.1.2), the
standard rating of an unrated player (7.2.1), the 400-point rule without the 2650
exemption and, from 1 December 2024, the 600-point rule (7.3.1). Every expected number
below is computed by hand from tables 8.1.1 / 8.1.2 in the comment beside it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest

from chessrate.io.fide import fide_txt_list, list_kind_of, new_list_rows
from chessrate.io.rate_of_play import minutes_for_60_moves
from chessrate.systems.fide import (
    AMENDMENTS,
    Event,
    FideRules,
    FideSystem,
    ListedPlayer,
    ListKind,
    PeriodResult,
)
from tests.conformance.test_fide import event, line_vs, listed, start_list

D = Decimal


def rules(kind: str = "standard", period: date | None = date(2026, 1, 1)) -> FideRules:
    return FideRules.for_period("fide-2024", kind, period)


def rate(
    kind: str, players: dict[str, ListedPlayer], *events: Event, period: date | None
) -> PeriodResult:
    return FideSystem(rules(kind, period)).rate_period(players, list(events), period)


def top(player: str, rating: int) -> ListedPlayer:
    """A player whose published rating reached 2400 (K 10), 40 games."""
    return listed(player, rating, 40, reached_2400=True)


# -- the rate of play: which list a file belongs to --------------------------------------


@pytest.mark.parametrize(
    ("text", "minutes", "kind"),
    [
        ("3 minutes", 3, None),  # blitz needs more than 3 (R&B 1.1.2)
        ("3 min + 2 sec", 5, ListKind.BLITZ),  # 3 + 60 x 2 s = 5 minutes
        ("5 minutes per game (blitz)", 5, ListKind.BLITZ),
        ("10 min", 10, ListKind.BLITZ),  # "not more than 10": blitz
        ("10 min + 5 sec", 15, ListKind.RAPID),  # more than 10, less than 60 (R&B 1.1.1)
        ("15 minutes plus 10 sec per move", 25, ListKind.RAPID),
        ("45+10", 55, ListKind.RAPID),
        ("50 min + 10 s", 60, ListKind.STANDARD),  # 60: not rapid ("less than 60")
        ("90 minutes plus 30 seconds per move", 120, ListKind.STANDARD),
        ("40/120, 60", 180, ListKind.STANDARD),
        ("90 minutes plus 30 sec plus 30 min after 40 moves", 150, ListKind.STANDARD),
        ("90'+30''", 120, ListKind.STANDARD),
    ],
)
def test_fide2024_1_1_rate_of_play_chooses_the_list(
    text: str, minutes: int, kind: ListKind | None
) -> None:
    """1.1, R&B 1.1.1 and 1.1.2: "the time allotted + 60 times any increment"."""
    assert minutes_for_60_moves(text) == minutes
    assert list_kind_of(minutes_for_60_moves(text), rules()) == kind


def test_fide2024_1_1_standard_game_below_its_band_is_not_rated() -> None:
    """1.1: 60 minutes for 60 moves; 90 when a player of the game is rated 1800 or more;
    120 when one is rated 2400 or more. At 75 minutes the 1900-1700 game is not rated,
    the 1700-1600 game is: 1700 beats 1600, D 100, PD .64, +0.36 x K 20 = +7.2 -> +7."""
    players = start_list(listed("A", 1900), listed("B", 1700), listed("C", 1600))
    played = event("quick", {"A": 1900, "B": 1700, "C": 1600}, [("A", "B", "1-0"),
                                                                  ("B", "C", "1-0")])  # fmt: skip
    result = rate("standard", players, replace(played, minutes=D(75)), period=date(2026, 1, 1))
    b = result.report("B")
    assert b.new_rating == 1707
    assert b.new_games == 41
    assert any("round 1 against A not rated" in n and "needs at least 90 (1.1)" in n
               for n in b.notes)  # fmt: skip
    assert result.report("A").new_rating == 1900


# -- rapid and blitz: the rules that differ ------------------------------------------------


def test_fide2024_rb_7_3_1_no_2650_exemption_on_the_blitz_list() -> None:
    """R&B 7.3.1 keeps the plain 400-point rule. 2700 (K 10) beats 2200: blitz, D 500
    counts as 400, PD .92, +0.08 x 10 = +0.8 -> +1; standard (2026), the real 500,
    PD .96, +0.04 x 10 = +0.4 -> 0. The 2200 loses 400 either way: -0.08 x 20 = -1.6 -> -2."""
    players = start_list(top("A", 2700), listed("B", 2200))
    played = event("e", {"A": 2700, "B": 2200}, [("A", "B", "1-0")])
    blitz = rate("blitz", players, played, period=date(2026, 1, 1))
    standard = rate("standard", players, played, period=date(2026, 1, 1))
    assert (blitz.report("A").new_rating, standard.report("A").new_rating) == (2701, 2700)
    assert (blitz.report("B").new_rating, standard.report("B").new_rating) == (2198, 2198)
    assert line_vs(blitz.report("A"), "B").d == 400
    assert line_vs(standard.report("A"), "B").d == 500


@pytest.mark.parametrize(
    ("high", "low", "period", "rated"),
    [
        (2700, 2100, date(2026, 1, 1), False),  # 600 apart, 2700 above 2600: not rated
        (2601, 2001, date(2026, 1, 1), False),  # 600 apart, 2601 above 2600
        (2600, 2000, date(2026, 1, 1), True),  # 2600 is not above 2600
        (2700, 2101, date(2026, 1, 1), True),  # 599 apart
        (2700, 2100, date(2024, 12, 1), True),  # November 2024 games: before the rule
        (2700, 2100, date(2025, 1, 1), False),  # December 2024 games: the rule applies
    ],
)
def test_fide2024_rb_7_3_1_600_points_with_a_player_above_2600_not_rated(
    high: int, low: int, period: date, rated: bool
) -> None:
    """R&B 7.3.1, "Effective from 1 December 2024: Games played between players with a
    rating difference of 600 points or more shall not be rated if at least one of the
    players is rated above 2600 on the relevant list"."""
    players = start_list(top("A", high), listed("B", low))
    played = event("e", {"A": high, "B": low}, [("A", "B", "1-0")])
    a = rate("rapid", players, played, period=period).report("A")
    if rated:
        # D capped at 400: PD .92, +0.08 x 10 = +0.8 -> +1 (a 2600-2000 win: the same)
        assert (a.new_rating, a.new_games) == (high + 1, 41)
    else:
        assert (a.new_rating, a.new_games) == (high, 40)
        assert any("(7.3.1 of the rapid and blitz regulations" in note for note in a.notes)


def test_fide2024_rb_7_2_1_unrated_player_with_a_standard_rating_is_rated_with_it() -> None:
    """R&B 7.2.1: X, unrated on the blitz list, standard 2000, beats Y (blitz 2000, 40
    games). X is rated with 2000, K 40 (no blitz games yet): D 0, PD .50, +0.5 x 40 =
    +20 -> 2020; Y meets a rated player: -0.5 x 20 = -10 -> 1990."""
    players = start_list(ListedPlayer("X", "X", None, 0, False), listed("Y", 2000))
    played = event("blitz", {"X": None, "Y": 2000}, [("X", "Y", "1-0")])
    system = FideSystem(rules("blitz"))
    result = system.rate_period(players, [played], date(2026, 1, 1), {"X": 2000})
    x = result.report("X")
    assert (x.old_rating, x.new_rating, x.k, x.new_games) == (2000, 2020, 40, 1)
    assert x.standard_rating == 2000
    assert "rated with his standard rating 2000 (7.2.1" in x.notes[0]
    assert result.report("Y").new_rating == 1990
    # the standard list has no such rule: X is an unrated player there (one game, pending)
    standard = FideSystem(rules("standard")).rate_period(players, [played], date(2026, 1, 1))
    assert standard.report("X").new_rating is None


def test_fide2024_rb_the_seed_has_no_rapid_or_blitz_list() -> None:
    with pytest.raises(ValueError, match="no rapid or blitz rules"):
        FideRules.for_period("seed", "rapid", date(2026, 1, 1))
    with pytest.raises(ValueError, match="unknown list 'bullet'"):
        FideRules.for_period("fide-2024", "bullet", date(2026, 1, 1))


# -- rules by date -------------------------------------------------------------------------


def test_fide2024_8_3_1_the_2650_rule_applies_from_the_list_after_1_october_2025() -> None:
    """8.3.1 as amended "Effective from 1 October 2025". A list's games are those before
    its date: the list of 2025-10-01 rates September's games by the old text, the list of
    2025-11-01 October's by the new one. Before 1 March 2024 the regulation is not in
    force."""
    assert rules("standard", date(2025, 10, 1)).uncapped_from is None
    assert rules("standard", date(2025, 11, 1)).uncapped_from == 2650
    assert rules("standard", None).uncapped_from == 2650  # no date: as it stands today
    assert rules("rapid", date(2026, 1, 1)).uncapped_from is None  # not in the R&B text
    assert rules("standard", date(2024, 3, 1)).amendments == ()
    with pytest.raises(ValueError, match="first list of the 2024 regulations"):
        rules("standard", date(2024, 2, 1))


def test_fide2024_the_same_file_in_2025_06_and_2026_01_differs_by_the_2650_rule() -> None:
    """One event rated for the list of 2025-06-01 and of 2026-01-01: only the game of the
    player rated 2650 or more against an opponent more than 400 below differs. A (2700,
    K 10) draws B (2200): 2025, D counts as 400, PD .92, 0.5 - .92 = -0.42 x 10 = -4.2 ->
    -4; 2026, the real D 500, PD .96, -0.46 x 10 = -4.6 -> -5. B and C (below 2650) are
    rated alike by both texts."""
    players = start_list(top("A", 2700), listed("B", 2200), listed("C", 2300))
    played = event("open", {"A": 2700, "B": 2200, "C": 2300}, [("A", "B", "="), ("B", "C", "1-0")])
    june = rate("standard", players, played, period=date(2025, 6, 1))
    january = rate("standard", players, played, period=date(2026, 1, 1))
    assert (june.report("A").new_rating, january.report("A").new_rating) == (2696, 2695)
    for other in ("B", "C"):
        assert replace(june.report(other), last_played=None) == replace(
            january.report(other), last_played=None
        )
    assert line_vs(june.report("A"), "B").note == "D capped at 400 (8.3.1)"
    assert "the real difference counts (8.3.1)" in line_vs(january.report("A"), "B").note
    assert june.rules.amendments == ()
    assert january.rules.amendments == ("8.3.1-2650",)
    assert AMENDMENTS["8.3.1-2650"].since == date(2025, 10, 1)


# -- matches ---------------------------------------------------------------------------------


def _match(ratings: dict[str, int | None], results: list[str], waived: bool = False) -> Event:
    first, second = ratings
    games = [(first, second, result) for result in results]
    return replace(event("match", ratings, games), match=True, waived=waived)


def test_fide2024_6_1_match_against_an_unrated_player_is_not_rated() -> None:
    """6.1: "Matches in which one player is unrated shall not be rated". A 2100 against
    an unrated newcomer, six games: nothing is rated for either, and both reports say
    why."""
    players = start_list(listed("A", 2100), ListedPlayer("X", "X", None, 0, False))
    played = _match({"A": 2100, "X": None}, ["1-0", "0-1", "0-1", "=", "0-1", "0-1"])
    result = rate("standard", players, played, period=date(2026, 1, 1))
    a, x = result.report("A"), result.report("X")
    assert (a.new_rating, a.new_games) == (2100, 40)
    assert (x.new_rating, x.new_games, x.pending) == (None, 0, ())
    for report in (a, x):
        assert any(
            "rounds 1, 2, 3, 4, 5, 6 against" in n and "one player (X) is unrated" in n
            and n.endswith("(6.1)")
            for n in report.notes
        )  # fmt: skip


def test_fide2024_6_2_games_after_the_match_is_decided_are_not_rated() -> None:
    """6.2: A (2100) wins games 1-4 of a 6-game match against B (2000): with 4 of 6 he
    has won, games 5 and 6 are not rated. A: 4 x (1 - .64) = +1.44 x 20 = +28.8 -> +29;
    B: -29. Waived by prior request, all six: A +1.44 - 2 x .64 = +0.16 -> +3.2 -> +3."""
    players = start_list(listed("A", 2100), listed("B", 2000))
    results = ["1-0", "1-0", "1-0", "1-0", "0-1", "0-1"]
    decided = rate("standard", players, _match({"A": 2100, "B": 2000}, results),
                   period=date(2026, 1, 1))  # fmt: skip
    assert (decided.report("A").new_rating, decided.report("B").new_rating) == (2129, 1971)
    assert decided.report("A").new_games == 44
    assert any("rounds 5, 6 against B not rated: played after A had won the match in "
               "round 4" in n for n in decided.report("A").notes)  # fmt: skip
    waived = rate("standard", players, _match({"A": 2100, "B": 2000}, results, waived=True),
                  period=date(2026, 1, 1))  # fmt: skip
    assert (waived.report("A").new_rating, waived.report("A").new_games) == (2103, 46)


def test_fide2024_6_an_event_that_is_not_a_match_is_rated_whole() -> None:
    """Two players in an event the file does not make a match (``match`` off, e.g. a
    section of a larger event): 6.1 and 6.2 do not apply. A beats B four times:
    +1.44 x 20 = +28.8 -> +29, and the two losses: -1.28 x 20: +0.16 -> +3."""
    players = start_list(listed("A", 2100), listed("B", 2000))
    played = event("e", {"A": 2100, "B": 2000},
                   [("A", "B", r) for r in ["1-0"] * 4 + ["0-1"] * 2])  # fmt: skip
    assert rate("standard", players, played, period=date(2026, 1, 1)).report("A").new_rating == 2103


# -- inactivity and the Flag column ------------------------------------------------------------


def _month(year: int, month: int) -> date:
    return date(year + (month - 1) // 12, (month - 1) % 12 + 1, 1)


def test_fide2024_7_2_2_inactive_after_a_year_without_games_active_after_one() -> None:
    """7.2.2: "A player is considered to commence inactivity if they play no rated games
    in a one-year period. A player regains their activity if they play at least one
    rated game in a period. They are then listed as active on the next list." A woman
    (Flag w) plays on the list of 2025-01-01, then nothing: the list of 2025-12-01 (11
    months) still shows her active, that of 2026-01-01 (12 months) inactive (wi); one
    game on the list of 2026-02-01 makes her active again (w)."""
    system = FideSystem(rules("standard"))
    players = start_list(replace(listed("A", 2000), sex="w"), listed("B", 2000))
    played = event("e", {"A": 2000, "B": 2000}, [("A", "B", "=")])
    result = system.rate_period(players, [played], date(2025, 1, 1))
    flags = {}
    for month in range(2, 14):
        listed_now = system.next_list(result)
        result = system.rate_period(listed_now, [], _month(2025, month))
        flags[result.period] = result.report("A").flag
    assert flags[date(2025, 12, 1)] == "w"
    assert flags[date(2026, 1, 1)] == "wi"
    assert result.report("B").flag == "i"
    assert any("inactive, flag i (7.2.2)" in note for note in result.report("B").notes)
    back = system.rate_period(system.next_list(result), [played], date(2026, 2, 1))
    assert (back.report("A").flag, back.report("B").flag) == ("w", "")
    rows = new_list_rows(result, system)
    text = fide_txt_list(rows, result.period).splitlines()
    assert text[0][132:136] == "Flag"
    assert {line[:15].strip(): line[132:].strip() for line in text[1:]} == {"A": "wi", "B": "i"}
    assert {line[:15].strip(): line[80:84].strip() for line in text[1:]} == {"A": "F", "B": ""}
