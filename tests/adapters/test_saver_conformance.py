"""`GraphEngineSaver` passes LangGraph's own checkpointer conformance suite on every table."""

from __future__ import annotations

from pathlib import Path

import pytest
from saver_helpers import TABLES, require_table

pytest.importorskip("langgraph.checkpoint.conformance")

from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import Capability

NOT_MET: dict[str, str] = {}
"""Capabilities of the suite GraphEngineSaver does not meet, each with why (none today).

Every other capability the installed suite knows is run, so a capability a newer suite adds is
checked as soon as it is installed: green when the saver meets it, red (naming it) until it is
met or named here.
"""


@pytest.mark.parametrize("table", list(TABLES))
async def test_conformance_every_capability_of_the_suite(table: str, tmp_path: Path) -> None:
    """Every capability the installed suite has (put, writes, get, list, delete_thread,
    delete_for_runs, copy_thread, prune, delta_channel_history, ...) passes, except those in NOT_MET."""
    require_table(table)
    wanted = {c.value for c in Capability} - NOT_MET.keys()
    registered = checkpointer_test(name=f"GraphEngineSaver[{table}]")(TABLES[table](tmp_path))
    report = await validate(registered, capabilities=wanted)
    results = {cap: report.results.get(cap) for cap in sorted(wanted)}
    unmet = {
        cap: ("not run" if res is None else "not detected" if not res.detected else res.failures)
        for cap, res in results.items()
        if res is None or res.passed is not True
    }
    assert not unmet, unmet
