"""`POST /api/runs/{id}/continue` and `/update-state`: a chat driven over HTTP, against LangGraph natively.

The same two-node chat is served by the API (a real app over a MemoryStore, its lifespan running)
and compiled by LangGraph with its in-memory checkpointer; each call is made on both and the
messages compared after it.
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import AsyncIterator
from typing import Annotated, Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install graphengine[server])")
pytest.importorskip("langgraph")
httpx = pytest.importorskip("httpx")

from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402

from graphengine import INPUT_NODE, Context, Engine, NodeResult, append  # noqa: E402
from graphengine.server import create_app  # noqa: E402
from graphengine.store import MemoryStore  # noqa: E402

TURNS = ["hi", "how are you", "tell me a joke", "another", "bye"]
CONFIG: Any = {"configurable": {"thread_id": "c1"}}


class Chat(BaseModel):
    """The engine's state: messages appended."""

    messages: Annotated[list[str], append] = []


class LgChat(TypedDict):
    """LangGraph's state: the same field, appended by its reducer."""

    messages: Annotated[list[str], operator.add]


def _answer(msgs: list[str]) -> list[str]:
    return [f"re: {msgs[-1]} ({len(msgs)})"]


def _review(msgs: list[str]) -> list[str]:
    return ["ok" if len(msgs[-1]) < 16 else "long"]


GATE: dict[str, asyncio.Event] = {}


async def _hold(ctx: Context, s: Chat) -> NodeResult[Chat]:
    """Waits for its run's gate when the last message says so (a run kept running for the 409 test)."""
    if s.messages[-1] == "hold":
        await GATE.setdefault(ctx.run_id, asyncio.Event()).wait()
    return NodeResult()


def engine_chat(store: MemoryStore) -> Engine[Chat]:
    """hold -> answer -> review."""
    g = Engine(Chat, store=store)
    g.add("hold", _hold)
    g.add("answer", lambda ctx, s: NodeResult(delta=Chat(messages=_answer(s.messages))))
    g.add("review", lambda ctx, s: NodeResult(delta=Chat(messages=_review(s.messages))))
    return g.start_at("hold").connect("hold", "answer").connect("answer", "review")


def langgraph_chat() -> Any:
    """The same chat in LangGraph."""
    b = StateGraph(LgChat)
    b.add_node("hold", lambda s: {})
    b.add_node("answer", lambda s: {"messages": _answer(s["messages"])})
    b.add_node("review", lambda s: {"messages": _review(s["messages"])})
    b.add_edge(START, "hold")
    b.add_edge("hold", "answer")
    b.add_edge("answer", "review")
    b.add_edge("review", END)
    return b.compile(checkpointer=InMemorySaver())


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    """A client on the chat's app, its lifespan running."""
    app = create_app(engine_chat(MemoryStore()))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c,
    ):
        yield c


async def test_continue_runs_five_turns_with_langgraphs_messages(client: httpx.AsyncClient) -> None:
    """POST /continue is LangGraph's next invoke of the thread: the same messages after each of 5 turns, one history."""
    lg = langgraph_chat()
    for i, text in enumerate(TURNS):
        want = (await lg.ainvoke({"messages": [text]}, CONFIG))["messages"]
        if i == 0:
            r = await client.post("/api/runs?wait=true", json={"run_id": "c1", "state": {"messages": [text]}})
        else:
            r = await client.post("/api/runs/c1/continue?wait=true", json={"input": {"messages": [text]}})
        assert r.status_code in (200, 201), r.text
        assert r.json()["status"] == "done"
        assert r.json()["state"]["messages"] == want, f"turn {i}"
    steps = (await client.get("/api/runs/c1/history")).json()
    assert [s["node_id"] for s in steps].count(INPUT_NODE) == len(TURNS) - 1


async def test_update_state_as_a_node_then_resume_as_langgraph(client: httpx.AsyncClient) -> None:
    """POST /update-state as node answer waits before review (LangGraph's next); resume then runs review as invoke(None)."""
    lg = langgraph_chat()
    await lg.ainvoke({"messages": ["u"]}, CONFIG)
    await client.post("/api/runs?wait=true", json={"run_id": "c1", "state": {"messages": ["u"]}})
    edit = ["an edit that is rather long"]
    await lg.aupdate_state(CONFIG, {"messages": edit}, as_node="answer")
    r = await client.post(
        "/api/runs/c1/update-state", json={"values": {"messages": edit}, "as_node": "answer"}
    )
    assert r.status_code == 200, r.text
    native = await lg.aget_state(CONFIG)
    d = r.json()
    assert d["state"]["messages"] == native.values["messages"]
    assert d["status"] == "interrupted" and (d["interrupt"]["node_id"],) == native.next
    r = await client.post("/api/runs/c1/resume?wait=true")
    assert r.json()["state"]["messages"] == (await lg.ainvoke(None, CONFIG))["messages"]
    steps = (await client.get("/api/runs/c1/history")).json()
    assert any(s["node_id"] != "review" and s["delta"] == {"messages": edit} for s in steps)


async def test_turn_and_edit_refusals_are_typed_statuses(client: httpx.AsyncClient) -> None:
    """Unknown run 404; a bad delta, an unknown node or an extra body field 422; a run this server drives 409."""
    assert (await client.post("/api/runs/nope/continue", json={"input": {}})).status_code == 404
    assert (await client.post("/api/runs/nope/update-state", json={"values": {}})).status_code == 404
    await client.post("/api/runs?wait=true", json={"run_id": "c1", "state": {"messages": ["u"]}})
    bad = await client.post("/api/runs/c1/continue", json={"input": {"messages": "not a list"}})
    assert bad.status_code == 422, bad.text
    assert (await client.post("/api/runs/c1/continue", json={"input": {}, "x": 1})).status_code == 422
    unknown = await client.post("/api/runs/c1/update-state", json={"values": {}, "as_node": "nobody"})
    assert unknown.status_code == 422 and "nobody" in unknown.text
    GATE.pop("c1", None)
    held = await client.post("/api/runs/c1/continue", json={"input": {"messages": ["hold"]}})
    assert held.status_code == 200 and held.json()["live"] is True
    try:
        again = await client.post("/api/runs/c1/continue", json={"input": {"messages": ["more"]}})
        assert again.status_code == 409
        edit = await client.post("/api/runs/c1/update-state", json={"values": {"messages": ["x"]}})
        assert edit.status_code == 409
    finally:
        GATE.setdefault("c1", asyncio.Event()).set()
    async with asyncio.timeout(5):
        events = await client.get("/api/runs/c1/events")  # the event stream ends with the turn
    assert '"kind": "end"' in events.text or '"kind":"end"' in events.text
    final = (await client.get("/api/runs/c1")).json()
    assert final["state"]["messages"][-3:] == ["hold", "re: hold (4)", "ok"]
