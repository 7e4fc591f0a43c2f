"""Issue 17, items 1, 4 and 7: one validation layer for every way in. Each request an
outside tester sent to make a 500 (or to poison the ledger) is a 4xx naming the field,
on SQLite and PostgreSQL, and the ledger still verifies afterwards."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import Api

GAME: dict[str, Any] = {
    "id": "g1", "white": "alice", "black": "bob", "result": "1-0",
    "played_at": "2026-02-01T10:00:00Z", "time_control": "300+3",
}  # fmt: skip


def send(api: Api, path: str, body: dict[str, Any]) -> Any:
    """POST ``body`` as a client would write it: JSON with escapes (a lone surrogate is
    ``"\\ud800"``), as a writer."""
    return api.client.post(
        f"/api/v1{path}", content=json.dumps(body).encode(),
        headers={**api.writer, "Content-Type": "application/json"},
    )  # fmt: skip


def refused(answer: Any, field: str) -> str:
    assert answer.status_code == 422, answer.text
    errors = answer.json()["detail"]
    assert any(e.get("field") == field for e in errors), errors
    return json.dumps(errors)


@pytest.mark.parametrize(
    "played_at",
    [
        "9999-12-31T23:59:59-14:00",
        "0001-01-01T00:00:00+14:00",
        "1799-12-31T23:59:59Z",
        "2200-01-01T00:00:00Z",
    ],
)
def test_a_timestamp_out_of_range_is_refused(site_pair: Api, played_at: str) -> None:
    reason = refused(send(site_pair, "/games", {**GAME, "played_at": played_at}), "played_at")
    assert "out of range" in reason
    assert site_pair.ledger.verify() == []
    assert site_pair.get("/players/alice").status_code == 200


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("id", "tab\there", "control characters"),
        ("id", "x\x00y", "NUL"),
        ("id", "\ud800", "surrogate"),
        ("id", "x" * 201, "at most 200"),
        ("white", "bad\x7fid", "control characters"),
        ("time_control", "999999999999999999h", "too long a clock"),
        ("time_control", "99999d", "days per move"),
    ],
)
def test_a_game_field_out_of_its_set_is_refused(
    site_pair: Api, field: str, value: str, words: str
) -> None:
    reason = refused(send(site_pair, "/games", {**GAME, field: value}), field)
    assert words in reason


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("name", "N\x00", "NUL"),
        ("name", "x" * 201, "at most 200"),
        ("name", "\udfff", "surrogate"),
        ("rating_blitz", "1e17", "out of range"),
        ("rating_blitz", 1e17, "out of range"),
        ("games_blitz", 2**63, "at most"),
        ("games_blitz", "99999999999999999999999999999999999", "not a whole number"),
    ],
)
def test_a_player_field_out_of_its_set_is_refused(
    site: Api, field: str, value: object, words: str
) -> None:
    body = {"id": "carol", field: value}
    reason = refused(send(site, "/players", body), field)
    assert words in reason
    assert site.get("/players/carol").status_code in (404, 200)
    assert site.ledger.verify() == []


def test_a_bot_rating_out_of_range_is_refused(site: Api) -> None:
    body = {"id": "robo", "bot": True, "bot_rating": 1e308}
    assert "out of range" in refused(send(site, "/players", body), "bot_rating")


def test_a_batch_line_with_nan_or_deep_nesting_names_the_line(site_pair: Api) -> None:
    lines = [json.dumps(GAME), '{"id": "g2", "white": "alice", "plies": NaN}']
    answer = site_pair.client.post(
        "/api/v1/games/batch", content="\n".join(lines).encode(),
        headers={**site_pair.writer, "Content-Type": "application/x-ndjson"},
    )  # fmt: skip
    assert answer.status_code == 422, answer.text
    assert "batch:2" in answer.text and "NaN is not a JSON number" in answer.text
    deep = "[" * 100_000 + "]" * 100_000
    answer = site_pair.client.post(
        "/api/v1/games/batch", content=deep.encode(),
        headers={**site_pair.writer, "Content-Type": "application/x-ndjson"},
    )  # fmt: skip
    assert answer.status_code == 422, answer.text
    assert "batch:1" in answer.text
    assert site_pair.get("/games/g1").status_code == 404  # nothing half applied


def test_a_batch_splits_lines_on_newline_only(site_pair: Api) -> None:
    """U+2028 inside a line is text, not a line break (Python's ``splitlines`` would
    cut the line there): an id holding it is posted and read back whole."""
    game = {**GAME, "id": "g\u2028x"}
    answer = site_pair.client.post(
        "/api/v1/games/batch", content=(json.dumps(game, ensure_ascii=False) + "\n").encode(),
        headers={**site_pair.writer, "Content-Type": "application/x-ndjson"},
    )  # fmt: skip
    assert answer.status_code in (200, 201), answer.text
    assert site_pair.get("/games/g%E2%80%A8x").json()["id"] == "g\u2028x"
