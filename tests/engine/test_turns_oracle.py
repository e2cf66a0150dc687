"""The engine's turns and edits against LangGraph running the same graph natively (the oracle).

Each test writes one small graph twice, once for the engine and once for LangGraph, and drives
both with the same calls: a chat of five turns, new input on a thread paused before a node, and
an `update_state` as a node, comparing the state after every call.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from graphengine import Engine, NodeResult, append
from graphengine.store import Store

TURNS = ["hi", "how are you", "tell me a joke", "another", "bye"]


class Chat(BaseModel):
    """The engine's state."""

    msgs: Annotated[list[str], append] = []


class LgChat(TypedDict):
    """LangGraph's state: the same field, appended by its reducer."""

    msgs: Annotated[list[str], operator.add]


def _answer(msgs: list[str]) -> list[str]:
    return [f"re:{msgs[-1]} ({len(msgs)})"]


def _review(msgs: list[str]) -> list[str]:
    return ["ok"] if len(msgs[-1]) < 12 else ["too long"]


def engine_chat(store: Store, **add: Any) -> Engine[Chat]:
    """answer -> review."""
    g = Engine(Chat, store=store)
    g.add("answer", lambda ctx, s: NodeResult(delta=Chat(msgs=_answer(s.msgs))))
    g.add("review", lambda ctx, s: NodeResult(delta=Chat(msgs=_review(s.msgs))), **add)
    return g.start_at("answer").connect("answer", "review")


def langgraph_chat(**compile_kw: Any) -> Any:
    """The same graph, compiled by LangGraph with its in-memory checkpointer."""
    b = StateGraph(LgChat)
    b.add_node("answer", lambda s: {"msgs": _answer(s["msgs"])})
    b.add_node("review", lambda s: {"msgs": _review(s["msgs"])})
    b.add_edge(START, "answer")
    b.add_edge("answer", "review")
    b.add_edge("review", END)
    return b.compile(checkpointer=InMemorySaver(), **compile_kw)


CONFIG: Any = {"configurable": {"thread_id": "t"}}


async def test_five_turns_have_langgraphs_state_after_each(store: Store) -> None:
    """continue_run is LangGraph's next invoke of the thread: the same messages after each of 5 turns."""
    g, lg = engine_chat(store), langgraph_chat()
    for i, text in enumerate(TURNS):
        want = (await lg.ainvoke({"msgs": [text]}, CONFIG))["msgs"]
        go = g.run if i == 0 else g.continue_run
        got = (await go("t", Chat(msgs=[text]))).msgs
        assert got == want, f"turn {i}"


async def test_new_input_on_a_thread_paused_before_a_node_as_langgraph(store: Store) -> None:
    """Paused before review, a new message starts a new turn from the start; resume then runs review."""
    g, lg = engine_chat(store, interrupt_before=True), langgraph_chat(interrupt_before=["review"])
    assert (await g.run("t", Chat(msgs=["u1"]))).msgs == (await lg.ainvoke({"msgs": ["u1"]}, CONFIG))["msgs"]
    got = (await g.continue_run("t", {"msgs": ["u2"]})).msgs
    assert got == (await lg.ainvoke({"msgs": ["u2"]}, CONFIG))["msgs"]
    assert (await g.resume("t")).msgs == (await lg.ainvoke(None, CONFIG))["msgs"]


async def test_update_state_as_a_node_then_resume_as_langgraph(store: Store) -> None:
    """An edit as node answer of a finished thread waits before review, as LangGraph's next is ("review",)."""
    g, lg = engine_chat(store), langgraph_chat()
    await g.run("t", Chat(msgs=["u"]))
    await lg.ainvoke({"msgs": ["u"]}, CONFIG)
    got = await g.update_state("t", Chat(msgs=["an edit that is long"]), as_node="answer")
    await lg.aupdate_state(CONFIG, {"msgs": ["an edit that is long"]}, as_node="answer")
    native = await lg.aget_state(CONFIG)
    assert got.msgs == native.values["msgs"]
    pending = await g.get_interrupt("t")
    assert pending is not None and (pending.node_id,) == native.next
    assert (await g.resume("t")).msgs == (await lg.ainvoke(None, CONFIG))["msgs"]
    assert (await g.replay("t")).ok


async def test_a_messages_chat_of_five_turns_has_langgraphs_messages(store: Store) -> None:
    """A MessagesState chat continued turn by turn holds LangGraph's add_messages conversation after each turn."""
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.graph import MessagesState as LgMessagesState

    from graphengine.models import Message, MessagesState

    def lg_reply(s: LgMessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(content=f"echo {s['messages'][-1].content} ({len(s['messages'])})")]}

    b = StateGraph(LgMessagesState)
    b.add_node("reply", lg_reply)
    b.add_edge(START, "reply")
    lg = b.compile(checkpointer=InMemorySaver())

    def reply(ctx: Any, s: MessagesState) -> NodeResult[MessagesState]:
        text = f"echo {s.messages[-1].content} ({len(s.messages)})"
        return NodeResult(delta=MessagesState(messages=[Message.assistant(text)]))

    g = Engine(MessagesState, store=store).add("reply", reply).start_at("reply")
    for i, text in enumerate(TURNS):
        native = (await lg.ainvoke({"messages": [HumanMessage(content=text)]}, CONFIG))["messages"]
        turn = MessagesState(messages=[Message.user(text)])
        ours = (await (g.run("t", turn) if i == 0 else g.continue_run("t", turn))).messages
        assert [(m.role, m.content) for m in ours] == [
            ("user" if m.type == "human" else "assistant", m.content) for m in native
        ], f"turn {i}"
    assert (await g.replay("t")).ok
