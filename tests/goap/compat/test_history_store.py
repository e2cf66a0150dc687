"""`goap.compat.StoreExecutionHistory` keeps every record when writers run concurrently.

Records go to real LangGraph stores: the in-memory store under threads, and LangGraph's
PostgreSQL store under asyncio (its reads and writes await the server, so writers interleave).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
from langgraph.store.memory import InMemoryStore

from goap.compat.history import ExecutionRecord, StoreExecutionHistory

PG_URL = os.environ.get("GOAP_COMPAT_PG", "postgresql://postgres@127.0.0.1:5432/test")
SCHEMA = "goap_compat_history"
"""LangGraph's store tables have fixed names: this suite keeps them in its own schema."""


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


def _pg_available() -> str | None:
    try:
        import psycopg

        with psycopg.connect(PG_URL, connect_timeout=2, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
            return None
    except Exception as exc:
        return f"PostgreSQL at {PG_URL} unavailable: {exc}"


async def test_async_writers_on_postgres_lose_no_record() -> None:
    """Twenty concurrent arecord calls on LangGraph's PostgreSQL store all land in the goal index."""
    why = _pg_available()
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    from langgraph.store.postgres import AsyncPostgresStore

    goal = f"compat-history-{uuid.uuid4().hex}"
    url = f"{PG_URL}?options=-csearch_path%3D{SCHEMA}"
    async with AsyncPostgresStore.from_conn_string(url) as store:
        await store.setup()
        history = StoreExecutionHistory(store)
        await asyncio.gather(*(history.arecord(record(goal, i, "failed")) for i in range(20)))
        got = await history.aquery_by_goal(goal, limit=100)
        assert len(got) == 20
        assert len(await history.aquery_failures(f"{goal}-act3")) == 1
