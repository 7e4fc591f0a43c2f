"""What an outside probe of the service found, each hole held shut (on SQLite and on
PostgreSQL: ``make_api``'s ledgers):

- an attribute that decided how a player's rated games were rated (``bot``,
  ``bot_rating``, an imported rating of a pool games have moved) cannot change
  afterwards (409): ``verify`` stays OK; before any rated game it changes;
- a moderation page with a non-ASCII cookie or ``csrf`` field is a sign-in page or a
  403, never a 500;
- no ``Location`` ever holds the request's ``Host``;
- ids are NFC (the NFD spelling finds the same player), and a bidirectional control or
  a zero-width character in a new id is refused naming the field;
- ``OPTIONS`` answers every method of a path; the OpenAPI document declares the
  lengths, patterns and enums the server enforces (a value one longer is refused).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import pytest
from sqlalchemy import update

from chessrate.errors import Conflict, InvalidRecord
from chessrate.ledger.schema import players as players_table
from chessrate.records import MAX_PLIES, Player, Result
from chessrate.server import create_app

from .conftest import API, NOW, Api, FakeClock, MakeApi, TestClient

NOVAK = "Novák"
NOVAK_NFD = unicodedata.normalize("NFD", NOVAK)


def detail(answer: Any) -> str:
    return str(answer.json()["detail"])


def single_error(answer: Any) -> dict[str, Any]:
    assert answer.status_code == 422, answer.text
    (error,) = answer.json()["detail"]
    return dict(error)


# -- 1. the attributes the replay reads ---------------------------------------------------


def test_bot_flag_cannot_change_after_a_rated_game_and_verify_stays_ok(site: Api) -> None:
    site.player("ana")
    site.player("ben")
    site.player("cid")
    site.game("g1", "ana", "ben", "1-0", time_control="10m", plies=40)
    before = site.get("/players/ana").json()

    refused = site.patch("/players/ana", {"bot": True, "bot_rating": "1200"})
    assert refused.status_code == 409, refused.text
    assert "player ana: bot: cannot change: the player has rated games" in detail(refused)
    assert "g1" in detail(refused)
    assert site.get("/players/ana").json() == before
    assert site.ledger.verify() == []

    # what the replay does not read stays editable
    renamed = site.patch("/players/ana", {"name": "Ana"})
    assert renamed.status_code == 200, renamed.text
    # before any rated game the flag changes
    botted = site.patch("/players/cid", {"bot": True, "bot_rating": "1200"})
    assert botted.status_code == 200, botted.text
    site.game("g2", "cid", "ben", "0-1", time_control="10m", plies=40)
    refused = site.patch("/players/cid", {"bot_rating": "1300"})
    assert refused.status_code == 409, refused.text
    assert "player cid: bot_rating: cannot change" in detail(refused)
    unbot = site.patch("/players/cid", {"bot": False, "bot_rating": None})
    assert unbot.status_code == 409, unbot.text
    assert site.ledger.verify() == []


def test_an_imported_rating_cannot_change_once_games_moved_its_pool(site: Api) -> None:
    site.player("ana")
    site.player("ben")
    site.game("g1", "ana", "ben", "1-0", time_control="10m", plies=40)  # rapid
    refused = site.patch("/players/ana", {"rating_rapid": "1800", "games_rapid": 20})
    assert refused.status_code == 409, refused.text
    assert "player ana: rating_rapid: cannot change: games have moved" in detail(refused)
    # a pool no game has moved: the import starts it, and the replay agrees
    seeded = site.patch("/players/ana", {"rating_blitz": "1800", "games_blitz": 20})
    assert seeded.status_code == 200, seeded.text
    site.game("g2", "ana", "ben", "1/2-1/2", time_control="3m+2s", plies=40)
    assert site.ledger.verify() == []


def test_the_import_path_refuses_the_same_and_stores_nothing(site: Api) -> None:
    site.player("ana")
    site.player("ben")
    site.game("g1", "ana", "ben", "1-0", time_control="10m", plies=40)
    counts = site.ledger.counts()
    with pytest.raises(Conflict, match="player ana: bot: cannot change"):
        site.ledger.games.import_all(
            [Player("dan")], [("ana", {"bot": True, "bot_rating": "1200"})], [], [], None, NOW
        )
    assert site.ledger.counts() == counts
    assert not site.ledger.players.exists("dan")
    # the same attributes stated again change nothing and are taken
    site.ledger.games.import_all([], [("ana", {"bot": False})], [], [], None, NOW)
    assert site.ledger.verify() == []


def test_an_arena_membership_renews_after_games_and_verify_stays_ok(make_api: MakeApi) -> None:
    arena = make_api("arena")
    arena.player("ana", membership_until="2026-03-31")
    arena.player("ben", membership_until="2026-12-31")
    arena.game("g1", "ana", "ben", "1-0", time_control="10m", plies=40)
    renewed = arena.patch("/players/ana", {"membership_until": "2027-03-31"})
    assert renewed.status_code == 200, renewed.text
    arena.game("g2", "ben", "ana", "0-1", time_control="10m", plies=40)
    assert arena.ledger.verify() == []


# -- 2. hostile cookies and form fields ------------------------------------------------------


RAW_COOKIES = (
    b"chessrate_moderation=a.\xe9",
    b"chessrate_moderation=\xc3\xa9\xff",
    b'chessrate_moderation="\\351"; other=\xfe',
)


def test_a_non_ascii_session_cookie_is_never_a_server_error(site: Api) -> None:
    client = TestClient(
        create_app(site.ledger, clock=FakeClock(), sweep_every=0, pair_every=0),
        raise_server_exceptions=False,
    )
    with client:
        for cookie in RAW_COOKIES:
            for method, path, status in (
                ("GET", "/moderation", 303),
                ("GET", "/moderation/sign-in", 200),
                ("GET", "/moderation/g1", 303),
                ("POST", "/moderation/g1", 403),
                ("POST", "/moderation/sign-out", 403),
            ):
                answer = client.request(
                    method, path, headers=[(b"cookie", cookie)], content=b"csrf=\xc3\xa9",
                    follow_redirects=False,
                )  # fmt: skip
                assert answer.status_code == status, (cookie, method, path, answer.text)


def test_a_non_ascii_csrf_field_is_a_403(site: Api) -> None:
    token = site.ledger.tokens.create("moderator", "mod", NOW)
    signed = site.client.post("/moderation/sign-in", data={"token": token}, follow_redirects=False)
    assert signed.status_code == 303, signed.text
    for field in ("\u00e9", "\u00e9" * 64, "\ud800"):
        body = ("csrf=" + field).encode("utf-8", "surrogatepass")
        answer = site.client.post(
            "/moderation/sign-out", content=body, follow_redirects=False,
            headers={"content-type": "application/x-www-form-urlencoded"},
        )  # fmt: skip
        assert answer.status_code == 403, answer.text
    assert site.client.get("/moderation", follow_redirects=False).status_code == 200


# -- 3. redirects ------------------------------------------------------------------------


def test_no_location_holds_the_request_host(site: Api) -> None:
    site.player("ana", rating_blitz="1800", games_blitz=20)
    token = site.ledger.tokens.create("moderator", "mod", NOW)
    evil = {"host": "evil.example"}
    client = site.client
    answers = [
        client.get("/leaderboards/site/", headers=evil, follow_redirects=False),
        client.get("/api/v1/players/", headers=evil, follow_redirects=False),
        client.get("/api/v1/players/ana/?x=1", headers=evil, follow_redirects=False),
        client.get("/leaderboards/blitz?find=ana&all=1", headers=evil, follow_redirects=False),
        client.get("/moderation", headers=evil, follow_redirects=False),
        client.post(
            "/moderation/sign-in", data={"token": token}, headers=evil, follow_redirects=False
        ),
    ]
    redirects = [a for a in answers if 300 <= a.status_code < 400]
    assert len(redirects) == len(answers), [a.status_code for a in answers]
    for answer in [*answers, site.post("/players", {"id": "ben"}, headers=evil)]:
        location = answer.headers["location"]
        assert "evil.example" not in location
        assert location.startswith("/") and not location.startswith("//"), location
    assert answers[0].headers["location"] == "/leaderboards/site"
    assert answers[2].headers["location"] == "/api/v1/players/ana?x=1"
    # a path that starts with // is never turned into a redirect to another site
    off_site = client.get("/%2Fevil.example/", headers=evil, follow_redirects=False)
    assert off_site.status_code == 404
    assert "location" not in off_site.headers


# -- 4. ids --------------------------------------------------------------------------------


def test_the_nfd_spelling_of_an_id_is_the_same_player(site: Api) -> None:
    created = site.post("/players", {"id": NOVAK_NFD, "name": "Jan"})
    assert created.status_code == 201, created.text
    assert created.json()["id"] == NOVAK
    assert site.post("/players", {"id": NOVAK}).status_code == 409
    site.player("ben")
    game = site.game("g1", NOVAK_NFD, "ben", "1-0", time_control="10m", plies=40)
    assert game["white"] == NOVAK
    for spelling in (NOVAK, NOVAK_NFD):
        found = site.get(f"/players/{spelling}")
        assert found.status_code == 200, found.text
        assert found.json()["id"] == NOVAK
        page = site.client.get(f"/players/{spelling}")
        assert page.status_code == 200
    report = site.post("/games/g1/reports", {"by": NOVAK_NFD, "reason": "engine"})
    assert report.status_code == 201, report.text
    assert report.json()["by"] == NOVAK
    live = site.post(
        "/live-games",
        {"id": "L1", "white": NOVAK_NFD, "black": "ben", "time_control": "180+2"},
    )
    assert live.status_code == 201, live.text
    aborted = site.post("/live-games/L1/abort", {"by": NOVAK_NFD})
    assert aborted.status_code == 200, aborted.text
    games = site.get("/live-games", params={"player": NOVAK_NFD})
    assert games.status_code == 200, games.text
    assert [g["id"] for g in games.json()["games"]] == ["L1"]
    assert site.get("/players", params={"q": NOVAK_NFD}).json()["count"] == 1
    assert [p.id for p in site.ledger.players.all()] == [NOVAK, "ben"]
    # the library's own Player is taken in NFC too
    with pytest.raises(Conflict):
        site.ledger.players.create(Player(NOVAK_NFD), NOW)
    assert site.ledger.players.id_problems() == []
    assert site.ledger.verify() == []


INVISIBLE = [
        ("\u202e", "a bidirectional control"),
        ("\u2067", "a bidirectional control"),
        ("\u200f", "a bidirectional control"),
        ("\u061c", "a bidirectional control"),
        ("\u200b", "a zero-width space"),
        ("\u200d", "a zero-width joiner"),
        ("\u2060", "a word joiner"),
        ("\ufeff", "a zero-width no-break space"),
]  # fmt: skip


def test_invisible_characters_in_a_new_id_are_refused(site: Api) -> None:
    site.player("ana")
    for char, kind in INVISIBLE:
        error = single_error(site.post("/players", {"id": f"an{char}a"}))
        assert error["field"] == "id"
        assert f"U+{ord(char):04X} ({kind})" in error["msg"]
        game = {"id": f"g{char}1", "played_at": "2026-03-01T18:00:00Z", "white": "ana",
                "black": "ben", "result": "1-0"}  # fmt: skip
        assert single_error(site.post("/games", game))["field"] == "id"
        with pytest.raises(InvalidRecord, match=f"U\\+{ord(char):04X}"):  # the library's
            Player.from_mapping({"id": f"b{char}en"}, "library")
    assert [p.id for p in site.ledger.players.all()] == ["ana"]


PERSIAN = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # mi-khaham: a non-joiner after yeh
HINDI = "\u0915\u094d\u200d\u0937\u093e"  # a joiner after the virama: a half form


def test_a_joiner_where_a_script_needs_it_is_part_of_an_id(site: Api) -> None:
    """Persian writes a zero-width non-joiner inside words and Indic scripts a joiner
    after a virama: there it changes the drawing, so such ids are taken (as IDNA's
    CONTEXTJ rules take them); the same characters anywhere else are refused."""
    for player_id in (PERSIAN, HINDI):
        answer = site.post("/players", {"id": player_id})
        assert answer.status_code == 201, answer.text
        assert site.get(f"/players/{player_id}").json()["id"] == player_id
    refused = [
        "\u0627\u200c\u0628",  # after alef, which never joins the next letter
        "\u0628\u200c",  # at the end
        "\u0645\u200d\u0645",  # a joiner between Arabic letters (no virama)
        "k\u200cx",  # between Latin letters
    ]
    for player_id in refused:
        error = single_error(site.post("/players", {"id": player_id}))
        assert error["field"] == "id" and "zero-width" in error["msg"], error
    assert {p.id for p in site.ledger.players.all()} == {PERSIAN, HINDI}
    assert site.ledger.players.id_problems() == []


def test_a_stored_id_from_before_the_rules_is_reported_not_rewritten(site: Api) -> None:
    site.player("old")
    with site.ledger.transaction() as conn:  # as a ledger written before the rules holds it
        conn.execute(update(players_table).where(players_table.c.id == "old").values(id=NOVAK_NFD))
    (problem,) = site.ledger.players.id_problems()
    assert problem.startswith(f"player {NOVAK_NFD!r}: id:") and "not in Unicode NFC" in problem
    assert [p.id for p in site.ledger.players.all()] == ["old"]  # its attributes untouched


# -- 5. OPTIONS and the OpenAPI document ---------------------------------------------------------


ALLOWED = [
        (f"{API}/players", "GET, HEAD, POST, OPTIONS"),
        (f"{API}/players/ana", "GET, HEAD, PATCH, OPTIONS"),
        (f"{API}/players/ana/mark", "POST, DELETE, OPTIONS"),
        (f"{API}/games/batch", "GET, HEAD, POST, OPTIONS"),  # GET: the game "batch"
        ("/leaderboards/blitz", "GET, HEAD, OPTIONS"),
        ("/moderation/g1", "GET, HEAD, POST, OPTIONS"),
        ("/healthz", "GET, HEAD, OPTIONS"),
        ("/static/style.css", "GET, HEAD, OPTIONS"),  # a mounted app's file
]  # fmt: skip


def test_options_names_every_method_of_the_path(site: Api) -> None:
    for path, allow in ALLOWED:
        answer = site.client.options(path)
        assert answer.status_code == 204, answer.text
        assert answer.headers["allow"] == allow, path
        assert answer.content == b""
        refused = site.client.put(path)
        assert refused.status_code == 405
        assert refused.headers["allow"] == allow, path
    assert site.client.options("/nowhere").status_code == 404
    assert site.client.options(f"{API}/nowhere").status_code == 404
    # under the static files' mount, only a file that is there takes methods
    for missing in ("/static/missing.css", "/static/", "/static/swagger", "/static/../run"):
        assert site.client.options(missing).status_code == 404, missing
        assert site.client.get(missing).status_code == 404, missing


def _schema(site: Api, method: str, path: str) -> dict[str, Any]:
    document = site.client.get("/openapi.json").json()
    body = document["paths"][path][method]["requestBody"]["content"]["application/json"]
    schema = body["schema"]
    if "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return dict(schema)


def _longest(prop: dict[str, Any]) -> int:
    if "maxLength" in prop:
        return int(prop["maxLength"])
    (found,) = [int(p["maxLength"]) for p in prop.get("anyOf", ()) if "maxLength" in p]
    return found


DECLARED: list[tuple[str, str, str, dict[str, Any], str]] = [
    # (method, path in the document, path called, a valid body, field)
    ("post", "/api/v1/players", "/players", {"id": "zoe"}, "id"),
    ("post", "/api/v1/players", "/players", {"id": "zoe", "name": "Z"}, "name"),
    ("post", "/api/v1/games", "/games",
     {"id": "g9", "played_at": "2026-03-01T18:00:00Z", "white": "ana", "black": "ben",
      "result": "1-0", "time_control": "10m", "plies": 40}, "id"),
    ("post", "/api/v1/games/{game_id}/reports", "/games/g1/reports",
     {"by": "ana", "reason": "r"}, "reason"),
    ("post", "/api/v1/seeks", "/seeks", {"player": "ana", "time_control": "180+2"}, "player"),
    ("post", "/api/v1/live-games", "/live-games",
     {"id": "L1", "white": "ana", "black": "ben", "time_control": "180+2"}, "id"),
]  # fmt: skip


def test_a_declared_max_length_is_what_the_server_refuses(site: Api) -> None:
    site.player("ana")
    site.player("ben")
    site.game("g1", "ana", "ben", "1-0", time_control="10m", plies=40)
    for n, (method, doc_path, path, body, field) in enumerate(DECLARED):
        prop = _schema(site, method, doc_path)["properties"][field]
        longest = _longest(prop)
        assert prop.get("pattern") or any("pattern" in p for p in prop.get("anyOf", ()))
        fill = "uvwxyz"[n]  # each entry its own ids
        too_long = single_error(site.post(path, {**body, field: fill * (longest + 1)}))
        assert too_long["field"] == field, (path, field)
        fits = site.post(path, {**body, field: fill * longest})
        if fits.status_code == 422:  # refused for another reason (an unknown player)
            assert "characters long" not in fits.text, fits.text
        else:
            assert fits.status_code in (200, 201), fits.text
        nul = single_error(site.post(path, {**body, field: "x\x00"}))
        assert nul["field"] == field, (path, field)


def test_the_documents_enums_and_bounds_are_what_the_server_refuses(site: Api) -> None:
    site.player("ana")
    site.player("ben")
    game = _schema(site, "post", "/api/v1/games")
    assert set(game["properties"]["result"]["enum"]) == {r.value for r in Result}
    plies = next(p for p in game["properties"]["plies"]["anyOf"] if p.get("type") == "integer")
    assert plies["maximum"] == MAX_PLIES
    body = {"id": "g1", "played_at": "2026-03-01T18:00:00Z", "white": "ana", "black": "ben",
            "result": "1-0", "time_control": "10m"}  # fmt: skip
    assert single_error(site.post("/games", {**body, "result": "2-0"}))["field"] == "result"
    refused = single_error(site.post("/games", {**body, "plies": MAX_PLIES + 1}))
    assert refused["field"] == "plies"
    assert game["not"] == {"required": ["moves", "movetext"]}
    both = {**body, "moves": ["e4"], "movetext": "1. e4"}
    assert single_error(site.post("/games", both))["field"] == "movetext"
    players = _schema(site, "post", "/api/v1/players")
    assert players["then"] == {"required": ["bot_rating"]}
    refused = single_error(site.post("/players", {"id": "bot1", "bot": True}))
    assert refused["field"] == "bot_rating"
    document = site.client.get("/openapi.json").json()
    (status,) = [
        p for p in document["paths"]["/api/v1/live-games"]["get"]["parameters"]
        if p["name"] == "status"
    ]  # fmt: skip
    assert "open" in status["schema"]["enum"]
    assert site.get("/live-games", params={"status": "nope"}).status_code == 422
    assert re.fullmatch(players["properties"]["id"]["pattern"], "ana")
    assert not re.fullmatch(players["properties"]["id"]["pattern"], "a/b")
    assert not re.fullmatch(players["properties"]["id"]["pattern"], "a\u202eb")
