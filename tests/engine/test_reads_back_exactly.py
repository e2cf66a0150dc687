"""What a step commits reads back exactly, or the step is refused with a typed error naming it.

Values JSON writes as something else (NaN or infinity inside a deque, NaN as a dict key, a lone
surrogate in a key) are refused by path; an event whose `step` or `ts` has the wrong type is
refused at the step, so that `history()` never meets a record it cannot read.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any, TypedDict

import pytest

from graphengine import Context, EncodeError, Engine, NodeResult, StateValidationError, stop
from graphengine.emit import Event
from graphengine.errors import GraphError
from graphengine.store import MemoryStore


class T(TypedDict, total=False):
    """A state with an `Any` field and a typed dict of str keys."""

    a: Any
    d: dict[str, int]


@dataclass
class D:
    """A dataclass state with an `Any` field."""

    a: Any = None
    n: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


UNREADABLE: list[tuple[str, Any]] = [
    ("nan in a deque", deque([math.nan])),
    ("inf in a deque", deque([1.0, math.inf])),
    ("nan as a key", {math.nan: 1}),
    ("inf as a key", {math.inf: 1}),
    ("nan in a nested deque key", {"x": {math.nan: "y"}}),
]


def one_step(delta: Any) -> Engine[T]:
    async def node(ctx: Context, s: T) -> NodeResult[T]:
        return NodeResult(delta=delta, route=stop())

    g: Engine[T] = Engine(T, store=MemoryStore())
    g.add("n", node).start_at("n")
    return g


@pytest.mark.parametrize(("name", "value"), UNREADABLE, ids=[n for n, _ in UNREADABLE])
async def test_a_delta_that_would_not_read_back_is_refused(name: str, value: Any) -> None:
    """A delta holding NaN/inf in a deque or as a key is refused as EncodeError; the run is failed."""
    g = one_step({"a": value})
    with pytest.raises(EncodeError) as info:
        await g.run("r", {})
    assert info.value.field == "delta"
    assert "a" in str(info.value)
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status != "running"


@pytest.mark.parametrize(("name", "value"), UNREADABLE, ids=[n for n, _ in UNREADABLE])
async def test_an_initial_state_that_would_not_read_back_is_refused(name: str, value: Any) -> None:
    """The same values in an initial state are a StateValidationError naming the run."""
    g = one_step(None)
    with pytest.raises(StateValidationError):
        await g.run("r", {"a": value})


@pytest.mark.parametrize(("name", "value"), UNREADABLE, ids=[n for n, _ in UNREADABLE])
async def test_a_dataclass_state_that_would_not_read_back_is_refused(name: str, value: Any) -> None:
    """A dataclass state's delta with such a value is refused too."""

    async def node(ctx: Context, s: D) -> NodeResult[D]:
        return NodeResult(delta=D(a=value), route=stop())

    g: Engine[D] = Engine(D, store=MemoryStore(), reducer=lambda prev, d: d)
    g.add("n", node).start_at("n")
    with pytest.raises(EncodeError):
        await g.run("r", D())


async def test_a_lone_surrogate_in_a_typed_key_is_refused() -> None:
    """A key of a dict[str, int] with a lone surrogate is refused (it would read back as U+FFFD)."""
    g = one_step({"d": {"k\udc00": 1}})
    with pytest.raises(EncodeError) as info:
        await g.run("r", {})
    assert "k\\udc00" in str(info.value)


async def test_an_interrupt_payload_that_would_not_read_back_is_refused() -> None:
    """An interrupt payload with NaN as a key is refused, naming the route."""
    from graphengine import interrupt

    async def node(ctx: Context, s: T) -> NodeResult[T]:
        return NodeResult(route=interrupt({math.nan: 1}))

    g: Engine[T] = Engine(T, store=MemoryStore())
    g.add("n", node).start_at("n")
    with pytest.raises(EncodeError) as info:
        await g.run("r", {})
    assert info.value.field == "route"


@pytest.mark.parametrize(
    ("kw", "bad"), [({"step": "1"}, "step"), ({"ts": "now"}, "ts"), ({"step": 1.5}, "step")]
)
async def test_an_event_with_a_wrongly_typed_field_is_refused_at_the_step(
    kw: dict[str, Any], bad: str
) -> None:
    """An event whose step or ts has the wrong type is refused; the run is not left running or done."""
    ev = Event("r", 0, "n", "hello")
    ev = Event(
        kw.get("run_id", ev.run_id), kw.get("step", ev.step), ev.node_id, ev.msg, {}, ts=kw.get("ts", 1.0)
    )

    async def node(ctx: Context, s: T) -> NodeResult[T]:
        return NodeResult(events=[ev], route=stop())

    g: Engine[T] = Engine(T, store=MemoryStore())
    g.add("n", node).start_at("n")
    with pytest.raises(GraphError) as info:
        await g.run("r", {})
    assert bad in str(info.value)
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status not in ("running", "done")
    await g.history("r")  # reads back


@pytest.mark.parametrize(
    "payload", [{1: "a"}, (1, 2), {"when": object()}], ids=["int key", "tuple", "object"]
)
async def test_a_non_json_interrupt_payload_is_refused(payload: Any) -> None:
    """An interrupt payload JSON would store as another value (once its str()) is refused, field route."""
    from graphengine import interrupt

    async def node(ctx: Context, s: T) -> NodeResult[T]:
        return NodeResult(route=interrupt(payload))

    g: Engine[T] = Engine(T, store=MemoryStore())
    g.add("n", node).start_at("n")
    with pytest.raises(EncodeError) as info:
        await g.run("r", {})
    assert info.value.field == "route"
    assert "payload" in str(info.value)
