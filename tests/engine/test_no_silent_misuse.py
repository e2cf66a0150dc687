"""Misuse that used to be accepted and then did something else without a word is refused, typed.

Classes: an `async def` where a sync callable is needed (an edge predicate, whose coroutine is
always truthy), a fan-out branch's own route (goto, stop, a nested fan-out), and `Options`
values that switch a limit off or fail only much later (NaN, booleans, names for types,
budgets of impossible sizes).
"""

from __future__ import annotations

import asyncio
import math
from typing import Annotated, Any

import pytest
from pydantic import BaseModel

from graphengine import (
    Branch,
    Engine,
    GraphValidationError,
    NodeOptions,
    NodeResult,
    NodeReturnTypeError,
    Options,
    RoutingError,
    append,
    fan_out,
    goto,
    stop,
)
from graphengine.store import MemoryStore, RunStatus, Store


class M(BaseModel):
    """Branch outputs appended in order; `item` is a branch's input."""

    out: Annotated[list[int], append] = []
    item: int = 0


# ---------------------------------------------------------------------- async where sync is needed


async def _async_pred(s: M) -> bool:
    return False


class _AsyncCallable:
    async def __call__(self, s: M) -> bool:
        return False


@pytest.mark.parametrize("pred", [_async_pred, _AsyncCallable()], ids=["function", "callable object"])
def test_an_async_edge_predicate_is_refused_when_connected(pred: Any) -> None:
    """An `async def` predicate is refused by `connect`, naming the edge: its coroutine would always be truthy."""
    g = Engine(M, store=MemoryStore())
    g.add("a", lambda c, s: None).add("b", lambda c, s: None).start_at("a")
    with pytest.raises(GraphValidationError, match=r"'a' -> 'b'.*async") as info:
        g.connect("a", "b", when=pred)
    assert info.value.node_id == "a"


def test_a_predicate_returning_an_awaitable_fails_the_step_instead_of_taking_the_edge() -> None:
    """A sync predicate that returns a coroutine (a lambda around an async def) is a RoutingError, not True."""

    async def go() -> None:
        store = MemoryStore()
        g = Engine(M, store=store)
        g.add("a", lambda c, s: None).add("b", lambda c, s: NodeResult(delta=M(out=[1]))).start_at("a")
        g.connect("a", "b", when=lambda s: _async_pred(s))
        with pytest.raises(RoutingError, match="awaitable"):
            await g.run("r", M())
        rec = await store.get_run("r")
        assert rec is not None and rec.status is RunStatus.FAILED

    asyncio.run(go())


def test_a_predicate_that_is_not_callable_is_refused_when_connected() -> None:
    """`connect(..., when="ready")` is refused at once instead of failing at the first step."""
    g = Engine(M, store=MemoryStore())
    with pytest.raises(GraphValidationError, match="'ready'"):
        g.connect("a", "b", when="ready")  # type: ignore[call-overload]


# ---------------------------------------------------------------------- a branch's own route


def _map_graph(store: Store, route: Any) -> Engine[M]:
    g = Engine(M, store=store)
    g.add(
        "split", lambda c, s: NodeResult(route=fan_out((Branch("w", M(item=i)) for i in range(3)), join="j"))
    )
    g.add("w", lambda c, s: NodeResult(delta=M(out=[s.item]), route=route if s.item == 1 else None))
    g.add("j", lambda c, s: None).add("other", lambda c, s: None).start_at("split")
    return g


@pytest.mark.parametrize(
    "route",
    [goto("other"), stop(), fan_out(["other"], join="j")],
    ids=["goto", "stop", "nested fan_out"],
)
async def test_a_branch_that_routes_fails_the_fan_out_naming_the_branch(store: Store, route: Any) -> None:
    """A branch's goto, stop or nested fan-out cannot be honoured, so it fails the run instead of being ignored."""
    g = _map_graph(store, route)
    with pytest.raises(NodeReturnTypeError, match=r"branch 1 \(node 'w'\).*route") as info:
        await g.run("r", M())
    assert info.value.node_id == "w"
    rec = await store.get_run("r")
    assert rec is not None and rec.status is RunStatus.FAILED


async def test_a_branch_without_a_route_still_joins(store: Store) -> None:
    """Branches returning no route merge in declared order, as before."""
    assert (await _map_graph(store, None).run("r", M())).out == [0, 1, 2]


# ---------------------------------------------------------------------- options


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"max_steps": math.nan}, ["max_steps", "nan"]),
        ({"max_steps": True}, ["max_steps", "True"]),
        ({"max_steps": 2.5}, ["max_steps", "2.5"]),
        ({"retries": math.nan}, ["retries", "nan"]),
        ({"retries": False}, ["retries", "False"]),
        ({"snapshot_ratio": math.nan}, ["snapshot_ratio", "nan"]),
        ({"snapshot_ratio": math.inf}, ["snapshot_ratio", "inf"]),
        ({"snapshot_every": math.nan}, ["snapshot_every", "nan"]),
        ({"max_concurrency": math.nan}, ["max_concurrency", "nan"]),
        ({"max_backoff": math.nan}, ["max_backoff", "nan"]),
        ({"seed": 1.5}, ["seed", "1.5"]),
        ({"field_budgets": {"out": -1}}, ["field_budgets", "'out'", "-1"]),
        ({"field_budgets": {"out": math.nan}}, ["field_budgets", "'out'", "nan"]),
        ({"field_budgets": {"out": True}}, ["field_budgets", "'out'", "True"]),
        ({"retry_on": ("ValueError",)}, ["retry_on", "'ValueError'", "exception type"]),
        ({"retry_on": ValueError}, ["retry_on", "tuple"]),
        ({"node": {"a": {"retries": 1}}}, ["node", "'a'", "NodeOptions"]),
    ],
)
def test_options_that_would_switch_a_limit_off_or_fail_later_are_refused(
    kwargs: dict[str, Any], words: list[str]
) -> None:
    """Each bad Options value is a ValueError naming the field and the value, at construction."""
    with pytest.raises((ValueError, TypeError)) as info:
        Options(**kwargs)
    assert all(w in str(info.value) for w in words), str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"retries": -1}, ["retries", "-1"]),
        ({"retries": math.nan}, ["retries", "nan"]),
        ({"timeout": math.nan}, ["timeout", "nan"]),
        ({"timeout": 0}, ["timeout", "0"]),
        ({"backoff": -1.0}, ["backoff", "-1.0"]),
        ({"retry_on": ("ValueError",)}, ["retry_on", "'ValueError'"]),
    ],
)
def test_node_options_are_checked_like_options(kwargs: dict[str, Any], words: list[str]) -> None:
    """Per-node overrides refuse what `Options` refuses."""
    with pytest.raises((ValueError, TypeError)) as info:
        NodeOptions(**kwargs)
    assert all(w in str(info.value) for w in words), str(info.value)


def test_a_budget_for_a_field_the_state_does_not_have_is_refused_at_validation() -> None:
    """`field_budgets={"outt": ...}` (a typo) is refused when the graph is validated, naming the fields."""
    g = Engine(M, store=MemoryStore(), options=Options(field_budgets={"outt": 10}))
    g.add("a", lambda c, s: None).start_at("a")
    with pytest.raises(GraphValidationError, match=r"'outt'.*out"):
        g.validate()


def test_retry_on_given_as_names_fails_at_construction_not_at_the_first_failure() -> None:
    """The node's own error would have been hidden behind a TypeError from `isinstance`; now Options says so."""
    with pytest.raises(TypeError, match="retry_on"):
        Engine(M, store=MemoryStore()).add("a", lambda c, s: None, retry_on=("ValueError",))  # type: ignore[arg-type]


def test_overrides_for_a_node_the_graph_does_not_have_are_refused_at_validation() -> None:
    """`Options(node={"nodee": ...})` (a typo) is refused, naming the node, instead of retrying nothing."""
    g = Engine(M, store=MemoryStore(), options=Options(node={"nodee": NodeOptions(retries=3)}))
    g.add("node", lambda c, s: None).start_at("node")
    with pytest.raises(GraphValidationError, match=r"'nodee'.*node"):
        g.validate()


# ---------------------------------------------------------------------- a timeout that cannot act


async def test_an_async_node_that_blocks_the_loop_past_its_timeout_is_reported() -> None:
    """`timeout=` cannot stop a node that never yields; it still finishes, but a warning names the node and the cause."""
    import logging
    import time

    from graphengine.emit import EventKind, MemoryEmitter

    async def blocking(ctx: Any, s: M) -> NodeResult[M]:
        time.sleep(0.2)  # noqa: ASYNC251 (the misuse under test: the loop cannot cancel it)
        return NodeResult(delta=M(out=[1]))

    em = MemoryEmitter()
    g = Engine(M, store=MemoryStore(), emitter=em)
    g.add("blocking", blocking, timeout=0.01).start_at("blocking")
    seen: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = seen.append  # type: ignore[method-assign]
    logging.getLogger("graphengine").addHandler(handler)
    try:
        assert (await g.run("r", M())).out == [1]
    finally:
        logging.getLogger("graphengine").removeHandler(handler)
    warnings = [e for e in em.events if e.kind is EventKind.WARNING and e.node_id == "blocking"]
    assert len(warnings) == 1, em.events
    assert "timeout" in warnings[0].msg and "event loop" in warnings[0].msg
    assert any("blocking" in r.getMessage() and "event loop" in r.getMessage() for r in seen)


async def test_a_node_that_yields_within_its_timeout_gives_no_warning() -> None:
    """The warning is about overruns only: a node finishing in time emits none."""
    from graphengine.emit import EventKind, MemoryEmitter

    async def quick(ctx: Any, s: M) -> NodeResult[M]:
        await asyncio.sleep(0)
        return NodeResult(delta=M(out=[1]))

    em = MemoryEmitter()
    g = Engine(M, store=MemoryStore(), emitter=em)
    g.add("quick", quick, timeout=30).start_at("quick")
    await g.run("r", M())
    assert not [e for e in em.events if e.kind is EventKind.WARNING]


async def _areduce(old: Any, new: Any) -> Any:
    return new


class WithAsyncField(BaseModel):
    """A field whose declared reducer is async."""

    xs: Annotated[list[int], _areduce] = []


def test_an_async_reducer_is_refused_when_the_engine_is_built() -> None:
    """`reducer=` or a field reducer that is `async def` is refused by name, not found later as an unstorable coroutine."""
    with pytest.raises(GraphValidationError, match=r"reducer=.*async"):
        Engine(M, store=MemoryStore(), reducer=_areduce)
    with pytest.raises(GraphValidationError, match=r"field 'xs'.*async"):
        Engine(WithAsyncField, store=MemoryStore())
