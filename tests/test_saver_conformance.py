"""`GraphEngineSaver` passes LangGraph's own checkpointer conformance suite on every table."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.checkpoint.conformance")

from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES

from graphengine.adapters.langgraph_saver import GraphEngineSaver
from store.lg_memory import MemoryCheckpointTable
from store.lg_sqlite import SQLiteCheckpointTable


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


TABLES: dict[str, Callable[[Path], Callable[[], AsyncIterator[GraphEngineSaver]]]] = {
    "memory": _memory,
    "sqlite": _sqlite,
}


@pytest.mark.parametrize("table", list(TABLES))
async def test_conformance_base_and_extended_capabilities(table: str, tmp_path: Path) -> None:
    """Every capability (put, writes, get, list, delete_thread, delete_for_runs, copy_thread, prune) passes."""
    registered = checkpointer_test(name=f"GraphEngineSaver[{table}]")(TABLES[table](tmp_path))
    report = await validate(registered)
    failures: dict[str, Any] = {
        cap: res.failures for cap, res in report.results.items() if res.passed is not True
    }
    assert not failures, failures
    assert {r for r, res in report.results.items() if res.passed} == {c.value for c in ALL_CAPABILITIES}
