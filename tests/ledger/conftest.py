"""Fixtures of the ledger tests."""

from __future__ import annotations

import pytest

from .helpers import copy_of_site_sample


@pytest.fixture
def site_sample(request: pytest.FixtureRequest, ledger_url: str) -> str:
    """``ledger_url`` holding a site ledger with the site sample loaded."""
    return copy_of_site_sample(request, ledger_url)
