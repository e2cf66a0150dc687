"""What `SQLiteStore` promises beyond the store contract: a real file, its schema, crashes, loops."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import sqlite3
import sys
import textwrap
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiosqlite
import pytest

import graphengine.store.sqlite as sqlite_mod
from graphengine.store import (
    BranchRecord,
    Checkpoint,
    CorruptRecordError,
    RunRecord,
    RunStatus,
    SQLiteStore,
    StepConflictError,
    StepRecord,
    StoreError,
    StoreUnavailableError,
    ValueRefusedError,
)
from graphengine.store.sqlite import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]


def run_rec(run_id: str = "r1") -> RunRecord:
    return RunRecord(run_id, RunStatus.RUNNING, b'{"n":0}', created_at=1.0, updated_at=1.0)


def step_rec(step: int, run_id: str = "r1", state: bytes | None = None) -> StepRecord:
    return StepRecord(run_id, step, "n", f'{{"n":{step}}}'.encode(), '"next"', state=state, ts=float(step))


async def seeded(path: Path, steps: int = 3) -> None:
    """Create run r1 with `steps` steps in the file at `path`, then close it."""
    async with SQLiteStore(path) as s:
        await s.create_run(run_rec())
        for i in range(1, steps + 1):
            await s.save_step(step_rec(i))


def raw(path: Path) -> sqlite3.Connection:
    """A plain stdlib connection in autocommit mode, for reaching under the store."""
    return sqlite3.connect(path, isolation_level=None)


def connection_thread(s: SQLiteStore) -> threading.Thread:
    """The worker thread of the store's current aiosqlite connection."""
    assert s._conn is not None
    thread = s._conn._thread
    assert isinstance(thread, threading.Thread)
    return thread


# ------------------------------------------------------------------------------------ construction


def test_constructor_needs_no_event_loop_and_opens_nothing(tmp_path: Path) -> None:
    """`SQLiteStore(path)` works outside any loop and creates no file until first use."""
    s = SQLiteStore(tmp_path / "runs.db")
    assert not (tmp_path / "runs.db").exists()
    assert repr(s) == f"SQLiteStore({str(tmp_path / 'runs.db')!r})"


def test_unknown_synchronous_setting_is_refused() -> None:
    """A `synchronous` value outside OFF/NORMAL/FULL/EXTRA raises ValueError naming it."""
    with pytest.raises(ValueError, match="'sometimes'"):
        SQLiteStore("x.db", synchronous="sometimes")


async def test_pragmas_are_applied(tmp_path: Path) -> None:
    """The connection runs in WAL mode with the chosen `synchronous`, foreign keys on."""
    async with SQLiteStore(tmp_path / "a.db", synchronous="full") as s:
        conn = s._conn
        assert conn is not None
        assert list(await conn.execute_fetchall("PRAGMA journal_mode")) == [("wal",)]
        assert list(await conn.execute_fetchall("PRAGMA synchronous")) == [(2,)]
        assert list(await conn.execute_fetchall("PRAGMA foreign_keys")) == [(1,)]
    # WAL is a property of the file: a plain connection sees it too.
    with raw(tmp_path / "a.db") as c:
        assert c.execute("PRAGMA journal_mode").fetchone() == ("wal",)


async def test_closed_store_refuses_use(tmp_path: Path) -> None:
    """After `close()` every call raises `StoreUnavailableError`."""
    s = SQLiteStore(tmp_path / "a.db")
    await s.create_run(run_rec())
    await s.close()
    with pytest.raises(StoreUnavailableError, match="closed"):
        await s.get_run("r1")
    with pytest.raises(StoreUnavailableError):
        await s.save_step(step_rec(1))
    await s.close()  # closing twice is harmless


# ------------------------------------------------------------------------------------ durability


async def test_data_survives_close_and_reopen(tmp_path: Path) -> None:
    """Runs, steps and checkpoints written before `close()` are all there after reopening."""
    path = tmp_path / "runs.db"
    async with SQLiteStore(path) as s:
        await s.create_run(run_rec())
        await s.save_step(step_rec(1))
        await s.save_step(step_rec(2, state=b"S2"))
        await s.save_step(step_rec(3))
        await s.save_checkpoint(Checkpoint("r1", "mid", 2, b"S2", ts=9.0))
        await s.set_status("r1", RunStatus.DONE)
        before = (await s.get_run("r1"), list(await s.load_steps("r1")))
    async with SQLiteStore(path) as s:
        assert (await s.get_run("r1"), list(await s.load_steps("r1"))) == before
        assert await s.load_checkpoint("r1", "mid") == Checkpoint("r1", "mid", 2, b"S2", ts=9.0)
        latest = await s.load_latest("r1")
        assert latest is not None
        assert (latest.base_step, latest.last_step) == (2, 3)


def test_store_moves_between_event_loops(tmp_path: Path) -> None:
    """One store serves successive `asyncio.run` calls, reopening its connection for each loop."""
    s = SQLiteStore(tmp_path / "runs.db")

    async def first() -> None:
        await s.create_run(run_rec())
        await s.save_step(step_rec(1))

    async def second() -> list[int]:
        await s.save_step(step_rec(2))
        return [r.step for r in await s.load_steps("r1")]

    asyncio.run(first())
    first_thread = connection_thread(s)
    assert asyncio.run(second()) == [1, 2]
    second_thread = connection_thread(s)
    # The first loop's connection was closed when the second loop took over, not leaked.
    assert second_thread is not first_thread
    first_thread.join(timeout=5)
    assert not first_thread.is_alive()
    asyncio.run(s.close())
    second_thread.join(timeout=5)
    assert not second_thread.is_alive()


def test_a_store_collected_unclosed_ends_its_thread_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store nobody closed, collected while a later event loop runs (one that closes at once),
    ends its connection's thread quietly. aiosqlite's own finalizer gave the thread a future of
    that loop, and about one try in two the thread died on "Event loop is closed"."""
    died: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: died.append(args.exc_value))

    async def collect() -> None:
        gc.collect()  # the store is finalized inside this loop, which asyncio.run then closes

    for i in range(10):  # each try failed with about even odds before
        s = SQLiteStore(tmp_path / f"{i}.db")
        asyncio.run(s.create_run(run_rec()))
        thread = connection_thread(s)
        box: list[Any] = [s]
        box.append(box)  # only the cycle collector frees the store, as with an engine holding it
        del s, box
        asyncio.run(collect())
        thread.join(timeout=30)  # a bound only: the thread has one connection to close
        assert not thread.is_alive()
    assert died == []


async def test_concurrent_first_use_opens_one_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many tasks touching a fresh store at once share one connection."""
    opened: list[object] = []
    real_connect = aiosqlite.connect

    def counting_connect(*args: Any, **kwargs: Any) -> aiosqlite.Connection:
        opened.append(args)
        return real_connect(*args, **kwargs)

    monkeypatch.setattr(aiosqlite, "connect", counting_connect)
    async with SQLiteStore(tmp_path / "a.db") as s:
        pass
    opened.clear()
    s = SQLiteStore(tmp_path / "a.db")
    assert await asyncio.gather(*(s.get_run(f"r{i}") for i in range(20))) == [None] * 20
    assert len(opened) == 1
    await s.close()


async def test_concurrent_tasks_write_different_runs(tmp_path: Path) -> None:
    """Tasks writing different runs at once interleave without losing or misplacing a step."""
    async with SQLiteStore(tmp_path / "a.db") as s:

        async def writer(run_id: str) -> None:
            await s.create_run(run_rec(run_id))
            for i in range(1, 31):
                await s.save_step(step_rec(i, run_id))

        await asyncio.gather(*(writer(f"r{k}") for k in range(12)))
        for k in range(12):
            steps = await s.load_steps(f"r{k}")
            assert [(x.run_id, x.step) for x in steps] == [(f"r{k}", i) for i in range(1, 31)]


async def test_load_latest_is_consistent_while_another_connection_writes(tmp_path: Path) -> None:
    """Reads racing a writer on another connection always see a dense tail ending at `last`."""
    path = tmp_path / "a.db"
    async with SQLiteStore(path) as writer, SQLiteStore(path) as reader:
        await writer.create_run(run_rec())
        done = False

        async def write() -> None:
            nonlocal done
            for i in range(1, 201):
                await writer.save_step(step_rec(i, state=f"S{i}".encode() if i % 7 == 0 else None))
            done = True

        async def read() -> int:
            seen = 0
            while not done:
                latest = await reader.load_latest("r1")
                assert latest is not None
                steps = [latest.base_step, *(t.step for t in latest.tail)]
                assert steps == list(range(latest.base_step, latest.last_step + 1))
                assert latest.base_step == 0 or latest.base_state == f"S{latest.base_step}".encode()
                assert latest.last_step >= seen
                seen = latest.last_step
            return seen

        _, _ = await asyncio.gather(write(), read())


CRASH_WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from graphengine.store import RunRecord, RunStatus, SQLiteStore, StepRecord

    async def main(path):
        s = SQLiteStore(path)
        await s.create_run(RunRecord("crash", RunStatus.RUNNING, b"{}"))
        step = 0
        while True:
            step += 1
            body = bytes([step % 251]) * (1000 + step % 3000)
            state = body * 3 if step % 10 == 0 else None
            await s.save_step(StepRecord("crash", step, "n", body, '"next"', state=state))
            print(step, flush=True)

    asyncio.run(main(sys.argv[1]))
    """
)


@pytest.mark.slow
async def test_steps_survive_sigkill_dense_and_whole(tmp_path: Path) -> None:
    """A writer killed with SIGKILL leaves a dense prefix of whole steps, including every acknowledged one."""
    path = tmp_path / "crash.db"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CRASH_WRITER, str(path), stdout=asyncio.subprocess.PIPE, env=env
    )
    assert proc.stdout is not None
    acknowledged = 0
    try:
        async with asyncio.timeout(60):
            while acknowledged < 300:
                line = await proc.stdout.readline()
                if not line:
                    break
                acknowledged = int(line)
    finally:
        proc.send_signal(signal.SIGKILL)
        await proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert acknowledged >= 300, "the writer did not get going"

    async with SQLiteStore(path) as s:
        steps = await s.load_steps("crash")
        assert [x.step for x in steps] == list(range(1, len(steps) + 1))
        assert len(steps) >= acknowledged
        for x in steps:
            body = bytes([x.step % 251]) * (1000 + x.step % 3000)
            assert x.delta == body
            assert x.state == (body * 3 if x.step % 10 == 0 else None)
        latest = await s.load_latest("crash")
        assert latest is not None
        assert latest.last_step == len(steps)
        # And the run goes on where it stopped.
        await s.save_step(StepRecord("crash", len(steps) + 1, "n", b"", '"stop"'))
    with raw(path) as c:
        assert c.execute("PRAGMA integrity_check").fetchone() == ("ok",)


# ------------------------------------------------------------------------------------ run locks

LOCK_HOLDER = """
import asyncio, sys
from graphengine.store import SQLiteStore
store = SQLiteStore(sys.argv[1])
assert store.lock_run("r")
print("locked", flush=True)
sys.stdin.read()  # until killed
"""


async def test_run_lock_excludes_this_and_other_processes_and_dies_with_its_holder(tmp_path: Path) -> None:
    """`lock_run` refuses a second holder, in this process (another store object on the file) and
    in another process; the lock of a process killed with SIGKILL is gone at once."""
    path = tmp_path / "locks.db"
    async with SQLiteStore(path) as a, SQLiteStore(path) as b:
        assert a.lock_run("r") and not b.lock_run("r") and not a.lock_run("r")
        assert b.lock_run("other run")
        a.unlock_run("r")
        assert b.lock_run("r")
        b.unlock_run("r")
        env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            LOCK_HOLDER,
            str(path),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=env,
        )
        try:
            assert proc.stdout is not None
            async with asyncio.timeout(60):
                assert await proc.stdout.readline() == b"locked\n"
            assert not a.lock_run("r")  # held by the child
        finally:
            proc.send_signal(signal.SIGKILL)
            await proc.wait()
        assert a.lock_run("r")  # the kernel dropped the dead child's lock
        a.unlock_run("r")
    async with SQLiteStore(":memory:") as m:
        assert m.lock_run("r")  # one connection's database: no other process can drive its runs


async def test_a_run_lock_file_that_cannot_be_opened_is_a_typed_error_and_the_run_resumes(
    tmp_path: Path,
) -> None:
    """A `<db>-runlock` that cannot be opened (here a directory of that name) fails `run` with
    `StoreUnavailableError` naming the file; the stored run is `running` with no step, and resumes
    to the end once the file can be made."""
    from pydantic import BaseModel

    from graphengine import Context, Engine, NodeResult, stop

    class S(BaseModel):
        n: int = 0

    async def inc(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(n=s.n + 1), route=stop())

    path = tmp_path / "blocked.db"
    blocker = tmp_path / "blocked.db-runlock"
    blocker.mkdir()
    async with SQLiteStore(path) as store:
        engine = Engine(S, store=store).add("inc", inc).start_at("inc")
        with pytest.raises(StoreUnavailableError, match="blocked.db-runlock"):
            await engine.run("r", S())
        run = await store.get_run("r")
        assert run is not None and run.status is RunStatus.RUNNING
        assert list(await store.load_steps("r")) == []
        blocker.rmdir()
        assert await engine.resume("r") == S(n=1)


# ------------------------------------------------------------------------------------ schema


async def test_schema_version_is_recorded(tmp_path: Path) -> None:
    """A new file carries the current schema version in `PRAGMA user_version`."""
    await seeded(tmp_path / "a.db", steps=0)
    with raw(tmp_path / "a.db") as c:
        assert c.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"runs", "steps", "checkpoints"} <= tables


async def test_older_schema_is_migrated_on_open(tmp_path: Path) -> None:
    """A version-1 file gains the later tables on open and keeps its data."""
    path = tmp_path / "v1.db"
    with raw(path) as c:
        for stmt in sqlite_mod._MIGRATIONS[0]:
            c.execute(stmt)
        c.execute("PRAGMA user_version = 1")
        c.execute("INSERT INTO runs VALUES ('old', 'done', x'00', 'fp', 1, 1.0, 2.0, NULL, NULL, x'7b7d')")
    async with SQLiteStore(path) as s:
        assert await s.get_run("old") == RunRecord(
            "old", RunStatus.DONE, b"\x00", "fp", 1, 1.0, 2.0, None, None, b"{}"
        )
        assert list(await s.load_branches("old", 1)) == []
    with raw(path) as c:
        assert c.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


async def test_newer_schema_version_is_refused(tmp_path: Path) -> None:
    """A file written by a newer schema raises `StoreUnavailableError` naming both versions."""
    await seeded(tmp_path / "a.db")
    with raw(tmp_path / "a.db") as c:
        c.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    s = SQLiteStore(tmp_path / "a.db")
    with pytest.raises(StoreUnavailableError, match=rf"schema version {SCHEMA_VERSION + 5}.*upgrade"):
        await s.get_run("r1")
    with raw(tmp_path / "a.db") as c:  # and it left the file alone
        assert c.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION + 5,)


async def test_snapshot_lookup_uses_the_partial_index(tmp_path: Path) -> None:
    """Finding the newest snapshot reads the partial index of snapshot steps, not the table."""
    await seeded(tmp_path / "a.db")
    with raw(tmp_path / "a.db") as c:
        plan = c.execute("EXPLAIN QUERY PLAN " + sqlite_mod._LOAD_FROM_SNAPSHOT, ("r1", "r1")).fetchall()
    assert any("steps_snapshot" in row[-1] for row in plan), plan


# ------------------------------------------------------------------------------------ hot path


async def test_a_step_alone_is_one_statement_on_the_loop_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's step with no other step waiting is one SQL statement (its own transaction) on the
    loop-thread connection, with no trip to the driver thread."""
    async with SQLiteStore(tmp_path / "a.db") as s:
        await s.create_run(run_rec())
        conn, direct = s._conn, s._direct
        assert conn is not None and direct is not None
        statements: list[str] = []
        direct.set_trace_callback(statements.append)
        hops = 0
        real_execute = conn._execute

        async def counting(fn: Any, *args: Any, **kwargs: Any) -> Any:
            nonlocal hops
            hops += 1
            return await real_execute(fn, *args, **kwargs)  # type: ignore[no-untyped-call]

        monkeypatch.setattr(conn, "_execute", counting)
        await s.save_step(step_rec(1))
        assert hops == 0
        assert len(statements) == 1
        assert statements[0].lstrip().startswith("INSERT INTO steps")
        assert not direct.in_transaction
        assert [r.step for r in await s.load_steps("r1")] == [1]


async def test_steps_of_concurrent_runs_share_one_statement(tmp_path: Path) -> None:
    """Steps of many runs saved at the same moment go in one multi-row statement (one commit),
    and every one of them reads back."""
    async with SQLiteStore(tmp_path / "a.db") as s:
        for i in range(50):
            await s.create_run(run_rec(f"r{i}"))
        conn = s._conn
        assert conn is not None
        statements: list[str] = []
        await conn.set_trace_callback(statements.append)
        await asyncio.gather(*(s.save_step(step_rec(1, run_id=f"r{i}")) for i in range(50)))
        inserts = [x for x in statements if x.lstrip().startswith("INSERT INTO steps")]
        # The other 49 queue during the turn of the loop the first one gives up: one statement.
        assert len(inserts) == 1
        assert inserts[0].count("VALUES") == 1 and inserts[0].count("'r") == 50
        for i in range(50):
            assert [r.step for r in await s.load_steps(f"r{i}")] == [1]


async def test_a_step_waits_for_another_connection_holding_the_write_lock(tmp_path: Path) -> None:
    """When another connection holds the write lock, a step does not fail at once on the loop
    connection: it waits on the thread connection (up to busy_timeout) and commits after."""
    async with SQLiteStore(tmp_path / "a.db", busy_timeout=5.0) as s:
        await s.create_run(run_rec())
        with raw(tmp_path / "a.db") as other:
            other.isolation_level = None
            other.execute("BEGIN IMMEDIATE")
            saving = asyncio.ensure_future(s.save_step(step_rec(1)))
            await asyncio.sleep(0.2)
            assert not saving.done()
            other.execute("COMMIT")
            await asyncio.wait_for(saving, 5)
        assert [r.step for r in await s.load_steps("r1")] == [1]


# ------------------------------------------------------------------------------------ errors


def _corrupt(path: Path, sql: str) -> None:
    with raw(path) as c:
        c.execute(sql)


@contextlib.asynccontextmanager
async def corrupted(tmp_path: Path, sql: str) -> AsyncIterator[SQLiteStore]:
    """A store on a seeded file that `sql` damaged behind its back."""
    await seeded(tmp_path / "a.db")
    _corrupt(tmp_path / "a.db", sql)
    async with SQLiteStore(tmp_path / "a.db") as s:
        yield s


@pytest.mark.parametrize(
    ("sql", "field", "step"),
    [
        ("UPDATE steps SET route = x'00ff' WHERE step = 2", "route", 2),
        ("UPDATE steps SET delta = 'text, not bytes' WHERE step = 2", "delta", 2),
        ("UPDATE steps SET attempt = 'many' WHERE step = 2", "attempt", 2),
        ("UPDATE steps SET state = 42 WHERE step = 2", "state", 2),
        ("UPDATE steps SET events = 'x' WHERE step = 2", "events", 2),
        ("UPDATE runs SET status = 'exploded'", "status", None),
        ("UPDATE runs SET initial = 'text'", "initial", None),
        ("UPDATE runs SET state_version = 1.5", "state_version", None),
    ],
)
async def test_row_with_wrong_values_is_corrupt(
    tmp_path: Path, sql: str, field: str, step: int | None
) -> None:
    """A step row (`step`) or the run row (None) holding a wrong type or an unknown status raises
    `CorruptRecordError` naming run, step and field on every read that meets it."""
    async with corrupted(tmp_path, sql) as s:
        reads: list[Callable[[], Awaitable[Any]]] = [lambda: s.load_latest("r1")]
        reads += [lambda: s.load_steps("r1")] if step is not None else [lambda: s.get_run("r1"), s.list_runs]
        for read in reads:
            with pytest.raises(CorruptRecordError) as info:
                await read()
            assert (info.value.run_id, info.value.step, info.value.field) == ("r1", step, field)
            assert field in str(info.value)
        if step is not None:  # the steps before the bad one are still readable
            assert [x.step for x in await s.load_steps("r1", limit=1)] == [1]


async def test_text_column_with_invalid_utf8_is_corrupt(tmp_path: Path) -> None:
    """A TEXT column holding bytes that are not UTF-8 raises `CorruptRecordError`."""
    async with corrupted(tmp_path, "UPDATE steps SET node_id = CAST(x'ff00fe' AS TEXT) WHERE step = 2") as s:
        with pytest.raises(CorruptRecordError) as info:
            await s.load_steps("r1")
        assert info.value.run_id == "r1"
        assert isinstance(info.value.__cause__, sqlite3.Error)


async def test_checkpoint_row_with_wrong_types_is_corrupt(tmp_path: Path) -> None:
    """A checkpoint row holding a wrong type raises `CorruptRecordError` naming the field."""
    async with SQLiteStore(tmp_path / "a.db") as s:
        await s.create_run(run_rec())
        await s.save_checkpoint(Checkpoint("r1", "a", 1, b"s"))
    _corrupt(tmp_path / "a.db", "UPDATE checkpoints SET state = 'text'")
    async with SQLiteStore(tmp_path / "a.db") as s:
        with pytest.raises(CorruptRecordError) as info:
            await s.load_checkpoint("r1", "a")
        assert (info.value.run_id, info.value.field) == ("r1", "state")


async def test_branch_row_with_wrong_types_is_corrupt(tmp_path: Path) -> None:
    """A branch row holding a wrong type raises `CorruptRecordError` naming run, step and field."""
    async with SQLiteStore(tmp_path / "a.db") as s:
        await s.create_run(run_rec())
        await s.save_branches([BranchRecord("r1", 4, 0, "b", b"d")])
    _corrupt(tmp_path / "a.db", "UPDATE branches SET delta = 'text'")
    async with SQLiteStore(tmp_path / "a.db") as s:
        with pytest.raises(CorruptRecordError) as info:
            await s.load_branches("r1", 4)
        assert (info.value.run_id, info.value.step, info.value.field) == ("r1", 4, "delta")


async def test_too_many_branches_for_one_statement_are_refused_whole(tmp_path: Path) -> None:
    """A batch beyond SQLite's parameter limit raises `StoreError` up front and writes nothing."""
    async with SQLiteStore(tmp_path / "a.db") as s:
        await s.create_run(run_rec())
        with pytest.raises(StoreError, match="several calls"):
            await s.save_branches([BranchRecord("r1", 1, i, "b", None) for i in range(5000)])
        assert list(await s.load_branches("r1", 1)) == []
        await s.save_branches([BranchRecord("r1", 1, i, "b", None) for i in range(4000)])
        assert len(await s.load_branches("r1", 1)) == 4000


async def test_file_that_is_not_a_database_is_unavailable(tmp_path: Path) -> None:
    """Opening a file that is not SQLite raises `StoreUnavailableError` naming the path."""
    path = tmp_path / "notes.db"
    path.write_bytes(b"this is not a database, just some text\n" * 100)
    s = SQLiteStore(path)
    with pytest.raises(StoreUnavailableError, match="notes.db") as info:
        await s.get_run("r1")
    assert isinstance(info.value.__cause__, sqlite3.DatabaseError)
    assert "not a database" in str(info.value)
    await s.close()


async def test_unopenable_path_is_unavailable(tmp_path: Path) -> None:
    """A path whose directory does not exist raises `StoreUnavailableError`."""
    s = SQLiteStore(tmp_path / "missing" / "dir" / "a.db")
    with pytest.raises(StoreUnavailableError) as info:
        await s.get_run("r1")
    assert isinstance(info.value.__cause__, sqlite3.Error)


async def test_write_lock_held_past_busy_timeout_is_unavailable(tmp_path: Path) -> None:
    """A write blocked by another connection's lock for longer than `busy_timeout` raises `StoreUnavailableError`."""
    path = tmp_path / "a.db"
    async with SQLiteStore(path, busy_timeout=0.05) as s:
        await s.create_run(run_rec())
        with raw(path) as other:
            other.execute("BEGIN EXCLUSIVE")
            with pytest.raises(StoreUnavailableError, match="locked") as info:
                await s.save_step(step_rec(1))
            assert (info.value.run_id, info.value.step) == ("r1", 1)
            other.execute("ROLLBACK")
        await s.save_step(step_rec(1))  # nothing was half-written; the step is still the next one
        assert [x.step for x in await s.load_steps("r1")] == [1]


async def test_step_conflict_message_names_the_next_step(tmp_path: Path) -> None:
    """A refused step says which step the run expects next."""
    await seeded(tmp_path / "a.db", steps=2)
    async with SQLiteStore(tmp_path / "a.db") as s:
        with pytest.raises(StepConflictError, match="next step to write is 3"):
            await s.save_step(step_rec(5))


async def test_bad_value_is_a_store_error_not_a_conflict(tmp_path: Path) -> None:
    """A value the schema refuses (NULL route) raises `ValueRefusedError`, not `StepConflictError`."""
    async with SQLiteStore(tmp_path / "a.db") as s:
        await s.create_run(run_rec())
        bad = StepRecord("r1", 1, "n", None, None)  # type: ignore[arg-type]
        with pytest.raises(StoreError, match="NOT NULL") as info:
            await s.save_step(bad)
        assert type(info.value) is ValueRefusedError
        assert isinstance(info.value.__cause__, sqlite3.IntegrityError)
        assert list(await s.load_steps("r1")) == []


def test_translation_table_covers_every_sqlite3_exception() -> None:
    """Every exception class the sqlite3 module defines has an entry in the one translation table."""
    classes = {
        obj for obj in vars(sqlite3).values() if isinstance(obj, type) and issubclass(obj, BaseException)
    }
    assert classes, "sqlite3 defines no exceptions?"
    missing = classes - set(sqlite_mod._TRANSLATE)
    assert not missing, f"unmapped sqlite3 exceptions: {sorted(c.__name__ for c in missing)}"
    for cls in classes:
        err = sqlite_mod._translate(cls("boom"), "read", "SQLiteStore('x')", run_id="r", step=1)
        assert isinstance(err, StoreError)
        assert (err.run_id, err.step) == ("r", 1)


@pytest.mark.parametrize(
    ("exc", "op", "expected"),
    [
        (sqlite3.IntegrityError("UNIQUE constraint failed: runs.run_id"), "create_run", "RunExistsError"),
        (sqlite3.IntegrityError("UNIQUE constraint failed: steps"), "save_step", "StepConflictError"),
        (sqlite3.OperationalError("database is locked"), "read", "StoreUnavailableError"),
        (sqlite3.DatabaseError("file is not a database"), "read", "StoreUnavailableError"),
        (sqlite3.DatabaseError("database disk image is malformed"), "read", "CorruptRecordError"),
        (sqlite3.OperationalError("no such table: steps"), "read", "StoreError"),
        (sqlite3.IntegrityError("NOT NULL constraint failed: steps.route"), "save_step", "ValueRefusedError"),
        (sqlite3.OperationalError("unable to open database file"), "open", "StoreUnavailableError"),
        (sqlite3.ProgrammingError("Cannot operate on a closed database."), "read", "StoreUnavailableError"),
        (sqlite3.OperationalError("Could not decode to UTF-8 column 'x'"), "read", "CorruptRecordError"),
    ],
)
def test_translation_without_result_codes(exc: Exception, op: Any, expected: str) -> None:
    """Exceptions lacking a SQLite result code are still classified by class, operation and message."""
    assert type(sqlite_mod._translate(exc, op, "s")).__name__ == expected


async def test_closing_right_after_a_thousand_direct_commits_logs_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The WAL checkpoint the 1,000th direct commit schedules does not fail (and log a traceback) on close."""
    from store_writes import make_runs, step

    from graphengine.store._sql._sqlite import CHECKPOINT_EVERY

    store = SQLiteStore(tmp_path / "runs.db", synchronous="NORMAL")
    await make_runs(store, ["r"])
    for n in range(1, CHECKPOINT_EVERY + 1):
        await store.save_step(step("r", n))
    assert store._direct_commits >= CHECKPOINT_EVERY, "the steps did not take the direct path"
    with caplog.at_level("WARNING", logger="graphengine"):
        await store.close()
    assert [r.getMessage() for r in caplog.records] == []
    async with SQLiteStore(tmp_path / "runs.db") as again:
        assert len(await again.load_steps("r")) == CHECKPOINT_EVERY
