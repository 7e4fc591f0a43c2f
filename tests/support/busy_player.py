"""A site ledger where one player, ``busy``, has played many games (20,000 by
default) against 40 opponents: blitz (``3m+2s``) every hour, some unrated, a few
annulled. For the player page's size test and ``bench/player_page.py``."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from chessrate.ledger import Ledger
from chessrate.operations import import_file
from chessrate.records import Player

BUSY = "busy"
OPPONENTS = 40
START = datetime(2023, 1, 1, 8, 0, tzinfo=UTC)
ANNULLED = ("b00100", "b05000", "b19990")


def busy_ledger(url: str, folder: Path, games: int = 20_000, now: datetime | None = None) -> Ledger:
    """Create the ledger at ``url`` (the games file is written into ``folder``)."""
    draw = random.Random(14)
    path = folder / "busy_games.jsonl"
    results = ("1-0", "0-1", "1/2-1/2")
    with path.open("w", encoding="utf-8") as out:
        for n in range(games):
            opponent = f"opp{n % OPPONENTS:02d}"
            white, black = (BUSY, opponent) if n % 2 == 0 else (opponent, BUSY)
            record = {
                "id": f"b{n:05d}",
                "played_at": (START + timedelta(hours=n)).isoformat(),
                "white": white,
                "black": black,
                "result": draw.choice(results),
                "rated": n % 50 != 7,
                "time_control": "3m+2s",
                "plies": 60,
            }
            out.write(json.dumps(record) + "\n")
    players = [Player(BUSY, name="Busy Bee")] + [
        Player(f"opp{i:02d}", name=f"Opponent {i}") for i in range(OPPONENTS)
    ]
    moment = now or START + timedelta(hours=games + 1)
    ledger = Ledger.create(url, "site", moment)
    annulments = [
        (f"test:{n}", game, "fair play") for n, game in enumerate(ANNULLED) if int(game[1:]) < games
    ]
    import_file(ledger, path, None, players, moment, annulments, by="test")
    return ledger
