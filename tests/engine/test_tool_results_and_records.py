"""Tool results, resume inputs and event meta are recorded so that they read back as what the node saw.

`ctx.call` once recorded a result without a JSON form as its `str()` (replay then served a string
where the live node had the object), and a pydantic model or dataclass given as a resume input or
in event meta was recorded field by field and read back as a dict. A tool result is now recorded
in its JSON form (the node gets that form live and on replay) or refused with `EncodeError`
naming the tool; models and dataclasses in resume inputs and meta are refused by path.
"""

from __future__ import annotations

import datetime
import enum
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import pytest
from pydantic import BaseModel

from graphengine import Context, EncodeError, Engine, NodeResult, interrupt, stop
from graphengine.emit import Event
from graphengine.store import MemoryStore, RunStatus, SQLiteStore


class T(TypedDict, total=False):
    """What the node got, as a repr."""

    got: str


class Opaque:
    """An object with no JSON form: its str() was recorded once."""

    def __str__(self) -> str:
        return "opaque"


class Color(enum.Enum):
    """An Enum a tool returns."""

    RED = "red"


class Point(BaseModel):
    """A model given where only JSON values are recorded."""

    x: int = 1


@dataclass
class Pair:
    """A dataclass given where only JSON values are recorded."""

    a: int = 1


def tool_engine(result: Any, store: Any = None, catch: bool = False) -> Engine[T]:
    async def node(ctx: Context, s: T) -> NodeResult[T]:
        try:
            got = await ctx.call(lambda _: result, "q", name="lookup")
        except EncodeError:
            if not catch:
                raise
            got = "caught"
        return NodeResult(delta={"got": repr(got)}, route=stop())

    g: Engine[T] = Engine(T, store=store or MemoryStore())
    g.add("n", node).start_at("n")
    return g


UNRECORDABLE = [Opaque(), math.nan, {"score": math.inf}, [1, math.nan], b"\xff\xfe", {"k": Opaque()}]


@pytest.mark.parametrize(
    "result", UNRECORDABLE, ids=["object", "nan", "inf in dict", "nan in list", "bytes", "nested"]
)
async def test_a_tool_result_without_a_json_form_is_refused_naming_the_tool(result: Any) -> None:
    """EncodeError (field "calls") names the tool; the run is failed, nothing of the step committed."""
    g = tool_engine(result)
    with pytest.raises(EncodeError, match="lookup") as info:
        await g.run("r", {})
    assert info.value.field == "calls" and info.value.node_id == "n"
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status is RunStatus.FAILED
    assert await g.store.load_steps("r") == []


async def test_a_refused_tool_result_fails_the_step_even_if_the_node_catches_it() -> None:
    """A node that swallows the EncodeError cannot commit a step missing the call."""
    g = tool_engine(Opaque(), catch=True)
    with pytest.raises(EncodeError, match="lookup"):
        await g.run("r", {})
    assert await g.store.load_steps("r") == []


@pytest.mark.parametrize(
    ("result", "seen"),
    [
        (datetime.date(2026, 1, 2), "'2026-01-02'"),
        ((1, 2), "[1, 2]"),
        (Color.RED, "'red'"),
        (Point(x=3), "{'x': 3}"),
        (Pair(a=4), "{'a': 4}"),
        ({1: "a"}, "{'1': 'a'}"),
    ],
    ids=["date", "tuple", "enum", "model", "dataclass", "int key"],
)
async def test_a_tool_result_with_a_json_form_is_that_form_live_and_on_replay(
    result: Any, seen: str, tmp_path: Path
) -> None:
    """The node gets the JSON form (as the docs say) live, and the replay after a reopen agrees."""
    db = tmp_path / "runs.db"
    async with SQLiteStore(db) as store:
        assert (await tool_engine(result, store).run("r", {}))["got"] == seen
    async with SQLiteStore(db) as store:
        assert (await tool_engine(result, store).replay("r")).ok


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
    [Point(), Pair(), {"p": Point()}, [Pair()]],
    ids=["model", "dataclass", "nested model", "nested dataclass"],
)
async def test_a_model_or_dataclass_resume_input_is_refused_and_the_run_keeps_waiting(value: Any) -> None:
    """It would read back as a dict (live the node saw the object): refused by path, nothing run."""
    g = asking()
    await g.run("r", {})
    with pytest.raises(EncodeError, match="read it back as a dict") as info:
        await g.resume("r", input=value)
    assert info.value.field == "input"
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status is RunStatus.INTERRUPTED
    assert (await g.resume("r", input={"x": 1}))["got"] == "{'x': 1}"
    assert (await g.replay("r")).ok


@pytest.mark.parametrize("value", [Point(), Pair()], ids=["model", "dataclass"])
async def test_a_model_or_dataclass_in_event_meta_is_refused_naming_the_key(value: Any) -> None:
    """Event meta holding a model or dataclass (history would show a dict) fails the step naming the key."""

    async def node(ctx: Context, s: T) -> NodeResult[T]:
        return NodeResult(events=[Event("r", 1, "n", "m", {"where": value})], route=stop())

    g: Engine[T] = Engine(T, store=MemoryStore())
    g.add("n", node).start_at("n")
    with pytest.raises(EncodeError, match="where") as info:
        await g.run("r", {})
    assert info.value.field == "events"
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status is RunStatus.FAILED
