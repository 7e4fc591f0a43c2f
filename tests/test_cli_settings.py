"""A CHESSRATE_* variable the server's settings cannot read is a clear error for the
commands that read them (``error: NAME: 'value': why``, exit code 2), not pydantic's
traceback, and ``serve`` stops before it creates or touches a ledger."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from chessrate.application.settings import load_settings
from chessrate.cli import main
from chessrate.errors import InvalidInput


def test_a_bad_variable_is_named_with_its_value_and_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHESSRATE_SEEK_SECONDS", "abc")
    monkeypatch.setenv("CHESSRATE_LOG_FORMAT", "xml")
    with pytest.raises(InvalidInput) as raised:
        load_settings()
    text = str(raised.value)
    assert "CHESSRATE_SEEK_SECONDS: 'abc': Input should be a valid integer" in text
    assert "CHESSRATE_LOG_FORMAT: 'xml': Input should be 'text' or 'json'" in text


@pytest.mark.parametrize("command", [["pair"], ["serve", "--port", "1"]])
def test_pair_and_serve_exit_2_on_a_bad_variable(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "ledger.db"
    if command[0] == "pair":
        assert (
            CliRunner().invoke(main, ["init", "--system", "site", "--db", str(db)]).exit_code == 0
        )
    env = {"CHESSRATE_SEEK_RETENTION_DAYS": "-1"}
    done = CliRunner().invoke(main, [*command, "--db", str(db)], env=env)
    assert done.exit_code == 2, done.output
    assert done.output.startswith("error: CHESSRATE_SEEK_RETENTION_DAYS: '-1': ")
    assert "Traceback" not in done.output
    assert db.exists() == (command[0] == "pair")  # serve created nothing
