"""Token events of a node streaming a chat model reach the server's SSE clients."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install graphengine[server])")
httpx = pytest.importorskip("httpx")

from graphengine import Context, Engine, NodeResult  # noqa: E402
from graphengine.models import Message, MessagesState, OpenAIChatModel, chat  # noqa: E402
from graphengine.models.testing import LocalChatServer, openai_stream  # noqa: E402
from graphengine.server import create_app  # noqa: E402
from graphengine.store import MemoryStore  # noqa: E402

PIECES = ["Bon", "jour", " !"]


class Chat(MessagesState):
    """A conversation."""


async def test_sse_clients_get_the_token_events_of_a_streaming_node() -> None:
    """`token` events (node, message id, text) go out over SSE in order, before the step that
    commits the message, and the step's delta holds the whole message."""
    gate = asyncio.Event()
    with LocalChatServer() as srv:
        srv.stream(openai_stream(PIECES))
        model = OpenAIChatModel("m", base_url=srv.url + "/v1")

        async def answer(ctx: Context, s: Chat) -> NodeResult[Chat]:
            await gate.wait()  # released once the SSE client listens
            out = await chat(ctx, model, s.messages, stream=True)
            return NodeResult(delta=Chat(messages=[out.to_message()]))

        eng = Engine(Chat, store=MemoryStore())
        eng.add("answer", answer).start_at("answer")
        app = create_app(eng)
        got: list[tuple[str, dict[str, Any]]] = []
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as c,
        ):
            r = await c.post(
                "/api/runs", json={"run_id": "t", "state": {"messages": [{"role": "user", "content": "hi"}]}}
            )
            assert r.status_code == 201, r.text

            async def read() -> None:
                async with c.stream("GET", "/api/runs/t/events") as resp:
                    kind = ""
                    async for line in resp.aiter_lines():
                        if line.startswith("event: "):
                            kind = line[7:]
                        elif line.startswith("data: "):
                            got.append((kind, json.loads(line[6:])))

            reader = asyncio.create_task(read())
            live = app.state.runs.live["t"]
            async with asyncio.timeout(5):
                while not live.listeners:  # noqa: ASYNC110 (the app owns this state; no event to wait on)
                    await asyncio.sleep(0.01)
            gate.set()
            await asyncio.wait_for(reader, 5)
    kinds = [k for k, _ in got]
    tokens = [d for k, d in got if k == "token"]
    assert [d["msg"] for d in tokens] == PIECES
    assert {(d["node_id"], d["meta"]["message_id"]) for d in tokens} == {("answer", "t/1/answer/0")}
    step = next(d for k, d in got if k == "step")
    assert kinds.index("step") > kinds.index("token")
    assert step["meta"]["delta"]["messages"][-1]["content"] == "".join(PIECES)
    assert step["meta"]["delta"]["messages"][-1]["id"] == "t/1/answer/0"
    assert Message.model_validate(step["meta"]["delta"]["messages"][-1]).role == "assistant"
