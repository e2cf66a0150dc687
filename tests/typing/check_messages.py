"""Type-checked by mypy (`make typecheck`), never run: conversations keep their types."""

from __future__ import annotations

from typing import Any, assert_type

from graphengine import Context, Engine, NodeResult, delta_fields
from graphengine.models import ChatOut, Message, MessagesState, StreamingChatModel, add_messages, chat
from graphengine.models.testing import ScriptedChatModel


class Chat(MessagesState):
    turns: int = 0


async def answer(ctx: Context, s: Chat) -> NodeResult[Chat]:
    out = await chat(ctx, ScriptedChatModel("hi"), s.messages, stream=True)
    assert_type(out, ChatOut)
    return NodeResult(delta=Chat(messages=[out.to_message()], turns=s.turns + 1))


async def check() -> None:
    g = Engine(Chat).add("answer", answer).start_at("answer")
    assert_type(g, Engine[Chat])
    final = await g.run("r", Chat(messages=[Message.user("hi", id="q")]))
    assert_type(final.messages, list[Message])
    assert_type(add_messages(final.messages, [Message.remove("q")]), list[Message])
    assert_type(add_messages([], Message.remove_all()), list[Message])
    assert_type(delta_fields(final), dict[str, Any] | None)
    model: StreamingChatModel = ScriptedChatModel("x")
    assert_type(await model.stream_chat([], [], print), ChatOut)
    add_messages(final.messages, ["not a message"])  # type: ignore[list-item]
