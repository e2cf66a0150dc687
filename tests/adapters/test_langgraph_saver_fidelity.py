"""LangGraph graphs give the same results and the same checkpoint history on `GraphEngineSaver` as on `InMemorySaver`.

Every case of the corpus and of the held-out set (`lg_corpus_flow`, `lg_corpus_pause`,
`lg_corpus_combined`) runs its script natively on LangGraph twice: with LangGraph's own
`InMemorySaver` (the oracle) and with `GraphEngineSaver` over the in-memory and the SQLite
checkpoint table. The values every call returns, the errors raised, and then the thread's whole
state history (values, next nodes, pending interrupts, step and source of every checkpoint)
must be equal.

Both sides run with `durability="sync"`: under LangGraph's default ("async") a checkpoint is
handed to a saver whose previous write is still in flight, and a waiting edge's barrier set in
it is the live one the next superstep adds to, so a saver doing real I/O stores the set as it
is later (LangGraph's own `AsyncSqliteSaver` records `next` with the join node too early, as
`GraphEngineSaver` over SQLite does); `InMemorySaver` writes at once and never sees it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from lg_compare import history, run_native
from lg_corpus_combined import COMBINED
from lg_corpus_flow import FLOW
from lg_corpus_pause import PAUSE

from graphengine.adapters.langgraph_saver import GraphEngineSaver
from graphengine.adapters.langgraph_tables import MemoryCheckpointTable, SQLiteCheckpointTable

CASES = {**FLOW, **PAUSE, **COMBINED}
"""Every case, corpus and held-out."""


@pytest.fixture(params=["memory", "sqlite"])
async def saver(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[GraphEngineSaver]:
    """`GraphEngineSaver` over the in-memory table and over a SQLite file."""
    if request.param == "memory":
        yield GraphEngineSaver(MemoryCheckpointTable())
        return
    async with SQLiteCheckpointTable(tmp_path / "cp.db") as table:
        yield GraphEngineSaver(table)


@pytest.mark.parametrize("name", sorted(CASES))
async def test_a_graph_on_graphengine_saver_matches_langgraph_in_memory_saver(
    name: str, saver: GraphEngineSaver
) -> None:
    """Every call returns what it returns on `InMemorySaver`, and the thread's checkpoint history is the same."""
    case = CASES[name]
    oracle = InMemorySaver()
    expected = await run_native(case, oracle, durability="sync")
    got = await run_native(case, saver, durability="sync")
    assert got == expected
    assert await history(case, saver) == await history(case, oracle)
