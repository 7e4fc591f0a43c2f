"""Tokens from the command line: names, expiry, list, revoke; marks made and lifted;
the audit log; a new SQLite ledger file readable by its owner only."""

from __future__ import annotations

import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

from chessrate.ledger import Ledger
from chessrate.records import Player
from tests.test_cli_ledger import invoke


def test_token_list_revoke_and_expiry(ledger_url: str) -> None:
    assert invoke("init", "--system", "site", "--db", ledger_url)[0] == 0
    code, out, err = invoke(
        "token", "create", "--role", "moderator", "--label", "ops", "--days", "90",
        "--db", ledger_url,
    )  # fmt: skip
    assert code == 0 and "valid until" in err
    ops = out.strip()
    code, out, _ = invoke(
        "token", "create", "--role", "writer", "--label", "ci", "--expires", "2099-01-01",
        "--db", ledger_url,
    )  # fmt: skip
    assert code == 0
    ci = out.strip()
    code, out, _ = invoke(
        "token", "create", "--role", "writer", "--label", "old", "--expires", "2001-01-01",
        "--db", ledger_url,
    )  # fmt: skip
    assert code == 2  # an expiry in the past is refused
    code, out, _ = invoke("token", "list", "--db", ledger_url)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["id", "role", "label", "created", "(UTC)", "expires", "(UTC)",
                                "status"]  # fmt: skip
    assert lines[1].split()[:3] == ["1", "moderator", "ops"] and lines[1].endswith("valid")
    in_90 = (datetime.now(UTC) + timedelta(days=90)).strftime("%Y-%m-%d")
    assert in_90 in lines[1]
    assert lines[2].split()[:3] == ["2", "writer", "ci"] and "2099-01-01 00:00" in lines[2]

    assert invoke("token", "revoke", "2", "--reason", "leaked", "--db", ledger_url)[0] == 0
    code, _, err = invoke("token", "revoke", "2", "--db", ledger_url)
    assert code != 0 and "already revoked" in err
    code, _, err = invoke("token", "revoke", "99", "--db", ledger_url)
    assert code != 0 and "no such token" in err
    code, out, _ = invoke("token", "list", "--db", ledger_url)
    assert "revoked" in out.splitlines()[2]

    ledger = Ledger(ledger_url)
    try:
        assert ledger.tokens.role(ops) == "moderator"
        assert ledger.tokens.role(ci) is None  # revoked
        assert ledger.tokens.role(ops, datetime.now(UTC) + timedelta(days=91)) is None  # expired
    finally:
        ledger.dispose()

    code, out, err = invoke("audit", "--db", ledger_url)
    assert code == 0
    rows = out.splitlines()[1:]
    assert "token-revoke" in rows[0] and "token 2" in rows[0] and "leaked" in rows[0]
    assert "token-create" in rows[1] and "'ci'" in rows[1]
    assert "3 of 3 entries" in err


def test_a_new_sqlite_ledger_is_its_owners_only(tmp_path: Path) -> None:
    path = tmp_path / "private.db"
    assert invoke("init", "--system", "site", "--db", path)[0] == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for extra in (tmp_path / "private.db-wal", tmp_path / "private.db-shm"):
        if extra.exists():
            assert stat.S_IMODE(extra.stat().st_mode) & 0o077 == 0
    made = tmp_path / "made.db"
    Ledger.create(f"sqlite:///{made}", "arena").dispose()
    assert stat.S_IMODE(made.stat().st_mode) == 0o600


def test_mark_and_unmark_a_player(ledger_url: str) -> None:
    assert invoke("init", "--system", "site", "--db", ledger_url)[0] == 0
    ledger = Ledger(ledger_url)
    try:
        ledger.players.create(Player("ann"), datetime.now(UTC))
    finally:
        ledger.dispose()
    code, out, err = invoke("mark", "ann", "--reason", "engine use", "--db", ledger_url)
    assert code == 0, err
    assert out.startswith("ann marked at ")
    code, _, err = invoke("mark", "ann", "--reason", "again", "--db", ledger_url)
    assert code == 2 and "marked already" in err
    code, _, err = invoke("mark", "zed", "--reason", "x", "--db", ledger_url)
    assert code == 2 and "no such player" in err
    code, _, err = invoke("mark", "ann", "--reason", "", "--db", ledger_url)
    assert code == 2 and "reason: is required" in err
    code, out, err = invoke("unmark", "ann", "--reason", "appeal", "--db", ledger_url)
    assert code == 0 and "lifted" in out, err
    code, out, _ = invoke("audit", "--target", "player ann", "--db", ledger_url)
    rows = out.splitlines()[1:]
    assert "unmark" in rows[0] and "appeal" in rows[0]
    assert " mark " in rows[1] and "engine use" in rows[1]
