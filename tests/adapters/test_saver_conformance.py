"""`GraphEngineSaver` passes LangGraph's own checkpointer conformance suite on every table."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from db_servers import POSTGRES_DSN, mysql_database, unique_name
from saver_helpers import drop_postgres_schema, require_table

pytest.importorskip("langgraph.checkpoint.conformance")

from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES

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


def _postgres(tmp: Path) -> Callable[[], AsyncIterator[GraphEngineSaver]]:
    async def factory() -> AsyncIterator[GraphEngineSaver]:
        schema = unique_name("lg")
        try:
            async with PostgresCheckpointTable(POSTGRES_DSN, schema=schema, max_size=4) as table:
                yield GraphEngineSaver(table)
        finally:
            await drop_postgres_schema(schema)

    return factory


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
@pytest.mark.parametrize("table", list(TABLES))
async def test_conformance_base_and_extended_capabilities(table: str, tmp_path: Path) -> None:
    """Every capability (put, writes, get, list, delete_thread, delete_for_runs, copy_thread, prune) passes."""
    require_table(table)
    registered = checkpointer_test(name=f"GraphEngineSaver[{table}]")(TABLES[table](tmp_path))
    report = await validate(registered)
    failures: dict[str, Any] = {
        cap: res.failures for cap, res in report.results.items() if res.passed is not True
    }
    assert not failures, failures
    assert {r for r, res in report.results.items() if res.passed} == {c.value for c in ALL_CAPABILITIES}
