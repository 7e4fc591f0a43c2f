"""``chessrate detect FILE.pgn...`` screens files without a ledger: one JSON object per
player-game, then one per player, on a real lichess export."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from chessrate.cli import main

from .conftest import PGN

GAME_KEYS = {
    "type", "game", "player", "side", "rating", "flagged", "reason", "score",
    "choice_score", "moves_analysed", "match_rate", "windows",
}  # fmt: skip
PLAYER_KEYS = {
    "type", "player", "games", "record_games", "flagged", "by", "score", "choice_score",
    "games_flagged",
}  # fmt: skip


def test_detect_prints_a_line_per_player_game_then_per_player(detector: object) -> None:
    result = CliRunner().invoke(main, ["detect", str(PGN)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    games = [line for line in lines if line["type"] == "game"]
    players = [line for line in lines if line["type"] == "player"]
    assert lines == games + players  # every game first, then the players
    assert len(games) == 6  # three games, two sides each
    assert all(set(g) == GAME_KEYS for g in games)
    assert all(set(p) == PLAYER_KEYS for p in players)
    first = games[0]
    assert (first["game"], first["side"]) == ("VCTKqrX7", "white")  # the GameId tag
    assert isinstance(first["rating"], int) and first["moves_analysed"] > 10
    assert not any(g["flagged"] for g in games)  # real humans
    cmrade = next(p for p in players if p["player"] == "cmrade")
    assert cmrade["games"] == 2 and cmrade["flagged"] is False and cmrade["by"] is None
    assert cmrade["games_flagged"] == []
    assert sum(p["games"] for p in players) == 6


def test_detect_takes_a_rating_for_a_game_without_elo_tags(
    detector: object, tmp_path: Path
) -> None:
    pgn = tmp_path / "untagged.pgn"
    pgn.write_text(
        '[White "a"]\n[Black "b"]\n[Result "*"]\n\n'
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 *\n\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["detect", str(pgn), "--rating", "1500", "--depth", "4"])
    assert result.exit_code == 0, result.output
    first = json.loads(result.stdout.splitlines()[0])
    assert first["rating"] == 1500 and first["game"] == f"{pgn}:1"


def test_detect_names_the_file_and_line_of_a_bad_game(tmp_path: Path) -> None:
    pgn = tmp_path / "bad.pgn"
    pgn.write_text(
        '[White "a"]\n[Black "b"]\n\n1. e4 e5 *\n\n[White "c"]\n[Black "d"]\n\n1. e4 e4 *\n\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["detect", str(pgn), "--stockfish", "/nowhere"])
    assert result.exit_code == 2
    assert f"{pgn}:6: movetext:" in result.stderr
