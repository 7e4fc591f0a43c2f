"""Games: rate and store one (idempotent on its id; through the worker's group
committer), a batch of JSON Lines (one transaction), read one with its decision, its
changes and their explanation.

A game body is documented by :class:`GameCreate` but validated by
``GameRecord.from_mapping``, so the API refuses a record with the same words as the
command line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field

from ..errors import InvalidRecord
from ..ledger import GameView, Ledger
from ..ledger.codec import change_to_mapping
from ..moves import MAX_MOVES, MOVETEXT_LONGEST
from ..numbers import format_rating
from ..records import MAX_PLIES, GameRecord, Outcome, Result, Termination, strict_json
from .common import ChangePublic, GameFields, id_field, refuse_periods
from .group import GroupCommitter

# -- requests ---------------------------------------------------------------------------


class GameCreate(GameFields):
    """A game record (the fields of :class:`~chessrate.records.GameRecord`)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            # what the records refuse of two fields together
            "not": {"required": ["moves", "movetext"]},
            "examples": [
                {
                    "id": "g1",
                    "played_at": "2026-03-01T18:30:00Z",
                    "white": "alice",
                    "black": "bob",
                    "result": "1-0",
                    "time_control": "5m+3s",
                    "plies": 61,
                }
            ],
        },
    )

    id: str = id_field("unique in the ledger; resubmitting it is idempotent")
    played_at: datetime = Field(description="when the game ended (ISO 8601)")
    time_control: str | None = Field(
        default=None, description="`300+3`, `5m+3s`, `15m`, `-` (no clock), `3d` (days per move)"
    )
    result: Result
    termination: Termination | None = Termination.NORMAL
    plies: int | None = Field(
        default=None, ge=0, le=MAX_PLIES,
        description="half-moves; with moves, their count (the default), and then equal to it",
    )  # fmt: skip
    confirmed: bool | None = Field(
        default=None, description="otb only: refused with `venue` online"
    )
    moves: list[str] | None = Field(
        default=None,
        max_length=MAX_MOVES,
        description="the moves from the standard start position, one ply each, SAN (`Nf3`) "
        "or UCI (`g1f3`); checked legal, stored as UCI; not with movetext",
        examples=[["e4", "e5", "Nf3", "Nc6", "Bb5"]],
    )
    movetext: str | None = Field(
        default=None,
        max_length=MOVETEXT_LONGEST,
        description="the moves as PGN movetext (`1. e4 e5 2. Nf3 …`; comments, NAGs, "
        "variations and the result tolerated; the main line is the game); not with moves",
        examples=["1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0"],
    )


# -- answers ----------------------------------------------------------------------------


class AnnulmentNotePublic(BaseModel):
    at: datetime
    by: str | None
    reason: str


class GamePublic(BaseModel):
    """A stored game: its record, the system's decision and every change."""

    id: str
    seq: int = Field(description="commit order in the ledger")
    played_at: str
    white: str
    black: str
    result: str
    rated: bool
    time_control: str | None
    termination: str
    plies: int | None
    venue: str
    confirmed: bool | None
    moves: list[str] | None = Field(
        default=None, description="the moves it was submitted with (UCI), if any"
    )
    outcome: Outcome
    reason: str
    annulled: bool
    submitted_at: datetime
    changes: list[ChangePublic]
    explanation: list[str] = Field(description="the decision and each change, in words")
    annulment: AnnulmentNotePublic | None = Field(
        default=None, description="who annulled the game, when and why (site S10)"
    )


class BatchItemPublic(BaseModel):
    line: int
    id: str
    seq: int
    outcome: str
    reason: str
    created: bool


class BatchPublic(BaseModel):
    created: int
    existing: int
    games: list[BatchItemPublic]


# -- services ---------------------------------------------------------------------------


BATCH = "batch"


def _explanation(view: GameView) -> list[str]:
    """The decision and each change in words (``GamePublic.explanation``)."""
    explanation = [view.reason]
    for c in view.changes:
        before = format_rating(c.before) or c.state_before
        after = format_rating(c.after) or c.state_after
        note = f": {c.note}" if c.note else ""
        explanation.append(f"{c.player} {c.pool}: {before} → {after} ({c.rule}{note})")
    if view.annulment is not None:
        by = f" by {view.annulment.by}" if view.annulment.by else ""
        explanation.append(
            f"annulled{by} ({view.annulment.reason}): the game counts for nothing (site S10)"
        )
    return explanation


def _answer_fields(view: GameView) -> dict[str, Any]:
    """:class:`GamePublic`'s fields, in its order, as plain values (the changes and
    the annulment as mappings)."""
    record = view.record.to_mapping()
    return {
        "id": view.id,
        "seq": view.seq,
        "played_at": str(record["played_at"]),
        "white": view.record.white,
        "black": view.record.black,
        "result": view.record.result.value,
        "rated": view.record.rated,
        "time_control": None if view.record.time_control is None else str(record["time_control"]),
        "termination": view.record.termination.value,
        "plies": view.record.plies,
        "venue": view.record.venue.value,
        "confirmed": view.record.confirmed,
        "moves": None if view.record.moves is None else list(view.record.moves),
        "outcome": Outcome(view.outcome),
        "reason": view.reason,
        "annulled": view.annulled,
        "submitted_at": view.submitted_at,
        "changes": [change_to_mapping(c) for c in view.changes],
        "explanation": _explanation(view),
        "annulment": None
        if view.annulment is None
        else {"at": view.annulment.at, "by": view.annulment.by, "reason": view.annulment.reason},
    }


def game_public(view: GameView) -> GamePublic:
    return GamePublic.model_validate(_answer_fields(view))


def game_json(view: GameView) -> bytes:
    """``game_public(view)`` as the JSON FastAPI writes of it, byte for byte, built
    without the models: the answer of ``POST /games``, the service's hot path (the
    models' validation cost more than the rest of the answer)."""
    return pydantic_core.to_json(_answer_fields(view))


def _where(body: Mapping[str, Any]) -> str:
    game_id = body.get("id")
    return f"game {game_id.strip()}" if isinstance(game_id, str) and game_id.strip() else "game"


def game_record(ledger: Ledger, body: Mapping[str, Any]) -> GameRecord:
    """A submitted game's record, validated (InvalidRecord names the game and field)."""
    refuse_periods(ledger)
    return GameRecord.from_mapping(body, _where(body))


def submit_game(ledger: Ledger, body: Mapping[str, Any], now: datetime) -> tuple[GamePublic, bool]:
    """Rate and store one game; ``created`` is False when the same game was stored
    before (the stored answer is returned, nothing changes)."""
    view, created = ledger.games.submit(game_record(ledger, body), now)
    return game_public(view), created


async def submit_game_grouped(
    committer: GroupCommitter, body: Mapping[str, Any], now: datetime
) -> tuple[GameView, bool]:
    """:func:`submit_game` through the worker's group committer: the game is rated and
    committed with the games that arrived with it, and answered after that commit
    (its view: :func:`game_json` is its answer)."""
    record = game_record(committer.ledger, body)
    return await committer.submit(record, now)


def parse_batch(content: str) -> list[tuple[int, GameRecord]]:
    """JSON Lines: one game record per line; blank lines are skipped. Errors name
    ``batch:LINE``, the field and the reason."""
    records: list[tuple[int, GameRecord]] = []
    for number, line in enumerate(content.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{BATCH}:{number}"
        try:
            data = strict_json(line)
        except json.JSONDecodeError as error:
            raise InvalidRecord(
                where, "line", f"malformed JSON: {error.msg} (column {error.colno})"
            ) from None
        except ValueError as error:
            raise InvalidRecord(where, "line", f"malformed JSON: {error}") from None
        if not isinstance(data, dict):
            raise InvalidRecord(where, "line", "must be a JSON object (one game record per line)")
        records.append((number, GameRecord.from_mapping(data, where)))
    if not records:
        raise InvalidRecord(BATCH, "body", "no game records (one JSON object per line)")
    return records


def submit_batch(ledger: Ledger, content: bytes, now: datetime) -> BatchPublic:
    """Rate and store a batch (JSON Lines, UTF-8) in one transaction: every game or
    none."""
    refuse_periods(ledger)
    try:
        decoded = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InvalidRecord(BATCH, "body", f"not UTF-8 text: {error.reason}") from None
    numbered = parse_batch(decoded)
    results = ledger.games.submit_many([record for _, record in numbered], now)
    items = [
        BatchItemPublic(
            line=number,
            id=view.id,
            seq=view.seq,
            outcome=view.outcome,
            reason=view.reason,
            created=created,
        )
        for (number, _), (view, created) in zip(numbered, results, strict=True)
    ]
    created_count = sum(item.created for item in items)
    return BatchPublic(created=created_count, existing=len(items) - created_count, games=items)


def get_game(ledger: Ledger, game_id: str) -> GamePublic:
    return game_public(ledger.games.get(game_id))
