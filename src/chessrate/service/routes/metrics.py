"""``/metrics``: Prometheus' text format (:mod:`chessrate.application.metrics`), open
to loopback addresses, or to the bearer of ``CHESSRATE_METRICS_TOKEN`` when it is set."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from ...application import metrics
from ...application.deps import DetectorDep, LedgerDep, Now

router = APIRouter(tags=["health"])


@router.get(
    "/metrics",
    response_class=Response,
    include_in_schema=False,  # not the JSON API: Prometheus' own format
    responses={
        200: {"content": {"text/plain": {}}, "description": "Prometheus' text format"},
        403: {"description": "not a loopback address, or not the metrics token"},
        429: {"description": "too many wrong tokens from this address"},
    },
)
def metrics_text(request: Request, ledger: LedgerDep, detector: DetectorDep, now: Now) -> Response:
    """Every metric in Prometheus' text format: requests by method, route and status,
    their durations, games committed, group commits' sizes, write-lock waits, database
    errors, failed background passes, and the ledger's queues counted now (live games,
    open seeks, games waiting for the fair-play detector). With several workers, the
    sum over every worker."""
    metrics.allow(request)
    return Response(metrics.scrape(ledger, now, detector), media_type=metrics.CONTENT_TYPE)
