"""Schedules in real time: an interval of 0.3 s, a restart of a real process, three schedulers on PostgreSQL."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from db_servers import postgres_schema
from schedule_graph import Job, build

from graphengine import Scheduler, run_id_for
from graphengine.store import PostgresStore, RunStatus, SQLiteStore

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
EVERY_MS = 300


def fire_times(run_ids: list[str], schedule_id: str) -> list[int]:
    """The fire times (ms) the run ids name, checked against `run_id_for`."""
    out = []
    for rid in run_ids:
        stamp = rid.split("@", 1)[1].rstrip("Z")
        t = datetime.fromisoformat(stamp).replace(tzinfo=UTC)
        ms = int(t.timestamp() * 1000)
        assert run_id_for(schedule_id, ms) == rid
        out.append(ms)
    return sorted(out)


async def test_interval_of_300ms_fires_in_real_time(tmp_path: Path) -> None:
    """A 0.3 s schedule served by a Scheduler in real time starts a run per 0.3 s, each finished."""
    async with SQLiteStore(tmp_path / "s.db") as store:
        g = build(store)
        start = datetime.now(UTC) + timedelta(seconds=0.3)
        await g.schedule("rt", every=timedelta(milliseconds=EVERY_MS), start_at=start, input=Job())
        async with Scheduler(g, poll=0.05) as sch:
            await asyncio.sleep(1.45)
        await sch.wait_runs()
        runs = [r.run_id for r in await store.list_runs(limit=100)]
        times = fire_times(runs, "rt")
        assert 3 <= len(times) <= 5
        assert all(b - a == EVERY_MS for a, b in itertools.pairwise(times))
        assert times[0] == int(start.timestamp() * 1000)
        # cancelled by close() or done: every run the scheduler started was stored and driven
        statuses = {rec.status for rec in await store.list_runs(limit=100)}
        assert statuses <= {RunStatus.DONE, RunStatus.CANCELLED}


def _start(db: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT), str(TESTS)])}
    proc = subprocess.Popen(
        [sys.executable, str(TESTS / "schedule_process.py"), str(db)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


@pytest.mark.xfail(
    strict=False,
    reason="open bug (issue 45): once in about five runs under load a fire time near the SIGKILL was "
    "never run (a gap in the grid after the restart); the crash-recovery of fires marked starting "
    "needs a look",
)
async def test_restarted_process_continues_the_schedule_without_double_firing(tmp_path: Path) -> None:
    """A scheduler process SIGKILLed and started again continues the grid: each fire time runs once, none is lost
    within the catch-up window, and the fired counter equals the runs stored."""
    db = tmp_path / "s.db"
    first = _start(db)
    await asyncio.sleep(1.4)
    first.send_signal(signal.SIGKILL)
    first.wait()
    async with SQLiteStore(db) as store:
        before = fire_times([r.run_id for r in await store.list_runs(limit=1000)], "tick")
    await asyncio.sleep(0.7)  # down across fire times (within the 10 s catch-up window: all caught up)
    second = _start(db)
    try:
        await asyncio.sleep(1.2)
    finally:
        second.send_signal(signal.SIGKILL)
        second.wait()
    async with SQLiteStore(db) as store:
        after = fire_times([r.run_id for r in await store.list_runs(limit=1000)], "tick")
        s = build(store)
        sched = await s.get_schedule("tick")
    assert len(before) >= 2 and after[: len(before)] == before
    # one run per grid point from the first to the last: nothing fired twice, nothing skipped
    assert after == list(range(after[0], after[-1] + 1, EVERY_MS))
    assert len(after) > len(before) + 2
    assert sched.fired == len(after) and sched.missed == 0 and sched.skipped == 0


@pytest.mark.usefixtures("postgres_up")
async def test_three_schedulers_on_postgres_fire_each_time_once() -> None:
    """Three schedulers with their own PostgreSQL connections, racing in real time, create each fire's run once."""
    async with postgres_schema() as schema:
        from db_servers import POSTGRES_DSN

        stores = [PostgresStore(POSTGRES_DSN, schema=schema, min_size=1, max_size=2) for _ in range(3)]
        try:
            engines = [build(s) for s in stores]
            start = datetime.now(UTC) + timedelta(seconds=0.3)
            await engines[0].schedule(
                "race", every=timedelta(milliseconds=200), start_at=start, input=Job(), overlap="allow"
            )
            schedulers = [Scheduler(g, poll=0.02) for g in engines]
            for sch in schedulers:
                sch.start()
            await asyncio.sleep(1.6)
            for sch in schedulers:
                await sch.close()
            runs = [r.run_id for r in await stores[0].list_runs(limit=1000)]
            times = fire_times(runs, "race")
            assert len(times) >= 5
            assert times == list(range(times[0], times[-1] + 1, 200))
            sched = await engines[0].get_schedule("race")
            assert sched.fired == len(times)
        finally:
            for s in stores:
                await s.close()
