"""``chessrate pair``: one pairing pass from the command line, on SQLite and
PostgreSQL, with the window's numbers from the environment like the server's."""

from __future__ import annotations

from datetime import UTC, datetime

from chessrate.ledger import Ledger
from chessrate.records import Player
from chessrate.timecontrol import parse_time_control
from tests.test_cli_ledger import invoke

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_pair_prints_the_pairs(ledger_url: str) -> None:
    ledger = Ledger.create(ledger_url, "site", NOW)
    for player_id, rating in (("ann", "1500"), ("ben", "1650"), ("cat", "1520")):
        data = {"id": player_id, "rating_site": rating, "games_site": "12"}
        ledger.players.create(Player.from_mapping(data, "test"), NOW)
    seeks = ledger.seeks
    for player_id in ("ann", "ben"):
        seeks.create(player_id, parse_time_control("180+2"), True, None, None, NOW)
    seeks.create("cat", parse_time_control("600+0"), False, None, None, NOW)
    ledger.dispose()

    at = ("--now", "2026-03-01T12:00:05")
    code, out, err = invoke("pair", "--db", ledger_url, *at)
    assert (code, out) == (0, "")  # 150 apart: not within 100
    assert "0 pairs, 0 seeks expired" in err
    wider = {"CHESSRATE_PAIR_WINDOW_START": "200"}
    code, out, err = invoke("pair", "--db", ledger_url, *at, env=wider)
    assert code == 0, err
    assert out == "seek-1-2\tann\tben\t3+2\trated\n"
    assert "1 pairs, 0 seeks expired" in err
    code, _, err = invoke("pair", "--db", ledger_url, "--now", "2026-03-01T12:11:00")
    assert code == 0 and "0 pairs, 1 seeks expired" in err
