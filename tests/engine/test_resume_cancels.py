"""A cancel landing while `resume` takes ownership of a run (before its first node) leaves the run
in a truthful state: `cancelled`, or as it was (still resumable), never `running` with no driver.

`resume` claims the run (an in-process mark; a lease on PostgreSQL and MySQL, a lock file on
SQLite), reads it, and writes `running` before the first node runs. Each resume here is
cancelled after a seeded random number of event-loop turns, so the cancels land all over those
steps; after each, the run must not be `running`, and a resume that is not cancelled must then
finish it (no lease or lock left behind by the cancelled one). Counts only, no clocks.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypedDict

import pytest

from graphengine import Context, Engine, NodeResult, Options, interrupt, stop
from graphengine.store import MemoryStore, RunStatus, SQLiteStore, Store
from tests.db_servers import server_store


class T(TypedDict, total=False):
    """The answer the paused node got."""

    got: int


async def ask(ctx: Context, s: T) -> NodeResult[T]:
    if not ctx.resumed:
        return NodeResult(route=interrupt("n?"))
    return NodeResult(delta={"got": ctx.resume_input}, route=stop())


@asynccontextmanager
async def a_store(kind: str, tmp_path: Path) -> AsyncIterator[Store]:
    if kind == "memory":
        yield MemoryStore()
    elif kind == "sqlite":
        async with SQLiteStore(tmp_path / "runs.db") as s:
            yield s
    else:
        async with server_store(kind) as s:
            yield s


async def cancelled_after(coro: Any, turns: int) -> None:
    task = asyncio.ensure_future(coro)
    for _ in range(turns):
        if task.done():
            break
        await asyncio.sleep(0)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres", "mysql"])
async def test_a_cancel_during_resumes_ownership_step_leaves_the_run_truthful(
    kind: str, tmp_path: Path
) -> None:
    """60 answers cancelled at random early points: never `running` after; the next answer finishes the run."""
    seed = 4848
    rnd = random.Random(seed)
    async with a_store(kind, tmp_path) as store:
        g: Engine[T] = Engine(T, store=store, options=Options(lease_ttl=30.0))
        g.add("ask", ask).start_at("ask")
        for i in range(60):
            rid = f"r{i}"
            await g.run(rid, {})
            await cancelled_after(g.resume(rid, input=i), rnd.randrange(0, 40))
            rec = await store.get_run(rid)
            assert rec is not None and rec.status is not RunStatus.RUNNING, f"seed {seed}, run {i}: {rec}"
            if rec.status is RunStatus.DONE:
                continue
            # Cancelled or still waiting: the answer is taken again at once (no lease or lock left).
            assert (await g.resume(rid, input=i))["got"] == i
            rec = await store.get_run(rid)
            assert rec is not None and rec.status is RunStatus.DONE


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres", "mysql"])
async def test_a_cancel_while_resuming_a_failed_run_leaves_it_truthful(kind: str, tmp_path: Path) -> None:
    """A resume of a failed run (no lease) cancelled early: never left `running`; the next resume finishes it."""
    seed = 4849
    rnd = random.Random(seed)
    fails: set[str] = set()

    async def flaky(ctx: Context, s: T) -> NodeResult[T]:
        if ctx.run_id not in fails:
            fails.add(ctx.run_id)
            raise RuntimeError("first time")
        return NodeResult(delta={"got": 1}, route=stop())

    async with a_store(kind, tmp_path) as store:
        g: Engine[T] = Engine(T, store=store)
        g.add("flaky", flaky).start_at("flaky")
        for i in range(60):
            rid = f"f{i}"
            with contextlib.suppress(Exception):
                await g.run(rid, {})
            await cancelled_after(g.resume(rid), rnd.randrange(0, 40))
            rec = await store.get_run(rid)
            assert rec is not None and rec.status is not RunStatus.RUNNING, f"seed {seed}, run {i}: {rec}"
            if rec.status is not RunStatus.DONE:
                assert (await g.resume(rid))["got"] == 1


async def bump(ctx: Context, s: T) -> NodeResult[T]:
    return NodeResult(delta={"got": s.get("got", 0) + 1}, route=stop())


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres", "mysql"])
async def test_a_cancel_while_a_turn_or_an_edit_takes_the_run_leaves_it_truthful(
    kind: str, tmp_path: Path
) -> None:
    """`continue_run` and `update_state` cancelled at random early points: never left `running`;
    the run takes the next turn after."""
    seed = 4850
    rnd = random.Random(seed)
    async with a_store(kind, tmp_path) as store:
        g: Engine[T] = Engine(T, store=store)
        g.add("bump", bump).start_at("bump")
        for i in range(40):
            rid = f"c{i}"
            await g.run(rid, {})
            edit = g.update_state(rid, {"got": 10}) if i % 2 else g.continue_run(rid, {"got": 5})
            await cancelled_after(edit, rnd.randrange(0, 40))
            rec = await store.get_run(rid)
            assert rec is not None and rec.status is not RunStatus.RUNNING, f"seed {seed}, run {i}: {rec}"
            await g.continue_run(rid, {"got": 1})
            rec = await store.get_run(rid)
            assert rec is not None and rec.status is RunStatus.DONE
