"""Shared fixtures. `store` runs a test once per store backend (see `STORE_BACKENDS`).

Adding a backend is one entry in `STORE_BACKENDS`: a name, an async context manager that yields
an empty store, and an `unavailable()` check returning why it cannot run here (or None). Embedded
backends are skipped with that reason; server backends (Postgres, MySQL, ...) are skipped too on
a developer machine, but under `CI=true` an unavailable server fails the test: CI must never
report a backend as passing when it did not run.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from graphengine.store import MemoryStore, MySQLStore, PostgresStore, SQLiteStore, Store


@dataclass(frozen=True)
class StoreBackend:
    """One store implementation the contract suite runs against."""

    name: str
    """Test id (`test_x[sqlite]`)."""
    open: Callable[[Path], AbstractAsyncContextManager[Store]]
    """Yields an empty store (given a fresh temporary directory) and releases it afterwards."""
    server: bool = False
    """Needs a server; under CI=true its absence is a failure, not a skip."""
    unavailable: Callable[[], str | None] = lambda: None
    """Why the backend cannot run here (missing driver, server down), or None."""


@asynccontextmanager
async def _memory(tmp_path: Path) -> AsyncIterator[Store]:
    yield MemoryStore()


@asynccontextmanager
async def _sqlite(tmp_path: Path) -> AsyncIterator[Store]:
    async with SQLiteStore(tmp_path / "store.db") as s:
        yield s


POSTGRES_DSN = os.environ.get("GRAPHENGINE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
"""The PostgreSQL server tests use; each test gets a schema of its own in it."""
MYSQL_DSN = os.environ.get("GRAPHENGINE_TEST_MYSQL", "mysql://root@127.0.0.1:3306/test")
"""The MySQL/MariaDB server tests use; each test gets a database of its own on it."""


@functools.cache
def _server_unavailable(dsn: str, driver: str, extra: str) -> str | None:
    """Why a server backend cannot run here: its driver is missing or nothing listens at `dsn`."""
    if importlib.util.find_spec(driver) is None:
        return f"driver {driver!r} is not installed (pip install 'graphengine[{extra}]')"
    url = urlsplit(dsn)
    try:
        socket.create_connection((url.hostname or "127.0.0.1", url.port or 0), timeout=2).close()
    except OSError as exc:
        return f"no server at {url.hostname}:{url.port}: {exc}"
    return None


def unique_name(prefix: str) -> str:
    """A schema/database name no other test (or test process) uses."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


@asynccontextmanager
async def postgres_store(schema: str | None = None) -> AsyncIterator[PostgresStore]:
    """A `PostgresStore` in a fresh schema of its own, dropped afterwards."""
    import asyncpg

    schema = schema or unique_name("t")
    try:
        async with PostgresStore(POSTGRES_DSN, schema=schema, min_size=1, max_size=4) as s:
            yield s
    finally:
        conn = await asyncpg.connect(POSTGRES_DSN)
        try:
            # The name is ours (unique_name), not user text; identifiers cannot be bound.
            await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        finally:
            await conn.close()


@asynccontextmanager
async def _postgres(tmp_path: Path) -> AsyncIterator[Store]:
    async with postgres_store() as s:
        yield s


@asynccontextmanager
async def mysql_store(database: str | None = None) -> AsyncIterator[MySQLStore]:
    """A `MySQLStore` in a fresh database of its own, dropped afterwards."""
    import asyncmy

    database = database or unique_name("t")
    url = urlsplit(MYSQL_DSN)
    server = {
        "host": url.hostname,
        "port": url.port or 3306,
        "user": url.username or "root",
        "password": url.password or "",
    }
    conn = await asyncmy.connect(**server)
    try:
        async with conn.cursor() as cur:
            # The name is ours (unique_name), not user text; identifiers cannot be bound.
            await cur.execute(f"CREATE DATABASE {database}")
    finally:
        conn.close()
    try:
        async with MySQLStore(url._replace(path=f"/{database}").geturl(), max_size=4) as s:
            yield s
    finally:
        conn = await asyncmy.connect(**server)
        try:
            async with conn.cursor() as cur:
                await cur.execute(f"DROP DATABASE IF EXISTS {database}")
        finally:
            conn.close()


@asynccontextmanager
async def _mysql(tmp_path: Path) -> AsyncIterator[Store]:
    async with mysql_store() as s:
        yield s


STORE_BACKENDS: list[StoreBackend] = [
    StoreBackend("memory", _memory),
    StoreBackend("sqlite", _sqlite),
    StoreBackend(
        "postgres",
        _postgres,
        server=True,
        unavailable=lambda: _server_unavailable(POSTGRES_DSN, "asyncpg", "postgres"),
    ),
    StoreBackend(
        "mysql",
        _mysql,
        server=True,
        unavailable=lambda: _server_unavailable(MYSQL_DSN, "asyncmy", "mysql"),
    ),
]


@pytest.fixture(params=STORE_BACKENDS, ids=lambda b: b.name)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """An empty store of each backend in `STORE_BACKENDS`."""
    async with _open_backend(request.param, tmp_path) as s:
        yield s


@pytest.fixture(params=[b for b in STORE_BACKENDS if b.name != "memory"], ids=lambda b: b.name)
async def sql_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """An empty store of each SQL backend (for damage only a database allows: rows deleted by hand)."""
    async with _open_backend(request.param, tmp_path) as s:
        yield s


@asynccontextmanager
async def _open_backend(backend: StoreBackend, tmp_path: Path) -> AsyncIterator[Store]:
    reason = backend.unavailable()
    if reason is not None:
        if backend.server and os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"store backend {backend.name!r} is unavailable under CI: {reason}")
        pytest.skip(f"store backend {backend.name!r} is unavailable: {reason}")
    async with backend.open(tmp_path) as s:
        yield s
