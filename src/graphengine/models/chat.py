"""The `ChatModel` protocol and its wire-neutral records: `Message`, `ToolSpec`, `ToolCall`, `ChatOut`.

A chat model is anything with ``async chat(messages, tools) -> ChatOut``. Inside a node, call it
through :func:`chat` (or ``ctx.call(ModelTool(model), ...)``): the answer is recorded with the
step, and replay serves it from the record instead of calling the model again::

    async def answer(ctx: Context, s: State) -> NodeResult[State]:
        out = await chat(ctx, model, [Message.user(s.question)])
        return NodeResult(delta=State(answer=out.text))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from graphengine.context import Context
from graphengine.emit import EventKind

__all__ = [
    "ChatModel",
    "ChatOut",
    "ChatRequest",
    "REMOVE_ALL",
    "Message",
    "ModelTool",
    "Role",
    "StreamingChatModel",
    "ToolCall",
    "ToolSpec",
    "chat",
    "message_id",
    "model_id",
]

Role = Literal["system", "user", "assistant", "tool"]
"""Who says a message."""

REMOVE_ALL = "__remove_all__"
"""The id of `Message.remove_all()`: merged by `add_messages`, it drops every earlier message."""

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class ToolCall(BaseModel):
    """One tool invocation a model asked for."""

    model_config = _FROZEN

    id: str = ""
    """The provider's id for the call (echoed in the tool's answer); synthesized when the wire has none."""
    name: str
    """Name of the tool to run."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """The arguments, already decoded from JSON."""


class Message(BaseModel):
    """One chat message, provider-neutral; adapters translate it to their wire format.

    A message with role ``"remove"`` is not said by anyone: it is a removal marker
    (`Message.remove`, `Message.remove_all`) that `add_messages` consumes when it merges a
    delta; it never stays in a merged list and `chat` refuses to send one to a model.
    """

    model_config = _FROZEN

    role: Role | Literal["remove"]
    """system, user, assistant or tool; ``remove`` for a removal marker."""
    content: str = ""
    """The text (for a tool message: the tool's result as text)."""
    tool_calls: tuple[ToolCall, ...] = ()
    """For an assistant message: the tool calls it made."""
    tool_call_id: str | None = None
    """For a tool message: the id of the call it answers."""
    name: str | None = None
    """For a tool message: the tool's name (Ollama matches results by it)."""
    id: str | None = None
    """Identifies the message in a conversation: `add_messages` replaces the message with the
    same id, and gives one to each message that has none. Never sent to a model."""

    @classmethod
    def system(cls, content: str, *, id: str | None = None) -> Message:
        """A system message."""
        return cls(role="system", content=content, id=id)

    @classmethod
    def user(cls, content: str, *, id: str | None = None) -> Message:
        """A user message."""
        return cls(role="user", content=content, id=id)

    @classmethod
    def assistant(
        cls, content: str = "", tool_calls: Sequence[ToolCall] = (), *, id: str | None = None
    ) -> Message:
        """An assistant message, optionally with the tool calls it made."""
        return cls(role="assistant", content=content, tool_calls=tuple(tool_calls), id=id)

    @classmethod
    def tool(cls, call: ToolCall, content: str, *, id: str | None = None) -> Message:
        """The result of `call`, sent back to the model."""
        return cls(role="tool", content=content, tool_call_id=call.id, name=call.name, id=id)

    @classmethod
    def remove(cls, id: str) -> Message:
        """A marker that removes the message `id` when `add_messages` merges it."""
        return cls(role="remove", id=id)

    @classmethod
    def remove_all(cls) -> Message:
        """A marker that removes every message before it when `add_messages` merges it."""
        return cls(role="remove", id=REMOVE_ALL)


class ToolSpec(BaseModel):
    """What a model is told about a tool: its name, what it does, and a JSON schema of its arguments."""

    model_config = _FROZEN

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    """The name the model uses to call it (letters, digits, ``_ . -``; at most 64)."""
    description: str = ""
    """What the tool does and when to use it."""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """JSON schema of the arguments object."""


class ChatOut(BaseModel):
    """A model's answer: text, tool calls, or both."""

    model_config = _FROZEN

    text: str = ""
    """The answer's text (empty when the model only called tools)."""
    tool_calls: tuple[ToolCall, ...] = ()
    """The tools the model wants run, in order."""
    finish_reason: str | None = None
    """Why generation stopped, as the provider said (``stop``, ``tool_calls``, ``length``...)."""
    model: str | None = None
    """The model that answered, as the provider named it."""
    id: str | None = None
    """The id `to_message` gives the assistant message; `chat` sets it (see `message_id`)."""

    def to_message(self) -> Message:
        """This answer as the assistant message to append to the conversation."""
        return Message.assistant(self.text, self.tool_calls, id=self.id)


@runtime_checkable
class ChatModel(Protocol):
    """A chat model: given the conversation and the tools it may call, answer once.

    Implementations raise `graphengine.models.ChatModelError` subclasses, with keys redacted.
    """

    async def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> ChatOut:
        """Answer the conversation `messages`, possibly asking to call some of `tools`."""
        ...


@runtime_checkable
class StreamingChatModel(ChatModel, Protocol):
    """A `ChatModel` that can also hand out its answer's text as it is generated."""

    async def stream_chat(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], on_token: Callable[[str], None]
    ) -> ChatOut:
        """Answer as `chat` does, calling ``on_token(text)`` with each piece of text as it arrives.

        The returned `ChatOut` is the whole answer, equal to what `chat` would have returned
        for the same answer from the server: streaming changes when text is seen, not what.
        """
        ...


def refuse_markers(messages: Sequence[Message]) -> None:
    """Raise `ValueError` if a removal marker is among `messages`: it is for `add_messages`, not a model."""
    for i, m in enumerate(messages):
        if m.role == "remove":
            raise ValueError(
                f"messages[{i}] is a removal marker (id {m.id!r}); merge it with add_messages, "
                "do not send it to a model"
            )


def message_id(ctx: Context) -> str:
    """The id of the answer of the model call `ctx` makes next: ``run/step/node/call``.

    Derived from where the call happens (run id, step, node, fan-out branch, and the number of
    calls this execution recorded before it), never drawn at random, so a replayed or resumed
    step gives its answer the same id as the live one did, and token events name the message
    the state will hold.
    """
    node = ctx.node_id if ctx.branch is None else f"{ctx.node_id}[{ctx.branch}]"
    return f"{ctx.run_id}/{ctx.step}/{node}/{len(ctx.calls or ())}"


def model_id(model: Any) -> str:
    """A label for `model`: its ``model`` or ``name`` attribute when it is a string, else its class name."""
    for attr in ("model", "name"):
        v = getattr(model, attr, None)
        if isinstance(v, str) and v:
            return v
    return type(model).__name__


class ChatRequest(BaseModel):
    """What `ModelTool` records as its input: the conversation, the tools and which model was asked."""

    model_config = _FROZEN

    messages: tuple[Message, ...]
    """The conversation."""
    tools: tuple[ToolSpec, ...] = ()
    """The tools offered."""
    model: str = ""
    """Label of the model asked (informational; replay does not compare it)."""


@dataclass(frozen=True, slots=True)
class ModelTool:
    """A `ChatModel` as a `graphengine.Tool`, so ``ctx.call`` records its answers.

    Its input is a `ChatRequest` (or its JSON form); its output is a `ChatOut`. The tool is
    named ``name`` (default ``"chat"``, not the model's name, so that a run recorded with one
    model can be replayed with another object, or with none reachable).
    """

    model: ChatModel
    """The model asked."""
    name: str = "chat"
    """The tool name recorded with each call."""
    stream: bool = False
    """Emit the answer's text as ``token`` events while it arrives (see `chat`)."""

    async def call(self, ctx: Context, input: Any) -> ChatOut:
        """Ask the model; raise its `ChatModelError` on failure (``ctx.call`` records it)."""
        req = input if isinstance(input, ChatRequest) else ChatRequest.model_validate(input)
        if not self.stream:
            return await self.model.chat(req.messages, req.tools)
        meta: dict[str, Any] = {"message_id": message_id(ctx), "attempt": ctx.attempt}
        if ctx.branch is not None:
            meta["branch"] = ctx.branch

        def on_token(text: str) -> None:
            if text:
                ctx.emit(text, meta, kind=EventKind.TOKEN)

        if isinstance(self.model, StreamingChatModel):
            return await self.model.stream_chat(req.messages, req.tools, on_token)
        out = await self.model.chat(req.messages, req.tools)
        on_token(out.text)  # a model that cannot stream: its whole text as one token event
        return out


async def chat(
    ctx: Context,
    model: ChatModel,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] = (),
    *,
    name: str = "chat",
    stream: bool = False,
) -> ChatOut:
    """Ask `model` from inside a node, recording the answer with the step.

    Live, the model is called once and its `ChatOut` is stored; on replay the stored answer
    is returned and the model is never called. A failing model raises
    `graphengine.ToolCallError` (its `error_type` names the `ChatModelError` subclass), live
    and on replay alike. The answer's `id` is `message_id(ctx)`, the same live and on replay.

    With ``stream=True`` the answer's text goes to the run's emitter as it arrives, as
    ``token`` events (`EventKind.TOKEN`: ``msg`` the text, ``meta["message_id"]`` the answer's
    id, ``meta["attempt"]``, and ``meta["branch"]`` inside a fan-out), so `Engine.stream`, the
    server's SSE and OpenTelemetry see them; a model that is not a `StreamingChatModel` sends
    its whole text as one event. Only the assembled answer is recorded: the final state is the
    same with or without streaming, and replay emits no tokens.

    Raises `ValueError` for a removal marker (`Message.remove`) among `messages`.
    """
    refuse_markers(messages)
    mid = message_id(ctx)
    req = ChatRequest(messages=tuple(messages), tools=tuple(tools), model=model_id(model))
    out: ChatOut = await ctx.call(ModelTool(model, name, stream), req, name=name, output=ChatOut)
    return out.model_copy(update={"id": mid})
