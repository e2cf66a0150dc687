"""The step writer of the server stores: step writes go over one connection held out of the pool,
given back on close, none held by a pool of one, and replaced when the server ends it.

The server itself ends the writer's session (PostgreSQL's `pg_terminate_backend`, MySQL's `KILL
CONNECTION`) from a second connection, and the test waits until the server no longer lists it.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import pytest
from db_servers import MYSQL_DSN, POSTGRES_DSN, server_store
from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, Options, goto, stop
from graphengine.store import (
    MySQLStore,
    PostgresStore,
    RunRecord,
    RunStatus,
    StepConflictError,
    StepRecord,
    StoreError,
)

SERVERS = ["postgres", "mysql"]
ServerStore = PostgresStore | MySQLStore


def _step(run_id: str, step: int) -> StepRecord:
    return StepRecord(run_id, step, "n", b"d", '"n"', ts=1.0)


def _writer_id(s: ServerStore) -> int:
    """The server's id of the store's writer connection (backend pid, connection id)."""
    assert s._writer is not None
    return int(s._writer.get_server_pid() if isinstance(s, PostgresStore) else s._writer.thread_id())


async def _kill_and_wait(s: ServerStore, conn_id: int) -> None:
    """End the server session `conn_id` from another connection, and wait until the server no
    longer lists it (its socket is shut before it leaves the list)."""
    for _ in range(1000):  # generous: a loaded server ends it within a few polls
        if not await _still_there(s, conn_id, kill=_ == 0):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"server session {conn_id} outlived its end")


async def _still_there(s: ServerStore, conn_id: int, *, kill: bool) -> bool:
    if isinstance(s, PostgresStore):
        import asyncpg

        pg = await asyncpg.connect(POSTGRES_DSN)
        try:
            if kill:
                assert await pg.fetchval("SELECT pg_terminate_backend($1)", conn_id)
            return bool(await pg.fetchval("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", conn_id))
        finally:
            await pg.close()
    import asyncmy

    url = urlsplit(MYSQL_DSN)
    my = await asyncmy.connect(host=url.hostname, port=url.port or 3306, user=url.username or "root")
    try:
        async with my.cursor() as cur:
            if kill:
                await cur.execute("KILL CONNECTION %s", (conn_id,))
            await cur.execute("SELECT count(*) FROM information_schema.PROCESSLIST WHERE ID = %s", (conn_id,))
            return bool((await cur.fetchone())[0])
    finally:
        my.close()


@pytest.mark.parametrize("server", SERVERS)
async def test_steps_go_over_one_held_connection_given_back_on_close(
    monkeypatch: pytest.MonkeyPatch, server: str
) -> None:
    """Every step write of a store uses the same server connection (no pool round trip per step),
    reads still get other connections, and closing the store gives the writer back, so the pool
    closes politely instead of being terminated."""
    import graphengine.store._sql._pool as pool_mod

    terminated: list[object] = []
    monkeypatch.setattr(pool_mod, "terminate", terminated.append)
    async with server_store(server) as s:
        await s.create_run(RunRecord("r", RunStatus.RUNNING, b"x"))
        ids = set()
        for step in range(1, 4):
            await s.save_step(_step("r", step))
            ids.add(_writer_id(s))
        assert len(ids) == 1
        assert [st.step for st in await s.load_steps("r")] == [1, 2, 3]
        await s.close()
        assert s._writer is None
    assert terminated == []


# MySQL only: a PostgreSQL server ending a session sends an error message before its end of
# stream, and a write that catches the connection between the two fails (at most one write:
# `test_a_writer_the_server_ends_costs_at_most_one_write`).
ENDS_QUIETLY = ["mysql"]


@pytest.mark.parametrize("server", ENDS_QUIETLY)
async def test_a_writer_the_server_ended_between_two_steps_is_replaced(server: str) -> None:
    """The server ending the writer's session while it is idle costs no write: the next step sees
    the closed connection before sending anything and goes over a new one."""
    async with server_store(server) as s:
        await s.create_run(RunRecord("r", RunStatus.RUNNING, b"x"))
        await s.save_step(_step("r", 1))
        ended = _writer_id(s)
        await _kill_and_wait(s, ended)
        await s.save_step(_step("r", 2))
        assert _writer_id(s) != ended
        await s.save_step(_step("r", 3))
        assert [st.step for st in await s.load_steps("r")] == [1, 2, 3]


@pytest.mark.parametrize("server", SERVERS)
async def test_a_writer_the_server_ends_costs_at_most_one_write(server: str) -> None:
    """The server ending the writer's session, the next write not waiting for it to be gone, fails
    at most that write (a `StoreError`, nothing written; which one depends on how much of the
    goodbye the client has read), and the write after it gets a new connection."""
    async with server_store(server) as s:
        await s.create_run(RunRecord("r", RunStatus.RUNNING, b"x"))
        await s.save_step(_step("r", 1))
        await _still_there(s, _writer_id(s), kill=True)
        failures: list[StoreError] = []
        while True:
            try:
                await s.save_step(_step("r", 2))
                break
            except StoreError as exc:
                failures.append(exc)
                assert len(failures) == 1
        assert not any(isinstance(f, StepConflictError) for f in failures)
        await s.save_step(_step("r", 3))
        assert [st.step for st in await s.load_steps("r")] == [1, 2, 3]


@pytest.mark.parametrize("server", SERVERS)
async def test_a_write_cancelled_in_flight_leaves_the_store_writing(server: str) -> None:
    """A step write cancelled while its statement is on the wire either committed or not; the
    store then takes the next write (the writer went back to the pool, which waits out the cancel
    or drops the connection)."""
    async with server_store(server) as s:
        await s.create_run(RunRecord("r", RunStatus.RUNNING, b"x"))
        await s.save_step(_step("r", 1))
        task = asyncio.ensure_future(s.save_step(_step("r", 2)))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        stored = [st.step for st in await s.load_steps("r")]
        assert stored in ([1], [1, 2])
        nxt = stored[-1] + 1
        await s.save_step(_step("r", nxt))
        with pytest.raises(StepConflictError):
            await s.save_step(_step("r", nxt))  # the same step again: refused as before
        assert [st.step for st in await s.load_steps("r")] == [*stored, nxt]


class _Count(BaseModel):
    n: int = 0


@pytest.mark.parametrize("server", ENDS_QUIETLY)
async def test_a_run_whose_writer_is_killed_between_two_steps_finishes(server: str) -> None:
    """A node has the server end the writer's session in the middle of a run on the engine: the
    run finishes, with every step stored once, in order."""
    ended: list[int] = []
    async with server_store(server) as s:

        async def inc(ctx: Context, st: _Count) -> NodeResult[_Count]:
            if st.n == 3 and not ended:
                ended.append(_writer_id(s))
                await _kill_and_wait(s, ended[0])
            return NodeResult(delta=_Count(n=st.n + 1))

        def check(ctx: Context, st: _Count) -> NodeResult[_Count]:
            return NodeResult(route=stop()) if st.n >= 6 else NodeResult(route=goto("inc"))

        g = Engine(_Count, store=s, options=Options(max_steps=50))
        g.add("inc", inc).add("check", check).start_at("inc").connect("inc", "check")
        assert (await g.run("r", _Count())).n == 6
        run = await s.get_run("r")
        assert run is not None and run.status is RunStatus.DONE
        assert [st.step for st in await s.load_steps("r")] == list(range(1, 13))
        assert ended and _writer_id(s) != ended[0]


@pytest.mark.parametrize("server", SERVERS)
async def test_a_pool_of_one_holds_no_writer(server: str) -> None:
    """With `max_size=1` no connection is held for steps: reads and step writes share the one
    connection, concurrently, and no second connection is opened."""
    async with server_store(server) as owner:
        s: ServerStore
        if isinstance(owner, PostgresStore):
            s = PostgresStore(owner.dsn, schema=owner.schema, max_size=1)
        else:
            s = MySQLStore(urlsplit(MYSQL_DSN)._replace(path=f"/{owner.database}").geturl(), max_size=1)
        async with s:
            await s.create_run(RunRecord("r", RunStatus.RUNNING, b"x"))
            await s.create_run(RunRecord("q", RunStatus.RUNNING, b"x"))
            await asyncio.gather(
                *(s.save_step(_step(r, step)) for step in (1, 2) for r in ("r", "q")),
                s.get_run("r"),
                s.load_steps("q"),
            )
            assert s._writer is None
            pool = await s._db()
            assert (pool.get_size() if isinstance(s, PostgresStore) else pool.size) == 1
            assert [st.step for st in await s.load_steps("r")] == [1, 2]
            assert [st.step for st in await s.load_steps("q")] == [1, 2]
