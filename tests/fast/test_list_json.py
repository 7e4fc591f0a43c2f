"""The compiled replay's ``.json`` rating list (a kernel writes it: chessrate.fast.listtext)
is the text the Python list writer writes, byte for byte, and the text of the reference
engine's list."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from chessrate import rate_file
from chessrate.fast.listtext import Part, json_table, list_json, plain_names
from chessrate.io.lists import ListColumns, list_columns_text
from chessrate.numbers import format_hundredths

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def texts(games: Path, system_id: str, players: Path | None) -> tuple[str, str, str]:
    """(the kernel's text, the Python writer's text of the compiled lists, the
    reference engine's text)."""
    path = Path("list.json")
    compiled = rate_file(games, system_id, players=players, engine="compiled")
    reference = rate_file(games, system_id, players=players, engine="reference")
    kernel = compiled.list_text(path)
    assert compiled.state.list_json() in (kernel, None)  # type: ignore[attr-defined]
    rows = [entry.as_mapping() for entry in compiled.entries()]
    python = json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    return kernel, python, reference.list_text(path)


@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_the_kernels_json_list_is_the_python_writers(system_id: str) -> None:
    kernel, python, reference = texts(
        EXAMPLES / f"{system_id}_games.jsonl", system_id, EXAMPLES / f"{system_id}_players.csv"
    )
    assert kernel == python == reference
    assert kernel.count('"player"') > 10


@pytest.mark.parametrize(
    ("white", "kernel"), [("Иван_Новак", True), ("qu\\\\ote", False), ("x" * 40, True)]
)
def test_ids_beyond_ascii_and_ids_needing_escapes(white: str, kernel: bool, tmp_path: Path) -> None:
    """Non-ASCII ids are written by the kernel (their UTF-8 bytes); an id with a JSON
    escape leaves the list to the Python writer: the same text either way, cents
    with a leading zero included."""
    lines = [
        json.dumps({"id": f"g{n}", "played_at": f"2026-01-05T10:{n:02d}:00Z",
                    "white": white, "black": f"b{n % 3}", "result": "1-0", "rated": True,
                    "time_control": "180+2", "termination": "resign"}, ensure_ascii=False)
        for n in range(12)
    ]  # fmt: skip
    games = tmp_path / "games.jsonl"
    games.write_text("\n".join(lines) + "\n", encoding="utf-8")
    players = tmp_path / "players.csv"
    players.write_text(
        f"id,membership_until,rating_blitz,games_blitz\n{white},2027-01-01,,\n"
        "b0,2027-01-01,1000.05,40\nb1,2027-01-01,2000.00,3\nb2,2027-01-01,,\n",
        encoding="utf-8",
    )
    compiled = rate_file(games, "arena", players=players, engine="compiled")
    assert (compiled.state.list_json() is not None) is kernel  # type: ignore[attr-defined]
    found, python, reference = texts(games, "arena", players)
    assert found == python == reference
    assert f'"player": {json.dumps(white, ensure_ascii=False)}' in found


def test_the_kernel_writes_every_rating_and_count_as_the_python_writer() -> None:
    """Hundredths with a leading zero, negative ones, no rating, big counts, two parts."""
    names = ["ann", "bo", "Čeněk", "d"]
    ratings = [5, -5, 180025, 100, 0, -123456789, 99]
    has = [True, True, True, True, False, True, True]
    games = [0, 7, 10**12, 3, 2, 1, 45]
    player = [0, 1, 2, 3, 0, 1, 2]
    displays, states = ["0", "1800?", "1500 (P)"], ["rated", "qualifying"]
    display = [0, 1, 2, 0, 1, 2, 0]
    state = [0, 1, 0, 1, 0, 1, 0]
    cut = 4
    parts, columns = [], []
    for pool, rows in (("blitz", slice(0, cut)), ("rapid", slice(cut, None))):
        parts.append(Part(pool, np.array(player[rows]), np.array(ratings[rows]),
                          np.array(has[rows]), np.array(display[rows]), json_table(displays),
                          np.array(state[rows], np.int8), json_table(states),
                          np.array(games[rows])))  # fmt: skip
        columns.append(ListColumns(
            [names[p] for p in player[rows]], [pool] * len(player[rows]),
            [format_hundredths(r) if h else None
             for r, h in zip(ratings[rows], has[rows], strict=True)],
            [displays[d] for d in display[rows]], [states[c] for c in state[rows]],
            games[rows],
        ))  # fmt: skip
    table = plain_names(names)
    assert table is not None
    assert list_json(table, parts) == list_columns_text(columns, Path("list.json"))
    assert list_json(table, []) == "[]\n" == list_columns_text([], Path("list.json"))
