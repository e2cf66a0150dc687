"""The graph of the subgraph pause/kill tests, and its worker: `python lg_sub_graph.py DB LOG run|resume [ANSWER]`.

The parent runs `prep`, then the compiled subgraph `sub` (nodes `count`, then `ask`), then
`done`. `count` appends `"<pid> count"` to the side log (flushed and fsynced before it returns),
so the test can tell which process ran it; `ask` calls `interrupt()` and adds the answer. With
`LG_SUB_KILL=1` set, `ask` SIGKILLs its own process once `count`'s step has been committed.
The worker prints the run's output as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from typing_extensions import TypedDict

RUN_ID = "sub"
INPUT = {"log": [], "answer": ""}


class Sub(TypedDict):
    """The state the parent and its subgraph share."""

    log: list[str]
    answer: str


def build(log: Path) -> StateGraph[Any]:
    """The parent graph; its subgraph's `count` node writes to `log`."""

    def count(s: Sub) -> dict[str, Any]:
        with log.open("a") as f:
            f.write(f"{os.getpid()} count\n")
            f.flush()
            os.fsync(f.fileno())
        return {"log": [*s["log"], "count"]}

    async def ask(s: Sub) -> dict[str, Any]:
        if os.environ.get("LG_SUB_KILL") == "1":
            await asyncio.sleep(0.3)  # let the subgraph's checkpoint after `count` be written
            os.kill(os.getpid(), signal.SIGKILL)
        answer = interrupt("answer?")
        return {"log": [*s["log"], "ask"], "answer": str(answer)}

    child = StateGraph(Sub)
    child.add_node("count", count)
    child.add_node("ask", ask)
    child.add_edge(START, "count")
    child.add_edge("count", "ask")
    child.add_edge("ask", END)
    b = StateGraph(Sub)
    b.add_node("prep", lambda s: {"log": [*s["log"], "prep"]})
    b.add_node("sub", child.compile())
    b.add_node("done", lambda s: {"log": [*s["log"], "done"]})
    b.add_edge(START, "prep")
    b.add_edge("prep", "sub")
    b.add_edge("sub", "done")
    b.add_edge("done", END)
    return b


async def _main(db: Path, log: Path, what: str, answer: str | None) -> None:
    from graphengine.adapters.langgraph import from_langgraph
    from graphengine.store import SQLiteStore

    store = SQLiteStore(db)
    g = from_langgraph(build(log), store=store)
    if what == "run":
        out = await g.run(RUN_ID, dict(INPUT))
    elif answer is None:
        out = await g.resume(RUN_ID)
    else:
        out = await g.resume(RUN_ID, input=answer)
    await store.close()
    print(
        json.dumps(
            {k: v for k, v in out.items() if k != "__interrupt__"} | {"paused": "__interrupt__" in out}
        )
    )


if __name__ == "__main__":
    asyncio.run(
        _main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    )
