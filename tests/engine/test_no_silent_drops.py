"""A delta key the state type does not declare, or a reducer's result of another type, is refused.

A TypedDict state's codec drops keys the type does not declare, so such a key in a delta or an
initial state was lost without a word; a reducer returning another model had its result stored
as the state type's defaults. Both are now typed errors naming the key or the type.
"""

from __future__ import annotations

from typing import Any, TypedDict

import pytest
from pydantic import BaseModel

from graphengine import (
    Context,
    DeltaTypeError,
    Engine,
    NodeResult,
    ReducerError,
    StateValidationError,
    stop,
)
from graphengine.store import MemoryStore, RunStatus


class T(TypedDict, total=False):
    """A TypedDict state with one declared key."""

    n: int


class M(BaseModel):
    """A model state."""

    n: int = 0


class Other(BaseModel):
    """Another model, with nothing in common."""

    x: int = 0


async def test_an_undeclared_typeddict_delta_key_is_refused() -> None:
    """A delta {"n": 1, "typo": 2} fails the step naming 'typo'; the run is failed, not done."""

    async def node(ctx: Context, s: T) -> NodeResult[T]:
        return NodeResult(delta={"n": 1, "typo": 2}, route=stop())  # type: ignore[typeddict-unknown-key]

    g: Engine[T] = Engine(T, store=MemoryStore())
    g.add("node", node).start_at("node")
    with pytest.raises(DeltaTypeError, match="typo"):
        await g.run("r", {})
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status is RunStatus.FAILED


async def test_an_undeclared_typeddict_initial_key_is_refused() -> None:
    """An initial state with a key T does not declare is a StateValidationError naming it."""

    async def node(ctx: Context, s: T) -> NodeResult[T]:
        return NodeResult(route=stop())

    g: Engine[T] = Engine(T, store=MemoryStore())
    g.add("node", node).start_at("node")
    with pytest.raises(StateValidationError, match="typo"):
        await g.run("r", {"n": 1, "typo": 2})


async def test_a_reducer_returning_another_model_is_refused() -> None:
    """A reducer whose result is not an M fails the step with a ReducerError naming the type."""

    def reducer(prev: M, delta: M) -> Any:
        return Other(x=1)

    async def node(ctx: Context, s: M) -> NodeResult[M]:
        return NodeResult(delta=M(n=5), route=stop())

    g: Engine[M] = Engine(M, store=MemoryStore(), reducer=reducer)
    g.add("node", node).start_at("node")
    with pytest.raises(ReducerError, match="Other"):
        await g.run("r", M())
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status is RunStatus.FAILED
