"""``/healthz``: the database answers and holds a ledger (else 503, mapped with the other
errors in :mod:`chessrate.service.errors`)."""

from __future__ import annotations

from fastapi import APIRouter

from ...application import health
from ...application.deps import DetectorDep, LedgerDep

router = APIRouter(tags=["health"])


@router.get(
    "/healthz",
    response_model=health.HealthPublic,
    responses={503: {"description": "the database does not answer or holds no ledger"}},
)
def healthz(ledger: LedgerDep, detector: DetectorDep) -> health.HealthPublic:
    """``{"status": "ok", "system": <the ledger's system id>, "detector": {…}}`` when the
    database answers (``detector``: the fair-play detector on or off and why, the games
    waiting for analysis, analysed and flagged, this worker's last round);
    ``{"status": "unavailable", "detail": "…"}`` (503) when it does not."""
    return health.health(ledger, detector)
