"""`LangChainChatModel`: any LangChain ``BaseChatModel`` as a graphengine `ChatModel`.

Needs the ``langchain`` extra (langchain-core), imported on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .chat import ChatOut, Message, ToolCall, ToolSpec, refuse_markers
from .errors import BadResponseError, ChatModelError, MissingExtraError

__all__ = ["LangChainChatModel"]


def _lc_messages() -> Any:
    try:
        from langchain_core import messages
    except ImportError as exc:
        raise MissingExtraError("langchain_core", "langchain", "LangChainChatModel") from exc
    return messages


def _text(content: Any) -> str:
    """LangChain content is a string or a list of blocks; keep the text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif (
                isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
            ):
                parts.append(block["text"])
        return "".join(parts)
    return ""


class LangChainChatModel:
    """Wraps a LangChain ``BaseChatModel`` (``ChatOpenAI``, ``ChatAnthropic``, fakes...) as a `ChatModel`.

        model = LangChainChatModel(ChatOpenAI(model="gpt-4o-mini"))
        out = await model.chat([Message.user("hi")])

    Tools are bound with the model's ``bind_tools`` (OpenAI function format); models that do
    not implement it get them as a ``tools=`` call argument. Errors the wrapped model raises
    become `ChatModelError` (``from`` the original); an answer that is not an ``AIMessage``, or
    that carries invalid tool calls, is a `BadResponseError`. `stream_chat` streams through the
    model's ``astream``.
    """

    provider = "langchain"
    """Label used in errors."""

    def __init__(self, base_chat_model: Any) -> None:
        self._lc = _lc_messages()
        self.base = base_chat_model
        """The wrapped LangChain chat model."""
        self.model = str(
            getattr(base_chat_model, "model_name", None)
            or getattr(base_chat_model, "model", None)
            or type(base_chat_model).__name__
        )
        """A label for the wrapped model."""

    def __repr__(self) -> str:
        return f"LangChainChatModel({type(self.base).__name__})"

    def to_langchain(self, messages: Sequence[Message]) -> list[Any]:
        """Our messages as LangChain message objects (`ValueError` for a removal marker)."""
        refuse_markers(messages)
        lc = self._lc
        out: list[Any] = []
        for m in messages:
            if m.role == "system":
                out.append(lc.SystemMessage(content=m.content))
            elif m.role == "user":
                out.append(lc.HumanMessage(content=m.content))
            elif m.role == "assistant":
                calls = [
                    {"name": c.name, "args": c.arguments, "id": c.id, "type": "tool_call"}
                    for c in m.tool_calls
                ]
                out.append(lc.AIMessage(content=m.content, tool_calls=calls))
            else:
                out.append(lc.ToolMessage(content=m.content, tool_call_id=m.tool_call_id or "", name=m.name))
        return out

    async def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> ChatOut:
        """Invoke the wrapped model (``ainvoke``) and convert its ``AIMessage``."""
        try:
            ai = await self._bound(tools).ainvoke(self.to_langchain(messages))
        except ChatModelError:
            raise
        except Exception as exc:
            raise ChatModelError(f"langchain: {type(exc).__name__}: {exc}", provider=self.provider) from exc
        return self._answer(ai)

    async def stream_chat(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], on_token: Callable[[str], None]
    ) -> ChatOut:
        """Stream the wrapped model (``astream``), handing on each chunk's text; return the whole answer.

        The chunks are added up as LangChain adds them (tool-call fragments included), so the
        answer is the one `chat` gives for the same model output. A failure mid-stream is a
        `ChatModelError`, as in `chat`.
        """
        total: Any = None
        try:
            async for chunk in self._bound(tools).astream(self.to_langchain(messages)):
                text = _text(getattr(chunk, "content", ""))
                if text:
                    on_token(text)
                total = chunk if total is None else total + chunk
        except ChatModelError:
            raise
        except Exception as exc:
            raise ChatModelError(f"langchain: {type(exc).__name__}: {exc}", provider=self.provider) from exc
        return self._answer(total)

    def _bound(self, tools: Sequence[ToolSpec]) -> Any:
        """The wrapped model, with `tools` bound when there are any."""
        if not tools:
            return self.base
        specs = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
            }
            for t in tools
        ]
        try:
            return self.base.bind_tools(specs)
        except NotImplementedError:
            return self.base.bind(tools=specs)

    def _answer(self, ai: Any) -> ChatOut:
        """A LangChain ``AIMessage`` (or the sum of its chunks) as our `ChatOut`."""
        if not isinstance(ai, self._lc.AIMessage):
            raise BadResponseError(
                f"langchain: expected an AIMessage, got {type(ai).__name__}", provider=self.provider
            )
        invalid = getattr(ai, "invalid_tool_calls", None) or []
        if invalid:
            first = invalid[0]
            raise BadResponseError(
                f"langchain: invalid tool call {first.get('name')!r}: {first.get('error') or first.get('args')!r:.200}",
                provider=self.provider,
            )
        calls = tuple(
            ToolCall(id=c.get("id") or f"call_{i}", name=c["name"], arguments=dict(c.get("args") or {}))
            for i, c in enumerate(ai.tool_calls)
        )
        meta = getattr(ai, "response_metadata", None) or {}
        reason = meta.get("finish_reason") or meta.get("done_reason")
        name = meta.get("model_name") or meta.get("model")
        return ChatOut(
            text=_text(ai.content),
            tool_calls=calls,
            finish_reason=reason if isinstance(reason, str) else None,
            model=name if isinstance(name, str) else None,
        )
