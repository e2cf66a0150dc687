"""Helpers for testing graphs the way graphengine tests its own.

async def test_my_graph_is_deterministic():
    final = await engine.run("t1", State())
    await assert_replays(engine, "t1")
"""

from __future__ import annotations

from typing import Any

from ._replay import ReplayReport
from .engine import Engine

__all__ = ["assert_replays"]


async def assert_replays(
    engine: Engine[Any], run_id: str, *, allow_graph_change: bool = False
) -> ReplayReport:
    """Replay `run_id` and fail with the divergence report unless every step replays identically."""
    report = await engine.replay(run_id, allow_graph_change=allow_graph_change)
    if not report.ok:
        raise AssertionError(str(report))
    return report
