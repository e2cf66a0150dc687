"""Models inside graphs: a plan -> retrieve -> answer -> judge agent whose nodes ask the model through
ctx.call, run against a real local OpenAI-compatible server and offline with a scripted model, and
replayed with no server at all."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from examples.agent import ANSWER, CORPUS, SCRIPT, Agent, build
from graphengine import Context, Engine, NodeResult, ToolCallError
from graphengine.emit import MemoryEmitter
from graphengine.models import ChatOut, Message, OpenAIChatModel, chat
from graphengine.models.testing import LocalChatServer, ScriptedChatModel, openai_reply
from graphengine.store import MemoryStore
from graphengine.testing import assert_replays

KEY = "sk-graph-SECRET-9876543210"

# The agent under test is the shipped example, with its own script, so the example is what these tests prove.


def _wire(item: str | ChatOut) -> dict[str, object]:
    if isinstance(item, str):
        return openai_reply(item)
    return openai_reply(None, item.tool_calls)


@pytest.fixture
def srv() -> Iterator[LocalChatServer]:
    """A local OpenAI-compatible server."""
    with LocalChatServer() as s:
        yield s


def _check_final(final: Agent) -> None:
    assert final.plan == ["goap", "A* search"]
    assert final.docs == [CORPUS["goap"], CORPUS["a*"]]
    assert final.answer == ANSWER
    assert (final.verdict, final.rounds) == ("PASS", 2)


async def test_agent_runs_offline_with_a_scripted_model() -> None:
    """The workflow runs with a deterministic local model and replays identically."""
    model = ScriptedChatModel(*SCRIPT)
    eng = build(model, MemoryStore())
    _check_final(await eng.run("offline", Agent(question="How does GOAP plan?")))
    assert len(model.calls) == 6
    assert [t.name for t in model.calls[1][1]] == ["search"]
    await assert_replays(eng, "offline")
    assert len(model.calls) == 6


async def test_agent_against_a_local_openai_server_replays_without_it(srv: LocalChatServer) -> None:
    """Against a real OpenAI-compatible server the run records every answer; replay needs no server."""
    for item in SCRIPT:
        srv.reply(_wire(item))
    store, emitter = MemoryStore(), MemoryEmitter()
    model = OpenAIChatModel("test-model", base_url=srv.url + "/v1", api_key=KEY)
    eng = build(model, store, emitter)
    _check_final(await eng.run("live", Agent(question="How does GOAP plan?")))
    assert len(srv.requests) == 6
    assert srv.requests[1].json["tools"][0]["function"]["name"] == "search"
    srv.close()

    report = await assert_replays(eng, "live")
    assert report.ok
    assert len(srv.requests) == 6
    steps = await store.load_steps("live")
    assert KEY not in repr(steps)
    assert KEY not in repr(emitter.events)
    tools_called = [c["tool"] for st in steps for c in (json.loads(st.calls)["calls"] if st.calls else ())]
    assert tools_called.count("chat") == 6
    assert tools_called.count("search") == 2


async def test_model_errors_reach_the_node_redacted(srv: LocalChatServer) -> None:
    """A model failing inside a node raises ToolCallError (typed by error_type) whose text hides the key."""
    srv.reply({"error": {"message": f"bad key {KEY}"}}, status=401)
    model = OpenAIChatModel("m", base_url=srv.url + "/v1", api_key=KEY)

    class S(BaseModel):
        err: str = ""
        kind: str = ""

    async def node(ctx: Context, s: S) -> NodeResult[S]:
        try:
            await chat(ctx, model, [Message.user("hi")])
        except ToolCallError as exc:
            return NodeResult(delta=S(err=str(exc), kind=exc.error_type))
        return NodeResult()

    store = MemoryStore()
    eng = Engine(S, store=store)
    eng.add("ask", node)
    eng.start_at("ask")
    final = await eng.run("e", S())
    assert final.kind == "ModelAuthError"
    assert "***" in final.err
    assert KEY not in final.err
    assert KEY not in repr(await store.load_steps("e"))
    srv.close()
    await assert_replays(eng, "e")
