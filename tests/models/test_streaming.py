"""Token streaming: both adapters read their protocol's streamed answer from a real local server,
`chat(stream=True)` turns it into `token` events of the run (stream, OpenTelemetry), and the run's
state and replay do not depend on it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from graphengine import Context, Engine, NodeResult, fan_out
from graphengine._stream import STEP
from graphengine.emit import EventKind, MemoryEmitter
from graphengine.models import (
    BadResponseError,
    ChatOut,
    Message,
    MessagesState,
    ModelConnectionError,
    OllamaChatModel,
    OpenAIChatModel,
    RetryPolicy,
    StreamingChatModel,
    ToolSpec,
    chat,
)
from graphengine.models.testing import (
    LocalChatServer,
    ScriptedChatModel,
    ollama_reply,
    ollama_stream,
    openai_reply,
    openai_stream,
)
from graphengine.store import MemoryStore
from graphengine.testing import assert_replays

PIECES = ["Hel", "lo", ", wor", "ld", "!"]
WEATHER = ToolSpec(name="weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}})


@dataclass
class Proto:
    """One wire protocol: its model, its whole reply, its streamed reply and its stream's media type."""

    name: str
    make: Callable[..., Any]
    reply: Callable[..., dict[str, Any]]
    stream: Callable[..., list[bytes]]
    media: str


PROTOS = [
    Proto(
        "openai",
        lambda srv, **kw: OpenAIChatModel("test-model", base_url=srv.url + "/v1", **kw),
        lambda text, calls=(): openai_reply(text or None, calls),
        openai_stream,
        "text/event-stream",
    ),
    Proto(
        "ollama",
        lambda srv, **kw: OllamaChatModel("test-model", base_url=srv.url, **kw),
        ollama_reply,
        ollama_stream,
        "application/x-ndjson",
    ),
]


@pytest.fixture(params=PROTOS, ids=lambda p: p.name)
def proto(request: pytest.FixtureRequest) -> Proto:
    """Each wire protocol in turn."""
    p: Proto = request.param
    return p


@pytest.fixture
def srv() -> Iterator[LocalChatServer]:
    """A fresh local server per test."""
    with LocalChatServer() as s:
        yield s


async def test_streamed_text_arrives_in_pieces_and_equals_the_whole_answer(
    proto: Proto, srv: LocalChatServer
) -> None:
    """`stream_chat` hands on each piece in order and returns what `chat` returns for the same answer."""
    srv.stream(proto.stream(PIECES), content_type=proto.media)
    srv.reply(proto.reply("".join(PIECES)))
    model = proto.make(srv)
    assert isinstance(model, StreamingChatModel)
    got: list[str] = []
    streamed = await model.stream_chat([Message.user("hi")], [], got.append)
    whole = await model.chat([Message.user("hi")])
    assert got == PIECES
    assert streamed == whole and streamed.text == "Hello, world!"
    assert srv.requests[0].json["stream"] is True
    assert srv.requests[0].json["messages"] == srv.requests[1].json["messages"]


async def test_streamed_tool_calls_equal_the_whole_answers(proto: Proto, srv: LocalChatServer) -> None:
    """Tool calls sent in fragments are put together into the calls `chat` decodes."""
    calls = [("weather", {"city": "Paris"}), ("weather", {"city": "Oslo"})]
    srv.stream(proto.stream(["Let me check."], calls), content_type=proto.media)
    srv.reply(proto.reply("Let me check.", calls))
    model = proto.make(srv)
    streamed = await model.stream_chat([Message.user("weather?")], [WEATHER], lambda _: None)
    whole = await model.chat([Message.user("weather?")], [WEATHER])
    assert streamed == whole
    assert [(c.name, c.arguments) for c in streamed.tool_calls] == calls


async def test_tokens_are_handed_on_while_the_answer_is_still_coming(
    proto: Proto, srv: LocalChatServer
) -> None:
    """Each piece reaches the caller when the server sends it, not when the answer ends."""
    srv.stream(proto.stream(PIECES), content_type=proto.media, pause=0.05)
    seen: list[float] = []
    t0 = time.monotonic()
    await proto.make(srv).stream_chat([Message.user("hi")], [], lambda _: seen.append(time.monotonic() - t0))
    assert len(seen) == len(PIECES)
    assert seen[-1] - seen[0] >= 0.15  # five pieces, 50 ms apart, each seen on arrival


async def test_a_stream_that_stops_early_is_a_bad_response(proto: Proto, srv: LocalChatServer) -> None:
    """A body that ends before the protocol's end marker is refused, not taken as a short answer."""
    srv.stream(proto.stream(PIECES)[:3], content_type=proto.media)
    with pytest.raises(BadResponseError, match="ended before"):
        await proto.make(srv).stream_chat([Message.user("hi")], [], lambda _: None)


async def test_an_error_inside_the_stream_is_a_bad_response(proto: Proto, srv: LocalChatServer) -> None:
    """An error object sent mid-stream raises `BadResponseError` with the server's words."""
    err = (
        b'data: {"error": {"message": "overloaded"}}\n\n'
        if proto.name == "openai"
        else b'{"error": "overloaded"}\n'
    )
    srv.stream([*proto.stream(["a"])[:1], err], content_type=proto.media)
    with pytest.raises(BadResponseError, match="overloaded"):
        await proto.make(srv).stream_chat([Message.user("hi")], [], lambda _: None)


async def test_a_broken_stream_is_not_retried(proto: Proto, srv: LocalChatServer) -> None:
    """A connection lost after tokens were handed on raises at once: no token is handed on twice."""
    srv.stream(proto.stream(PIECES), content_type=proto.media, pause=0.1)
    got: list[str] = []

    def on_token(text: str) -> None:
        got.append(text)
        if len(got) == 2:
            srv.close()  # the server stops sending mid-answer and drops the connection

    model = proto.make(srv, retry=RetryPolicy(max_retries=3, backoff=0))
    with pytest.raises(ModelConnectionError, match="not retried"):
        await model.stream_chat([Message.user("hi")], [], on_token)
    assert got == PIECES[:2]
    assert len(srv.requests) == 1


async def test_a_refusal_before_the_stream_is_retried(proto: Proto, srv: LocalChatServer) -> None:
    """A 503 before any token is retried like a whole answer, then the stream is read."""
    srv.reply({"error": "busy"}, status=503)
    srv.stream(proto.stream(PIECES), content_type=proto.media)
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    out = await proto.make(srv, sleep=sleep).stream_chat([Message.user("hi")], [], lambda _: None)
    assert out.text == "Hello, world!" and len(waits) == 1 and len(srv.requests) == 2


class Chat(MessagesState):
    """A conversation."""


def _answering(model: Any, *, stream: bool) -> Engine[Chat]:
    async def answer(ctx: Context, s: Chat) -> NodeResult[Chat]:
        out = await chat(ctx, model, s.messages, stream=stream)
        return NodeResult(delta=Chat(messages=[out.to_message()]))

    eng = Engine(Chat, store=MemoryStore())
    eng.add("answer", answer).start_at("answer")
    return eng


async def test_a_node_streams_tokens_into_the_runs_stream(proto: Proto, srv: LocalChatServer) -> None:
    """`chat(stream=True)` yields `token` events (node, message id, text) before the node ends;
    the message the state holds has that id and the whole text."""
    srv.stream(proto.stream(PIECES), content_type=proto.media)
    eng = _answering(proto.make(srv), stream=True)
    events = await eng.stream("r", Chat(messages=[Message.user("hi")])).collect()
    tokens = [e for e in events if e.kind == EventKind.TOKEN]
    assert [e.msg for e in tokens] == PIECES
    assert {(e.node_id, e.step, e.meta["message_id"], e.meta["attempt"]) for e in tokens} == {
        ("answer", 1, "r/1/answer/0", 1)
    }
    kinds = [str(e.kind) for e in events]
    assert kinds.index("token") > kinds.index("node_start") and kinds.index("node_end") > len(kinds) - 5
    final = await eng.get_state("r")
    assert final.messages[-1] == Message.assistant("Hello, world!", id="r/1/answer/0")


async def test_streaming_changes_neither_the_state_nor_replay(proto: Proto, srv: LocalChatServer) -> None:
    """The same answer streamed or not gives the same final state and step records; replay
    needs no server and emits no tokens."""
    srv.stream(proto.stream(PIECES), content_type=proto.media)
    srv.reply(proto.reply("".join(PIECES)))
    streamed, whole = _answering(proto.make(srv), stream=True), _answering(proto.make(srv), stream=False)
    first = Chat(messages=[Message.user("hi", id="q")])
    a, b = await streamed.run("r", first), await whole.run("r", first)
    assert a == b
    sa, sb = await streamed.store.load_steps("r"), await whole.store.load_steps("r")
    assert [(s.delta, s.state) for s in sa] == [(s.delta, s.state) for s in sb]
    srv.close()
    em = MemoryEmitter()
    streamed.emitter = em
    await assert_replays(streamed, "r")
    assert not [e for e in em.events if e.kind == EventKind.TOKEN]


async def test_a_model_that_cannot_stream_sends_its_text_as_one_token() -> None:
    """With a model that has no `stream_chat`, the whole text is one token event."""

    class Plain:
        async def chat(self, messages: Any, tools: Any = ()) -> ChatOut:
            return ChatOut(text="all at once")

    events = await _answering(Plain(), stream=True).stream("r", Chat()).collect()
    assert [e.msg for e in events if e.kind == EventKind.TOKEN] == ["all at once"]


async def test_fan_out_branches_name_their_tokens() -> None:
    """Tokens of concurrent branches carry their branch and distinct message ids."""
    model = ScriptedChatModel("one two")
    eng = Engine(Chat, store=MemoryStore())

    async def ask(ctx: Context, s: Chat) -> NodeResult[Chat]:
        out = await chat(ctx, model, [Message.user("hi")], stream=True)
        return NodeResult(delta=Chat(messages=[out.to_message()]))

    eng.add("split", lambda ctx, s: NodeResult(route=fan_out(["ask", "ask"], join="join")))
    eng.add("ask", ask).add("join", lambda ctx, s: NodeResult()).start_at("split")
    events = await eng.stream("f", Chat()).collect()
    tokens = [e for e in events if e.kind == EventKind.TOKEN]
    by_branch = {e.meta["branch"]: e.meta["message_id"] for e in tokens}
    assert by_branch == {0: "f/2/ask[0]/0", 1: "f/2/ask[1]/0"}
    assert sorted(e.msg for e in tokens) == ["one ", "one ", "two", "two"]
    final = await eng.get_state("f")
    assert [m.id for m in final.messages] == ["f/2/ask[0]/0", "f/2/ask[1]/0"]
    assert [e for e in events if e.kind == STEP]


async def test_a_removal_marker_is_never_sent_to_a_model(proto: Proto, srv: LocalChatServer) -> None:
    """`chat`, `stream_chat` and a node's `chat(...)` refuse a conversation holding a removal marker."""
    model = proto.make(srv)
    marker = [Message.user("hi"), Message.remove("a")]
    with pytest.raises(ValueError, match=r"messages\[1\] is a removal marker"):
        await model.chat(marker)
    with pytest.raises(ValueError, match="removal marker"):
        await model.stream_chat(marker, [], lambda _: None)
    assert srv.requests == []
    eng = _answering(model, stream=False)
    with pytest.raises(Exception, match="removal marker"):
        await eng.run("x", Chat(messages=marker))


async def test_tokens_become_span_events_on_the_node_span(srv: LocalChatServer) -> None:
    """Under OpenTelemetry each token is a `graphengine.token` event of the node's span."""
    pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from graphengine.emit.otel import TOKEN_SPAN_EVENT, TOKEN_TEXT, OTelEmitter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    srv.stream(openai_stream(PIECES))
    eng = _answering(OpenAIChatModel("m", base_url=srv.url + "/v1"), stream=True)
    eng.emitter = OTelEmitter(provider)
    await eng.run("o", Chat(messages=[Message.user("hi")]))
    (node,) = [s for s in exporter.get_finished_spans() if s.name == "graphengine.node answer"]
    toks = [e for e in node.events if e.name == TOKEN_SPAN_EVENT]
    assert [e.attributes[TOKEN_TEXT] for e in toks if e.attributes] == PIECES
    assert {e.attributes["graphengine.message_id"] for e in toks if e.attributes} == {"o/1/answer/0"}
    provider.shutdown()


def test_a_log_emitter_writes_tokens_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    """`LogEmitter` logs the many token events at DEBUG, so an INFO log shows the steps, not every token."""
    from graphengine.emit import LogEmitter

    eng = _answering(ScriptedChatModel("a b c"), stream=True)
    eng.emitter = LogEmitter("ge-test")
    with caplog.at_level(logging.DEBUG, logger="ge-test"):
        eng.run_sync("l", Chat())
    tokens = [r for r in caplog.records if r.getMessage().startswith("token ")]
    assert [r.levelno for r in tokens] == [logging.DEBUG] * 3
    assert {r.levelno for r in caplog.records if r not in tokens} == {logging.INFO}
