"""The server's configuration (pydantic-settings): environment variables prefixed
``CHESSRATE_``; and the API's URL prefix."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from ..ledger.connection import DEFAULT_DATABASE
from .group import DEFAULT_GROUP_MAX

API_V1 = "/api/v1"


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
    game); ``CHESSRATE_SESSION_SECRET``: the key that signs moderators' session
    cookies (unset: a random key per process, so sessions do not survive a restart
    and, with several workers, a session works only in the worker that signed it in:
    set it when running more than one); ``CHESSRATE_SESSION_HOURS``: how long a
    moderator's web session lasts (never past its token's expiry)."""

    model_config = SettingsConfigDict(env_prefix="CHESSRATE_", extra="ignore")

    database_url: str = DEFAULT_DATABASE
    token_cache_seconds: float = 5.0
    sweep_seconds: float = 5.0
    group_max: int = Field(default=DEFAULT_GROUP_MAX, ge=1)
    group_writers: int = Field(default=1, ge=1)
    active_days: int = Field(default=90, ge=1, le=36_500)
    session_secret: str | None = None
    session_hours: float = Field(default=8.0, gt=0, le=24 * 30)
