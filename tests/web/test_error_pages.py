"""A page route's error is a page of the site (404, 422 with what
was wrong), also on a phone; the API keeps its JSON errors."""

from __future__ import annotations

import urllib.error
import urllib.request
import warnings

import pytest
from playwright.sync_api import Page, Route

from chessrate.server import create_app

from .conftest import Site, screenshot

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2")
    from fastapi.testclient import TestClient

PAGES = [
    ("/players/nobody", 404, "player nobody: no such player"),
    ("/leaderboards/nosuch", 404, "pool nosuch: not a pool of site"),
    ("/games/nothing", 404, "game nothing: no such game"),
    ("/robots-and-such.txt", 404, "There is no page at /robots-and-such.txt."),
    ("/leaderboards/site?offset=abc", 422, "offset"),
]


@pytest.mark.parametrize(("path", "status", "shown"), PAGES)
def test_a_page_error_is_a_page_of_the_site(
    site_sample: Site, page: Page, path: str, status: int, shown: str
) -> None:
    answer = page.goto(site_sample.base + path)
    assert answer is not None
    assert answer.status == status
    assert "text/html" in (answer.headers.get("content-type") or "")
    assert page.locator("header a.brand").inner_text() == "chessrate"  # the site's layout
    assert page.locator("h1.error").get_attribute("data-status") == str(status)
    assert shown in page.locator("main").inner_text()


def test_an_error_page_fits_a_phone(site_sample: Site, phone: Page) -> None:
    phone.goto(site_sample.base + "/leaderboards/site?offset=abc")
    screenshot(phone, "site-error-422-390")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= phone.evaluate("window.innerWidth")


@pytest.mark.parametrize("path", ["/api/v1/players/nobody", "/api/v1/nothing-here"])
def test_the_api_keeps_json_errors(site_sample: Site, path: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(site_sample.base + path)
    assert caught.value.code == 404
    assert caught.value.headers["content-type"] == "application/json"
    assert "detail" in caught.value.read().decode()


def test_the_api_docs_work_offline(site_sample: Site, page: Page) -> None:
    """/docs renders with every request off this server
    blocked (the Swagger UI is vendored, no CDN)."""
    blocked: list[str] = []

    def only_here(route: Route) -> None:
        if route.request.url.startswith(site_sample.base):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.route("**/*", only_here)
    page.goto(site_sample.base + "/docs")
    title = page.locator(".swagger-ui .info .title")
    title.wait_for(timeout=20_000)
    assert title.inner_text().startswith("chessrate")
    assert page.locator(".opblock").count() > 10  # the operations are listed
    assert blocked == []
    screenshot(page, "site-docs-offline")


def test_a_database_that_does_not_answer_is_a_503_page_and_json_on_the_api() -> None:
    """A real ledger URL whose PostgreSQL server does not listen (port 1): the pages
    say the service is unavailable in the site's layout, the API answers JSON."""
    app = create_app(database_url="postgresql+psycopg://chessrate@127.0.0.1:1/nothing")
    client = TestClient(app)  # no lifespan: the app would refuse to start on it
    page = client.get("/players/alice")
    assert page.status_code == 503
    assert "text/html" in page.headers["content-type"]
    assert 'data-status="503"' in page.text
    assert "does not answer" in page.text
    api = client.get("/api/v1/players/alice")
    assert api.status_code == 503
    assert api.json()["status"] == "unavailable"


def test_an_unexpected_error_is_a_500_page_without_internals(site_sample: Site) -> None:
    app = create_app(site_sample.ledger)

    @app.get("/broken")
    def broken() -> None:
        raise RuntimeError("secret internals: /srv/ledger.db password=hunter2")

    client = TestClient(app, raise_server_exceptions=False)
    answer = client.get("/broken", headers={"accept": "text/html"})
    assert answer.status_code == 500
    assert 'data-status="500"' in answer.text
    assert "The error was logged" in answer.text
    assert "secret internals" not in answer.text and "hunter2" not in answer.text
