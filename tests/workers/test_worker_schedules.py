"""A worker fires the store's schedules through its queue: each fire's run is queued, driven once, done."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta

import asyncpg  # type: ignore[import-untyped]
import pytest
from db_servers import POSTGRES_DSN, require_worker_servers, unique_name
from schedule_graph import Job, build

from graphengine import RunExistsError, run_id_for
from graphengine.store import PostgresStore, RunRecord, RunStatus
from graphengine.workers import RunQueue, queue_starter, serve


async def _drop(queue: str) -> None:
    conn = await asyncpg.connect(POSTGRES_DSN)
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {queue} CASCADE")
        if await conn.fetchval("SELECT to_regclass('procrastinate_jobs') IS NOT NULL"):
            await conn.execute("DELETE FROM procrastinate_jobs WHERE queue_name = $1", queue)
    finally:
        await conn.close()


async def _done_runs(store: PostgresStore, n: int) -> list[RunRecord]:
    """The done runs once there are at least `n` (within 30 s)."""
    for _ in range(300):
        done = await store.list_runs(status=RunStatus.DONE)
        if len(done) >= n:
            return done
        await asyncio.sleep(0.1)
    raise AssertionError(f"fewer than {n} scheduled runs done after 30 s")


async def test_worker_fires_schedules_through_the_queue() -> None:
    """`workers.serve` runs a scheduler: a 0.3 s schedule's fires become queued runs the worker drives to done."""
    require_worker_servers("postgres")
    queue = unique_name("wsched")
    try:
        async with PostgresStore(POSTGRES_DSN, schema=queue, max_size=4) as store:
            g = build(store)
            start = datetime.now(UTC) + timedelta(seconds=0.5)
            await g.schedule(
                "w", every=timedelta(milliseconds=300), start_at=start, input=Job(), overlap="allow"
            )
            worker = asyncio.create_task(
                serve(g, queue_dsn=POSTGRES_DSN, queue=queue, ttl=2, install_signal_handlers=False)
            )
            try:
                done = await _done_runs(store, 3)
            finally:
                worker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await worker
            first = int(start.timestamp() * 1000)
            ids = {r.run_id for r in done}
            assert run_id_for("w", first) in ids
            assert ids <= {run_id_for("w", first + 300 * k) for k in range(200)}
    finally:
        await _drop(queue)


async def test_queue_starter_queues_a_run_stored_but_never_queued() -> None:
    """A fire whose run was stored by a scheduler that died before queueing it gets a job, and still reads as taken."""
    require_worker_servers("postgres")
    queue = unique_name("wsched")
    try:
        async with PostgresStore(POSTGRES_DSN, schema=queue, max_size=4) as store:
            g = build(store)
            async with RunQueue(POSTGRES_DSN, queue=queue) as rq:
                await g.run("s@2030-01-01T00:00:00Z", Job())  # stored, never queued
                start = queue_starter(g, rq)
                with pytest.raises(RunExistsError):
                    await start("s@2030-01-01T00:00:00Z", Job())
                with pytest.raises(RunExistsError):
                    await start("s@2030-01-01T00:00:00Z", Job())  # the queueing lock: still one job
                jobs = await rq.app.job_manager.list_jobs_async(queue=queue)
                assert [j.task_kwargs for j in jobs] == [{"run_id": "s@2030-01-01T00:00:00Z"}]
    finally:
        await _drop(queue)
