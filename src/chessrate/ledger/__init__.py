"""The rating ledger: players, games, changes, current ratings and annulments in
SQLite (default) or PostgreSQL. See :class:`chessrate.ledger.store.Ledger`."""

from .store import (
    AnnulmentView,
    GameView,
    HistoryItem,
    Ledger,
    PlayerView,
    RatingView,
    database_url,
)

__all__ = [
    "AnnulmentView",
    "GameView",
    "HistoryItem",
    "Ledger",
    "PlayerView",
    "RatingView",
    "database_url",
]
