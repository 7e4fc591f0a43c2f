"""A real headless Chromium (Debian's package, driven by Playwright) against the
service running in this process on a ledger loaded with the sample data."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import uvicorn
from playwright.sync_api import Browser, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from chessrate.ledger import Ledger
from chessrate.samples import load_sample
from chessrate.server import create_app

CHROMIUM = os.environ.get("CHESSRATE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
SCREENSHOTS = Path(os.environ.get("CHESSRATE_SCREENSHOTS", "test-output/screenshots"))
NOW = datetime(2026, 6, 1, tzinfo=UTC)


class Site:
    """A served sample ledger: its base URL, an API client, and the ledger."""

    def __init__(self, base: str, ledger: Ledger) -> None:
        self.base = base
        self.ledger = ledger
        # An idle connection is dropped after 1 s, before the server's keep-alive
        # timeout closes it: a request sent on a connection the server is closing at
        # that moment is "Server disconnected without sending a response".
        self.api = httpx.Client(base_url=base, timeout=30, limits=httpx.Limits(keepalive_expiry=1))

    def get(self, path: str) -> dict:  # type: ignore[type-arg]
        response = self.api.get(f"/api/v1{path}")
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: ./test installs Debian's chromium package")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def serve_sample(system: str, folder: Path) -> Iterator[Site]:
    """Serve a new ledger of ``system`` loaded with its sample data."""
    ledger = Ledger.create(f"sqlite:///{folder / f'{system}.db'}", system, NOW)
    load_sample(ledger, NOW)
    try:
        yield from serve(ledger)
    finally:
        ledger.dispose()


def serve(ledger: Ledger) -> Iterator[Site]:
    """The service on ``ledger``, run by uvicorn in a thread of this process, until the
    generator is closed."""
    # The socket is bound here and handed to uvicorn: no other process (another xdist
    # worker) can take the port between choosing it and listening on it.
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(ledger), host="127.0.0.1", port=port, log_level="warning",
            timeout_keep_alive=60,  # (uvicorn: 5 s, the same as httpx's idle expiry)
        )
    )  # fmt: skip
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    site = Site(base, ledger)
    try:
        yield site
    finally:
        site.api.close()
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="session")
def site_sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from serve_sample("site", tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="session")
def arena_sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from serve_sample("arena", tmp_path_factory.mktemp("arena"))


@pytest.fixture(scope="session")
def corr_sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from serve_sample("corr", tmp_path_factory.mktemp("corr"))


@pytest.fixture(scope="session")
def fide_sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from serve_sample("fide", tmp_path_factory.mktemp("fide"))


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    tab = context.new_page()
    yield tab
    context.close()


@pytest.fixture
def desktop(browser: Browser) -> Iterator[Page]:
    """The issue's desktop: 1366×900."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    tab = context.new_page()
    yield tab
    context.close()


@pytest.fixture(params=[1366, 390], ids=["1366", "390"])
def screen(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """Each test that takes it runs twice: at 1366×900 and as a 390×844 phone."""
    width = request.param
    if width == 390:
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    else:
        context = browser.new_context(viewport={"width": width, "height": 900})
    tab = context.new_page()
    yield tab
    context.close()


def width_of(page: Page) -> int:
    return int(page.viewport_size["width"]) if page.viewport_size else 0


def sign_in(page: Page, base: str, token: str) -> None:
    """Sign in to the moderation pages of the site at ``base`` with a moderator's token,
    as a moderator does (the form), and wait for the queue."""
    page.goto(f"{base}/moderation/sign-in")
    page.fill("#token", token)
    page.click("form.sign-in button")
    page.wait_for_url(f"{base}/moderation")


def assert_fits(page: Page) -> None:
    """No horizontal overflow: the document is no wider than the window. (A phone's
    browser widens its layout viewport to content that overflows, so ``innerWidth``
    alone would hide it: the width asked for is checked too.)"""
    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    asked = width_of(page)
    assert scroll <= inner, f"{page.url}: {scroll} px wide in a {inner} px window"
    assert scroll <= asked, f"{page.url}: {scroll} px wide on a {asked} px screen"


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    tab = context.new_page()
    yield tab
    context.close()


def screenshot(page: Page, name: str) -> Path:
    """Save a full-page screenshot into the test output folder.

    Chromium now and then cannot capture a page of 10,000 px and more while the machine
    is loaded (``Protocol error (Page.captureScreenshot): Unable to capture
    screenshot``); the picture is for a person to look at, so it is taken again."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    for attempt in range(3):
        try:
            page.screenshot(path=str(path), full_page=True)
            break
        except PlaywrightError as error:
            if "Unable to capture screenshot" not in str(error) or attempt == 2:
                raise
            time.sleep(0.5)
    return path
