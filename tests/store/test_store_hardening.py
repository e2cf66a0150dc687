"""Store hardening, on every backend: compare-and-set status writes (and the resume race they
close), byte-exact ids with one rule for all backends, missing steps and orphaned rows reported
as corruption, and prune policies that are refused when they do not say what to keep.
"""

from __future__ import annotations

import asyncio
import math
import sqlite3
import unicodedata
from typing import Any

import pytest
from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, RunBusyError, goto, stop
from graphengine.store import (
    MAX_ID_CHARS,
    Checkpoint,
    CorruptRecordError,
    InvalidIdError,
    InvalidPolicyError,
    MemoryStore,
    MySQLStore,
    PostgresStore,
    PrunePolicy,
    RunRecord,
    RunStatus,
    SQLiteStore,
    StatusConflictError,
    StepRecord,
    Store,
    prune,
)


def _run(run_id: str, status: RunStatus = RunStatus.RUNNING) -> RunRecord:
    return RunRecord(run_id, status, b'{"n":0}', "fp", 1, 1.0, 1.0)


def _step(run_id: str, step: int, *, state: bytes | None = None) -> StepRecord:
    return StepRecord(
        run_id, step, "n", b'{"n":1}', '{"kind":"goto","target":"n"}', state, 1, None, None, None, 2.0
    )


async def _with_steps(store: Store, run_id: str, n: int, *, snapshot_at: tuple[int, ...] = ()) -> None:
    await store.create_run(_run(run_id))
    for i in range(1, n + 1):
        await store.save_step(_step(run_id, i, state=b'{"n":9}' if i in snapshot_at else None))


# ------------------------------------------------------------------------- damage done by hand


async def _raw(store: Store, sql: str, *args: Any, no_fk: bool = False) -> None:
    """Run `sql` on the store's own database, bypassing the store (foreign keys off if `no_fk`):
    what a careless operator or a damaged table does. `?` placeholders, rewritten per driver.
    """
    if isinstance(store, SQLiteStore):
        c = sqlite3.connect(store.path)  # foreign keys are off unless a connection turns them on
        try:
            c.execute(sql, args)
            c.commit()
        finally:
            c.close()
    elif isinstance(store, PostgresStore):
        pool = await store._db()
        n = 0

        def mark(_: Any) -> str:
            nonlocal n
            n += 1
            return f"${n}"

        import re

        pg_sql = re.sub(r"\?", mark, sql)
        async with pool.acquire() as c:
            if no_fk:  # foreign keys are triggers; a replica session does not fire them
                await c.execute("SET session_replication_role = replica")
            try:
                await c.execute(pg_sql, *args)
            finally:
                await c.execute("RESET session_replication_role")
    elif isinstance(store, MySQLStore):
        pool = await store._db()
        async with pool.acquire() as c, c.cursor() as cur:
            if no_fk:
                await cur.execute("SET SESSION foreign_key_checks = 0")
            try:
                await cur.execute(sql.replace("?", "%s"), args)
            finally:
                await cur.execute("SET SESSION foreign_key_checks = 1")
    else:
        raise AssertionError(f"no raw access to {store!r}")


async def _delete_step(store: Store, run_id: str, step: int) -> None:
    if isinstance(store, MemoryStore):
        r = store._runs[run_id]
        r.steps = [s for s in r.steps if s.step != step]
        r.snapshot_index = max((i for i, s in enumerate(r.steps) if s.state is not None), default=-1)
        return
    await _raw(store, "DELETE FROM steps WHERE run_id = ? AND step = ?", run_id, step)


# ------------------------------------------------------------------------- compare-and-set status


async def test_status_write_with_the_step_it_saw_succeeds(store: Store) -> None:
    """A writer whose expected step and status still hold changes the status."""
    await _with_steps(store, "r", 2)
    await store.set_status("r", RunStatus.DONE, expect_step=2, expect_status=RunStatus.RUNNING)
    run = await store.get_run("r")
    assert run is not None and run.status is RunStatus.DONE


async def test_stalled_resumer_cannot_flip_a_finished_run_back(store: Store) -> None:
    """The resumer read step 1 / running; the owner then committed step 2 and marked the run done;
    the resumer's write conditioned on what it read is refused and the run stays done."""
    await _with_steps(store, "r", 1)
    seen = await store.load_latest("r")
    assert seen is not None
    # the owner goes on while the resumer stalls
    await store.save_step(_step("r", 2, state=b'{"n":2}'))
    await store.set_status("r", RunStatus.DONE, expect_step=2)
    with pytest.raises(StatusConflictError) as err:
        await store.set_status(
            "r", RunStatus.RUNNING, expect_step=seen.last_step, expect_status=seen.run.status
        )
    assert err.value.run_id == "r" and err.value.step == 2 and err.value.status == "done"
    run = await store.get_run("r")
    assert run is not None and run.status is RunStatus.DONE


async def test_status_expectation_alone_guards_a_status_change_without_steps(store: Store) -> None:
    """Same step, but the status moved (finished, paused): the stale expectation is refused."""
    await _with_steps(store, "r", 3)
    await store.set_status("r", RunStatus.DONE)
    with pytest.raises(StatusConflictError):
        await store.set_status("r", RunStatus.RUNNING, expect_step=3, expect_status=RunStatus.RUNNING)
    run = await store.get_run("r")
    assert run is not None and run.status is RunStatus.DONE


async def test_expect_step_zero_means_no_step_yet(store: Store) -> None:
    """expect_step=0 holds for a run without steps and fails once a step is committed."""
    await store.create_run(_run("r"))
    await store.set_status("r", RunStatus.INTERRUPTED, expect_step=0)
    await store.save_step(_step("r", 1))
    with pytest.raises(StatusConflictError):
        await store.set_status("r", RunStatus.RUNNING, expect_step=0)


async def test_conditional_status_write_of_unknown_run_is_a_no_op(store: Store) -> None:
    """An unknown run stays unknown, with or without expectations."""
    await store.set_status("ghost", RunStatus.DONE, expect_step=0, expect_status=RunStatus.RUNNING)
    assert await store.get_run("ghost") is None


class Count(BaseModel):
    """A counter; `b` runs once per run when nobody drives it twice."""

    n: int = 0


class _StallingStore:
    """Delegates to a store, but its first write of status `running` waits for `go`."""

    def __init__(self, inner: Store) -> None:
        self._inner = inner
        self.stalled = asyncio.Event()
        self.go = asyncio.Event()
        self._once = True

    async def set_status(self, run_id: str, status: RunStatus, **kw: Any) -> None:
        if status is RunStatus.RUNNING and self._once:
            self._once = False
            self.stalled.set()
            await self.go.wait()
        await self._inner.set_status(run_id, status, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


async def test_resume_that_stalls_before_its_status_write_leaves_a_finished_run_done(store: Store) -> None:
    """Owner and resumer race on one run: the resumer stalls (an event, not a sleep) between its
    read and its status write while the owner finishes. The run stays done, the resumer returns
    the final state, and node `b` ran once."""
    gate = asyncio.Event()
    b_started = asyncio.Event()
    ran: list[str] = []

    def a(ctx: Context, s: Count) -> NodeResult[Count]:
        ran.append("a")
        return NodeResult(delta=Count(n=s.n + 1), route=goto("b"))

    async def b(ctx: Context, s: Count) -> NodeResult[Count]:
        b_started.set()
        await gate.wait()
        ran.append("b")
        return NodeResult(delta=Count(n=s.n + 10), route=stop())

    def engine(st: Any) -> Engine[Count]:
        return Engine(Count, store=st).add("a", a).add("b", b).start_at("a")

    owner = asyncio.create_task(engine(store).run("race", Count()))
    await b_started.wait()  # step 1 committed, `b` waiting on the gate
    stalling = _StallingStore(store)
    resumer = asyncio.create_task(engine(stalling).resume("race"))
    stalled = asyncio.ensure_future(stalling.stalled.wait())
    await asyncio.wait([resumer, stalled], return_when=asyncio.FIRST_COMPLETED)
    if resumer.done():
        # SQLite: the owner's run lock (the same file, another store object) refuses a second
        # driver before it reads anything, a stronger guard than the conditioned status write.
        assert isinstance(store, SQLiteStore)
        with pytest.raises(RunBusyError):
            resumer.result()
        stalled.cancel()
        gate.set()
        assert await owner == Count(n=11)
        run = await store.get_run("race")
        assert run is not None and run.status is RunStatus.DONE
        assert ran == ["a", "b"]
        return
    # the resumer read step 1 / running and is about to write
    gate.set()
    final = await owner
    run = await store.get_run("race")
    assert run is not None and run.status is RunStatus.DONE
    stalling.go.set()
    resumed = await resumer
    assert resumed == final == Count(n=11)
    run = await store.get_run("race")
    assert run is not None and run.status is RunStatus.DONE
    assert ran == ["a", "b"]


# ------------------------------------------------------------------------- byte-exact ids

_NFC = unicodedata.normalize("NFC", "café")
_NFD = unicodedata.normalize("NFD", "café")
# Groups of ids that differ only in ways some collation would ignore: each must be its own run.
_DISTINCT: list[tuple[str, ...]] = [
    ("job", "job ", "job   ", " job"),
    ("Job", "job", "JOB"),
    (_NFC, _NFD),
    ("a\tb", "a b", "a\u00a0b"),
    ("ß", "ss"),
    ("x" * MAX_ID_CHARS, "x" * (MAX_ID_CHARS - 1)),
    ("😀" * MAX_ID_CHARS, "😀"),
]
_INVALID: list[object] = [
    "",
    "a\x00b",
    "\x00",
    "bad\ud800",
    "\udfff",
    "x" * (MAX_ID_CHARS + 1),
    "y" * 10_000,
    b"bytes",
    None,
    7,
]


@pytest.mark.parametrize("ids", _DISTINCT, ids=lambda g: repr(g)[:30])
async def test_ids_that_differ_in_any_byte_are_different_runs(store: Store, ids: tuple[str, ...]) -> None:
    """Trailing spaces, case, normalisation forms, lookalike spaces: each id is its own run,
    found only by itself, with its own steps and checkpoints, and comes back byte for byte."""
    assert len(set(ids)) == len(ids)
    for i, run_id in enumerate(ids):
        await store.create_run(_run(run_id))
        for k in range(1, i + 2):
            await store.save_step(_step(run_id, k))
        await store.save_checkpoint(Checkpoint(run_id, run_id, i, b"s%d" % i, 3.0))
    for i, run_id in enumerate(ids):
        run = await store.get_run(run_id)
        assert run is not None and run.run_id == run_id
        steps = await store.load_steps(run_id)
        assert [s.step for s in steps] == list(range(1, i + 2))
        assert all(s.run_id == run_id for s in steps)
        cp = await store.load_checkpoint(run_id, run_id)
        assert cp is not None and cp.label == run_id and cp.state == b"s%d" % i
        for other in ids:
            if other != run_id:
                assert await store.load_checkpoint(run_id, other) is None
    assert {r.run_id for r in await store.list_runs(limit=100)} == set(ids)


@pytest.mark.parametrize("bad", _INVALID, ids=lambda v: repr(v)[:20])
async def test_invalid_ids_raise_the_same_typed_error_on_every_backend(store: Store, bad: object) -> None:
    """Empty, NUL, lone surrogates, over-long and non-str ids raise `InvalidIdError` from every
    method, for run ids and checkpoint labels alike, and nothing is stored."""
    await store.create_run(_run("ok"))
    calls = [
        lambda: store.create_run(_run(bad)),  # type: ignore[arg-type]
        lambda: store.get_run(bad),  # type: ignore[arg-type]
        lambda: store.set_status(bad, RunStatus.DONE),  # type: ignore[arg-type]
        lambda: store.save_step(_step(bad, 1)),  # type: ignore[arg-type]
        lambda: store.load_latest(bad),  # type: ignore[arg-type]
        lambda: store.load_steps(bad),  # type: ignore[arg-type]
        lambda: store.load_branches(bad, 1),  # type: ignore[arg-type]
        lambda: store.save_checkpoint(Checkpoint(bad, "l", 0, b"x")),  # type: ignore[arg-type]
        lambda: store.save_checkpoint(Checkpoint("ok", bad, 0, b"x")),  # type: ignore[arg-type]
        lambda: store.load_checkpoint("ok", bad),  # type: ignore[arg-type]
        lambda: store.update_meta(bad, b"{}"),  # type: ignore[arg-type]
        lambda: store.delete_run(bad),  # type: ignore[arg-type]
    ]
    for call in calls:
        with pytest.raises(InvalidIdError) as err:
            await call()
        assert isinstance(err.value, ValueError)
        assert err.value.value == bad
    assert [r.run_id for r in await store.list_runs()] == ["ok"]


async def test_mysql_ids_with_trailing_spaces_were_one_run_and_are_two_after_migration() -> None:
    """A database at schema v1 (PAD SPACE keys) is migrated to v2 on open with its rows intact;
    afterwards `get_run("job   ")` no longer finds `job` and both ids can exist."""
    from db_servers import MYSQL_DSN, mysql_store, require_mysql

    require_mysql()
    import graphengine.store.mysql as my_mod

    async with mysql_store() as s:
        pool = await s._db()
        async with pool.acquire() as c, c.cursor() as cur:
            # back to v1: drop the tables and recreate them by the v1 statements
            for t in (
                "signals",
                "timers",
                "schedules",
                "branch_claims",
                "branches",
                "checkpoints",
                "steps",
                "runs",
                "schema_version",
            ):
                await cur.execute(f"DROP TABLE IF EXISTS {t}")
            for stmt in my_mod._MIGRATIONS[0]:  # type: ignore[union-attr]
                await cur.execute(stmt)
            await cur.execute("CREATE TABLE schema_version (version INT NOT NULL)")
            await cur.execute("INSERT INTO schema_version VALUES (1)")
            await cur.execute(
                "INSERT INTO runs (run_id, status, initial, fingerprint, state_version, created_at, updated_at, meta) "
                "VALUES ('job', 'done', 'x', 'fp', 1, 1, 1, '{}')"
            )
            await cur.execute(
                "INSERT INTO steps (run_id, step, node_id, route, attempt, ts) VALUES ('job', 1, 'n', '{}', 1, 2)"
            )
            await cur.execute("SELECT run_id FROM runs WHERE run_id = 'job   '")
            assert await cur.fetchall()  # PAD SPACE: the bug this migration removes
        dsn = MYSQL_DSN.rsplit("/", 1)[0] + "/" + s.database
        async with MySQLStore(dsn) as fresh:
            assert await fresh.get_run("job   ") is None
            job = await fresh.get_run("job")
            assert job is not None and job.run_id == "job"
            assert [st.step for st in await fresh.load_steps("job")] == [1]
            await fresh.create_run(_run("job   "))
            assert (await fresh.get_run("job   ")) is not None
            assert await fresh.delete_run("job")
            assert await fresh.load_steps("job") == []  # the foreign key cascades again
            assert (await fresh.get_run("job   ")) is not None
            fpool = await fresh._db()
            async with fpool.acquire() as c, c.cursor() as cur:
                await cur.execute("SELECT max(version) FROM schema_version")
                assert (await cur.fetchone())[0] == my_mod.SCHEMA_VERSION


# ------------------------------------------------------------------------- gaps and orphans


async def test_a_step_deleted_in_the_middle_is_corruption_not_skipped(store: Store) -> None:
    """Step 3 of 5 deleted by hand: resume's read and the history both raise `CorruptRecordError`
    naming the run and the missing step."""
    await _with_steps(store, "r", 5)
    await _delete_step(store, "r", 3)
    with pytest.raises(CorruptRecordError) as err:
        await store.load_latest("r")
    assert err.value.run_id == "r" and err.value.step == 3
    with pytest.raises(CorruptRecordError) as err:
        await store.load_steps("r")
    assert err.value.run_id == "r" and err.value.step == 3
    with pytest.raises(CorruptRecordError) as err:
        await store.load_steps("r", after=2)  # a page that would start at the hole
    assert err.value.step == 3
    assert [s.step for s in await store.load_steps("r", after=3)] == [4, 5]  # past it: whole


async def test_a_gap_after_the_newest_snapshot_is_corruption(store: Store) -> None:
    """With a snapshot at step 2, a hole at step 4 is inside the tail resume folds."""
    await _with_steps(store, "r", 6, snapshot_at=(2,))
    await _delete_step(store, "r", 4)
    with pytest.raises(CorruptRecordError) as err:
        await store.load_latest("r")
    assert err.value.step == 4


async def test_deleted_first_steps_without_a_snapshot_are_corruption(store: Store) -> None:
    """Steps 1 and 2 gone, no snapshot left: the state cannot be rebuilt; reported, not folded."""
    await _with_steps(store, "r", 4)
    await _delete_step(store, "r", 1)
    await _delete_step(store, "r", 2)
    with pytest.raises(CorruptRecordError):
        await store.load_latest("r")
    with pytest.raises(CorruptRecordError):
        await store.load_steps("r")


async def test_pruned_history_starting_at_a_snapshot_is_not_a_gap(store: Store) -> None:
    """`delete_steps_before` keeps a snapshot first; that is a valid start, with or without `after`."""
    await _with_steps(store, "r", 6, snapshot_at=(4,))
    assert await store.delete_steps_before("r", 4) == 3
    assert [s.step for s in await store.load_steps("r")] == [4, 5, 6]
    assert [s.step for s in await store.load_steps("r", after=2)] == [4, 5, 6]
    assert [s.step for s in await store.load_steps("r", after=4, limit=1)] == [5]
    latest = await store.load_latest("r")
    assert latest is not None and latest.base_step == 4 and latest.last_step == 6


async def test_steps_orphaned_by_a_deleted_run_row_are_never_folded_into_a_new_run(sql_store: Store) -> None:
    """The run row deleted under its steps (foreign keys off): a new run with that id is refused,
    and reading the orphans raises `CorruptRecordError` naming the run and its first step."""
    store = sql_store  # a MemoryStore run owns its rows: none can outlive it
    await _with_steps(store, "r", 3)
    await _raw(store, "DELETE FROM runs WHERE run_id = ?", "r", no_fk=True)
    with pytest.raises(CorruptRecordError) as err:
        await store.create_run(_run("r"))
    assert err.value.run_id == "r" and err.value.step == 1
    assert await store.get_run("r") is None
    with pytest.raises(CorruptRecordError):
        await store.load_steps("r")
    with pytest.raises(CorruptRecordError):
        await store.load_latest("r")


async def test_orphaned_checkpoints_also_block_a_new_run(sql_store: Store) -> None:
    """Checkpoints whose run row is gone make `create_run` of that id a `CorruptRecordError`."""
    store = sql_store  # a MemoryStore run owns its rows: none can outlive it
    await store.create_run(_run("r"))
    await store.save_checkpoint(Checkpoint("r", "l", 0, b"x"))
    await _raw(store, "DELETE FROM runs WHERE run_id = ?", "r", no_fk=True)
    with pytest.raises(CorruptRecordError, match="checkpoints"):
        await store.create_run(_run("r"))


# ------------------------------------------------------------------------- prune policies


@pytest.mark.parametrize(
    "kwargs",
    [
        {"keep_last": -1},
        {"keep_last": True},
        {"keep_last": 1.5},
        {"keep_newer_than": math.nan},
        {"keep_newer_than": -1.0},
        {"keep_newer_than": "10"},
        {"compact": "yes"},
    ],
)
def test_invalid_prune_policies_are_refused(kwargs: dict[str, Any]) -> None:
    """A policy value that does not say what to keep raises `InvalidPolicyError` (a ValueError)."""
    with pytest.raises(InvalidPolicyError):
        PrunePolicy(**kwargs)


async def test_prune_refuses_a_non_policy_and_deletes_nothing(store: Store) -> None:
    """`prune(store, None)` raises before reading anything; the done run is still there."""
    await store.create_run(_run("d", RunStatus.DONE))
    with pytest.raises(InvalidPolicyError):
        await prune(store, None)  # type: ignore[arg-type]
    assert await store.get_run("d") is not None


async def test_prune_only_removes_no_run_outside_the_confirmed_set(store: Store) -> None:
    """With `only`, a run that finished after the dry run is kept."""
    await store.create_run(_run("a", RunStatus.DONE))
    dry = await prune(store, PrunePolicy(), dry_run=True)
    await store.create_run(_run("b", RunStatus.DONE))
    report = await prune(store, PrunePolicy(), only=frozenset(dry.deleted))
    assert report.deleted == ("a",)
    assert await store.get_run("b") is not None
