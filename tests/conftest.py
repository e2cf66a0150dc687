"""Shared fixtures. `store` runs a test once per store backend (see `STORE_BACKENDS`).

Adding a backend is one entry in `STORE_BACKENDS`: a name, an async context manager that yields
an empty store, and an `unavailable()` check returning why it cannot run here (or None). Embedded
backends are skipped with that reason; server backends (Postgres, MySQL, ...) are skipped too on
a developer machine, but under `CI=true` an unavailable server fails the test: CI must never
report a backend as passing when it did not run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from db_servers import (
    mysql_store,
    mysql_unavailable,
    postgres_store,
    postgres_unavailable,
    require_mysql,
    require_postgres,
    require_server,
)

from graphengine.store import MemoryStore, SQLiteStore, Store


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


@asynccontextmanager
async def _postgres(tmp_path: Path) -> AsyncIterator[Store]:
    async with postgres_store() as s:
        yield s


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
        unavailable=postgres_unavailable,
    ),
    StoreBackend(
        "mysql",
        _mysql,
        server=True,
        unavailable=mysql_unavailable,
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
    if backend.server:
        require_server(f"store backend {backend.name!r}", reason)
    elif reason is not None:
        pytest.skip(f"store backend {backend.name!r} is unavailable: {reason}")
    async with backend.open(tmp_path) as s:
        yield s


@pytest.fixture
def postgres_up() -> None:
    """For tests of one server backend (`pytestmark = pytest.mark.usefixtures("postgres_up")`):
    skip them without the PostgreSQL test server, or fail them under CI=true."""
    require_postgres()


@pytest.fixture
def mysql_up() -> None:
    """As `postgres_up`, for the MySQL test server."""
    require_mysql()
