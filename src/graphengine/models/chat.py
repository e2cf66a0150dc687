"""The `ChatModel` protocol and its wire-neutral records: `Message`, `ToolSpec`, `ToolCall`, `ChatOut`.

A chat model is anything with ``async chat(messages, tools) -> ChatOut``. Inside a node, call it
through :func:`chat` (or ``ctx.call(ModelTool(model), ...)``): the answer is recorded with the
step, and replay serves it from the record instead of calling the model again::

    async def answer(ctx: Context, s: State) -> NodeResult[State]:
        out = await chat(ctx, model, [Message.user(s.question)])
        return NodeResult(delta=State(answer=out.text))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from graphengine.context import Context

__all__ = [
    "ChatModel",
    "ChatOut",
    "ChatRequest",
    "Message",
    "ModelTool",
    "Role",
    "ToolCall",
    "ToolSpec",
    "chat",
    "model_id",
]

Role = Literal["system", "user", "assistant", "tool"]
"""Who says a message."""

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
    """One chat message, provider-neutral; adapters translate it to their wire format."""

    model_config = _FROZEN

    role: Role
    """system, user, assistant or tool."""
    content: str = ""
    """The text (for a tool message: the tool's result as text)."""
    tool_calls: tuple[ToolCall, ...] = ()
    """For an assistant message: the tool calls it made."""
    tool_call_id: str | None = None
    """For a tool message: the id of the call it answers."""
    name: str | None = None
    """For a tool message: the tool's name (Ollama matches results by it)."""

    @classmethod
    def system(cls, content: str) -> Message:
        """A system message."""
        return cls(role="system", content=content)

    @classmethod
    def user(cls, content: str) -> Message:
        """A user message."""
        return cls(role="user", content=content)

    @classmethod
    def assistant(cls, content: str = "", tool_calls: Sequence[ToolCall] = ()) -> Message:
        """An assistant message, optionally with the tool calls it made."""
        return cls(role="assistant", content=content, tool_calls=tuple(tool_calls))

    @classmethod
    def tool(cls, call: ToolCall, content: str) -> Message:
        """The result of `call`, sent back to the model."""
        return cls(role="tool", content=content, tool_call_id=call.id, name=call.name)


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

    def to_message(self) -> Message:
        """This answer as the assistant message to append to the conversation."""
        return Message.assistant(self.text, self.tool_calls)


@runtime_checkable
class ChatModel(Protocol):
    """A chat model: given the conversation and the tools it may call, answer once.

    Implementations raise `graphengine.models.ChatModelError` subclasses, with keys redacted.
    """

    async def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> ChatOut:
        """Answer the conversation `messages`, possibly asking to call some of `tools`."""
        ...


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

    async def call(self, ctx: Context, input: Any) -> ChatOut:
        """Ask the model; raise its `ChatModelError` on failure (``ctx.call`` records it)."""
        req = input if isinstance(input, ChatRequest) else ChatRequest.model_validate(input)
        return await self.model.chat(req.messages, req.tools)


async def chat(
    ctx: Context,
    model: ChatModel,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] = (),
    *,
    name: str = "chat",
) -> ChatOut:
    """Ask `model` from inside a node, recording the answer with the step.

    Live, the model is called once and its `ChatOut` is stored; on replay the stored answer
    is returned and the model is never called. A failing model raises
    `graphengine.ToolCallError` (its `error_type` names the `ChatModelError` subclass), live
    and on replay alike.
    """
    req = ChatRequest(messages=tuple(messages), tools=tuple(tools), model=model_id(model))
    out: ChatOut = await ctx.call(ModelTool(model, name), req, name=name, output=ChatOut)
    return out
