"""`to_langgraph` options a graph written in LangGraph has: compile-time `interrupt_before` /
`interrupt_after`, a `store`, nodes with a sync and an async form (`DualNode`), and TypedDict states
whose engine has its own codec (values pydantic cannot describe).

Oracle: the same graph written natively in LangGraph (`StateGraph` with the same nodes) pauses at
the same nodes with the same values.
"""

from __future__ import annotations

import asyncio
import json
import operator
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.store.memory import InMemoryStore

from graphengine import Context, DualNode, Engine, NodeResult, UnknownNodeError
from graphengine.adapters.langgraph import to_langgraph


class T(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    n: int


def _step(name: str) -> Any:
    def fn(s: dict[str, Any]) -> dict[str, Any]:
        return {"log": [name], "n": s.get("n", 0) + 1}

    return fn


def _engine() -> Engine[T]:
    g: Engine[T] = Engine(T)
    for name in ("a", "b", "c"):
        fn = _step(name)
        g.add(name, lambda ctx, s, fn=fn: NodeResult(delta=fn(s)))
    g.start_at("a").connect("a", "b").connect("b", "c")
    return g


def _native(**kw: Any) -> Any:
    b = StateGraph(T)
    for name in ("a", "b", "c"):
        b.add_node(name, _step(name))
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "c")
    b.add_edge("c", END)
    return b.compile(checkpointer=InMemorySaver(), **kw)


def _pauses(app: Any) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """Invoke, then continue with `invoke(None)` until done: each pause's next nodes and values."""
    cfg = {"configurable": {"thread_id": "t"}}
    out = []
    app.invoke({"n": 0}, cfg)
    for _ in range(10):
        snap = app.get_state(cfg)
        vals = {k: snap.values[k] for k in ("log", "n") if k in snap.values}
        out.append((tuple(snap.next), vals))
        if not snap.next:
            break
        app.invoke(None, cfg)
    return out


@pytest.mark.parametrize(
    "kw",
    [
        {"interrupt_before": ["b"]},
        {"interrupt_after": ["a", "b"]},
        {"interrupt_before": ["c"], "interrupt_after": ["a"]},
        {"interrupt_before": "*"},
    ],
)
def test_compile_time_interrupts_pause_where_langgraph_pauses(kw: dict[str, Any]) -> None:
    """interrupt_before/interrupt_after pause the adapted graph before/after the same nodes, with the
    same state, as the graph written in LangGraph; `invoke(None)` continues."""
    adapted = to_langgraph(_engine(), InMemorySaver(), **kw)
    assert _pauses(adapted) == _pauses(_native(**kw))


def test_interrupt_names_an_unknown_node() -> None:
    with pytest.raises(UnknownNodeError, match="'nope'"):
        to_langgraph(_engine(), InMemorySaver(), interrupt_before=["nope"])
    with pytest.raises(UnknownNodeError, match="interrupt_after"):
        to_langgraph(_engine(), InMemorySaver(), interrupt_after="nope")


def test_store_reaches_nodes() -> None:
    """The store is the compiled graph's: nodes read it with LangGraph's `get_store()`."""
    store = InMemoryStore()
    store.put(("cfg",), "limit", {"v": 7})
    g: Engine[T] = Engine(T)
    g.add("read", lambda ctx, s: NodeResult(delta={"n": get_store().get(("cfg",), "limit").value["v"]}))
    g.start_at("read")
    app = to_langgraph(g, store=store)
    assert app.store is store
    assert app.invoke({"n": 0})["n"] == 7


def test_dual_node_runs_its_sync_form_under_invoke_and_async_under_ainvoke() -> None:
    """A DualNode runs `run_sync` under `invoke` and `arun` under `ainvoke` and on the engine."""

    def sync_form(ctx: Context, s: T) -> NodeResult[T]:
        return NodeResult(delta={"log": ["sync"]})

    async def async_form(ctx: Context, s: T) -> NodeResult[T]:
        await asyncio.sleep(0)
        return NodeResult(delta={"log": ["async"]})

    g: Engine[T] = Engine(T)
    g.add("x", DualNode(sync_form, async_form))
    g.start_at("x")
    app = to_langgraph(g)
    assert app.invoke({"n": 0})["log"] == ["sync"]
    assert asyncio.run(app.ainvoke({"n": 0}))["log"] == ["async"]
    assert g.run_sync("r", {"n": 0})["log"] == ["async"]


def test_dual_node_checks_its_forms() -> None:
    async def a(ctx: Context, s: Any) -> None:
        return None

    def s(ctx: Context, st: Any) -> None:
        return None

    with pytest.raises(TypeError, match="run_sync"):
        DualNode(a, a)
    with pytest.raises(TypeError, match="arun"):
        DualNode(s, s)


def test_dual_node_takes_callable_objects() -> None:
    """Objects whose `__call__` is sync or async are accepted as the forms their `__call__` is
    (a compat node is such an object), and refused as the other form."""

    class Sync:
        def __call__(self, ctx: Context, s: T) -> NodeResult[T]:
            return NodeResult(delta={"log": ["sync"]})

    class Async:
        async def __call__(self, ctx: Context, s: T) -> NodeResult[T]:
            return NodeResult(delta={"log": ["async"]})

    g: Engine[T] = Engine(T)
    g.add("x", DualNode(Sync(), Async()))
    g.start_at("x")
    assert to_langgraph(g).invoke({"n": 0})["log"] == ["sync"]
    assert g.run_sync("r", {"n": 0})["log"] == ["async"]
    with pytest.raises(TypeError, match="run_sync"):
        DualNode(Async(), Async())
    with pytest.raises(TypeError, match="arun"):
        DualNode(Sync(), Sync())


class Opaque:
    """A value pydantic has no schema for (the engine's codec below knows it)."""

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque) and other.tag == self.tag

    __hash__ = None  # type: ignore[assignment]


class OS(TypedDict, total=False):
    obj: Opaque
    log: Annotated[list[str], operator.add]


class OpaqueCodec:
    """Stores `obj` by its tag."""

    def encode(self, value: Any) -> bytes:
        d = dict(value)
        if "obj" in d:
            d["obj"] = d["obj"].tag
        return json.dumps(d).encode()

    encode_delta = encode

    def decode(self, data: bytes) -> Any:
        d = json.loads(data)
        if "obj" in d:
            d["obj"] = Opaque(d["obj"])
        return d

    decode_delta = decode


def test_typeddict_with_own_codec_passes_values_as_langgraph_does() -> None:
    """A TypedDict state with a value pydantic cannot describe: the adapted graph hands nodes the
    channel values themselves (as LangGraph does for a TypedDict schema) and still applies the
    field reducers; the engine stores the same run with its codec."""
    seen: list[Any] = []
    given = Opaque("x")

    def look(ctx: Context, s: OS) -> NodeResult[OS]:
        seen.append(s["obj"])
        return NodeResult(delta={"log": [s["obj"].tag]})

    g: Engine[OS] = Engine(OS, codec=OpaqueCodec())
    g.add("look", look).add("again", look).start_at("look").connect("look", "again")
    out = to_langgraph(g).invoke({"obj": given, "log": ["in"]})
    assert out == {"obj": given, "log": ["in", "x", "x"]}
    assert seen[0] is given
    assert g.run_sync("r", {"obj": given, "log": ["in"]}) == out


def test_langgraph_interrupt_called_by_node_code_pauses_the_graph() -> None:
    """Node code calling LangGraph's `interrupt()` pauses the adapted graph as it pauses a LangGraph
    node; `Command(resume=...)` gives the node the answer."""
    from langgraph.types import Command, interrupt

    def ask(ctx: Context, s: T) -> NodeResult[T]:
        answer = interrupt("name?")
        return NodeResult(delta={"log": [f"hi {answer}"]})

    g: Engine[T] = Engine(T)
    g.add("ask", ask).start_at("ask")
    app = to_langgraph(g, InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    first = app.invoke({"n": 0}, cfg)
    assert [i.value for i in first["__interrupt__"]] == ["name?"]
    assert app.invoke(Command(resume="Ada"), cfg)["log"] == ["hi Ada"]
