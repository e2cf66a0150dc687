"""Tools: typed functions and HTTP requests as recorded side effects a model can call.

    from graphengine.tools import tool, run_tool_calls

    @tool
    def add(a: int, b: int) -> int:
        '''Add two numbers.'''
        return a + b

    out = await chat(ctx, model, messages, [add.spec])
    messages += [out.to_message(), *await run_tool_calls(ctx, [add], out.tool_calls)]

Every tool runs through ``ctx.call`` (the `graphengine.Tool` protocol), so its result is stored
with the step and replay never runs it again. `HttpTool` needs the ``http`` extra (httpx),
imported when it first makes a request.
"""

from graphengine.context import Tool, ToolCallError
from graphengine.exports import publish as _publish

from .calls import run_tool_calls, tool_spec
from .function import FunctionTool, ToolInputError, tool
from .http import HttpRequest, HttpResponse, HttpTool, HttpToolError

__all__ = [
    "FunctionTool",
    "HttpRequest",
    "HttpResponse",
    "HttpTool",
    "HttpToolError",
    "Tool",
    "ToolCallError",
    "ToolInputError",
    "run_tool_calls",
    "tool",
    "tool_spec",
]

_publish(__name__, globals(), __all__)
