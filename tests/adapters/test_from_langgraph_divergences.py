"""`from_langgraph` where it used to differ from LangGraph in silence, each against LangGraph running the same graph.

Answers by interrupt id to top-level interrupts, LangGraph's store for the nodes, `values()` after a
failure, a process that exits after replaying a subgraph run on SQLite, and replays that are clean
where nothing diverged (message ids, subgraph interrupt ids, the runtime context).
"""

from __future__ import annotations

import asyncio
import operator
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

pytest.importorskip("langgraph")

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command, interrupt

from graphengine import Options
from graphengine.adapters.langgraph import UnsupportedFeature, from_langgraph
from graphengine.store import Store

CONFIG: Any = {"configurable": {"thread_id": "t"}}


class Log(TypedDict):
    """Lines appended by the nodes."""

    log: Annotated[list[str], operator.add]


def _asks(name: str, *questions: str) -> Any:
    def node(s: Log) -> dict[str, Any]:
        return {"log": [f"{name}:" + ",".join(str(interrupt(q)) for q in questions)]}

    return node


def parallel_askers() -> StateGraph[Any]:
    """START -> a and b in one superstep, each calling interrupt(); then c."""
    b = StateGraph(Log)
    b.add_node("a", _asks("a", "qa"))
    b.add_node("b", _asks("b", "qb1", "qb2"))
    b.add_node("c", lambda s: {"log": ["c"]})
    b.add_edge(START, "a")
    b.add_edge(START, "b")
    b.add_edge(["a", "b"], "c")
    return b


def _answers(out: dict[str, Any], pick: Any = None) -> dict[str, Any]:
    """Answers by id to the interrupts `out` lists (those whose value `pick` accepts): the value upper-cased."""
    return {i.id: str(i.value).upper() for i in out["__interrupt__"] if pick is None or pick(i.value)}


def _plain(out: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    # The interrupts' order is the order LangGraph's tasks happened to raise them in: compared as a set.
    return {k: v for k, v in out.items() if k != "__interrupt__"}, sorted(
        i.value for i in out.get("__interrupt__", [])
    )


async def test_top_level_interrupts_answered_by_id_go_on_as_in_langgraph(store: Store) -> None:
    """Two parallel top-level interrupts answered one by id, then all by id: LangGraph's values and interrupts each time."""
    native = parallel_askers().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(parallel_askers(), store=store)
    want, got = await native.ainvoke({"log": []}, CONFIG), await adapted.run("t", {"log": []})
    assert _plain(got) == _plain(want) == ({"log": []}, ["qa", "qb1"])
    picks = [lambda v: v == "qa", None, None]
    for i, pick in enumerate(picks):
        want = await native.ainvoke(Command(resume=_answers(want, pick)), CONFIG)
        got = await adapted.run("t", Command(resume=_answers(got, pick)))
        assert _plain(got) == _plain(want), f"answer {i}"
        if "__interrupt__" not in want:
            break
    assert want == {"log": ["a:QA", "b:QB1,QB2", "c"]}
    assert (await adapted.replay("t")).ok


async def test_one_top_level_interrupt_answered_by_id_as_a_plain_map(store: Store) -> None:
    """`resume(input={id: value})` answers the one interrupt it names, as LangGraph's Command(resume={id: value})."""
    b = StateGraph(Log)
    b.add_node("a", _asks("a", "q"))
    b.add_edge(START, "a")
    native = b.compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(b, store=store)
    want, got = await native.ainvoke({"log": []}, CONFIG), await adapted.run("t", {"log": []})
    assert await adapted.resume("t", input=_answers(got)) == await native.ainvoke(
        Command(resume=_answers(want)), CONFIG
    )
    assert await adapted.values("t") == {"log": ["a:Q"]}


def subgraph_and_top_askers() -> StateGraph[Any]:
    """A subgraph node asking twice beside a top-level node asking once, in one superstep."""
    sb = StateGraph(Log)
    sb.add_node("ask", _asks("sub", "s1", "s2"))
    sb.add_edge(START, "ask")
    b = StateGraph(Log)
    b.add_node("sub", sb.compile())
    b.add_node("top", _asks("top", "t"))
    b.add_edge(START, "sub")
    b.add_edge(START, "top")
    return b


async def test_subgraph_and_top_level_interrupts_answered_by_id_replay_clean(store: Store) -> None:
    """Interrupts of a subgraph and of a top-level node answered together by id: LangGraph's values; the replay finds no divergence."""
    native = subgraph_and_top_askers().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(subgraph_and_top_askers(), store=store)
    want, got = await native.ainvoke({"log": []}, CONFIG), await adapted.run("t", {"log": []})
    while "__interrupt__" in want:
        assert _plain(got) == _plain(want)
        want = await native.ainvoke(Command(resume=_answers(want)), CONFIG)
        got = await adapted.run("t", Command(resume=_answers(got)))
    assert got == want == {"log": ["sub:S1,S2", "top:T"]}
    report = await adapted.engine.replay("t")
    assert report.ok, str(report)


# ------------------------------------------------------------------------------ LangGraph's store


def store_reader() -> StateGraph[Any]:
    """A node that counts its visits in LangGraph's store, and a subgraph node that reads the count."""

    def count(s: Log, runtime: Runtime) -> dict[str, Any]:
        assert runtime.store is not None
        seen = runtime.store.get(("visits",), "n")
        n = (seen.value["n"] if seen else 0) + 1
        runtime.store.put(("visits",), "n", {"n": n})
        return {"log": [f"count {n}"]}

    def read(s: Log, runtime: Runtime) -> dict[str, Any]:
        assert runtime.store is not None
        item = runtime.store.get(("visits",), "n")
        return {"log": [f"sub reads {item.value['n'] if item else None}"]}

    sb = StateGraph(Log)
    sb.add_node("read", read)
    sb.add_edge(START, "read")
    b = StateGraph(Log)
    b.add_node("count", count)
    b.add_node("sub", sb.compile())
    b.add_edge(START, "count")
    b.add_edge("count", "sub")
    return b


async def test_langgraph_store_reaches_nodes_and_subgraphs_as_in_langgraph(store: Store) -> None:
    """A compiled graph's store (or langgraph_store=) is the nodes' runtime.store, over turns, as LangGraph's."""
    native = store_reader().compile(checkpointer=InMemorySaver(), store=InMemoryStore())
    compiled = from_langgraph(store_reader().compile(store=InMemoryStore()), store=store)
    given = from_langgraph(store_reader(), langgraph_store=InMemoryStore(), store=store)
    for turn in range(3):
        want = await native.ainvoke({"log": [f"u{turn}"]}, CONFIG)
        assert await compiled.run("t", {"log": [f"u{turn}"]}) == want
        assert await given.run("g", {"log": [f"u{turn}"]}) == want
    assert want["log"][-2:] == ["count 3", "sub reads 3"]


def test_a_langgraph_store_that_is_not_one_is_refused_by_name() -> None:
    """langgraph_store= given anything but LangGraph's BaseStore raises UnsupportedFeature naming it."""
    with pytest.raises(UnsupportedFeature, match="BaseStore") as info:
        from_langgraph(store_reader(), langgraph_store={"visits": 1})
    assert info.value.feature == "langgraph store"


# ------------------------------------------------------------------------------ values() after failures


def failing_sibling() -> StateGraph[Any]:
    """pre -> (ok, bad) in one superstep; bad raises once ok has finished (so both runners see the same order)."""
    finished = asyncio.Event()

    async def ok(s: Log) -> dict[str, Any]:
        finished.set()
        return {"log": ["ok"]}

    async def bad(s: Log) -> dict[str, Any]:
        await finished.wait()
        await asyncio.sleep(0.05)  # ok's writes are saved once its coroutine has returned
        raise ValueError("bad node")

    b = StateGraph(Log)
    b.add_node("pre", lambda s: {"log": ["pre"]})
    b.add_node("ok", ok)
    b.add_node("bad", bad)
    b.add_edge(START, "pre")
    b.add_edge("pre", "ok")
    b.add_edge("pre", "bad")
    return b


async def test_values_after_a_node_error_with_a_finished_sibling_are_langgraphs(store: Store) -> None:
    """After a node fails beside one that finished, values() is get_state().values: the finished sibling's writes included."""
    native = failing_sibling().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(failing_sibling(), store=store)
    with pytest.raises(ValueError, match="bad node"):
        await native.ainvoke({"log": ["x"]}, CONFIG)
    with pytest.raises(ValueError, match="bad node"):
        await adapted.run("t", {"log": ["x"]})
    want = (await native.aget_state(CONFIG)).values
    assert want == {"log": ["x", "pre", "ok"]}
    assert await adapted.values("t") == want


async def test_values_after_the_recursion_limit_are_langgraphs(store: Store) -> None:
    """A loop stopped by the recursion limit shows LangGraph's get_state().values, its last step's writes included."""

    class N(TypedDict):
        n: int

    def loop() -> StateGraph[Any]:
        b = StateGraph(N)
        b.add_node("inc", lambda s: {"n": s["n"] + 1})
        b.add_edge(START, "inc")
        b.add_edge("inc", "inc")
        return b

    native = loop().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(loop(), store=store, options=Options(max_steps=5))
    with pytest.raises(GraphRecursionError):
        await native.ainvoke({"n": 0}, {**CONFIG, "recursion_limit": 5})
    with pytest.raises(GraphRecursionError):
        await adapted.run("t", {"n": 0})
    want = (await native.aget_state(CONFIG)).values
    assert await adapted.values("t") == want == {"n": 5}


# ------------------------------------------------------------------------------ a node failing on its answer


def takes_a_dose() -> StateGraph[Any]:
    """One node asking one question and reading the answer as a number (a word makes it raise)."""

    def take(s: Log) -> dict[str, Any]:
        return {"log": [str(int(interrupt("dose?")))]}

    b = StateGraph(Log)
    b.add_node("take", take)
    b.add_edge(START, "take")
    return b


def sums_two_doses() -> StateGraph[Any]:
    """One node asking two questions, then adding the answers as numbers (a word makes it raise)."""

    def add(s: Log) -> dict[str, Any]:
        first, second = interrupt("first dose?"), interrupt("second dose?")
        return {"log": [str(int(first) + int(second))]}

    b = StateGraph(Log)
    b.add_node("add", add)
    b.add_edge(START, "add")
    return b


async def _outcomes(call: Any, script: list[Any]) -> list[Any]:
    """What each call of `script` gave: the values and the interrupts' questions, or the error."""
    seen: list[Any] = []
    for given in script:
        try:
            seen.append(_plain(await call(given)))
        except ValueError as exc:
            seen.append(repr(exc))
    return seen


DOSE_GRAPHS: dict[str, tuple[Any, list[Any]]] = {
    "one question": (takes_a_dose, []),
    "two questions": (sums_two_doses, [Command(resume="1")]),
}
"""Each graph and the answers it takes before the one it fails on."""

FAILING_ANSWER_SCRIPTS: dict[str, list[Any]] = {
    "resumed without input": [None, None],
    "given a new answer": [Command(resume="2")],
    "a new answer after a retry": [None, Command(resume="2")],
}
"""The calls after the answer a node fails on."""

FAILS_ON_TEN = "ValueError(\"invalid literal for int() with base 10: 'ten'\")"


@pytest.mark.parametrize("graph", sorted(DOSE_GRAPHS))
@pytest.mark.parametrize("script", sorted(FAILING_ANSWER_SCRIPTS))
async def test_a_node_failing_on_its_answer_keeps_it_as_in_langgraph(
    store: Store, graph: str, script: str
) -> None:
    """A node that raised on its answer reads the same answers on every later resume, a new one ignored, as in LangGraph."""
    build, before = DOSE_GRAPHS[graph]
    calls = [*before, Command(resume="ten"), *FAILING_ANSWER_SCRIPTS[script]]
    native = build().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(build(), store=store)
    await native.ainvoke({"log": []}, CONFIG)
    await adapted.run("t", {"log": []})
    want = await _outcomes(lambda given: native.ainvoke(given, CONFIG), calls)
    assert want[len(before) :] == [FAILS_ON_TEN] * (len(calls) - len(before))
    assert await _outcomes(lambda given: adapted.run("t", given), calls) == want
    assert await adapted.values("t") == (await native.aget_state(CONFIG)).values


@pytest.mark.parametrize("graph", sorted(DOSE_GRAPHS))
async def test_a_node_failing_on_its_answer_keeps_it_in_another_process(store: Store, graph: str) -> None:
    """The kept answers are in the store: an adapted graph that did not run the failure reads them as LangGraph does."""
    build, before = DOSE_GRAPHS[graph]
    native = build().compile(checkpointer=InMemorySaver())
    first = from_langgraph(build(), store=store)
    await native.ainvoke({"log": []}, CONFIG)
    await first.run("t", {"log": []})
    calls: list[Any] = [*before, Command(resume="ten")]
    assert await _outcomes(lambda given: first.run("t", given), calls) == await _outcomes(
        lambda given: native.ainvoke(given, CONFIG), calls
    )
    for given in [None, Command(resume="2")]:
        want = await _outcomes(lambda g: native.ainvoke(g, CONFIG), [given])
        fresh = from_langgraph(build(), store=store)  # nothing of the run in memory
        assert await _outcomes(partial(fresh.run, "t"), [given]) == want == [FAILS_ON_TEN]


def fails_once_between_questions() -> StateGraph[Any]:
    """One node asking a question, failing once after reading its answer, then asking a second."""
    tries: list[int] = []

    def ask(s: Log) -> dict[str, Any]:
        first = interrupt("first?")
        if not tries:
            tries.append(1)
            raise ValueError("flaky")
        return {"log": [first + interrupt("second?")]}

    b = StateGraph(Log)
    b.add_node("ask", ask)
    b.add_edge(START, "ask")
    return b


async def test_a_node_run_again_after_failing_reads_the_steps_answer_anew(store: Store) -> None:
    """Run again after it failed, a node gets the answer given to the step for its next question too, as in LangGraph."""
    calls: list[Any] = [Command(resume="x"), None, Command(resume="y")]
    native = fails_once_between_questions().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(fails_once_between_questions(), store=store)
    await native.ainvoke({"log": []}, CONFIG)
    await adapted.run("t", {"log": []})
    want = await _outcomes(lambda given: native.ainvoke(given, CONFIG), calls)
    assert want == ["ValueError('flaky')", ({"log": ["xx"]}, []), ({"log": ["xx"]}, [])]
    assert await _outcomes(lambda given: adapted.run("t", given), calls) == want


# ------------------------------------------------------------------------------ replay


def test_the_process_exits_after_replaying_a_subgraph_run_on_sqlite(tmp_path: Path) -> None:
    """engine.replay of a run whose node is a subgraph, on SQLite, leaves no thread that keeps the process alive."""
    script = textwrap.dedent(
        """
        import asyncio, operator, sys
        from typing import Annotated
        from typing_extensions import TypedDict
        from langgraph.graph import START, StateGraph
        from graphengine.adapters.langgraph import from_langgraph
        from graphengine.store import SQLiteStore

        class S(TypedDict):
            log: Annotated[list[str], operator.add]

        sub = StateGraph(S)
        sub.add_node("inner", lambda s: {"log": ["inner"]})
        sub.add_edge(START, "inner")
        b = StateGraph(S)
        b.add_node("sub", sub.compile())
        b.add_edge(START, "sub")

        async def main():
            store = SQLiteStore(sys.argv[1])
            g = from_langgraph(b, store=store)
            await g.run("r", {"log": []})
            print((await g.engine.replay("r")).ok)
            await store.close()

        asyncio.run(main())
        """
    )
    path = tmp_path / "app.py"
    path.write_text(script)
    root = Path(__file__).resolve().parents[2]
    env = {"PYTHONPATH": f"{root / 'src'}", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, str(path), str(tmp_path / "runs.db")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def react() -> StateGraph[Any]:
    """An agent asking for a tool by tools_condition, ToolNode answering, the agent summing up."""

    def agent(s: MessagesState) -> dict[str, Any]:
        last = s["messages"][-1]
        if isinstance(last, ToolMessage):
            return {"messages": [AIMessage(content=f"the sum is {last.content}")]}
        calls = [{"name": "add", "args": {"a": len(s["messages"]), "b": 2}, "id": f"c{len(s['messages'])}"}]
        return {"messages": [AIMessage(content="", tool_calls=calls)]}

    b = StateGraph(MessagesState)
    b.add_node("agent", agent)
    b.add_node("tools", ToolNode([add]))
    b.add_edge(START, "agent")
    b.add_conditional_edges("agent", tools_condition)
    b.add_edge("tools", "agent")
    return b


async def test_a_react_agent_over_turns_replays_clean_with_langgraphs_messages(store: Store) -> None:
    """The tools_condition shape: LangGraph's messages after each of 3 turns, and a replay that finds no divergence."""
    native = react().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(react(), store=store)
    for turn in range(3):
        msg = [HumanMessage(content=f"add please {turn}")]
        want = (await native.ainvoke({"messages": msg}, CONFIG))["messages"]
        got = (await adapted.run("t", {"messages": msg}))["messages"]
        assert [(m.type, m.content) for m in got] == [(m.type, m.content) for m in want], f"turn {turn}"
        assert len({m.id for m in got}) == len(got)
    report = await adapted.engine.replay("t")
    assert report.ok, str(report)


@dataclass
class Who:
    """LangGraph run context."""

    user: str


async def test_a_run_given_a_runtime_context_replays_with_it(store: Store) -> None:
    """A run whose nodes read runtime.context replays clean given the same context, through the engine or the adapted graph."""
    b = StateGraph(Log, context_schema=Who)
    b.add_node("greet", lambda s, runtime: {"log": [f"hi {runtime.context.user}"]})
    b.add_edge(START, "greet")
    native = b.compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(b, store=store)
    want = await native.ainvoke({"log": []}, CONFIG, context=Who("ann"))
    assert await adapted.run("t", {"log": []}, context=Who("ann")) == want
    assert (await adapted.replay("t", context=Who("ann"))).ok
    assert (await adapted.engine.replay("t", context=Who("ann"))).ok
    assert not (await adapted.engine.replay("t", context=Who("bob"))).ok


# ------------------------------------------------------------------------------ time travel


def three_steps() -> StateGraph[Any]:
    """a -> b -> c, each logging its name and how many lines it saw."""
    b = StateGraph(Log)
    for name, nxt in (("a", "b"), ("b", "c"), ("c", None)):
        b.add_node(name, lambda s, name=name: {"log": [f"{name}{len(s['log'])}"]})
        if nxt is not None:
            b.add_edge(name, nxt)
    b.add_edge(START, "a")
    return b


async def test_time_travel_to_an_edit_names_the_step_to_fork_at_and_the_fork_is_langgraphs(
    store: Store,
) -> None:
    """A config with update_state's checkpoint_id is refused naming the engine step; fork there runs what LangGraph's travel runs."""
    native = three_steps().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(three_steps(), store=store)
    await native.ainvoke({"log": []}, CONFIG)
    await adapted.run("t", {"log": []})
    edit = {"log": ["edited"]}
    travel = await native.aupdate_state(CONFIG, edit, as_node="a")
    ours = await adapted.update_state(CONFIG, edit, as_node="a")
    with pytest.raises(UnsupportedFeature, match=r"fork\('t', new_run_id, at_step=(\d+)\)") as info:
        await adapted.run("t", None, config=ours)
    assert info.value.feature == "checkpoint_id"
    step = int(str(info.value).rsplit("at_step=", 1)[1].rstrip(")"))
    await native.ainvoke({"log": ["more"]}, CONFIG)  # the thread moves on; travel goes back to the edit
    await adapted.run("t", {"log": ["more"]})
    want = await native.ainvoke(None, travel)
    await adapted.engine.fork("t", "t-back", at_step=step)
    assert await adapted.values("t-back") == want
