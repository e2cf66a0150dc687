"""`from_langgraph(...).run_sync`/`resume_sync` called from inside a running event loop, as a Jupyter cell calls them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import pytest

pytest.importorskip("langgraph")

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from typing_extensions import TypedDict

from graphengine.adapters.langgraph import from_langgraph
from graphengine.store import SQLiteStore


class Chat(TypedDict):
    """What was said, appended to."""

    said: Annotated[list[str], lambda a, b: [*a, *b]]


def ask(s: Chat) -> Chat:
    return {"said": [f"name: {interrupt('name?')}"]}


def asking() -> StateGraph[Chat]:
    """echo, then ask for a name (an interrupt)."""
    b = StateGraph(Chat)
    b.add_node("echo", lambda s: {"said": ["echo " + s["said"][-1]]})
    b.add_node("ask", ask)
    b.add_edge(START, "echo")
    b.add_edge("echo", "ask")
    b.add_edge("ask", END)
    return b


async def test_an_adapted_graph_runs_and_resumes_sync_inside_a_running_loop(tmp_path: Path) -> None:
    """run_sync pauses at the interrupt and resume_sync answers it, both called in a running loop."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        g = from_langgraph(asking(), store=store)
        paused = g.run_sync("t1", {"said": ["hi"]})
        assert paused["said"] == ["hi", "echo hi"]
        done = g.resume_sync("t1", input="Ada")
        assert done["said"] == ["hi", "echo hi", "name: Ada"]
        assert (await g.values("t1"))["said"] == done["said"]  # read back on the test's own loop
