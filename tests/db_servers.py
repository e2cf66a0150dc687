"""The PostgreSQL and MySQL/MariaDB servers the tests use: where they are, whether they answer,
and stores in a schema or database of their own that is dropped afterwards.

Test modules and `conftest.py` import these by name (`from db_servers import ...`); no tests live here.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from graphengine.store import MySQLStore, PostgresStore, SQLiteStore, Store

POSTGRES_DSN = os.environ.get("GRAPHENGINE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
"""The PostgreSQL server tests use; each test gets a schema of its own in it."""
MYSQL_DSN = os.environ.get("GRAPHENGINE_TEST_MYSQL", "mysql://root@127.0.0.1:3306/test")
"""The MySQL/MariaDB server tests use; each test gets a database of its own on it."""


@functools.cache
def server_unavailable(dsn: str, driver: str, extra: str) -> str | None:
    """Why a server backend cannot run here: its driver is missing or nothing listens at `dsn`."""
    if importlib.util.find_spec(driver) is None:
        return f"driver {driver!r} is not installed (pip install 'graphengine[{extra}]')"
    url = urlsplit(dsn)
    try:
        socket.create_connection((url.hostname or "127.0.0.1", url.port or 0), timeout=2).close()
    except OSError as exc:
        return f"no server at {url.hostname}:{url.port}: {exc}"
    return None


def require_server(what: str, reason: str | None) -> None:
    """Skip the test when `reason` (why `what` cannot run here) is set; under CI=true fail instead:
    CI must never report a test as passing when its server did not run."""
    if reason is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{what} is unavailable under CI: {reason}")
    pytest.skip(f"{what} is unavailable: {reason}")


def postgres_unavailable(driver: str = "asyncpg", extra: str = "postgres") -> str | None:
    """Why the PostgreSQL server at `POSTGRES_DSN` cannot be used through `driver`, or None."""
    return server_unavailable(POSTGRES_DSN, driver, extra)


def mysql_unavailable() -> str | None:
    """Why the MySQL/MariaDB server at `MYSQL_DSN` cannot be used, or None."""
    return server_unavailable(MYSQL_DSN, "asyncmy", "mysql")


def require_postgres(driver: str = "asyncpg", extra: str = "postgres") -> None:
    """`require_server` for the PostgreSQL server at `POSTGRES_DSN`, through `driver`."""
    require_server("PostgreSQL", postgres_unavailable(driver, extra))


def require_mysql() -> None:
    """`require_server` for the MySQL/MariaDB server at `MYSQL_DSN`."""
    require_server("MySQL", mysql_unavailable())


def require_worker_servers(store: str = "postgres") -> None:
    """`require_server` for the workers: PostgreSQL (their queue), MySQL too when `store` is
    "mysql", and the queue's packages."""
    reason = postgres_unavailable()
    if reason is None and store == "mysql":
        reason = mysql_unavailable()
    if reason is None:
        for mod in ("procrastinate", "psycopg"):
            if importlib.util.find_spec(mod) is None:
                reason = f"{mod} is not installed (pip install 'graphengine[workers]')"
    require_server("workers' servers (PostgreSQL, and MySQL for its store)", reason)


def unique_name(prefix: str) -> str:
    """A schema/database name no other test (or test process) uses."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


async def drop_postgres_schema(schema: str) -> None:
    """Drop a test's schema and all in it, if it exists (at `POSTGRES_DSN`)."""
    import asyncpg

    conn = await asyncpg.connect(POSTGRES_DSN)
    try:
        # The name is ours (unique_name), not user text; identifiers cannot be bound.
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        await conn.close()


@asynccontextmanager
async def postgres_schema(schema: str | None = None, prefix: str = "t") -> AsyncIterator[str]:
    """The name of a schema of a test's own (`schema`, or a fresh one named from `prefix`), dropped
    with all in it afterwards; whoever uses it creates it (a `PostgresStore` creates its own)."""
    schema = schema or unique_name(prefix)
    try:
        yield schema
    finally:
        await drop_postgres_schema(schema)


@asynccontextmanager
async def langgraph_postgres_store(prefix: str) -> AsyncIterator[Any]:
    """LangGraph's `AsyncPostgresStore`, set up in a fresh schema of its own (named from `prefix`)
    and dropped afterwards: its tables have fixed names, so suites running at once (or an older
    run's tables) never share them. Required to be up, with psycopg (a failure under CI)."""
    require_postgres("psycopg", "dev")
    import psycopg
    from langgraph.store.postgres import AsyncPostgresStore

    sep = "&" if "?" in POSTGRES_DSN else "?"
    async with postgres_schema(prefix=prefix) as schema:
        async with await psycopg.AsyncConnection.connect(POSTGRES_DSN, autocommit=True) as conn:
            # The name is ours (unique_name), not user text; identifiers cannot be bound.
            await conn.execute(f"CREATE SCHEMA {schema}")
        async with AsyncPostgresStore.from_conn_string(
            f"{POSTGRES_DSN}{sep}options=-csearch_path%3D{schema}"
        ) as store:
            await store.setup()
            yield store


@asynccontextmanager
async def postgres_store(schema: str | None = None) -> AsyncIterator[PostgresStore]:
    """A `PostgresStore` in a fresh schema of its own, dropped afterwards."""
    async with (
        postgres_schema(schema) as name,
        PostgresStore(POSTGRES_DSN, schema=name, min_size=1, max_size=4) as s,
    ):
        yield s


@asynccontextmanager
async def mysql_database(database: str | None = None) -> AsyncIterator[str]:
    """The DSN of a fresh MySQL database of its own (on `MYSQL_DSN`'s server), dropped afterwards."""
    import asyncmy

    database = database or unique_name("t")
    url = urlsplit(MYSQL_DSN)
    server = {
        "host": url.hostname,
        "port": url.port or 3306,
        "user": url.username or "root",
        "password": url.password or "",
    }

    async def run(sql: str) -> None:
        conn = await asyncmy.connect(**server)
        try:
            async with conn.cursor() as cur:
                await cur.execute(sql)
        finally:
            conn.close()

    # The name is ours (unique_name), not user text; identifiers cannot be bound.
    await run(f"CREATE DATABASE {database}")
    try:
        yield url._replace(path=f"/{database}").geturl()
    finally:
        await run(f"DROP DATABASE IF EXISTS {database}")


@asynccontextmanager
async def mysql_store(database: str | None = None) -> AsyncIterator[MySQLStore]:
    """A `MySQLStore` in a fresh database of its own, dropped afterwards."""
    async with mysql_database(database) as dsn, MySQLStore(dsn, max_size=4) as s:
        yield s


def server_store(server: str) -> AbstractAsyncContextManager[PostgresStore | MySQLStore]:
    """A fresh store on `server` ("postgres" or "mysql"), required to be up (a failure under CI)."""
    if server == "postgres":
        require_postgres()
        return postgres_store()
    require_mysql()
    return mysql_store()


def store_url(store: Store) -> str:
    """The URL another store object (or a child process) opens the same SQLite file, PostgreSQL
    schema or MySQL database with."""
    if isinstance(store, SQLiteStore):
        return f"sqlite:///{Path(store.path).resolve()}"
    if isinstance(store, PostgresStore):
        return f"{POSTGRES_DSN}?schema={store.schema}"
    assert isinstance(store, MySQLStore)
    return str(urlsplit(MYSQL_DSN)._replace(path=f"/{store.database}").geturl())
