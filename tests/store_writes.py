"""Step records and group saves the store tests that write many runs at once share; no tests live here."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from graphengine.store import RunRecord, RunStatus, StepRecord, Store

SAVE_TIMEOUT = 60.0
"""Seconds `save_all` waits for its group: generous, only a hang reaches it."""


def step(run_id: str, n: int, **kw: Any) -> StepRecord:
    """Step `n` of `run_id` with fields derived from `n` (a state on step 1 only); `kw` overrides any."""
    fields: dict[str, Any] = {"node_id": f"n{n}", "delta": f'{{"n":{n}}}'.encode(), "route": '"x"'}
    fields |= {"ts": 1000.0 + n, "state": b"S" if n == 1 else None} | kw
    return StepRecord(run_id, n, **fields)


async def make_runs(store: Store, ids: Sequence[str]) -> None:
    """Create a running run for each of `ids`."""
    for run_id in ids:
        await store.create_run(RunRecord(run_id, RunStatus.RUNNING, b"{}"))


async def save_all(store: Store, recs: Sequence[StepRecord]) -> list[BaseException | None]:
    """Save `recs` at the same moment (one group where the backend groups); each one's outcome."""
    coro = asyncio.gather(*(store.save_step(r) for r in recs), return_exceptions=True)
    return list(await asyncio.wait_for(coro, SAVE_TIMEOUT))
