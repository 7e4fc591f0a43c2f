"""The rating lab (chessrate.lab): the metrics by hand, the variants, the predictors."""

from __future__ import annotations

import csv
import math
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from chessrate.lab import (
    InvalidVariant,
    compare,
    deviance,
    evaluate,
    evaluate_games,
    parse_value,
    quality,
    spearman,
    variants,
)
from chessrate.lab.output import as_json
from chessrate.lab.predictors import Glicko2Rating, LichessGlicko2, PlainElo, glicko2_update
from chessrate.records import GameRecord
from chessrate.systems import ArenaRules, SiteRules
from chessrate.systems.base import ListEntry
from chessrate.systems.fide import FideRules

DATA = Path(__file__).parent / "data"


def game(n: int, white: str, black: str, result: str) -> GameRecord:
    return GameRecord.from_mapping(
        {"id": f"g{n}", "played_at": f"2026-01-0{n}T10:00:00Z", "white": white,
         "black": black, "result": result, "time_control": "300+3"},
        f"test:{n}",
    )  # fmt: skip


# Three site blitz games between a and b, both new at 1500 (site S3, K 32 while new):
#  g1 a-b 1-0: blitz a 1500 vs b 1500, E(a) 0.50; after: a 1516.00, b 1484.00
#  g2 b-a ½-½: blitz b 1484 vs a 1516: E(a) = 1/(1+10^(-32/400)) = 0.5459 -> 0.55,
#     E(b) = 1 - 0.55 = 0.45; after: b 1484 + 32 x 0.05 = 1485.60, a 1514.40
#  g3 a-b 0-1: blitz a 1514.40 vs b 1485.60: 1/(1+10^(-28.8/400)) = 0.5414 -> 0.54
# White's side only: (0.50, 1), (0.45, 0.5), (0.54, 0).
STREAM = [game(1, "a", "b", "1-0"), game(2, "b", "a", "1/2-1/2"), game(3, "a", "b", "0-1")]
BLITZ_DEVIANCE = (
    -math.log10(0.50) - (0.5 * math.log10(0.45) + 0.5 * math.log10(0.55)) - math.log10(1 - 0.54)
) / 3
BLITZ_BRIER = ((0.50 - 1) ** 2 + (0.45 - 0.5) ** 2 + (0.54 - 0) ** 2) / 3


def test_deviance_and_brier_of_a_small_stream_by_hand() -> None:
    evaluation = evaluate_games("site", STREAM)
    base = evaluation.variants[0]
    assert base.variant.label == "base"
    blitz = next(p for p in base.pools if p.pool == "blitz")
    assert blitz.quality.games == 3
    assert blitz.quality.expectation == "system"
    assert blitz.quality.deviance == pytest.approx(BLITZ_DEVIANCE, abs=1e-12)
    assert blitz.quality.deviance == pytest.approx(0.313828, abs=1e-6)
    assert blitz.quality.brier == pytest.approx(BLITZ_BRIER, abs=1e-12)
    assert blitz.quality.brier == pytest.approx(0.181367, abs=1e-6)
    bins = {b.low: b for b in blitz.quality.bins}
    assert bins[0.4].count == 1 and bins[0.4].mean_expected == pytest.approx(0.45)
    assert bins[0.5].count == 2 and bins[0.5].mean_observed == pytest.approx(0.5)
    assert sum(b.count for b in blitz.quality.bins) == 3


def test_deviance_clamps_to_kaggle_bounds() -> None:
    assert deviance(1.0, 1.0) == pytest.approx(-math.log10(0.99))
    assert deviance(0.0, 1.0) == pytest.approx(-math.log10(0.01))
    q = quality([(0.995, 1.0), (0.2, 0.0)])
    assert q.deviance == pytest.approx((-math.log10(0.99) - math.log10(0.8)) / 2)
    assert q.brier == pytest.approx((0.005**2 + 0.2**2) / 2)
    assert q.bins[9].count == 1 and q.bins[2].count == 1  # 1.0 falls in [0.9, 1]
    assert quality([]).deviance is None


def test_corr_uses_the_elo_expectation() -> None:
    # g1: both unrated, not scored (both get a performance of 1300, C3); g2 and g3:
    # both provisional at 1300, so E = 1/(1+10^0) = 0.5 (corr's change has no pd)
    stream = [game(1, "a", "b", "1/2-1/2"), game(2, "b", "a", "1/2-1/2"), game(3, "a", "b", "1-0")]
    evaluation = evaluate_games("corr", stream)
    (pool,) = evaluation.variants[0].pools
    assert pool.quality.games == 2
    assert pool.quality.expectation == "elo"
    assert pool.quality.brier == pytest.approx(((0.5 - 0.5) ** 2 + (0.5 - 1) ** 2) / 2)


def test_a_variant_equal_to_the_base_rules_gives_the_base_numbers() -> None:
    evaluation = evaluate_games("site", STREAM, vary=["k=20", "k_new=32"])
    by_label = {r.variant.label: r for r in evaluation.variants}
    base, same = by_label["base"], by_label["k=20 k_new=32"]
    assert same.variant.rules == SiteRules()
    assert [p.quality for p in same.pools] == [p.quality for p in base.pools]
    for p in same.pools:
        assert p.comparison is not None
        assert p.comparison.risers == () and p.comparison.fallers == ()
        assert p.comparison.state_changed == 0


def test_variants_are_the_cartesian_product_of_real_rules() -> None:
    found = variants(ArenaRules(), ["k.blitz=10,40", "qualifying_games=3,5"])
    assert [v.label for v in found] == [
        "base", "k.blitz=10 qualifying_games=3", "k.blitz=10 qualifying_games=5",
        "k.blitz=40 qualifying_games=3", "k.blitz=40 qualifying_games=5",
    ]  # fmt: skip
    rules = found[1].rules
    assert isinstance(rules, ArenaRules)
    assert rules.k == {"rapid": 20, "blitz": 10, "bullet": 10}
    assert rules.qualifying_games == 3
    assert ArenaRules().k["blitz"] == 20  # the defaults are untouched
    assert parse_value(SiteRules(), "floor", "150.5") == Decimal("150.5")


def test_an_optional_field_takes_a_value_or_none() -> None:
    """A field typed ``int | None`` (fide's k_new: no K for new players unless set)
    takes a whole number or ``none`` (the rule switched off); anything else is refused
    naming the field."""
    rules = FideRules()
    assert parse_value(rules, "k_new", "40") == 40
    assert parse_value(rules, "k_new", "None") is None
    found = variants(rules, ["k_new=30,none"])
    assert [v.label for v in found] == ["base", "k_new=30", "k_new=none"]
    for variant, k_new in zip(found, (None, 30, None), strict=True):
        assert isinstance(variant.rules, FideRules)
        assert variant.rules.k_new == k_new
    with pytest.raises(InvalidVariant, match="--vary k_new: 'x' is not a whole number"):
        parse_value(rules, "k_new", "x")


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("nope=1", "no field 'nope'"),
        ("k=x", "'x' is not a whole number"),
        ("floor=-1", "'-1'"),
        ("floor=NaN", "'NaN' is not a finite number"),
        ("k.blitz=1", "not a mapping"),
        ("k=", "expected FIELD=V1,V2"),
    ],
)
def test_bad_variants_name_the_field_and_value(spec: str, words: str) -> None:
    with pytest.raises(InvalidVariant) as raised:
        variants(SiteRules(), [spec])
    assert spec.partition("=")[0] in str(raised.value)
    assert words in str(raised.value)


def test_spearman_and_compare() -> None:
    d = Decimal
    assert spearman([d(1), d(2), d(3)], [d(10), d(20), d(30)]) == pytest.approx(1.0)
    assert spearman([d(1), d(2), d(3)], [d(30), d(20), d(10)]) == pytest.approx(-1.0)
    assert spearman([d(1)], [d(1)]) is None
    base = [ListEntry("a", "p", d(1600), "1600", "rated", 5),
            ListEntry("b", "p", d(1500), "1500", "rated", 5),
            ListEntry("c", "p", None, "-", "unrated", 1)]  # fmt: skip
    other = [ListEntry("a", "p", d(1550), "1550", "rated", 5),
             ListEntry("b", "p", d(1560), "1560", "rated", 5),
             ListEntry("c", "p", d(1400), "1400", "rated", 5)]  # fmt: skip
    c = compare(base, other)
    assert c.players == 2
    assert c.spearman == pytest.approx(-1.0)
    assert [(m.player, m.change) for m in c.risers] == [("b", d(60))]
    assert [(m.player, m.change) for m in c.fallers] == [("a", d(-50))]
    assert c.state_changed == 1


def test_glicko2_worked_example() -> None:
    """Glickman, "Example of the Glicko-2 system": 1500/200/0.06 against 1400/30 (won),
    1550/100 (lost), 1700/300 (lost), tau 0.5 -> 1464.06, RD 151.52, sigma 0.05999.
    The paper rounds its intermediate values (mu' = -0.2069): unrounded, the rating is
    1464.0507, within 0.01 of the paper's."""
    player = Glicko2Rating(1500, 200, 0.06)
    results = [
        (Glicko2Rating(1400, 30, 0.06), 1.0),
        (Glicko2Rating(1550, 100, 0.06), 0.0),
        (Glicko2Rating(1700, 300, 0.06), 0.0),
    ]
    after = glicko2_update(player, results, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.005)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def lichess_games() -> list[dict[str, str]]:
    """lichess's own checks of its Glicko-2 calculator (tests/data/glicko2/SOURCE.md)."""
    with (DATA / "glicko2" / "lichess_single_game.csv").open(newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("case", lichess_games(), ids=lambda case: case["case"])
def test_glicko2_as_lichess_rates_one_game(case: dict[str, str]) -> None:
    glicko = LichessGlicko2()
    for side, player in (("white", "w"), ("black", "b")):
        glicko.ratings[(player, "p")] = Glicko2Rating(
            float(case[f"{side}_rating"]), float(case[f"{side}_rd"]), float(case[f"{side}_vol"])
        )
    score = {"white": 1.0, "draw": 0.5, "black": 0.0}[case["outcome"]]
    glicko.update("w", "b", "p", score)
    for side, player in (("white", "w"), ("black", "b")):
        after = glicko.rating(player, "p")
        assert after.rating == pytest.approx(
            float(case[f"exp_{side}_rating"]), abs=float(case["tol_rating"])
        )
        assert after.deviation == pytest.approx(
            float(case[f"exp_{side}_rd"]), abs=float(case["tol_rd"])
        )
        assert after.volatility == pytest.approx(
            float(case[f"exp_{side}_vol"]), abs=float(case["tol_vol"])
        )


def test_glicko2_lichess_new_players() -> None:
    """lichess's defaults, 1500/500/0.09 each, White wins: 1741 and 1258, RD 396 (its
    tests allow 1 point)."""
    glicko = LichessGlicko2()
    glicko.update("w", "b", "p", 1.0)
    w, b = glicko.rating("w", "p"), glicko.rating("b", "p")
    assert w.rating == pytest.approx(1741, abs=1) and b.rating == pytest.approx(1258, abs=1)
    assert w.deviation == pytest.approx(396, abs=1) == b.deviation
    assert w.volatility == pytest.approx(0.0899983, abs=1e-7)


def test_glicko2_deviation_grows_with_the_days_between_games() -> None:
    glicko = LichessGlicko2()
    monday = datetime(2026, 1, 5, tzinfo=UTC)
    glicko.ratings[("a", "p")] = Glicko2Rating(1600, 60, 0.06)
    glicko.last[("a", "p")] = monday
    # ten days: 2.1436 periods; RD' = 173.7178 sqrt((60/173.7178)^2 + 2.1436 x 0.06^2)
    grown = 173.7178 * math.sqrt((60 / 173.7178) ** 2 + 2.1436 * 0.06**2)
    assert glicko.live("a", "p", monday + timedelta(days=10)).deviation == pytest.approx(grown)
    assert glicko.live("a", "p", monday).deviation == 60
    # never above 500; a new player is at 500 whenever they start
    assert glicko.live("a", "p", monday + timedelta(days=100_000)).deviation == 500
    assert glicko.live("new", "p", monday).deviation == 500
    # the caps after a game: volatility at most 0.1, rating at least 400
    glicko.ratings[("low", "p")] = Glicko2Rating(410, 300, 0.12)
    glicko.ratings[("weak", "p")] = Glicko2Rating(300, 60, 0.06)
    glicko.update("low", "weak", "p", 0.0, monday)
    after = glicko.rating("low", "p")
    assert after.rating == 400 and after.volatility == 0.1
    assert glicko.last[("low", "p")] == glicko.last[("weak", "p")] == monday


def test_reference_predictors_update_per_game() -> None:
    elo = PlainElo()
    assert elo.expected("a", "b", "p") == 0.5
    elo.update("a", "b", "p", 1.0)
    assert elo.rating("a", "p") == 1510.0 and elo.rating("b", "p") == 1490.0
    glicko = LichessGlicko2()
    assert glicko.rating("a", "p") == Glicko2Rating(1500, 500, 0.09)
    glicko.update("a", "b", "p", 1.0)
    a, b = glicko.rating("a", "p"), glicko.rating("b", "p")
    assert a.rating > 1500 > b.rating
    assert 45 <= a.deviation < 500
    e = glicko.expected("a", "b", "p")
    assert e + glicko.expected("b", "a", "p") == pytest.approx(1.0)


def test_a_real_lichess_file() -> None:
    evaluation = evaluate(DATA / "pgn" / "lichess_cmrade.pgn", "site", vary=["k=10,40"])
    assert evaluation.games == 46
    assert [r.variant.label for r in evaluation.variants].count("base") == 1
    deviances = [r.deviance for r in evaluation.variants]
    assert deviances == sorted(deviances)
    site = next(p for p in evaluation.variants[0].pools if p.pool == "site")
    assert site.quality.games > 0
    assert [p.label for p in evaluation.predictors] == ["elo-k20", "glicko2-lichess"]
    assert '"regulation": false' in as_json(evaluation)


def test_deviance_by_games_played_buckets_the_newer_players_experience() -> None:
    # g1: both players new (experience 0); g2 and g3: 1 and 2 blitz games each before.
    blitz = next(p for p in evaluate_games("site", STREAM).variants[0].pools if p.pool == "blitz")
    buckets = {b.low: b for b in blitz.quality.by_games}
    assert buckets[0].high == 1 and buckets[0].count == 1
    assert buckets[0].deviance == pytest.approx(-math.log10(0.50))
    assert buckets[1].high == 5 and buckets[1].count == 2
    assert buckets[1].deviance == pytest.approx(
        (-(0.5 * math.log10(0.45) + 0.5 * math.log10(0.55)) - math.log10(1 - 0.54)) / 2
    )
    assert buckets[100].high is None and buckets[100].count == 0
    assert sum(b.count for b in blitz.quality.by_games) == blitz.quality.games
