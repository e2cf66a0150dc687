"""`to_langgraph` graphs behave for a LangGraph caller as the same graph written in LangGraph.

Each test builds one small graph twice (an engine handed to `to_langgraph`, and LangGraph's own
`StateGraph`) and drives both with the same calls: a failing node, and a breakpoint before a node
continued with `invoke(None)` or `Command(resume=...)`.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command

from graphengine import Context, Engine, NodeResult, append
from graphengine.adapters.langgraph import to_langgraph


class Log(BaseModel):
    """The engine's state."""

    log: Annotated[list[str], append] = []


class LgLog(TypedDict):
    """LangGraph's state: the same field and reducer."""

    log: Annotated[list[str], operator.add]


class Refused(ValueError):
    """A node's own error type."""


def _refuse(text: str) -> Any:
    raise Refused(f"refused {text}")


def failing_engine() -> Engine[Log]:
    """a -> bad (raises Refused)."""
    g = Engine(Log)
    g.add("a", lambda ctx, s: NodeResult(delta=Log(log=["a"])))
    g.add("bad", lambda ctx, s: _refuse(s.log[-1]))
    return g.start_at("a").connect("a", "bad")


def failing_native() -> Any:
    b = StateGraph(LgLog)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("bad", lambda s: _refuse(s["log"][-1]))
    b.add_edge(START, "a")
    b.add_edge("a", "bad")
    return b.compile(checkpointer=InMemorySaver())


CONFIG: Any = {"configurable": {"thread_id": "t"}}


async def _maybe(value: Any) -> Any:
    return await value if hasattr(value, "__await__") else value


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_failing_node_raises_its_own_exception_as_in_langgraph(mode: str) -> None:
    """invoke and ainvoke raise the node's own exception type and message, and leave the thread where LangGraph leaves it."""
    adapted = to_langgraph(failing_engine(), InMemorySaver())
    native = failing_native()
    raised: list[BaseException] = []
    for graph in (native, adapted):
        call = graph.invoke if mode == "sync" else graph.ainvoke
        with pytest.raises(Refused) as info:
            await _maybe(call({"log": ["u"]}, CONFIG))
        raised.append(info.value)
        assert (await graph.aget_state(CONFIG)).next == ("bad",)
    assert str(raised[1]) == str(raised[0]) == "refused a"
    assert "resume" not in str(raised[1])
    assert any("graphengine node 'bad'" in n for n in getattr(raised[1], "__notes__", []))


def breakpoint_engine() -> Engine[Log]:
    """a -> gate (interrupt_before=True; logs what it was resumed with) -> b."""
    g = Engine(Log)
    g.add("a", lambda ctx, s: NodeResult(delta=Log(log=["a"])))

    def gate(ctx: Context, s: Log) -> NodeResult[Log]:
        return NodeResult(delta=Log(log=[f"gate {ctx.resume_input}"]))

    g.add("gate", gate, interrupt_before=True)
    g.add("b", lambda ctx, s: NodeResult(delta=Log(log=["b"])))
    return g.start_at("a").connect("a", "gate").connect("gate", "b")


def breakpoint_native() -> Any:
    b = StateGraph(LgLog)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("gate", lambda s: {"log": ["gate None"]})
    b.add_node("b", lambda s: {"log": ["b"]})
    b.add_edge(START, "a")
    b.add_edge("a", "gate")
    b.add_edge("gate", "b")
    return b.compile(checkpointer=InMemorySaver(), interrupt_before=["gate"])


def test_a_node_added_with_interrupt_before_goes_on_with_invoke_none_as_a_breakpoint() -> None:
    """Paused before the node, invoke(None) runs it and the rest, as a LangGraph breakpoint does; over two turns."""
    adapted = to_langgraph(breakpoint_engine(), InMemorySaver())
    native = breakpoint_native()
    for turn in ("u1", "u2"):
        for graph in (native, adapted):
            graph.invoke({"log": [turn]}, CONFIG)
        assert adapted.get_state(CONFIG).next == native.get_state(CONFIG).next == ("gate",)
        assert adapted.get_state(CONFIG).values == native.get_state(CONFIG).values
        want = native.invoke(None, CONFIG)
        assert adapted.invoke(None, CONFIG) == want
        assert not adapted.get_state(CONFIG).next
    assert want["log"] == ["u1", "a", "gate None", "b", "u2", "a", "gate None", "b"]


def test_a_resume_value_at_the_breakpoint_reaches_the_node() -> None:
    """Command(resume=v) at the breakpoint hands v to the node as ctx.resume_input, as the engine's resume(input=v)."""
    adapted = to_langgraph(breakpoint_engine(), InMemorySaver())
    adapted.invoke({"log": []}, CONFIG)
    out = adapted.invoke(Command(resume="open"), CONFIG)
    assert out["log"] == ["a", "gate open", "b"]
