"""What every answer gets from the app around the routes: ``HEAD`` on every ``GET``
route (pages, API, static files) and gzip for clients that accept it; and search as
users type it (folded case and accents, wildcards as themselves, cut results said)."""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import pytest

from chessrate.ledger import Ledger
from tests.support.server import server_process, written

from .conftest import API, NOW, Api

PATHS = ["/", "/players/alice", "/leaderboards/blitz", "/search?q=ali",
         f"{API}/players/alice", f"{API}/leaderboards/blitz", "/static/style.css",
         "/players/nobody", f"{API}/players/nobody"]  # fmt: skip


@pytest.mark.parametrize("path", PATHS)
def test_head_answers_as_get_without_a_body(site_pair: Api, path: str) -> None:
    site_pair.game("g1", "alice", "bob", "1-0", time_control="5m+3s")
    got = site_pair.client.get(path, headers={"accept-encoding": "identity"})
    head = site_pair.client.head(path, headers={"accept-encoding": "identity"})
    assert head.status_code == got.status_code
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["content-length"] == str(len(got.content))


@pytest.mark.slow
def test_head_on_a_real_server_ends_its_answer_and_keeps_the_connection(tmp_path: Path) -> None:
    """Through uvicorn, not the test client: a ``HEAD`` answer carries the ``GET``'s
    ``Content-Length`` and no body, and the server must know that no body follows (it
    once waited for one, logged an error for every ``HEAD`` and dropped the
    connection)."""
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    Ledger.create(url, "site", NOW).dispose()
    paths = ["/healthz", f"{API}/players", "/", "/static/style.css", f"{API}/players/nobody"]
    env: dict[str, str | None] = {"CHESSRATE_DETECT_SECONDS": "0"}
    with tmp_path.joinpath("log").open("w+b") as log:
        with (
            server_process(url, env=env, log=log) as (base, _),
            httpx.Client(
                base_url=base, headers={"accept-encoding": "identity"}, timeout=10
            ) as http,
        ):
            for path in paths:
                got = http.get(path)
                head = http.head(path)  # on the same connection, kept alive
                assert (head.status_code, head.content) == (got.status_code, b"")
                assert head.headers["content-length"] == str(len(got.content))
            assert http.get("/healthz").status_code == 200  # the connection still works
        output = written(log).decode(errors="replace")
    assert "Traceback" not in output and "Content-Length" not in output
    assert output.count('"HEAD ') == len(paths)


def test_pages_and_answers_are_gzipped_for_clients_that_accept_it(site_pair: Api) -> None:
    for n in range(30):
        site_pair.player(f"p{n:02}", name=f"Player Number {n}")
    page = site_pair.client.get("/search?q=player", headers={"accept-encoding": "gzip"})
    raw = site_pair.client.get("/search?q=player", headers={"accept-encoding": "identity"})
    assert page.headers["content-encoding"] == "gzip"
    assert "content-encoding" not in raw.headers
    assert page.text == raw.text  # the client decompressed it
    answer = site_pair.client.get(
        f"{API}/players?q=player&limit=30", headers={"accept-encoding": "gzip"}
    )
    assert answer.headers["content-encoding"] == "gzip"
    assert int(answer.headers["content-length"]) < len(answer.content)
    assert len(gzip.compress(answer.content)) <= int(answer.headers["content-length"]) + 200


def test_search_folds_accents_shows_ratings_and_says_when_cut(site_pair: Api) -> None:
    site_pair.player("novak", name="Jan Novák")
    site_pair.player("ivan", name="Иван Петров")
    site_pair.game("g1", "novak", "ivan", "1-0", time_control="5m+3s")
    found = site_pair.get("/players?q=NOVAK").json()
    assert [p["id"] for p in found["players"]] == ["novak"]
    assert found["truncated"] is False
    blitz = [r for r in found["players"][0]["ratings"] if r["pool"] == "blitz"]
    assert blitz and blitz[0]["rating"] == site_pair.ratings("novak")["blitz"]
    assert [p["id"] for p in site_pair.get("/players?q=иван").json()["players"]] == ["ivan"]
    assert site_pair.get("/players?q=%25").json()["players"] == []  # "%" matches itself
    assert site_pair.get("/players?q=_").json()["players"] == []
    for n in range(5):
        site_pair.player(f"x{n}", name=f"Xavier {n}")
    cut = site_pair.get("/players?q=xav&limit=3").json()
    assert (cut["count"], cut["truncated"]) == (3, True)
    assert site_pair.get("/players?q=xav&limit=5").json()["truncated"] is False
    page = site_pair.client.get("/search?q=novak").text
    assert "Jan Novák" in page and "1 player match" in page


def test_every_answer_has_the_security_headers(site_pair: Api) -> None:
    for path in ("/", "/players/alice", f"{API}/players/alice", "/static/style.css", "/docs"):
        answer = site_pair.client.get(path)
        assert answer.headers["x-content-type-options"] == "nosniff", path
        assert answer.headers["x-frame-options"] == "DENY", path
        assert answer.headers["referrer-policy"] == "same-origin", path
    page = site_pair.client.get("/players/alice").headers["content-security-policy"]
    assert "script-src 'self';" in page and "frame-ancestors 'none'" in page
    docs = site_pair.client.get("/docs").headers["content-security-policy"]
    assert "script-src 'self' 'unsafe-inline'" in docs
    assert "content-security-policy" not in site_pair.client.get(f"{API}/players/alice").headers


def test_a_search_too_long_is_a_422_not_a_database_error(site_pair: Api) -> None:
    """SQLite refuses a LIKE pattern of 50,000 characters ("too complex"): the text is
    bounded before it gets there, on the page and the API."""
    long = "a" * 50_001
    page = site_pair.client.get("/search", params={"q": long})
    assert page.status_code == 422 and "text/html" in page.headers["content-type"]
    assert site_pair.get("/players", params={"q": long}).status_code == 422
    assert site_pair.client.get("/search", params={"q": "a" * 200}).status_code == 200
