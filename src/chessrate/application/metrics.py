"""``GET /metrics``: the process's metrics (:mod:`chessrate.metrics`) and the gauges
counted from the ledger when Prometheus scrapes: whether the database answers, the
live games being played or waiting for a confirmation, the open seeks, and the games
waiting for the fair-play detector.

The gauges are the ledger's, not a worker's: any worker counts the same. Each is one
indexed count (``live_games (status, …)``, ``seeks (status, expires_at)``); the
detector's queue is the count ``/healthz`` shows, made at most every 10 s per worker
(:class:`~chessrate.fairplay.background.DetectorStatus`). A database that does not
answer gives ``chessrate_database_up 0`` and no counts, not an error.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterator
from datetime import datetime
from typing import cast

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.requests import HTTPConnection

from .. import metrics
from ..errors import ChessrateError, Forbidden
from ..fairplay.background import DetectorStatus
from ..ledger import Ledger
from ..ledger.seeks import Seeks
from ..systems.site_live import LiveStatus
from .deps import too_many_failures
from .limits import FailedAuth, client_address

CONTENT_TYPE = metrics.CONTENT_TYPE


class LedgerGauges(Collector):
    """The gauges counted from the ledger at each scrape (the module's docstring)."""

    def __init__(
        self, ledger: Ledger, now: datetime, detector: DetectorStatus | None = None
    ) -> None:
        self.ledger = ledger
        self.now = now
        self.detector = detector

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily(
            "chessrate_database_up",
            "1 when the ledger's database answered this scrape's counts, else 0.",
        )
        try:
            counts = self._counts()
        except ChessrateError:  # the database does not answer (LedgerUnavailable)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        for name, text, value in counts:
            gauge = GaugeMetricFamily(name, text)
            gauge.add_metric([], value)
            yield gauge

    def _counts(self) -> list[tuple[str, str, int]]:
        found: list[tuple[str, str, int]] = []
        self.ledger.ping()
        if not self.ledger.info.live_games:
            return found
        live = self.ledger.live
        found.append((
            "chessrate_live_games_open",
            "Live games being played (open: not ended).",
            live.count(LiveStatus.OPEN),
        ))  # fmt: skip
        found.append((
            "chessrate_live_games_awaiting_confirmation",
            "Over-the-board live games whose result waits for the other player.",
            live.count(LiveStatus.AWAITING_CONFIRMATION),
        ))  # fmt: skip
        total, _ = Seeks(self.ledger).page(self.now, limit=1)
        found.append((
            "chessrate_seeks_open",
            "Open seeks waiting for the pairing pass (not expired).",
            int(total),
        ))  # fmt: skip
        if self.detector is not None:
            found.append((
                "chessrate_detector_pending_games",
                "Finished rated games with moves waiting for the fair-play detector "
                "(counted at most every 10 s per worker).",
                self.detector.counts().pending,
            ))  # fmt: skip
        return found


def scrape(ledger: Ledger, now: datetime, detector: DetectorStatus | None = None) -> bytes:
    """Every metric in Prometheus' text format (:data:`CONTENT_TYPE`)."""
    return metrics.exposition([LedgerGauges(ledger, now, detector)])


LOOPBACK = ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")


def allow(connection: HTTPConnection) -> None:
    """May this request read ``/metrics``? With ``CHESSRATE_METRICS_TOKEN`` set
    (``app.state.metrics_token``): when it presents it as ``Authorization: Bearer
    TOKEN``, from any address; a wrong token is a failed authentication of the client's
    address, as an API token's (429 after too many, :mod:`.limits`). Without: from a
    loopback address only (the client's address as the server sees it: behind a
    trusted proxy, the one it forwards). Else :class:`Forbidden` (403) saying why."""
    token = cast(str | None, connection.app.state.metrics_token)
    if not token:
        if not _loopback(connection.client.host if connection.client else None):
            raise Forbidden(
                "metrics: answered to loopback addresses only (set CHESSRATE_METRICS_TOKEN "
                "to scrape from elsewhere)"
            )
        return
    failures = cast(FailedAuth, connection.app.state.auth_failures)
    address = client_address(connection)
    wait = failures.retry_after(address)
    if wait is not None:
        raise too_many_failures(wait)
    scheme, _, given = (connection.headers.get("authorization") or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(
        given.strip().encode(), token.encode()
    ):
        failures.failed(address)
        raise Forbidden("metrics: present the CHESSRATE_METRICS_TOKEN as a bearer token")


def _loopback(client: str | None) -> bool:
    try:
        address = ipaddress.ip_address(client or "")
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in LOOPBACK)
