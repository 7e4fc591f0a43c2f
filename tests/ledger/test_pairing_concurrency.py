"""Pairing passes run at once on PostgreSQL (a seek is paired once, however
many workers run the pass): four threads, each with its own Ledger (its own engine
and connections, as four workers have) on the same database, over 40 seeks."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import select

from chessrate.ledger import Ledger
from chessrate.ledger.schema import live_games
from chessrate.ledger.seeks import PairReport, SeekStatus
from chessrate.records import Player
from chessrate.systems.site_live import LiveStatus
from chessrate.systems.site_pairing import PairingRules, choose_pairs
from chessrate.timecontrol import parse_time_control

from .helpers import NOW

PASSES = 4
ROUNDS = 3
PLAYERS = [f"p{n:02}" for n in range(32)]


def test_concurrent_passes_pair_each_seek_once(postgres_url: str) -> None:
    setup = Ledger.create(postgres_url, "site", NOW)
    for n, player_id in enumerate(PLAYERS):  # site Elos 1400-1710, 10 apart
        setup.players.create(Player.from_mapping(
            {"id": player_id, "rating_site": str(1400 + 10 * n), "games_site": "30"}, "test"
        ), NOW)  # fmt: skip
    seeks = setup.seeks
    blitz, rapid = parse_time_control("180+2"), parse_time_control("600+0")
    made = [seeks.create(p, blitz, True, None, None, NOW) for p in PLAYERS]
    # Eight of them also seek a rapid game: a player must not get two new games.
    made += [seeks.create(p, rapid, True, None, None, NOW) for p in PLAYERS[::4]]
    assert len(made) == 40

    barrier = threading.Barrier(PASSES)

    def work(_: int) -> list[PairReport]:
        ledger = Ledger(postgres_url)  # a worker of its own
        try:
            barrier.wait()
            return [ledger.seeks.pair(NOW) for _ in range(ROUNDS)]
        finally:
            ledger.dispose()

    with ThreadPoolExecutor(PASSES) as pool:
        reports = [r for thread in pool.map(work, range(PASSES)) for r in thread]

    assert all(not r.failed for r in reports)
    pairs = [(a, b, game) for r in reports for a, b, game in r.pairs]
    paired_ids = Counter(s.id for a, b, _ in pairs for s in (a, b))
    assert paired_ids and max(paired_ids.values()) == 1, "a seek paired twice"
    with setup.reading() as conn:
        stored = conn.execute(select(live_games.c.id, live_games.c.white, live_games.c.black)).all()
    assert {row.id for row in stored} == {game.game.id for _, _, game in pairs}
    in_games = Counter(p for row in stored for p in (row.white, row.black))
    assert max(in_games.values()) == 1, "a player in two new games"

    # Every pairable seek was paired: among the seeks left open, nothing more pairs
    # (their players are playing), and the blitz pool is fully paired.
    total, left = seeks.page(NOW, limit=100)
    assert total == 40 - len(paired_ids)
    busy = {p for row in stored for p in (row.white, row.black)}
    assert choose_pairs([v.seek() for v in left], NOW, PairingRules(), busy) == []
    assert all(v.time_control == rapid for v in left)
    assert len(pairs) == 16
    for a, b, _ in pairs:
        assert abs(a.rating - b.rating) == 10  # closest first: neighbours
        assert seeks.get(a.id, NOW).status is SeekStatus.PAIRED
    assert all(g.status is LiveStatus.OPEN for _, _, g in pairs)
    setup.dispose()
