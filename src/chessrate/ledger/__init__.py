"""The rating ledger: players, games, changes, current ratings and annulments in
SQLite (default) or PostgreSQL. See :class:`chessrate.ledger.store.Ledger`; the
domain errors it raises live in :mod:`chessrate.errors`."""

from .connection import database_url
from .store import Ledger
from .views import AnnulmentView, GameView, HistoryItem, PlayerView, RatingView

__all__ = [
    "AnnulmentView",
    "GameView",
    "HistoryItem",
    "Ledger",
    "PlayerView",
    "RatingView",
    "database_url",
]
