"""Creates that race on PostgreSQL. Eight writers (each its own
Ledger: its own engine and connections, as eight workers have) register one new id at
once: one is created, the others get the conflict (409), never a server error; eight
open one live game at once: one opens it, the others are answered the stored game."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from chessrate.errors import Conflict
from chessrate.ledger import Ledger
from chessrate.records import Player
from chessrate.systems.site_live import LiveGame
from chessrate.timecontrol import parse_time_control

from .helpers import NOW

WRITERS = 8


def _at_once(postgres_url: str, work: object) -> list[object]:
    ledgers = [Ledger(postgres_url) for _ in range(WRITERS)]
    start = threading.Barrier(WRITERS)

    def run(ledger: Ledger) -> object:
        start.wait()
        try:
            return work(ledger)  # type: ignore[operator]
        except Conflict as conflict:
            return conflict

    try:
        with ThreadPoolExecutor(WRITERS) as pool:
            return list(pool.map(run, ledgers))
    finally:
        for ledger in ledgers:
            ledger.dispose()


def test_one_new_player_id_registered_at_once(postgres_url: str) -> None:
    Ledger.create(postgres_url, "site", NOW).dispose()
    for round_ in range(3):
        player = Player(f"same-{round_}", name="Same")
        found = _at_once(postgres_url, lambda ledger, p=player: ledger.players.create(p, NOW))
        created = [r for r in found if not isinstance(r, Conflict)]
        refused = [r for r in found if isinstance(r, Conflict)]
        assert len(created) == 1, found
        assert len(refused) == WRITERS - 1
        assert all("already exists" in str(r) for r in refused)
    ledger = Ledger(postgres_url)
    assert ledger.counts()["players"] == 3
    assert ledger.verify() == []
    ledger.dispose()


def test_one_live_game_opened_at_once(postgres_url: str) -> None:
    setup = Ledger.create(postgres_url, "site", NOW)
    for player_id in ("ann", "bob"):
        setup.players.create(Player(player_id), NOW)
    setup.dispose()
    game = LiveGame("live-1", "ann", "bob", NOW, parse_time_control("180+2"))
    found = _at_once(postgres_url, lambda ledger: ledger.live.open(game, NOW))
    assert not any(isinstance(r, Conflict) for r in found), found
    created = [r for r in found if r[1]]  # type: ignore[index]
    assert len(created) == 1
    assert {r[0].game.id for r in found} == {"live-1"}  # type: ignore[index]
