"""PGN movetext read as a game's moves (:func:`chessrate.moves.moves_from_movetext`): the
main line as python-chess's own game builder reads it, variations checked and left out;
and the ending the last position makes (:func:`chessrate.moves.ending_of`)."""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn
import pytest

from chessrate.moves import (
    Ending,
    MovesRefused,
    ending_of,
    moves_from_movetext,
    read_list,
    read_movetext,
)

PGN = Path(__file__).parent / "data" / "pgn"


def builder_main_line(text: str) -> tuple[str, ...]:
    """The main line as python-chess's GameBuilder reads it (a node a move)."""
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors, game.errors if game else None
    return tuple(move.uci() for move in game.mainline_moves())


def movetexts(path: Path) -> list[str]:
    """Each game's movetext in a PGN file: the text after its tags."""
    games: list[str] = []
    current: list[str] = []
    in_moves = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("[") and in_moves:
            games.append("\n".join(current))
            current, in_moves = [], False
        if not line.startswith("["):
            in_moves = in_moves or bool(line.strip())
            current.append(line)
    if in_moves:
        games.append("\n".join(current))
    return [text.strip() for text in games if text.strip()]


def test_real_games_read_as_python_chess_reads_their_main_line() -> None:
    """Every game of the test PGN files with moves (lichess exports with clock comments,
    a broadcast, chess.com), the same moves as python-chess's builder gives."""
    compared = 0
    for path in sorted(PGN.glob("*.pgn")):
        if path.name == "quirks.pgn":  # holds games refused on purpose
            continue
        for text in movetexts(path):
            try:
                read = moves_from_movetext(text)
            except MovesRefused:
                continue  # what the reader refuses is tested below
            assert read == builder_main_line(text), (path.name, text[:80])
            compared += bool(read)
    assert compared >= 20


def test_variations_are_left_out_at_any_depth() -> None:
    text = "1. e4 (1. d4 d5 (1... Nf6 2. c4) 2. c4) e5 2. Nf3 (2. f4 exf4) Nc6 *"
    assert moves_from_movetext(text) == ("e2e4", "e7e5", "g1f3", "b8c6")
    assert moves_from_movetext(text) == builder_main_line(text)


def test_an_illegal_move_in_a_variation_is_refused_as_the_builder_notes_it() -> None:
    """python-chess's builder notes the error and reads on; the reader refuses the
    movetext, naming the move, as for a main-line move."""
    with pytest.raises(MovesRefused, match=r"ply 3 \(2\. 'Ke3'\): not a legal move"):
        moves_from_movetext("1. e4 e5 2. Nf3 (2. Ke3) Nc6 *")
    with pytest.raises(MovesRefused, match=r"ply 4 \(2\.\.\. 'Ke6'\): not a legal move"):
        moves_from_movetext("1. e4 e5 2. Nf3 Nc6 (2... Ke6) 3. Bb5 *")


def test_a_position_tag_is_refused() -> None:
    with pytest.raises(MovesRefused, match="standard position"):
        moves_from_movetext('[FEN "4k3/8/8/8/8/8/8/4K3 w - - 0 1"]\n\n1. Kd2 *')


FOOLS_MATE = ["f3", "e5", "g4", "Qh4#"]
STALEMATE = (  # Sam Loyd's: stalemate in ten moves, every black piece still on the board
    "1. e3 a5 2. Qh5 Ra6 3. Qxa5 h5 4. h4 Rah6 5. Qxc7 f6 6. Qxd7+ Kf7 7. Qxb7 Qd3 "
    "8. Qxb8 Qh7 9. Qxc8 Kg6 10. Qe6 1/2-1/2"
)


@pytest.mark.parametrize(
    ("fen", "ending"),
    [
        ("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", Ending("checkmate", "1-0")),
        ("8/8/8/8/8/6k1/6q1/7K w - - 0 1", Ending("checkmate", "0-1")),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Ending("stalemate", "1/2-1/2")),
        ("8/8/4k3/8/8/3NK3/8/8 b - - 0 1", Ending("insufficient material (neither side can mate)",
                                                  "1/2-1/2")),
        ("8/8/4k3/8/8/3RK3/8/8 b - - 0 1", None),  # a rook can mate
        ("7k/8/6K1/8/8/8/8/8 b - - 0 1", Ending("insufficient material (neither side can mate)",
                                                "1/2-1/2")),
        (chess.STARTING_FEN, None),
    ],
    ids=["white-mates", "black-mates", "stalemate", "knight-alone", "rook", "kings", "start"],
)  # fmt: skip
def test_the_last_position_decides_the_ending_by_the_rules_of_play(
    fen: str, ending: Ending | None
) -> None:
    assert ending_of(chess.Board(fen)) == ending


def test_moves_that_end_the_game_say_so_as_a_list_and_as_movetext() -> None:
    mate = Ending("checkmate", "0-1")
    assert read_list(FOOLS_MATE).ending == mate
    assert read_movetext("1. f3 e5 2. g4 Qh4# 0-1").ending == mate
    assert read_movetext(STALEMATE).ending == Ending("stalemate", "1/2-1/2")
    assert read_list(FOOLS_MATE[:3]).ending is None
    assert read_list([]).ending is None


def test_the_sides_without_mating_material_are_named() -> None:
    """A side left with a lone king (or king and minor piece) cannot mate: what a loss
    on time against it makes a draw."""
    sans = ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qe5+", "Qe2", "Qxe2+", "Bxe2"]
    assert read_list(sans).cannot_mate == frozenset()
    assert read_list([]).cannot_mate == frozenset()
    lone = LONE_KING.split()
    assert read_list(lone).cannot_mate == frozenset({"black"})
    assert read_movetext(" ".join(lone)).cannot_mate == frozenset({"black"})
    assert read_list(lone).ending is None


LONE_KING = (  # lichess.org/0QMdshMI (CC0), tests/data/pgn/lichess_lone_king.pgn
    "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d4 exd4 e5 d5 exf6 dxc4 fxg7 Rg8 Bg5 Qd5 O-O Bg4 "
    "Re1+ Kd7 cxd4 Bxd4 Nc3 Bxf3 gxf3 Rxg7 Ne4 f6 Nxf6+ Kc8 Nxd5 Rxg5+ Kf1 Rxd5 Re8+ Nd8 "
    "Re4 c5 Qc2 b5 Re7 Rb8 Qxh7 Rb6 Rc7+ Kb8 Rxa7 Rbd6 Ra5 Bxb2 Rxb5+ Kc8 Rxb2 c3 Rc2 Rd3 "
    "Rac1 Rd7 Qh3 Kc7 Rxc3 Rxc3 Rxc3 Rd1+ Kg2 Kb6 Qh6+ Nc6 Qg5 Rd4 Qxc5+ Kc7 Qxc6+ Kd8 "
    "Qb6+ Ke8 Qxd4"
)


def test_only_the_main_lines_last_position_ends_the_game() -> None:
    """A mate in a variation ends nothing; a mate on the main line ends the game
    whatever its variations hold."""
    assert read_movetext("1. f3 e5 2. g4 Nc6 (2... Qh4#) 0-1").ending is None
    assert read_movetext("1. f3 e5 2. g4 Qh4# (2... Nc6 3. Nc3) 0-1").ending == Ending(
        "checkmate", "0-1"
    )


def test_the_result_movetext_states_is_its_token_else_its_result_tag() -> None:
    """What a game's ``result`` must agree with (PGN's rule: the termination marker is
    the Result tag's); ``½-½`` is read as ``1/2-1/2``."""
    assert read_movetext("1. e4 e5 0-1").stated == "0-1"
    assert read_movetext("1. e4 e5 ½-½").stated == "1/2-1/2"
    assert read_movetext("1. e4 e5 *").stated == "*"
    assert read_movetext('[Result "1-0"]\n1. e4 e5').stated == "1-0"
    assert read_movetext('[Result "1/2-1/2"]\n1. e4 e5 ½-½').stated == "1/2-1/2"
    assert read_movetext("1. e4 e5").stated is None
    assert read_movetext("").stated is None
    assert read_movetext("1-0").stated == "1-0"  # a result alone: no move
    assert read_list(["e4", "e5"]).stated is None
    with pytest.raises(MovesRefused, match="its Result tag says 1-0 but it ends with 0-1"):
        read_movetext('[Result "1-0"]\n1. e4 e5 0-1')
