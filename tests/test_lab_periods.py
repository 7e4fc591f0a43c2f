"""The rating lab on a system that rates periods (``fide``): a chain of periods from TRF
files or a fide ledger, replayed under the base rules and each variant, each period
starting from the variant's own list before it."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from chessrate.cli import main
from chessrate.errors import InvalidInput, InvalidRecord
from chessrate.io.fide import (
    new_list_rows,
    new_list_text,
    parse_start_list,
    read_start_list,
    tournament_end,
    trf_date,
)
from chessrate.io.trf import parse_trf, read_trf
from chessrate.lab import InvalidVariant, evaluate, evaluate_periods
from chessrate.lab.output import as_json, as_text
from chessrate.lab.periods import (
    list_date_after,
    period_variants,
    periods_from_files,
    replay_chain,
    scored,
)
from chessrate.lab.report import as_html
from chessrate.ledger import Ledger
from chessrate.operations import evaluate_ledger
from chessrate.systems.fide import FideRules, FideSystem

DATA = Path(__file__).parent / "data"
TRF = DATA / "trf" / "seed_round_robin.trf"
START = DATA / "fide" / "seed_round_robin_list.csv"
NOW = datetime(2026, 12, 1, tzinfo=UTC)

# The seed's round robin (ratings on its starting list: A 2600, B 2500, D 2400,
# F 2150, G 2300, J 2300; the other four unrated): its 15 games between two rated
# players, as (the first player's PD from FIDE's table 8.1(b) for the difference,
# capped at 400, and his score), the first player being the one whose id sorts first.
BY_HAND = [
    (0.85, 0.0),  # A-J  +300, A lost
    (0.85, 1.0),  # A-G  +300
    (0.64, 1.0),  # A-B  +100
    (0.76, 1.0),  # A-D  +200
    (0.92, 1.0),  # A-F  +450, counted as 400
    (0.76, 1.0),  # B-J  +200
    (0.64, 1.0),  # B-D  +100
    (0.89, 1.0),  # B-F  +350
    (0.76, 1.0),  # B-G  +200
    (0.64, 1.0),  # D-G  +100
    (0.64, 1.0),  # D-J  +100
    (0.81, 1.0),  # D-F  +250
    (0.30, 1.0),  # F-G  -150
    (0.30, 1.0),  # F-J  -150
    (0.50, 1.0),  # G-J  0
]


def month_later(text: str) -> str:
    """The round robin played a month later (January 2026 becomes February)."""
    return text.replace("2026/01/", "2026/02/").replace("26/01/", "26/02/")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two monthly periods of the same ten players: January's and February's."""
    path = tmp_path / "trf"
    path.mkdir()
    text = TRF.read_text(encoding="utf-8")
    (path / "a_january.trf").write_text(text, encoding="utf-8")
    (path / "b_february.trf").write_text(month_later(text), encoding="utf-8")
    return path


def test_one_periods_deviance_and_brier_by_hand() -> None:
    evaluation = evaluate(TRF, "fide", START)
    base = evaluation.variants[0]
    quality = {p.pool: p.quality for p in base.pools}["fide"]
    n = len(BY_HAND)
    deviance = -sum(y * math.log10(e) + (1 - y) * math.log10(1 - e) for e, y in BY_HAND) / n
    brier = sum((e - y) ** 2 for e, y in BY_HAND) / n
    assert quality.games == n and quality.expectation == "system"
    assert quality.deviance == pytest.approx(deviance, abs=1e-12)
    assert quality.brier == pytest.approx(brier, abs=1e-12)
    # the newer player of a game had 45 rated games (D, in his five) or 60 to 90
    assert {b.low: b.count for b in quality.by_games if b.count} == {20: 5, 50: 10}
    assert evaluation.games == 45  # every game of the round robin, once


def test_a_variant_equal_to_the_base_gives_the_base_numbers(folder: Path) -> None:
    evaluation = evaluate(folder, "fide", START, vary=["k=30,40"])  # the seed's K is 30
    by_label = {v.variant.label: v for v in evaluation.variants}
    base, same, other = by_label["base"], by_label["k=30"], by_label["k=40"]
    assert [p.quality for p in same.pools] == [p.quality for p in base.pools]
    fide = {p.pool: p for p in same.pools}["fide"].comparison
    assert fide is not None and fide.spearman == 1.0 and not fide.risers and not fide.fallers
    assert [p.quality for p in other.pools] != [p.quality for p in base.pools]


def test_each_period_starts_from_the_variants_own_list(folder: Path) -> None:
    """Under K 40 the February period is rated from the list K 40 made in January:
    the chain, rated by hand with the library's period calls, gives the same games."""
    chain = periods_from_files(folder, START)
    assert [(p.list_kind, p.list_date) for p in chain.periods] == [
        ("standard", date(2026, 2, 1)),
        ("standard", date(2026, 3, 1)),
    ]
    variant = period_variants(["k=40"])[1]
    run = replay_chain(chain, variant)
    system = FideSystem(replace(FideRules(), k=40))
    january = system.rate_period(read_start_list(START), chain.periods[0].events, date(2026, 2, 1))
    text = new_list_text(new_list_rows(january, system), Path("next.csv"), date(2026, 2, 1))
    february = system.rate_period(
        parse_start_list(text, "next"), chain.periods[1].events, date(2026, 3, 1)
    )
    assert run.results[1] == february
    assert list(run.scored) == scored(january, "fide") + scored(february, "fide")
    # February's expectations come from January's new ratings: not January's again
    assert [g.expected for g in scored(february, "fide")] != [
        g.expected for g in scored(january, "fide")
    ]
    base = replay_chain(chain, period_variants([])[0])
    assert base.lists["fide"] != run.lists["fide"]


def test_the_ruleset_itself_can_be_varied(folder: Path) -> None:
    evaluation = evaluate(folder, "fide", START, vary=["ruleset=seed,fide-2024"])
    labels = [v.variant.label for v in evaluation.variants]
    assert sorted(labels) == ["base", "ruleset=fide-2024", "ruleset=seed"]
    by_label = {v.variant.label: v for v in evaluation.variants}
    today = {p.pool: p for p in by_label["ruleset=fide-2024"].pools}["fide"]
    assert today.comparison is not None and today.comparison.risers  # K 20 and rounding
    seed = {p.pool: p.quality for p in by_label["ruleset=seed"].pools}
    assert seed == {p.pool: p.quality for p in by_label["base"].pools}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("k=abc", "--vary k: 'abc' is not a whole number"),
        ("k=-5", "--vary k: '-5': a rule's number is never negative"),
        ("nonsense=1", "--vary nonsense: the FideRules has no field 'nonsense'"),
        ("list_kind=rapid", "--vary list_kind: says which period the rules are for"),
        ("ruleset=fide-1990", "--vary ruleset: 'fide-1990' is not a ruleset"),
        ("name=fide-2024", "vary the ruleset as ruleset=..."),
    ],
)
def test_a_value_the_rules_refuse_is_exit_2_naming_the_field(
    folder: Path, spec: str, message: str
) -> None:
    result = CliRunner().invoke(main, ["evaluate", str(folder), "--system", "fide", "--vary", spec])
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    with pytest.raises(InvalidVariant):
        period_variants([spec])


def test_the_command_on_a_folder_with_two_jobs_prints_what_one_prints(folder: Path) -> None:
    runner = CliRunner()
    args = ["evaluate", str(folder), "--system", "fide", "--players", str(START),
            "--vary", "k=20,40", "--vary", "max_difference=350,400", "--json"]  # fmt: skip
    one = runner.invoke(main, [*args, "--jobs", "1"])
    two = runner.invoke(main, [*args, "--jobs", "2"])
    assert one.exit_code == 0, one.stderr
    assert two.stdout == one.stdout
    printed = json.loads(one.stdout)
    assert printed["system"] == "fide" and printed["games"] == 90
    assert len(printed["variants"]) == 5
    text = runner.invoke(main, args[:-1])
    assert "one count per game (the first player by id)" in text.stdout
    refused = runner.invoke(main, [*args[:-1], "--engine", "compiled"])
    assert refused.exit_code == 2
    assert "the fide system has no compiled replay" in refused.stderr


def test_the_report_page_says_whose_side_counts(folder: Path) -> None:
    page = as_html(evaluate(folder, "fide", START, vary=["k=20"]))
    assert "A game counts once (for the first player by id)" in page
    assert "Rating lab: the fide rules" in page


def test_the_lists_chain_apart_and_predictors_see_every_game(tmp_path: Path) -> None:
    """A rapid tournament is rated on the rapid list, beside the standard one."""
    text = TRF.read_text(encoding="utf-8")
    rapid = month_later(text).replace(
        "122 90 minutes plus 30 seconds per move", "122 15 minutes plus 10 seconds per move"
    )
    (tmp_path / "standard.trf").write_text(text, encoding="utf-8")
    (tmp_path / "rapid.trf").write_text(rapid, encoding="utf-8")
    chain = periods_from_files(tmp_path, START)
    assert [p.list_kind for p in chain.periods] == ["standard", "rapid"]
    assert chain.periods[1].standard == 0  # R&B 7.2.1: January's standard list
    evaluation = evaluate_periods("fide", chain)
    base = {p.pool: p.quality.games for p in evaluation.variants[0].pools}
    assert base == {"fide": 15, "fide-rapid": 15, "fide-blitz": 0}
    for predictor in evaluation.predictors:
        assert {p.pool: p.quality.games for p in predictor.pools} == base


def test_a_tournament_is_rated_on_the_list_after_the_month_it_ended() -> None:
    assert list_date_after(date(2026, 1, 18)) == date(2026, 2, 1)
    assert list_date_after(date(2025, 12, 31)) == date(2026, 1, 1)
    assert trf_date("2024/11/24") == date(2024, 11, 24)
    assert trf_date("31. 07. 2005") == date(2005, 7, 31)
    assert trf_date("May 29, 2020") == date(2020, 5, 29)
    assert trf_date("29 May 2020") == date(2020, 5, 29)
    assert trf_date("24/11/2024") is None  # day or month first cannot be told
    assert trf_date("2024/13/01") is None
    assert tournament_end(read_trf(TRF)) == date(2026, 1, 18)


def test_a_file_without_a_date_names_the_file_and_the_record(tmp_path: Path) -> None:
    text = TRF.read_text(encoding="utf-8")
    bad = text.replace("042 2026/01/10", "042 soon").replace("052 2026/01/18", "052 later")
    path = tmp_path / "undated.trf"
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(InvalidRecord) as error:
        tournament_end(parse_trf(bad, str(path)))
    assert error.value.where == str(path) and error.value.field == "052"
    result = CliRunner().invoke(main, ["evaluate", str(path), "--system", "fide"])
    assert result.exit_code == 2
    assert f"{path}: 052: the end date 'later' is not a date" in result.stderr
    # --skip-invalid leaves the file out (and then nothing is left to evaluate)
    skipped: list[InvalidRecord] = []
    with pytest.raises(InvalidInput, match="no rating periods to evaluate"):
        evaluate(tmp_path, "fide", on_invalid=skipped.append)
    assert [e.field for e in skipped] == ["052"]


def _chained_ledger(url: str) -> Ledger:
    """The folder's two periods in a fide ledger: January's from the starting list,
    February's chained on its new list."""
    ledger = Ledger.create(url, "fide", NOW)
    text = TRF.read_text(encoding="utf-8")
    start = START.read_text(encoding="utf-8")
    for n, (trf, listed, day) in enumerate(
        ((text, start, date(2026, 2, 1)), (month_later(text), None, date(2026, 3, 1)))
    ):
        period = ledger.periods.create(f"P{n}", listed, NOW, list_date=day)
        ledger.periods.add_file(period.id, f"p{n}.trf", trf)
        ledger.periods.close(period.id, NOW + timedelta(minutes=n + 1))
    return ledger


def test_a_ledgers_periods_evaluate_as_the_files_do(ledger_url: str, folder: Path) -> None:
    ledger = _chained_ledger(ledger_url)
    try:
        chain = ledger.periods.history()
        assert chain.periods[0].start is not None  # uploaded: kept under every variant
        assert chain.periods[1].start is None  # chained: the variant's own list
        from_db = evaluate_ledger(ledger, ["k=20,40"], "db")
    finally:
        ledger.dispose()
    from_files = evaluate(folder, "fide", START, vary=["k=20,40"])
    assert replace(from_db, source="") == replace(from_files, source="")
    # the base replay is the ledger's own: its final list is what the ledger published
    base = replay_chain(chain, period_variants([])[0])
    published = {e.player: e.rating for e in base.lists["fide"] if e.rating is not None}
    ledger = Ledger(ledger_url)
    try:
        for player, rating in published.items():
            stored = {r.pool: r.rating for r in ledger.players.get(player).ratings}
            assert stored["fide"] == Decimal(rating), player
    finally:
        ledger.dispose()


def test_an_uploaded_list_is_kept_under_every_variant(tmp_path: Path) -> None:
    """February opened with its own list (not January's new one): every variant starts
    February from it."""
    ledger = Ledger.create(f"sqlite:///{tmp_path / 'f.db'}", "fide", NOW)
    try:
        text = TRF.read_text(encoding="utf-8")
        start = START.read_text(encoding="utf-8")
        for n, trf in enumerate((text, month_later(text))):
            period = ledger.periods.create(f"P{n}", start, NOW, list_date=date(2026, 2 + n, 1))
            ledger.periods.add_file(period.id, f"p{n}.trf", trf)
            ledger.periods.close(period.id, NOW + timedelta(minutes=n + 1))
        chain = ledger.periods.history()
    finally:
        ledger.dispose()
    assert all(p.start is not None for p in chain.periods)
    run = replay_chain(chain, period_variants(["k=40"])[1])
    assert [g.expected for g in run.scored[:15]] == [g.expected for g in run.scored[15:]]


def test_the_command_on_a_fide_ledger(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fide.db'}"
    _chained_ledger(url).dispose()
    runner = CliRunner()
    result = runner.invoke(main, ["evaluate", "--db", url, "--vary", "ruleset=fide-2024"])
    assert result.exit_code == 0, result.stderr
    assert "ruleset=fide-2024" in result.stdout and "fide · 90 games" in result.stdout
    refused = runner.invoke(main, ["evaluate", "--db", url, "--engine", "compiled"])
    assert refused.exit_code == 2
    assert "the fide system has no compiled replay" in refused.stderr
    empty = f"sqlite:///{tmp_path / 'empty.db'}"
    Ledger.create(empty, "fide", NOW).dispose()
    nothing = runner.invoke(main, ["evaluate", "--db", empty])
    assert nothing.exit_code == 2
    assert "no rating periods to evaluate" in nothing.stderr


def test_text_and_json_outputs_of_a_chain(folder: Path) -> None:
    evaluation = evaluate(folder, "fide", START, vary=["k=40"])
    printed = json.loads(as_json(evaluation))
    assert sorted(v["label"] for v in printed["variants"]) == ["base", "k=40"]
    text = as_text(evaluation)
    assert "k=40 · fide: 10 players rated in both" in text
    # the movers are named as the list names them, beside their FIDE id
    moved = [p for v in printed["variants"] for p in v["pools"] if p.get("against_base")]
    risers = moved[0]["against_base"]["risers"]
    assert risers and all(m["name"].startswith("Player ") for m in risers)
    assert f"{risers[0]['name']} ({risers[0]['player']}) {risers[0]['base']} →" in text


def test_a_folder_is_fides_only(folder: Path) -> None:
    result = CliRunner().invoke(main, ["evaluate", str(folder), "--system", "site"])
    assert result.exit_code == 2
    assert f"{folder}: a folder; site reads a games file" in result.stderr


def test_events_without_ratings_take_the_starting_lists(folder: Path) -> None:
    """A generated stream's events give no ratings: with ``ratings_from_list`` each
    player is rated in them as on the period's starting list under the variant. In
    January the file's ratings are the list's: the same games at the same PD; in
    February the players first rated in January are rated in the event too (the
    copied file still leaves them blank), so more of their games count."""
    chain = periods_from_files(folder, START)
    bare = replace(
        chain,
        periods=tuple(
            replace(
                p,
                events=tuple(
                    replace(e, entries=tuple(replace(x, event_rating=None) for x in e.entries))
                    for e in p.events
                ),
                ratings_from_list=True,
            )
            for p in chain.periods
        ),
    )
    for variant in period_variants(["k=40"]):
        ours, theirs = replay_chain(bare, variant), replay_chain(chain, variant)
        assert ours.scored[:15] == theirs.scored[:15] == tuple(scored(ours.results[0], "fide"))
        assert ours.results[1] != theirs.results[1]
    unrated = replace(
        bare, periods=tuple(replace(p, ratings_from_list=False) for p in bare.periods)
    )
    assert replay_chain(unrated, period_variants([])[0]).scored == ()  # F7: unrated in the file


def test_a_rating_the_seed_drives_below_one_chains_on(tmp_path: Path) -> None:
    """The seed's edition floors first ratings only (F6): a rated player who loses
    enough falls below 1. Its new list holds that rating, the chain (and a ledger)
    reads it back; an uploaded list still refuses a rating below 1."""
    from chessrate.systems.fide import Event, EventEntry, EventGame, ListedPlayer

    start = {"low": ListedPlayer("low", "Low", 20, 40, False),
             "top": ListedPlayer("top", "Top", 2400, 40, True)}  # fmt: skip
    losses = tuple(EventGame(r, "top", Decimal(0)) for r in range(1, 11))
    wins = tuple(EventGame(r, "low", Decimal(1)) for r in range(1, 11))
    event = Event("match", "m", False, (EventEntry("low", "Low", 20, losses),
                                        EventEntry("top", "Top", 2400, wins)))  # fmt: skip
    system = FideSystem(FideRules())
    result = system.rate_period(start, [event], date(2026, 2, 1))
    assert result.report("low").new_rating == 20 - 24  # 30 x (0 - 10 x 0.08)
    text = new_list_text(new_list_rows(result, system), Path("next.csv"), date(2026, 2, 1))
    assert parse_start_list(text, "next", stored=True)["low"].rating == -4
    with pytest.raises(InvalidRecord, match="rating: must be at least 1"):
        parse_start_list(text, "upload")


def test_a_busy_unrated_players_pending_results_read_back() -> None:
    """Under the 2024 rules an unrated player's results against rated opponents travel
    with the list for 26 months (7.1.4): a busy player's run far past a text field's
    1,000 characters, and the list still reads back; past the CSV reader's reach the
    field is refused, naming it."""
    from chessrate.io.fide import PENDING_LONGEST
    from chessrate.systems.fide import PendingGame, format_pending

    many = format_pending(
        PendingGame(date(2026, 2, 1), 1500 + n % 400, Decimal(0)) for n in range(3000)
    )
    assert 1_000 < len(many) < PENDING_LONGEST
    text = f"id,name,rating,games,reached_2400,pending\nbusy,Busy,,0,false,{many}\n"
    assert len(parse_start_list(text, "list", stored=True)["busy"].pending) == 3000
    too_many = format_pending([PendingGame(date(2026, 2, 1), 1500, Decimal(0))] * 6000)
    longest = "l:2: pending: is 107,999 characters long; at most 100,000"
    with pytest.raises(InvalidRecord, match=longest):
        parse_start_list(
            f"id,name,rating,games,reached_2400,pending\nb,B,,0,false,{too_many}\n", "l"
        )
