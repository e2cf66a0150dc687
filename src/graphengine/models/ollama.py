"""`OllamaChatModel`: Ollama's native ``POST /api/chat`` (non-streaming), with tool calls.

Needs the ``http`` extra (httpx). Ollama also serves the OpenAI protocol at ``/v1``; use
`OpenAIChatModel` with ``base_url="http://127.0.0.1:11434/v1"`` if you prefer that one.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from pydantic import SecretStr

from ._http import JsonHttp, RetryPolicy
from .chat import ChatOut, Message, ToolCall, ToolSpec
from .errors import BadResponseError

__all__ = ["OllamaChatModel"]

OLLAMA_BASE_URL = "http://127.0.0.1:11434"


def _wire_message(m: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.role == "tool" and m.name:
        out["tool_name"] = m.name
    if m.tool_calls:
        out["tool_calls"] = [{"function": {"name": c.name, "arguments": c.arguments}} for c in m.tool_calls]
    return out


def _wire_tool(t: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
    }


class OllamaChatModel:
    """A `ChatModel` over a local (or remote) Ollama server's ``/api/chat``.

        model = OllamaChatModel("llama3.1", base_url="http://127.0.0.1:11434")

    Ollama's tool calls carry no ids; they get ``call_0``, ``call_1``... in answer order.
    `api_key`, when given (Ollama behind an authenticating proxy), is sent as a bearer token
    and redacted everywhere. Errors are those of `OpenAIChatModel`; a missing model is a
    `ModelHTTPError` with status 404 and Ollama's message.
    """

    provider = "ollama"
    """Label used in errors and logs."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OLLAMA_BASE_URL,
        api_key: str | SecretStr | None = None,
        timeout: float = 120.0,
        max_retries: int = 2,
        retry: RetryPolicy | None = None,
        options: Mapping[str, Any] | None = None,
        keep_alive: str | None = None,
        headers: Mapping[str, str] | None = None,
        client: Any = None,
        transport: Any = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.model = model
        """The model name sent with each request."""
        self.base_url = base_url.rstrip("/")
        """The server (without ``/api``)."""
        self.options = dict(options or {})
        """Ollama ``options`` (``temperature``, ``seed``, ``num_ctx``...)."""
        self.keep_alive = keep_alive
        """How long Ollama keeps the model loaded (None: its default)."""
        key = api_key if isinstance(api_key, SecretStr) or api_key is None else SecretStr(api_key)
        self._api_key = key
        hdrs = dict(headers or {})
        if key is not None and key.get_secret_value():
            hdrs["authorization"] = f"Bearer {key.get_secret_value()}"
        kw: dict[str, Any] = {} if sleep is None else {"sleep": sleep}
        self._http = JsonHttp(
            provider=self.provider,
            base_url=self.base_url,
            headers=hdrs,
            secrets=(*hdrs.values(), *((key.get_secret_value(),) if key else ())),
            timeout=timeout,
            retry=retry or RetryPolicy(max_retries=max_retries),
            client=client,
            transport=transport,
            **kw,
        )

    def __repr__(self) -> str:
        key = "'***'" if self._api_key is not None else "None"
        return f"OllamaChatModel(model={self.model!r}, base_url={self.base_url!r}, api_key={key})"

    def request_body(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> dict[str, Any]:
        """The JSON body `chat` sends."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [_wire_message(m) for m in messages],
            "stream": False,
        }
        if tools:
            body["tools"] = [_wire_tool(t) for t in tools]
        if self.options:
            body["options"] = self.options
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        return body

    async def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> ChatOut:
        """POST the conversation to ``/api/chat`` and decode the answer."""
        data = await self._http.post("/api/chat", self.request_body(messages, tools))
        return self.parse_response(data)

    def parse_response(self, data: Any) -> ChatOut:
        """Decode an ``/api/chat`` response body; `BadResponseError` names what is wrong."""

        def bad(what: str) -> BadResponseError:
            return BadResponseError(
                self._http.redact(f"{self.provider}: bad /api/chat answer from {self.base_url}: {what}"),
                provider=self.provider,
                url=self._http.redact(self.base_url),
            )

        if not isinstance(data, Mapping):
            raise bad(f"expected a JSON object, got {type(data).__name__}")
        if isinstance(data.get("error"), str):
            raise bad(f"the server reported an error: {data['error']}")
        msg = data.get("message")
        if not isinstance(msg, Mapping):
            raise bad(f"`message` must be an object, got {msg!r:.200}")
        content = msg.get("content", "")
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise bad(f"`message.content` must be a string, got {content!r:.200}")
        raw_calls = msg.get("tool_calls") or []
        if not isinstance(raw_calls, list):
            raise bad(f"`message.tool_calls` must be a list, got {raw_calls!r:.200}")
        calls: list[ToolCall] = []
        for i, rc in enumerate(raw_calls):
            where = f"`message.tool_calls[{i}]`"
            fn = rc.get("function") if isinstance(rc, Mapping) else None
            if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
                raise bad(f"{where}.function.name is missing")
            args = fn.get("arguments", {})
            if isinstance(args, str):  # some Ollama builds send a JSON string
                try:
                    args = json.loads(args) if args.strip() else {}
                except ValueError:
                    raise bad(f"{where}.function.arguments is not valid JSON: {args!r:.200}") from None
            if args is None:
                args = {}
            if not isinstance(args, dict):
                raise bad(f"{where}.function.arguments must be an object, got {args!r:.200}")
            cid = rc.get("id") if isinstance(rc, Mapping) else None
            calls.append(
                ToolCall(
                    id=cid if isinstance(cid, str) and cid else f"call_{i}", name=fn["name"], arguments=args
                )
            )
        reason = data.get("done_reason")
        model = data.get("model")
        return ChatOut(
            text=content,
            tool_calls=tuple(calls),
            finish_reason=reason if isinstance(reason, str) else None,
            model=model if isinstance(model, str) else None,
        )
