"""Commits whose outcome the store did not hear, and writes held up by another session's lock.

- A step's COMMIT reaches the server but its reply is lost (a TCP proxy between the store and
  PostgreSQL/MariaDB resets the connection instead of forwarding the reply): the store recognises
  its own stored step (every field as sent) instead of reporting a conflict, and a step another
  writer stored is still a conflict.
- Another session holds one run's row locked (`SELECT ... FOR UPDATE` in an open transaction):
  the store's write of that run fails in bounded time (`lock_timeout`) with the typed transient
  error, the other runs of its group commit, and the run goes on once the lock is gone.
- A task cancelled while its step is in a group commit in flight: it returns only once the
  step's fate is decided, and a resume goes on from what committed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

import pytest
from db_servers import (
    MYSQL_DSN,
    POSTGRES_DSN,
    mysql_database,
    postgres_schema,
    require_mysql,
    require_postgres,
)
from lossy_proxy import LossyProxy
from pydantic import BaseModel
from store_writes import make_runs, save_all, step

from graphengine import Context, Engine, NodeResult, append, goto, stop
from graphengine.store import (
    MemoryStore,
    MySQLStore,
    PostgresStore,
    RunRecord,
    RunStatus,
    SQLiteStore,
    StepConflictError,
    Store,
    StoreUnavailableError,
)

SERVERS = ["postgres", "mysql"]
# Generous: only a hang would reach it.
TIMEOUT = 60.0


def _with_port(dsn: str, port: int) -> str:
    url = urlsplit(dsn)
    netloc = url.netloc.rpartition("@")
    auth = netloc[0] + "@" if netloc[1] else ""
    return url._replace(netloc=f"{auth}127.0.0.1:{port}").geturl()


@asynccontextmanager
async def stores(server: str, **options: Any) -> AsyncIterator[tuple[Store, Store, LossyProxy]]:
    """A store reaching `server` through a `LossyProxy`, and a second store on the same database
    reaching it directly (the oracle's view: what the database holds)."""
    if server == "postgres":
        require_postgres()
        url = urlsplit(POSTGRES_DSN)
    else:
        require_mysql()
        url = urlsplit(MYSQL_DSN)
    proxy = LossyProxy(url.hostname or "127.0.0.1", url.port or 0, server)
    port = await proxy.start()
    try:
        if server == "postgres":
            async with (
                postgres_schema() as schema,
                PostgresStore(_with_port(POSTGRES_DSN, port), schema=schema, max_size=4, **options) as s,
                PostgresStore(POSTGRES_DSN, schema=schema, max_size=2, **options) as direct,
            ):
                yield s, direct, proxy
        else:
            async with (
                mysql_database() as dsn,
                MySQLStore(_with_port(dsn, port), max_size=4, **options) as s,
                MySQLStore(dsn, max_size=2, **options) as direct,
            ):
                yield s, direct, proxy
    finally:
        await proxy.close()


# ------------------------------------------------------------------------ lost replies to commits


@pytest.mark.parametrize("server", SERVERS)
async def test_a_lone_steps_commit_whose_reply_is_lost_is_recognised_as_its_own(server: str) -> None:
    """A run writing alone: its step's commit is applied but the reply is lost. `save_step`
    returns (the step is ours, stored once), and the run writes its next steps as usual."""
    async with stores(server) as (store, direct, proxy):
        await make_runs(store, ["r"])
        proxy.arm()
        await asyncio.wait_for(store.save_step(step("r", 1)), TIMEOUT)
        assert proxy.lost == 1
        for n in (2, 3):
            await asyncio.wait_for(store.save_step(step("r", n)), TIMEOUT)
        assert list(await direct.load_steps("r")) == [step("r", n) for n in (1, 2, 3)]


@pytest.mark.parametrize("conflict", [False, True], ids=["all-ours", "one-theirs"])
@pytest.mark.parametrize("server", SERVERS)
async def test_a_group_commit_whose_reply_is_lost_reports_no_spurious_conflict(
    server: str, conflict: bool
) -> None:
    """50 runs' steps commit in one group whose reply is lost: each `save_step` returns, each
    step is stored once as sent. With a 51st step another writer had already stored (its own
    record), that one alone is a `StepConflictError` and the other writer's step stays."""
    async with stores(server) as (store, direct, proxy):
        ids = [f"r{i}" for i in range(50)]
        await make_runs(store, [*ids, "shared"])
        theirs = step("shared", 1, node_id="theirs", ts=5.0)
        recs = [step(r, 1) for r in ids]
        if conflict:
            await direct.save_step(theirs)
            recs.append(step("shared", 1, node_id="ours"))
        proxy.arm()
        outcomes = await save_all(store, recs)
        assert proxy.lost == 1
        assert outcomes[:50] == [None] * 50
        if conflict:
            assert isinstance(outcomes[50], StepConflictError), outcomes[50]
            assert list(await direct.load_steps("shared")) == [theirs]
        for rec in recs[:50]:
            assert list(await direct.load_steps(rec.run_id)) == [rec]
        # Every run goes on at its next step.
        nxt = [step(r, 2) for r in ids]
        assert await save_all(store, nxt) == [None] * 50


class Count(BaseModel):
    """A run's state: the nodes it went through."""

    seen: Annotated[list[int], append] = []


class Gate:
    """Holds every run's first step until `open` is set; `all_in` is set once `runs` wait there
    (each run was created, so only step and status writes are left)."""

    def __init__(self, runs: int) -> None:
        self.runs = runs
        self.open = asyncio.Event()
        self.all_in = asyncio.Event()

    async def enter(self) -> None:
        self.runs -= 1
        if self.runs <= 0:
            self.all_in.set()
        await self.open.wait()


def counting(store: Store, gate: Gate, last: int) -> Engine[Count]:
    """A loop of `last` steps whose first step waits at `gate`."""

    async def work(ctx: Context, s: Count) -> NodeResult[Count]:
        if not s.seen:
            await gate.enter()
        n = len(s.seen) + 1
        return NodeResult(delta=Count(seen=[n]), route=stop() if n >= last else goto("work"))

    return Engine(Count, store=store).add("work", work).start_at("work")


@pytest.mark.parametrize("skip", [0, 3])
@pytest.mark.parametrize("server", SERVERS)
async def test_runs_whose_step_commit_reply_is_lost_end_correct(server: str, skip: int) -> None:
    """Twenty engine runs on a store whose connection loses the reply to one step commit (the
    first group's, or a later one): every run ends `done` with the state of a run on a store that
    never lost anything, and the database holds each step once."""
    ids = [f"r{i}" for i in range(20)]
    free = Gate(0)
    free.open.set()
    oracle = await counting(MemoryStore(), free, 6).run("o", Count())
    async with stores(server) as (store, direct, proxy):
        gate = Gate(len(ids))
        g = counting(store, gate, 6)
        runs = asyncio.gather(*(g.run(r, Count()) for r in ids))
        await asyncio.wait_for(gate.all_in.wait(), TIMEOUT)
        proxy.arm(skip)
        gate.open.set()
        finals = await asyncio.wait_for(runs, TIMEOUT)
        assert proxy.lost == 1
        assert finals == [oracle] * len(ids)
        for r in ids:
            run = await direct.get_run(r)
            assert run is not None and run.status is RunStatus.DONE
            assert [s.step for s in await direct.load_steps(r)] == [1, 2, 3, 4, 5, 6]


# ------------------------------------------------------------------------ a row locked by another session


@asynccontextmanager
async def row_locked(store: Store, run_id: str) -> AsyncIterator[Any]:
    """Another session holds `run_id`'s run row (`SELECT ... FOR UPDATE` in an open transaction,
    as an operator's would) until the block ends; then it rolls back. Yields its connection."""
    if isinstance(store, PostgresStore):
        import asyncpg

        conn = await asyncpg.connect(POSTGRES_DSN, server_settings={"search_path": store.schema})
        try:
            await conn.execute("BEGIN")
            assert await conn.fetch("SELECT 1 FROM runs WHERE run_id = $1 FOR UPDATE", run_id)
            yield conn
            await conn.execute("ROLLBACK")
        finally:
            await conn.close()
        return
    import asyncmy

    assert isinstance(store, MySQLStore)
    url = urlsplit(MYSQL_DSN)
    my = await asyncmy.connect(
        host=url.hostname, port=url.port or 3306, user=url.username or "root", db=store.database
    )
    try:
        async with my.cursor() as cur:
            await cur.execute("BEGIN")
            assert await cur.execute("SELECT 1 FROM runs WHERE run_id = %s FOR UPDATE", (run_id,)) == 1
            yield my
            await cur.execute("ROLLBACK")
    finally:
        my.close()


@asynccontextmanager
async def server_store(server: str, **options: Any) -> AsyncIterator[Store]:
    """A store on `server` (no proxy)."""
    async with stores(server, **options) as (_, direct, _proxy):
        yield direct


@pytest.mark.parametrize("server", SERVERS)
async def test_a_locked_run_row_fails_its_own_step_in_bounded_time_and_no_other(server: str) -> None:
    """Another session holds one run's row locked while 20 runs commit a step together: the 19
    others commit, the locked run's `save_step` fails with `StoreUnavailableError` once
    `lock_timeout` passed (nothing stored, the run still `running`), later groups without it
    commit, and once the lock is gone the same step commits."""
    async with stores(server, lock_timeout=1) as (store, _, _proxy):
        ids = [f"r{i}" for i in range(20)]
        await make_runs(store, ids)
        async with row_locked(store, "r5"):
            recs = [step(r, 1) for r in ids]
            outcomes = await save_all(store, recs)
            assert isinstance(outcomes[5], StoreUnavailableError), outcomes[5]
            assert (outcomes[5].run_id, outcomes[5].step) == ("r5", 1)
            assert outcomes[:5] + outcomes[6:] == [None] * 19
            others = [step(r, 2) for r in ids if r != "r5"]
            assert await save_all(store, others) == [None] * 19
            run = await store.get_run("r5")
            assert run is not None and run.status is RunStatus.RUNNING
            assert list(await store.load_steps("r5")) == []
        await asyncio.wait_for(store.save_step(recs[5]), TIMEOUT)
        assert list(await store.load_steps("r5")) == [recs[5]]
        for r in ids:
            assert len(await store.load_steps(r)) == (1 if r == "r5" else 2)


@pytest.mark.parametrize("server", SERVERS)
async def test_an_engine_run_whose_row_is_locked_stays_resumable_and_the_others_finish(server: str) -> None:
    """Ten engine runs on one store, one of whose rows another session locks once every run was
    created: nine end `done`; the locked one fails with `StoreUnavailableError` and stays
    `running`; resumed after the lock is gone, it ends with the state of an undisturbed run."""
    free = Gate(0)
    free.open.set()
    oracle = await counting(MemoryStore(), free, 4).run("o", Count())
    async with server_store(server, lock_timeout=1) as store:
        ids = [f"r{i}" for i in range(10)]
        gate = Gate(len(ids))
        g = counting(store, gate, 4)
        runs = asyncio.gather(*(g.run(r, Count()) for r in ids), return_exceptions=True)
        await asyncio.wait_for(gate.all_in.wait(), TIMEOUT)
        async with row_locked(store, "r3"):
            gate.open.set()
            finals = await asyncio.wait_for(runs, TIMEOUT)
            assert isinstance(finals[3], StoreUnavailableError), finals[3]
            assert finals[:3] + finals[4:] == [oracle] * 9
            run = await store.get_run("r3")
            assert run is not None and run.status is RunStatus.RUNNING
        assert await asyncio.wait_for(g.resume("r3"), TIMEOUT) == oracle
        for r in ids:
            assert [s.step for s in await store.load_steps(r)] == [1, 2, 3, 4]


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "5", True])
def test_lock_timeout_must_be_positive_seconds_or_none(bad: object) -> None:
    """`lock_timeout` is checked when the store is made (no server needed)."""
    for make in (
        lambda: PostgresStore(POSTGRES_DSN, lock_timeout=bad),  # type: ignore[arg-type]
        lambda: MySQLStore(MYSQL_DSN, lock_timeout=bad),  # type: ignore[arg-type]
    ):
        with pytest.raises(ValueError, match="lock_timeout"):
            make()
    assert PostgresStore(POSTGRES_DSN, lock_timeout=None).lock_timeout is None
    assert MySQLStore(MYSQL_DSN, lock_timeout=2).lock_timeout == 2.0


# ------------------------------------------------------------------------ cancelled while its group commits


@asynccontextmanager
async def cancel_store(backend: str, tmp_path: Path) -> AsyncIterator[Store]:
    if backend == "sqlite":
        async with SQLiteStore(tmp_path / "s.db") as s:
            yield s
    else:
        async with server_store(backend, lock_timeout=60) as s:
            yield s


@pytest.mark.parametrize("turns", [0, 1, 2, 3, 5, 8])
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_run_cancelled_while_its_step_commits_resumes_from_what_committed(
    backend: str, turns: int, tmp_path: Path
) -> None:
    """Ten runs write their steps together; one is cancelled `turns` loop turns after they set
    off (its step queued, in the group being written, or committed). Resumed at once on the same
    store, it ends with the state of an undisturbed run, each step stored once; the others end
    undisturbed."""
    free = Gate(0)
    free.open.set()
    oracle = await counting(MemoryStore(), free, 4).run("o", Count())
    async with cancel_store(backend, tmp_path) as store:
        ids = [f"r{i}" for i in range(10)]
        gate = Gate(len(ids))
        g = counting(store, gate, 4)
        tasks = [asyncio.ensure_future(g.run(r, Count())) for r in ids]
        await asyncio.wait_for(gate.all_in.wait(), TIMEOUT)
        gate.open.set()
        for _ in range(turns):
            await asyncio.sleep(0)
        tasks[2].cancel()
        finals = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), TIMEOUT)
        assert isinstance(finals[2], asyncio.CancelledError)
        assert finals[:2] + finals[3:] == [oracle] * 9
        assert await asyncio.wait_for(g.resume("r2"), TIMEOUT) == oracle
        for r in ids:
            assert [s.step for s in await store.load_steps(r)] == [1, 2, 3, 4]
            run = await store.get_run(r)
            assert run is not None and run.status is RunStatus.DONE


async def test_a_save_step_cancelled_in_a_group_in_flight_ends_once_its_step_committed() -> None:
    """PostgreSQL: a group of ten steps waits for a row another session holds; one waiter is
    cancelled meanwhile. Its `save_step` does not end while the group is in flight (the step may
    still commit); once the lock is gone the group commits, the cancelled call raises
    `CancelledError`, and its step is stored, whole and once: a resume reads it."""
    async with server_store("postgres", lock_timeout=60) as store:
        assert isinstance(store, PostgresStore)
        ids = [f"r{i}" for i in range(10)]
        await make_runs(store, ids)
        recs = [step(r, 1) for r in ids]
        async with row_locked(store, "r5") as side:
            tasks = [asyncio.ensure_future(store.save_step(r)) for r in recs]
            pid = side.get_server_pid()
            blocked = "SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))"
            while not await side.fetchval(blocked, pid):
                assert not any(t.done() for t in tasks)
                await asyncio.sleep(0.01)
            tasks[2].cancel()
            for _ in range(20):
                await asyncio.sleep(0)
            assert not tasks[2].done()  # the group holding its step is still in flight
        outcomes = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), TIMEOUT)
        assert isinstance(outcomes[2], asyncio.CancelledError)
        assert outcomes[:2] + outcomes[3:] == [None] * 9
        for rec in recs:
            assert list(await store.load_steps(rec.run_id)) == [rec]
        await store.save_step(step("r2", 2))
        assert [s.step for s in await store.load_steps("r2")] == [1, 2]


# ------------------------------------------------------------------------ lost replies to run writes


@pytest.mark.parametrize("many", [1, 20], ids=["alone", "group"])
@pytest.mark.parametrize("server", SERVERS)
async def test_new_runs_and_status_changes_whose_reply_is_lost_are_recognised(server: str, many: int) -> None:
    """`create_run` and a compare-and-set `set_status` whose commit is applied but whose reply is
    lost (alone, or in a group of 20, which both servers group): each call returns as if
    the reply had come, the records read back as written, and no `RunExistsError` or
    `StatusConflictError` is reported for the store's own write."""
    async with stores(server) as (store, direct, proxy):
        ids = [f"r{i}" for i in range(many)]
        recs = [RunRecord(r, RunStatus.RUNNING, b"{}", meta=b'{"k": 1}') for r in ids]
        proxy.arm(what="run")
        coro = asyncio.gather(*(store.create_run(r) for r in recs))
        await asyncio.wait_for(coro, TIMEOUT)
        assert proxy.lost == 1
        for rec in recs:
            got = await direct.get_run(rec.run_id)
            assert got is not None and (got.status, got.meta) == (RunStatus.RUNNING, b'{"k": 1}')
        proxy.arm(what="status")
        coro = asyncio.gather(
            *(
                store.set_status(
                    r, RunStatus.FAILED, error="boom", expect_status=RunStatus.RUNNING, expect_step=0
                )
                for r in ids
            )
        )
        await asyncio.wait_for(coro, TIMEOUT)
        assert proxy.lost == 2
        for r in ids:
            got = await direct.get_run(r)
            assert got is not None and (got.status, got.error) == (RunStatus.FAILED, "boom")
