"""`from_langgraph`: the adapted graph's API (run, resume, breakpoints, limits, errors, events, other processes)."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

pytest.importorskip("langgraph")

from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from lg_corpus_flow import send_map_reduce, tool_calling_loop

from graphengine.adapters.langgraph import AdaptedGraph, UnsupportedFeature, from_langgraph
from graphengine.emit import EventKind, MemoryEmitter
from graphengine.options import Options
from graphengine.store import MemoryStore, RunStatus, SQLiteStore


class Chat(TypedDict):
    """The quick-start's state: messages accumulate, a counter is replaced."""

    messages: Annotated[list[str], operator.add]
    turns: int


def chatbot_graph() -> StateGraph[Any]:
    """START -> chatbot -> (turns < 3: tools -> chatbot) | END."""

    def chatbot(s: Chat) -> dict[str, Any]:
        return {"messages": [f"bot{s['turns']}"], "turns": s["turns"] + 1}

    def tools(s: Chat) -> dict[str, Any]:
        return {"messages": ["tool"]}

    def route(s: Chat) -> Literal["tools", "__end__"]:
        return "tools" if s["turns"] < 3 else END

    b = StateGraph(Chat)
    b.add_node("chatbot", chatbot)
    b.add_node("tools", tools)
    b.add_edge(START, "chatbot")
    b.add_conditional_edges("chatbot", route)
    b.add_edge("tools", "chatbot")
    return b


def sequence_graph() -> StateGraph[Any]:
    """A chain with async nodes and a path map."""

    async def first(s: Chat) -> dict[str, Any]:
        return {"messages": ["first"]}

    def second(s: Chat) -> None:
        return None

    def third(s: Chat) -> dict[str, Any]:
        return {"messages": ["third"], "turns": 9}

    b = StateGraph(Chat)
    b.add_node("first", first)
    b.add_node("second", second)
    b.add_node("third", third)
    b.add_edge(START, "first")
    b.add_conditional_edges("first", lambda s: "go", {"go": "second"})
    b.add_edge("second", "third")
    b.add_edge("third", END)
    return b


def parallel_graph() -> StateGraph[Any]:
    """a -> (b, c in parallel) -> d (a join)."""
    b = StateGraph(Chat)
    for n in "abcd":
        b.add_node(n, lambda s, n=n: {"messages": [n]})
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("a", "c")
    b.add_edge(["b", "c"], "d")
    b.add_edge("d", END)
    return b


class P(BaseModel):
    """A pydantic LangGraph state."""

    log: Annotated[list[str], operator.add] = []
    n: int = 0


def counting_loop(state: Any) -> StateGraph[Any]:
    """A loop over a state with attributes (pydantic or dataclass): three steps, each logged."""
    b = StateGraph(state)
    b.add_node("step", lambda s: {"log": [f"s{s.n}"], "n": s.n + 1})
    b.add_edge(START, "step")
    b.add_conditional_edges("step", lambda s: "step" if s.n < 3 else END)
    return b


def pydantic_graph() -> StateGraph[Any]:
    """A pydantic-state loop."""
    return counting_loop(P)


@dataclass
class D:
    """A dataclass LangGraph state."""

    log: Annotated[list[str], operator.add]
    n: int = 0


def dataclass_graph() -> StateGraph[Any]:
    """A dataclass-state loop."""
    return counting_loop(D)


GRAPHS = {
    "chatbot": (chatbot_graph, {"messages": ["hi"], "turns": 0}),
    "sequence": (sequence_graph, {"messages": [], "turns": 0}),
    "parallel": (parallel_graph, {"messages": [], "turns": 0}),
    "map_reduce": (send_map_reduce, {"flour": "rye"}),
    "pydantic": (pydantic_graph, {"log": [], "n": 0}),
    "dataclass": (dataclass_graph, {"log": [], "n": 0}),
}


@pytest.mark.parametrize("name", list(GRAPHS))
async def test_an_adapted_graph_returns_what_langgraph_invoke_returns(name: str) -> None:
    """`run` returns what LangGraph's `ainvoke` returns on the same input."""
    make, initial = GRAPHS[name]
    expected = await make().compile().ainvoke(initial)
    got = await from_langgraph(make()).run("r", initial)
    assert got == expected


def test_run_sync_returns_what_run_returns() -> None:
    """`run_sync` is `run` without an event loop."""
    assert from_langgraph(chatbot_graph()).run_sync("r", {"messages": ["hi"], "turns": 0})["turns"] == 3


def _ask() -> StateGraph[Any]:
    def ask(s: Chat) -> dict[str, Any]:
        return {"messages": [interrupt("name?")]}

    b = StateGraph(Chat)
    b.add_node("ask", ask)
    b.add_node("greet", lambda s: {"messages": [f"hello {s['messages'][-1]}"]})
    b.add_edge(START, "ask")
    b.add_edge("ask", "greet")
    return b


async def test_an_interrupt_keeps_waiting_until_it_is_answered() -> None:
    """`resume` without input leaves an `interrupt()` waiting; `resume(input=v)` makes `interrupt()` return v."""
    g = from_langgraph(_ask())
    first = await g.run("r", {"messages": [], "turns": 0})
    assert [i.value for i in first["__interrupt__"]] == ["name?"]
    again = await g.resume("r")
    assert [i.value for i in again["__interrupt__"]] == ["name?"]
    assert (await g.engine.get_run("r")).status is RunStatus.INTERRUPTED
    assert await g.resume("r", input="Ada") == {"messages": ["Ada", "hello Ada"], "turns": 0}


async def test_a_run_paused_in_one_process_is_answered_in_another(tmp_path: Path) -> None:
    """A second adapted graph on the same SQLite file rebuilds the channels from the stored checkpoint."""
    db = tmp_path / "lg.db"
    first, second = SQLiteStore(db), SQLiteStore(db)
    try:
        await from_langgraph(_ask(), store=first).run("r", {"messages": ["x"], "turns": 1})
        other = from_langgraph(_ask(), store=second)
        assert await other.resume("r", input="Bo") == {"messages": ["x", "Bo", "hello Bo"], "turns": 1}
    finally:
        await first.close()
        await second.close()


async def test_a_breakpoint_continues_with_resume_and_no_input() -> None:
    """`interrupt_before=` pauses before the node; `resume(run_id)` runs it."""
    g = from_langgraph(sequence_graph(), interrupt_before=["third"])
    paused = await g.run("r", {"messages": [], "turns": 0})
    assert paused == {"messages": ["first"], "turns": 0}
    assert await g.resume("r") == {"messages": ["first", "third"], "turns": 9}


async def test_a_compiled_graph_brings_its_breakpoints() -> None:
    """A graph compiled with `interrupt_after=` is accepted and pauses where LangGraph would."""
    g = from_langgraph(sequence_graph().compile(interrupt_after=["first"]))
    assert await g.run("r", {"messages": [], "turns": 0}) == {"messages": ["first"], "turns": 0}
    assert await g.resume("r") == {"messages": ["first", "third"], "turns": 9}


async def test_the_recursion_limit_is_options_max_steps() -> None:
    """A loop longer than `Options(max_steps=n)` supersteps raises LangGraph's GraphRecursionError."""
    g = from_langgraph(chatbot_graph(), options=Options(max_steps=3))
    with pytest.raises(GraphRecursionError, match="Recursion limit of 3"):
        await g.run("r", {"messages": [], "turns": 0})
    native = chatbot_graph().compile()
    with pytest.raises(GraphRecursionError):
        await native.ainvoke({"messages": [], "turns": 0}, {"recursion_limit": 3})


async def test_a_failing_task_raises_its_error_and_resume_re_runs_only_the_failed_task() -> None:
    """The node's own exception is raised; on resume the task that finished in the same superstep does not run again."""
    calls = {"ok": 0, "flaky": 0}

    def ok(s: Chat) -> dict[str, Any]:
        calls["ok"] += 1
        return {"messages": ["ok"]}

    def flaky(s: Chat) -> dict[str, Any]:
        calls["flaky"] += 1
        if calls["flaky"] == 1:
            raise KeyError("first time")
        return {"messages": ["flaky"]}

    b = StateGraph(Chat)
    b.add_node("ok", ok)
    b.add_node("flaky", flaky)
    b.add_edge(START, "ok")
    b.add_edge(START, "flaky")
    g = from_langgraph(b)
    with pytest.raises(KeyError, match="first time"):
        await g.run("r", {"messages": [], "turns": 0})
    assert (await g.engine.get_run("r")).status is RunStatus.FAILED
    assert await g.resume("r") == {"messages": ["flaky", "ok"], "turns": 0}
    assert calls == {"ok": 1, "flaky": 2}


async def test_events_name_the_langgraph_nodes() -> None:
    """Each task is an engine node named like the LangGraph node, so events and spans name it."""
    em = MemoryEmitter()
    await from_langgraph(parallel_graph(), emitter=em).run("r", {"messages": [], "turns": 0})
    started = [e.node_id for e in em.events if e.kind is EventKind.NODE_START]
    assert {"a", "b", "c", "d"} <= set(started)


@pytest.mark.parametrize(
    ("make", "initial"),
    [(send_map_reduce, {"flour": "rye"}), (tool_calling_loop, {"messages": [("user", "hi")]})],
    ids=["map_reduce", "messages"],
)
async def test_a_run_replays_without_divergence(make: Any, initial: Any) -> None:
    """The engine's replay re-runs every superstep and finds the same records (message ids included)."""
    g = from_langgraph(make(), store=MemoryStore())
    await g.run("r", initial)
    report = await g.engine.replay("r")
    assert report.ok, str(report)


async def test_values_reads_the_last_applied_superstep() -> None:
    """`values(run_id)` is the output channels after the last applied superstep (here: before the breakpoint)."""
    g = from_langgraph(sequence_graph(), interrupt_before=["second"])
    await g.run("r", {"messages": [], "turns": 0})
    assert await g.values("r") == {"messages": ["first"], "turns": 0}


async def test_a_command_answer_updates_the_state_before_the_node_continues() -> None:
    """`resume(input=Command(resume=v, update=...))` applies the update, then `interrupt()` returns v."""
    g = from_langgraph(_ask())
    await g.run("r", {"messages": [], "turns": 0})
    out = await g.resume("r", input=Command(resume="Cy", update={"turns": 5}))
    assert out == {"messages": ["Cy", "hello Cy"], "turns": 5}


def test_the_adapted_graph_exposes_its_engine() -> None:
    """`from_langgraph` returns an `AdaptedGraph` whose engine starts at the barrier and has one node per LangGraph node."""
    g = from_langgraph(parallel_graph())
    assert isinstance(g, AdaptedGraph)
    assert set(g.engine.nodes) == {"__superstep__", "__start__", "a", "b", "c", "d"}


def test_what_is_not_a_state_graph_is_refused_by_name() -> None:
    """Anything but a StateGraph (or a graph compiled from one) raises UnsupportedFeature naming what it got."""
    with pytest.raises(UnsupportedFeature, match="StateGraph") as info:
        from_langgraph(lambda s: s)
    assert info.value.feature == "graph kind"


async def test_the_from_langgraph_benchmark_runs_end_to_end() -> None:
    """`bench.langgraph_adapter.from_rows` compares LangGraph and the engine on both graphs and both stores."""
    from bench.langgraph_adapter import from_rows, render_from

    rates = await from_rows(steps=6, repeat=1)
    assert len(rates) == 10 and all(r.us_per_step > 0 for r in rates)
    assert "from_langgraph + sqlite store" in render_from(rates)


def test_a_checkpointer_or_a_langgraph_store_is_refused_by_name() -> None:
    """The engine's store keeps the run: a LangGraph checkpointer or BaseStore raises UnsupportedFeature naming it."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    with pytest.raises(UnsupportedFeature, match="store=") as info:
        from_langgraph(chatbot_graph(), checkpointer=InMemorySaver())
    assert info.value.feature == "checkpointer"
    with pytest.raises(UnsupportedFeature, match="BaseStore") as info:
        from_langgraph(chatbot_graph(), store=InMemoryStore())
    assert info.value.feature == "langgraph store"


async def test_a_run_context_reaches_the_nodes_runtime() -> None:
    """`run(..., context=)` is LangGraph's `invoke(context=)`: nodes read it from their `runtime` parameter."""

    def who(s: Chat, runtime: Any) -> dict[str, Any]:
        return {"messages": [str(runtime.context)]}

    b = StateGraph(Chat)
    b.add_node("who", who)
    b.add_edge(START, "who")
    out = await from_langgraph(b).run("r", {"messages": [], "turns": 0}, context="ctx")
    assert out["messages"] == ["ctx"]


async def test_concurrent_runs_of_one_adapted_graph_keep_apart() -> None:
    """Runs driven at once on one adapted graph each end with LangGraph's result for their own input."""
    import asyncio

    g = from_langgraph(send_map_reduce(), store=MemoryStore())
    flours = [f"f{i}" for i in range(6)]
    got = await asyncio.gather(*(g.run(f"r{f}", {"flour": f}) for f in flours))
    native = send_map_reduce().compile()
    assert got == [await native.ainvoke({"flour": f}) for f in flours]


async def test_opentelemetry_spans_name_the_langgraph_nodes() -> None:
    """With the engine's OTelEmitter every task of every superstep is a span carrying its LangGraph node's name."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from graphengine.emit import OTelEmitter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    await from_langgraph(parallel_graph(), emitter=OTelEmitter(provider)).run(
        "r", {"messages": [], "turns": 0}
    )
    nodes = [(s.attributes or {}).get("graphengine.node_id") for s in exporter.get_finished_spans()]
    assert {"a", "b", "c", "d"} <= set(nodes)


@pytest.mark.parametrize("name", ["", "__superstep__", "__fan_out__"])
def test_a_node_name_the_engine_cannot_hold_is_refused_by_name(name: str) -> None:
    """A node name that is empty or reserved by the engine raises UnsupportedFeature naming the node."""
    b = StateGraph(Chat)
    b.add_node(name, lambda s: None)
    b.add_edge(START, name)
    with pytest.raises(UnsupportedFeature, match="rename it") as info:
        from_langgraph(b)
    assert info.value.node_id == name
