"""A cancel at any point of a short run never leaves it `running` on PostgreSQL or MySQL.

A cancel that lands while the run's row is being inserted, or while its final status is written,
used to leave the row `running` (the server committed the write the cancelled client gave up on),
with no live driver. Many runs are cancelled after a seeded random number of loop turns; every
run stored must end in a status that is not `running`. Counts only, no wall-clock asserts.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import TypedDict

import pytest

from graphengine import Context, Engine, NodeResult, stop
from graphengine.store import RunStatus
from tests.db_servers import server_store


class T(TypedDict, total=False):
    """A one-field state."""

    n: int


async def one(ctx: Context, s: T) -> NodeResult[T]:
    return NodeResult(delta={"n": 1}, route=stop())


@pytest.mark.parametrize("server", ["postgres", "mysql"])
async def test_early_cancels_leave_no_run_running(server: str) -> None:
    """160 runs cancelled at random early points: none is left `running`."""
    seed = 48
    rnd = random.Random(seed)
    async with server_store(server) as store:
        g: Engine[T] = Engine(T, store=store)
        g.add("one", one).start_at("one")
        for i in range(160):
            task = asyncio.create_task(g.run(f"r{i}", {}))
            for _ in range(rnd.randrange(0, 60)):
                await asyncio.sleep(0)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        left = await store.list_runs(status=RunStatus.RUNNING, limit=1000)
        assert [r.run_id for r in left] == [], f"seed {seed}"
