"""Tools: the `@tool` decorator's derived spec and validation, `run_tool_calls`, and `HttpTool` on a local server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from graphengine import Context, Engine, NodeResult, Tool, ToolCallError
from graphengine.models import Message, ToolCall
from graphengine.models.testing import LocalChatServer
from graphengine.store import MemoryStore
from graphengine.testing import assert_replays
from graphengine.tools import (
    FunctionTool,
    HttpResponse,
    HttpTool,
    HttpToolError,
    ToolInputError,
    run_tool_calls,
    tool,
    tool_spec,
)


@tool
async def search(query: str, limit: Annotated[int, Field(ge=1, le=10)] = 5) -> list[str]:
    """Search the knowledge base.

    Longer explanation that models do not need.

    Args:
        query: What to look for.
        limit: How many hits at most,
            between 1 and 10.
    """
    return [f"{query}-{i}" for i in range(limit)]


class Point(BaseModel):
    """A point."""

    x: int
    y: int = 0


def _ctx() -> Context:
    return Context(run_id="r", step=1, node_id="n")


def test_tool_derives_name_description_and_schema() -> None:
    """@tool turns the signature and docstring into a ToolSpec with a JSON schema."""
    spec = search.spec
    assert spec.name == "search"
    assert spec.description == "Search the knowledge base."
    params = spec.parameters
    assert params["type"] == "object"
    assert params["required"] == ["query"]
    query = params["properties"]["query"]
    assert (query["type"], query["description"]) == ("string", "What to look for.")
    limit = params["properties"]["limit"]
    assert (limit["type"], limit["default"], limit["minimum"], limit["maximum"]) == ("integer", 5, 1, 10)
    assert limit["description"] == "How many hits at most, between 1 and 10."
    assert params["additionalProperties"] is False
    assert search.output_schema == {"type": "array", "items": {"type": "string"}}


def test_tool_is_a_graphengine_tool_and_still_callable() -> None:
    """A decorated function satisfies the Tool protocol and can still be called directly."""
    assert isinstance(search, Tool)
    assert isinstance(search, FunctionTool)

    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    assert add(2, 3) == 5


def test_tool_with_name_and_description_overrides() -> None:
    """@tool(name=..., description=...) overrides the derived values."""

    @tool(name="sum_two", description="Adds numbers.")
    def add(a: int, b: int) -> int:
        return a + b

    assert (add.spec.name, add.spec.description) == ("sum_two", "Adds numbers.")


async def test_tool_validates_and_coerces_input() -> None:
    """Input is validated against the schema: defaults filled, bad values named."""
    assert await search.call(_ctx(), {"query": "goap"}) == [f"goap-{i}" for i in range(5)]
    with pytest.raises(ToolInputError, match=r"limit: Input should be less than or equal to 10") as ei:
        await search.call(_ctx(), {"query": "goap", "limit": 11})
    assert ei.value.tool == "search"
    with pytest.raises(ToolInputError, match="query: Field required"):
        await search.call(_ctx(), {})
    with pytest.raises(ToolInputError, match="extra: Extra inputs are not permitted"):
        await search.call(_ctx(), {"query": "q", "extra": 1})


async def test_tool_taking_a_model_uses_it_as_schema_and_context_is_injected() -> None:
    """A single pydantic-model parameter is the schema; a Context parameter gets the node's context."""

    @tool
    def norm(p: Point, ctx: Context) -> int:
        """Manhattan norm."""
        assert ctx.run_id == "r"
        return abs(p.x) + abs(p.y)

    assert norm.spec.parameters["required"] == ["x"]
    assert "ctx" not in norm.spec.parameters["properties"]
    assert await norm.call(_ctx(), {"x": -3, "y": 4}) == 7


def test_tool_rejects_var_args() -> None:
    """*args cannot be described to a model."""
    with pytest.raises(TypeError, match=r"\*args"):

        @tool
        def bad(*xs: int) -> int:
            return sum(xs)


def test_tool_spec_of_plain_tool_objects() -> None:
    """tool_spec uses a tool's spec when it has one, else its name and docstring."""

    class Ping:
        """Ping the service.

        Details.
        """

        name = "ping"

        async def call(self, ctx: Context, input: Any) -> str:
            return "pong"

    assert tool_spec(search) is search.spec
    spec = tool_spec(Ping())
    assert (spec.name, spec.description) == ("ping", "Ping the service.")


class S(BaseModel):
    """State of the tool graph."""

    answers: list[str] = []


async def test_run_tool_calls_records_results_and_replays_without_running_tools() -> None:
    """Tool calls run through ctx.call: results are recorded and replay never runs the tools."""
    runs: list[str] = []

    @tool
    def shout(text: str) -> str:
        """Upper-case."""
        runs.append(text)
        return text.upper()

    calls = [
        ToolCall(id="1", name="shout", arguments={"text": "hi"}),
        ToolCall(id="2", name="nope", arguments={}),
        ToolCall(id="3", name="shout", arguments={"text": 5}),
    ]

    async def node(ctx: Context, s: S) -> NodeResult[S]:
        msgs = await run_tool_calls(ctx, [shout], calls)
        return NodeResult(delta=S(answers=[m.content for m in msgs]))

    eng = Engine(S, store=MemoryStore())
    eng.add("tools", node)
    eng.start_at("tools")
    final = await eng.run("t", S())
    assert final.answers[0] == "HI"
    assert final.answers[1].startswith("error: unknown tool 'nope'")
    assert "text: Input should be a valid string" in final.answers[2]
    assert runs == ["hi"]
    await assert_replays(eng, "t")
    assert runs == ["hi"]


def test_tool_messages_answer_their_calls() -> None:
    """Message.tool links a result to its call by id and name."""
    m = Message.tool(ToolCall(id="c9", name="w"), "ok")
    assert (m.role, m.tool_call_id, m.name, m.content) == ("tool", "c9", "w", "ok")


@pytest.fixture
def srv() -> Iterator[LocalChatServer]:
    """A local HTTP server."""
    with LocalChatServer() as s:
        yield s


async def test_http_tool_performs_requests_and_decodes_json(srv: LocalChatServer) -> None:
    """HttpTool sends method, params, body and its own headers, and returns status, headers and JSON."""
    srv.reply({"items": [1, 2]}, status=201, headers={"x-trace": "t1"})
    fetch = HttpTool("fetch", base_url=srv.url + "/api", headers={"authorization": "Bearer SECRET-TOKEN-123"})
    out = await fetch.call(
        _ctx(), {"url": "/items", "method": "POST", "params": {"q": "a"}, "json": {"n": 1}}
    )
    assert isinstance(out, HttpResponse)
    assert (out.status, out.json_body, out.headers["x-trace"], out.ok) == (201, {"items": [1, 2]}, "t1", True)
    req = srv.requests[0]
    assert (req.method, req.path, req.json) == ("POST", "/api/items?q=a", {"n": 1})
    assert req.headers["authorization"] == "Bearer SECRET-TOKEN-123"


async def test_http_tool_through_ctx_call_records_no_secret_and_replays(srv: LocalChatServer) -> None:
    """Through ctx.call the response is recorded (without the tool's secret headers) and replay serves it."""
    srv.reply({"ok": True})
    fetch = HttpTool("fetch", base_url=srv.url, headers={"authorization": "Bearer SECRET-TOKEN-123"})

    async def node(ctx: Context, s: S) -> NodeResult[S]:
        r = await ctx.call(fetch, {"url": "/x"}, output=HttpResponse)
        return NodeResult(delta=S(answers=[str(r.json_body)]))

    store = MemoryStore()
    eng = Engine(S, store=store)
    eng.add("fetch", node)
    eng.start_at("fetch")
    assert (await eng.run("h", S())).answers == ["{'ok': True}"]
    steps = await store.load_steps("h")
    assert "SECRET-TOKEN-123" not in repr(steps)
    srv.close()
    await assert_replays(eng, "h")
    assert len(srv.requests) == 1


async def test_http_tool_refuses_hosts_not_allowed() -> None:
    """allowed_hosts stops requests to other hosts before anything is sent."""
    fetch = HttpTool("fetch", allowed_hosts={"api.example.com"})
    with pytest.raises(HttpToolError, match="host '169.254.169.254' is not allowed"):
        await fetch.call(_ctx(), {"url": "http://169.254.169.254/latest/meta-data"})
    with pytest.raises(HttpToolError, match="not an absolute http"):
        await fetch.call(_ctx(), {"url": "file:///etc/passwd"})


async def test_http_tool_errors(srv: LocalChatServer) -> None:
    """raise_for_status turns 4xx/5xx into HttpToolError; timeouts and refused connections are HttpToolError too."""
    srv.reply({"error": "x"}, status=503).reply({}, delay=3)
    strict = HttpTool("fetch", base_url=srv.url, raise_for_status=True, timeout=0.5)
    with pytest.raises(HttpToolError, match="answered 503") as ei:
        await strict.call(_ctx(), {"url": "/"})
    assert ei.value.status == 503
    with pytest.raises(HttpToolError, match="timed out"):
        await strict.call(_ctx(), {"url": "/"})
    srv.close()
    with pytest.raises(HttpToolError, match="failed: ConnectError"):
        await strict.call(_ctx(), {"url": "/"})


async def test_failing_http_tool_raises_tool_call_error_in_a_node(srv: LocalChatServer) -> None:
    """A failing tool surfaces to the node as ToolCallError naming the original error type."""
    srv.reply({}, status=500)
    fetch = HttpTool("fetch", base_url=srv.url, raise_for_status=True)
    ctx = _ctx()
    with pytest.raises(ToolCallError) as ei:
        await ctx.call(fetch, {"url": "/"})
    assert ei.value.error_type == "HttpToolError"


def test_http_tool_spec_describes_the_request() -> None:
    """HttpTool's spec exposes the request schema (with `json` as the body field)."""
    props = HttpTool("fetch").spec.parameters["properties"]
    assert {"url", "method", "params", "headers", "json", "content"} <= set(props)
