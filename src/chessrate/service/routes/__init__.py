"""One router per resource, all under ``/api/v1`` (``/healthz`` at the root). Every API
route declares :data:`~.responses.COMMON_RESPONSES` (413, 429, 503) besides its own."""

from __future__ import annotations

from fastapi import APIRouter

from . import annulments, games, leaderboards, live, periods, players, preview, reviews, seeks
from .responses import COMMON_RESPONSES

api_router = APIRouter(responses=COMMON_RESPONSES)
api_router.include_router(players.router)
api_router.include_router(games.router)
api_router.include_router(leaderboards.router)
api_router.include_router(preview.router)
api_router.include_router(annulments.router)
api_router.include_router(periods.router)
api_router.include_router(periods.players_router)
api_router.include_router(live.router)
api_router.include_router(reviews.router)
api_router.include_router(seeks.router)
