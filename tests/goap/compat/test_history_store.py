"""`goap.compat.StoreExecutionHistory` keeps every record when writers run concurrently.

Records go to real LangGraph stores: the in-memory store under threads, and LangGraph's
PostgreSQL store under asyncio (its reads and writes await the server, so writers interleave).
"""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from db_servers import langgraph_postgres_store
from langgraph.store.memory import InMemoryStore

from goap.compat.history import ExecutionRecord, StoreExecutionHistory


def record(goal_hash: str, i: int, outcome: str = "success") -> ExecutionRecord:
    """Record ``i`` of goal ``goal_hash``; its one action is named after both (unique per run)."""
    return ExecutionRecord(
        goal_hash=goal_hash,
        goal_conditions={"done": True},
        plan_actions=(f"{goal_hash}-act{i}",),
        expected_cost=float(i),
        actual_cost=float(i),
        outcome=outcome,
        replan_count=0,
        timestamp=datetime.now(UTC),
    )


def test_threads_recording_one_goal_lose_no_record() -> None:
    """Forty threads recording under one goal leave forty ids in its index."""
    history = StoreExecutionHistory(InMemoryStore())
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: history.record(record("g", i)), range(40)))
    got = history.query_by_goal("g", limit=100)
    assert sorted(r.expected_cost for r in got) == [float(i) for i in range(40)]


async def test_async_writers_on_postgres_lose_no_record() -> None:
    """Twenty concurrent arecord calls on LangGraph's PostgreSQL store all land in the goal index."""
    goal = f"compat-history-{uuid.uuid4().hex}"
    async with langgraph_postgres_store("compat_history") as store:
        history = StoreExecutionHistory(store)
        await asyncio.gather(*(history.arecord(record(goal, i, "failed")) for i in range(20)))
        got = await history.aquery_by_goal(goal, limit=100)
        assert len(got) == 20
        assert len(await history.aquery_failures(f"{goal}-act3")) == 1
