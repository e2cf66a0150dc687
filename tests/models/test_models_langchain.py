"""`LangChainChatModel` wraps LangChain chat models, tested with LangChain's own fake chat models."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import Field

pytest.importorskip(
    "langchain_core", reason="langchain-core is not installed (pip install graphengine[langchain])"
)

from langchain_core.language_models.fake_chat_models import (
    FakeMessagesListChatModel,
    GenericFakeChatModel,
    ParrotFakeChatModel,
)
from langchain_core.messages import AIMessage, BaseMessage

from graphengine import Context, Engine, NodeResult
from graphengine.models import (
    BadResponseError,
    ChatModel,
    ChatModelError,
    LangChainChatModel,
    Message,
    ToolCall,
    ToolSpec,
    chat,
)
from graphengine.store import MemoryStore
from graphengine.testing import assert_replays

WEATHER = ToolSpec(name="weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}})


class Recording(GenericFakeChatModel):
    """A fake that also keeps what it was sent and the kwargs (bound tools)."""

    seen: list[Any] = Field(default_factory=list)

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Any:
        self.seen.append((messages, kw))
        return self._generate(messages, stop=stop, **kw)


async def test_text_answer() -> None:
    """A plain AIMessage becomes ChatOut.text."""
    model = LangChainChatModel(GenericFakeChatModel(messages=iter(["hello"])))
    assert isinstance(model, ChatModel)
    out = await model.chat([Message.user("hi")])
    assert out.text == "hello"
    assert out.tool_calls == ()


async def test_tool_calls_and_tool_results_round_trip() -> None:
    """Tool calls come back as ToolCalls; our tool results reach LangChain as ToolMessages."""
    ai = AIMessage(content="", tool_calls=[{"name": "weather", "args": {"city": "Oslo"}, "id": "t1"}])
    fake = Recording(messages=iter([ai, "Cold in Oslo."]))
    model = LangChainChatModel(fake)
    msgs = [Message.system("sys"), Message.user("weather?")]
    out = await model.chat(msgs, [WEATHER])
    assert out.tool_calls == (ToolCall(id="t1", name="weather", arguments={"city": "Oslo"}),)
    bound = fake.seen[0][1]["tools"]
    assert bound[0]["function"]["name"] == "weather"

    msgs += [out.to_message(), Message.tool(out.tool_calls[0], "-5C")]
    final = await model.chat(msgs)
    assert final.text == "Cold in Oslo."
    sent = fake.seen[1][0]
    assert [type(m).__name__ for m in sent] == ["SystemMessage", "HumanMessage", "AIMessage", "ToolMessage"]
    assert sent[2].tool_calls[0]["args"] == {"city": "Oslo"}
    assert (sent[3].tool_call_id, sent[3].content) == ("t1", "-5C")


async def test_an_answer_that_is_not_an_ai_message_is_a_bad_response() -> None:
    """A model answering with anything but an AIMessage (the parrot echoes our HumanMessage) is rejected."""
    model = LangChainChatModel(ParrotFakeChatModel())
    with pytest.raises(BadResponseError, match="expected an AIMessage, got HumanMessage"):
        await model.chat([Message.user("echo me")])


async def test_content_blocks_are_joined_as_text() -> None:
    """List-of-blocks content keeps its text blocks."""
    ai = AIMessage(content=[{"type": "text", "text": "a"}, {"type": "image_url", "image_url": "x"}, "b"])
    model = LangChainChatModel(FakeMessagesListChatModel(responses=[ai]))
    assert (await model.chat([Message.user("q")])).text == "ab"


async def test_invalid_tool_calls_are_bad_responses() -> None:
    """An AIMessage carrying invalid tool calls raises BadResponseError."""
    ai = AIMessage(
        content="",
        invalid_tool_calls=[
            {"name": "weather", "args": "{oops", "id": "x", "error": "bad json", "type": "invalid_tool_call"}
        ],
    )
    model = LangChainChatModel(FakeMessagesListChatModel(responses=[ai]))
    with pytest.raises(BadResponseError, match="invalid tool call 'weather'"):
        await model.chat([Message.user("q")])


async def test_wrapped_model_errors_become_chat_model_errors() -> None:
    """An exception from the LangChain model is translated into ChatModelError (from the original)."""
    model = LangChainChatModel(GenericFakeChatModel(messages=iter([])))
    with pytest.raises(ChatModelError, match="^langchain: ") as ei:
        await model.chat([Message.user("q")])
    assert ei.value.__cause__ is not None


async def test_inside_a_node_answers_are_recorded_and_replayed() -> None:
    """Through chat(ctx, ...) a LangChain model's answer is recorded; replay does not call it."""
    from pydantic import BaseModel

    class S(BaseModel):
        text: str = ""

    fake = Recording(messages=iter(["recorded answer"]))
    model = LangChainChatModel(fake)

    async def node(ctx: Context, s: S) -> NodeResult[S]:
        out = await chat(ctx, model, [Message.user("q")])
        return NodeResult(delta=S(text=out.text))

    eng = Engine(S, store=MemoryStore())
    eng.add("ask", node)
    eng.start_at("ask")
    assert (await eng.run("lc", S())).text == "recorded answer"
    await assert_replays(eng, "lc")
    assert len(fake.seen) == 1


async def test_streamed_answers_equal_invoked_ones() -> None:
    """`stream_chat` hands on LangChain's chunks in order and returns what `chat` returns.

    (LangChain's fake streams text only, so tool calls are checked through `chat` above.)"""
    streamed = LangChainChatModel(GenericFakeChatModel(messages=iter(["the sky is blue"])))
    whole = LangChainChatModel(GenericFakeChatModel(messages=iter(["the sky is blue"])))
    got: list[str] = []
    out = await streamed.stream_chat([Message.user("sky?")], [WEATHER], got.append)
    assert got == ["the", " ", "sky", " ", "is", " ", "blue"]
    assert out == await whole.chat([Message.user("sky?")], [WEATHER])


async def test_a_streaming_node_emits_langchains_chunks_as_tokens() -> None:
    """`chat(..., stream=True)` over a LangChain model puts its chunks into the run's stream."""
    from graphengine.emit import EventKind
    from graphengine.models import MessagesState

    model = LangChainChatModel(GenericFakeChatModel(messages=iter(["hello out there"])))

    async def node(ctx: Context, s: MessagesState) -> NodeResult[MessagesState]:
        out = await chat(ctx, model, s.messages, stream=True)
        return NodeResult(delta=MessagesState(messages=[out.to_message()]))

    eng = Engine(MessagesState, store=MemoryStore())
    eng.add("ask", node).start_at("ask")
    events = await eng.stream("lc", MessagesState(messages=[Message.user("hi")])).collect()
    tokens = [e.msg for e in events if e.kind == EventKind.TOKEN]
    assert len(tokens) > 1 and "".join(tokens) == "hello out there"
    assert (await eng.get_state("lc")).messages[-1].content == "hello out there"
