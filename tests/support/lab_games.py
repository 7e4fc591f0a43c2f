"""Games for the rating lab's report tests: a small site history among players whose
ids an HTML page must escape (markup, an ampersand and quotes; letters outside ASCII;
an id too long for a phone's line), and the real lichess export."""

from __future__ import annotations

import itertools
from pathlib import Path

from chessrate.records import GameRecord

LICHESS = Path(__file__).resolve().parents[1] / "data" / "pgn" / "lichess_cmrade.pgn"

MARKUP = '<b>&"'
"""A player id that is markup if it is not escaped."""

PLAYERS = (
    "kai",
    MARKUP,
    "Zoë 'z' Ærø",
    "an-extremely-long-player-identifier-without-a-single-space-in-it",
    "lars",
)

RESULTS = ("1-0", "0-1", "1/2-1/2", "1-0", "1-0", "0-1")


def odd_games(rounds: int = 3, time_control: str = "180+2") -> list[GameRecord]:
    """Every pair of :data:`PLAYERS` meets ``rounds`` times each way, one game a day, in
    one time control (one of site's pools besides the site Elo); results cycle."""
    pairs = list(itertools.permutations(PLAYERS, 2))
    games = []
    for n, ((white, black), result) in enumerate(
        zip(pairs * rounds, itertools.cycle(RESULTS), strict=False)
    ):
        day, hour = divmod(n, 20)
        games.append(
            GameRecord.from_mapping(
                {
                    "id": f"g{n}",
                    "played_at": f"2026-02-{day + 1:02d}T{hour:02d}:00:00Z",
                    "white": white,
                    "black": black,
                    "result": result,
                    "time_control": time_control,
                },
                f"odd:{n + 1}",
            )
        )
    return games
