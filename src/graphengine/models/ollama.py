"""`OllamaChatModel`: Ollama's native ``POST /api/chat``, with tool calls, answered whole or streamed.

Needs the ``http`` extra (httpx). Ollama also serves the OpenAI protocol at ``/v1``; use
`OpenAIChatModel` with ``base_url="http://127.0.0.1:11434/v1"`` if you prefer that one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Unpack

from ._wire import Connection, HttpChatModel, StreamDecoder, decode_tool_calls, wire_tool
from .chat import ChatOut, Message, ToolSpec
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


class OllamaChatModel(HttpChatModel):
    """A `ChatModel` over a local (or remote) Ollama server's ``/api/chat``.

        model = OllamaChatModel("llama3.1", base_url="http://127.0.0.1:11434")

    Ollama's tool calls carry no ids; they get ``call_0``, ``call_1``... in answer order.
    `api_key`, when given (Ollama behind an authenticating proxy), is sent as a bearer token
    and redacted everywhere. Errors are those of `OpenAIChatModel`; a missing model is a
    `ModelHTTPError` with status 404 and Ollama's message.

    `stream_chat` asks with ``"stream": true`` and reads Ollama's NDJSON lines (each a
    ``message`` with a piece of ``content``, the last one with ``done: true``); it returns the
    same `ChatOut` as `chat`.
    """

    provider = "ollama"
    chat_path = "/api/chat"
    answer_name = "/api/chat answer"

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OLLAMA_BASE_URL,
        timeout: float = 120.0,
        options: Mapping[str, Any] | None = None,
        keep_alive: str | None = None,
        **connection: Unpack[Connection],
    ) -> None:
        self.options = dict(options or {})
        """Ollama ``options`` (``temperature``, ``seed``, ``num_ctx``...)."""
        self.keep_alive = keep_alive
        """How long Ollama keeps the model loaded (None: its default)."""
        super().__init__(model, base_url=base_url, timeout=timeout, **connection)  # base_url without /api

    def request_body(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> dict[str, Any]:
        """The JSON body `chat` sends."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [_wire_message(m) for m in messages],
            "stream": False,
        }
        if tools:
            body["tools"] = [wire_tool(t) for t in tools]
        if self.options:
            body["options"] = self.options
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        return body

    def _parse(self, data: Mapping[str, Any]) -> ChatOut:
        """Decode an ``/api/chat`` response body."""
        bad = self._bad
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
        # some Ollama builds send the arguments as a JSON string, as OpenAI does
        calls = decode_tool_calls(msg.get("tool_calls"), "message.tool_calls", bad)
        return self._answer(content, calls, data.get("done_reason"), data.get("model"))

    def stream_decoder(self) -> StreamDecoder:
        """A reader of ``/api/chat``'s NDJSON stream."""
        return _LineStream(self._bad)


class _LineStream:
    """Reads NDJSON answer lines up to the one with ``done: true``."""

    def __init__(self, bad: Callable[[str], BadResponseError]) -> None:
        self._bad = bad
        self._text: list[str] = []
        self._calls: list[Any] = []
        self._finish: object = None
        self._model: object = None
        self._done = False

    def feed(self, line: str) -> str:
        """One line of the stream; the text its message adds."""
        if not line.strip():
            return ""
        try:
            chunk = json.loads(line)
        except ValueError:
            raise self._bad(f"a streamed line is not JSON: {line!r:.200}") from None
        if not isinstance(chunk, Mapping):
            raise self._bad(f"a streamed line must be an object, got {line!r:.200}")
        if isinstance(chunk.get("error"), str):
            raise self._bad(f"the server reported an error mid-stream: {chunk['error']}")
        if chunk.get("done") is True:
            self._done, self._finish, self._model = True, chunk.get("done_reason"), chunk.get("model")
        msg = chunk.get("message")
        if msg is None:
            return ""
        if not isinstance(msg, Mapping):
            raise self._bad(f"`message` must be an object, got {msg!r:.200}")
        calls = msg.get("tool_calls")
        if calls:
            if not isinstance(calls, list):
                raise self._bad(f"`message.tool_calls` must be a list, got {calls!r:.200}")
            self._calls += calls
        content = msg.get("content") or ""
        if not isinstance(content, str):
            raise self._bad(f"`message.content` must be a string, got {content!r:.200}")
        self._text.append(content)
        return content

    def finish(self) -> ChatOut:
        """The answer the lines made up."""
        if not self._done:
            raise self._bad("the stream ended before a line with `done: true`")
        calls = decode_tool_calls(self._calls, "message.tool_calls", self._bad)
        return HttpChatModel._answer("".join(self._text), calls, self._finish, self._model)
