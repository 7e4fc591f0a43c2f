"""``verify`` through the compiled replay finds what the reference replay finds: nothing
on a sound ledger, the same differences on a tampered one (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from chessrate.errors import InvalidInput
from chessrate.ledger import Ledger
from chessrate.ledger.verify import Verifier
from chessrate.samples import load_sample

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
TAMPERING = [
    "UPDATE changes SET after = after + 1 WHERE seq = (SELECT min(seq) FROM games "
    "WHERE outcome = 0) AND slot = 0",
    "UPDATE changes SET k = coalesce(k, 0) + 1 WHERE seq = (SELECT max(seq) FROM games "
    "WHERE outcome = 0)",
    "UPDATE games SET reason = reason + 1 WHERE seq = (SELECT min(seq) FROM games)",
    "UPDATE games SET outcome = 2 WHERE seq = (SELECT max(seq) FROM games WHERE outcome = 0)",
    "DELETE FROM changes WHERE seq = (SELECT max(seq) FROM changes) AND slot = 0",
    "UPDATE ratings SET games = games + 1 WHERE player_id = (SELECT min(player_id) FROM ratings)",
    # site: an annulment's reversed change (the sample has annulments)
    "UPDATE changes SET basis = coalesce(basis, 0) + 1 WHERE game IS NOT NULL AND slot = 0 "
    "AND seq = (SELECT min(seq) FROM changes WHERE game IS NOT NULL)",
]


def named(problems: list[str]) -> set[str]:
    """What each difference names: a game, or a player's rating in a pool."""
    return {problem.split(":")[0] for problem in problems}


@pytest.mark.slow  # samples verified twice
@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_the_compiled_verify_finds_what_the_reference_finds(
    ledger_url: str, system_id: str
) -> None:
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
