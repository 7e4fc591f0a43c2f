"""A game's moves on ``POST /games``, its batch form and ``chessrate import``: a list
(SAN or UCI) or PGN movetext, checked legal when the game arrives, stored as UCI
(table ``game_moves``), refused whole with the game, the field, the ply and the move."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from chessrate.cli import main
from chessrate.ledger import Ledger
from chessrate.moves import MAX_MOVES
from tests.service.conftest import Api
from tests.test_moves import FOOLS_MATE, STALEMATE

RUY = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"]
RUY_UCI = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7"]
MOVETEXT = (
    "1. e4 {the king's pawn} e5 2. Nf3 Nc6 $1 3. Bb5 (3. Bc4 Bc5) a6 4. Ba4 Nf6 5. O-O Be7 1-0"
)

GAME: dict[str, Any] = {
    "id": "g1",
    "played_at": "2026-03-01T18:00:00Z",
    "white": "alice",
    "black": "bob",
    "result": "1-0",
    "time_control": "5m+3s",
}


def jsonl(*records: dict[str, Any]) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def single_error(answer: Any) -> dict[str, Any]:
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert len(detail) == 1, detail
    item: dict[str, Any] = detail[0]
    return item


def stored_moves(ledger: Ledger) -> dict[str, list[str]]:
    from sqlalchemy import select

    from chessrate.ledger.schema import game_moves

    with ledger.reading() as conn:
        return {row.game_id: row.moves.split() for row in conn.execute(select(game_moves))}


@pytest.mark.parametrize(
    "moves", [{"moves": RUY}, {"moves": RUY_UCI}, {"movetext": MOVETEXT}],
    ids=["san-list", "uci-list", "movetext"],
)  # fmt: skip
def test_a_game_posted_with_moves_stores_them_as_uci(site_pair: Api, moves: dict[str, Any]) -> None:
    answer = site_pair.post("/games", {**GAME, **moves})
    assert answer.status_code == 201, answer.text
    game = answer.json()
    assert game["moves"] == RUY_UCI
    assert game["plies"] == len(RUY_UCI)  # counted from the moves
    assert site_pair.get("/games/g1").json()["moves"] == RUY_UCI
    assert stored_moves(site_pair.ledger) == {"g1": RUY_UCI}
    # The same game again is the same game; other moves are another game.
    assert site_pair.post("/games", {**GAME, **moves}).status_code == 200
    assert site_pair.post("/games", {**GAME, "moves": RUY_UCI[:8]}).status_code == 409
    assert site_pair.post("/games", GAME).status_code == 409
    assert site_pair.ledger.verify() == []


def test_a_game_without_moves_answers_none(site_pair: Api) -> None:
    answer = site_pair.post("/games", GAME)
    assert answer.status_code == 201
    assert answer.json()["moves"] is None
    assert stored_moves(site_pair.ledger) == {}


@pytest.mark.parametrize(
    ("fields", "field", "reason"),
    [
        ({"moves": ["e4", "e5", "Ke3"]}, "moves", "ply 3 (2. 'Ke3'): not a legal move"),
        ({"moves": ["e2e4", "e2e4"]}, "moves", "ply 2 (1... 'e2e4'): not a legal move"),
        ({"moves": ["e4", 5]}, "moves", "ply 2: must be a string"),
        ({"moves": ["e4", ""]}, "moves", "ply 2: is empty"),
        ({"moves": ["e4", "x" * 5000]}, "moves", "ply 2: 'xxxxxxxxxxxx'… is 5,000 characters"),
        ({"moves": "e4 e5"}, "moves", "must be a list of moves"),
        ({"moves": {"e4": 1}}, "moves", "must be a list of moves"),
        ({"moves": ["e4"] * (MAX_MOVES + 1)}, "moves", f"at most {MAX_MOVES}"),
        ({"moves": ["--"]}, "moves", "ply 1 (1. '--'): not a legal move"),
        ({"movetext": "1. e4 e5 2. Qxf7"}, "movetext", "ply 3 (2. 'Qxf7'): not a legal move"),
        ({"movetext": "1. e4 hello e5"}, "movetext", "'hello' at character 7 is not a move"),
        ({"movetext": "1. e4 -- 2. d4"}, "movetext", "a null move"),
        ({"movetext": "1. e4 e5 1-0 1. d4"}, "movetext", "one game only"),
        ({"movetext": '[FEN "8/8/8/8/8/8/8/K6k w - - 0 1"]\n1. Kb1'}, "movetext", "standard"),
        ({"movetext": ["e4"]}, "movetext", "must be a string"),
        ({"movetext": "1. e4 \x00"}, "movetext", "NUL"),
        ({"movetext": "e4 " * 40_000}, "movetext", "at most 100,000"),
        ({"moves": RUY, "movetext": MOVETEXT}, "movetext", "not both"),
        ({"moves": RUY, "plies": 61}, "plies", "is 61 but the moves hold 10 plies"),
        (
            {"moves": FOOLS_MATE, "result": "1-0"},
            "result",
            "is 1-0 but the moves end in checkmate after ply 4: the game's result is 0-1",
        ),
        (
            {"movetext": "1. f3 e5 2. g4 Qh4# *", "result": "1/2-1/2"},
            "result",
            "the moves end in checkmate after ply 4",
        ),
        (
            {"movetext": STALEMATE, "result": "1-0"},
            "result",
            "is 1-0 but the moves end in stalemate after ply 19: the game's result is 1/2-1/2",
        ),
        (
            {"movetext": "1. e4 e5 0-1", "result": "1-0"},
            "result",
            "is 1-0 but the movetext ends with 0-1",
        ),
        (
            {"movetext": "1. e4 e5 *", "result": "1-0"},
            "result",
            "is 1-0 but the movetext ends with *",
        ),
        (
            {"movetext": '[Result "0-1"]\n1. e4 e5', "result": "1-0"},
            "result",
            "is 1-0 but the movetext ends with 0-1",
        ),
        (
            {"movetext": '[Result "0-1"]\n1. e4 e5 1-0'},
            "movetext",
            "its Result tag says 0-1 but it ends with 1-0",
        ),
        ({"movetext": '[Result "2-0"]\n1. e4 e5'}, "movetext", "'2-0' is not a result"),
    ],
)
def test_bad_moves_are_422_naming_game_field_ply_and_move_and_store_nothing(
    site_pair: Api, fields: dict[str, Any], field: str, reason: str
) -> None:
    error = single_error(site_pair.post("/games", {**GAME, **fields}))
    assert (error["where"], error["field"]) == ("game g1", field)
    assert reason in error["msg"], error["msg"]
    assert site_pair.ledger.counts()["games"] == 0
    assert stored_moves(site_pair.ledger) == {}
    assert site_pair.ratings("alice") == {}


def test_moves_that_end_the_game_are_taken_with_the_result_they_make(site_pair: Api) -> None:
    """Checkmate is the mated side's loss, stalemate a draw: with that result the game
    is taken (and ``*`` or another result refused, above)."""
    mate = site_pair.post("/games", {**GAME, "moves": FOOLS_MATE, "result": "0-1"})
    assert mate.status_code == 201, mate.text
    stale = site_pair.post("/games", {**GAME, "id": "g2", "movetext": STALEMATE,
                                      "result": "1/2-1/2"})  # fmt: skip
    assert stale.status_code == 201, stale.text
    assert site_pair.ledger.verify() == []


def test_a_batch_stores_each_games_moves(site_pair: Api) -> None:
    games = [
        {**GAME, "id": "b1", "moves": RUY},
        {**GAME, "id": "b2", "played_at": "2026-03-01T19:00:00Z"},
        {**GAME, "id": "b3", "played_at": "2026-03-01T20:00:00Z", "movetext": MOVETEXT},
    ]
    answer = site_pair.post(
        "/games/batch", content=jsonl(*games), headers={"Content-Type": "application/x-ndjson"}
    )
    assert answer.status_code == 201, answer.text
    assert stored_moves(site_pair.ledger) == {"b1": RUY_UCI, "b3": RUY_UCI}


def test_a_batch_with_one_illegal_move_stores_no_game(site_pair: Api) -> None:
    games = [
        {**GAME, "id": "b1", "moves": RUY},
        {**GAME, "id": "b2", "played_at": "2026-03-01T19:00:00Z", "moves": ["e4", "e4"]},
    ]
    answer = site_pair.post(
        "/games/batch", content=jsonl(*games), headers={"Content-Type": "application/x-ndjson"}
    )
    error = single_error(answer)
    assert (error["where"], error["field"]) == ("batch:2", "moves")
    assert "game b2: ply 2 (1... 'e4'): not a legal move" in error["msg"]
    assert site_pair.ledger.counts()["games"] == 0
    assert stored_moves(site_pair.ledger) == {}


def test_the_openapi_document_describes_both_fields(site: Api) -> None:
    schema = site.client.get("/openapi.json").json()
    body = schema["paths"]["/api/v1/games"]["post"]["requestBody"]["content"]
    properties = body["application/json"]["schema"]["properties"]
    assert {"moves", "movetext"} <= set(properties)


# -- chessrate import ----------------------------------------------------------------


def _import(tmp_path: Path, name: str, text: str) -> tuple[Any, Path]:
    db = tmp_path / "ledger.db"
    runner = CliRunner()
    assert runner.invoke(main, ["init", "--system", "site", "--db", str(db)]).exit_code == 0
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return runner.invoke(main, ["import", str(path), "--db", str(db)]), db


def test_import_of_a_jsonl_file_stores_the_moves(tmp_path: Path) -> None:
    lines = jsonl(
        {**GAME, "id": "f1", "moves": RUY},
        {**GAME, "id": "f2", "played_at": "2026-03-01T19:00:00Z"},
        {**GAME, "id": "f3", "played_at": "2026-03-01T20:00:00Z", "movetext": MOVETEXT},
    ).decode()
    result, db = _import(tmp_path, "games.jsonl", lines + "\n")
    assert result.exit_code == 0, result.output
    ledger = Ledger(f"sqlite:///{db}")
    try:
        assert stored_moves(ledger) == {"f1": RUY_UCI, "f3": RUY_UCI}
        assert ledger.games.get("f1").record.plies == len(RUY_UCI)
        exported = [r.to_mapping() for r in ledger.games.export()]
        assert exported[0]["moves"] == RUY_UCI and "moves" not in exported[1]
    finally:
        ledger.dispose()


def test_import_of_a_csv_file_reads_movetext(tmp_path: Path) -> None:
    text = (
        "id,played_at,white,black,result,time_control,movetext\n"
        "c1,2026-03-01T18:00:00Z,alice,bob,1-0,5m+3s,1. e4 e5 2. Nf3 Nc6\n"
        "c2,2026-03-01T19:00:00Z,alice,bob,0-1,5m+3s,\n"
    )
    result, db = _import(tmp_path, "games.csv", text)
    assert result.exit_code == 0, result.output
    ledger = Ledger(f"sqlite:///{db}")
    try:
        assert stored_moves(ledger) == {"c1": RUY_UCI[:4]}
    finally:
        ledger.dispose()


def test_import_of_a_file_with_an_illegal_move_names_file_line_and_stores_nothing(
    tmp_path: Path,
) -> None:
    lines = jsonl(
        {**GAME, "id": "f1", "moves": RUY},
        {**GAME, "id": "f2", "played_at": "2026-03-01T19:00:00Z", "movetext": "1. e4 e5 2. Ke3"},
    ).decode()
    result, db = _import(tmp_path, "games.jsonl", lines)
    assert result.exit_code == 2
    assert "games.jsonl:2: movetext: game f2: ply 3 (2. 'Ke3'): not a legal move" in result.output
    ledger = Ledger(f"sqlite:///{db}")
    try:
        assert ledger.counts()["games"] == 0
        assert stored_moves(ledger) == {}
    finally:
        ledger.dispose()


def test_the_game_page_shows_the_moves(site_pair: Api) -> None:
    assert site_pair.post("/games", {**GAME, "moves": RUY[:4]}).status_code == 201
    page = site_pair.client.get("/games/g1")
    assert page.status_code == 200
    # the moves as numbered pairs in SAN, each a link to its position
    pairs = re.findall(r'<li value="(\d+)">(.*?)</li>', page.text)
    moves = [(n, re.findall(r'<a class="move" href="\?ply=(\d+)#board"[^>]*>([^<]+)</a>', li))
             for n, li in pairs]  # fmt: skip
    assert moves == [("1", [("1", "e4"), ("2", "e5")]), ("2", [("3", "Nf3"), ("4", "Nc6")])]
