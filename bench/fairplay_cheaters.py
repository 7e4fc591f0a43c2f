"""Make cheating games with Stockfish, to see what the detector catches.

Each made-up cheater plays five games at their rating against an opponent rated within
150 of them. A game starts from a real human game of the held-out corpus (its first 8
plies, or its first 40 for a late switcher) and is played on by two engines:

* the cheater's own moves and all the opponent's by Stockfish at reduced strength
  (``UCI_LimitStrength`` at the player's rating, at least 1350, Stockfish's floor;
  0.05 s a move), a stand-in for human play that the detector's model never saw;
* the cheater's engine moves by full Stockfish at a fixed depth.

A late switcher's rating is that of the real player whose first 20 moves it plays
(games chosen within 150 of it).

The kinds of cheater (``KINDS``): the engine on every move at depth 12 (``full``),
a weaker one at depth 6 (``weak``) and a stronger one at depth 16 (``strong``); the
engine on a random 30, 40 or 50 % of the moves (``share30``...); own play to move 20
and the engine from move 21 (``late``); and, to see the stand-in itself, no engine at
all (``none``). A game ends by the rules, when one side is 7 pawns down at two checks
in a row (it resigns; a depth-6 search every 4 plies), or at ply 200 (a draw).

``python bench/fairplay_cheaters.py [--players N] [--seed S]`` writes
``bench/data/fairplay/cheaters.pgn`` (the kind, the cheater's side and the plies the
engine played are in each game's tags).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from chessrate.fairplay.detector import stockfish_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fairplay_corpus import DATA, CorpusGame, read_games

OUT = DATA / "cheaters.pgn"
HUMAN_FILES = ("lichess_cmrade.pgn", "lichess_bfx.pgn", "carlsen.pgn")
RATINGS = (1100, 1300, 1500, 1700, 1900, 2100, 2300, 2500, 2700)


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    depth: int  # the cheater's engine
    share: float  # of the cheater's moves after the start, on the engine
    start_plies: int  # taken from the real game
    players: int  # made-up cheaters of this kind (five games each) per --players 1


KINDS = (
    Kind("full", 12, 1.0, 8, 2),
    Kind("weak", 6, 1.0, 8, 1),
    Kind("strong", 16, 1.0, 8, 1),
    Kind("share30", 12, 0.3, 8, 1),
    Kind("share40", 12, 0.4, 8, 1),
    Kind("share50", 12, 0.5, 8, 1),
    Kind("late", 12, 1.0, 40, 2),
    Kind("none", 12, 0.0, 8, 1),
)


def held_out(game: CorpusGame) -> bool:
    """The held-out third of the human corpus (the fit never sees it)."""
    return game.index % 3 == 0


class Engines:
    def __init__(self, path: str) -> None:
        self.full = chess.engine.SimpleEngine.popen_uci(path)
        self.full.configure({"Threads": 1, "Hash": 16})
        self.human = chess.engine.SimpleEngine.popen_uci(path)
        self.human.configure({"Threads": 1, "Hash": 16, "UCI_LimitStrength": True})

    def human_move(self, board: chess.Board, rating: int) -> chess.Move:
        self.human.configure({"UCI_Elo": max(1350, min(2850, rating))})
        move = self.human.play(board, chess.engine.Limit(time=0.05)).move
        assert move is not None
        return move

    def engine_move(self, board: chess.Board, depth: int) -> chess.Move:
        move = self.full.play(board, chess.engine.Limit(depth=depth), game=object()).move
        assert move is not None
        return move

    def eval_for(self, board: chess.Board, colour: chess.Color) -> int:
        info = self.full.analyse(board, chess.engine.Limit(depth=6), game=object())
        value = info["score"].pov(colour).score(mate_score=10_000)
        assert value is not None
        return value

    def close(self) -> None:
        self.full.quit()
        self.human.quit()


def play(
    engines: Engines, kind: Kind, seed_game: CorpusGame, cheater: chess.Color,
    rating: int, opponent: int, rng: random.Random,
) -> tuple[chess.pgn.Game, list[int]]:  # fmt: skip
    board = chess.Board()
    for move in seed_game.moves[: kind.start_plies]:
        board.push(move)
    engine_plies: list[int] = []
    losing = {chess.WHITE: 0, chess.BLACK: 0}
    result = "1/2-1/2"
    while not board.is_game_over(claim_draw=True):
        ply = board.ply() + 1
        if ply > 200:
            break
        if board.turn == cheater:
            if rng.random() < kind.share:
                move = engines.engine_move(board, kind.depth)
                engine_plies.append(ply)
            else:
                move = engines.human_move(board, rating)
        else:
            move = engines.human_move(board, opponent)
        board.push(move)
        if ply % 4 == 0 and not board.is_game_over():
            value = engines.eval_for(board, chess.WHITE)
            for colour, sign in ((chess.WHITE, 1), (chess.BLACK, -1)):
                losing[colour] = losing[colour] + 1 if sign * value <= -700 else 0
            if losing[chess.WHITE] >= 2 or losing[chess.BLACK] >= 2:
                result = "0-1" if losing[chess.WHITE] >= 2 else "1-0"
                break
    else:
        result = board.result(claim_draw=True)
    game = chess.pgn.Game.from_board(board)
    game.headers["Result"] = result
    return game, engine_plies


def _elo_of(game: CorpusGame, colour: chess.Color) -> int | None:
    return game.white_elo if colour == chess.WHITE else game.black_elo


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3, help="made-up cheaters per kind unit")
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--kinds", default=",".join(k.name for k in KINDS))
    parser.add_argument("--stockfish")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    seeds = [g for f in HUMAN_FILES for g in read_games(DATA / f) if held_out(g)]
    late_seeds = [g for g in seeds if len(g.moves) >= 50]
    engines = Engines(stockfish_path(args.stockfish))
    wanted = set(args.kinds.split(","))
    try:
        with args.out.open("a", encoding="utf-8") as out:
            for kind in KINDS:
                if kind.name not in wanted:
                    continue
                for number in range(kind.players * args.players):
                    rating = RATINGS[(number + rng.randrange(len(RATINGS))) % len(RATINGS)]
                    if kind.start_plies > 8:  # the real player's rating: it played to move 20
                        rating = _elo_of(rng.choice(late_seeds), chess.WHITE) or rating
                    name = f"{kind.name}-{args.seed}-{number + 1:02d}"
                    for round_ in range(1, 6):
                        opponent = rating + rng.randint(-150, 150)
                        cheater = chess.WHITE if round_ % 2 else chess.BLACK
                        pool = seeds
                        if kind.start_plies > 8:
                            pool = [
                                g
                                for g in late_seeds
                                if abs((_elo_of(g, cheater) or 0) - rating) <= 150
                            ]
                        seed_game = rng.choice(pool or late_seeds)
                        game, engine_plies = play(
                            engines, kind, seed_game, cheater, rating, opponent, rng
                        )
                        h = game.headers
                        h["Event"] = f"cheater {kind.name}"
                        h["Round"] = str(round_)
                        side_names = (name, f"opponent-{name}-{round_}")
                        h["White"], h["Black"] = side_names if cheater else side_names[::-1]
                        ratings = (rating, opponent) if cheater else (opponent, rating)
                        h["WhiteElo"], h["BlackElo"] = (str(r) for r in ratings)
                        h["Cheater"] = "white" if cheater else "black"
                        h["Kind"] = kind.name
                        h["EngineDepth"] = str(kind.depth)
                        h["EnginePlies"] = " ".join(map(str, engine_plies))
                        h["Opening"] = seed_game.key
                        print(game, file=out, end="\n\n", flush=True)
                    print(f"  {name}: 5 games", file=sys.stderr)
    finally:
        engines.close()


if __name__ == "__main__":
    main()
