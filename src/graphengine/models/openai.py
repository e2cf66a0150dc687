"""`OpenAIChatModel`: the OpenAI chat-completions wire protocol, for OpenAI and every server that speaks it.

vLLM, llama.cpp's server, LM Studio, LiteLLM and most gateways serve ``POST {base_url}/chat/completions``;
point `base_url` at them (e.g. ``http://127.0.0.1:8000/v1``). Needs the ``http`` extra (httpx).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Unpack

from ._wire import Connection, HttpChatModel, StreamDecoder, decode_tool_calls, wire_tool
from .chat import ChatOut, Message, ToolSpec
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

    `stream_chat` asks with ``"stream": true`` and reads the server-sent events
    (``data: {chunk}`` lines whose ``choices[0].delta`` carries text and tool-call fragments,
    ending with ``data: [DONE]``); it returns the same `ChatOut` as `chat`.
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

    def stream_decoder(self) -> StreamDecoder:
        """A reader of chat-completions server-sent events."""
        return _EventStream(self._bad)


class _EventStream:
    """Reads ``data: {chunk}`` lines up to ``data: [DONE]``, gathering text and tool-call fragments."""

    def __init__(self, bad: Callable[[str], BadResponseError]) -> None:
        self._bad = bad
        self._text: list[str] = []
        self._calls: dict[int, tuple[list[str], list[str], list[str]]] = {}  # index -> id, name, args
        self._finish: str | None = None
        self._model: str | None = None
        self._done = False

    def feed(self, line: str) -> str:
        """One line of the event stream; the text its chunk adds."""
        if not line.startswith("data:"):
            return ""  # blank separators, ``: comments``, ``event:``/``id:`` fields
        data = line[5:].strip()
        if data == "[DONE]":
            self._done = True
            return ""
        try:
            chunk = json.loads(data)
        except ValueError:
            raise self._bad(f"a streamed chunk is not JSON: {data!r:.200}") from None
        if not isinstance(chunk, Mapping):
            raise self._bad(f"a streamed chunk must be an object, got {data!r:.200}")
        if "error" in chunk:
            raise self._bad(f"the server reported an error mid-stream: {chunk['error']!r:.200}")
        if isinstance(chunk.get("model"), str):
            self._model = chunk["model"]
        choices = chunk.get("choices")
        if not choices:
            return ""  # e.g. the usage chunk of ``stream_options.include_usage``
        if not isinstance(choices, list) or not isinstance(choices[0], Mapping):
            raise self._bad(f"`choices` must be a list of objects, got {choices!r:.200}")
        if isinstance(choices[0].get("finish_reason"), str):
            self._finish = choices[0]["finish_reason"]
        delta = choices[0].get("delta") or {}
        if not isinstance(delta, Mapping):
            raise self._bad(f"`choices[0].delta` must be an object, got {delta!r:.200}")
        for part in delta.get("tool_calls") or ():
            self._call_part(part)
        content = delta.get("content")
        if content is None:
            return ""
        if not isinstance(content, str):
            raise self._bad(f"`choices[0].delta.content` must be a string or null, got {content!r:.200}")
        self._text.append(content)
        return content

    def _call_part(self, part: Any) -> None:
        """Add one fragment of a tool call: the first has its id and name, the rest pieces of arguments."""
        if not isinstance(part, Mapping) or not isinstance(part.get("index", 0), int):
            raise self._bad(f"`choices[0].delta.tool_calls` holds a bad fragment: {part!r:.200}")
        ids, names, args = self._calls.setdefault(part.get("index", len(self._calls)), ([], [], []))
        fn = part.get("function") or {}
        for value, into in ((part.get("id"), ids), (fn.get("name"), names), (fn.get("arguments"), args)):
            if isinstance(value, str):
                into.append(value)

    def finish(self) -> ChatOut:
        """The answer the chunks made up."""
        if not (self._done or self._finish):
            raise self._bad("the stream ended before the answer did (no finish_reason, no [DONE])")
        raw = [
            {"id": "".join(ids), "function": {"name": "".join(names), "arguments": "".join(args)}}
            for _, (ids, names, args) in sorted(self._calls.items())
        ]
        calls = decode_tool_calls(raw, "choices[0].delta.tool_calls", self._bad)
        return HttpChatModel._answer("".join(self._text), calls, self._finish, self._model)
