"""The server's configuration (pydantic-settings): environment variables prefixed
``CHESSRATE_``; and the API's URL prefix."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from ..errors import InvalidInput
from ..ledger.connection import DEFAULT_DATABASE
from ..systems.site_pairing import PairingRules
from .group import DEFAULT_GROUP_MAX
from .limits import DEFAULT_FAILURES, DEFAULT_WINDOW

_PAIRING = PairingRules()

API_V1 = "/api/v1"

MAX_BODY_BYTES = 64 * 1024 * 1024
"""The default largest request body: 64 MiB (a 100,000-game JSON Lines batch of
``site`` games is about 19 MB: 193 bytes a game, measured on
``bench/generate_stream.py --games 100000``)."""
SERVICE_BUSY_SECONDS = 5.0
"""The default wait of a request for a database lock (the CLI waits longer)."""


class Settings(BaseSettings):
    """``CHESSRATE_DATABASE_URL``: a SQLAlchemy URL (``postgresql://…``) or a plain path
    (a SQLite file); ``CHESSRATE_TOKEN_CACHE_SECONDS``: how long a worker trusts a
    token's role before asking the ledger again; ``CHESSRATE_SWEEP_SECONDS``: how often
    each worker applies the live games' deadlines (0: never; use ``chessrate sweep``);
    ``CHESSRATE_GROUP_MAX``: the most games a worker rates and commits together (group
    commit of ``POST /games``; 1: each game in its own transaction);
    ``CHESSRATE_GROUP_WRITERS``: how many groups a worker commits at once (1);
    ``CHESSRATE_ACTIVE_DAYS``: on ``site`` leaderboards, an established player played a
    rated game in the pool within this many days of the ledger's date (its latest
    game); ``CHESSRATE_SESSION_HOURS``: how long a moderator's web session lasts
    (never past its token's expiry; sessions are kept in the ledger);
    ``CHESSRATE_PAIR_SECONDS``: how often each worker runs the pairing pass (0:
    never; use ``chessrate pair``); ``CHESSRATE_SEEK_SECONDS``: a seek's life;
    ``CHESSRATE_CORRESPONDENCE_SEEK_SECONDS``: a correspondence seek's (7 days);
    ``CHESSRATE_SEEK_RETENTION_DAYS``: a closed seek (paired, cancelled, expired) is
    deleted by the pairing pass this many days after its expiry (30; 0: kept for ever);
    ``CHESSRATE_PAIR_WINDOW_START``, ``…_STEP``, ``…_EVERY`` (seconds) and ``…_MAX``:
    a seek's acceptable site Elo difference, widening while it waits (the defaults are
    :class:`~chessrate.systems.site_pairing.PairingRules`'s, README "Pairing").;
    ``CHESSRATE_DETECT_SECONDS``: how often each worker runs the fair-play
    detector over the finished games with moves (unset: every 30 s when Stockfish is
    found; 0: never, use ``chessrate detect``), ``CHESSRATE_DETECT_GAMES`` games at
    most per run, one analysis at a time on the machine (a lock file in
    ``CHESSRATE_RUNTIME_DIR``, default ``$XDG_RUNTIME_DIR/chessrate``, else
    ``chessrate-<uid>`` in the temporary directory); ``CHESSRATE_STOCKFISH``: the
    Stockfish binary (default ``/usr/games/stockfish``).

    Limits (README "Limits"): ``CHESSRATE_MAX_BODY_BYTES``: the largest request body
    (413 beyond; 64 MiB); ``CHESSRATE_AUTH_FAILURES`` failed authentications per client
    address within ``CHESSRATE_AUTH_WINDOW_SECONDS``, then 429 until the window passes
    (20 in 60 s; per worker); ``CHESSRATE_BUSY_SECONDS``: how long a request waits for
    a database lock (SQLite's write lock, a PostgreSQL row lock) before answering 503
    with ``Retry-After`` (5 s).

    Operations (docs/deployment.md): ``CHESSRATE_METRICS_TOKEN``: ``/metrics`` answers
    the bearer of this token from any address (unset: loopback addresses only);
    ``CHESSRATE_LOG_FORMAT``: ``text`` (the default) or ``json`` (one JSON object a
    line), for ``chessrate serve``'s log lines, one a request among them."""

    model_config = SettingsConfigDict(env_prefix="CHESSRATE_", extra="ignore")

    database_url: str = DEFAULT_DATABASE
    token_cache_seconds: float = 5.0
    sweep_seconds: float = 5.0
    group_max: int = Field(default=DEFAULT_GROUP_MAX, ge=1)
    group_writers: int = Field(default=1, ge=1)
    active_days: int = Field(default=90, ge=1, le=36_500)
    session_hours: float = Field(default=8.0, gt=0, le=24 * 30)
    pair_seconds: float = Field(default=2.0, ge=0)
    seek_seconds: int = Field(default=_PAIRING.expiry, ge=1, le=7 * 86400)
    correspondence_seek_seconds: int = Field(
        default=_PAIRING.correspondence_expiry, ge=1, le=90 * 86400
    )
    seek_retention_days: int = Field(default=_PAIRING.retention // 86400, ge=0, le=36_500)
    pair_window_start: int = Field(default=_PAIRING.start, ge=0, le=5000)
    pair_window_step: int = Field(default=_PAIRING.step, ge=0, le=5000)
    pair_window_every: int = Field(default=_PAIRING.every, ge=1, le=86400)
    pair_window_max: int = Field(default=_PAIRING.most, ge=0, le=5000)

    def pairing_rules(self) -> PairingRules:
        """The pairing's numbers as configured."""
        return PairingRules(
            start=self.pair_window_start,
            step=self.pair_window_step,
            every=self.pair_window_every,
            most=self.pair_window_max,
            expiry=self.seek_seconds,
            correspondence_expiry=self.correspondence_seek_seconds,
            retention=self.seek_retention_days * 86400,
        )

    detect_seconds: float | None = Field(default=None, ge=0)
    detect_games: int = Field(default=5, ge=1)
    stockfish: str | None = None
    runtime_dir: str | None = None

    max_body_bytes: int = Field(default=MAX_BODY_BYTES, ge=1)
    auth_failures: int = Field(default=DEFAULT_FAILURES, ge=1)
    auth_window_seconds: float = Field(default=DEFAULT_WINDOW, gt=0, le=86400)
    busy_seconds: float = Field(default=SERVICE_BUSY_SECONDS, gt=0, le=3600)

    metrics_token: str | None = None
    log_format: Literal["text", "json"] = "text"


def load_settings() -> Settings:
    """The settings from the environment; a variable that is not a valid value is
    :class:`InvalidInput` naming it, what it holds and why (``CHESSRATE_SEEK_SECONDS:
    'abc': Input should be a valid integer``), which a command prints as
    ``error: ...``, instead of pydantic's traceback."""
    try:
        return Settings()
    except ValidationError as error:
        problems = []
        for item in error.errors():
            name = "CHESSRATE_" + "_".join(str(part) for part in item["loc"]).upper()
            value = str(item.get("input", ""))[:60]
            problems.append(f"{name}: {value!r}: {item['msg']}")
        raise InvalidInput("; ".join(problems)) from None
