"""PostgresStore specifics beyond the shared contract: driver errors, schema versioning, pools."""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Awaitable, Callable

import pytest
from db_servers import POSTGRES_DSN, postgres_store, unique_name
from store_checks import check_json_text_kept

import graphengine.store.postgres as pg_mod
from graphengine.store import (
    CorruptRecordError,
    MissingDriverError,
    PostgresStore,
    RunExistsError,
    RunRecord,
    RunStatus,
    StepConflictError,
    StepRecord,
    StoreError,
    StoreUnavailableError,
    ValueRefusedError,
)

asyncpg = pytest.importorskip("asyncpg")

pytestmark = pytest.mark.usefixtures("postgres_up")


def _asyncpg_exceptions() -> list[type[BaseException]]:
    from asyncpg import exceptions as e

    return [c for n in e.__all__ if isinstance(c := getattr(e, n), type) and issubclass(c, Exception)]


def test_translation_table_covers_every_asyncpg_exception() -> None:
    """Every SQLSTATE class and every client-side exception asyncpg defines has a table entry."""
    missing = []
    for cls in _asyncpg_exceptions():
        if issubclass(cls, Warning) or (
            not issubclass(cls, (asyncpg.PostgresError, asyncpg.InterfaceError))
            and not issubclass(cls, Exception)
        ):
            continue
        state = getattr(cls, "sqlstate", None)
        if isinstance(state, str) and state:
            if state[:2] not in pg_mod._TRANSLATE:
                missing.append(f"{cls.__name__} (SQLSTATE class {state[:2]})")
        elif not any(k.__name__ in pg_mod._TRANSLATE for k in cls.__mro__ if k is not Exception):
            missing.append(cls.__name__)
    assert missing == []


@pytest.mark.parametrize(
    ("exc", "op", "expected"),
    [
        (asyncpg.UniqueViolationError("dup"), "create_run", RunExistsError),
        (asyncpg.UniqueViolationError("dup"), "save_step", StepConflictError),
        (asyncpg.ForeignKeyViolationError("fk"), "save_branches", StepConflictError),
        (asyncpg.NotNullViolationError("null"), "save_step", ValueRefusedError),
        (asyncpg.DataCorruptedError("bad page"), "read", CorruptRecordError),
        (asyncpg.AdminShutdownError("bye"), "save_step", StoreUnavailableError),
        (asyncpg.InvalidTextRepresentationError("json"), "save_step", ValueRefusedError),
        (ConnectionRefusedError("no"), "open", StoreUnavailableError),
        (asyncpg.ConnectionDoesNotExistError("gone"), "read", StoreUnavailableError),
        (asyncpg.UndefinedTableError("no table"), "open", StoreUnavailableError),
    ],
)
def test_translation_picks_the_store_error(exc: BaseException, op: pg_mod._Op, expected: type) -> None:
    """Driver exceptions become the `StoreError` subclass their SQLSTATE and operation call for."""
    assert type(pg_mod._translate(exc, op, "here")) is expected


def test_constructor_needs_no_event_loop_and_validates() -> None:
    """Construction opens nothing; a schema that is not a plain identifier is refused."""
    PostgresStore("postgresql://nobody@127.0.0.1:1/none")
    with pytest.raises(ValueError, match="schema"):
        PostgresStore(POSTGRES_DSN, schema="x; DROP TABLE runs")


def test_missing_driver_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without asyncpg, first use raises `MissingDriverError` naming the pip extra."""
    monkeypatch.setitem(sys.modules, "asyncpg", None)
    with pytest.raises(MissingDriverError, match=r"graphengine\[postgres\]"):
        asyncio.run(PostgresStore(POSTGRES_DSN).get_run("x"))


async def test_unreachable_server_is_unavailable() -> None:
    """A DSN nothing listens at raises `StoreUnavailableError` on first use."""
    s = PostgresStore("postgresql://postgres@127.0.0.1:1/test", connect_timeout=2)
    with pytest.raises(StoreUnavailableError):
        await s.get_run("x")


async def test_closed_store_refuses_use() -> None:
    """After close, every call raises `StoreUnavailableError`."""
    async with postgres_store() as s:
        await s.close()
        with pytest.raises(StoreUnavailableError, match="closed"):
            await s.get_run("r")


async def test_schema_version_is_recorded_and_newer_is_refused() -> None:
    """Open records the schema version; a database from a newer graphengine is refused."""
    schema = unique_name("t")
    async with postgres_store(schema) as s:
        conn = await asyncpg.connect(POSTGRES_DSN, server_settings={"search_path": schema})
        try:
            assert await conn.fetchval("SELECT max(version) FROM schema_version") == pg_mod.SCHEMA_VERSION
            await conn.execute("INSERT INTO schema_version VALUES ($1)", pg_mod.SCHEMA_VERSION + 1)
        finally:
            await conn.close()
        newer = PostgresStore(POSTGRES_DSN, schema=schema)
        with pytest.raises(StoreUnavailableError, match="newer"):
            await newer.get_run("x")
        await newer.close()
        assert s.schema == schema


async def test_processes_opening_a_fresh_schema_together_migrate_once() -> None:
    """Stores opening one fresh schema at once all succeed; the migration runs once."""
    schema = unique_name("t")
    async with postgres_store(schema):
        pass  # created, then dropped: start from nothing below
    stores = [PostgresStore(POSTGRES_DSN, schema=schema, min_size=1, max_size=1) for _ in range(4)]
    try:
        await asyncio.gather(*(s.get_run("x") for s in stores))
        conn = await asyncpg.connect(POSTGRES_DSN, server_settings={"search_path": schema})
        try:
            assert await conn.fetchval("SELECT count(*) FROM schema_version") == pg_mod.SCHEMA_VERSION
        finally:
            await conn.execute(f"DROP SCHEMA {schema} CASCADE")
            await conn.close()
    finally:
        for s in stores:
            await s.close()


def test_store_moves_between_event_loops() -> None:
    """A store used from a second `asyncio.run` reconnects there and sees the same data."""

    async def write(s: PostgresStore) -> None:
        await s.create_run(RunRecord("r", RunStatus.RUNNING, b"{}"))

    async def read(s: PostgresStore) -> RunRecord | None:
        try:
            return await s.get_run("r")
        finally:
            await s.close()

    schema = unique_name("t")
    s = PostgresStore(POSTGRES_DSN, schema=schema)
    asyncio.run(write(s))
    got = asyncio.run(read(s))
    assert got is not None
    assert got.run_id == "r"

    async def drop() -> None:
        conn = await asyncpg.connect(POSTGRES_DSN)
        await conn.execute(f"DROP SCHEMA {schema} CASCADE")
        await conn.close()

    asyncio.run(drop())


async def test_route_and_meta_are_json_columns_kept_verbatim() -> None:
    """`route` and run `meta` live in json columns and come back with their exact text."""
    async with postgres_store() as s:
        await check_json_text_kept(s)
        conn = await asyncpg.connect(POSTGRES_DSN, server_settings={"search_path": s.schema})
        try:
            types = await conn.fetch(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = $1 AND data_type = 'json' ORDER BY 1, 2",
                s.schema,
            )
        finally:
            await conn.close()
        assert [tuple(t) for t in types] == [("runs", "meta"), ("steps", "route")]


async def test_a_route_that_is_not_json_is_a_store_error_not_a_conflict() -> None:
    """A malformed route is refused by the server as a bad value (`StoreError`), writing nothing."""
    async with postgres_store() as s:
        await s.create_run(RunRecord("r", RunStatus.RUNNING, b"x"))
        with pytest.raises(StoreError) as info:
            await s.save_step(StepRecord("r", 1, "n", None, "not json", ts=1.0))
        assert not isinstance(info.value, StepConflictError)
        assert list(await s.load_steps("r")) == []


async def test_pool_returns_connections_without_a_reset_round_trip_but_rolls_back_open_work() -> None:
    """Releasing a pooled connection sends no reset query (one round trip per write), yet work
    left in an open transaction by an interrupted caller is rolled back, not leaked to the next user."""
    async with postgres_store() as s:
        await s.create_run(RunRecord("r", RunStatus.RUNNING, b"x"))
        pool = await s._db()
        conn = await pool.acquire()
        assert conn.get_reset_query() == ""
        tx = conn.transaction()
        await tx.start()
        await conn.execute("UPDATE runs SET status = 'failed' WHERE run_id = 'r'")
        await pool.release(conn)  # as if the caller were cancelled mid-transaction
        async with pool.acquire() as again:
            assert not again.is_in_transaction()
        run = await s.get_run("r")
        assert run is not None and run.status is RunStatus.RUNNING


# ---------------------------------------------------------------- grouped new runs and statuses


def _step(run_id: str, step: int) -> StepRecord:
    return StepRecord(run_id, step, "n", b"d", '"n"', ts=1.0)


Outcome = tuple[str, ...]


def _outcome(got: object) -> Outcome:
    return ("ok",) if got is None else (type(got).__name__,)


async def _orphan_steps(s: PostgresStore, run_id: str) -> None:
    """Leave steps of `run_id` behind without its run row (foreign keys are triggers; a replica
    session does not fire them)."""
    await s.create_run(RunRecord(run_id, RunStatus.RUNNING, b"x"))
    await s.save_step(_step(run_id, 1))
    conn = await asyncpg.connect(POSTGRES_DSN, server_settings={"search_path": s.schema})
    try:
        await conn.execute("SET session_replication_role = replica")
        await conn.execute("DELETE FROM runs WHERE run_id = $1", run_id)
    finally:
        await conn.close()


async def _each(calls: list[Callable[[], Awaitable[None]]], together: bool) -> list[Outcome]:
    """The outcome of each call: all started at the same moment, or one after the other."""
    if together:
        got = await asyncio.gather(*(c() for c in calls), return_exceptions=True)
        return [_outcome(g) for g in got]
    out = []
    for c in calls:
        try:
            out.append(_outcome(await c()))
        except StoreError as exc:
            out.append(_outcome(exc))
    return out


def _spy(monkeypatch: pytest.MonkeyPatch, s: PostgresStore, sql: str) -> list[int]:
    """Count the calls of the grouped statement `sql` (so a test knows the batch path ran)."""
    seen: list[int] = []
    fetch = s._fetch

    async def spied(op: pg_mod._Op, stmt: str, params: object, **kw: object) -> list[object]:
        if stmt == sql:
            seen.append(len(params[0]))  # type: ignore[index]
        return await fetch(op, stmt, params, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(s, "_fetch", spied)
    return seen


async def _create_cases(s: PostgresStore) -> list[tuple[RunRecord, str]]:
    """Runs to create, each with the outcome the contract gives it."""
    await s.create_run(RunRecord("taken", RunStatus.RUNNING, b"x"))
    await _orphan_steps(s, "orphaned")
    return [
        *(
            (RunRecord(f"new{i}", RunStatus.RUNNING, b"i%d" % i, meta=b'{"i": %d}' % i), "ok")
            for i in range(5)
        ),
        (RunRecord("taken", RunStatus.RUNNING, b"y"), "RunExistsError"),
        (RunRecord("orphaned", RunStatus.RUNNING, b"y"), "CorruptRecordError"),
        (RunRecord("badmeta", RunStatus.RUNNING, b"y", meta=b"not json"), "ValueRefusedError"),
        (RunRecord("new9", RunStatus.INTERRUPTED, b"z"), "ok"),
    ]


async def test_runs_created_together_share_a_statement_and_match_each_created_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Runs created at the same moment go in one grouped statement; each gets the outcome it gets
    when created alone, one `create_run` at a time (the oracle): a taken id, rows an earlier run
    left behind and a meta the json column refuses fail only their own run."""
    outcomes: list[list[Outcome]] = []
    stored: list[list[object]] = []
    for together in (False, True):
        async with postgres_store() as s:
            cases = await _create_cases(s)
            seen = _spy(monkeypatch, s, pg_mod._INSERT_RUNS)
            outcomes.append(await _each([functools.partial(s.create_run, r) for r, _ in cases], together))
            assert (max(seen) > 1) if together else seen == []
            rows = [await s.get_run(r.run_id) for r, _ in cases]
            stored.append([(r.run_id, r.status, r.initial, r.meta) if r else None for r in rows])
    assert outcomes[0] == outcomes[1] == [(want,) for _, want in cases]
    assert stored[0] == stored[1]


async def _status_cases(s: PostgresStore, other: PostgresStore) -> list[tuple[str, dict[str, object], str]]:
    """Status changes to make (run, conditions), each with the outcome the contract gives it."""
    for rid in ("plain", "at2", "not5", "wasdone", "theirs", "mine", "lost"):
        await s.create_run(RunRecord(rid, RunStatus.RUNNING, b"x"))
    await s.save_step(_step("at2", 1))
    await s.save_step(_step("at2", 2))
    await s.set_status("wasdone", RunStatus.DONE)
    assert await other.claim("theirs", "w2", 60.0) is not None
    assert await s.claim("mine", "w1", 60.0) is not None
    assert await s.claim("lost", "w1", 0.05) is not None
    await asyncio.sleep(0.1)  # the lease on "lost" ends; another worker takes the run
    assert await other.claim("lost", "w2", 60.0) is not None
    return [
        ("plain", {}, "ok"),
        ("at2", {"expect_step": 2}, "ok"),
        ("not5", {"expect_step": 5}, "StatusConflictError"),
        ("wasdone", {"expect_status": RunStatus.RUNNING}, "StatusConflictError"),
        ("theirs", {}, "LeaseLostError"),
        ("mine", {"expect_step": 0, "expect_status": RunStatus.RUNNING}, "ok"),
        ("lost", {}, "LeaseLostError"),
        ("unknown", {}, "ok"),
    ]


async def test_status_changes_together_share_a_statement_and_match_each_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Status changes of many runs at the same moment go in one grouped statement; each gets the
    outcome of the same change made alone (the oracle): compare-and-set conflicts, another
    worker's live lease, a lost lease and an unknown run fail (or skip) only their own run."""
    outcomes: list[list[Outcome]] = []
    stored: list[list[object]] = []
    for together in (False, True):
        async with postgres_store() as s:
            other = PostgresStore(s.dsn, schema=s.schema, max_size=2)
            try:
                cases = await _status_cases(s, other)
                seen = _spy(monkeypatch, s, pg_mod._SET_STATUSES)

                calls = [
                    functools.partial(s.set_status, r, RunStatus.FAILED, error="e", error_node="n", **kw)
                    for r, kw, _ in cases
                ]
                outcomes.append(await _each(calls, together))  # type: ignore[arg-type]
                assert (max(seen) > 1) if together else seen == []
                rows = [await s.get_run(r) for r, _, _ in cases]
                stored.append([(r.run_id, r.status, r.error, r.error_node) if r else None for r in rows])
            finally:
                await other.close()
    assert outcomes[0] == outcomes[1] == [(want,) for _, _, want in cases]
    assert stored[0] == stored[1]
