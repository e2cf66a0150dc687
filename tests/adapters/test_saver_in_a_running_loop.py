"""`GraphEngineSaver`'s sync methods called from inside a running event loop, as a Jupyter cell calls them.

Each test is an `async def` whose table was opened on the test's own loop (a connection bound to
that loop), then calls the sync API (LangGraph's `invoke`, `get_tuple`, `put`, ...) without
awaiting, and reads the result back through the async API on the test's loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from saver_helpers import CFG, TABLES, growing, require_table

pytest.importorskip("langgraph")

from langgraph.checkpoint.base import empty_checkpoint

from graphengine.adapters.langgraph_saver import GraphEngineSaver


@asynccontextmanager
async def saver_on(table: str, tmp: Path) -> AsyncIterator[GraphEngineSaver]:
    """A saver on an empty table opened in the running loop; its sync side closed afterwards."""
    require_table(table)
    async with asynccontextmanager(TABLES[table](tmp))() as saver:
        try:
            yield saver
        finally:
            saver.close()  # the sync call's own: closes what the sync methods opened


@pytest.mark.parametrize("table", list(TABLES))
async def test_sync_invoke_inside_a_running_loop(table: str, tmp_path: Path) -> None:
    """invoke, get_state and get_state_history work in a running loop, and agree with the async reads."""
    async with saver_on(table, tmp_path) as saver:
        asyncio.get_running_loop()  # the premise: a loop runs here, as in a notebook cell
        app = growing(4, saver)
        out = app.invoke({"items": [], "blob": "x"}, CFG)
        assert out == {"items": [0, 1, 2, 3], "blob": "x"}
        assert app.get_state(CFG).values == out
        assert [len(h.values.get("items", [])) for h in app.get_state_history(CFG)] == [4, 3, 2, 1, 0, 0]
        assert (await app.aget_state(CFG)).values == out  # read on the loop's own connection
        again = await app.ainvoke(None, CFG)  # nothing left to run: the same state
        assert again == out


@pytest.mark.parametrize("table", list(TABLES))
async def test_each_sync_method_inside_a_running_loop(table: str, tmp_path: Path) -> None:
    """put, put_writes, get_tuple, list, copy_thread and delete_thread answer in a running loop."""
    async with saver_on(table, tmp_path) as saver:
        cp: Any = empty_checkpoint()
        cp["channel_values"] = {"topic": "loops"}
        cp["channel_versions"] = {"topic": saver.get_next_version(None, None)}
        conf = saver.put(
            {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}, cp, {"step": 0}, cp["channel_versions"]
        )
        saver.put_writes(conf, [("topic", "next")], task_id="task-1")
        got = saver.get_tuple(conf)
        assert got is not None
        assert got.checkpoint["channel_values"] == {"topic": "loops"}
        assert got.pending_writes == [("task-1", "topic", "next")]
        assert [t.config["configurable"]["checkpoint_id"] for t in saver.list(CFG)] == [cp["id"]]
        saver.copy_thread("t", "u")
        assert (await saver.aget_tuple({"configurable": {"thread_id": "u"}})) is not None
        saver.delete_thread("t")
        assert saver.get_tuple(CFG) is None
        assert (await saver.aget_tuple(CFG)) is None
