"""Running the tool calls a model asked for, through ``ctx.call``, and handing back the answers."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic_core import to_jsonable_python

from graphengine.context import Context, Tool, ToolCallError
from graphengine.models.chat import Message, ToolCall, ToolSpec

__all__ = ["run_tool_calls", "tool_spec"]


def tool_spec(t: Tool | Any) -> ToolSpec:
    """The `ToolSpec` of a tool: its ``spec`` when it has one, else its name and docstring with a free-form object."""
    spec = getattr(t, "spec", None)
    if isinstance(spec, ToolSpec):
        return spec
    name = getattr(t, "name", None) or getattr(t, "__name__", None) or type(t).__name__
    doc = (getattr(t, "__doc__", None) or "").strip().split("\n\n")[0]
    return ToolSpec(name=name, description=" ".join(doc.split()))


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(to_jsonable_python(value, fallback=str), ensure_ascii=False, sort_keys=True)


async def run_tool_calls(
    ctx: Context, tools: Iterable[Tool | Any] | Mapping[str, Tool | Any], calls: Sequence[ToolCall]
) -> list[Message]:
    """Run each call with its tool through ``ctx.call`` (recorded; replay serves it) and return the tool messages.

    Calls run one after the other, in the model's order, so the record is deterministic. A call
    naming an unknown tool, or a tool that fails (`ToolCallError`), does not raise: its message
    says what went wrong (``error: ...``) so the model can correct itself.
    """
    by_name = dict(tools) if isinstance(tools, Mapping) else {tool_spec(t).name: t for t in tools}
    out: list[Message] = []
    for call in calls:
        t = by_name.get(call.name)
        if t is None:
            out.append(Message.tool(call, f"error: unknown tool {call.name!r}; available: {sorted(by_name)}"))
            continue
        try:
            result = await ctx.call(t, call.arguments, name=call.name)
        except ToolCallError as exc:
            out.append(Message.tool(call, f"error: {exc}"))
            continue
        out.append(Message.tool(call, _text(result)))
    return out
