"""``chessrate fide rate --list-kind``: a file's rate of play chooses and checks the list;
matches from a TRF of two players; the standard list for rapid and blitz."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from click.testing import CliRunner

from chessrate.cli import main
from chessrate.io.fide import event_from_tournament
from chessrate.io.trf import Tournament, TrfPlayer, TrfRound, parse_trf, write_trf

SEED_TRF = Path(__file__).parent / "data" / "trf" / "seed_round_robin.trf"


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def blitz_file(tmp_path: Path) -> Path:
    """The seed's round robin played at 5 minutes a game (its 122 record is line 11)."""
    lines = SEED_TRF.read_text().splitlines()
    assert lines[10].startswith("122 ")
    lines[10] = "122 5 minutes per game (blitz)"
    path = tmp_path / "blitz.trf"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_fide_rate_refuses_a_blitz_file_for_the_standard_list(tmp_path: Path) -> None:
    path = blitz_file(tmp_path)
    code, _, err = invoke("fide", "rate", path, "--rules", "fide-2024", "--list-kind", "standard")
    assert code == 2
    assert err.strip() == (
        f"error: {path}:11: 122: the rate of play '5 minutes per game (blitz)' gives 5 minutes "
        "for 60 moves, a blitz game; the standard list needs at least 60 minutes for 60 moves "
        "(1.1)"
    )
    code, _, err = invoke("fide", "rate", SEED_TRF, "--rules", "fide-2024", "--list-kind", "rapid")
    assert code == 2
    assert "a standard game; the rapid list needs more than 10 and less than 60 minutes" in err


def test_fide_rate_rates_a_blitz_file_on_the_blitz_list_by_default(tmp_path: Path) -> None:
    path, report = blitz_file(tmp_path), tmp_path / "report.txt"
    code, out, err = invoke(
        "fide", "rate", path, "--rules", "fide-2024", "--period", "2026-02-01", "--report", report
    )
    assert code == 0, err
    assert "fide · blitz list (10 players)" in out
    head = report.read_text().splitlines()[:3]
    assert head[0] == "FIDE rating period: fide-2024 rules, blitz list, the list of 2026-02-01"
    assert head[2].startswith("  7.3.1 (rapid and blitz), from 1 December 2024: games between")
    assert head[2].endswith(": applied")


def test_fide_rate_seed_rules_rate_a_blitz_file_with_a_warning(tmp_path: Path) -> None:
    path = blitz_file(tmp_path)
    code, out, err = invoke("fide", "rate", path)
    assert code == 0, err
    assert "fide · standard list" in out
    assert f"warning: {path}:11: 122: the rate of play" in err
    assert "rated on the seed's one list all the same" in err


def test_fide_rate_standard_list_rates_an_unrated_blitz_player(tmp_path: Path) -> None:
    """R&B 7.2.1 through --standard-list: Player C, unrated in the blitz file, has a
    standard rating of 2300 and is rated with it (K 40: no blitz games yet)."""
    standard = tmp_path / "standard.csv"
    standard.write_text("id,name,rating,games,reached_2400\nPlayer C,Player C,2300,50,false\n")
    report = tmp_path / "report.json"
    code, _, err = invoke(
        "fide", "rate", blitz_file(tmp_path), "--rules", "fide-2024", "--period", "2026-02-01",
        "--standard-list", standard, "--report", report,
    )  # fmt: skip
    assert code == 0, err
    c = next(r for r in json.loads(report.read_text()) if r["player"] == "Player C")
    assert (c["old_rating"], c["k"], c["standard_rating"]) == (2300, 40, 2300)
    assert "rated with his standard rating 2300 (7.2.1" in c["notes"][0]
    code, _, err = invoke("fide", "rate", SEED_TRF, "--standard-list", standard)
    assert code == 2 and "--standard-list is for a rapid or blitz list" in err


def _match_file(tmp_path: Path) -> Path:
    """A six-game match: Ana (2100, FIDE id 1) against Ben (unrated, no id); Ben wins
    four and draws one."""
    results = [("0", "1"), ("1", "0"), ("0", "1"), ("=", "="), ("0", "1"), ("0", "1")]

    def player(rank: int, name: str, rating: int | None, fide_id: str | None) -> TrfPlayer:
        rounds = tuple(
            TrfRound(n, 3 - rank, "w" if (n + rank) % 2 else "b", pair[rank - 1])
            for n, pair in enumerate(results, start=1)
        )
        points = sum(
            (Decimal("0.5") if r.code == "=" else Decimal(r.code) for r in rounds), Decimal(0)
        )
        return TrfPlayer(rank, "m", "", name, rating, "ESP", fide_id, "1990/01/01", points,
                         rank, rounds, 0)  # fmt: skip

    match = Tournament(
        "Club match", "Madrid", "ESP", "2025/12/01", "2025/12/06", "Match",
        "90 minutes plus 30 seconds per move",
        (player(1, "Ana", 2100, "1"), player(2, "Ben", None, None)), (), "match.trf",
    )  # fmt: skip
    path = tmp_path / "match.trf"
    path.write_text(write_trf(match))
    return path


def test_fide_rate_6_1_a_match_against_an_unrated_player_is_not_rated(tmp_path: Path) -> None:
    path = _match_file(tmp_path)
    event = event_from_tournament(parse_trf(path.read_text(), str(path)), round_robin=True)
    assert (event.match, event.rounds, event.minutes) == (True, 6, Decimal(120))
    report = tmp_path / "report.txt"
    code, _, err = invoke(
        "fide", "rate", path, "--rules", "fide-2024", "--round-robin", "--period", "2026-01-01",
        "--report", report,
    )  # fmt: skip
    assert code == 0, err
    text = report.read_text()
    assert "Club match: rounds 1, 2, 3, 4, 5, 6 against Ben not rated: a match in which one " in (
        text
    )
    assert "player (Ben) is unrated is not rated (6.1)" in text
    assert "Ben: unrated" in text and "no rating this period" in text
