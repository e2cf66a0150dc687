"""A `MessagesState` chat of five turns (a tool call among them), run natively by LangGraph, through
`from_langgraph` and with `GraphEngineSaver`: the same conversation after every turn.

LangGraph gives new messages random ids, so conversations are compared by message type, content
and tool calls; each side's ids are checked unique and stable across later turns.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from saver_helpers import TABLES

from graphengine.adapters.langgraph import from_langgraph
from graphengine.store import Store

TURNS = ["hi", "what is the weather in Oslo", "thanks", "and in Rome?", "bye"]
CONFIG: Any = {"configurable": {"thread_id": "chat"}}


def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def chat_graph() -> StateGraph[Any]:
    """A bot that asks the weather tool when a message names a city, then answers from its result."""

    def bot(s: MessagesState) -> dict[str, Any]:
        last = s["messages"][-1]
        if isinstance(last, ToolMessage):
            return {"messages": [AIMessage(content=f"the tool says: {last.content}")]}
        text = str(last.content)
        city = next((c for c in ("Oslo", "Rome") if c in text), None)
        if city is not None:
            call = {"name": "weather", "args": {"city": city}, "id": f"call-{len(s['messages'])}"}
            return {"messages": [AIMessage(content="", tool_calls=[call])]}
        return {"messages": [AIMessage(content=f"you said {text!r} ({len(s['messages'])} so far)")]}

    b = StateGraph(MessagesState)
    b.add_node("bot", bot)
    b.add_node("tools", ToolNode([weather]))
    b.add_edge(START, "bot")
    b.add_conditional_edges("bot", tools_condition)
    b.add_edge("tools", "bot")
    return b


def _talk(messages: list[BaseMessage]) -> list[tuple[str, Any, Any]]:
    return [(m.type, m.content, getattr(m, "tool_calls", None)) for m in messages]


def _check_ids(messages: list[BaseMessage], seen: dict[int, str]) -> None:
    """Every message has an id of its own, and a message keeps its id over later turns."""
    ids = [m.id for m in messages]
    assert None not in ids and len(set(ids)) == len(ids)
    for i, mid in enumerate(ids):
        assert seen.setdefault(i, str(mid)) == mid


async def test_five_turns_through_from_langgraph_have_langgraphs_messages(store: Store) -> None:
    """Each turn's conversation through from_langgraph is LangGraph's; the run replays clean."""
    native = chat_graph().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(chat_graph(), store=store)
    seen: dict[int, str] = {}
    for i, text in enumerate(TURNS):
        turn = {"messages": [HumanMessage(content=text)]}
        want = (await native.ainvoke(turn, CONFIG))["messages"]
        got = (await adapted.run("chat", turn))["messages"]
        assert _talk(got) == _talk(want), f"turn {i}"
        _check_ids(got, seen)
    assert len(want) == 14  # five turns, two of which called the tool (a call and its result each)
    assert (await adapted.replay("chat")).ok


@pytest.fixture(params=sorted(TABLES))
def saver_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Any]:
    """A factory of `GraphEngineSaver`s on an empty table of each backend."""
    return TABLES[request.param](tmp_path)


async def test_five_turns_with_graphengine_saver_have_langgraphs_messages(
    saver_factory: Callable[[], Any],
) -> None:
    """The chat checkpointed by GraphEngineSaver holds LangGraph's conversation after each turn, ids kept."""
    native = chat_graph().compile(checkpointer=InMemorySaver())
    async for saver in saver_factory():
        app = chat_graph().compile(checkpointer=saver)
        seen: dict[int, str] = {}
        for i, text in enumerate(TURNS):
            turn = {"messages": [HumanMessage(content=text)]}
            want = (await native.ainvoke(turn, CONFIG))["messages"]
            got = (await app.ainvoke(turn, CONFIG))["messages"]
            assert _talk(got) == _talk(want), f"turn {i}"
            _check_ids(got, seen)
            assert _talk((await app.aget_state(CONFIG)).values["messages"]) == _talk(want)
