"""What the HTTP chat adapters share: a bearer-key HTTP client, the tool schema on the wire, and
the decoding of tool calls from an answer."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, Protocol, Self, TypedDict

from pydantic import SecretStr

from ._http import JsonHttp, RetryPolicy
from ._rate import RateLimit
from .chat import ChatOut, Message, ToolCall, ToolSpec, refuse_markers
from .errors import BadResponseError

__all__ = ["Connection", "HttpChatModel", "StreamDecoder", "decode_tool_calls", "wire_tool"]


class Connection(TypedDict, total=False):
    """The keywords every HTTP chat model takes besides its own (defaults as `HttpChatModel`'s)."""

    api_key: str | SecretStr | None
    max_retries: int
    retry: RetryPolicy | None
    rate_limit: RateLimit | None
    headers: Mapping[str, str] | None
    client: Any
    transport: Any
    sleep: Callable[[float], Awaitable[None]] | None


def wire_tool(t: ToolSpec) -> dict[str, Any]:
    """A tool as both wire protocols declare it: a ``function`` with a JSON-schema ``parameters``."""
    return {
        "type": "function",
        "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
    }


def decode_tool_calls(
    raw_calls: object, where: str, bad: Callable[[str], BadResponseError]
) -> tuple[ToolCall, ...]:
    """The tool calls of an answer's message (``where`` names its ``tool_calls`` field in errors).

    Arguments may come as an object or as JSON text (empty text and null are ``{}``); a call
    without an id gets ``call_<i>``. Anything else raises ``bad(...)`` naming the call and field.
    """
    raw_calls = raw_calls or []
    if not isinstance(raw_calls, list):
        raise bad(f"`{where}` must be a list, got {raw_calls!r:.200}")
    calls: list[ToolCall] = []
    for i, rc in enumerate(raw_calls):
        at = f"`{where}[{i}]`"
        fn = rc.get("function") if isinstance(rc, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            raise bad(f"{at}.function.name is missing")
        args = fn.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError:
                raise bad(f"{at}.function.arguments is not valid JSON: {args!r:.200}") from None
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise bad(f"{at}.function.arguments must be a JSON object, got {args!r:.200}")
        cid = rc.get("id") if isinstance(rc, Mapping) else None
        calls.append(
            ToolCall(id=cid if isinstance(cid, str) and cid else f"call_{i}", name=fn["name"], arguments=args)
        )
    return tuple(calls)


class StreamDecoder(Protocol):
    """Reads a streamed answer line by line (one per `stream_chat` call)."""

    def feed(self, line: str) -> str:
        """Take one line of the body; return the answer's text it carries ("" for none)."""
        ...

    def finish(self) -> ChatOut:
        """The whole answer, once the body ended; `BadResponseError` if it ended too early."""
        ...


class HttpChatModel:
    """What `OpenAIChatModel` and `OllamaChatModel` share: `chat` posts `request_body` to
    `chat_path` and decodes the answer with `parse_response`; `stream_chat` posts `stream_body`
    and reads the streamed answer with `stream_decoder`. Errors name the provider, the model and
    the server with every secret redacted.

    Each model object keeps its connections open between requests (one pooled client per event
    loop it is used on). ``async with model:`` or ``await model.aclose()`` closes them; left
    open, they close as the event loop ends (``asyncio.run``, ``asyncio.Runner``) or when the
    model is garbage collected."""

    provider: str
    """Label used in errors and logs."""
    chat_path: str
    """Where `chat` posts, below `base_url`."""
    answer_name: str
    """What a bad answer is called in errors (``chat completion``, ``/api/chat answer``)."""
    _api_key: SecretStr | None
    _http: JsonHttp

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        timeout: float,
        api_key: str | SecretStr | None = None,
        max_retries: int = 2,
        retry: RetryPolicy | None = None,
        rate_limit: RateLimit | None = None,
        headers: Mapping[str, str] | None = None,
        client: Any = None,
        transport: Any = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        """Keep the key as a `SecretStr` and open the `JsonHttp` client that sends it as
        ``Authorization: Bearer``; the key and every header value are redacted from its errors.
        `retry` defaults to `RetryPolicy(max_retries=max_retries)`; `rate_limit` (a `RateLimit`,
        which several models may share) spaces out the requests, retries included; `client`
        (an ``httpx.AsyncClient`` its caller owns) replaces the model's own pooled clients."""
        self.model = model
        """The model name sent with each request."""
        self.base_url = base_url.rstrip("/")
        """The server's URL that `chat_path` is below."""
        retry = retry or RetryPolicy(max_retries=max_retries)
        key = api_key if isinstance(api_key, SecretStr) or api_key is None else SecretStr(api_key)
        hdrs = dict(headers or {})
        if key is not None and key.get_secret_value():
            hdrs["authorization"] = f"Bearer {key.get_secret_value()}"
        kw: dict[str, Any] = {} if sleep is None else {"sleep": sleep}
        self._api_key = key
        self._http = JsonHttp(
            provider=self.provider,
            base_url=self.base_url,
            headers=hdrs,
            secrets=(*hdrs.values(), *((key.get_secret_value(),) if key else ())),
            timeout=timeout,
            retry=retry,
            model=model,
            rate_limit=rate_limit,
            client=client,
            transport=transport,
            **kw,
        )

    async def aclose(self) -> None:
        """Close the connections this model keeps open on the running event loop."""
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        key = "'***'" if self._api_key is not None else "None"
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r}, api_key={key})"

    def request_body(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> dict[str, Any]:
        """The JSON body `chat` sends (handy to check what a server will see)."""
        raise NotImplementedError

    async def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> ChatOut:
        """POST the conversation to `chat_path` and decode the answer."""
        refuse_markers(messages)
        data = await self._http.post(self.chat_path, self.request_body(messages, tools))
        return self.parse_response(data)

    def stream_body(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> dict[str, Any]:
        """The JSON body `stream_chat` sends: `request_body` with streaming on."""
        return {**self.request_body(messages, tools), "stream": True}

    def stream_decoder(self) -> StreamDecoder:
        """A fresh reader of this protocol's streamed answer."""
        raise NotImplementedError

    async def stream_chat(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], on_token: Callable[[str], None]
    ) -> ChatOut:
        """Ask with streaming on; call ``on_token(text)`` for each piece of text as it arrives.

        Returns the whole answer, as `chat` would have. The errors are `chat`'s; a failure
        after the first line arrived is raised at once, not retried (the tokens already
        handed on are not sent twice), and a stream that ends before the answer is complete
        is a `BadResponseError`. `timeout` bounds the whole answer, as for `chat`.
        """
        refuse_markers(messages)
        decoder = self.stream_decoder()

        def on_line(line: str) -> None:
            text = decoder.feed(line)
            if text:
                on_token(text)

        await self._http.post_lines(self.chat_path, self.stream_body(messages, tools), on_line)
        return decoder.finish()

    def parse_response(self, data: Any) -> ChatOut:
        """Decode a response body; `BadResponseError` names what is wrong."""
        if not isinstance(data, Mapping):
            raise self._bad(f"expected a JSON object, got {type(data).__name__}")
        return self._parse(data)

    def _parse(self, data: Mapping[str, Any]) -> ChatOut:
        raise NotImplementedError

    def _bad(self, what: str) -> BadResponseError:
        return BadResponseError(
            self._http.redact(
                f"{self.provider} model {self.model!r}: bad {self.answer_name} from {self.base_url}: {what}"
            ),
            provider=self.provider,
            model=self.model,
            url=self._http.redact(self.base_url),
        )

    @staticmethod
    def _answer(text: str, calls: tuple[ToolCall, ...], finish: object, model: object) -> ChatOut:
        return ChatOut(
            text=text,
            tool_calls=calls,
            finish_reason=finish if isinstance(finish, str) else None,
            model=model if isinstance(model, str) else None,
        )
