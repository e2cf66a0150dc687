"""The step loop's checks of what nodes return (deltas, routes) and of a run's limits."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic_core import to_json

from graphengine.emit import EventKind

from ._encoding import check_finite, check_read_back, error_text, may_hide, unstorable
from .errors import (
    BudgetExceededError,
    DeltaTypeError,
    MaxStepsExceeded,
    NodeReturnTypeError,
    ReducerError,
    RoutingError,
    UnknownNodeError,
)
from .graph import CompiledNode
from .routing import Next, NextKind

if TYPE_CHECKING:
    from ._readback import ReadBackPlan
    from ._runtime import Runtime

__all__ = [
    "branch_delta",
    "branch_routed",
    "check_budgets",
    "check_route",
    "checked_delta",
    "max_steps_error",
    "reducer_failed",
    "static_route",
    "undeclared_keys",
    "wrong_delta",
    "wrong_route",
]

S = TypeVar("S")


_GOTO = NextKind.GOTO
_FAN_OUT = NextKind.FAN_OUT
_WAIT = NextKind.WAIT
_log = logging.getLogger("graphengine")


def check_budgets(
    eng: Runtime[Any],
    budgets: Mapping[str, int],
    sizes: dict[str, int],
    delta: Any,
    state: Any,
    run_id: str,
    step: int,
    node_id: str,
) -> None:
    """Measure the budgeted fields this delta touched; warn (or fail, strict) when one passes its budget."""
    touched = delta.__pydantic_fields_set__ if hasattr(delta, "__pydantic_fields_set__") else delta.keys()
    for name in touched:
        budget = budgets.get(name)
        if budget is None:
            continue
        value = state[name] if isinstance(state, dict) else getattr(state, name)
        size = len(to_json(value, fallback=str))
        before = sizes.get(name)
        sizes[name] = size
        if size <= budget:
            continue
        msg = f"field {name!r} is {size} bytes encoded, over its budget of {budget} (step {step}, node {node_id!r})"
        if eng.options.strict_budgets:
            raise BudgetExceededError(
                msg, run_id=run_id, step=step, node_id=node_id, field=name, size=size, budget=budget
            )
        if before is None or before <= budget:  # warn when crossing, not on every later step
            _log.warning("run %r: %s", run_id, msg)
            eng.notify(
                run_id, step, node_id, msg, {"field": name, "size": size, "budget": budget}, EventKind.WARNING
            )


def reducer_failed(exc: BaseException, run_id: str, step: int, node_id: str) -> ReducerError:
    return ReducerError(
        f"the reducer raised merging the delta of node {node_id!r} at step {step} of run {run_id!r}: "
        f"{error_text(exc)}; fix it and resume({run_id!r})",
        run_id=run_id,
        step=step,
        node_id=node_id,
    )


def static_route(node: CompiledNode[Any], state: Any, run_id: str, step: int) -> Next:
    """The static edges' hop for `state`; `RoutingError` when a predicate raises."""
    try:
        return node.resolve(state)
    except Exception as exc:
        raise RoutingError(
            f"an edge predicate of node {node.id!r} raised at step {step} of run {run_id!r}: "
            f"{error_text(exc)}; fix it and resume({run_id!r})",
            run_id=run_id,
            step=step,
            node_id=node.id,
        ) from exc


def wrong_route(route: Any, run_id: str, step: int, node_id: str) -> NodeReturnTypeError:
    return NodeReturnTypeError(
        f"node {node_id!r} returned a route of type {type(route).__name__} ({route!r:.80}) at step {step} "
        f"of run {run_id!r}; a route is a Next: goto({route!r:.40}), stop(), fan_out(...) or interrupt(...)",
        run_id=run_id,
        step=step,
        node_id=node_id,
    )


def branch_routed(route: Next, branch: int, run_id: str, step: int, node_id: str) -> NodeReturnTypeError:
    return NodeReturnTypeError(
        f"branch {branch} (node {node_id!r}) of the fan-out at step {step} of run {run_id!r} returned "
        f"the route {route!r:.80}; a branch's route cannot be followed (the fan-out's join runs next): "
        "return no route from branch nodes and route from the join",
        run_id=run_id,
        step=step,
        node_id=node_id,
    )


def max_steps_error(run_id: str, step: int, node_id: str, max_steps: int) -> MaxStepsExceeded:
    return MaxStepsExceeded(
        f"run {run_id!r} reached max_steps={max_steps} before stopping (next node {node_id!r}); "
        "raise Options.max_steps and resume to go on",
        run_id=run_id,
        step=step,
        node_id=node_id,
    )


def wrong_delta(eng: Runtime[Any], delta: Any, run_id: str, step: int, node_id: str) -> DeltaTypeError:
    return DeltaTypeError(
        f"node {node_id!r} returned a delta of type {type(delta).__name__}, expected {eng.type_name}",
        run_id=run_id,
        step=step,
        node_id=node_id,
    )


def dropped_delta_keys(
    eng: Runtime[Any], lost: list[Any], run_id: str, step: int, node_id: str
) -> DeltaTypeError:
    """The error for a delta whose keys the state type does not declare (its codec would drop them)."""
    return DeltaTypeError(
        f"node {node_id!r} returned a delta with keys {lost!r} at step {step} of run {run_id!r} that "
        f"{eng.type_name} does not declare (they would be dropped): declare them in the type or leave them out",
        run_id=run_id,
        step=step,
        node_id=node_id,
    )


def checked_delta(eng: Runtime[S], value: Any, run_id: str, step: int, node_id: str) -> S:
    if not eng.is_state(value):
        raise wrong_delta(eng, value, run_id, step, node_id)
    return cast(S, value)


def check_route(route: Next, nodes: Mapping[str, Any], run_id: str, step: int, node_id: str) -> None:
    k = route.kind
    if k is _GOTO or k is _WAIT:
        missing = [route.target] if route.target not in nodes else []
    elif k is _FAN_OUT:
        # A set first: map fan-outs name one node many times.
        named = {b.node for b in route.branches}
        if route.target in nodes and named <= nodes.keys():
            return
        missing = [n for n in (route.target, *(b.node for b in route.branches)) if n not in nodes]
    else:
        return
    if missing:
        raise UnknownNodeError(
            f"node {node_id!r} routed to unknown node {missing[0]!r} ({route!r})",
            run_id=run_id,
            step=step,
            node_id=node_id,
        )


def undeclared_keys(sent: Any, back: Any) -> list[Any]:
    """Keys of a dict `sent` that its decoded copy `back` lost (a TypedDict codec drops undeclared keys)."""
    if type(back) is dict and isinstance(sent, dict) and len(back) < len(sent):
        return [k for k in sent if k not in back]
    return []


def branch_delta(
    eng: Runtime[Any],
    d: Any,
    encode: Callable[[Any], bytes],
    decode: Callable[[bytes], Any],
    plan: ReadBackPlan | None,
    run_id: str,
    step: int,
    nid: str,
    i: int,
) -> tuple[bytes, Any]:
    """Fan-out branch `i`'s delta `d` as stored, and what reads back from those bytes.

    The one check of a branch's delta, whether the branch ran in the fan-out's process or as a
    job on another worker (`branches`): refused unless it is a delta of the state, every key
    survives the round trip, no NaN or infinity turned null, and its loose fields (`plan`, from
    `plan_for`) read back as themselves. `encode`/`decode` are the runtime's delta codec,
    passed in so a fan-out looks them up once.
    """
    if not eng.is_state(d):
        raise wrong_delta(eng, d, run_id, step, nid)
    try:
        delta_b = encode(d)
        back = decode(delta_b)
    except Exception as exc:
        raise unstorable(exc, d, run_id, step, nid, f"branch {i} delta") from exc
    if type(back) is dict:  # a TypedDict codec drops undeclared keys (models keep theirs)
        lost = undeclared_keys(d, back)
        if lost:
            raise dropped_delta_keys(eng, lost, run_id, step, nid)
    if eng.check_nulls and may_hide(delta_b):
        check_finite(d, run_id, step, nid, f"branch {i} delta")
    if plan is not None:
        check_read_back(plan, d, back, run_id, step, nid, f"branch {i} delta")
    return delta_b, back
