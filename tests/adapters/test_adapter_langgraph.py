"""`to_langgraph`: an engine compiled into LangGraph behaves like the engine on the same input."""

from __future__ import annotations

import asyncio
import operator
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import BaseModel

pytest.importorskip("langgraph")

from adapted_engines import F, conditional_engine, interrupt_engine, tag
from engine_fixtures import S, seed_engine
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command

from graphengine import (
    Branch,
    Context,
    Engine,
    NodeResult,
    fan_out,
    goto,
    stop,
)
from graphengine.adapters.langgraph import FANIN_NODE, STATE_KEY, UnsupportedFeature, to_langgraph
from graphengine.store import MemoryStore


async def slow(ctx: Context, s: F) -> NodeResult[F]:
    """A branch that finishes last and doubles its input."""
    await asyncio.sleep(0.01 * (3 - s.item))
    return NodeResult(delta=F(log=[f"m{s.item}"], total=s.item * 2))


def map_engine() -> Engine[F]:
    """start -> map(work over items 0..2) -> join, plus a static fan-out a|b -> merge."""
    g = Engine(F)
    g.add(
        "start",
        lambda ctx, s: NodeResult(
            delta=F(log=["start"]),
            route=fan_out([Branch("work", F(item=i)) for i in range(3)], join="join"),
        ),
    )
    g.add("work", slow)
    g.add("join", tag("join"))
    g.add("a", tag("a"))
    g.add("b", tag("b"))
    g.add("merge", tag("merge"))
    g.start_at("start")
    g.connect("join", ["b", "a"], join="merge")
    return g


def subgraph_engine() -> Engine[F]:
    """outer -> sub (a child engine of another type, mapped in and out) -> same (a same-type child) -> end."""

    class C(BaseModel):
        x: int = 0

    child: Engine[C] = Engine(C)
    child.add("double", lambda ctx, c: NodeResult(delta=C(x=c.x * 2)))
    child.add("inc", lambda ctx, c: NodeResult(delta=C(x=c.x + 1)))
    child.start_at("double").connect("double", "inc")
    same: Engine[F] = Engine(F)
    same.add("inner", tag("inner"))
    same.start_at("inner")
    g = Engine(F)
    g.add("outer", lambda ctx, s: NodeResult(delta=F(item=5, log=["outer"])))
    g.add(
        "sub",
        child,
        state_in=lambda s: C(x=s.item),
        state_out=lambda s, c: F(item=c.x, log=["sub"]),
    )
    g.add("same", same)
    g.start_at("outer").connect("outer", "sub").connect("sub", "same")
    return g


def error_engine() -> Engine[F]:
    """flaky fails twice then works (retries=2); boom always fails and goes to its handler."""
    calls = {"n": 0}

    def flaky(ctx: Context, s: F) -> NodeResult[F]:
        calls["n"] += 1
        if ctx.attempt < 3:
            raise ValueError(f"try {ctx.attempt}")
        return NodeResult(delta=F(log=[f"flaky@{ctx.attempt}"]))

    def boom(ctx: Context, s: F) -> NodeResult[F]:
        raise RuntimeError("kaput")

    g = Engine(F)
    g.add("flaky", flaky, retries=2)
    g.add("boom", boom)
    g.add("handler", tag("handler"))
    g.start_at("flaky").connect("flaky", "boom")
    g.on_error("boom", "handler")
    return g


async def run_engine(g: Engine[Any], initial: Any) -> Any:
    """The engine's own final state for `initial`."""
    return await g.run("r", initial)


def without_interrupt(out: Mapping[str, Any]) -> dict[str, Any]:
    """An output without LangGraph's `__interrupt__` key."""
    return {k: v for k, v in out.items() if k != "__interrupt__"}


def given(graph: Any, initial: Any) -> Any:
    """The input of an adapted graph: the state itself, or `{"state": ...}` for a custom reducer."""
    return {STATE_KEY: initial} if STATE_KEY in graph.channels else initial


def final(graph: Any, out: Mapping[str, Any], like: Any) -> Any:
    """The engine state an adapted graph's output stands for (`like` gives the state type)."""
    if STATE_KEY in graph.channels:
        assert set(out) == {STATE_KEY}
        return out[STATE_KEY]
    return type(like)(**out)


async def last_value(graph: Any, inp: Any, config: dict[str, Any] | None = None) -> Any:
    """The final state through `astream(stream_mode="values")`."""
    last = None
    async for chunk in graph.astream(inp, config, stream_mode="values"):
        last = chunk
    return last


ENGINES = {
    "seed_loop": (seed_engine, S()),
    "conditional": (conditional_engine, F()),
    "map_fan_out": (map_engine, F()),
    "subgraph": (subgraph_engine, F()),
    "retries_and_error_route": (error_engine, F()),
}


@pytest.mark.parametrize("name", list(ENGINES))
async def test_invoke_ainvoke_and_astream_end_where_the_engine_ends(name: str) -> None:
    """The adapted graph's final state equals the engine's through invoke, ainvoke and astream."""
    make, initial = ENGINES[name]
    expected = await run_engine(make(), initial)
    graph = to_langgraph(make())
    got_sync = await asyncio.to_thread(
        graph.invoke, given(graph, initial), {"configurable": {"thread_id": "t1"}}
    )
    assert final(graph, got_sync, initial) == expected
    graph = to_langgraph(make())
    got = await graph.ainvoke(given(graph, initial), {"configurable": {"thread_id": "t2"}})
    assert final(graph, got, initial) == expected
    graph = to_langgraph(make())
    got = await last_value(graph, given(graph, initial), {"configurable": {"thread_id": "t3"}})
    assert final(graph, got, initial) == expected


def test_sync_invoke_works_without_an_event_loop() -> None:
    """`invoke` from plain synchronous code runs async engine nodes too."""
    expected = map_engine().run_sync("r", F())
    assert F(**to_langgraph(map_engine()).invoke(F())) == expected


def test_map_branches_merge_in_declared_order() -> None:
    """Branch deltas merge in branch order although the last branch finishes first."""
    out = F(**to_langgraph(map_engine()).invoke(F()))
    assert out.log == ["start", "m0", "m1", "m2", "join", "b", "a", "merge"]
    assert out.total == 0 + 2 + 4


def test_input_is_validated_like_engine_run() -> None:
    """A mapping input is validated into the state type; a bad one is a StateValidationError."""
    from graphengine import StateValidationError

    graph = to_langgraph(seed_engine())
    assert graph.invoke({"state": {"n": 1}}) == {"state": S(n=3)}
    with pytest.raises(StateValidationError):
        graph.invoke({"state": {"n": "many"}})


def test_a_failing_node_without_error_route_raises_its_own_exception() -> None:
    """A node failing after its retries raises its own exception, as a LangGraph node does, noted with the node and attempts."""
    g = Engine(F)
    g.add("bad", lambda ctx, s: (_ for _ in ()).throw(ValueError("no")), retries=1)
    g.start_at("bad")
    with pytest.raises(ValueError, match="no") as info:
        to_langgraph(g).invoke(F())
    assert "raised by graphengine node 'bad' after 2 attempts" in info.value.__notes__


async def test_failing_branch_goes_to_its_error_route_like_the_engine() -> None:
    """A fan-out branch that fails goes to the handler with last_error set, other branches discarded."""

    def make() -> Engine[F]:
        g = Engine(F)
        g.add("start", tag("start"))
        g.add("ok", tag("ok"))
        g.add("bad", lambda ctx, s: (_ for _ in ()).throw(KeyError("k")))
        g.add("join", tag("join"))
        g.add("fix", tag("fix"))
        g.start_at("start").connect("start", ["ok", "bad"], join="join")
        g.on_error(None, "fix")
        return g

    expected = await make().run("r", F())
    assert expected.log == ["start", "fix"] and expected.last_error == "KeyError: 'k'"
    graph = to_langgraph(make())
    assert FANIN_NODE in graph.get_graph().nodes
    assert F(**await graph.ainvoke(F())) == expected


def test_reserved_node_ids_are_refused_with_the_node_named() -> None:
    """A node id LangGraph reserves raises UnsupportedFeature naming it."""
    g = Engine(F)
    g.add("a:b", tag("x"))
    g.start_at("a:b")
    with pytest.raises(UnsupportedFeature) as info:
        to_langgraph(g)
    assert info.value.node_id == "a:b"


def test_custom_whole_state_reducer_is_used() -> None:
    """The seed's explicit reducer (ignores zero deltas) is the channel's reducer."""
    calls: list[int] = []

    def reduce(prev: S, delta: S) -> S:
        calls.append(delta.n)
        return prev.model_copy(update={"n": max(prev.n, delta.n)})

    g = Engine(S, reducer=reduce)
    g.add("down", lambda ctx, s: NodeResult(delta=S(n=s.n - 5)))
    g.start_at("down")
    assert to_langgraph(g).invoke({"state": S(n=7)}) == {"state": S(n=7)}
    assert 2 in calls


def test_typed_dict_states_are_carried() -> None:
    """A TypedDict engine state with per-field reducers behaves the same."""
    from typing_extensions import TypedDict

    class T(TypedDict, total=False):
        items: Annotated[list[int], operator.add]
        n: int

    def make() -> Engine[T]:
        g: Engine[T] = Engine(T)
        g.add("inc", lambda ctx, s: NodeResult(delta={"n": s["n"] + 1, "items": [s["n"]]}))
        g.add("check", lambda ctx, s: NodeResult(route=stop() if s["n"] >= 3 else goto("inc")))
        g.start_at("inc").connect("inc", "check")
        return g

    expected = make().run_sync("r", {"items": [], "n": 0})
    graph = to_langgraph(make())
    assert set(graph.channels) >= {"items", "n"} and STATE_KEY not in graph.channels
    assert graph.invoke({"items": [], "n": 0}) == expected


# --------------------------------------------------------------------------- checkpointers


@asynccontextmanager
async def _memory(tmp: Path) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    yield InMemorySaver()


@asynccontextmanager
async def _sqlite(tmp: Path) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    async with AsyncSqliteSaver.from_conn_string(str(tmp / "lg.db")) as saver:
        yield saver


@asynccontextmanager
async def _ours_memory(tmp: Path) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    from graphengine.adapters.langgraph_saver import GraphEngineSaver
    from graphengine.adapters.langgraph_tables import MemoryCheckpointTable

    yield GraphEngineSaver(MemoryCheckpointTable())


@asynccontextmanager
async def _ours_sqlite(tmp: Path) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    from graphengine.adapters.langgraph_saver import GraphEngineSaver
    from graphengine.adapters.langgraph_tables import SQLiteCheckpointTable

    async with SQLiteCheckpointTable(tmp / "ours.db") as table:
        yield GraphEngineSaver(table)


SAVERS: dict[str, Callable[[Path], AbstractAsyncContextManager[BaseCheckpointSaver[Any]]]] = {
    "InMemorySaver": _memory,
    "AsyncSqliteSaver": _sqlite,
    "GraphEngineSaver-memory": _ours_memory,
    "GraphEngineSaver-sqlite": _ours_sqlite,
}


@pytest.mark.parametrize("saver_name", list(SAVERS))
async def test_interrupts_pause_and_resume_like_the_engine(saver_name: str, tmp_path: Path) -> None:
    """Each pause shows the engine's state and payload; Command(resume=...) continues like resume(input=...)."""
    eng = interrupt_engine()
    states = [await eng.run("r", F())]
    for answer in ["ada", True, "open"]:
        states.append(await eng.resume("r", input=answer))
    assert states[-1].log == ["asked", "answer=ada", "confirm=True", "gate=open"]

    async with SAVERS[saver_name](tmp_path) as saver:
        graph = to_langgraph(interrupt_engine(), checkpointer=saver)
        cfg: dict[str, Any] = {"configurable": {"thread_id": "t"}}
        out = await graph.ainvoke(F(), cfg)
        assert F(**without_interrupt(out)) == states[0]
        assert out["__interrupt__"][0].value == {"q": "name?"}
        out = await graph.ainvoke(Command(resume="ada"), cfg)
        assert F(**without_interrupt(out)) == states[1]
        assert out["__interrupt__"][0].value == "sure?"
        out = await last_value(graph, Command(resume=True), cfg)
        assert out is not None and F(**without_interrupt(out)) == states[2]
        out = await graph.ainvoke(Command(resume="open"), cfg)
        assert "__interrupt__" not in out and F(**out) == states[3]
        snap = await graph.aget_state(cfg)
        assert F(**snap.values) == states[3] and not snap.next


def test_sync_invoke_interrupt_and_resume_with_in_memory_saver() -> None:
    """Sync invoke pauses and resumes the same way."""
    graph = to_langgraph(interrupt_engine(), checkpointer=InMemorySaver())
    cfg: dict[str, Any] = {"configurable": {"thread_id": "t"}}
    graph.invoke(F(), cfg)
    graph.invoke(Command(resume="bob"), cfg)
    graph.invoke(Command(resume=False), cfg)
    out = graph.invoke(Command(resume="x"), cfg)
    assert out["log"] == ["asked", "answer=bob", "confirm=False", "gate=x"]


async def test_interrupt_inside_a_subgraph_pauses_and_resumes_the_adapted_graph() -> None:
    """A child engine's interrupt pauses the adapted graph; resuming hands the input to the child."""

    def make() -> Engine[F]:
        child: Engine[F] = Engine(F, store=MemoryStore())
        child.add("q", lambda ctx, s: NodeResult(delta=F(log=[f"child={ctx.interrupt('?')}"])))
        child.start_at("q")
        g = Engine(F)
        g.add("pre", tag("pre"))
        g.add("sub", child, state_in=lambda s: F(), state_out=lambda s, c: F(log=c.log))
        g.start_at("pre").connect("pre", "sub")
        return g

    eng = make()
    await eng.run("r", F())
    expected = await eng.resume("r", input="yes")
    graph = to_langgraph(make(), checkpointer=InMemorySaver())
    cfg: dict[str, Any] = {"configurable": {"thread_id": "t"}}
    out = await graph.ainvoke(F(), cfg)
    assert out["__interrupt__"][0].value["payload"] == "?"
    out = await graph.ainvoke(Command(resume="yes"), cfg)
    assert F(**out) == expected


def test_importing_graphengine_adapters_does_not_import_langgraph() -> None:
    """The adapters package itself stays free of LangGraph."""
    import subprocess
    import sys

    code = "import sys, graphengine.adapters\nassert 'langgraph' not in sys.modules\n"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_invoking_twice_without_a_thread_runs_subgraphs_afresh() -> None:
    """Two thread-less invocations of one adapted graph do not share subgraph child runs."""
    graph = to_langgraph(subgraph_engine())
    first = graph.invoke(F())
    second = graph.invoke(F(log=["again"]))
    assert first["log"] == ["outer", "sub", "inner"]
    assert second["log"] == ["again", "outer", "sub", "inner"]


@pytest.mark.parametrize("saver_name", ["AsyncSqliteSaver", "GraphEngineSaver-sqlite"])
async def test_a_pause_survives_a_new_graph_and_saver_on_the_same_file(
    saver_name: str, tmp_path: Path
) -> None:
    """Paused, everything dropped, then a fresh adapted graph on a fresh saver of the same file resumes
    from the checkpoint and ends where the engine ends."""
    eng = interrupt_engine()
    await eng.run("r", F())
    for answer in ["ada", True]:
        await eng.resume("r", input=answer)
    expected = await eng.resume("r", input="open")
    cfg: dict[str, Any] = {"configurable": {"thread_id": "t"}}
    answers = iter(["ada", True, "open"])
    async with SAVERS[saver_name](tmp_path) as saver:
        out = await to_langgraph(interrupt_engine(), checkpointer=saver).ainvoke(F(), cfg)
        assert "__interrupt__" in out
    # The gate (interrupt_before=True) is a LangGraph breakpoint: it shows in `next`, not in `__interrupt__`.
    while True:
        async with SAVERS[saver_name](tmp_path) as saver:
            graph = to_langgraph(interrupt_engine(), checkpointer=saver)
            if not (await graph.aget_state(cfg)).next:
                break
            out = await graph.ainvoke(Command(resume=next(answers)), cfg)
    assert F(**out) == expected


def test_a_branch_that_routes_is_refused_like_the_engine_does() -> None:
    """A fan-out branch returning goto() fails the adapted graph as it fails the engine, instead of being ignored."""
    from graphengine import Branch, NodeReturnTypeError, fan_out, goto

    def make() -> Engine[F]:
        g = Engine(F, store=MemoryStore())
        g.add("split", lambda c, s: NodeResult(route=fan_out([Branch("w", F()), Branch("w", F())], join="j")))
        g.add("w", lambda c, s: NodeResult(route=goto("other")))
        g.add("j", lambda c, s: None).add("other", lambda c, s: None).start_at("split")
        return g

    with pytest.raises(NodeReturnTypeError, match=r"branch 0 \(node 'w'\)"):
        asyncio.run(make().run("r", F()))
    with pytest.raises(NodeReturnTypeError, match=r"branch [01] \(node 'w'\)"):  # branches run concurrently
        to_langgraph(make()).invoke(F())
