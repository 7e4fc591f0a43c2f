"""States, players and changes to and from JSON for the ledger. Decimals travel as
strings with their exact digits; nothing here rounds. A state's form is its system's
codec (its registry entry's)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ..numbers import exact_text
from ..records import Player
from ..systems.base import Change, StateCodec
from ..systems.registry import system_info


def _dec(value: object) -> Decimal | None:
    return None if value is None else Decimal(str(value))


_text = exact_text


def dumps(data: object) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _codec(system_id: str) -> StateCodec[Any]:
    codec = system_info(system_id).codec
    if codec is None:
        raise ValueError(f"system {system_id!r} keeps no per-game states")
    return codec


def state_to_json(system_id: str, state: object) -> str:
    """A system state as JSON text (the system's codec's)."""
    return dumps(_codec(system_id).dump(state))


def state_from_json(system_id: str, text: str) -> Any:
    """The state a system's ``rate`` expects, from :func:`state_to_json`'s text."""
    return _codec(system_id).load(json.loads(text))


def player_from_json(text: str) -> Player:
    data = json.loads(text)
    if data.keys() == {"id"} and isinstance(data["id"], str):
        # a player with no attribute (the most of a large ledger): nothing to check
        return Player(data["id"], source="ledger")
    return Player.from_mapping(data, "ledger", stored=True)


CHANGE_DECIMALS = ("score", "before", "after", "opponent_rating", "d", "pd", "delta", "change")


def change_to_mapping(change: Change) -> dict[str, Any]:
    """A change with its exact numbers as strings (JSON-safe)."""
    return {
        "game": change.game_id,
        "player": change.player,
        "pool": change.pool,
        "rule": change.rule,
        "opponent": change.opponent,
        "score": str(change.score),
        "before": _text(change.before),
        "after": _text(change.after),
        "state_before": change.state_before,
        "state_after": change.state_after,
        "games_before": change.games_before,
        "games_after": change.games_after,
        "opponent_rating": _text(change.opponent_rating),
        "k": change.k,
        "d": _text(change.d),
        "pd": _text(change.pd),
        "delta": _text(change.delta),
        "change": _text(change.change),
        "note": change.note,
    }


def change_from_mapping(data: Mapping[str, Any]) -> Change:
    return Change(
        game_id=data["game"],
        player=data["player"],
        pool=data["pool"],
        rule=data["rule"],
        opponent=data["opponent"],
        score=Decimal(data["score"]),
        before=_dec(data["before"]),
        after=_dec(data["after"]),
        state_before=data["state_before"],
        state_after=data["state_after"],
        games_before=int(data["games_before"]),
        games_after=int(data["games_after"]),
        opponent_rating=_dec(data["opponent_rating"]),
        k=data["k"],
        d=_dec(data["d"]),
        pd=_dec(data["pd"]),
        delta=_dec(data["delta"]),
        change=_dec(data["change"]),
        note=data["note"],
    )
