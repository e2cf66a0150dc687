"""`to_langgraph` exposes one LangGraph channel per field: the oracle is the same graph written in LangGraph.

Each engine here has a twin written natively with `StateGraph`; both run in LangGraph (alone,
and as the subgraph node of an ordinary LangGraph app) and must return the same dicts.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from pydantic import BaseModel

pytest.importorskip("langgraph")

from adapted_engines import F, conditional_engine, interrupt_engine
from langgraph.channels.binop import BinaryOperatorAggregate
from langgraph.channels.last_value import LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send
from typing_extensions import TypedDict

from graphengine import Branch, Engine, NodeResult, append, fan_out
from graphengine.adapters.langgraph import STATE_KEY, UnsupportedFeature, to_langgraph


def native_conditional() -> Any:
    """`conditional_engine` written in LangGraph: start -> (total < 3: add) | done; add -> start."""
    b = StateGraph(F)
    b.add_node("start", lambda s: {"log": ["start"]})
    b.add_node("add", lambda s: {"total": 1, "log": ["add"]})
    b.add_node("done", lambda s: {"log": ["done"]})
    b.add_edge(START, "start")
    b.add_conditional_edges("start", lambda s: "add" if s.total < 3 else "done", ["add", "done"])
    b.add_edge("add", "start")
    b.add_edge("done", END)
    return b.compile()


def map_engine() -> Engine[F]:
    """start -> map(work over items 1..3, each adding its item) -> join."""
    g = Engine(F)
    g.add(
        "start",
        lambda ctx, s: NodeResult(
            delta=F(log=["start"]), route=fan_out([Branch("work", F(item=i)) for i in (1, 2, 3)], join="join")
        ),
    )
    g.add("work", lambda ctx, s: NodeResult(delta=F(log=[f"w{s.item}"], total=s.item)))
    g.add("join", lambda ctx, s: NodeResult(delta=F(log=[f"join={s.total}"])))
    g.start_at("start")
    return g


def native_map() -> Any:
    """`map_engine` in LangGraph: `Command(goto=[Send(...)])`, the branches' edge to the join."""
    b = StateGraph(F)
    b.add_node(
        "start",
        lambda s: Command(update={"log": ["start"]}, goto=[Send("work", F(item=i)) for i in (1, 2, 3)]),
        destinations=("work",),
    )
    b.add_node("work", lambda s: {"log": [f"w{s.item}"], "total": s.item})
    b.add_node("join", lambda s: {"log": [f"join={s.total}"]})
    b.add_edge(START, "start")
    b.add_edge("work", "join")
    return b.compile()


class P(TypedDict):
    """A LangGraph app's state sharing `log` and `total` with F, plus a key of its own."""

    log: Annotated[list[str], operator.add]
    total: Annotated[int, operator.add]
    note: str


def parent(child: Any, checkpointer: Any = None) -> Any:
    """before -> child (the graph under test, as a node) -> after."""
    b = StateGraph(P)
    b.add_node("before", lambda s: {"log": ["before"], "note": "n"})
    b.add_node("child", child)
    b.add_node("after", lambda s: {"log": [f"after:{len(s['log'])}"]})
    b.add_edge(START, "before")
    b.add_edge("before", "child")
    b.add_edge("child", "after")
    return b.compile(checkpointer=checkpointer)


def test_each_field_is_a_channel_of_langgraphs_own_classes() -> None:
    """Reducer fields are BinaryOperatorAggregate over the field's reducer, the others LastValue."""
    graph = to_langgraph(conditional_engine())
    ch = graph.channels
    assert STATE_KEY not in ch
    assert isinstance(ch["log"], BinaryOperatorAggregate) and ch["log"].operator is append
    assert isinstance(ch["total"], BinaryOperatorAggregate) and ch["total"].operator is operator.add
    assert type(ch["item"]) is LastValue and type(ch["last_error"]) is LastValue
    fields = set(F.model_fields)
    assert set(graph.get_input_jsonschema()["properties"]) == fields
    assert set(graph.get_output_jsonschema()["properties"]) == fields
    assert set(graph.stream_channels) == fields


@pytest.mark.parametrize(
    "inp",
    [F(), F(item=4, log=["given"]), {}, {"log": ["x"], "total": 1}, {"item": 2, "last_error": "e"}],
    ids=["model", "model-set", "empty-dict", "dict-reducers", "dict-plain"],
)
def test_invoke_returns_what_the_native_graph_returns(inp: Any) -> None:
    """A model or a dict in, LangGraph's dict of written fields out, equal to the native twin's."""
    native = native_conditional().invoke(inp)
    adapted = to_langgraph(conditional_engine()).invoke(inp)
    assert adapted == native
    assert F(**adapted) == conditional_engine().run_sync("r", F(**inp) if isinstance(inp, dict) else inp)


async def test_map_reduce_with_send_matches_the_native_graph() -> None:
    """A map over Send branches merges like LangGraph's own Send map-reduce."""
    native = await native_map().ainvoke(F())
    adapted = await to_langgraph(map_engine()).ainvoke(F())
    assert adapted == native
    assert adapted["log"] == ["start", "w1", "w2", "w3", "join=6"]


TWINS: dict[str, tuple[Callable[[], Engine[F]], Callable[[], Any]]] = {
    "conditional": (conditional_engine, native_conditional),
    "map-reduce": (map_engine, native_map),
}


@pytest.mark.parametrize("saver", [False, True], ids=["no-checkpointer", "InMemorySaver"])
@pytest.mark.parametrize("twin", list(TWINS))
@pytest.mark.parametrize(
    "inp", [{"log": ["p"], "total": 5, "note": ""}, {"log": [], "total": 0, "note": "x"}]
)
def test_as_a_subgraph_node_it_composes_like_the_native_graph(
    inp: dict[str, Any], twin: str, saver: bool
) -> None:
    """A LangGraph app with ordinary keys takes the adapted graph as a node: keys outside its schema
    are dropped and its reducers apply to the child's output, exactly as with the native child."""
    ours, native = TWINS[twin]
    cfg: Any = {"configurable": {"thread_id": "t"}}
    expected = parent(native(), InMemorySaver() if saver else None).invoke(inp, cfg)
    got = parent(to_langgraph(ours()), InMemorySaver() if saver else None).invoke(inp, cfg)
    assert got == expected
    assert set(got) == {"log", "total", "note"}


def test_a_subgraph_shows_its_nodes_and_fields_in_langgraph_tooling() -> None:
    """The parent's drawing (xray) shows the child's nodes; the child's schema shows its fields."""
    child = to_langgraph(conditional_engine())
    drawn = parent(child).get_graph(xray=True)
    assert {"child:start", "child:add", "child:done"} <= set(drawn.nodes)
    assert child.get_input_jsonschema()["properties"]["log"]["type"] == "array"


async def test_interrupts_inside_the_subgraph_pause_and_resume_the_parent() -> None:
    """The adapted graph's pauses surface in the parent; Command(resume=...) continues it like the engine."""
    eng = interrupt_engine()
    await eng.run("r", F())
    for answer in ["ada", True]:
        await eng.resume("r", input=answer)
    expected = await eng.resume("r", input="open")
    app = parent(to_langgraph(interrupt_engine()), checkpointer=InMemorySaver())
    cfg: Any = {"configurable": {"thread_id": "t"}}
    out = await app.ainvoke({"log": [], "total": 0, "note": ""}, cfg)
    assert out["__interrupt__"][0].value == {"q": "name?"}
    for answer in ["ada", True, "open"]:
        out = await app.ainvoke(Command(resume=answer), cfg)
    assert "__interrupt__" not in out
    # The parent's log: its own "before", then the child's whole log added, then "after".
    assert out["log"] == ["before", "before", *expected.log, f"after:{2 + len(expected.log)}"]


def test_a_custom_whole_state_reducer_keeps_the_single_state_channel() -> None:
    """A reducer of the whole state cannot be split into fields: one "state" channel."""

    class M(BaseModel):
        hi: int = 0

    g = Engine(M, reducer=lambda prev, d: M(hi=max(prev.hi, d.hi)))
    g.add("low", lambda ctx, s: NodeResult(delta=M(hi=1)))
    g.start_at("low")
    graph = to_langgraph(g)
    assert set(graph.stream_channels) == {STATE_KEY}
    assert graph.invoke({STATE_KEY: M(hi=5)}) == {STATE_KEY: M(hi=5)}


def test_a_field_that_does_not_validate_names_the_node_that_read_it() -> None:
    """A dict input LangGraph accepted as given fails where a node reads it, with a typed error."""
    from graphengine import StateValidationError

    with pytest.raises(StateValidationError) as info:
        to_langgraph(conditional_engine()).invoke({"item": "many"})
    assert info.value.node_id == "start" and "item" in str(info.value)


def test_states_whose_fields_are_not_all_known_keep_the_single_channel() -> None:
    """A model allowing extra fields cannot list its channels in advance: one "state" channel."""

    class Open(BaseModel, extra="allow"):
        n: int = 0

    g = Engine(Open)
    g.add("inc", lambda ctx, s: NodeResult(delta=Open(n=s.n + 1)))
    g.start_at("inc")
    graph = to_langgraph(g)
    assert set(graph.stream_channels) == {STATE_KEY}
    assert graph.invoke({STATE_KEY: Open(n=1, note="x")}) == {STATE_KEY: Open(n=2, note="x")}


def test_a_field_named_like_a_private_channel_is_refused_by_name() -> None:
    """`ge_ctl` and `ge_branches` are the adapted graph's own channels."""

    class Clash(BaseModel):
        ge_ctl: int = 0

    g = Engine(Clash)
    g.add("a", lambda ctx, s: NodeResult())
    g.start_at("a")
    with pytest.raises(UnsupportedFeature, match="ge_ctl") as info:
        to_langgraph(g)
    assert info.value.feature == "state field"
