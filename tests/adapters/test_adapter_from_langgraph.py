"""`from_langgraph`: LangGraph quick-start style graphs run on the engine and end where LangGraph ends."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

pytest.importorskip("langgraph")

from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy, Send

from graphengine.adapters.langgraph import UnsupportedFeature, from_langgraph, to_langgraph


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


class Overall(TypedDict):
    """Map-reduce state."""

    subjects: list[str]
    jokes: Annotated[list[str], operator.add]
    subject: str
    best: str


def map_reduce_graph() -> StateGraph[Any]:
    """The map-reduce how-to: Send one `joke` per subject, then pick the best."""

    def gen_subjects(s: Overall) -> dict[str, Any]:
        return {"subjects": ["cats", "dogs", "owls"]}

    def joke(s: Overall) -> dict[str, Any]:
        return {"jokes": [f"a joke about {s['subject']}"]}

    def best(s: Overall) -> dict[str, Any]:
        return {"best": max(s["jokes"])}

    b = StateGraph(Overall)
    b.add_node("gen_subjects", gen_subjects)
    b.add_node("joke", joke)
    b.add_node("best", best)
    b.add_edge(START, "gen_subjects")
    b.add_conditional_edges(
        "gen_subjects", lambda s: [Send("joke", {**s, "subject": x}) for x in s["subjects"]], ["joke"]
    )
    b.add_edge("joke", "best")
    b.add_edge("best", END)
    return b


class P(BaseModel):
    """A pydantic LangGraph state."""

    log: Annotated[list[str], operator.add] = []
    n: int = 0


def pydantic_graph() -> StateGraph[Any]:
    """A pydantic-state loop."""
    b = StateGraph(P)
    b.add_node("step", lambda s: {"log": [f"s{s.n}"], "n": s.n + 1})
    b.add_edge(START, "step")
    b.add_conditional_edges("step", lambda s: "step" if s.n < 3 else END)
    return b


GRAPHS = {
    "chatbot": (chatbot_graph, {"messages": ["hi"], "turns": 0}),
    "sequence": (sequence_graph, {"messages": [], "turns": 0}),
    "parallel": (parallel_graph, {"messages": [], "turns": 0}),
    "map_reduce": (map_reduce_graph, {"subjects": [], "jokes": [], "subject": "", "best": ""}),
    "pydantic": (pydantic_graph, {"log": [], "n": 0}),
}


def _plain(x: Any) -> Any:
    return x.model_dump() if isinstance(x, BaseModel) else dict(x)


@pytest.mark.parametrize("name", list(GRAPHS))
async def test_engine_built_from_a_langgraph_graph_ends_where_langgraph_ends(name: str) -> None:
    """The engine's final state equals LangGraph's `invoke` on the same input."""
    make, initial = GRAPHS[name]
    expected = await make().compile().ainvoke(initial)
    eng = from_langgraph(make())
    got = await eng.run("r", initial)
    assert _plain(got) == _plain(expected)


@pytest.mark.parametrize("name", list(GRAPHS))
async def test_round_trip_back_to_langgraph_ends_in_the_same_state(name: str) -> None:
    """LangGraph graph -> engine -> to_langgraph: the final state is still LangGraph's."""
    make, initial = GRAPHS[name]
    expected = await make().compile().ainvoke(initial)
    graph = to_langgraph(from_langgraph(make()))
    # One channel per field, except for a custom whole-state reducer (the single "state" channel).
    out = await graph.ainvoke({"state": initial} if "state" in graph.channels else initial)
    assert _plain(out.get("state", out)) == _plain(expected)


def test_parallel_edges_become_a_fan_out_with_the_join() -> None:
    """Parallel edges that meet in a join are one fan-out edge with that join."""
    eng = from_langgraph(parallel_graph())
    fan = [e for e in eng.edges if e.branches]
    assert [(e.src, sorted(e.branches), e.dst) for e in fan] == [("a", ["b", "c"], "d")]


def test_parallel_edges_without_a_join_are_refused_naming_the_node() -> None:
    """Edges to two nodes that never meet raise UnsupportedFeature naming the source."""
    b = StateGraph(Chat)
    for n in "abc":
        b.add_node(n, lambda s: None)
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("a", "c")
    with pytest.raises(UnsupportedFeature) as info:
        from_langgraph(b)
    assert info.value.node_id == "a"
    assert info.value.feature == "parallel edges"


def test_node_policies_are_refused_naming_the_node() -> None:
    """A retry policy is refused with the node named and the way out."""
    b = StateGraph(Chat)
    b.add_node("flaky", lambda s: None, retry_policy=RetryPolicy(max_attempts=3))
    b.add_edge(START, "flaky")
    with pytest.raises(UnsupportedFeature, match=r"Engine.add\(retries=") as info:
        from_langgraph(b)
    assert info.value.node_id == "flaky"


def test_nodes_taking_config_are_refused() -> None:
    """A node reading LangGraph's config cannot run on the engine."""
    b = StateGraph(Chat)
    b.add_node("n", lambda s, config: None)
    b.add_edge(START, "n")
    with pytest.raises(UnsupportedFeature, match="config") as info:
        from_langgraph(b)
    assert info.value.node_id == "n"


def test_dataclass_states_are_refused() -> None:
    """A state type without a default reducer is refused with what to use instead."""

    @dataclass
    class D:
        x: int = 0

    b = StateGraph(D)
    b.add_node("n", lambda s: None)
    b.add_edge(START, "n")
    with pytest.raises(UnsupportedFeature, match="TypedDict or a pydantic model"):
        from_langgraph(b)


def test_a_compiled_graph_is_refused_with_the_fix() -> None:
    """Passing the compiled graph says to pass the builder."""
    with pytest.raises(UnsupportedFeature, match="builder"):
        from_langgraph(chatbot_graph().compile())


def test_a_conditional_edge_choosing_two_nodes_fails_at_run_time_naming_it() -> None:
    """A path returning several destinations raises UnsupportedFeature when it happens."""
    b = StateGraph(Chat)
    for n in "abc":
        b.add_node(n, lambda s: None)
    b.add_edge(START, "a")
    b.add_conditional_edges("a", lambda s: ["b", "c"], ["b", "c"])
    eng = from_langgraph(b)
    with pytest.raises(Exception, match="only one destination") as info:
        eng.run_sync("r", {"messages": [], "turns": 0})
    cause: BaseException | None = info.value
    while cause is not None and not isinstance(cause, UnsupportedFeature):
        cause = cause.__cause__
    assert cause is not None and cause.node_id == "a"
