"""`LangGraphStoreHistory`: GOAP execution history over LangGraph stores (in-memory and Postgres)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest
from db_servers import langgraph_postgres_store
from goap_tasks import RELEASE_START, offline, release_actions

pytest.importorskip("langgraph")

from langgraph.store.base import BaseStore, PutOp
from langgraph.store.memory import InMemoryStore

from goap import GoalSpec, GoapGraph, GoapState
from goap.runtime._history import ActionRecord, ExecutionHistory, StoreExecutionHistory
from goap.runtime._lg_history import LangGraphStoreHistory


@pytest.fixture(params=["memory", "postgres"])
async def base_store(request: pytest.FixtureRequest) -> AsyncIterator[BaseStore]:
    """An empty LangGraph store: `InMemoryStore`, or `AsyncPostgresStore` in a schema of its own."""
    if request.param == "memory":
        yield InMemoryStore()
        return
    async with langgraph_postgres_store("lgh") as store:
        yield store


async def _goap_run(run_id: str, goal: Mapping[str, Any]) -> GoapState:
    return await GoapGraph(release_actions(offline), blacklist_after=2).run(
        run_id, RELEASE_START, GoalSpec(dict(goal))
    )


def test_is_an_execution_history() -> None:
    """LangGraphStoreHistory satisfies the ExecutionHistory protocol."""
    assert isinstance(LangGraphStoreHistory(InMemoryStore()), ExecutionHistory)


async def test_by_run_returns_a_recorded_run_in_step_order(base_store: BaseStore) -> None:
    """A finished run recorded whole comes back record for record as StoreExecutionHistory reads it."""
    g = GoapGraph(release_actions(offline), blacklist_after=2)
    final = await g.run("r1", RELEASE_START, GoalSpec({"published": True}))
    hist = LangGraphStoreHistory(base_store)
    assert await hist.arecord_run("r1", final) == 6
    got = await hist.by_run("r1")
    assert got == await StoreExecutionHistory(g.engine).by_run("r1")
    assert [r.action for r in got] == ["fetch", "build", "sign_hsm", "sign_hsm", "sign_local", "publish"]
    assert got[2].error is not None and "HSM offline" in got[2].error
    assert got[0].effects == {"source": True}


async def test_recording_a_run_again_never_double_counts(base_store: BaseStore) -> None:
    """One item per (run, step): re-recording after a crash replaces, never appends."""
    final = await _goap_run("r1", {"published": True})
    hist = LangGraphStoreHistory(base_store)
    await hist.arecord_run("r1", final)
    await hist.arecord_run("r1", final)
    assert len(await hist.by_run("r1")) == len(final.execution_history)
    assert len(await hist.failures("sign_hsm")) == 2


async def test_by_action_spans_runs_newest_first(base_store: BaseStore) -> None:
    """by_action finds an action in every run, most recently recorded first, up to `limit`."""
    hist = LangGraphStoreHistory(base_store)
    await hist.arecord_run("old", await _goap_run("old", {"published": True}))
    await asyncio.sleep(0.01)  # distinct recorded_at (wall clock), not an ordering of tasks
    await hist.arecord_run("new", await _goap_run("new", {"built": True}))
    builds = await hist.by_action("build")
    assert [r.run_id for r in builds] == ["new", "old"]
    assert [r.run_id for r in await hist.by_action("build", limit=1)] == ["new"]
    assert await hist.by_action("never_ran") == []


async def test_failures_filter_by_success_and_action(base_store: BaseStore) -> None:
    """failures() returns only failed executions, of one action or of all."""
    hist = LangGraphStoreHistory(base_store)
    await hist.arecord_run("r", await _goap_run("r", {"published": True}))
    assert [f.action for f in await hist.failures()] == ["sign_hsm", "sign_hsm"]
    assert await hist.failures("publish") == []


async def test_run_ids_with_periods_and_prefix_neighbours_stay_apart(base_store: BaseStore) -> None:
    """Run ids LangGraph cannot use as labels are escaped; 'a' never sees 'a.b' or 'a%2Eb'."""
    hist = LangGraphStoreHistory(base_store)
    for rid in ("a", "a.b", "a%2Eb", ""):
        await hist.arecord(ActionRecord(rid, 1, f"act-{rid}", True))
    for rid in ("a", "a.b", "a%2Eb", ""):
        assert [r.action for r in await hist.by_run(rid)] == [f"act-{rid}"]
    assert await hist.by_run("unknown") == []


async def test_prefixes_separate_histories_in_one_store(base_store: BaseStore) -> None:
    """Two histories with different prefixes share a store without seeing each other."""
    a = LangGraphStoreHistory(base_store, prefix=("team_a", "history"))
    b = LangGraphStoreHistory(base_store, prefix=("team_b", "history"))
    await a.arecord(ActionRecord("r", 1, "x", True))
    assert await b.by_run("r") == []
    assert await b.by_action("x") == []


async def test_by_run_pages_through_long_runs(base_store: BaseStore) -> None:
    """A run with more records than one search page comes back whole and in order."""
    hist = LangGraphStoreHistory(base_store)
    await base_store.abatch(
        [
            PutOp(
                hist._ns("long"),
                f"{s:012d}",
                {"run_id": "long", "step": s, "action": "a", "success": True, "recorded_at": 0.0},
            )
            for s in range(1, 1203)
        ]
    )
    got = await hist.by_run("long")
    assert [r.step for r in got] == list(range(1, 1203))


def test_sync_record_on_the_in_memory_store() -> None:
    """record and record_run work without an event loop on a sync-capable store."""
    hist = LangGraphStoreHistory(InMemoryStore())
    hist.record(ActionRecord("r", 3, "x", False, "boom"))
    final = asyncio.run(_goap_run("r2", {"built": True}))
    assert hist.record_run("r2", final) == 2
    assert asyncio.run(hist.by_run("r")) == [ActionRecord("r", 3, "x", False, "boom")]
    assert [r.action for r in asyncio.run(hist.by_run("r2"))] == ["fetch", "build"]


def test_an_empty_prefix_is_refused() -> None:
    """A history needs a namespace of its own."""
    with pytest.raises(ValueError, match="prefix"):
        LangGraphStoreHistory(InMemoryStore(), prefix=())
