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
    game); ``CHESSRATE_DETECT_SECONDS``: how often each worker runs the fair-play
    detector over the finished live games (0, the default: never; use ``chessrate
    detect``), ``CHESSRATE_DETECT_GAMES`` games at most per run;
    ``CHESSRATE_STOCKFISH``: the Stockfish binary (default ``/usr/games/stockfish``)."""

    model_config = SettingsConfigDict(env_prefix="CHESSRATE_", extra="ignore")

    database_url: str = DEFAULT_DATABASE
    token_cache_seconds: float = 5.0
    sweep_seconds: float = 5.0
    group_max: int = Field(default=DEFAULT_GROUP_MAX, ge=1)
    group_writers: int = Field(default=1, ge=1)
    active_days: int = Field(default=90, ge=1, le=36_500)
    detect_seconds: float = Field(default=0.0, ge=0)
    detect_games: int = Field(default=5, ge=1)
    stockfish: str | None = None
