"""A step the store can never take fails its run (status `failed`, a typed error naming what was
wrong) instead of leaving it `running` for resumes that would fail the same way; a store that
failed for a while (a connection killed) still leaves the run resumable.

Every case runs on real databases (SQLite files, PostgreSQL, MariaDB), next to a healthy run of
the same store that must finish untouched. The refusals are the databases' own: the same values
sent straight through the driver are refused the same way (`tests/store/test_store_refusals.py`).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from db_servers import POSTGRES_DSN, mysql_store, postgres_store, require_mysql, require_postgres
from pydantic import BaseModel

from graphengine import Context, EncodeError, Engine, NodeResult, append, fan_out, goto, stop
from graphengine.store import (
    PostgresStore,
    RunStatus,
    StepRecord,
    Store,
    StoreError,
    StoreUnavailableError,
    ValueRefusedError,
)

TIMEOUT = 60.0


class Log(BaseModel):
    """Lines appended by each step, and a blob a step may fill."""

    lines: Annotated[list[str], append] = []
    blob: str = ""


def engine(store: Store, *, big_at: int | None = None, big: int = 0, steps: int = 4) -> Engine[Log]:
    """A run of `steps` steps; with `big_at`, that step writes a `big`-character blob."""

    async def work(ctx: Context, s: Log) -> NodeResult[Log]:
        n = len(s.lines) + 1
        delta = Log(lines=[f"line {n}"], blob="x" * big if n == big_at else s.blob)
        return NodeResult(delta=delta, route=stop() if n >= steps else goto("work"))

    return Engine(Log, store=store).add("work", work).start_at("work")


async def outcome(coro: Any) -> BaseException | None:
    try:
        await asyncio.wait_for(coro, TIMEOUT)
    except BaseException as exc:  # the outcome under test
        return exc
    return None


async def assert_failed_truthfully(eng: Engine[Log], run_id: str, good_steps: int, *words: str) -> None:
    """The run is `failed` with an error naming `words`, and reads back with its good steps intact."""
    run = await eng.get_run(run_id)
    assert run.status is RunStatus.FAILED
    assert run.error is not None
    for word in words:
        assert word in run.error, run.error
    state = await eng.get_state(run_id)
    assert state.lines == [f"line {n}" for n in range(1, good_steps + 1)]
    assert [v.step for v in await eng.history(run_id)] == list(range(1, good_steps + 1))


# ---------------------------------------------------------------- a step over the store's size limit


async def test_a_step_over_the_stores_size_limit_fails_its_run_before_it_is_sent(sql_store: Store) -> None:
    """The engine checks a step's encoded size against the store's `max_value_bytes` (lowered here)
    before writing: `EncodeError` naming run, step, node, field and both sizes; the run is failed,
    its first two steps intact; a healthy run beside it finishes; resume re-runs the step and
    fails it the same way."""
    sql_store.max_value_bytes = 20_000  # type: ignore[attr-defined]  # a limit tests may lower
    bad = engine(sql_store, big_at=3, big=30_000)
    good = engine(sql_store, steps=6)
    failed, fine = await asyncio.gather(outcome(bad.run("bad", Log())), outcome(good.run("good", Log())))
    assert fine is None
    assert isinstance(failed, EncodeError), repr(failed)
    assert (failed.run_id, failed.step, failed.node_id) == ("bad", 3, "work")
    assert failed.field in ("delta", "state")
    assert "over the store's limit of 20,000 bytes" in str(failed)
    await assert_failed_truthfully(bad, "bad", 2, "max_value_bytes", "step 3")
    assert (await good.get_run("good")).status is RunStatus.DONE
    assert len((await good.get_state("good")).lines) == 6
    again = await outcome(bad.resume("bad"))
    assert isinstance(again, EncodeError) and again.step == 3
    await assert_failed_truthfully(bad, "bad", 2, "max_value_bytes")


async def test_a_state_over_max_allowed_packet_fails_the_run_on_mariadb() -> None:
    """The probe's case: a state larger than the server's `max_allowed_packet` (read when the pool
    opens, not lowered) would make MariaDB drop the connection; the engine refuses it first, and the
    run is failed rather than left running."""
    require_mysql()
    async with mysql_store() as store:
        limit = store.max_value_bytes
        assert limit is not None and limit > 1 << 20
        bad = engine(store, big_at=2, big=limit + 1)
        good = engine(store, steps=3)
        failed, fine = await asyncio.gather(outcome(bad.run("bad", Log())), outcome(good.run("good", Log())))
        assert fine is None
        assert isinstance(failed, EncodeError), repr(failed)
        assert failed.step == 2
        await assert_failed_truthfully(bad, "bad", 1, "max_value_bytes", f"{limit:,}")
        assert (await good.get_run("good")).status is RunStatus.DONE


# ---------------------------------------------------------------- a value the database refuses


class Poisoned:
    """A real store whose `save_step` for one run and step carries a value the engine never writes
    itself (its text is escaped, its counters small), as a custom codec or a future field might."""

    def __init__(self, inner: Store, run_id: str, step: int, bad: dict[str, Any]) -> None:
        self._inner, self._run_id, self._step, self._bad = inner, run_id, step, bad

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def save_step(self, rec: StepRecord) -> None:
        if (rec.run_id, rec.step) == (self._run_id, self._step):
            rec = rec._replace(**self._bad)
        await self._inner.save_step(rec)


REFUSED: dict[str, dict[str, Any]] = {
    "lone surrogate": {"error": "cannot read b'\\xe9': \udce9"},
    "int over 64 bits": {"attempt": 2**64},
    "NUL in text": {"error": "a\x00b"},  # PostgreSQL only: SQLite and MariaDB store it
}


@pytest.mark.parametrize("what", list(REFUSED), ids=list(REFUSED))
async def test_a_value_the_database_refuses_fails_the_run(sql_store: Store, what: str) -> None:
    """The database refuses the step (`ValueRefusedError` from the store): the run is failed with an
    `EncodeError` whose cause is that refusal, its earlier steps intact, a healthy run beside it done."""
    poisoned: Any = Poisoned(sql_store, "bad", 3, REFUSED[what])
    bad = engine(poisoned)
    good = engine(sql_store, steps=6)
    failed, fine = await asyncio.gather(outcome(bad.run("bad", Log())), outcome(good.run("good", Log())))
    assert fine is None
    if what == "NUL in text" and not isinstance(sql_store, PostgresStore):
        # Only PostgreSQL refuses NUL in text; SQLite and MariaDB store it and read it back.
        assert failed is None
        assert (await bad.get_run("bad")).status is RunStatus.DONE
        assert [s.error for s in await sql_store.load_steps("bad") if s.step == 3] == [REFUSED[what]["error"]]
        return
    assert isinstance(failed, EncodeError), repr(failed)
    assert isinstance(failed.__cause__, ValueRefusedError)
    assert (failed.run_id, failed.step, failed.node_id) == ("bad", 3, "work")
    await assert_failed_truthfully(bad, "bad", 2, "cannot be stored", "step 3")
    assert (await good.get_run("good")).status is RunStatus.DONE


# ---------------------------------------------------------------- a transient failure stays resumable


async def test_a_killed_connection_leaves_the_run_resumable_and_resume_finishes_it() -> None:
    """The store's connection is terminated by the server (`pg_terminate_backend`) while its step
    waits on a lock: a transient `StoreError`, so the run stays `running`, and resume finishes it."""
    require_postgres()
    import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

    async with postgres_store() as store:
        side = await asyncpg.connect(POSTGRES_DSN, server_settings={"search_path": store.schema})
        try:
            locked = asyncio.Event()

            async def work(ctx: Context, s: Log) -> NodeResult[Log]:
                n = len(s.lines) + 1
                if n == 3 and not locked.is_set():
                    # Holds the steps table, so the step write waits where it can be killed.
                    await side.execute("BEGIN; LOCK TABLE steps IN ACCESS EXCLUSIVE MODE")
                    locked.set()
                return NodeResult(delta=Log(lines=[f"line {n}"]), route=stop() if n >= 4 else goto("work"))

            eng = Engine(Log, store=store).add("work", work).start_at("work")

            async def kill_the_waiter() -> None:
                await locked.wait()
                me = side.get_server_pid()
                for _ in range(500):
                    pids = await asyncpg.connect(POSTGRES_DSN)
                    try:
                        waiters = await pids.fetch(
                            "SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", me
                        )
                        if waiters:
                            for row in waiters:
                                await pids.execute("SELECT pg_terminate_backend($1)", row[0])
                            return
                    finally:
                        await pids.close()
                    await asyncio.sleep(0.01)
                raise AssertionError("the step write never waited on the lock")

            failed, _ = await asyncio.gather(outcome(eng.run("r", Log())), kill_the_waiter())
            await side.execute("ROLLBACK")
            assert isinstance(failed, StoreError) and not isinstance(failed, ValueRefusedError), repr(failed)
            assert isinstance(failed, StoreUnavailableError), repr(failed)
            run = await eng.get_run("r")
            assert run.status is RunStatus.RUNNING
            assert [v.step for v in await eng.history("r")] == [1, 2]
            final = await asyncio.wait_for(eng.resume("r"), TIMEOUT)
            assert final.lines == [f"line {n}" for n in range(1, 5)]
            assert (await eng.get_run("r")).status is RunStatus.DONE
        finally:
            await side.close()


# ---------------------------------------------------------------- fan-outs


@pytest.mark.parametrize("where", ["branch", "join"])
async def test_a_fan_out_over_the_stores_size_limit_fails_its_run(sql_store: Store, where: str) -> None:
    """A branch's delta, or the merged state the fan-out step stores, over `max_value_bytes`:
    `EncodeError` naming the branch's field (or the state), the run failed with its step before
    the fan-out intact."""
    sql_store.max_value_bytes = 20_000  # type: ignore[attr-defined]  # a limit tests may lower
    # join: each branch and the three together are under the limit, the state they merge into is not
    big = 30_000 if where == "branch" else 4_500
    blob = "" if where == "branch" else "y" * 8_000

    def split(ctx: Context, s: Log) -> NodeResult[Log]:
        return NodeResult(
            delta=Log(lines=["line 1"], blob=blob), route=fan_out(["b0", "b1", "b2"], join="end")
        )

    def branch(ctx: Context, s: Log) -> NodeResult[Log]:
        size = big if (where == "join" or ctx.node_id == "b1") else 10
        return NodeResult(delta=Log(lines=[ctx.node_id + "x" * size]))

    eng = (
        Engine(Log, store=sql_store)
        .add("split", split)
        .add("b0", branch)
        .add("b1", branch)
        .add("b2", branch)
        .add("end", lambda c, s: NodeResult(route=stop()))
        .start_at("split")
    )
    failed = await outcome(eng.run("bad", Log()))
    assert isinstance(failed, EncodeError), repr(failed)
    assert failed.step == 2
    if where == "branch":
        assert (failed.node_id, failed.field) == ("b1", "branch 1 delta")
    else:
        assert failed.field == "state"
    await assert_failed_truthfully(eng, "bad", 1, "max_value_bytes")
