"""The graph of the adapted-graph crash test, and its worker: `python lg_crash_graph.py DB LOG run|resume`.

A map-reduce in LangGraph's how-to shape: `plan` sends one `work` task per item, the tasks of
that superstep run as one engine fan-out, `total` sums their results. Every `work` execution
appends `"<pid> <item>"` to the side log (flushed and fsynced before it continues), so the test
can tell which process ran which task. With `LG_CRASH_KILL=<item>` set, the task of that item
SIGKILLs its own process once the tasks before it have landed.
"""

from __future__ import annotations

import asyncio
import operator
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from typing_extensions import TypedDict

ITEMS = 6
RUN_ID = "crash"


class Crash(TypedDict):
    """The state: how many items, the results of their tasks, and the total."""

    n: int
    results: Annotated[list[int], operator.add]
    total: int


def build(log: Path) -> StateGraph[Any]:
    """The crash graph; `work` tasks write to `log`."""

    async def work(s: dict[str, Any]) -> dict[str, Any]:
        item = s["item"]
        with log.open("a") as f:
            f.write(f"{os.getpid()} {item}\n")
            f.flush()
            os.fsync(f.fileno())
        await asyncio.sleep(0.02 * item)  # the tasks land one by one, and are stored as they land
        if os.environ.get("LG_CRASH_KILL") == str(item):
            await asyncio.sleep(0.3)  # let the landed tasks' records be written
            os.kill(os.getpid(), signal.SIGKILL)
        return {"results": [item * item]}

    b = StateGraph(Crash)
    b.add_node("plan", lambda s: {"n": ITEMS})
    b.add_node("work", work)
    b.add_node("total", lambda s: {"total": sum(s["results"])})
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", lambda s: [Send("work", {"item": i}) for i in range(s["n"])], ["work"])
    b.add_edge("work", "total")
    b.add_edge("total", END)
    return b


def run_worker(worker: Path, args: list[str], kill: str | None) -> subprocess.CompletedProcess[str]:
    """Run a crash worker script in a fresh process on this test run's path; `kill` becomes `LG_CRASH_KILL`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("LG_CRASH_KILL", None)
    if kill is not None:
        env["LG_CRASH_KILL"] = kill
    return subprocess.run(
        [sys.executable, str(worker), *args], env=env, capture_output=True, text=True, timeout=120
    )


async def _main(db: Path, log: Path, what: str) -> None:
    from graphengine.adapters.langgraph import from_langgraph
    from graphengine.store import SQLiteStore

    store = SQLiteStore(db)
    g = from_langgraph(build(log), store=store)
    out = await (g.run(RUN_ID, {"n": 0, "results": [], "total": 0}) if what == "run" else g.resume(RUN_ID))
    await store.close()
    print(out["total"])


if __name__ == "__main__":
    asyncio.run(_main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))
