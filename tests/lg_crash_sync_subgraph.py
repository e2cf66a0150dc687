"""The graph of the held-out crash test, and its worker: `python lg_crash_sync_subgraph.py DB LOG run|resume`.

A combination the other crash tests lack: a *sync* parent node invokes a compiled subgraph
(LangGraph's `subgraph.invoke(...)` inside a function, so its checkpoints go through the sync
bridge), beside a parallel parent task `side`. The subgraph runs `count`, then one `work` task per
item by `Send`. Every execution of `side`, `count` and `work` appends `"<pid> <what>"` to the side
log (flushed and fsynced), so the test can tell which process ran what. With
`LG_CRASH_KILL=<item>` set, the `work` task of that item SIGKILLs its process once the tasks
before it have landed.
"""

from __future__ import annotations

import asyncio
import operator
import os
import signal
import sys
import time
from pathlib import Path
from typing import Annotated, Any

from langgraph.graph import START, StateGraph
from langgraph.types import Send
from typing_extensions import TypedDict

ITEMS = 4
RUN_ID = "crash-sync-sub"
INPUT: dict[str, Any] = {"results": [], "notes": []}


class Parent(TypedDict):
    """The parent's state: the subgraph's results and the parallel task's notes."""

    results: Annotated[list[int], operator.add]
    notes: Annotated[list[str], operator.add]


class Child(TypedDict):
    """The subgraph's state."""

    n: int
    results: Annotated[list[int], operator.add]


def _mark(log: Path, what: str) -> None:
    with log.open("a") as f:
        f.write(f"{os.getpid()} {what}\n")
        f.flush()
        os.fsync(f.fileno())


def build(log: Path) -> StateGraph[Any]:
    """The parent graph; its nodes and its subgraph's nodes write to `log`."""

    def count(s: Child) -> dict[str, Any]:
        _mark(log, "count")
        return {"n": ITEMS}

    def work(s: dict[str, Any]) -> dict[str, Any]:
        item = s["item"]
        _mark(log, f"work{item}")
        time.sleep(0.05 * item)  # the tasks land one by one, and are stored as they land
        if os.environ.get("LG_CRASH_KILL") == str(item):
            time.sleep(0.3)  # let the landed tasks' writes be stored
            os.kill(os.getpid(), signal.SIGKILL)
        return {"results": [item * item]}

    child = StateGraph(Child)
    child.add_node("count", count)
    child.add_node("work", work)
    child.add_edge(START, "count")
    child.add_conditional_edges(
        "count", lambda s: [Send("work", {"item": i}) for i in range(s["n"])], ["work"]
    )
    sub = child.compile()

    def call_sub(s: Parent) -> dict[str, Any]:
        out = sub.invoke({"n": 0, "results": []})
        return {"results": out["results"]}

    def side(s: Parent) -> dict[str, Any]:
        _mark(log, "side")
        return {"notes": ["side"]}

    b = StateGraph(Parent)
    b.add_node("call_sub", call_sub)
    b.add_node("side", side)
    b.add_node("total", lambda s: {"notes": [f"total {sum(s['results'])}"]})
    b.add_edge(START, "call_sub")
    b.add_edge(START, "side")
    b.add_edge(["call_sub", "side"], "total")
    return b


async def _main(db: Path, log: Path, what: str) -> None:
    from graphengine.adapters.langgraph import from_langgraph
    from graphengine.store import SQLiteStore

    store = SQLiteStore(db)
    g = from_langgraph(build(log), store=store)
    out = await (g.run(RUN_ID, dict(INPUT)) if what == "run" else g.resume(RUN_ID))
    await store.close()
    print(sorted(out["results"]), out["notes"])


if __name__ == "__main__":
    asyncio.run(_main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))
