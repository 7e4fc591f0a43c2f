"""Failed authentications counted per client address: an address that failed ``most``
times within ``window`` seconds (API tokens, the moderators' sign-in form) is refused
with 429 and ``Retry-After`` until the oldest of those failures is ``window`` seconds
old. A request that authenticates never counts, and one from another address is not
affected.

In-process: each worker counts its own failures (with ``--workers N`` an address may
fail ``most`` times in each worker), and a restart forgets them. The address is the
one the server sees (``scope["client"]``): behind a reverse proxy, every client shares
the proxy's address unless uvicorn is told to trust its ``X-Forwarded-For``.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

from starlette.requests import HTTPConnection

DEFAULT_FAILURES = 20
DEFAULT_WINDOW = 60.0
MAX_ADDRESSES = 10_000
"""Addresses remembered at once (the oldest are forgotten first beyond this)."""


def client_address(connection: HTTPConnection) -> str:
    """The request's client address as the server saw it (``unknown`` without one)."""
    client = connection.client
    return client.host if client is not None and client.host else "unknown"


class FailedAuth:
    """Recent failed authentications per address (see the module's docstring). Safe to
    use from several threads. ``timer``: seconds, monotonic (tests pass their own)."""

    def __init__(
        self,
        most: int = DEFAULT_FAILURES,
        window: float = DEFAULT_WINDOW,
        timer: Callable[[], float] = time.monotonic,
        max_addresses: int = MAX_ADDRESSES,
    ) -> None:
        if most < 1:
            raise ValueError(f"most: must be at least 1, not {most}")
        if window <= 0:
            raise ValueError(f"window: must be positive, not {window}")
        self.most = most
        self.window = window
        self.timer = timer
        self.max_addresses = max_addresses
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def retry_after(self, address: str) -> int | None:
        """Whole seconds (at least 1) until ``address`` may try again; None when it may
        now."""
        now = self.timer()
        with self._lock:
            times = self._recent(address, now)
            if times is None or len(times) < self.most:
                return None
            return max(1, math.ceil(times[0] + self.window - now))

    def failed(self, address: str) -> None:
        """Count one failed authentication of ``address`` now."""
        now = self.timer()
        with self._lock:
            times = self._recent(address, now)
            if times is None:
                while len(self._failures) >= self.max_addresses:
                    del self._failures[next(iter(self._failures))]  # the oldest address
                times = self._failures[address] = deque(maxlen=self.most)
            times.append(now)

    def _recent(self, address: str, now: float) -> deque[float] | None:
        """The address's failures within the window (None, and forgotten, when none)."""
        times = self._failures.get(address)
        if times is None:
            return None
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._failures[address]
            return None
        return times
