"""What the LangGraph checkpoint-table tests share: server checks, schema clean-up, a growing graph.

Test modules import these by name (`from saver_helpers import ...`); no tests live here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any

from db_servers import (
    POSTGRES_DSN,
    drop_postgres_schema,
    mysql_database,
    mysql_unavailable,
    postgres_unavailable,
    require_server,
    unique_name,
)
from typing_extensions import TypedDict

from graphengine.adapters.langgraph_saver import GraphEngineSaver
from graphengine.adapters.langgraph_tables import (
    MemoryCheckpointTable,
    PostgresCheckpointTable,
    SQLiteCheckpointTable,
)

CFG: dict[str, Any] = {"configurable": {"thread_id": "t"}}
"""The config of the one thread the saver tests use."""


SERVERS: dict[str, Callable[[], str | None]] = {
    "postgres": postgres_unavailable,
    "mysql": mysql_unavailable,
}
"""Tables on a server: skipped when it is down, except under CI=true, where that fails."""


def require_table(table: str) -> None:
    """Skip (or, under CI=true, fail) when a server table's driver or server is missing."""
    require_server(f"checkpoint table {table!r}", SERVERS[table]() if table in SERVERS else None)


class Grow(TypedDict):
    """One item more per step next to a field that never changes."""

    items: Annotated[list[int], lambda a, b: [*a, *b]]
    blob: str


def growing(steps: int, saver: Any) -> Any:
    """A LangGraph loop appending one item per step until `steps` items."""
    # Imported here: modules that import this one skip themselves when LangGraph is missing.
    from langgraph.graph import END, START, StateGraph

    b: Any = StateGraph(Grow)
    b.add_node("add", lambda s: {"items": [len(s["items"])]})
    b.add_edge(START, "add")
    b.add_conditional_edges("add", lambda s: END if len(s["items"]) >= steps else "add")
    return b.compile(checkpointer=saver)


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
"""Checkpoint tables by name: a factory (given a fresh temporary folder) of savers on an empty table."""
