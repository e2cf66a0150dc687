"""A pytest plugin that writes each test's outcome to a JSON file (used by ``tests.compat.report``).

Loaded with ``-p compat_outcomes`` from a copy on ``PYTHONPATH``; the file named by the
``GOAP_COMPAT_OUTCOMES`` environment variable receives ``{node id: outcome}`` where outcome is one
of ``passed``, ``failed``, ``skipped``, ``xfailed``, ``xpassed``. A test counts as passed only when
its setup, call and teardown all passed.
"""

from __future__ import annotations

import json
import os
from typing import Any

OUTCOMES_ENV = "GOAP_COMPAT_OUTCOMES"

_outcomes: dict[str, str] = {}
_RANK = {"passed": 0, "skipped": 1, "xfailed": 1, "xpassed": 1, "failed": 2}


def _outcome(report: Any) -> str:
    if hasattr(report, "wasxfail"):
        return "xpassed" if report.passed else "xfailed"
    return str(report.outcome)


def pytest_runtest_logreport(report: Any) -> None:
    """Keep the worst outcome of a test's setup, call and teardown."""
    outcome = _outcome(report)
    if report.when == "teardown" and outcome == "passed":
        return
    previous = _outcomes.get(report.nodeid)
    if previous is None or _RANK.get(outcome, 2) > _RANK.get(previous, 2):
        _outcomes[report.nodeid] = outcome


def pytest_collectreport(report: Any) -> None:
    """A module that fails to collect counts as one failed entry."""
    if report.failed:
        _outcomes[report.nodeid] = "failed"


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    """Write the outcomes where ``GOAP_COMPAT_OUTCOMES`` says."""
    path = os.environ.get(OUTCOMES_ENV)
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(_outcomes, fh, indent=0, sort_keys=True)
