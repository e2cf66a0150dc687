"""Group commit under attack: one bad member among many healthy runs, the database failing mid-group,
cancellation, and other writers on the same database (SQLite files, PostgreSQL, MariaDB).

The promise checked throughout: a step is acknowledged only after its own commit (nothing reported
done is missing from the database), one step's failure is that step's own typed `StoreError`, and
every healthy step of the same group commits and reads back exactly.
"""

from __future__ import annotations

import asyncio
import resource
import signal
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiosqlite
import pytest
from db_servers import (
    MYSQL_DSN,
    POSTGRES_DSN,
    mysql_database,
    require_mysql,
    server_store,
)
from store_writes import make_runs, save_all, step

from graphengine.store import (
    LeaseLostError,
    MySQLStore,
    PostgresStore,
    RunRecord,
    RunStatus,
    SQLiteStore,
    StepConflictError,
    StepRecord,
    Store,
    StoreError,
    StoreUnavailableError,
)

# Generous: only a hang would reach it.
TIMEOUT = 30.0


async def assert_truthful(store: Store, recs: Sequence[StepRecord], outcomes: Sequence[object]) -> None:
    """Every step reported saved reads back exactly; every step that failed is absent."""
    for rec, outcome in zip(recs, outcomes, strict=True):
        stored = {s.step: s for s in await store.load_steps(rec.run_id)}
        if outcome is None:
            assert stored.get(rec.step) == rec, f"step {rec.step} of {rec.run_id} was reported saved"
        else:
            assert isinstance(outcome, StoreError), repr(outcome)
            assert rec.step not in stored or stored[rec.step] != rec, f"{rec.run_id}: failed but stored"


# ------------------------------------------------------------------------ one bad member of a group

BAD_VALUES = {
    # str(exc) of an error decoded with surrogateescape (a file name, a subprocess's output)
    "lone surrogate in error": {"error": "cannot read b'\\xe9': \udce9"},
    "lone surrogate in node id": {"node_id": "n\ud800"},
    "attempt over 64 bits": {"attempt": 2**64},
}


@pytest.mark.parametrize("bad", list(BAD_VALUES), ids=list(BAD_VALUES))
async def test_a_value_no_backend_can_store_fails_alone_with_a_store_error(
    sql_store: Store, bad: str
) -> None:
    """A step holding a value the database cannot take fails with `StoreError` naming its run and
    step (not the driver's raw exception), alone or in a group of 100; the healthy steps of its
    group commit, and the bad run stays readable and writable with good values."""
    ids = [f"r{i}" for i in range(100)]
    await make_runs(sql_store, ids)
    recs = [step(r, 1) for r in ids]
    recs[7] = recs[7]._replace(**BAD_VALUES[bad])  # type: ignore[arg-type]
    outcomes = await save_all(sql_store, recs)
    assert isinstance(outcomes[7], StoreError)
    assert (outcomes[7].run_id, outcomes[7].step) == ("r7", 1)
    assert outcomes[:7] + outcomes[8:] == [None] * 99
    await assert_truthful(sql_store, recs, outcomes)
    # Alone (a run writing by itself takes another path on every backend).
    alone = step("r8", 2, **BAD_VALUES[bad])
    with pytest.raises(StoreError) as caught:
        await asyncio.wait_for(sql_store.save_step(alone), TIMEOUT)
    assert (caught.value.run_id, caught.value.step) == ("r8", 2)
    await sql_store.save_step(step("r7", 1))
    assert [s.step for s in await sql_store.load_steps("r7")] == [1]
    run = await sql_store.get_run("r7")
    assert run is not None and run.status is RunStatus.RUNNING


async def test_a_step_over_the_servers_packet_limit_fails_alone_and_the_pool_stays_usable() -> None:
    """MariaDB closes a connection that sends a packet over `max_allowed_packet`: the oversized step
    fails with a `StoreError` naming the limit, alone and in a group, and neither a healthy step of
    its group nor the next statement of the pool inherits the closed connection."""
    require_mysql()
    async with mysql_database() as dsn, MySQLStore(dsn, max_size=2) as store:
        async with side_connection(store) as side:
            limit = await side.scalar("SELECT @@max_allowed_packet")
        ids = [f"r{i}" for i in range(100)]
        await make_runs(store, ids)
        recs = [step(r, 1) for r in ids]
        recs[1] = recs[1]._replace(state=b"z" * (limit + 1))
        outcomes = await save_all(store, recs)
        assert isinstance(outcomes[1], StoreError)
        assert "max_allowed_packet" in str(outcomes[1])
        assert outcomes[:1] + outcomes[2:] == [None] * 99
        with pytest.raises(StoreError, match="max_allowed_packet"):
            await store.save_step(recs[1])
        for run_id in ids[:10]:  # both of the pool's connections serve again
            run = await store.get_run(run_id)
            assert run is not None and run.run_id == run_id
        recs[1] = step("r1", 1)
        await store.save_step(recs[1])
        await assert_truthful(store, recs, [None] * 100)


async def test_a_run_deleted_while_its_step_waits_in_a_group_leaves_nothing_behind(sql_store: Store) -> None:
    """A run deleted while its step is on its way to the database: the step is refused
    (`StepConflictError`) or went in before the delete took it with the run; either way no step
    outlives its run (the id can be created afresh), and the other runs of the group commit."""
    ids = [f"r{i}" for i in range(100)]
    await make_runs(sql_store, ids)
    doomed = ids[::10]
    recs = [step(r, 1) for r in ids]
    results = await asyncio.wait_for(
        asyncio.gather(
            save_all(sql_store, recs), *(sql_store.delete_run(r) for r in doomed), return_exceptions=True
        ),
        TIMEOUT,
    )
    outcomes = results[0]
    assert isinstance(outcomes, list)
    assert results[1:] == [True] * len(doomed)
    for rec, outcome in zip(recs, outcomes, strict=True):
        if rec.run_id in doomed:
            assert outcome is None or isinstance(outcome, StepConflictError), outcome
            assert await sql_store.load_latest(rec.run_id) is None
            assert list(await sql_store.load_steps(rec.run_id)) == []
            await sql_store.create_run(RunRecord(rec.run_id, RunStatus.RUNNING, b"{}"))
        else:
            assert outcome is None
    await assert_truthful(sql_store, [r for r in recs if r.run_id not in doomed], [None] * 90)


# ------------------------------------------------------------------------ cancellation


@pytest.mark.parametrize("turns", [0, 1, 2, 5])
async def test_cancelled_waiters_of_a_group_neither_lie_nor_block_the_others(
    sql_store: Store, turns: int
) -> None:
    """Tasks cancelled while their steps wait in (or are being written by) a group: they raise
    `CancelledError` and nothing else; every other step of the group commits; once the store has
    written a later group, each cancelled run holds its step whole or not at all, and goes on from
    what committed."""
    ids = [f"r{i}" for i in range(100)]
    await make_runs(sql_store, ids)
    victims = set(ids[3::7])
    recs = [step(r, 1) for r in ids]
    tasks = [asyncio.ensure_future(sql_store.save_step(r)) for r in recs]
    for _ in range(turns):
        await asyncio.sleep(0)  # lets the group form and start, by as many loop turns
    for rec, task in zip(recs, tasks, strict=True):
        if rec.run_id in victims:
            task.cancel()
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), TIMEOUT)
    for rec, task in zip(recs, tasks, strict=True):
        if rec.run_id not in victims:
            assert task.exception() is None
        elif not task.cancelled():
            assert task.exception() is None  # finished before the cancellation reached it
    # A later group of the others: the store wrote (or dropped) the cancelled steps before it.
    others = [step(r, 2) for r in ids if r not in victims]
    assert await save_all(sql_store, others) == [None] * len(others)
    for run_id in victims:
        stored = list(await sql_store.load_steps(run_id))
        assert stored in ([], [step(run_id, 1)])
        await sql_store.save_step(step(run_id, len(stored) + 1))
        assert [s.step for s in await sql_store.load_steps(run_id)] == list(range(1, len(stored) + 2))
    await assert_truthful(sql_store, others, [None] * len(others))


# ------------------------------------------------------------------------ a transaction of the store's own


@pytest.mark.parametrize("has_snapshot", [False, True], ids=["refused", "deleted"])
async def test_pruning_one_run_neither_undoes_nor_holds_back_other_runs_steps(
    tmp_path: Path, has_snapshot: bool
) -> None:
    """`delete_steps_before` opens a transaction on the connection every other write of the store
    also uses: steps of other runs saved while it is open must not join it, so its rollback (a
    step without a snapshot) cannot undo steps already reported saved. Checked from a second
    connection, which sees only what was committed."""
    path = tmp_path / "s.db"
    async with SQLiteStore(path) as store, SQLiteStore(path) as reader:
        await make_runs(store, ["p", *(f"r{i}" for i in range(50))])
        for n in (1, 2, 3):
            await store.save_step(step("p", n, state=b"S" if has_snapshot else None))
        recs = [step(f"r{i}", 1) for i in range(50)]
        # Some writes come in right before the transaction opens, the rest while it is open.
        prune = asyncio.ensure_future(store.delete_steps_before("p", 2))
        outcomes = await save_all(store, recs)
        pruned = await asyncio.wait_for(asyncio.gather(prune, return_exceptions=True), TIMEOUT)
        if has_snapshot:
            assert pruned == [1]
        else:
            assert isinstance(pruned[0], StoreError)
        assert outcomes == [None] * 50
        await assert_truthful(reader, recs, outcomes)
        assert [s.step for s in await reader.load_steps("p")] == ([2, 3] if has_snapshot else [1, 2, 3])


# ------------------------------------------------------------------------ the database failing mid-group


async def test_a_constraint_the_database_enforces_fails_its_step_alone(sql_store: Store) -> None:
    """A trigger refusing one step (a rule the database enforces, set up behind the store's back)
    fails that step with `StoreError`; the other 99 steps of its group commit."""
    await make_runs(sql_store, [f"r{i}" for i in range(100)])
    await side_sql(sql_store, TRIGGERS[type(sql_store).__name__])
    recs = [step(f"r{i}", 1, node_id="forbidden" if i == 42 else "n1") for i in range(100)]
    outcomes = await save_all(sql_store, recs)
    assert isinstance(outcomes[42], StoreError)
    assert outcomes[:42] + outcomes[43:] == [None] * 99
    await assert_truthful(sql_store, recs, outcomes)


@pytest.mark.parametrize("server", ["postgres", "mysql"])
async def test_a_connection_killed_mid_group_loses_no_reported_step(server: str) -> None:
    """A group is held up by another transaction holding one of its rows, and the server kills the
    store's connection while the group waits (pg_terminate_backend / KILL): no step is reported
    saved that is not in the database, nothing hangs, and every run goes on from what committed."""
    async with server_store(server) as store:
        ids = [f"r{i}" for i in range(100)]
        await make_runs(store, ids)
        async with side_connection(store) as side, side_connection(store) as killer:
            # Another transaction writes r5's step 1 and waits: the group's insert of it queues behind.
            insert = "INSERT INTO steps (run_id, step, node_id, route, attempt, ts) VALUES ('r5', 1, 's', '\"x\"', 1, 1.0)"
            recs, group, waiting = await group_waiting_on(side, killer, insert, ids)
            await killer.kill(waiting)
            await side.run("ROLLBACK")
            outcomes = await asyncio.wait_for(group, TIMEOUT)
        assert all(o is None or isinstance(o, StoreError) for o in outcomes), outcomes
        await assert_truthful(store, recs, outcomes)
        # Every run goes on from what was committed.
        nxt = [step(r, len(await store.load_steps(r)) + 1) for r in ids]
        assert await save_all(store, nxt) == [None] * 100
        await assert_truthful(store, nxt, [None] * 100)


@pytest.mark.parametrize("server", ["postgres", "mysql"])
async def test_a_lease_taken_over_while_its_group_waits_fences_that_step_alone(server: str) -> None:
    """Another worker takes one run's lease over while this store's group of 100 leased runs waits
    for that run's row: once the takeover commits, the group re-checks the token and refuses that
    step alone (`LeaseLostError`, nothing written); the other 99 commit."""
    async with server_store(server) as store:
        assert isinstance(store, PostgresStore | MySQLStore)
        ids = [f"r{i}" for i in range(100)]
        await make_runs(store, ids)
        for run_id in ids:
            assert await store.claim(run_id, "me", 60.0) is not None
        async with side_connection(store) as side, side_connection(store) as watcher:
            takeover = (
                "UPDATE runs SET lease_owner = 'thief', lease_token = lease_token + 1 WHERE run_id = 'r5'"
            )
            recs, group, _ = await group_waiting_on(side, watcher, takeover, ids)
            await side.run("COMMIT")
            outcomes = await asyncio.wait_for(group, TIMEOUT)
        assert isinstance(outcomes[5], LeaseLostError)
        assert outcomes[:5] + outcomes[6:] == [None] * 99
        await assert_truthful(store, recs, outcomes)


async def test_a_file_locked_past_busy_timeout_fails_the_group_at_once(tmp_path: Path) -> None:
    """Another process holding SQLite's write lock past `busy_timeout` fails every step of a group
    with `StoreUnavailableError` after one wait, not one wait per step (100 steps x 0.5 s would
    outlast the test's timeout); once the lock is gone the same steps commit."""
    path = tmp_path / "s.db"
    async with SQLiteStore(path, busy_timeout=0.5) as store:
        ids = [f"r{i}" for i in range(100)]
        await make_runs(store, ids)
        blocker = sqlite3.connect(path, isolation_level=None)
        try:
            blocker.execute("BEGIN IMMEDIATE")
            recs = [step(r, 1) for r in ids]
            outcomes = await save_all(store, recs)
            blocker.execute("ROLLBACK")
        finally:
            blocker.close()
        assert all(isinstance(o, StoreUnavailableError) for o in outcomes), outcomes
        assert {(o.run_id, o.step) for o in outcomes if isinstance(o, StoreError)} == {(r, 1) for r in ids}
        await assert_truthful(store, recs, outcomes)
        assert await save_all(store, recs) == [None] * 100


def largest_file(folder: Path) -> int:
    return max(p.stat().st_size for p in folder.iterdir())


async def test_a_full_disk_fails_steps_truthfully_and_the_store_recovers(tmp_path: Path) -> None:
    """Writes failing at the file system (the file size limit reached, as a full disk would) fail
    every step with `StoreUnavailableError`, in a group and alone; nothing failed is stored, the
    file stays intact, and once there is room again the runs go on from what committed."""
    path = tmp_path / "s.db"
    async with SQLiteStore(path) as store, SQLiteStore(path) as reader:
        ids = [f"r{i}" for i in range(100)]
        await make_runs(store, ids)
        await store.save_step(step("r0", 1))
        limit = largest_file(tmp_path)  # the WAL: the next frame appended to it fails
        recs = [step(r, 2 if r == "r0" else 1, state=b"x" * 5000) for r in ids]
        old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of death
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
        try:
            outcomes = await save_all(store, recs)
            with pytest.raises(StoreUnavailableError):
                await store.save_step(step("r1", 1, state=b"y" * 50_000))
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
            signal.signal(signal.SIGXFSZ, old_handler)
        assert all(isinstance(o, StoreUnavailableError) for o in outcomes), outcomes
        await assert_truthful(reader, recs, outcomes)
        assert await save_all(store, recs) == [None] * 100
        await assert_truthful(reader, recs, [None] * 100)
        async with aiosqlite.connect(path) as conn:
            assert list(await conn.execute_fetchall("PRAGMA integrity_check")) == [("ok",)]


# ------------------------------------------------------------------------ two writers on one database


def second_store(store: Store) -> Store:
    """Another store object on the same database (another process, as far as the database goes)."""
    if isinstance(store, SQLiteStore):
        return SQLiteStore(store.path)
    if isinstance(store, PostgresStore):
        return PostgresStore(store.dsn, schema=store.schema, max_size=4)
    assert isinstance(store, MySQLStore)
    return MySQLStore(urlsplit(MYSQL_DSN)._replace(path=f"/{store.database}").geturl(), max_size=4)


async def test_two_stores_on_one_database_group_commit_side_by_side(sql_store: Store) -> None:
    """Two store objects (two pools or connections, as two processes have) group-commit 100 runs
    each on one database at the same time, five rounds of steps plus, in every round, both writing
    the same step of a shared run: every step of their own runs commits, and of each shared step
    exactly one writer wins (`StepConflictError` for the other)."""
    other = second_store(sql_store)
    try:
        mine, theirs = [f"a{i}" for i in range(100)], [f"b{i}" for i in range(100)]
        await make_runs(sql_store, [*mine, *theirs, "shared"])
        written: list[StepRecord] = []
        for n in range(1, 6):
            a = [step(r, n) for r in mine] + [step("shared", n, node_id="a")]
            b = [step(r, n) for r in theirs] + [step("shared", n, node_id="b")]
            got_a, got_b = await asyncio.gather(save_all(sql_store, a), save_all(other, b))
            assert got_a[:-1] == [None] * 100 and got_b[:-1] == [None] * 100
            shared = [got_a[-1], got_b[-1]]
            assert shared.count(None) == 1, shared
            assert all(o is None or isinstance(o, StepConflictError) for o in shared), shared
            written += [*a[:-1], *b[:-1], a[-1] if got_a[-1] is None else b[-1]]
        await assert_truthful(sql_store, written, [None] * len(written))
    finally:
        await other.close()


# ------------------------------------------------------------------------ a second connection to the database

TRIGGERS = {
    "SQLiteStore": [
        """CREATE TRIGGER refuse BEFORE INSERT ON steps WHEN NEW.node_id = 'forbidden'
        BEGIN SELECT RAISE(ABORT, 'forbidden node'); END"""
    ],
    "PostgresStore": [
        """CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.node_id = 'forbidden' THEN RAISE EXCEPTION 'forbidden node'; END IF; RETURN NEW; END $$""",
        "CREATE TRIGGER refuse BEFORE INSERT ON steps FOR EACH ROW EXECUTE FUNCTION refuse()",
    ],
    "MySQLStore": [
        """CREATE TRIGGER refuse BEFORE INSERT ON steps FOR EACH ROW
        BEGIN IF NEW.node_id = 'forbidden' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'forbidden node';
        END IF; END"""
    ],
}


class Side:
    """A connection of its own to a store's database (another process's, in effect)."""

    def __init__(self, store: Store, conn: Any) -> None:
        self.store = store
        self.conn = conn

    async def run(self, sql: str) -> None:
        if isinstance(self.store, SQLiteStore | PostgresStore):
            await self.conn.execute(sql)
        else:
            async with self.conn.cursor() as cur:
                await cur.execute(sql)

    async def scalar(self, sql: str) -> Any:
        """The one value `sql` selects (MySQL only)."""
        async with self.conn.cursor() as cur:
            await cur.execute(sql)
            return (await cur.fetchone())[0]

    async def blocked_by(self, side: Side) -> list[int]:
        """The server ids of this store's connections waiting for a lock `side` holds."""
        if isinstance(self.store, PostgresStore):
            rows = await self.conn.fetch(
                "SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
                side.conn.get_server_pid(),
            )
            return [int(row[0]) for row in rows]
        # MariaDB: its step inserts that are still running (they wait: `side` holds their row).
        async with self.conn.cursor() as cur:
            await cur.execute(
                "SELECT id FROM information_schema.processlist WHERE db = %s AND id NOT IN (%s, %s) "
                "AND info LIKE 'INSERT INTO steps%%' AND time_ms > 100",
                (self.store.database, side.conn.thread_id(), self.conn.thread_id()),  # type: ignore[attr-defined]
            )
            return [int(row[0]) for row in await cur.fetchall()]

    async def wait_blocked_by(self, side: Side, group: asyncio.Future[Any]) -> list[int]:
        """Poll the server until some of this store's connections wait for `side`'s lock."""
        while not group.done():
            pids = await self.blocked_by(side)
            if pids:
                return pids
            await asyncio.sleep(0.01)
        raise AssertionError(f"the group ended without waiting for the lock: {group.result()}")

    async def kill(self, pids: list[int]) -> None:
        if isinstance(self.store, PostgresStore):
            await self.conn.execute("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", pids)
            return
        async with self.conn.cursor() as cur:
            for pid in pids:
                await cur.execute("KILL %s", (pid,))


@asynccontextmanager
async def side_connection(store: Store) -> AsyncIterator[Side]:
    if isinstance(store, SQLiteStore):
        async with aiosqlite.connect(store.path, isolation_level=None) as conn:
            yield Side(store, conn)
    elif isinstance(store, PostgresStore):
        import asyncpg

        conn = await asyncpg.connect(POSTGRES_DSN, server_settings={"search_path": store.schema})
        try:
            yield Side(store, conn)
        finally:
            await conn.close()
    else:
        import asyncmy

        assert isinstance(store, MySQLStore)
        url = urlsplit(MYSQL_DSN)
        conn = await asyncmy.connect(
            host=url.hostname,
            port=url.port or 3306,
            user=url.username or "root",
            password=url.password or "",
            db=store.database,
            autocommit=True,
        )
        try:
            yield Side(store, conn)
        finally:
            conn.close()


async def group_waiting_on(
    side: Side, watcher: Side, sql: str, ids: Sequence[str]
) -> tuple[list[StepRecord], asyncio.Future[list[BaseException | None]], list[int]]:
    """`side` opens a transaction and runs `sql` (taking a row the group needs), then step 1 of
    every run in `ids` is saved as one group. Returns once `watcher` sees the group wait for
    `side`: the steps, the group in flight, and the server ids of its waiting connections."""
    await side.run("BEGIN")
    await side.run(sql)
    recs = [step(r, 1) for r in ids]
    group = asyncio.ensure_future(save_all(side.store, recs))
    return recs, group, await watcher.wait_blocked_by(side, group)


async def side_sql(store: Store, statements: Sequence[str]) -> None:
    async with side_connection(store) as side:
        for sql in statements:
            await side.run(sql)
