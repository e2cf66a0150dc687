"""`GraphEngineSaver` passes LangGraph's own checkpointer conformance suite on every table."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import MYSQL_DSN, POSTGRES_DSN, _server_unavailable, unique_name

pytest.importorskip("langgraph.checkpoint.conformance")

from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import Capability

from graphengine.adapters.langgraph_saver import GraphEngineSaver
from graphengine.adapters.langgraph_tables import (
    MemoryCheckpointTable,
    PostgresCheckpointTable,
    SQLiteCheckpointTable,
)


def _memory(tmp: Path) -> Callable[[], AsyncIterator[GraphEngineSaver]]:
    async def factory() -> AsyncIterator[GraphEngineSaver]:
        yield GraphEngineSaver(MemoryCheckpointTable())

    return factory


def _sqlite(tmp: Path) -> Callable[[], AsyncIterator[GraphEngineSaver]]:
    n = iter(range(1000))

    async def factory() -> AsyncIterator[GraphEngineSaver]:
        async with SQLiteCheckpointTable(tmp / f"cp{next(n)}.db") as table:
            yield GraphEngineSaver(table)

    return factory


async def drop_postgres_schema(schema: str) -> None:
    """Drop a test's schema (its name is ours, from unique_name; identifiers cannot be bound)."""
    import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

    conn = await asyncpg.connect(POSTGRES_DSN)
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        await conn.close()


def _postgres(tmp: Path) -> Callable[[], AsyncIterator[GraphEngineSaver]]:
    async def factory() -> AsyncIterator[GraphEngineSaver]:
        schema = unique_name("lg")
        try:
            async with PostgresCheckpointTable(POSTGRES_DSN, schema=schema, max_size=4) as table:
                yield GraphEngineSaver(table)
        finally:
            await drop_postgres_schema(schema)

    return factory


@asynccontextmanager
async def mysql_database() -> AsyncIterator[str]:
    """The DSN of a fresh MySQL database of its own, dropped afterwards."""
    import asyncmy

    database = unique_name("lg")
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


def _mysql(tmp: Path) -> Callable[[], AsyncIterator[GraphEngineSaver]]:
    from graphengine.adapters.langgraph_tables import MySQLCheckpointTable

    async def factory() -> AsyncIterator[GraphEngineSaver]:
        async with mysql_database() as dsn, MySQLCheckpointTable(dsn, max_size=4) as table:
            yield GraphEngineSaver(table)

    return factory


TABLES: dict[str, Callable[[Path], Callable[[], AsyncIterator[GraphEngineSaver]]]] = {
    "memory": _memory,
    "sqlite": _sqlite,
    "postgres": _postgres,
    "mysql": _mysql,
}
SERVERS: dict[str, Callable[[], str | None]] = {
    "postgres": lambda: _server_unavailable(POSTGRES_DSN, "asyncpg", "postgres"),
    "mysql": lambda: _server_unavailable(MYSQL_DSN, "asyncmy", "mysql"),
}
"""Tables on a server: skipped when it is down, except under CI=true, where that fails."""


def require_table(table: str) -> None:
    """Skip (or, under CI=true, fail) when a server table's driver or server is missing."""
    reason = SERVERS[table]() if table in SERVERS else None
    if reason is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"checkpoint table {table!r} is unavailable under CI: {reason}")
    pytest.skip(f"checkpoint table {table!r} is unavailable: {reason}")


NOT_MET: dict[str, str] = {}
"""Capabilities of the suite GraphEngineSaver does not meet, each with why (none today).

Every other capability the installed suite knows is run, so a capability a newer suite adds is
checked as soon as it is installed: green when the saver meets it, red (naming it) until it is
met or named here.
"""


@pytest.mark.parametrize("table", list(TABLES))
async def test_conformance_every_capability_of_the_suite(table: str, tmp_path: Path) -> None:
    """Every capability the installed suite has (put, writes, get, list, delete_thread,
    delete_for_runs, copy_thread, prune, delta_channel_history, ...) passes, except those in NOT_MET."""
    require_table(table)
    wanted = {c.value for c in Capability} - NOT_MET.keys()
    registered = checkpointer_test(name=f"GraphEngineSaver[{table}]")(TABLES[table](tmp_path))
    report = await validate(registered, capabilities=wanted)
    results = {cap: report.results.get(cap) for cap in sorted(wanted)}
    unmet = {
        cap: ("not run" if res is None else "not detected" if not res.detected else res.failures)
        for cap, res in results.items()
        if res is None or res.passed is not True
    }
    assert not unmet, unmet
