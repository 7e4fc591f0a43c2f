"""The API fuzzed from its own OpenAPI document with schemathesis.

Every operation of the document (the API under ``/api/v1`` and ``/healthz``) is called
with generated requests, valid and invalid (``generation.mode: all``), over ASGI in
process, on a ``site`` and a ``fide`` ledger (SQLite) holding the project's sample
data: the routes differ by system (a ``fide`` ledger refuses games, a ``site`` one
periods). Path, query and body values are drawn half the time from the sample's ids
(players, games, pools, periods), so reads find rows and writes pass validation;
writes carry a writer's bearer token, the moderators' routes a moderator's.

Two checks, on every answer: no server error (5xx), and no status code the operation
does not document. The run is reproducible (hypothesis ``derandomize``, schemathesis's
seed) and bounded (``MAX_EXAMPLES`` per operation in the fuzzing phase, besides the
examples and coverage phases); docs/development.md ("The API fuzzed") says what it
costs.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.python.asgi import shutdown_lifespans

from chessrate.io.fide import player_key
from chessrate.io.trf import parse_trf
from chessrate.ledger import Ledger
from chessrate.records import Player
from chessrate.samples import load_sample, sample_text
from chessrate.server import create_app
from chessrate.systems import system_info
from chessrate.systems.site_live import LiveGame
from chessrate.timecontrol import parse_time_control

from .conftest import NOW, FakeClock

pytestmark = pytest.mark.slow  # about a minute of CPU: the quick tier does not import it

MAX_EXAMPLES = int(os.environ.get("CHESSRATE_FUZZ_EXAMPLES", "12"))
"""Generated requests per operation in the fuzzing phase (a longer run:
``CHESSRATE_FUZZ_EXAMPLES=200 ./test tests/service/test_schemathesis.py``)."""
SEED = int(os.environ.get("CHESSRATE_FUZZ_SEED", "17"))
"""schemathesis's seed: another one explores other requests."""
MODERATED = ("/annul", "/reviews", "/audit", "/mark")
"""Paths whose operations need a moderator token (a writer's everywhere else)."""
DOC_PLAYERS = ("alice", "bob")
"""The players the OpenAPI document's examples name: registered on the site ledger, so
the examples phase stores its games and live games."""
LIVE_GAME = "fuzz-live"
REPORTED_GAME = "s0001"


def _site_values() -> dict[str, list[Any]]:
    """The site ledger's ids: its players, some games, the annulled ones, a live game."""
    players = [row["id"] for row in csv.DictReader(io.StringIO(sample_text("site_players.csv")))]
    annulled = [line.split()[0] for line in sample_text("site_annulments.txt").splitlines()]
    games = [LIVE_GAME, REPORTED_GAME, *annulled, *(f"s{n:04d}" for n in range(2, 486, 37))]
    return {"players": [*DOC_PLAYERS, *players], "games": games}


def _fide_values() -> dict[str, list[Any]]:
    """The fide ledger's ids: the players of its one period (start list and file)."""
    start = csv.DictReader(io.StringIO(sample_text("fide_start_list.csv")))
    trf = parse_trf(sample_text("fide_seed_round_robin.trf"), "sample")
    players = sorted({row["id"] for row in start} | {player_key(p) for p in trf.players})
    return {"players": players, "games": ["fuzz-none"]}


def _config(system: str, values: dict[str, list[Any]]) -> SchemathesisConfig:
    """Both checks only; values drawn from ``values`` (and the system's pools) half the
    time or more."""
    players = {"dictionary": "players", "probability": 0.5}
    games = {"dictionary": "games", "probability": 0.5}
    numbers = {"dictionary": "numbers", "probability": 0.7}
    return SchemathesisConfig.from_dict(
        {
            "seed": SEED,
            "generation": {"mode": "all"},
            "checks": {
                "enabled": False,
                "not_a_server_error": {"enabled": True},
                "status_code_conformance": {"enabled": True},
            },
            "dictionaries": {
                **{name: {"values": found} for name, found in values.items()},
                "pools": {"values": list(system_info(system).pools)},
                "numbers": {"values": [1, 2]},
                "controls": {"values": ["180+2", "3m+2s", "10m", "-", "3d", "60+0"]},
            },
            "parameters": {
                "path.player_id": players,
                "path.game_id": games,
                "path.pool": {"dictionary": "pools", "probability": 0.7},
                "path.period_id": numbers,
                "path.number": numbers,
                "path.seek_id": numbers,
                "query.player": players,
                "query.white": players,
                "query.black": players,
                "body.id": games,
                "body.white": players,
                "body.black": players,
                "body.player": players,
                "body.by": players,
                "body.time_control": {"dictionary": "controls", "probability": 0.5},
            },
        }
    )


def _document() -> dict[str, Any]:
    """The app's OpenAPI document (building the app opens no database: the file is
    never created)."""
    unopened = Ledger(f"sqlite:///{Path(tempfile.gettempdir()) / 'chessrate-never.db'}")
    app = create_app(unopened, sweep_every=0, pair_every=0, detect_every=0)
    return app.openapi()


DOCUMENT = _document()
site_schema = schemathesis.openapi.from_dict(DOCUMENT, config=_config("site", _site_values()))
fide_schema = schemathesis.openapi.from_dict(DOCUMENT, config=_config("fide", _fide_values()))
# The batch's JSON Lines media types are text, as text/plain is.
schemathesis.serializer.alias(
    [
        "application/x-ndjson",
        "application/jsonl",
        "application/x-jsonlines",
        "application/json-lines",
    ],
    "text/plain",
)
FUZZ_SETTINGS = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@dataclass(frozen=True)
class Fuzzed:
    """The app under test and its tokens."""

    app: FastAPI
    writer: str
    moderator: str

    def headers(self, path: str) -> dict[str, str]:
        token = self.moderator if any(part in path for part in MODERATED) else self.writer
        return {"Authorization": f"Bearer {token}"}


def _site_extras(ledger: Ledger) -> None:
    """Besides the sample: the document's players, an open live game and a review case."""
    for player_id in DOC_PLAYERS:
        ledger.players.create(Player(player_id, name=player_id.title()), NOW)
    control = parse_time_control("180+2")
    ledger.live.open(LiveGame(LIVE_GAME, "alice", "bob", NOW, control), NOW)
    ledger.reviews.file_report(REPORTED_GAME, "ana", "engine-like accuracy", None, "player", NOW)


def fuzzed(system: str, url: str) -> Iterator[Fuzzed]:
    """The app on a new ledger at ``url`` holding the system's sample (and the site's
    extras), with a writer's and a moderator's tokens."""
    ledger = Ledger.create(url, system, NOW)
    load_sample(ledger, NOW)
    if system == "site":
        _site_extras(ledger)
    writer = ledger.tokens.create("writer", "fuzz writer", NOW)
    moderator = ledger.tokens.create("moderator", "fuzz moderator", NOW)
    app = create_app(ledger, clock=FakeClock(), sweep_every=0, pair_every=0, detect_every=0)
    yield Fuzzed(app, writer, moderator)
    shutdown_lifespans()  # the app's lifespan, started by the first call
    ledger.dispose()


@pytest.fixture(scope="module")
def site_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    """A site ledger with the site sample, the document's players, a live game and a
    review case."""
    yield from fuzzed("site", f"sqlite:///{tmp_path_factory.mktemp('site') / 'ledger.db'}")


@pytest.fixture(scope="module")
def fide_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    """A fide ledger with the fide sample: a closed period of each list."""
    yield from fuzzed("fide", f"sqlite:///{tmp_path_factory.mktemp('fide') / 'ledger.db'}")


@site_schema.parametrize()
@FUZZ_SETTINGS
def test_site_api_answers_no_server_error_and_only_documented_codes(
    case: schemathesis.Case[Any], site_app: Fuzzed
) -> None:
    case.call_and_validate(app=site_app.app, headers=site_app.headers(case.path))


@fide_schema.parametrize()
@FUZZ_SETTINGS
def test_fide_api_answers_no_server_error_and_only_documented_codes(
    case: schemathesis.Case[Any], fide_app: Fuzzed
) -> None:
    case.call_and_validate(app=fide_app.app, headers=fide_app.headers(case.path))
