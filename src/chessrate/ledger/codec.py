"""States, players and changes to and from JSON for the ledger. Decimals travel as
strings with their exact digits; nothing here rounds."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ..numbers import from_hundredths, to_hundredths
from ..records import Player
from ..systems.arena import ArenaState, ArenaStatus
from ..systems.base import Change
from ..systems.corr import CorrState, CorrStatus
from ..systems.site import SiteState


def _dec(value: object) -> Decimal | None:
    return None if value is None else Decimal(str(value))


def _text(value: Decimal | None) -> str | None:
    """A rating number as a state's JSON keeps it: always with its hundredths
    (``1500.00``, whether it was computed as ``1500`` or read back from the ledger's
    integer hundredths), so that equal states have equal texts."""
    return None if value is None else str(from_hundredths(to_hundredths(value)))


def dumps(data: object) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def state_to_json(state: object) -> str:
    """A system state as JSON text."""
    if isinstance(state, ArenaState):
        return dumps({
            "status": state.status.value,
            "rating": _text(state.rating),
            "games": state.games,
            "qualifying": [[_text(r), str(s)] for r, s in state.qualifying],
        })  # fmt: skip
    if isinstance(state, CorrState):
        return dumps({
            "status": state.status.value,
            "rating": _text(state.rating),
            "games": state.games,
            "performances": _text(state.performances),
        })  # fmt: skip
    if isinstance(state, SiteState):
        return dumps({"rating": _text(state.rating), "games": state.games})
    raise TypeError(f"no codec for {type(state).__name__}")


def state_from_json(system_id: str, text: str) -> Any:
    """The state a system's ``rate`` expects, from :func:`state_to_json`'s text."""
    data = json.loads(text)
    if system_id == "arena":
        return ArenaState(
            ArenaStatus(data["status"]),
            _dec(data["rating"]),
            int(data["games"]),
            tuple((Decimal(r), Decimal(s)) for r, s in data["qualifying"]),
        )
    if system_id == "corr":
        return CorrState(
            CorrStatus(data["status"]),
            _dec(data["rating"]),
            int(data["games"]),
            Decimal(data["performances"]),
        )
    if system_id == "site":
        return SiteState(Decimal(data["rating"]), int(data["games"]))
    raise ValueError(f"system {system_id!r} keeps no per-game states")


def player_from_json(text: str) -> Player:
    return Player.from_mapping(json.loads(text), "ledger", stored=True)


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
