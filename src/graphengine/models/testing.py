"""Test doubles for models: a deterministic in-process `ScriptedChatModel` and a real local HTTP server.

`LocalChatServer` is a real HTTP server on ``127.0.0.1`` (a free port) that answers each request
with the next scripted reply, so adapters are tested over real sockets and the real wire format::

    with LocalChatServer() as srv:
        srv.reply(openai_reply("hello"))
        model = OpenAIChatModel("m", base_url=srv.url + "/v1")
        assert (await model.chat([Message.user("hi")])).text == "hello"
        assert srv.requests[0].json["messages"][0]["content"] == "hi"

Streamed answers are scripted as their body's pieces, sent one by one with chunked transfer
encoding: ``srv.stream(openai_stream(["hel", "lo"]), content_type="text/event-stream")``.

Only the standard library is used (``http.server`` in a thread).
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .chat import ChatOut, Message, ToolCall, ToolSpec

__all__ = [
    "LocalChatServer",
    "RecordedRequest",
    "ScriptedChatModel",
    "ScriptedReply",
    "ollama_reply",
    "ollama_stream",
    "openai_reply",
    "openai_stream",
]


class ScriptedChatModel:
    """A deterministic `ChatModel`: answers from a script, or from a function of the conversation.

    Each item of `script` is a `ChatOut`, a string (the answer's text) or a callable
    ``(messages, tools) -> ChatOut | str``; items are used in order and the last one repeats.
    Every call is kept in `calls`, so tests can check what the model was asked.
    """

    def __init__(
        self, *script: ChatOut | str | Callable[[Sequence[Message], Sequence[ToolSpec]], ChatOut | str]
    ):
        if not script:
            raise ValueError("ScriptedChatModel needs at least one reply")
        self._script = list(script)
        self.calls: list[tuple[tuple[Message, ...], tuple[ToolSpec, ...]]] = []
        """(messages, tools) of every call, in order."""
        self.model = "scripted"
        """Label of this model."""

    async def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> ChatOut:
        """Return the next scripted answer."""
        self.calls.append((tuple(messages), tuple(tools)))
        item = self._script[min(len(self.calls), len(self._script)) - 1]
        out = item(messages, tools) if callable(item) else item
        return ChatOut(text=out, model=self.model) if isinstance(out, str) else out

    async def stream_chat(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], on_token: Callable[[str], None]
    ) -> ChatOut:
        """Return the next scripted answer, handing its text to `on_token` word by word first."""
        out = await self.chat(messages, tools)
        for piece in re.findall(r"\S+\s*|\s+", out.text):
            on_token(piece)
        return out


def openai_reply(
    text: str | None = None,
    tool_calls: Iterable[ToolCall | tuple[str, Mapping[str, Any]]] = (),
    *,
    model: str = "test-model",
    finish_reason: str | None = None,
) -> dict[str, Any]:
    """A chat-completions response body, as an OpenAI-compatible server sends it."""
    calls = []
    for i, c in enumerate(tool_calls):
        tc = c if isinstance(c, ToolCall) else ToolCall(id=f"call_{i}", name=c[0], arguments=dict(c[1]))
        calls.append(
            {
                "id": tc.id or f"call_{i}",
                "type": "function",
                "function": {"name": tc.name, "arguments": json.dumps(tc.arguments)},
            }
        )
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish_reason or ("tool_calls" if calls else "stop"),
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def ollama_reply(
    text: str = "",
    tool_calls: Iterable[tuple[str, Mapping[str, Any]]] = (),
    *,
    model: str = "test-model",
) -> dict[str, Any]:
    """An ``/api/chat`` (non-streaming) response body, as Ollama sends it."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    calls = [{"function": {"name": n, "arguments": dict(a)}} for n, a in tool_calls]
    if calls:
        message["tool_calls"] = calls
    return {
        "model": model,
        "created_at": "2024-01-01T00:00:00Z",
        "message": message,
        "done": True,
        "done_reason": "stop",
    }


def openai_stream(
    pieces: Iterable[str],
    tool_calls: Iterable[tuple[str, Mapping[str, Any]]] = (),
    *,
    model: str = "test-model",
) -> list[bytes]:
    """A streamed chat-completions body, event by event: a role chunk, one chunk per text piece,
    each tool call as a name chunk and two argument fragments, a finish chunk, ``[DONE]``."""

    def event(delta: Mapping[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": dict(delta), "finish_reason": finish}
        chunk = {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "model": model,
            "choices": [choice],
        }
        return f"data: {json.dumps(chunk)}\n\n".encode()

    out = [event({"role": "assistant", "content": ""})]
    out += [event({"content": p}) for p in pieces]
    calls = list(tool_calls)
    for i, (name, args) in enumerate(calls):
        text = json.dumps(dict(args))
        head = {
            "index": i,
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        out.append(event({"tool_calls": [head]}))
        for frag in (text[: len(text) // 2], text[len(text) // 2 :]):
            out.append(event({"tool_calls": [{"index": i, "function": {"arguments": frag}}]}))
    out.append(event({}, "tool_calls" if calls else "stop"))
    return [*out, b"data: [DONE]\n\n"]


def ollama_stream(
    pieces: Iterable[str],
    tool_calls: Iterable[tuple[str, Mapping[str, Any]]] = (),
    *,
    model: str = "test-model",
) -> list[bytes]:
    """A streamed ``/api/chat`` body, line by line: one message per text piece, the tool calls in
    one message, then the ``done: true`` line."""

    def line(msg: Mapping[str, Any], **extra: Any) -> bytes:
        body = {"model": model, "created_at": "2024-01-01T00:00:00Z", "message": dict(msg), **extra}
        return (json.dumps(body) + "\n").encode()

    out = [line({"role": "assistant", "content": p}, done=False) for p in pieces]
    calls = [{"function": {"name": n, "arguments": dict(a)}} for n, a in tool_calls]
    if calls:
        out.append(line({"role": "assistant", "content": "", "tool_calls": calls}, done=False))
    return [*out, line({"role": "assistant", "content": ""}, done=True, done_reason="stop")]


@dataclass(frozen=True, slots=True)
class ScriptedReply:
    """One scripted HTTP answer."""

    body: Any = None
    """JSON-encoded unless it is bytes (sent raw, e.g. malformed JSON)."""
    status: int = 200
    """HTTP status."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Extra response headers (e.g. ``Retry-After``)."""
    delay: float = 0.0
    """Seconds to wait before answering (to provoke client timeouts)."""
    chunks: tuple[bytes, ...] | None = None
    """A streamed body: these pieces, sent one by one with chunked transfer encoding."""
    content_type: str = "application/json"
    """The ``content-type`` header."""
    pause: float = 0.0
    """Seconds to wait between two chunks."""


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """A request the server received."""

    method: str
    """HTTP method."""
    path: str
    """Path with query string."""
    headers: Mapping[str, str]
    """Request headers, lower-cased names."""
    body: bytes
    """Raw body."""
    client_port: int = 0
    """The client's TCP port: requests sent over one kept-alive connection share it."""

    @property
    def json(self) -> Any:
        """The body decoded as JSON."""
        return json.loads(self.body)


class LocalChatServer:
    """A real HTTP server on 127.0.0.1 answering every request with the next scripted reply.

    Use as a context manager (or `start`/`close`). With no reply left it answers 500
    ``{"error": "no scripted reply"}``. Requests are kept in `requests`, in arrival order.
    """

    def __init__(self) -> None:
        self._replies: deque[ScriptedReply] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.requests: list[RecordedRequest] = []
        """What the server received."""
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def reply(
        self,
        body: Any = None,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        delay: float = 0.0,
    ) -> LocalChatServer:
        """Queue one answer; returns self so calls chain."""
        with self._lock:
            self._replies.append(ScriptedReply(body, status, dict(headers or {}), delay))
        return self

    def stream(
        self, chunks: Iterable[bytes], *, content_type: str = "text/event-stream", pause: float = 0.0
    ) -> LocalChatServer:
        """Queue one streamed 200 answer made of `chunks` (see `openai_stream`, `ollama_stream`).

        When the server is closed (or the client gives up) mid-stream, it stops sending
        without the final empty chunk, so the client sees a broken stream.
        """
        reply = ScriptedReply(chunks=tuple(chunks), content_type=content_type, pause=pause)
        with self._lock:
            self._replies.append(reply)
        return self

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` of the running server."""
        if self._server is None:
            raise RuntimeError("server not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> LocalChatServer:
        """Bind a free port and serve in a daemon thread."""
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                n = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(n) if n else b""
                rec = RecordedRequest(
                    self.command,
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                    int(self.client_address[1]),
                )
                with owner._lock:
                    owner.requests.append(rec)
                    r = owner._replies.popleft() if owner._replies else None
                if r is None:
                    r = ScriptedReply({"error": "no scripted reply"}, 500)
                if r.delay and owner._closing.wait(r.delay):
                    return
                if r.chunks is not None:
                    self._stream(r)
                    return
                payload = r.body if isinstance(r.body, bytes) else json.dumps(r.body).encode()
                try:
                    self.send_response(r.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for k, v in r.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:  # the client gave up (timeout)
                    pass

            def _stream(self, r: ScriptedReply) -> None:
                try:
                    self.send_response(r.status)
                    self.send_header("content-type", r.content_type)
                    self.send_header("transfer-encoding", "chunked")
                    self.end_headers()
                    for piece in r.chunks or ():
                        if r.pause and owner._closing.wait(r.pause):
                            self.close_connection = True
                            return
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:  # the client gave up
                    self.close_connection = True

            do_POST = _handle
            do_GET = _handle
            do_PUT = _handle
            do_DELETE = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the port."""
        self._closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> LocalChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
