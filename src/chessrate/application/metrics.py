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

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from .. import metrics
from ..errors import ChessrateError, Forbidden
from ..fairplay.background import DetectorStatus
from ..ledger import Ledger
from ..ledger.seeks import Seeks
from ..systems.site_live import LiveStatus

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


def allowed(client: str | None, authorization: str | None, token: str | None) -> None:
    """May this request read ``/metrics``? With ``CHESSRATE_METRICS_TOKEN`` set
    (``token``): when it presents it as ``Authorization: Bearer TOKEN``, from any
    address. Without: from a loopback address only (the client's address as the
    server sees it: behind a trusted proxy, the one it forwards). Else
    :class:`Forbidden` (403) saying why."""
    if token:
        given = (authorization or "").removeprefix("Bearer ").strip()
        if not (authorization or "").startswith("Bearer ") or not hmac.compare_digest(
            given.encode(), token.encode()
        ):
            raise Forbidden("metrics: present the CHESSRATE_METRICS_TOKEN as a bearer token")
        return
    if not _loopback(client):
        raise Forbidden(
            "metrics: answered to loopback addresses only (set CHESSRATE_METRICS_TOKEN "
            "to scrape from elsewhere)"
        )


def _loopback(client: str | None) -> bool:
    try:
        address = ipaddress.ip_address(client or "")
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in LOOPBACK)
