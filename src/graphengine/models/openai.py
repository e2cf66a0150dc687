"""`OpenAIChatModel`: the OpenAI chat-completions wire protocol, for OpenAI and every server that speaks it.

vLLM, llama.cpp's server, LM Studio, LiteLLM and most gateways serve ``POST {base_url}/chat/completions``;
point `base_url` at them (e.g. ``http://127.0.0.1:8000/v1``). Needs the ``http`` extra (httpx).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from pydantic import SecretStr

from ._http import JsonHttp, RetryPolicy
from .chat import ChatOut, Message, ToolCall, ToolSpec
from .errors import BadResponseError

__all__ = ["OpenAIChatModel"]

OPENAI_BASE_URL = "https://api.openai.com/v1"


def _wire_message(m: Message) -> dict[str, Any]:
    if m.role == "tool":
        return {"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content}
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        out["content"] = m.content or None
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
            }
            for c in m.tool_calls
        ]
    return out


def _wire_tool(t: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
    }


class OpenAIChatModel:
    """A `ChatModel` over OpenAI-compatible chat completions.

        model = OpenAIChatModel("gpt-4o-mini", api_key=os.environ["OPENAI_API_KEY"])
        local = OpenAIChatModel("qwen2.5", base_url="http://127.0.0.1:8000/v1")  # vLLM, llama.cpp...

    The key is sent as ``Authorization: Bearer``; it is kept as a `pydantic.SecretStr`, never
    shown by `repr`, and masked in every error, log line and recorded call. No key is read
    from the environment implicitly (a local server should not receive your OpenAI key).

    Raises `ModelAuthError` (401/403), `ModelRateLimitError` (429 after the retries),
    `ModelTimeoutError`, `ModelConnectionError`, `ModelHTTPError` (other statuses) and
    `BadResponseError` (malformed JSON, no choices, tool-call arguments that are not a JSON
    object), all from `graphengine.models`.
    """

    provider = "openai"
    """Label used in errors and logs."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OPENAI_BASE_URL,
        api_key: str | SecretStr | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        retry: RetryPolicy | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        client: Any = None,
        transport: Any = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.model = model
        """The model name sent with each request."""
        self.base_url = base_url.rstrip("/")
        """Where the API lives (``.../v1``)."""
        self.temperature = temperature
        """Sampling temperature (None: the server's default)."""
        self.max_tokens = max_tokens
        """Answer length limit (None: the server's default)."""
        self.extra_body = dict(extra_body or {})
        """Extra request fields (``seed``, ``top_p``, ``response_format``...), sent as given."""
        key = api_key if isinstance(api_key, SecretStr) or api_key is None else SecretStr(api_key)
        self._api_key = key
        hdrs = dict(headers or {})
        if key is not None and key.get_secret_value():
            hdrs["authorization"] = f"Bearer {key.get_secret_value()}"
        policy = retry or RetryPolicy(max_retries=max_retries)
        kw: dict[str, Any] = {} if sleep is None else {"sleep": sleep}
        self._http = JsonHttp(
            provider=self.provider,
            base_url=self.base_url,
            headers=hdrs,
            secrets=(*(v for v in hdrs.values()), *((key.get_secret_value(),) if key else ())),
            timeout=timeout,
            retry=policy,
            client=client,
            transport=transport,
            **kw,
        )

    def __repr__(self) -> str:
        key = "'***'" if self._api_key is not None else "None"
        return f"OpenAIChatModel(model={self.model!r}, base_url={self.base_url!r}, api_key={key})"

    def request_body(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> dict[str, Any]:
        """The JSON body `chat` sends (handy to check what a server will see)."""
        body: dict[str, Any] = {"model": self.model, "messages": [_wire_message(m) for m in messages]}
        if tools:
            body["tools"] = [_wire_tool(t) for t in tools]
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        body.update(self.extra_body)
        return body

    async def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> ChatOut:
        """POST the conversation to ``/chat/completions`` and decode the first choice."""
        data = await self._http.post("/chat/completions", self.request_body(messages, tools))
        return self.parse_response(data)

    def parse_response(self, data: Any) -> ChatOut:
        """Decode a chat-completions response body; `BadResponseError` names what is wrong."""

        def bad(what: str) -> BadResponseError:
            return BadResponseError(
                self._http.redact(f"{self.provider}: bad chat completion from {self.base_url}: {what}"),
                provider=self.provider,
                url=self._http.redact(self.base_url),
            )

        if not isinstance(data, Mapping):
            raise bad(f"expected a JSON object, got {type(data).__name__}")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            raise bad(f"`choices` must be a non-empty list of objects, got {choices!r:.200}")
        msg = choices[0].get("message")
        if not isinstance(msg, Mapping):
            raise bad(f"`choices[0].message` must be an object, got {msg!r:.200}")
        content = msg.get("content")
        if content is not None and not isinstance(content, str):
            raise bad(f"`choices[0].message.content` must be a string or null, got {content!r:.200}")
        calls: list[ToolCall] = []
        raw_calls = msg.get("tool_calls") or []
        if not isinstance(raw_calls, list):
            raise bad(f"`choices[0].message.tool_calls` must be a list, got {raw_calls!r:.200}")
        for i, rc in enumerate(raw_calls):
            where = f"`choices[0].message.tool_calls[{i}]`"
            fn = rc.get("function") if isinstance(rc, Mapping) else None
            if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
                raise bad(f"{where}.function.name is missing")
            args = fn.get("arguments")
            if isinstance(args, str):
                try:
                    args = json.loads(args) if args.strip() else {}
                except ValueError:
                    raise bad(f"{where}.function.arguments is not valid JSON: {args!r:.200}") from None
            if args is None:
                args = {}
            if not isinstance(args, dict):
                raise bad(f"{where}.function.arguments must be a JSON object, got {args!r:.200}")
            cid = rc.get("id") if isinstance(rc, Mapping) else None
            calls.append(
                ToolCall(
                    id=cid if isinstance(cid, str) and cid else f"call_{i}", name=fn["name"], arguments=args
                )
            )
        finish = choices[0].get("finish_reason")
        model = data.get("model")
        return ChatOut(
            text=content or "",
            tool_calls=tuple(calls),
            finish_reason=finish if isinstance(finish, str) else None,
            model=model if isinstance(model, str) else None,
        )
