"""``/healthz``: the database answers and holds a ledger."""

from __future__ import annotations

from fastapi import APIRouter, status
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError

from ...errors import ChessrateError
from .. import schemas, services
from ..deps import LedgerDep

router = APIRouter(tags=["health"])


@router.get(
    "/healthz",
    response_model=schemas.HealthPublic,
    responses={503: {"description": "the database does not answer or holds no ledger"}},
)
def healthz(ledger: LedgerDep) -> schemas.HealthPublic | JSONResponse:
    """``{"status": "ok", "system": "site"}`` when the database answers."""
    try:
        return services.health(ledger)
    except (SQLAlchemyError, ChessrateError) as error:
        return JSONResponse(
            status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
            content={"status": "unavailable", "detail": str(error).splitlines()[0]},
        )
