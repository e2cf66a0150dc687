"""Held-out LangGraph graphs: what the fidelity comparison's scripts cannot show.

The graphs of `lg_corpus_combined` run in `test_langgraph_fidelity` against LangGraph natively;
here: a second run on a thread, which the engine refuses by name; LangGraph's node cache, which
needs a cache per side and node call counts; a sync node's subgraph on a `MemoryStore`; and the
crash test of a combination the other crash tests lack: a sync node invoking a subgraph whose
`Send` tasks are cut short by SIGKILL, beside a parallel parent task.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langchain_core.messages import HumanMessage
from langgraph.cache.memory import InMemoryCache
from langgraph.checkpoint.memory import InMemorySaver
from lg_corpus_combined import (
    cached_pricing_loop,
    conversation_thread,
    sync_node_calls_a_twice_pausing_subgraph,
)
from lg_crash_graph import run_worker
from lg_crash_sync_subgraph import INPUT, ITEMS, build

from graphengine.adapters.langgraph import from_langgraph
from graphengine.store import MemoryStore, SQLiteStore

WORKER = Path(__file__).resolve().parents[1] / "lg_crash_sync_subgraph.py"
KILLED_AT = ITEMS - 1
"""The item whose `work` task kills its process (the others have landed by then)."""


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """The engine's in-memory store and a SQLite file."""
    s = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "lg.db")
    yield s
    await s.close()


async def test_a_second_run_on_a_thread_continues_it_as_langgraph_does(store: Any) -> None:
    """LangGraph's second `invoke` on a thread continues its state; so does a second `run` of the adapted graph."""
    native = conversation_thread().compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t"}}
    await native.ainvoke({"messages": [HumanMessage(content="tea?", id="u1")]}, config)
    second = await native.ainvoke({"messages": [("user", "with milk")]}, config)
    assert second["turns"] == 2  # what is not carried: the thread's state goes on

    adapted = from_langgraph(conversation_thread(), store=store)
    first = await adapted.run("t", {"messages": [HumanMessage(content="tea?", id="u1")]})
    assert first["turns"] == 1
    got = await adapted.run("t", {"messages": [("user", "with milk")]})
    assert got["turns"] == second["turns"]
    assert [m.content for m in got["messages"]] == [m.content for m in second["messages"]]


async def test_a_node_cache_skips_cached_tasks_as_langgraph_does(store: Any) -> None:
    """`compile(cache=...)` with a node `cache_policy`: the same results and the same node calls as LangGraph,
    in a loop within a run and across runs."""
    weights = [4, 4, 9]
    native_builder, native_calls = cached_pricing_loop()
    app = native_builder.compile(checkpointer=InMemorySaver(), cache=InMemoryCache())
    expected = [
        await app.ainvoke({"weight": w, "trace": []}, {"configurable": {"thread_id": f"t{i}"}})
        for i, w in enumerate(weights)
    ]
    assert native_calls == {"price": 2, "log": 9}  # the oracle caches: one call per distinct weight

    builder, calls = cached_pricing_loop()
    adapted = from_langgraph(builder, store=store, cache=InMemoryCache())
    assert [await adapted.run(f"t{i}", {"weight": w, "trace": []}) for i, w in enumerate(weights)] == expected
    assert calls == native_calls

    builder, calls = cached_pricing_loop()
    compiled = from_langgraph(builder.compile(cache=InMemoryCache()), store=MemoryStore())
    assert await compiled.run("t", {"weight": 4, "trace": []}) == expected[0]
    assert calls == {"price": 1, "log": 3}  # a compiled graph's own cache is used


async def test_a_subgraph_invoked_by_a_sync_node_pauses_on_a_memory_store() -> None:
    """A sync node's `subgraph.invoke` reaches the in-process checkpoint table without an event loop of its thread."""
    adapted = from_langgraph(sync_node_calls_a_twice_pausing_subgraph(), store=MemoryStore())
    out = await adapted.run("t", {"parcel": "p9"})
    assert [i.value for i in out["__interrupt__"]] == ["scan ok?"]
    out = await adapted.resume("t", input="fine")
    assert [i.value for i in out["__interrupt__"]] == ["stamp ok?"]
    assert await adapted.resume("t", input="done") == {"parcel": "p9|scanned:fine|stamped:done"}


def _child(db: Path, log: Path, what: str, kill: bool) -> subprocess.CompletedProcess[str]:
    return run_worker(WORKER, [str(db), str(log), what], str(KILLED_AT) if kill else None)


def _ran(log: Path) -> list[tuple[int, str]]:
    return [(int(p), w) for p, w in (line.split() for line in log.read_text().splitlines())]


async def test_a_kill_inside_a_sync_invoked_subgraph_re_runs_only_the_unfinished_send_task(
    tmp_path: Path,
) -> None:
    """Killed mid-superstep of the subgraph's Send tasks: the resume runs only the killed task, not `count`,
    the landed `work` tasks or the parent's parallel `side`, and ends with LangGraph's result."""
    db, log = tmp_path / "crash.db", tmp_path / "side.log"
    first = _child(db, log, "run", kill=True)
    assert first.returncode == -signal.SIGKILL, first.stderr
    before = _ran(log)
    assert {w for _, w in before} == {"side", "count", *(f"work{i}" for i in range(ITEMS))}
    second = _child(db, log, "resume", kill=False)
    assert second.returncode == 0, second.stderr
    after = [w for _, w in _ran(log)[len(before) :]]
    assert after == [f"work{KILLED_AT}"], f"re-ran {after} after the kill"
    native = await build(tmp_path / "native.log").compile().ainvoke(dict(INPUT))
    assert second.stdout.strip() == f"{sorted(native['results'])} {native['notes']}"
