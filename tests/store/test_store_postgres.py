"""PostgresStore specifics beyond the shared contract: driver errors, schema versioning, pools."""

from __future__ import annotations

import asyncio
import sys

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


async def test_a_connection_the_server_killed_is_unavailable_not_a_plain_store_error() -> None:
    """The driver's errors for a connection killed under it ("connection is closed", "not connected")
    are `StoreUnavailableError`, as documented for a lost connection: the run stays resumable."""
    conn = await asyncpg.connect(POSTGRES_DSN)
    side = await asyncpg.connect(POSTGRES_DSN)
    try:
        await side.execute("SELECT pg_terminate_backend($1)", conn.get_server_pid())
        for _ in range(1000):  # the client sees the end of the stream on its next read
            if conn.is_closed():
                break
            try:
                await conn.execute("SELECT 1")
            except Exception:  # the first use after the kill may fail with the server's message
                await asyncio.sleep(0.001)
        assert conn.is_closed()
        with pytest.raises(asyncpg.InterfaceError) as closed:
            await conn.execute("SELECT 1")
    finally:
        await side.close()
        await conn.close()
    for exc in (closed.value, asyncpg.InternalClientError("not connected")):
        err = pg_mod._translate(exc, "save_step", "PostgresStore(schema='s')", run_id="r", step=3)
        assert isinstance(err, StoreUnavailableError), (exc, err)
        assert "r" in str(err) or err.run_id == "r"
    # a driver misuse that is not about the connection stays a plain StoreError
    misuse = asyncpg.InterfaceError("the server expects 1 argument for this query, 2 were passed")
    assert type(pg_mod._translate(misuse, "save_step", "x")) is StoreError
