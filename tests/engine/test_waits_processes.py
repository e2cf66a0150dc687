"""Durable waits across real processes: SIGKILL, restarts and races (`tests/waits_graph.py`).

- SQLite, no queue: `graphengine worker waits_graph:build --store sqlite:///...` runs the embedded
  timer waker. A worker SIGKILLed before a run's due time, and a new one started after it, wakes
  the run; three workers racing on one due timer run the woken node once.
- PostgreSQL with the queue: the run waits for a signal; its worker is SIGKILLed; the signal is
  sent (its wake-up job queued through `RunQueue.waker()`); a new worker finishes the run.

Each node execution appends a line to a side log, so "ran once" is counted, not assumed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from db_servers import POSTGRES_DSN, require_worker_servers, unique_name
from waits_graph import NapState, build

from graphengine.store import PostgresStore, RunStatus, SQLiteStore, Store

ROOT = Path(__file__).resolve().parents[2]


def _env(side: Path, **extra: str) -> dict[str, str]:
    # This checkout's src first: the venv's graphengine may be another checkout's.
    return dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests"), str(ROOT)]),
        GRAPHENGINE_TEST_SIDE_LOG=str(side),
        **extra,
    )


def _worker(
    tmp: Path, n: int, store_url: str, side: Path, *args: str, **extra: str
) -> subprocess.Popen[bytes]:
    err = tmp / f"worker{n}.err"
    cmd = [sys.executable, "-m", "graphengine", "worker", "waits_graph:build", "--store", store_url, *args]
    with err.open("wb") as fh:
        return subprocess.Popen(cmd, cwd=ROOT, env=_env(side, **extra), stdout=fh, stderr=fh)


def _execs(side: Path) -> list[tuple[int, str, int, str]]:
    """(pid, run, step, phase) of every node execution logged."""
    if not side.exists():
        return []
    out = []
    for line in side.read_text().splitlines():
        _, pid, run, step, phase = line.split()
        out.append((int(pid), run, int(step), phase))
    return out


async def _until(what: str, cond: Callable[[], Awaitable[bool]], seconds: float, tmp: Path) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await cond():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what}{_logs(tmp)}")


def _logs(tmp: Path) -> str:
    """The end of what each worker process wrote (for a failure message)."""
    return "".join(f"\n--- {p.name}:\n{p.read_text()[-1500:]}" for p in sorted(tmp.glob("worker*.err")))


def _kill(*procs: subprocess.Popen[bytes]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)


async def _status(store: Store, run_id: str) -> RunStatus | None:
    run = await store.get_run(run_id)
    return None if run is None else run.status


async def test_a_worker_killed_before_the_due_time_and_a_new_one_started_after_it_wakes_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGKILL the SQLite worker while a run sleeps; a worker started after the due time finishes the run once."""
    side, db = tmp_path / "side.log", tmp_path / "runs.db"
    monkeypatch.setenv("GRAPHENGINE_TEST_SIDE_LOG", str(side))
    url = f"sqlite:///{db}"
    first = _worker(tmp_path, 1, url, side, GRAPHENGINE_TEST_NAP="1.0")
    try:
        async with SQLiteStore(db) as store:
            eng = build(store)
            await eng.run("r1", NapState())  # commits and waits 1 s
            assert await _status(store, "r1") is RunStatus.WAITING
            _kill(first)  # down across the due time
            await asyncio.sleep(1.3)
            assert await _status(store, "r1") is RunStatus.WAITING
            second = _worker(tmp_path, 2, url, side, GRAPHENGINE_TEST_NAP="1.0")
            try:

                async def done() -> bool:
                    return await _status(store, "r1") is RunStatus.DONE

                await _until("the run to finish", done, 30, tmp_path)
                assert (await eng.get_state("r1")).done == ["woke"]
            finally:
                _kill(second)
    finally:
        _kill(first)
    execs = _execs(side)
    assert [(e[2], e[3]) for e in execs] == [(1, "before"), (2, "after")]
    assert execs[1][0] == second.pid


async def test_three_sqlite_workers_racing_on_a_due_timer_run_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three worker processes on one SQLite file wake 20 runs due at the same moment: each woken node runs once."""
    side, db = tmp_path / "side.log", tmp_path / "runs.db"
    monkeypatch.setenv("GRAPHENGINE_TEST_SIDE_LOG", str(side))
    monkeypatch.setenv("GRAPHENGINE_TEST_NAP", "1.5")
    url = f"sqlite:///{db}"
    runs = [f"r{i}" for i in range(20)]
    async with SQLiteStore(db) as store:
        eng = build(store)
        for r in runs:
            await eng.run(r, NapState())
        procs = [_worker(tmp_path, n, url, side, GRAPHENGINE_TEST_NAP="1.5") for n in range(3)]
        try:

            async def all_done() -> bool:
                return all([await _status(store, r) is RunStatus.DONE for r in runs])

            await _until("every run to finish", all_done, 60, tmp_path)
        finally:
            _kill(*procs)
    woken = [e for e in _execs(side) if e[3] == "after"]
    assert sorted(e[1] for e in woken) == sorted(runs)  # once each
    assert all(e[2] == 2 for e in woken)


async def test_a_signal_sent_while_the_worker_is_killed_is_received_by_the_next_worker(
    tmp_path: Path,
) -> None:
    """PostgreSQL + queue: the run waits for a signal, its worker is SIGKILLed, the signal is sent; a new worker finishes it."""
    require_worker_servers("postgres")
    from graphengine.workers import RunQueue

    side = tmp_path / "side.log"
    queue = unique_name("waits")
    os.environ["GRAPHENGINE_TEST_SIDE_LOG"] = str(side)
    extra = {"GRAPHENGINE_TEST_NAP": "0.1", "GRAPHENGINE_TEST_WAIT_SIGNAL": "1"}
    os.environ.update(extra)
    try:
        async with PostgresStore(POSTGRES_DSN, schema=queue, max_size=4) as store:
            url = f"{POSTGRES_DSN}?schema={queue}"
            args = ("--queue-dsn", POSTGRES_DSN, "--queue", queue, "--ttl", "2")
            async with RunQueue(POSTGRES_DSN, queue=queue) as rq:
                eng = build(store)
                eng.waker = rq.waker()
                first = _worker(tmp_path, 1, url, side, *args, **extra)
                try:
                    await rq.submit(eng, "r1", NapState())

                    async def waiting_for_signal() -> bool:
                        t = await store.get_timer("r1")
                        return (
                            await _status(store, "r1") is RunStatus.WAITING
                            and t is not None
                            and t.signal == "go"
                        )

                    await _until("the run to wait for its signal", waiting_for_signal, 60, tmp_path)
                    _kill(first)
                    sig = await eng.signal("r1", "go", {"ok": True}, id="delivery-7")
                    again = await eng.signal("r1", "go", {"ok": False}, id="delivery-7")  # a retried webhook
                    assert again == sig
                    second = _worker(tmp_path, 2, url, side, *args, **extra)
                    try:

                        async def done() -> bool:
                            return await _status(store, "r1") is RunStatus.DONE

                        await _until("the run to finish", done, 60, tmp_path)
                    finally:
                        _kill(second)
                finally:
                    _kill(first)
                assert (await eng.get_state("r1")).done == ["woke", "signal:{'ok': True}"]
                assert [(s.id, s.taken_step) for s in await eng.signals("r1")] == [("delivery-7", 3)]
            await _drop(queue)
    finally:
        for k in ("GRAPHENGINE_TEST_SIDE_LOG", *extra):
            os.environ.pop(k, None)


async def _drop(queue: str) -> None:
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(POSTGRES_DSN)
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {queue} CASCADE")
        if await conn.fetchval("SELECT to_regclass('procrastinate_jobs') IS NOT NULL"):
            await conn.execute("DELETE FROM procrastinate_jobs WHERE queue_name = $1", queue)
    finally:
        await conn.close()
