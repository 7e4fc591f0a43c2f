"""Fair play over the API: reports, the review queue, confirm (= site S10's annulment,
as POST /games/{id}/annul), dismiss, reopen, the audit log; tokens revoked and
expired. Each test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from chessrate.errors import Forbidden
from chessrate.ledger import Ledger
from chessrate.server import create_app
from tests.service.conftest import NOW, Api, FakeClock, MakeApi, TestClient
from tests.support import postgres, templates


@pytest.fixture
def twin(ledger_url: str, request: pytest.FixtureRequest) -> Iterator[Api]:
    """A second site ledger on the same kind of database (annulled the old way)."""
    if ledger_url.startswith("sqlite"):
        url, admin = ledger_url.replace("ledger.db", "twin.db"), None
    else:
        admin = request.getfixturevalue("postgres_admin_url")
        url = templates.new_migrated_postgres(request)
    ledger = Ledger.create(url, "site", NOW)
    clock = FakeClock()
    with TestClient(create_app(ledger, clock=clock, sweep_every=0)) as client:
        writer = ledger.tokens.create("writer", "test writer", NOW)
        moderator = ledger.tokens.create("moderator", "test moderator", NOW)
        yield Api(client, ledger, clock, writer={"Authorization": f"Bearer {writer}"},
                  moderator={"Authorization": f"Bearer {moderator}"})  # fmt: skip
    ledger.dispose()
    if admin is not None:
        postgres.drop_database(admin, url)


def _game(api: Api, game_id: str, white: str = "alice", black: str = "bob", **more: Any) -> None:
    api.game(game_id, white, black, "1-0", time_control="180+2", **more)


def _played(make_api: MakeApi | Api) -> Api:
    """A site ledger with alice, bob, carol and dave and four rated games."""
    api = make_api if isinstance(make_api, Api) else make_api("site")
    for pid, name in (("alice", "Alice"), ("bob", "Bob"), ("carol", "Carol"), ("dave", "Dave")):
        api.player(pid, name=name)
    _game(api, "g1")
    _game(api, "g2", "carol", "dave")
    _game(api, "g3", "alice", "carol")
    _game(api, "g4", "bob", "dave")
    return api


def _state(api: Api) -> dict[str, Any]:
    """Every player's ratings and every game's changes: what an annulment moves."""
    players = {p: api.ratings(p) for p in ("alice", "bob", "carol", "dave")}
    games = {}
    for g in ("g1", "g2", "g3", "g4"):
        body = api.get(f"/games/{g}").json()
        games[g] = (body["annulled"], body["outcome"], body["changes"])
    history = {p: api.get(f"/players/{p}/history?pool=site").json() for p in ("alice", "carol")}
    return {"players": players, "games": games, "history": history}


def test_report_queue_confirm_is_the_annulment(make_api: MakeApi, twin: Api) -> None:
    api = _played(make_api)
    twin = _played(twin)
    filed = api.post("/games/g1/reports", {"by": "bob", "reason": "too accurate"})
    assert filed.status_code == 201, filed.text
    assert (filed.json()["created"], filed.json()["status"], filed.json()["by_name"]) == (
        True, "open", "Bob",
    )  # fmt: skip
    queue = api.get("/reviews", headers=api.moderator).json()
    assert [r["game"]["id"] for r in queue["reviews"]] == ["g1"]
    case = queue["reviews"][0]
    assert (case["game"]["white_name"], case["game"]["black_name"]) == ("Alice", "Bob")
    assert case["game"]["result"] == "1-0" and len(case["game"]["changes"]) == 4
    assert [(r["by"], r["reason"]) for r in case["reports"]] == [("bob", "too accurate")]

    api.clock.advance(hours=1)
    twin.clock.advance(hours=1)
    confirmed = api.post("/reviews/g1/confirm", {"reason": "engine use"}, auth="moderator")
    assert confirmed.status_code == 200, confirmed.text
    old = twin.post("/games/g1/annul", {"reason": "engine use"}, auth="moderator")
    assert old.status_code == 200, old.text
    assert confirmed.json()["annulment"] == old.json()
    assert confirmed.json()["annulment"]["by"] == "test moderator"
    assert confirmed.json()["review"]["status"] == "confirmed"
    assert _state(api) == _state(twin)
    assert api.get("/annulments").json() == twin.get("/annulments").json()

    audit = api.get("/audit", headers=api.moderator).json()["entries"]
    actions = [(e["action"], e["who"], e["target"]) for e in audit]
    assert actions[:3] == [
        ("confirm", "test moderator", "g1"),
        ("annul", "test moderator", "g1"),
        ("report", "bob", "g1"),
    ]
    assert audit[0]["details"] == "engine use"
    assert "test writer" in audit[2]["details"]
    # the old endpoint is audited too
    twin_audit = twin.get("/audit", headers=twin.moderator).json()["entries"]
    assert (twin_audit[0]["action"], twin_audit[0]["details"]) == ("annul", "engine use")

    again = api.post("/reviews/g1/confirm", {"reason": "twice"}, auth="moderator")
    assert again.status_code == 409, again.text
    assert api.get("/reviews", headers=api.moderator).json()["reviews"] == []
    late = api.post("/games/g1/reports", {"by": "carol", "reason": "late"})
    assert late.status_code == 409, late.text


def test_confirm_after_the_old_annul_is_refused(make_api: MakeApi) -> None:
    api = _played(make_api)
    assert api.post("/games/g1/reports", {"by": "bob", "reason": "x"}).status_code == 201
    assert api.post("/games/g1/annul", {"reason": "engine"}, auth="moderator").status_code == 200
    case = api.get("/reviews/g1", headers=api.moderator).json()
    assert (case["status"], case["note"]) == ("confirmed", "engine")
    assert api.post("/reviews/g1/confirm", {"reason": "x"}, auth="moderator").status_code == 409


def test_dismiss_leaves_ratings_and_reopen(make_api: MakeApi) -> None:
    api = _played(make_api)
    before = _state(api)
    assert api.post("/games/g2/reports", {"by": "dave", "reason": "suspicious"}).status_code == 201
    dismissed = api.post("/reviews/g2/dismiss", {"note": "a strong game"}, auth="moderator")
    assert dismissed.status_code == 200, dismissed.text
    assert (dismissed.json()["status"], dismissed.json()["note"]) == ("dismissed", "a strong game")
    assert _state(api) == before
    assert api.get("/reviews", headers=api.moderator).json()["reviews"] == []
    listed = api.get("/reviews?status=dismissed", headers=api.moderator).json()["reviews"]
    assert [r["game"]["id"] for r in listed] == ["g2"]
    # a dismissed case cannot be confirmed or dismissed again; it can be reopened
    assert api.post("/reviews/g2/confirm", {"reason": "x"}, auth="moderator").status_code == 409
    assert api.post("/reviews/g2/dismiss", {"note": "x"}, auth="moderator").status_code == 409
    reopened = api.post("/reviews/g2/reopen", {"note": "new evidence"}, auth="moderator")
    assert reopened.status_code == 200 and reopened.json()["status"] == "open"
    assert api.post("/reviews/g2/reopen", {"note": "x"}, auth="moderator").status_code == 409
    actions = [e["action"] for e in api.get("/audit", headers=api.moderator).json()["entries"]]
    assert actions[:3] == ["reopen", "dismiss", "report"]
    # a new report on a dismissed case reopens it
    api.post("/reviews/g2/dismiss", {"note": "still fine"}, auth="moderator")
    assert (
        api.post("/games/g2/reports", {"by": "carol", "reason": "look"}).json()["status"] == "open"
    )


def test_queue_order_most_reported_then_oldest(make_api: MakeApi) -> None:
    api = _played(make_api)
    api.post("/games/g4/reports", {"by": "alice", "reason": "a"})  # 1 report, oldest
    api.clock.advance(minutes=1)
    api.post("/games/g3/reports", {"by": "bob", "reason": "b"})  # 2 reports
    api.clock.advance(minutes=1)
    api.post("/games/g2/reports", {"by": "alice", "reason": "c"})  # 1 report, newer
    api.clock.advance(minutes=1)
    api.post("/games/g3/reports", {"by": "dave", "reason": "d"})
    queue = api.get("/reviews?status=open", headers=api.moderator).json()
    assert [r["game"]["id"] for r in queue["reviews"]] == ["g3", "g4", "g2"]
    assert [r["report_count"] for r in queue["reviews"]] == [2, 1, 1]
    assert queue["total"] == 3 and "most reports first" in queue["order"]
    page = api.get("/reviews?limit=1&offset=1", headers=api.moderator).json()
    assert [r["game"]["id"] for r in page["reviews"]] == ["g4"]


def test_reports_refused_clearly(make_api: MakeApi) -> None:
    api = _played(make_api)
    api.game("u1", "alice", "bob", "1-0", time_control="180+2", rated=False)
    unknown = api.post("/games/nope/reports", {"by": "bob", "reason": "x"})
    assert unknown.status_code == 404 and "no such game" in unknown.text
    unrated = api.post("/games/u1/reports", {"by": "bob", "reason": "x"})
    assert unrated.status_code == 422 and "only rated games" in unrated.text
    stranger = api.post("/games/g1/reports", {"by": "zed", "reason": "x"})
    assert stranger.status_code == 422 and "unknown player" in stranger.text
    empty = api.post("/games/g1/reports", {"by": "bob", "reason": ""})
    assert empty.status_code == 422
    anonymous = api.post("/games/g1/reports", {"by": "bob", "reason": "x"}, auth="none")
    assert anonymous.status_code == 401
    # the queue and the decisions are the moderators'
    assert api.get("/reviews", headers=api.writer).status_code == 403
    assert api.get("/audit").status_code == 401
    assert api.post("/reviews/g1/confirm", {"reason": "x"}, auth="writer").status_code == 403
    assert api.post("/reviews/g1/confirm", {"reason": "x"}, auth="moderator").status_code == 404
    # the same player's report again: the stored one, 200
    first = api.post("/games/g1/reports", {"by": "bob", "reason": "x"})
    second = api.post("/games/g1/reports", {"by": "bob", "reason": "other words"})
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json()["id"] == first.json()["id"] and second.json()["reason"] == "x"


def test_detector_reports_are_idempotent(make_api: MakeApi) -> None:
    api = _played(make_api)
    ledger = api.ledger
    evidence = {"engine": "stockfish", "match_rate": {"white": 0.97}, "acpl": {"white": 4.1}}
    first, created = ledger.reviews.file_report("g3", "detector:stockfish", "improbable", evidence,
                                        "detector", NOW)  # fmt: skip
    again, created_again = ledger.reviews.file_report(
        "g3", "detector:stockfish", "improbable", evidence, "detector", NOW + timedelta(hours=1)
    )
    assert (created, created_again) == (True, False) and first == again
    case = ledger.reviews.get("g3")
    assert case.report_count == 1 and case.reports[0].evidence == evidence
    shown = api.get("/reviews/g3", headers=api.moderator).json()
    assert shown["reports"][0]["source"] == "detector"
    assert shown["reports"][0]["evidence"] == evidence
    reports = [e for e in ledger.audit.log()[0] if e.action == "report"]
    assert len(reports) == 1


def test_revoked_and_expired_tokens_are_refused(make_api: MakeApi) -> None:
    api = _played(make_api)
    ledger: Ledger = api.ledger
    api.client.app.state.tokens.ttl = 0  # type: ignore[attr-defined]  # no cache: at once
    token = ledger.tokens.create("writer", "revoke me", NOW)
    headers = {"Authorization": f"Bearer {token}"}
    body = {"by": "bob", "reason": "x"}
    assert api.post("/games/g1/reports", body, headers=headers).status_code == 201
    found = ledger.tokens.find(token)
    assert found is not None
    ledger.tokens.revoke(found.id, NOW, by="test")
    refused = api.post("/games/g1/reports", body, headers=headers)
    assert refused.status_code == 401, refused.text

    short = ledger.tokens.create("moderator", "short", NOW, expires_at=NOW + timedelta(days=1))
    auth = {"Authorization": f"Bearer {short}"}
    assert api.get("/reviews", headers=auth).status_code == 200
    api.clock.advance(days=1)
    assert api.get("/reviews", headers=auth).status_code == 401
    listed = {t.label: t.status(api.clock.now) for t in ledger.tokens.list()}
    assert listed["revoke me"] == "revoked" and listed["short"] == "expired"
    assert listed["test writer"] == "valid"
    actions = [(e.action, e.target) for e in ledger.audit.log()[0]]
    assert ("token-revoke", f"token {found.id}") in actions


# -- separation of duties ------------------------------------------------------------------


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_moderator_who_reported_the_game_cannot_confirm_it(make_api: MakeApi) -> None:
    api = _played(make_api)
    ledger: Ledger = api.ledger
    mia = _bearer(ledger.tokens.create("moderator", "Mia", NOW))
    mia_again = _bearer(ledger.tokens.create("moderator", "Mia", NOW))  # her second token
    named_bob = _bearer(ledger.tokens.create("moderator", "bob", NOW))  # the reporter's id
    max_ = _bearer(ledger.tokens.create("moderator", "Max", NOW))
    # Mia's token files carol's report on g1 (a moderator may do what a writer does)
    filed = api.post("/games/g1/reports", {"by": "carol", "reason": "x"}, headers=mia)
    assert filed.status_code == 201, filed.text
    assert api.post("/games/g1/reports", {"by": "bob", "reason": "y"}).status_code == 201
    before = _state(api)
    audited = ledger.audit.log()[1]
    for who, why in ((mia, "through your token"), (mia_again, "a token of yours ('Mia')"),
                     (named_bob, "is by 'bob'")):  # fmt: skip
        refused = api.post("/reviews/g1/confirm", {"reason": "engine"}, headers=who)
        assert refused.status_code == 403, refused.text
        assert why in refused.json()["detail"], refused.text
        assert "a moderator who did not report the game must decide it" in refused.text
        annul = api.post("/games/g1/annul", {"reason": "engine"}, headers=who)
        assert annul.status_code == 403 and "cannot annul this game" in annul.text, annul.text
    # nothing applied, nothing audited
    assert _state(api) == before and ledger.audit.log()[1] == audited
    assert api.get("/reviews/g1", headers=max_).json()["status"] == "open"
    # Mia may still dismiss; another moderator confirms
    confirmed = api.post("/reviews/g1/confirm", {"reason": "engine"}, headers=max_)
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["annulment"]["by"] == "Max"
    # the game's reports keep the token they came through; a detector's has none
    ledger.reviews.file_report("g2", "detector:stockfish", "improbable", {"version": 2},
                               "detector", NOW, accused="carol")  # fmt: skip
    assert api.post("/reviews/g2/confirm", {"reason": "engine"}, headers=mia).status_code == 200


def test_accused_self_reports_and_bots(make_api: MakeApi) -> None:
    api = _played(make_api)
    api.player("robo", name="Robo", bot=True, bot_rating="1500")
    api.game("gb", "alice", "robo", "0-1", time_control="180+2")
    # a player of the game accuses their opponent by default
    by_alice = api.post("/games/g1/reports", {"by": "alice", "reason": "too good"})
    assert by_alice.status_code == 201, by_alice.text
    assert (by_alice.json()["accused"], by_alice.json()["accused_name"]) == ("bob", "Bob")
    # someone else names the accused, or nobody
    named = api.post("/games/g1/reports", {"by": "carol", "reason": "x", "accused": "alice"})
    assert (named.status_code, named.json()["accused"]) == (201, "alice")
    unnamed = api.post("/games/g1/reports", {"by": "dave", "reason": "x"})
    assert (unnamed.status_code, unnamed.json()["accused"]) == (201, None)
    case = api.get("/reviews/g1", headers=api.moderator).json()
    assert [r["accused"] for r in case["reports"]] == ["bob", "alice", None]
    # a player cannot report themselves
    self_report = api.post("/games/g2/reports", {"by": "carol", "reason": "x", "accused": "carol"})
    assert self_report.status_code == 403, self_report.text
    assert "cannot report themselves" in self_report.json()["detail"]
    # a bot cannot report
    bot = api.post("/games/gb/reports", {"by": "robo", "reason": "x"})
    assert bot.status_code == 403 and "a bot cannot report" in bot.text, bot.text
    # the accused must have played the game
    stranger = api.post("/games/g2/reports", {"by": "alice", "reason": "x", "accused": "bob"})
    assert stranger.status_code == 422, stranger.text
    assert stranger.json()["detail"][0]["field"] == "accused"
    assert "did not play this game" in stranger.text
    with pytest.raises(Forbidden, match="cannot report themselves"):
        api.ledger.reviews.file_report("g2", "dave", "r", None, "player", NOW, accused="dave")
    # nothing of the refused reports was stored
    assert api.get("/reviews/g2", headers=api.moderator).status_code == 404
    assert api.get("/reviews/gb", headers=api.moderator).status_code == 404


@pytest.mark.parametrize(
    "accused", ["", "\x00", "a" * 201, 5, ["bob"], {"id": "bob"}, True, "bob\x00"]
)
def test_hostile_accused_is_a_422(make_api: MakeApi, accused: Any) -> None:
    api = _played(make_api)
    answer = api.post("/games/g1/reports", {"by": "carol", "reason": "x", "accused": accused})
    assert answer.status_code == 422, answer.text
    assert "accused" in answer.text
    assert api.get("/reviews/g1", headers=api.moderator).status_code == 404


# -- the case page: any evidence, two steps, sessions (over HTTP, no browser) ------------

FORM = {"content-type": "application/x-www-form-urlencoded"}
ODD_EVIDENCE: list[Any] = [
    {"version": 2, "moves": [{"ply": 1, "played": "e2e4", "best": "zz", "suspicious": True},
                             {"ply": 2, "played": "e2e4", "suspicious": True},  # illegal
                             {"ply": "3"}, {"ply": -1}, None, [], [0]]},
    {"version": 2, "white": {"score": "high", "window": {"from_ply": "x"}, "flagged": "yes"},
     "black": [], "flagged": "white", "moves": "e4"},
    {"moves": [[17, "e2e4", "d2d4", 12], [18], ["x"], [10**12, None, None, None]],
     "white": {"match_rate": 0.9, "acpl": float("1e308")}},
    {"version": 2, "kind": "record", "games": [{"game": "g2"}, {"game": 5}, "g3"], "score": []},
    {"version": 2, "kind": "record", "by": ["choices"], "choice_score": "high",
     "games": [{"game": "g2", "choice_score": {"x": 1}}]},
    {"version": 99, "moves": [{"ply": 1, "played": "0000", "best": "0000"}]},
    {},
]  # fmt: skip


def _signed_in(api: Api) -> str:
    api.client.cookies.clear()
    token = api.moderator["Authorization"].split()[1]
    answer = api.client.post("/moderation/sign-in", content=f"token={token}", headers=FORM,
                             follow_redirects=False)  # fmt: skip
    assert answer.status_code == 303, answer.text
    return str(api.client.cookies["chessrate_moderation"])


def test_case_page_reads_any_evidence(make_api: MakeApi) -> None:
    api = _played(make_api)
    ledger: Ledger = api.ledger
    ledger.analyses.store("g1", "Stockfish 15.1", {}, None, False, "moves not recorded", NOW)
    ledger.reviews.file_report("g1", "bob", "x", None, "player", NOW)
    for n, evidence in enumerate(ODD_EVIDENCE):
        ledger.reviews.file_report("g1", f"detector:{n}", "odd", evidence, "detector", NOW)
    ledger.analyses.store("g3", "Stockfish 15.1", {}, ODD_EVIDENCE[0], True, None, NOW)
    ledger.reviews.file_report("g3", "detector:x", "odd", ODD_EVIDENCE[1], "detector", NOW,
                               accused="alice")  # fmt: skip
    _signed_in(api)
    for game, ply in (("g1", ""), ("g3", ""), ("g3", "?ply=1"), ("g3", "?ply=99999")):
        page = api.client.get(f"/moderation/{game}{ply}")
        assert page.status_code == 200, page.text
    page = api.client.get("/moderation/g1")
    assert "moves not recorded" in page.text and "not named" in page.text
    assert "Alice" in api.client.get("/moderation/g3").text
    for bad in ("?ply=0", "?ply=x", "?ply=100001"):
        assert api.client.get(f"/moderation/g3{bad}").status_code == 422


def test_case_page_says_what_flagged_a_record(make_api: MakeApi) -> None:
    """A record flagged by its choice score is said so, with its score beside it; one
    flagged by its score (or filed before the record's choice score) by its score."""
    api = _played(make_api)
    ledger: Ledger = api.ledger
    games = [{"game": "g1", "side": "white", "score": 0.4, "choice_score": 2.6, "moves": 20,
              "flagged": False, "carries": True}]  # fmt: skip
    choices = {"version": 2, "kind": "record", "player": "alice", "score": 0.12,
               "choice_score": 4.57, "by": "choices", "limit": 10, "games": games}  # fmt: skip
    ledger.reviews.file_report("g1", "detector:a", "record", choices, "detector", NOW)
    older = {"version": 2, "kind": "record", "player": "alice", "score": 4.21, "limit": 10,
             "games": [{k: v for k, v in games[0].items() if k != "choice_score"}]}  # fmt: skip
    ledger.reviews.file_report("g3", "detector:b", "record", older, "detector", NOW)
    _signed_in(api)
    text = api.client.get("/moderation/g1").text
    assert ": choice score 4.6 (score 0.1) over 1 game (the last 10)." in text
    assert '<td class="num">2.6</td>' in text  # the game's own choice score
    text = api.client.get("/moderation/g3").text
    assert ": score 4.2 over 1 game (the last 10)." in text


def test_confirm_on_the_page_takes_two_steps(make_api: MakeApi) -> None:
    api = _played(make_api)
    api.post("/games/g1/reports", {"by": "bob", "reason": "x"})
    _signed_in(api)
    page = api.client.get("/moderation/g1")
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    url = "/moderation/g1"
    step = api.client.post(url, data={"csrf": csrf, "action": "confirm", "why": "engine"})
    assert step.status_code == 200 and "Yes: annul the game" in step.text
    assert "the game&#39;s +" in step.text or "the game's +" in step.text
    assert not api.get("/games/g1").json()["annulled"]
    for why, status in (("", 422), ("x" * 2001, 422), ("a\x00b", 422)):
        bad = api.client.post(url, data={"csrf": csrf, "action": "confirm", "why": why})
        assert bad.status_code == status, bad.text
    final = api.client.post(
        url, data={"csrf": csrf, "action": "confirm", "step": "final", "why": "engine"},
        follow_redirects=False,
    )  # fmt: skip
    assert final.status_code == 303, final.text
    assert api.get("/games/g1").json()["annulled"]
    assert api.get("/reviews/g1", headers=api.moderator).json()["status"] == "confirmed"


def test_sessions_end_at_sign_out_expiry_and_revocation(make_api: MakeApi) -> None:
    api = _played(make_api)
    ledger: Ledger = api.ledger
    cookie = _signed_in(api)
    assert api.client.get("/moderation", follow_redirects=False).status_code == 200
    with ledger.engine.connect() as conn:  # only the id's hash is stored
        from chessrate.ledger.schema import sessions

        stored = conn.execute(sessions.select()).all()
    assert len(stored) == 1 and stored[0].id != cookie and len(stored[0].id) == 64
    csrf = api.client.get("/moderation").text.split('name="csrf" value="')[1].split('"')[0]
    out = api.client.post("/moderation/sign-out", data={"csrf": csrf}, follow_redirects=False)
    assert out.status_code == 303
    # the same cookie, sent again by hand: refused
    api.client.cookies.clear()
    copied = {"Cookie": f"chessrate_moderation={cookie}"}
    page = api.client.get("/moderation", headers=copied, follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/moderation/sign-in"
    post = api.client.post(
        "/moderation/g1", data={"csrf": csrf, "action": "dismiss", "why": "x"}, headers=copied
    )
    assert post.status_code == 403
    for odd in ("", "x" * 5000, "%7f", cookie + "x", '"quoted"'):
        odd_cookie = {"Cookie": f"chessrate_moderation={odd}"}
        answer = api.client.get("/moderation", headers=odd_cookie, follow_redirects=False)
        assert answer.status_code == 303
    # a session ends after its hours, and when its token is revoked
    _signed_in(api)
    api.clock.advance(hours=8)
    assert api.client.get("/moderation", follow_redirects=False).status_code == 303
    _signed_in(api)
    found = ledger.tokens.find(api.moderator["Authorization"].split()[1])
    assert found is not None
    ledger.tokens.revoke(found.id, api.clock.now, by="test")
    assert api.client.get("/moderation", follow_redirects=False).status_code == 303
    with ledger.engine.connect() as conn:
        assert conn.execute(sessions.select().where(sessions.c.token_id == found.id)).all() == []
    actions = [e.action for e in ledger.audit.log()[0]]
    assert actions.count("sign-in") == 3 and actions.count("sign-out") == 1


def test_recent_analyses_of_a_player(make_api: MakeApi) -> None:
    api = _played(make_api)
    ledger: Ledger = api.ledger
    for game in ("g3", "g1", "g2"):  # stored in another order than played
        ledger.analyses.store(game, "Stockfish 15.1", {}, {"version": 2}, False, None, NOW)
    recent = ledger.analyses.recent_of("alice")
    assert [(a.game_id, a.side_of("alice")) for a in recent] == [("g3", "white"), ("g1", "white")]
    assert (recent[0].white, recent[0].black) == ("alice", "carol")
    assert recent[0].played_at is not None
    assert [a.game_id for a in ledger.analyses.recent_of("carol", limit=1)] == ["g3"]
    assert [a.game_id for a in ledger.analyses.recent_of("dave")] == ["g2"]
    assert ledger.analyses.recent_of("nobody") == [] and ledger.analyses.recent_of("bob", 0) == []
