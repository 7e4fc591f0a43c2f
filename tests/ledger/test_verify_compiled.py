"""``verify`` through the compiled replay finds what the reference replay finds: nothing
on a sound ledger, the same differences on a tampered one (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import text

from chessrate.errors import InvalidInput, LedgerUnavailable
from chessrate.ledger import Ledger, arrow, verify_reads
from chessrate.ledger.verify import Verifier
from chessrate.ledger.verify_reads import READ_ATTEMPTS
from chessrate.samples import load_sample

from .helpers import game

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
LATE = "2026-11-30T10:00:00Z"
TAMPERING = [
    "UPDATE changes SET after = after + 1 WHERE seq = (SELECT min(seq) FROM games "
    "WHERE outcome = 0) AND slot = 0",
    "UPDATE changes SET k = coalesce(k, 0) + 1 WHERE seq = (SELECT max(seq) FROM games "
    "WHERE outcome = 0)",
    "UPDATE games SET reason = reason + 1 WHERE seq = (SELECT min(seq) FROM games)",
    "UPDATE games SET outcome = 2 WHERE seq = (SELECT max(seq) FROM games WHERE outcome = 0)",
    "DELETE FROM changes WHERE seq = (SELECT max(seq) FROM changes) AND slot = 0",
    "UPDATE ratings SET games = games + 1 WHERE player_id = (SELECT min(player_id) FROM ratings)",
    # a change's slot out of its event's run (the changes no longer index by seq, slot)
    "UPDATE changes SET slot = slot + 5 WHERE seq = (SELECT min(seq) FROM games "
    "WHERE outcome = 0 AND seq > (SELECT min(seq) FROM games)) AND slot = 1",
    # site: an annulment's reversed change (the sample has annulments)
    "UPDATE changes SET basis = coalesce(basis, 0) + 1 WHERE game IS NOT NULL AND slot = 0 "
    "AND seq = (SELECT min(seq) FROM changes WHERE game IS NOT NULL)",
]


def named(problems: list[str]) -> set[str]:
    """What each difference names: a game, or a player's rating in a pool."""
    return {problem.split(":")[0] for problem in problems}


@pytest.mark.slow  # samples verified twice
@pytest.mark.parametrize(
    ("system_id", "apart"), [("arena", False), ("corr", False), ("site", False), ("site", True)]
)
def test_the_compiled_verify_finds_what_the_reference_finds(
    ledger_url: str, system_id: str, apart: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``apart``: the changes read in ranges of players on connections of their own, as
    a big ledger's are (the sample's 43 players would be read on one)."""
    if apart:
        monkeypatch.setattr(verify_reads, "SPLIT_PLAYERS", 1)
    ledger = Ledger.create(ledger_url, system_id, NOW)
    load_sample(ledger, NOW)
    assert Verifier(ledger).compiled_verifiable()
    assert ledger.verify("compiled") == [] == ledger.verify("reference")
    for statement in TAMPERING:
        with ledger.engine.begin() as conn:
            conn.execute(text(statement))
        compiled, reference = ledger.verify("compiled"), ledger.verify("reference")
        assert compiled, statement
        # the same games and ratings named (a missing change is worded differently)
        assert named(compiled) == named(reference), statement
        outcomes = [p for p in reference if "outcome" in p or "reason code" in p]
        assert set(outcomes) <= set(compiled)
    ledger.dispose()


@pytest.mark.slow  # a sample verified twice
def test_a_player_changed_after_their_games_is_verified_by_the_reference(
    ledger_url: str,
) -> None:
    """The site sample (annulments replayed in place by the compiled verify), then a
    player's attributes changed after their games: the compiled replay would rate
    their games with the new ones, so verify takes the reference replay."""
    ledger = Ledger.create(ledger_url, "site", NOW)
    load_sample(ledger, NOW)  # the site sample has annulments
    assert Verifier(ledger).compiled_verifiable()
    assert ledger.verify("compiled") == [] == ledger.verify("reference")
    ledger.players.update("ana", {"name": "Ana Changed"}, NOW)
    assert not Verifier(ledger).compiled_verifiable()
    assert ledger.verify() == []  # auto: the reference replay
    with pytest.raises(InvalidInput, match="compiled verify needs"):
        ledger.verify("compiled")
    ledger.dispose()


def games_between_reads(monkeypatch: pytest.MonkeyPatch, ledger: Ledger, reads: int) -> list[int]:
    """A game committed (by kai and mira) before each of the first ``reads`` reads of
    the games and changes, after verify's read transaction began; the list grows by
    one a read."""
    real = arrow.read_apart
    calls: list[int] = []

    def a_game_first(target: Any, jobs: Any, workers: int) -> Any:
        calls.append(len(jobs))
        if len(calls) <= reads:
            ledger.games.submit(game(f"late-{len(calls)}", "kai", "mira", played_at=LATE), NOW)
        return real(target, jobs, workers)

    monkeypatch.setattr(arrow, "read_apart", a_game_first)
    return calls


def test_a_game_committed_while_verify_reads_makes_it_read_again(
    site_sample: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compiled verify reads the games and changes on connections of their own, after
    its read transaction. A game committed in between would be in the games the replay
    rates and not in the ratings it compares: verify sees the counts differ and reads
    the ledger again, and finds nothing."""
    ledger = Ledger(site_sample)
    calls = games_between_reads(monkeypatch, ledger, 1)
    assert ledger.verify("compiled") == []
    assert len(calls) == 2
    ledger.dispose()


def test_a_ledger_that_never_stops_changing_is_reported_not_misread(
    site_sample: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = Ledger(site_sample)
    calls = games_between_reads(monkeypatch, ledger, READ_ATTEMPTS)
    with pytest.raises(LedgerUnavailable, match="changed while verify read it"):
        ledger.verify("compiled")
    assert len(calls) == READ_ATTEMPTS
    assert ledger.verify("compiled") == []  # the games written meanwhile are sound
    assert len(calls) == READ_ATTEMPTS + 1
    ledger.dispose()
