"""The rating ledger: players, games, changes, current ratings and annulments in
SQLite (default) or PostgreSQL. :class:`chessrate.ledger.store.Ledger` is one
connection and its named parts (``ledger.players``, ``ledger.games``,
``ledger.annulments``, ``ledger.boards``, ...), each a class in its own module; the
domain errors they raise live in :mod:`chessrate.errors`."""

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
