"""`ValueRefusedError`: every SQL backend tells a value it can never store (NUL in PostgreSQL text,
a lone surrogate, an int over 64 bits, a string or blob over the backend's size limit) from a
transient failure (a lost connection, a deadlock, a lock timeout, a full disk), which stays a plain
`StoreError` / `StoreUnavailableError`.

The oracle is the database itself: each refused value is also sent straight through the driver,
outside the store, and refused there.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest
from db_servers import MYSQL_DSN, POSTGRES_DSN, mysql_store, require_mysql, require_postgres

import graphengine.store._sql._mysql as my_glue
import graphengine.store._sql._postgres as pg_glue
import graphengine.store.sqlite as sqlite_mod
from graphengine import store as gs
from graphengine.store import PostgresStore, StepRecord, Store, ValueRefusedError

TIMEOUT = 30.0


def step(run_id: str, n: int, **kw: Any) -> StepRecord:
    fields: dict[str, Any] = {"node_id": f"n{n}", "delta": b'{"n":1}', "route": '"x"', "ts": 1000.0 + n}
    return StepRecord(run_id, n, **(fields | kw))


BAD: dict[str, dict[str, Any]] = {
    "lone surrogate": {"error": "cannot read b'\\xe9': \udce9"},
    "int over 64 bits": {"attempt": 2**64},
    "NUL in text": {"error": "a\x00b"},  # refused by PostgreSQL only
}


@pytest.mark.parametrize("what", list(BAD), ids=list(BAD))
async def test_a_value_the_backend_can_never_store_is_value_refused(sql_store: Store, what: str) -> None:
    """Alone and in a group of 20, the bad step fails with `ValueRefusedError` naming its run and
    step; the healthy steps commit and the bad run takes a good step afterwards."""
    if what == "NUL in text" and not isinstance(sql_store, PostgresStore):
        # SQLite and MariaDB take NUL in text: then it must read back exactly, not be refused.
        await sql_store.create_run(gs.RunRecord("r3", gs.RunStatus.RUNNING, b"{}"))
        await sql_store.save_step(step("r3", 1, **BAD[what]))
        assert [s.error for s in await sql_store.load_steps("r3")] == [BAD[what]["error"]]
        return
    ids = [f"r{i}" for i in range(20)]
    for run_id in ids:
        await sql_store.create_run(gs.RunRecord(run_id, gs.RunStatus.RUNNING, b"{}"))
    recs = [step(r, 1) for r in ids]
    recs[3] = step("r3", 1, **BAD[what])
    got = await asyncio.wait_for(
        asyncio.gather(*(sql_store.save_step(r) for r in recs), return_exceptions=True), TIMEOUT
    )
    assert isinstance(got[3], ValueRefusedError), repr(got[3])
    assert (got[3].run_id, got[3].step) == ("r3", 1)
    assert got[:3] + got[4:] == [None] * 19
    with pytest.raises(ValueRefusedError) as alone:
        await asyncio.wait_for(sql_store.save_step(step("r3", 1, **BAD[what])), TIMEOUT)
    assert (alone.value.run_id, alone.value.step) == ("r3", 1)
    await sql_store.save_step(step("r3", 1))
    assert [s.step for s in await sql_store.load_steps("r3")] == [1]


async def test_every_sql_store_declares_its_size_limit(sql_store: Store) -> None:
    """`max_value_bytes` is known once the store is open: SQLite's SQLITE_LIMIT_LENGTH, MySQL's
    `@@max_allowed_packet` (as the server reports it), PostgreSQL's 1 GB, each less some room."""
    limit = sql_store.max_value_bytes  # type: ignore[attr-defined]
    assert isinstance(limit, int)
    if isinstance(sql_store, gs.SQLiteStore):
        probe = sqlite3.connect(":memory:")
        assert limit < probe.getlimit(sqlite3.SQLITE_LIMIT_LENGTH) <= limit + (1 << 20)
        probe.close()
    elif isinstance(sql_store, PostgresStore):
        assert (1 << 29) < limit < 1 << 30
    else:
        assert isinstance(sql_store, gs.MySQLStore)
        packet = await mysql_scalar("SELECT @@max_allowed_packet")
        assert limit < packet <= limit + (1 << 20)


# ---------------------------------------------------------------- the databases' own word (oracle)


async def mysql_connect() -> Any:
    """A connection of our own to the test server (autocommit, utf8mb4), past any store."""
    import asyncmy

    return await asyncmy.connect(**my_glue.parse_dsn(MYSQL_DSN), charset="utf8mb4", autocommit=True)


async def mysql_scalar(sql: str) -> Any:
    conn = await mysql_connect()
    try:
        async with conn.cursor() as cur:
            await cur.execute(sql)
            row = await cur.fetchone()
            return row[0] if row else None
    finally:
        conn.close()


async def test_postgres_itself_refuses_these_values_and_they_translate_as_refused() -> None:
    """Sent straight through asyncpg, NUL in text, a lone surrogate and an int over 64 bits are
    refused (SQLSTATE class 22); the store's table reads each as `ValueRefusedError`."""
    require_postgres()
    import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

    conn = await asyncpg.connect(POSTGRES_DSN)
    try:
        for sql, value in (
            ("SELECT $1::text", "a\x00b"),
            ("SELECT $1::text", "a\udce9"),
            ("SELECT $1::bigint", 2**64),
        ):
            with pytest.raises(asyncpg.PostgresError) as caught:
                await conn.fetchval(sql, value)
            assert caught.value.sqlstate.startswith("22")
            assert isinstance(pg_glue.translate(caught.value, "save_step", "pg"), ValueRefusedError)
    finally:
        await conn.close()


async def test_mariadb_itself_refuses_these_values_and_they_translate_as_refused() -> None:
    """Sent straight through asyncmy to a temporary table shaped like `steps`' columns, an int over
    64 bits (1264), invalid UTF-8 from a lone surrogate (1366) and bad JSON in a checked column
    (4025) are refused; the store's table reads each as `ValueRefusedError`."""
    require_mysql()
    import asyncmy

    conn = await mysql_connect()
    try:
        async with conn.cursor() as cur:
            await cur.execute(
                "CREATE TEMPORARY TABLE refusals (attempt INT, error LONGTEXT, route LONGTEXT "
                "CHARACTER SET utf8mb4 COLLATE utf8mb4_bin CHECK (JSON_VALID(route)))"
            )
            for column, value in (("attempt", 2**64), ("error", "a\udce9"), ("route", "{bad")):
                with pytest.raises(asyncmy.errors.MySQLError) as caught:
                    await cur.execute(f"INSERT INTO refusals ({column}) VALUES (%s)", (value,))
                assert my_glue.errno(caught.value) in (1264, 1366, 4025)
                assert isinstance(my_glue.translate(caught.value, "save_step", "my"), ValueRefusedError)
    finally:
        conn.close()


def test_sqlite_itself_refuses_a_blob_over_its_length_limit_and_it_translates_as_refused() -> None:
    """SQLITE_LIMIT_LENGTH lowered on a connection of our own: a longer blob is refused (SQLITE_TOOBIG),
    and so are an int over 64 bits and a lone surrogate while binding; all read as `ValueRefusedError`."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 1000)
        conn.execute("CREATE TABLE t (b BLOB, i INTEGER, s TEXT)")
        for column, value in (("b", b"z" * 2000), ("i", 2**64), ("s", "a\udce9")):
            with pytest.raises((sqlite3.Error, OverflowError, UnicodeEncodeError)) as caught:
                conn.execute(f"INSERT INTO t ({column}) VALUES (?)", (value,))
            assert isinstance(sqlite_mod._translate(caught.value, "save_step", "sqlite"), ValueRefusedError)
    finally:
        conn.close()


# ---------------------------------------------------------------- transient failures stay transient


def test_transient_failures_are_not_refusals() -> None:
    """What may pass (a lost connection, a deadlock, a lock or statement timeout, a full disk, a
    busy file) keeps its transient class on every backend; corruption stays corruption."""
    import asyncmy
    import asyncpg

    pg = asyncpg.exceptions
    for exc in (
        pg.ConnectionDoesNotExistError("gone"),
        pg.DeadlockDetectedError("deadlock"),
        pg.LockNotAvailableError("lock"),
        pg.QueryCanceledError("timeout"),
        pg.DiskFullError("full"),
        pg.AdminShutdownError("terminated"),
    ):
        assert type(pg_glue.translate(exc, "save_step", "pg")) is gs.StoreUnavailableError, exc
    assert type(pg_glue.translate(pg.DataCorruptedError("bad"), "read", "pg")) is gs.CorruptRecordError
    for code in (1205, 1213, 2006, 2013, 1053):
        exc = asyncmy.errors.OperationalError(code, "transient")
        assert type(my_glue.translate(exc, "save_step", "my")) is gs.StoreUnavailableError, code
    assert (
        type(my_glue.translate(asyncmy.errors.OperationalError(1146, "no table"), "save_step", "my"))
        is gs.StoreError
    )
    for err in (
        sqlite3.OperationalError("database is locked"),
        sqlite3.OperationalError("database or disk is full"),
        sqlite3.OperationalError("disk I/O error"),
    ):
        assert type(sqlite_mod._translate(err, "save_step", "sqlite")) is gs.StoreUnavailableError, err


async def test_mysql_refuses_a_step_that_escaping_would_push_over_max_allowed_packet() -> None:
    """asyncmy sends values escaped (`"` as two bytes): a step under `max_value_bytes` as encoded
    but over `max_allowed_packet` as sent is `ValueRefusedError` before anything is sent, and the
    pool's connections serve the next statements."""
    require_mysql()
    async with mysql_store() as store:
        limit = store.max_value_bytes
        assert limit is not None
        await store.create_run(gs.RunRecord("r", gs.RunStatus.RUNNING, b"{}"))
        quotes = b'"' * (limit * 3 // 4)  # under the limit; escaped, half as much again over it
        with pytest.raises(ValueRefusedError, match="max_allowed_packet") as caught:
            await asyncio.wait_for(store.save_step(step("r", 1, state=quotes)), TIMEOUT)
        assert (caught.value.run_id, caught.value.step) == ("r", 1)
        await store.save_step(step("r", 1, state=b'"' * 1000))
        assert [s.state for s in await store.load_steps("r")] == [b'"' * 1000]
