"""Marks through the API, on SQLite and PostgreSQL: a moderator marks a player whose
cheating is confirmed and lifts the mark; both are in the audit log; the player's
answer shows it; writers get 403; unknown players 404; hostile reasons 422."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.service.conftest import API, Api


@pytest.fixture
def api(site: Api) -> Api:
    site.player("ann", name="Ann")
    site.player("ben", name="Ben")
    return site


def send(api: Api, method: str, player: str, reason: Any, auth: str) -> Any:
    """The body as JSON text with escapes (so a lone surrogate can be sent)."""
    headers = {"writer": api.writer, "moderator": api.moderator, "none": {}}[auth]
    return api.client.request(
        method, f"{API}/players/{player}/mark", content=json.dumps({"reason": reason}),
        headers={**headers, "Content-Type": "application/json"},
    )  # fmt: skip


def mark(
    api: Api, player: str, reason: Any = "engine use confirmed", auth: str = "moderator"
) -> Any:
    return send(api, "POST", player, reason, auth)


def unmark(api: Api, player: str, reason: Any = "appeal upheld", auth: str = "moderator") -> Any:
    return send(api, "DELETE", player, reason, auth)


def audit(api: Api, player: str) -> list[dict[str, Any]]:
    answer = api.get("/audit", params={"target": f"player {player}"}, headers=api.moderator)
    assert answer.status_code == 200, answer.text
    return answer.json()["entries"]  # type: ignore[no-any-return]


def test_mark_and_lift_are_audited_and_shown(api: Api) -> None:
    assert api.get("/players/ann").json()["marked"] is False
    marked = mark(api, "ann")
    assert marked.status_code == 201, marked.text
    body = marked.json()
    assert (body["player"], body["name"], body["in_force"]) == ("ann", "Ann", True)
    assert (body["marked_by"], body["reason"]) == ("test moderator", "engine use confirmed")
    shown = api.get("/players/ann").json()
    assert shown["marked"] is True and shown["marked_at"].startswith("2026-03-01T12:00:00")
    found = api.get("/players", params={"q": "ann"}).json()["players"]
    assert [(p["id"], p["marked"]) for p in found] == [("ann", True)]
    [entry] = audit(api, "ann")
    assert (entry["who"], entry["action"], entry["details"]) == (
        "test moderator", "mark", "engine use confirmed",
    )  # fmt: skip

    again = mark(api, "ann")
    assert again.status_code == 409 and "marked already" in again.json()["detail"]
    api.clock.advance(days=3)
    lifted = unmark(api, "ann")
    assert lifted.status_code == 200, lifted.text
    assert (lifted.json()["in_force"], lifted.json()["lift_reason"]) == (False, "appeal upheld")
    assert lifted.json()["lifted_at"].startswith("2026-03-04T12:00:00")
    assert api.get("/players/ann").json()["marked"] is False
    assert [(e["action"], e["details"]) for e in audit(api, "ann")] == [
        ("unmark", "appeal upheld"), ("mark", "engine use confirmed"),
    ]  # fmt: skip
    assert unmark(api, "ann").status_code == 409  # nothing to lift
    assert mark(api, "ann", "again").status_code == 201  # marked anew
    history = api.get("/players/ann/marks", headers=api.moderator).json()
    assert [(m["reason"], m["in_force"]) for m in history] == [
        ("again", True), ("engine use confirmed", False),
    ]  # fmt: skip


def test_only_moderators_mark(api: Api) -> None:
    assert mark(api, "ann", auth="writer").status_code == 403
    assert mark(api, "ann", auth="none").status_code == 401
    assert unmark(api, "ann", auth="writer").status_code == 403
    assert api.get("/players/ann/marks", headers=api.writer).status_code == 403
    assert api.get("/players/ann").json()["marked"] is False
    assert audit(api, "ann") == []


def test_an_unknown_player_is_404(api: Api) -> None:
    assert mark(api, "zed").status_code == 404
    assert unmark(api, "zed").status_code == 404
    assert api.get("/players/zed/marks", headers=api.moderator).status_code == 404


@pytest.mark.parametrize(
    "reason",
    ["", "   ", "x" * 2001, "bell\x07", "nul\x00", "esc\x1b[31m", "del\x7f", 42, None,
     "\ud800"],
)  # fmt: skip
def test_hostile_reasons_are_422(api: Api, reason: Any) -> None:
    for answer in (mark(api, "ann", reason), unmark(api, "ann", reason)):
        assert answer.status_code == 422, answer.text
    assert api.get("/players/ann").json()["marked"] is False
    assert audit(api, "ann") == []


def test_a_reason_may_span_lines(api: Api) -> None:
    answer = mark(api, "ann", "game g1: 98 % engine match\n\tgame g2: the same")
    assert answer.status_code == 201, answer.text
    assert answer.json()["reason"] == "game g1: 98 % engine match\n\tgame g2: the same"


def test_bodies_that_are_not_marks_are_422(api: Api) -> None:
    path = f"{API}/players/ann/mark"
    bodies: list[object] = [{}, {"reason": "x", "extra": 1}, [], "reason"]
    for body in bodies:
        answer = api.client.post(path, json=body, headers=api.moderator)
        assert answer.status_code == 422, answer.text
    raw = api.client.post(path, content=b"\xff\xfe", headers=api.moderator)
    assert raw.status_code == 422


def test_the_moderation_pages_badge_marked_players(api: Api) -> None:
    api.game("g1", "ann", "ben", "1-0", time_control="180+2")
    assert api.post("/games/g1/reports", {"by": "ben", "reason": "engine"}).status_code == 201
    assert mark(api, "ann").status_code == 201
    token = api.moderator["Authorization"].split()[1]
    form = {"content-type": "application/x-www-form-urlencoded"}
    signed = api.client.post(
        "/moderation/sign-in", content=f"token={token}", headers=form, follow_redirects=False
    )
    assert signed.status_code == 303, signed.text
    # ann's, not ben's: on the queue after her name as a player and as the accused
    for path, badges in (("/moderation", 2), ("/moderation/g1", 1)):
        page = api.client.get(path)
        assert page.status_code == 200, page.text
        assert page.text.count('class="badge marked"') == badges
        assert "marked for confirmed cheating since 2026-03-01 12:00 UTC" in page.text
