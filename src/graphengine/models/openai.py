"""`OpenAIChatModel`: the OpenAI chat-completions wire protocol, for OpenAI and every server that speaks it.

vLLM, llama.cpp's server, LM Studio, LiteLLM and most gateways serve ``POST {base_url}/chat/completions``;
point `base_url` at them (e.g. ``http://127.0.0.1:8000/v1``). Needs the ``http`` extra (httpx).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Unpack

from ._wire import Connection, HttpChatModel, decode_tool_calls, wire_tool
from .chat import ChatOut, Message, ToolSpec

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


class OpenAIChatModel(HttpChatModel):
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
    chat_path = "/chat/completions"
    answer_name = "chat completion"

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OPENAI_BASE_URL,
        timeout: float = 60.0,
        temperature: float | None = None,
        max_tokens: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        **connection: Unpack[Connection],
    ) -> None:
        self.temperature = temperature
        """Sampling temperature (None: the server's default)."""
        self.max_tokens = max_tokens
        """Answer length limit (None: the server's default)."""
        self.extra_body = dict(extra_body or {})
        """Extra request fields (``seed``, ``top_p``, ``response_format``...), sent as given."""
        super().__init__(model, base_url=base_url, timeout=timeout, **connection)  # base_url: .../v1

    def request_body(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> dict[str, Any]:
        """The JSON body `chat` sends (handy to check what a server will see)."""
        body: dict[str, Any] = {"model": self.model, "messages": [_wire_message(m) for m in messages]}
        if tools:
            body["tools"] = [wire_tool(t) for t in tools]
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        body.update(self.extra_body)
        return body

    def _parse(self, data: Mapping[str, Any]) -> ChatOut:
        """Decode a chat-completions response body: its first choice."""
        bad = self._bad
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            raise bad(f"`choices` must be a non-empty list of objects, got {choices!r:.200}")
        msg = choices[0].get("message")
        if not isinstance(msg, Mapping):
            raise bad(f"`choices[0].message` must be an object, got {msg!r:.200}")
        content = msg.get("content")
        if content is not None and not isinstance(content, str):
            raise bad(f"`choices[0].message.content` must be a string or null, got {content!r:.200}")
        calls = decode_tool_calls(msg.get("tool_calls"), "choices[0].message.tool_calls", bad)
        return self._answer(content or "", calls, choices[0].get("finish_reason"), data.get("model"))
