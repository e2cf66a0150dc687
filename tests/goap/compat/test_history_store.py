"""`goap.compat.StoreExecutionHistory` keeps every record when writers run concurrently.

Records go to real LangGraph stores: the in-memory store under threads, and LangGraph's
PostgreSQL store under asyncio (its reads and writes await the server, so writers interleave).
"""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from db_servers import POSTGRES_DSN, require_postgres, unique_name
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
    require_postgres("psycopg", "dev")
    import psycopg
    from langgraph.store.postgres import AsyncPostgresStore

    # LangGraph's store tables have fixed names: each run of this test keeps them in a schema of
    # its own, so suites running at once (or an older run's tables) never share them.
    schema = unique_name("compat_history")
    async with await psycopg.AsyncConnection.connect(POSTGRES_DSN, autocommit=True) as conn:
        # The name is ours (unique_name), not user text; identifiers cannot be bound.
        await conn.execute(f"CREATE SCHEMA {schema}")
    goal = f"compat-history-{uuid.uuid4().hex}"
    sep = "&" if "?" in POSTGRES_DSN else "?"
    try:
        async with AsyncPostgresStore.from_conn_string(
            f"{POSTGRES_DSN}{sep}options=-csearch_path%3D{schema}"
        ) as store:
            await store.setup()
            history = StoreExecutionHistory(store)
            await asyncio.gather(*(history.arecord(record(goal, i, "failed")) for i in range(20)))
            got = await history.aquery_by_goal(goal, limit=100)
            assert len(got) == 20
            assert len(await history.aquery_failures(f"{goal}-act3")) == 1
    finally:
        async with await psycopg.AsyncConnection.connect(POSTGRES_DSN, autocommit=True) as conn:
            await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
