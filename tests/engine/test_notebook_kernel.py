"""The sync API in real notebook cells: a notebook executed by a Jupyter kernel (ipykernel, through nbclient).

ipykernel runs every cell inside its own running event loop, the case where `asyncio.run` fails;
the cells call `Engine.run_sync`/`resume_sync` on a SQLite file and LangGraph's `invoke` with a
`GraphEngineSaver`, then mix in a top-level `await` on the same store, as a notebook user does;
and the kernel is interrupted (SIGINT, as the notebook's "interrupt kernel" button sends it)
while a `run_sync` waits.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

import graphengine

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

SRC = Path(graphengine.__file__).resolve().parents[1]

CELLS = [
    f"import sys\nsys.path.insert(0, {str(SRC)!r})",
    """
import asyncio, json
from pydantic import BaseModel
from graphengine import Context, Engine, NodeResult, goto, stop
from graphengine.store import SQLiteStore

class Count(BaseModel):
    n: int = 0
    answer: str = ""

def ask(ctx: Context, s: Count) -> NodeResult[Count]:
    return NodeResult(delta=Count(answer=str(ctx.interrupt("name?"))), route=stop())

g = Engine(Count, store=SQLiteStore("runs.db"))
g.add("inc", lambda ctx, s: NodeResult(delta=Count(n=s.n + 1)))
g.add("check", lambda ctx, s: NodeResult(route=goto("ask") if s.n >= 3 else goto("inc")))
g.add("ask", ask)
g.start_at("inc").connect("inc", "check")
asyncio.get_running_loop()  # the kernel's loop runs this cell
""",
    'print(json.dumps({"paused": g.run_sync("r1", Count()).model_dump()}))',
    'print(json.dumps({"resumed": g.resume_sync("r1", input="Ada").model_dump()}))',
    'print(json.dumps({"awaited": (await g.get_run("r1")).status.value}))',
    """
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import END, START, StateGraph
from graphengine.adapters.langgraph_saver import GraphEngineSaver
from graphengine.adapters.langgraph_tables import SQLiteCheckpointTable

class Chat(TypedDict):
    said: Annotated[list[str], lambda a, b: [*a, *b]]

b = StateGraph(Chat)
b.add_node("echo", lambda s: {"said": ["echo " + s["said"][-1]]})
b.add_edge(START, "echo")
b.add_edge("echo", END)
app = b.compile(checkpointer=GraphEngineSaver(SQLiteCheckpointTable("cp.db")))
cfg = {"configurable": {"thread_id": "t"}}
app.invoke({"said": ["hi"]}, cfg)
print(json.dumps({"invoked": app.invoke({"said": ["again"]}, cfg)["said"]}))
""",
]


def test_a_notebook_runs_the_sync_api_in_its_kernel(tmp_path: Path) -> None:
    """Cells calling run_sync, resume_sync and LangGraph's invoke with GraphEngineSaver run in a kernel."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    printed: dict[str, object] = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", "".join(out.get("traceback", []))
            if out["output_type"] == "stream" and out["name"] == "stdout":
                for line in out["text"].splitlines():
                    printed.update(json.loads(line))
    assert printed == {
        "paused": {"n": 3, "answer": ""},
        "resumed": {"n": 3, "answer": "Ada"},
        "awaited": "done",
        "invoked": ["hi", "echo hi", "again", "echo again"],
    }


SLOW = f"""
import sys
sys.path.insert(0, {str(SRC)!r})
import asyncio, pathlib
from pydantic import BaseModel
from graphengine import Engine, NodeResult, stop
from graphengine.store import SQLiteStore

class C(BaseModel):
    n: int = 0

async def slow(ctx, s):
    if not pathlib.Path("answered").exists():
        pathlib.Path("started").write_text("")  # tells the test the node is running
        await asyncio.sleep(60)
    return NodeResult(delta=C(n=s.n + 1), route=stop())

g = Engine(C, store=SQLiteStore("runs.db"))
g.add("slow", slow).start_at("slow")
"""


def test_interrupting_the_kernel_cancels_a_run_sync_and_resume_sync_finishes_it(tmp_path: Path) -> None:
    """ "Interrupt kernel" during run_sync stops the run (status cancelled) instead of leaving it running unseen."""
    jupyter_client = pytest.importorskip("jupyter_client")
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name="python3", cwd=str(tmp_path))
    try:
        assert _execute(kc, SLOW) == ("", None)
        msg_id = kc.execute("g.run_sync('r1', C())")
        deadline = time.monotonic() + 60
        while not (tmp_path / "started").exists():
            assert time.monotonic() < deadline, "the node never started"
            time.sleep(0.02)
        km.interrupt_kernel()
        assert _outcome(kc, msg_id) == ("", "KeyboardInterrupt")
        assert _execute(kc, "print((await g.get_run('r1')).status.value)") == ("cancelled\n", None)
        (tmp_path / "answered").write_text("")
        assert _execute(kc, "print(g.resume_sync('r1'))") == ("n=1\n", None)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def _execute(kc: Any, code: str) -> tuple[str, str | None]:
    """Run `code` in the kernel: what it printed and the name of the error it raised (or None)."""
    return _outcome(kc, kc.execute(code))


def _outcome(kc: Any, msg_id: str) -> tuple[str, str | None]:
    """What the execution `msg_id` printed and the name of its error, once the kernel is idle again."""
    printed, error = [], None
    while True:
        msg = kc.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            printed.append(content["text"])
        elif kind == "error":
            error = content["ename"]
        elif kind == "status" and content["execution_state"] == "idle":
            return "".join(printed), error
