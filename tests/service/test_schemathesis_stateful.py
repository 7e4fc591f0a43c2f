"""The API fuzzed by schemathesis in chains of calls (its stateful phase), on SQLite
and on PostgreSQL.

The single-call fuzzing (``test_schemathesis.py``) draws ids from the samples; this
one follows the links schemathesis infers from the OpenAPI document (a player
created, then read, patched, marked; a seek posted, then read and withdrawn; a live
game opened, then moved, finished, confirmed, aborted), so each call acts on what the
calls before it made. Each scenario is up to ``STEPS`` calls on one ledger that keeps
everything the scenarios before it stored, as a running service would.

Every answer is checked as in the single-call run: no server error (5xx), no status
code the operation does not document. A failing answer is kept by the machine itself
(``_Machine.validate_response``) before hypothesis sees it, so hypothesis's own
verdicts cannot hide one: the server's state changes between runs, so hypothesis
finds its generation "inconsistent" (``FlakyStrategyDefinition``) and ends a suite
early; the test then starts the next suite with another seed, as schemathesis's own
runner does. ``SUITES`` suites of at most ``EXAMPLES`` scenarios each (a longer run:
``CHESSRATE_FUZZ_SUITES=40 CHESSRATE_FUZZ_SCENARIOS=200 ./test
tests/service/test_schemathesis_stateful.py``).
"""

from __future__ import annotations

import os
from collections import Counter
from contextlib import contextmanager
from typing import Any

import hypothesis
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import FlakyStrategyDefinition

from .test_schemathesis import DOCUMENT, Fuzzed, _config, _fide_values, _site_values, fuzzed

pytestmark = pytest.mark.slow

SUITES = int(os.environ.get("CHESSRATE_FUZZ_SUITES", "2"))
"""Suites per ledger (each with its own seed: ``CHESSRATE_FUZZ_SEED`` and up)."""
EXAMPLES = int(os.environ.get("CHESSRATE_FUZZ_SCENARIOS", "20"))
"""Scenarios per suite at most."""
STEPS = 10
"""Calls per scenario at most."""
FIRST_SEED = int(os.environ.get("CHESSRATE_FUZZ_SEED", "17"))

VALUES = {"site": _site_values, "fide": _fide_values}


def _run(system: str, app: Fuzzed) -> tuple[Counter[tuple[str, str, int]], list[str]]:
    """Run the suites; the calls made (method, path template, status) and the failures."""
    schema = schemathesis.openapi.from_dict(DOCUMENT, config=_config(system, VALUES[system]()))
    machine = schema.as_state_machine()
    calls: Counter[tuple[str, str, int]] = Counter()
    failures: list[str] = []

    class _Machine(machine):  # type: ignore[valid-type,misc]
        def get_call_kwargs(self, case: schemathesis.Case[Any]) -> dict[str, Any]:
            return {"app": app.app, "headers": app.headers(case.path)}

        def after_call(self, response: Any, case: schemathesis.Case[Any]) -> None:
            calls[(case.method, case.operation.path, response.status_code)] += 1

        def validate_response(
            self, response: Any, case: schemathesis.Case[Any], **kwargs: Any
        ) -> None:
            try:
                super().validate_response(response, case, **kwargs)
            except BaseException as error:
                failures.append(
                    f"{case.method} {case.formatted_path} -> {response.status_code}: "
                    f"{response.text[:300]!r} ({type(error).__name__})"
                )
                raise

    suite_settings = settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        stateful_step_count=STEPS,
        suppress_health_check=list(HealthCheck),
    )
    for seed in range(FIRST_SEED, FIRST_SEED + SUITES):
        try:
            hypothesis.seed(seed)(_Machine).run(settings=suite_settings)
        except FlakyStrategyDefinition:
            pass  # the ledger's state moved on: the next suite goes on from it
        except BaseException:
            if not failures:  # anything else is the test's own error
                raise
    return calls, failures


@pytest.mark.parametrize("system", ["site", "fide"])
def test_chains_of_calls_answer_no_server_error_and_only_documented_codes(
    system: str, ledger_url: str
) -> None:
    with contextmanager(fuzzed)(system, ledger_url) as app:
        calls, failures = _run(system, app)
    assert failures == []
    # the chains reached the ledger: something was stored, and something read back
    stored = sum(n for (method, _, code), n in calls.items() if method != "GET" and code < 300)
    read = sum(n for (method, _, code), n in calls.items() if method == "GET" and code == 200)
    assert stored > 0 and read > 0, calls
