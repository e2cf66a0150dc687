"""Chat model adapters against a real local HTTP server speaking each wire protocol.

Every adapter test runs once per protocol (`proto` fixture): OpenAI-compatible chat completions
and Ollama's /api/chat. The server is `graphengine.models.testing.LocalChatServer` on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from graphengine.models import (
    BadResponseError,
    ChatModel,
    ChatModelError,
    Message,
    ModelAuthError,
    ModelConnectionError,
    ModelHTTPError,
    ModelRateLimitError,
    ModelTimeoutError,
    OllamaChatModel,
    OpenAIChatModel,
    RetryPolicy,
    ToolCall,
    ToolSpec,
)
from graphengine.models._http import parse_retry_after
from graphengine.models.testing import LocalChatServer, ollama_reply, openai_reply

KEY = "sk-test-SECRET-0123456789abcdef"

WEATHER = ToolSpec(
    name="weather",
    description="Current weather in a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@dataclass
class Proto:
    """One wire protocol: how to build its model and its reply bodies."""

    name: str
    make: Callable[..., Any]
    reply: Callable[..., dict[str, Any]]
    path: str


def _openai(srv: LocalChatServer, **kw: Any) -> OpenAIChatModel:
    return OpenAIChatModel("test-model", base_url=srv.url + "/v1", **kw)


def _ollama(srv: LocalChatServer, **kw: Any) -> OllamaChatModel:
    return OllamaChatModel("test-model", base_url=srv.url, **kw)


def _openai_reply(text: str = "", tool_calls: Any = ()) -> dict[str, Any]:
    return openai_reply(text or None, tool_calls)


PROTOS = [
    Proto("openai", _openai, _openai_reply, "/v1/chat/completions"),
    Proto("ollama", _ollama, ollama_reply, "/api/chat"),
]


@pytest.fixture(params=PROTOS, ids=lambda p: p.name)
def proto(request: pytest.FixtureRequest) -> Proto:
    """Each wire protocol in turn."""
    p: Proto = request.param
    return p


@pytest.fixture
def srv() -> Iterator[LocalChatServer]:
    """A fresh local server per test."""
    with LocalChatServer() as s:
        yield s


class Sleeps:
    """Records the waits asked for instead of sleeping (keeps retry tests fast and exact)."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def test_adapters_satisfy_the_chat_model_protocol(srv: LocalChatServer) -> None:
    """Both adapters are `ChatModel`s."""
    assert isinstance(_openai(srv), ChatModel)
    assert isinstance(_ollama(srv), ChatModel)


async def test_text_answer_round_trip(proto: Proto, srv: LocalChatServer) -> None:
    """A plain answer comes back as ChatOut.text, and the request follows the wire protocol."""
    srv.reply(proto.reply("hello there"))
    out = await proto.make(srv).chat([Message.system("be brief"), Message.user("hi")])
    assert out.text == "hello there"
    assert out.tool_calls == ()
    assert out.model == "test-model"
    req = srv.requests[0]
    assert req.method == "POST"
    assert req.path == proto.path
    body = req.json
    assert body["model"] == "test-model"
    assert body["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    assert "tools" not in body
    if proto.name == "ollama":
        assert body["stream"] is False


async def test_tool_call_round_trip(proto: Proto, srv: LocalChatServer) -> None:
    """Tools are offered in the wire format, tool calls are decoded, and results are sent back."""
    srv.reply(proto.reply("", [("weather", {"city": "Paris"})]))
    srv.reply(proto.reply("It is sunny in Paris."))
    model = proto.make(srv)
    msgs = [Message.user("weather in Paris?")]
    out = await model.chat(msgs, [WEATHER])
    assert out.text == ""
    assert [(c.name, c.arguments) for c in out.tool_calls] == [("weather", {"city": "Paris"})]
    assert out.tool_calls[0].id == "call_0"
    sent_tools = srv.requests[0].json["tools"]
    assert sent_tools == [
        {
            "type": "function",
            "function": {
                "name": "weather",
                "description": WEATHER.description,
                "parameters": WEATHER.parameters,
            },
        }
    ]

    msgs += [out.to_message(), Message.tool(out.tool_calls[0], '{"sky": "sunny"}')]
    final = await model.chat(msgs, [WEATHER])
    assert final.text == "It is sunny in Paris."
    wire = srv.requests[1].json["messages"]
    assert wire[1]["role"] == "assistant"
    assert wire[2]["role"] == "tool"
    assert wire[2]["content"] == '{"sky": "sunny"}'
    if proto.name == "openai":
        assert wire[1]["tool_calls"][0]["function"] == {"name": "weather", "arguments": '{"city": "Paris"}'}
        assert wire[2]["tool_call_id"] == "call_0"
    else:
        assert wire[1]["tool_calls"][0]["function"] == {"name": "weather", "arguments": {"city": "Paris"}}
        assert wire[2]["tool_name"] == "weather"


async def test_retry_after_is_honoured_on_429(proto: Proto, srv: LocalChatServer) -> None:
    """A 429 with Retry-After is retried after exactly the time the server asked for."""
    srv.reply({"error": "slow down"}, status=429, headers={"Retry-After": "2"})
    srv.reply(proto.reply("ok"))
    sleeps = Sleeps()
    out = await proto.make(srv, sleep=sleeps, retry=RetryPolicy(max_retries=2, backoff=0.01)).chat(
        [Message.user("hi")]
    )
    assert out.text == "ok"
    assert sleeps.waits == [2.0]
    assert len(srv.requests) == 2


async def test_5xx_is_retried_with_exponential_backoff(proto: Proto, srv: LocalChatServer) -> None:
    """Server errors are retried, waiting backoff, 2*backoff, ... when no Retry-After is given
    (without jitter, the waits are exactly those)."""
    srv.reply({"error": "boom"}, status=500).reply({"error": "busy"}, status=503)
    srv.reply(proto.reply("ok"))
    sleeps = Sleeps()
    model = proto.make(srv, sleep=sleeps, retry=RetryPolicy(max_retries=3, backoff=0.25, jitter=0))
    assert (await model.chat([Message.user("hi")])).text == "ok"
    assert sleeps.waits == [0.25, 0.5]


async def test_retry_with_real_sleep_waits_the_retry_after(proto: Proto, srv: LocalChatServer) -> None:
    """With the real clock, a fractional Retry-After delays the retry by that long."""
    srv.reply({"error": "slow down"}, status=429, headers={"Retry-After": "0.3"})
    srv.reply(proto.reply("ok"))
    t0 = time.monotonic()
    assert (await proto.make(srv).chat([Message.user("hi")])).text == "ok"
    assert time.monotonic() - t0 >= 0.3


async def test_rate_limit_after_retries_raises_with_retry_after(proto: Proto, srv: LocalChatServer) -> None:
    """When every attempt is rate limited, ModelRateLimitError carries the server's Retry-After."""
    for _ in range(3):
        srv.reply({"error": "slow down"}, status=429, headers={"Retry-After": "1"})
    model = proto.make(srv, sleep=Sleeps(), max_retries=2)
    with pytest.raises(ModelRateLimitError) as ei:
        await model.chat([Message.user("hi")])
    assert ei.value.retry_after == 1.0
    assert ei.value.attempts == 3
    assert ei.value.status == 429
    assert len(srv.requests) == 3


async def test_retry_after_beyond_the_cap_fails_at_once(proto: Proto, srv: LocalChatServer) -> None:
    """A Retry-After longer than max_retry_after is not waited for."""
    srv.reply({"error": "come back tomorrow"}, status=429, headers={"Retry-After": "86400"})
    sleeps = Sleeps()
    model = proto.make(srv, sleep=sleeps, retry=RetryPolicy(max_retries=3, max_retry_after=30))
    with pytest.raises(ModelRateLimitError, match="exceeds max_retry_after") as ei:
        await model.chat([Message.user("hi")])
    assert ei.value.retry_after == 86400
    assert sleeps.waits == []


async def test_persistent_5xx_raises_http_error(proto: Proto, srv: LocalChatServer) -> None:
    """A server error on every attempt raises ModelHTTPError with the status and the server's message."""
    for _ in range(2):
        srv.reply({"error": {"message": "model crashed"}}, status=502)
    with pytest.raises(ModelHTTPError, match="model crashed") as ei:
        await proto.make(srv, sleep=Sleeps(), max_retries=1).chat([Message.user("hi")])
    assert ei.value.status == 502
    assert ei.value.attempts == 2


async def test_other_4xx_is_not_retried(proto: Proto, srv: LocalChatServer) -> None:
    """A 404 (e.g. unknown model) fails at once with the server's message."""
    srv.reply({"error": "model 'nope' not found"}, status=404)
    with pytest.raises(ModelHTTPError, match="not found") as ei:
        await proto.make(srv, sleep=Sleeps()).chat([Message.user("hi")])
    assert ei.value.status == 404
    assert len(srv.requests) == 1


@pytest.mark.parametrize("status", [401, 403])
async def test_auth_errors_are_typed_and_not_retried(proto: Proto, srv: LocalChatServer, status: int) -> None:
    """401/403 raise ModelAuthError after one request."""
    srv.reply({"error": {"message": "invalid api key"}}, status=status)
    with pytest.raises(ModelAuthError) as ei:
        await proto.make(srv, api_key=KEY, sleep=Sleeps()).chat([Message.user("hi")])
    assert ei.value.status == status
    assert len(srv.requests) == 1


async def test_timeout_is_retried_then_raised(proto: Proto, srv: LocalChatServer) -> None:
    """A server slower than the timeout raises ModelTimeoutError after the retries."""
    # The replies wait for the server's close: a client not enforcing its timeout would get no
    # answer and trip the generous bound below, whatever the machine's load (no clock reading).
    srv.reply(proto.reply("late"), delay=600).reply(proto.reply("late"), delay=600)
    model = proto.make(srv, timeout=0.5, sleep=Sleeps(), max_retries=1)
    with pytest.raises(ModelTimeoutError, match="within 0.5s") as ei:
        await asyncio.wait_for(model.chat([Message.user("hi")]), 60)
    assert ei.value.attempts == 2


async def test_timeout_then_success(proto: Proto, srv: LocalChatServer) -> None:
    """One slow answer is retried and the next, fast one is used."""
    srv.reply(proto.reply("late"), delay=3).reply(proto.reply("fast"))
    out = await proto.make(srv, timeout=0.5, sleep=Sleeps()).chat([Message.user("hi")])
    assert out.text == "fast"


async def test_connection_refused_raises_connection_error(proto: Proto) -> None:
    """A server that is not there raises ModelConnectionError after the retries."""
    with LocalChatServer() as dead:
        url = dead.url
    cls = OpenAIChatModel if proto.name == "openai" else OllamaChatModel
    model = cls("m", base_url=url, sleep=Sleeps(), max_retries=1)
    with pytest.raises(ModelConnectionError, match="cannot reach") as ei:
        await model.chat([Message.user("hi")])
    assert ei.value.attempts == 2


async def test_malformed_json_is_a_bad_response(proto: Proto, srv: LocalChatServer) -> None:
    """A 200 with a body that is not JSON raises BadResponseError quoting the start of the body."""
    srv.reply(b'{"choices": [ this is not json')
    with pytest.raises(BadResponseError, match="malformed JSON"):
        await proto.make(srv).chat([Message.user("hi")])


@pytest.mark.parametrize(
    ("openai_body", "ollama_body", "match"),
    [
        ({"choices": []}, {"done": True}, "choices|message"),
        ([1, 2], [1, 2], "expected a JSON object"),
        (
            {"choices": [{"message": {"content": 5}}]},
            {"message": {"content": 5}},
            "content",
        ),
        (
            {
                "choices": [
                    {
                        "message": {
                            "content": None,
                            "tool_calls": [{"function": {"name": "w", "arguments": "{oops"}}],
                        }
                    }
                ]
            },
            {"message": {"content": "", "tool_calls": [{"function": {"name": "w", "arguments": "{oops"}}]}},
            "not valid JSON",
        ),
        (
            {
                "choices": [
                    {
                        "message": {
                            "content": None,
                            "tool_calls": [{"function": {"name": "w", "arguments": "[1]"}}],
                        }
                    }
                ]
            },
            {"message": {"content": "", "tool_calls": [{"function": {"name": "w", "arguments": [1]}}]}},
            "must be a(n| JSON) object",
        ),
        (
            {"choices": [{"message": {"content": None, "tool_calls": [{"function": {}}]}}]},
            {"message": {"content": "", "tool_calls": [{"function": {}}]}},
            "name is missing",
        ),
    ],
    ids=["no-choices", "not-object", "content-type", "args-not-json", "args-not-object", "no-name"],
)
async def test_protocol_violations_are_bad_responses(
    proto: Proto, srv: LocalChatServer, openai_body: Any, ollama_body: Any, match: str
) -> None:
    """Well-formed JSON that breaks the protocol raises BadResponseError naming the field."""
    srv.reply(openai_body if proto.name == "openai" else ollama_body)
    with pytest.raises(BadResponseError, match=match):
        await proto.make(srv).chat([Message.user("hi")])


async def test_key_is_sent_as_bearer_token(proto: Proto, srv: LocalChatServer) -> None:
    """The API key reaches the server as an Authorization bearer header."""
    srv.reply(proto.reply("ok"))
    await proto.make(srv, api_key=KEY).chat([Message.user("hi")])
    assert srv.requests[0].headers["authorization"] == f"Bearer {KEY}"


async def test_key_never_leaks_into_errors_or_logs(
    proto: Proto, srv: LocalChatServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Even when the server echoes the key, no error text, traceback, repr or log line shows it."""
    echo = {"error": {"message": f"Incorrect API key provided: {KEY}"}}
    srv.reply(echo, status=500).reply(echo, status=401)
    model = proto.make(srv, api_key=KEY, sleep=Sleeps(), max_retries=1)
    assert KEY not in repr(model)
    with caplog.at_level(logging.DEBUG, logger="graphengine.models"), pytest.raises(ModelAuthError) as ei:
        await model.chat([Message.user("hi")])
    text = "".join(traceback.format_exception(ei.value))
    assert "***" in str(ei.value)
    for shown in (str(ei.value), repr(ei.value), text, caplog.text, ei.value.url):
        assert KEY not in shown
    assert "retrying" in caplog.text


async def test_key_in_url_query_is_redacted(srv: LocalChatServer) -> None:
    """A key passed in the base URL's query string (Azure style) is masked in errors."""
    srv.reply({"error": "nope"}, status=404)
    model = OpenAIChatModel("m", base_url=srv.url + "/v1", headers={"api-key": KEY})
    with pytest.raises(ModelHTTPError) as ei:
        await model.chat([Message.user("hi")])
    assert srv.requests[0].headers["api-key"] == KEY
    assert KEY not in str(ei.value)


def test_redactor_masks_secrets_bearer_tokens_and_query_keys() -> None:
    """The redactor masks configured secrets, bearer tokens and secret-looking URL parameters."""
    from graphengine.models import Redactor

    r = Redactor([KEY, "ab"])
    assert r(f"key {KEY} end") == "key *** end"
    assert r("Authorization: Bearer abcdefghijklmnop") == "Authorization: Bearer ***"
    assert r("https://x/v1?api-key=zzz&model=m") == "https://x/v1?api-key=***&model=m"
    assert r("ab stays: too short to mask") == "ab stays: too short to mask"


def test_parse_retry_after_accepts_seconds_and_http_dates() -> None:
    """Retry-After is read as seconds or as an HTTP date; garbage is ignored."""
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0


def test_errors_share_one_root() -> None:
    """Every adapter error is a ChatModelError."""
    for cls in (
        BadResponseError,
        ModelAuthError,
        ModelConnectionError,
        ModelHTTPError,
        ModelRateLimitError,
        ModelTimeoutError,
    ):
        assert issubclass(cls, ChatModelError)


def test_openai_request_body_options() -> None:
    """temperature, max_tokens and extra_body reach the request body."""
    m = OpenAIChatModel("m", temperature=0.0, max_tokens=5, extra_body={"seed": 7})
    body = m.request_body([Message.user("x")])
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.0, 5, 7)


def test_ollama_request_body_options() -> None:
    """options and keep_alive reach the /api/chat body."""
    m = OllamaChatModel("m", options={"temperature": 0, "seed": 1}, keep_alive="5m")
    body = m.request_body([Message.user("x")])
    assert body["options"] == {"temperature": 0, "seed": 1}
    assert body["keep_alive"] == "5m"


def test_tool_call_ids_are_kept_when_the_wire_has_them() -> None:
    """Provider ids of tool calls are preserved."""
    out = OpenAIChatModel("m").parse_response(
        openai_reply(None, [ToolCall(id="abc", name="w", arguments={})])
    )
    assert out.tool_calls[0].id == "abc"
    assert out.finish_reason == "tool_calls"
