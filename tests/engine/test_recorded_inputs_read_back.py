"""What a step records of its outside inputs reads back as what the node saw, or is refused.

A resume input of type set, datetime or object was recorded as JSON (a list, a string) while
the node saw the Python value, so replaying a correct run reported a divergence; NaN in an
event's meta was recorded as null the same way. Such values are now refused before anything
runs (a resume input: `EncodeError`, field "input", the run still waiting) or at the step
(event meta), naming where the value was.
"""

from __future__ import annotations

import datetime
import math
from typing import Any, TypedDict

import pytest

from graphengine import Context, EncodeError, Engine, NodeResult, interrupt, stop
from graphengine.emit import Event
from graphengine.errors import GraphError
from graphengine.store import MemoryStore, RunStatus


class T(TypedDict, total=False):
    """The answer, as the node saw it."""

    got: str


def asking() -> Engine[T]:
    async def ask(ctx: Context, s: T) -> NodeResult[T]:
        if not ctx.resumed:
            return NodeResult(route=interrupt("answer?"))
        return NodeResult(delta={"got": repr(ctx.resume_input)}, route=stop())

    g: Engine[T] = Engine(T, store=MemoryStore())
    g.add("ask", ask).start_at("ask")
    return g


@pytest.mark.parametrize(
    "value",
    [{1, 2}, datetime.datetime(2026, 1, 1), object(), (1, 2), {1: "a"}, math.nan],
    ids=["set", "datetime", "object", "tuple", "int key", "nan"],
)
async def test_a_resume_input_that_json_changes_is_refused(value: Any) -> None:
    """Refused before the node runs; the run keeps waiting and takes a JSON answer after."""
    g = asking()
    await g.run("r", {})
    with pytest.raises(EncodeError) as info:
        await g.resume("r", input=value)
    assert info.value.field == "input"
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status is RunStatus.INTERRUPTED
    out = await g.resume("r", input=[1, 2])
    assert out["got"] == "[1, 2]"
    assert (await g.replay("r")).ok


async def test_a_resume_input_nested_deeper_than_a_record_can_hold_is_refused_before_it_runs() -> None:
    """300 levels parse on every Python but exceed what a step record encodes: refused up front,
    naming the nesting, the run still waiting (it once failed at the write, after the node ran)."""
    deep: Any = []
    for _ in range(300):
        deep = [deep]
    g = asking()
    await g.run("r", {})
    with pytest.raises(EncodeError, match="nests more than") as info:
        await g.resume("r", input=deep)
    assert info.value.field == "input"
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status is RunStatus.INTERRUPTED


async def test_nan_in_event_meta_is_refused_at_the_step() -> None:
    """An event whose meta holds NaN is refused naming the meta key; the run is failed."""

    async def node(ctx: Context, s: T) -> NodeResult[T]:
        return NodeResult(events=[Event("r", 1, "n", "m", {"score": math.nan})], route=stop())

    g: Engine[T] = Engine(T, store=MemoryStore())
    g.add("n", node).start_at("n")
    with pytest.raises(GraphError, match="score"):
        await g.run("r", {})
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status is RunStatus.FAILED


async def test_non_json_event_meta_is_refused_at_the_step() -> None:
    """An event whose meta holds an object (once stored as its str()) is refused naming the key."""

    async def node(ctx: Context, s: T) -> NodeResult[T]:
        return NodeResult(events=[Event("r", 1, "n", "m", {"when": datetime.date(2026, 1, 1)})], route=stop())

    g: Engine[T] = Engine(T, store=MemoryStore())
    g.add("n", node).start_at("n")
    with pytest.raises(GraphError, match="when"):
        await g.run("r", {})


class Unprintable(Exception):
    """A tool's exception whose str() raises."""

    def __str__(self) -> str:
        raise RuntimeError("no str")


async def test_a_tool_exception_whose_str_raises_is_recorded_and_replays() -> None:
    """The call is recorded by the exception's type; the node gets ToolCallError live and on replay."""
    from graphengine import ToolCallError

    def tool(x: int) -> int:
        raise Unprintable()

    async def node(ctx: Context, s: T) -> NodeResult[T]:
        try:
            await ctx.call(tool, 1)
        except ToolCallError as exc:
            return NodeResult(delta={"got": exc.error_type}, route=stop())
        return NodeResult(route=stop())

    g: Engine[T] = Engine(T, store=MemoryStore())
    g.add("n", node).start_at("n")
    assert (await g.run("r", {}))["got"] == "Unprintable"
    assert (await g.replay("r")).ok
