"""The step loop: run a node, merge, route, commit; fan-outs; retries and error routes.

Kept apart from `engine.py` (wiring and the public API) because it is the hot path: everything it
can look up is looked up once per run, and each step does one store write.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic import BaseModel
from pydantic_core import from_json, to_json

from graphengine.emit import Event, EventKind, safe_emit
from graphengine.store import BranchRecord, RunStatus, StepRecord, StoreError

from .context import Context, InterruptSignal
from .errors import (
    BudgetExceededError,
    DeltaTypeError,
    EncodeError,
    GraphError,
    MaxStepsExceeded,
    NodeError,
    NodeReturnTypeError,
    NodeTimeoutError,
    ReducerError,
    RoutingError,
    StepError,
    UnknownNodeError,
)
from .graph import CompiledGraph, CompiledNode
from .result import NodeResult
from .route_codec import RouteCodec
from .routing import Next, NextKind, goto, interrupt

if TYPE_CHECKING:
    from .engine import Engine

__all__ = [
    "FAN_OUT_NODE",
    "FirstHop",
    "decode_events",
    "drive",
    "encode_events",
    "isolated",
    "non_finite",
    "storable_text",
]

S = TypeVar("S")

FAN_OUT_NODE = "__fan_out__"
"""Node id of the step record that commits a fan-out's merged branches."""

_EMPTY_RESULT: NodeResult[Any] = NodeResult()
_NO_META: Mapping[str, Any] = MappingProxyType({})
_GOTO = NextKind.GOTO
_STOP = NextKind.STOP
_FAN_OUT = NextKind.FAN_OUT
_INTERRUPT = NextKind.INTERRUPT
_now = time.time
_log = logging.getLogger("graphengine")
_SAME: Any = object()
_FLUSH_MAX = 1000
# Every field given: the NamedTuple's generated __new__ (a Python frame per branch) is not needed,
# as long as the record has exactly the fields the fan-out fills in.
_branch_record: Any = tuple.__new__ if len(BranchRecord._fields) == 8 else (lambda cls, values: cls(*values))


@dataclass(frozen=True, slots=True)
class FirstHop:
    """How the first node of a `drive` call is treated (after a resume)."""

    resumed: bool = False
    """Hand `input` to the first node as the answer to its interrupt."""
    input: Any = None
    """The resume input."""
    approved: bool = False
    """Run the first node even if it is marked interrupt_before (the pause was answered)."""
    interrupted_at: int | None = None
    """When the first node continues its own interrupt: the step at which it interrupted."""
    error: str | None = None
    """The run's last routed error, kept on the run record until another replaces it."""
    error_node: str | None = None
    """The node of that error."""
    snap_size: int = 0
    """Encoded size of the newest snapshot (or initial state)."""
    since_bytes: int = 0
    """Delta bytes stored since that snapshot."""
    since_steps: int = 0
    """Steps stored since that snapshot."""
    versions: Any = None
    """The run's `VersionMap` when some of its stored values predate the engine's state version."""


_FRESH = FirstHop()


async def drive(
    eng: Engine[S],
    g: CompiledGraph[S],
    rc: RouteCodec[S],
    run_id: str,
    state: S,
    step: int,
    nxt: Next,
    first: FirstHop = _FRESH,
) -> S:
    """Drive a run from `nxt` until it stops, interrupts or fails; returns the state at that point."""
    store = eng.store
    codec = eng.codec
    encode_delta = codec.encode_delta
    decode_delta = eng._decode_delta
    reducer = eng.reducer
    emitter = eng.emitter
    is_state = eng._is_state
    nodes = g.nodes
    max_steps = eng.options.max_steps
    snap_every = eng.options.snapshot_every
    snap_ratio = eng.options.snapshot_ratio
    snap_size, since_bytes, since_steps = first.snap_size, first.since_bytes, first.since_steps
    budgets = eng.options.field_budgets
    sizes: dict[str, int] = {}
    resumed, resume_input, approved = first.resumed, first.input, first.approved
    interrupted_at = first.interrupted_at
    last_err = (first.error, first.error_node)
    node_id = ""
    t0 = 0.0
    state_b: bytes | None = None  # the snapshot the last step stored (a fan-out's branches start from it)
    try:
        while True:
            kind = nxt.kind
            if kind is _GOTO:
                node_id = nxt.target
                node = nodes.get(node_id)
                if node is None:
                    raise UnknownNodeError(
                        f"step {step} routed to unknown node {node_id!r}",
                        run_id=run_id,
                        step=step,
                        node_id=node_id,
                    )
                if node.interrupt_before and not approved:
                    await store.set_status(
                        run_id,
                        RunStatus.INTERRUPTED,
                        error=last_err[0],
                        error_node=last_err[1],
                        expect_step=step,
                    )
                    if emitter is not None:
                        eng._emit(
                            Event(
                                run_id,
                                step,
                                node_id,
                                "paused before node",
                                {"before": True},
                                kind=EventKind.INTERRUPT,
                            )
                        )
                    return state
                approved = False
                if step >= max_steps:
                    raise _max_steps(run_id, step, node_id, max_steps)
                step += 1
                if emitter is not None:
                    t0 = time.perf_counter()
                    eng._emit(Event(run_id, step, node_id, "", _NO_META, kind=EventKind.NODE_START))
                try:
                    res, attempt, ctx = await execute(
                        eng, node, run_id, step, state, resumed, resume_input, None, interrupted_at
                    )
                except NodeError as exc:
                    if node.error_route is None:
                        raise
                    state, nxt, msg, snap_size = await _route_error(
                        eng, g, rc, run_id, step, node_id, state, exc, exc.attempts
                    )
                    last_err = (msg, node_id)
                    since_bytes = since_steps = 0  # that step stored a snapshot
                    resumed = False
                    interrupted_at = None
                    continue
                calls_b = record_calls(ctx, resumed, run_id, step, node_id)
                resumed = False
                interrupted_at = None
                delta = res.delta
                snapshot = False
                if delta is None:
                    delta_b = None
                elif node.replaces_state:
                    state = _checked(eng, delta, run_id, step, node_id)
                    delta_b = None
                    snapshot = True
                else:
                    if not is_state(delta):
                        raise _wrong_delta(eng, delta, run_id, step, node_id)
                    # What is committed must read back: the delta is decoded from the very bytes
                    # written, and that decoded copy is what the state is built from (so the run
                    # shares nothing with the node's objects and sees what a resume would see).
                    try:
                        delta_b = encode_delta(delta)
                        back = decode_delta(delta_b)
                    except Exception as exc:
                        raise _unstorable(exc, delta, run_id, step, node_id, "delta") from exc
                    if b"null" in delta_b:  # JSON writes NaN and infinity as null
                        _check_finite(delta, run_id, step, node_id, "delta")
                    delta = back
                    try:
                        state = reducer(state, delta)
                    except Exception as exc:
                        raise _reducer_failed(exc, run_id, step, node_id) from exc
                if budgets and delta is not None:
                    _check_budgets(eng, budgets, sizes, delta, state, run_id, step, node_id)
                route = res.route
                if route is None:
                    route = _resolve(node, state, run_id, step)
                elif type(route) is not Next:
                    raise _wrong_route(route, run_id, step, node_id)
                elif route.kind is not _STOP:
                    _check_route(route, nodes, run_id, step, node_id)
                rk = route.kind
                if rk is _GOTO:
                    route_s = rc.encode(route)
                else:
                    # Fan-outs and interrupts carry values (branch inputs, payloads): read back
                    # what is stored, and go on with that (each branch input a fresh copy).
                    route, route_s = _route_checked(rc, route, run_id, step, node_id)
                events_b = encode_events(res.events, run_id, step, node_id) if res.events else None
                since_steps += 1
                if delta_b is not None:
                    since_bytes += len(delta_b)
                if (
                    snapshot
                    or rk is not _GOTO
                    or since_steps >= snap_every
                    or since_bytes > snap_ratio * snap_size
                ):
                    state_b, state = snapshot_of(eng, state, run_id, step, node_id)
                    snap_size = len(state_b)
                    since_bytes = since_steps = 0
                else:
                    state_b = None
                await store.save_step(
                    StepRecord(
                        run_id,
                        step,
                        node_id,
                        delta_b,
                        route_s,
                        state_b,
                        attempt,
                        None,
                        calls_b,
                        events_b,
                        _now(),
                    )
                )
                if emitter is not None:
                    for ev in res.events:
                        eng._emit(ev)
                    eng._emit(
                        Event(
                            run_id,
                            step,
                            node_id,
                            "",
                            {
                                "route": repr(route),
                                "attempt": attempt,
                                "ms": (time.perf_counter() - t0) * 1e3,
                            },
                            kind=EventKind.NODE_END,
                        )
                    )
                nxt = route
                if rk is _INTERRUPT:
                    await store.set_status(
                        run_id,
                        RunStatus.INTERRUPTED,
                        error=last_err[0],
                        error_node=last_err[1],
                        expect_step=step,
                    )
                    if emitter is not None:
                        eng._emit(
                            Event(
                                run_id,
                                step,
                                node_id,
                                "interrupted",
                                {"payload": route.payload},
                                kind=EventKind.INTERRUPT,
                            )
                        )
                    return state
            elif kind is _FAN_OUT:
                node_id = FAN_OUT_NODE
                if step >= max_steps:
                    raise _max_steps(run_id, step, node_id, max_steps)
                step += 1
                state, nxt, err, snap_size = await _fan_out(
                    eng, g, rc, run_id, step, state, nxt, first.versions, state_b
                )
                since_bytes = since_steps = 0  # that step stored a snapshot
                if err is not None:
                    last_err = err
            else:
                break
    except GraphError as exc:
        await eng._fail(run_id, step, node_id, exc)
        raise
    except (StoreError, OSError):
        # The store itself (or the machine) failed, or another worker owns the run: the status is
        # not ours to change, and the store may not take the write anyway. As after a crash,
        # nothing of the step was committed and the run stays resumable.
        raise
    except Exception as exc:
        # Whatever else escaped the step: typed, naming where, and the run marked failed.
        wrapped = StepError(
            f"step {step} (node {node_id!r}) of run {run_id!r} failed: {type(exc).__name__}: {exc}",
            run_id=run_id,
            step=step,
            node_id=node_id,
        )
        await eng._fail(run_id, step, node_id, wrapped)
        raise wrapped from exc
    except asyncio.CancelledError:
        await asyncio.shield(store.set_status(run_id, RunStatus.CANCELLED))
        if emitter is not None:  # so emitters can end what they opened (spans, streams)
            eng._emit(Event(run_id, step, "", "cancelled", {"status": "cancelled"}, kind=EventKind.RUN_END))
        raise
    # Conditioned on this driver's last step: if another process took the run over and went
    # further, this stale driver must not mark it done.
    await store.set_status(
        run_id, RunStatus.DONE, error=last_err[0], error_node=last_err[1], expect_step=step
    )
    if emitter is not None:
        eng._emit(Event(run_id, step, "", "run finished", {"steps": step}, kind=EventKind.RUN_END))
    return state


def _check_budgets(
    eng: Engine[Any],
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
            if eng.emitter is not None:
                eng._emit(
                    Event(
                        run_id,
                        step,
                        node_id,
                        msg,
                        {"field": name, "size": size, "budget": budget},
                        kind=EventKind.WARNING,
                    )
                )


def record_calls(
    ctx: Context,
    resumed: bool,
    run_id: str = "",
    step: int = 0,
    node_id: str = "",
    events: Sequence[Event] = (),
) -> bytes | None:
    """The JSON a step stores of its outside inputs: the resume input and the tool calls.

    A fan-out branch's events ride along (`events`), as branch records have no field of their own.
    Raises `EncodeError` when the document cannot be written as JSON that reads back.
    """
    if not resumed and not ctx.calls and not events:
        return None
    doc: dict[str, Any] = {}
    if resumed:
        doc["input"] = ctx.resume_input
    if ctx.calls:
        doc["calls"] = ctx.calls
    if events:
        doc["events"] = [_event_doc(ev, run_id, step, node_id) for ev in events]
    return _json_checked(doc, run_id, step, node_id, "calls")


def storable_text(text: str) -> str:
    """`text` as every store can hold it: lone surrogates escaped, NUL (refused by PostgreSQL) escaped."""
    if "\x00" in text:
        text = text.replace("\x00", "\\x00")
    try:
        text.encode()
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode()
    return text


def _json_checked(doc: Any, run_id: str, step: int, node_id: str, what: str) -> bytes:
    """`doc` as JSON (anything unknown as its str), read back once so that nothing unreadable is stored."""
    try:
        data = to_json(doc, fallback=str)
        from_json(data)
    except Exception as exc:
        raise _unstorable(exc, doc, run_id, step, node_id, what) from exc
    return data


def _event_doc(ev: Any, run_id: str, step: int, node_id: str) -> dict[str, Any]:
    if not isinstance(ev, Event):
        raise NodeReturnTypeError(
            f"node {node_id!r} returned an event of type {type(ev).__name__} at step {step} of run "
            f"{run_id!r}; NodeResult.events holds emit.Event values",
            run_id=run_id,
            step=step,
            node_id=node_id,
        )
    return ev.to_dict()


def encode_events(events: Sequence[Event], run_id: str, step: int, node_id: str) -> bytes | None:
    """The JSON a step stores of the events its node returned (`NodeResult.events`), or None."""
    if isinstance(events, (str, bytes)) or not isinstance(events, Sequence):
        raise NodeReturnTypeError(
            f"node {node_id!r} returned events of type {type(events).__name__} at step {step} of run "
            f"{run_id!r}; NodeResult.events is a sequence of emit.Event",
            run_id=run_id,
            step=step,
            node_id=node_id,
        )
    if not events:
        return None
    return _json_checked(
        [_event_doc(ev, run_id, step, node_id) for ev in events], run_id, step, node_id, "events"
    )


def decode_events(data: bytes | None) -> tuple[Event, ...]:
    """The events `encode_events` stored (meta values as JSON gave them back); `ValueError` if malformed."""
    if not data:
        return ()
    docs = json.loads(data)
    if not isinstance(docs, list):
        raise ValueError("stored events are not a JSON list")
    out = []
    for d in docs:
        if not isinstance(d, dict):
            raise ValueError(f"stored event is not a JSON object: {d!r:.80}")
        out.append(
            Event(
                str(d.get("run_id", "")),
                int(d.get("step", 0)),
                str(d.get("node_id", "")),
                str(d.get("msg", "")),
                dict(d.get("meta") or {}),
                kind=str(d.get("kind", EventKind.CUSTOM)),
                ts=float(d.get("ts", 0.0)),
            )
        )
    return tuple(out)


def _unstorable(
    exc: BaseException, value: Any, run_id: str, step: int, node_id: str, what: str
) -> EncodeError:
    """The `EncodeError` for a value whose encoding failed or did not read back."""
    why = str(exc).splitlines()
    return EncodeError(
        f"node {node_id!r} at step {step} of run {run_id!r}: its {what} cannot be stored so that it "
        f"reads back ({type(exc).__name__}: {' '.join(why[:3])[:300]}); value of type {type(value).__name__}",
        run_id=run_id,
        step=step,
        node_id=node_id,
        field=what,
    )


def non_finite(value: Any, path: str, depth: int = 0) -> str | None:
    """The path of the first NaN or infinity inside `value`, or None."""
    if type(value) is float:
        return None if math.isfinite(value) else path
    if depth > 300 or isinstance(value, (str, bytes, int, bool)) or value is None:
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    items: Any
    if isinstance(value, BaseModel):
        items = value.__dict__.items()
        extra = value.__pydantic_extra__
        if extra:
            items = [*items, *extra.items()]
    elif isinstance(value, Mapping):
        items = value.items()
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = enumerate(value)
    elif hasattr(value, "__dataclass_fields__"):
        items = ((k, getattr(value, k, None)) for k in value.__dataclass_fields__)
    else:
        return None
    for k, v in items:
        found = non_finite(v, f"{path}.{k}" if path else str(k), depth + 1)
        if found is not None:
            return found
    return None


def _check_finite(value: Any, run_id: str, step: int, node_id: str, what: str) -> None:
    """Raise `EncodeError` if `value` holds NaN or infinity, which JSON would store as null."""
    where = non_finite(value, "")
    if where is not None:
        raise EncodeError(
            f"node {node_id!r} at step {step} of run {run_id!r}: its {what} holds a non-finite float at "
            f"{where or 'the top'}; JSON has no NaN or infinity (it would be stored as null and read back "
            "as something else): store it as None or a string",
            run_id=run_id,
            step=step,
            node_id=node_id,
            field=what,
        )


def snapshot_of(eng: Engine[S], state: S, run_id: str, step: int, node_id: str) -> tuple[bytes, S]:
    """Encode a state to store, and the state decoded from those very bytes (what a resume sees).

    Raises `EncodeError` when they do not read back.
    """
    try:
        data = eng.codec.encode(state)
        back = eng.codec.decode(data)
    except Exception as exc:
        raise _unstorable(exc, state, run_id, step, node_id, "state") from exc
    if b"null" in data:
        _check_finite(state, run_id, step, node_id, "state")
    return data, back


def isolated(eng: Engine[S], state: S, data: bytes | None) -> S:
    """A copy of `state` that shares no object with it (decoded from its encoding `data`, if given)."""
    if data is None:
        data = eng.codec.encode(state)
    return eng.codec.decode(data)


def _reducer_failed(exc: BaseException, run_id: str, step: int, node_id: str) -> ReducerError:
    return ReducerError(
        f"the reducer raised merging the delta of node {node_id!r} at step {step} of run {run_id!r}: "
        f"{type(exc).__name__}: {exc}; fix it and resume({run_id!r})",
        run_id=run_id,
        step=step,
        node_id=node_id,
    )


def _resolve(node: CompiledNode[Any], state: Any, run_id: str, step: int) -> Next:
    """The static edges' hop for `state`; `RoutingError` when a predicate raises."""
    try:
        return node.resolve(state)
    except Exception as exc:
        raise RoutingError(
            f"an edge predicate of node {node.id!r} raised at step {step} of run {run_id!r}: "
            f"{type(exc).__name__}: {exc}; fix it and resume({run_id!r})",
            run_id=run_id,
            step=step,
            node_id=node.id,
        ) from exc


def _wrong_route(route: Any, run_id: str, step: int, node_id: str) -> NodeReturnTypeError:
    return NodeReturnTypeError(
        f"node {node_id!r} returned a route of type {type(route).__name__} ({route!r:.80}) at step {step} "
        f"of run {run_id!r}; a route is a Next: goto({route!r:.40}), stop(), fan_out(...) or interrupt(...)",
        run_id=run_id,
        step=step,
        node_id=node_id,
    )


ROUTE_MAX_DEPTH = 31
"""Deepest nesting of a stored route's JSON (payload, branch inputs): MariaDB's JSON_VALID limit,
so that a route every backend stores is refused the same way on all of them."""


def _json_depth(doc: Any, limit: int) -> int:
    """Nesting depth of parsed JSON, counting stops once past `limit`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = v.values()
        elif not isinstance(v, list):
            continue
        if d > deepest:
            deepest = d
            if d > limit:
                break
        stack.extend((c, d + 1) for c in v if isinstance(c, (dict, list)))
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _route_checked(rc: RouteCodec[S], route: Next, run_id: str, step: int, node_id: str) -> tuple[Next, str]:
    """Encode a route that carries values, and decode it back: (the decoded route, its JSON text)."""
    try:
        text = rc.encode(route)
        text.encode()  # lone surrogates cannot be stored as UTF-8
        doc = json.loads(text, parse_constant=_no_constant)  # NaN/Infinity are not JSON (stores refuse them)
        if text.count("[") + text.count("{") > ROUTE_MAX_DEPTH:
            depth = _json_depth(doc, ROUTE_MAX_DEPTH)
            if depth > ROUTE_MAX_DEPTH:
                raise ValueError(f"the route's JSON nests more than {ROUTE_MAX_DEPTH} levels")
        back = rc.decode(text)
    except Exception as exc:
        raise _unstorable(exc, route, run_id, step, node_id, "route") from exc
    if "null" in text:
        _check_finite([route.payload, *(b.input for b in route.branches)], run_id, step, node_id, "route")
    return back, text


def _max_steps(run_id: str, step: int, node_id: str, max_steps: int) -> MaxStepsExceeded:
    return MaxStepsExceeded(
        f"run {run_id!r} reached max_steps={max_steps} before stopping (next node {node_id!r}); "
        "raise Options.max_steps and resume to go on",
        run_id=run_id,
        step=step,
        node_id=node_id,
    )


def _wrong_delta(eng: Engine[Any], delta: Any, run_id: str, step: int, node_id: str) -> DeltaTypeError:
    return DeltaTypeError(
        f"node {node_id!r} returned a delta of type {type(delta).__name__}, expected {eng._type_name}",
        run_id=run_id,
        step=step,
        node_id=node_id,
    )


def _checked(eng: Engine[S], value: Any, run_id: str, step: int, node_id: str) -> S:
    if not eng._is_state(value):
        raise _wrong_delta(eng, value, run_id, step, node_id)
    return cast(S, value)


def _check_route(route: Next, nodes: Mapping[str, Any], run_id: str, step: int, node_id: str) -> None:
    k = route.kind
    if k is _GOTO:
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


async def execute(
    eng: Engine[S],
    node: CompiledNode[S],
    run_id: str,
    step: int,
    state: S,
    resumed: bool,
    resume_input: Any,
    branch: int | None,
    interrupted_at: int | None = None,
    recorded: Any = None,
    emitter: Any = _SAME,
    attempt: int = 1,
) -> tuple[NodeResult[S], int, Context]:
    """Run one node with its retries and timeout; returns its result and the attempts it took.

    Raises `NodeError` (or `NodeTimeoutError`) after the last failed attempt, at once for an
    exception outside `retry_on`; engine errors (a bad return value) are not retried.
    `attempt` > 1 continues the retries of a caller that made the earlier attempts itself.
    """
    call = node.call
    if emitter is _SAME:
        emitter = eng.emitter
    while True:
        ctx = Context(
            run_id, step, node.id, attempt, emitter, resume_input, resumed, branch, interrupted_at, recorded
        )
        try:
            if node.timeout is None:
                res = call(ctx, state)
                if node.is_async:
                    res = await res
            else:
                async with asyncio.timeout(node.timeout):
                    res = call(ctx, state)
                    if node.is_async:
                        res = await res
            return _outcome(node, res, run_id, step), attempt, ctx
        except InterruptSignal as sig:
            return NodeResult(route=interrupt(sig.payload)), attempt, ctx
        except GraphError:
            raise
        except Exception as exc:
            delay = _retry_delay(eng, node, exc, attempt, run_id, step, branch, emitter)
        if delay > 0:
            await asyncio.sleep(delay)
        attempt += 1


def _outcome(node: CompiledNode[S], res: Any, run_id: str, step: int) -> NodeResult[S]:
    """What a node returned, checked: its `NodeResult`; raises its `err`, or for a wrong type."""
    if res is None:
        return _EMPTY_RESULT
    if type(res) is not NodeResult and not isinstance(res, NodeResult):
        if asyncio.iscoroutine(res):
            res.close()
        raise NodeReturnTypeError(
            f"node {node.id!r} returned {type(res).__name__}, expected NodeResult",
            run_id=run_id,
            step=step,
            node_id=node.id,
        )
    if res.err is not None:
        raise res.err
    # A string type: no typing subscription per step.
    return cast("NodeResult[S]", res)


def _retry_delay(
    eng: Engine[Any],
    node: CompiledNode[Any],
    exc: Exception,
    attempt: int,
    run_id: str,
    step: int,
    branch: int | None,
    emitter: Any,
) -> float:
    """Attempt `attempt` raised `exc`: the delay before the next one, or the `NodeError` raised."""
    retryable = isinstance(exc, node.retry_on)
    if attempt > node.retries or not retryable:
        timed_out = isinstance(exc, TimeoutError)
        kind = NodeTimeoutError if timed_out else NodeError
        what = f"timed out after {node.timeout}s" if timed_out else f"raised {exc!r}"
        where = f"branch {branch} (node {node.id!r})" if branch is not None else f"node {node.id!r}"
        why = "" if retryable else ", not retryable"
        raise kind(
            f"{where} {what} at step {step} of run {run_id!r} "
            f"(attempt {attempt} of {node.retries + 1}{why}); fix it and resume({run_id!r})",
            run_id=run_id,
            step=step,
            node_id=node.id,
            attempts=attempt,
        ) from exc
    delay = backoff(eng, node, run_id, step, attempt, branch)
    if emitter is not None:
        safe_emit(
            emitter,
            Event(
                run_id,
                step,
                node.id,
                f"retrying after {exc!r}",
                {"attempt": attempt, "delay": delay, "error": repr(exc), "branch": branch},
                kind=EventKind.RETRY,
            ),
        )
    return delay


def backoff(
    eng: Engine[Any], node: CompiledNode[Any], run_id: str, step: int, attempt: int, branch: int | None = None
) -> float:
    """Delay before retry `attempt + 1`: exponential, capped, with jitter seeded by the run's coordinates."""
    if node.backoff <= 0:
        return 0.0
    base = min(node.backoff * 2.0 ** (attempt - 1), eng.options.max_backoff)
    # Seeded from stable strings (not hash(), which is salted per process) so resumed and
    # replayed runs wait the same way.
    seed = hashlib.sha256(f"{eng.options.seed}:{run_id}:{step}:{branch}:{attempt}".encode()).digest()
    return base * (0.5 + 0.5 * random.Random(seed).random())


async def _route_error(
    eng: Engine[S],
    g: CompiledGraph[S],
    rc: RouteCodec[S],
    run_id: str,
    step: int,
    node_id: str,
    state: S,
    exc: NodeError,
    attempts: int,
) -> tuple[S, Next, str, int]:
    """Commit a failed step that goes to its error route; the error is recorded on the step and the run.

    Returns the new state, the route, the error message and the size of the snapshot it stored.
    """
    handler = g.nodes[node_id].error_route
    assert handler is not None
    cause = exc.__cause__ if exc.__cause__ is not None else exc
    msg = storable_text(f"{type(cause).__name__}: {cause}")
    delta_b = None
    if eng._error_delta is not None:
        delta = eng._error_delta(msg)
        try:
            delta_b = eng.codec.encode_delta(delta)
            delta = eng._decode_delta(delta_b)
        except Exception as err:
            raise _unstorable(err, delta, run_id, step, node_id, "error delta") from err
        try:
            state = eng.reducer(state, delta)
        except Exception as err:
            raise _reducer_failed(err, run_id, step, node_id) from err
    route = goto(handler)
    state_b, state = snapshot_of(eng, state, run_id, step, node_id)
    # The run record first: if the process dies before the step commits, the step is redone
    # (deterministically failing again), so the record never lags behind a committed error step.
    await eng.store.set_status(run_id, RunStatus.RUNNING, error=msg, error_node=node_id)
    await eng.store.save_step(
        StepRecord(
            run_id,
            step,
            node_id,
            delta_b,
            rc.encode(route),
            state_b,
            attempts,
            msg,
            None,
            None,
            _now(),
        )
    )
    if eng.emitter is not None:
        eng._emit(
            Event(
                run_id,
                step,
                node_id,
                msg,
                {"error": type(cause).__name__, "handler": handler},
                kind=EventKind.ERROR,
            )
        )
    return state, route, msg, len(state_b)


async def _fan_out(
    eng: Engine[S],
    g: CompiledGraph[S],
    rc: RouteCodec[S],
    run_id: str,
    step: int,
    state: S,
    nxt: Next,
    versions: Any = None,
    state_b: bytes | None = None,
) -> tuple[S, Next, tuple[str, str] | None, int]:
    """Run a fan-out's branches concurrently, persisting each result as it lands; merge in order; commit.

    Returns the state, the next hop, the routed error (if a branch failed into an error route)
    and the size of the snapshot the commit stored.

    Branches start eagerly, in declared order, in this task: one that returns without awaiting
    costs no task at all, and its record waits in the group-commit buffer. The first branch that
    awaits lets the loop turn, which starts up to `max_concurrency - 1` helper workers and the
    writer of what landed so far. Unlike `asyncio.gather`, branches do not each get a copy of the
    context: those run here see and may change the run's contextvars, as a node outside a fan-out
    does; those a helper runs share that helper's copy. A branch with a timeout runs through
    `execute` (its timeout scope); others make their first attempt inline and go through
    `execute` only for retries. Cancellation cancels the helpers and still writes the results
    that landed, so resume re-runs only the rest.

    Every branch gets a state of its own: a branch without an input a copy decoded from the
    snapshot `state_b` (the state before the fan-out, encoded), a map branch the input decoded
    from the stored route. Each delta is decoded back from the bytes written, and those copies
    are merged, so no branch shares an object with another or with the run's state.
    """
    store = eng.store
    nodes = g.nodes
    emitter = eng.emitter
    branches = nxt.branches
    k = len(branches)
    deltas: list[Any] = [None] * k
    done: set[int] = set()
    # Events the branches returned, by branch: stored with each branch's tool calls (a branch
    # record has no field of its own for them), and on the fan-out's step record in branch order.
    bevents: dict[int, list[Any]] = {}
    for rec in await store.load_branches(run_id, step):
        done.add(rec.branch)
        if rec.calls is not None and b'"events"' in rec.calls:
            doc = json.loads(rec.calls)
            if isinstance(doc, dict) and doc.get("events"):
                bevents[rec.branch] = doc["events"]
        if rec.delta is not None:
            deltas[rec.branch] = eng._decode(rec.delta, run_id, step, f"branch {rec.branch} delta", versions)
    pending = iter([i for i in range(k) if i not in done])
    is_state = eng._is_state
    encode_delta = eng.codec.encode_delta
    decode_delta = eng._decode_delta
    decode = eng.codec.decode
    if state_b is None and len(done) < k and any(b.input is None for b in branches):
        state_b = isolated_bytes(eng, state, run_id, step)
    loop = asyncio.get_running_loop()
    buf: list[BranchRecord] = []
    flusher: asyncio.Task[None] | None = None
    flush_soon: asyncio.Handle | None = None
    failure: list[tuple[int, BaseException]] = []

    async def flush() -> None:
        # Group commit: whatever landed while the previous write was in flight goes in one
        # transaction (bounded, as stores cap the rows of one statement).
        while buf:
            batch = buf[:_FLUSH_MAX]
            del buf[:_FLUSH_MAX]
            await store.save_branches(batch)

    def start_flush() -> None:
        # Runs only once the loop turns, that is once a branch awaited: landed results are then
        # written while the others run. Branches that never await all land before this could
        # run, and are written after them in one batch without a task or a loop turn.
        nonlocal flusher, flush_soon
        flush_soon = None
        if flusher is not None and not flusher.cancelled() and flusher.exception() is not None:
            return  # keep the failed write: `drain` raises its error, and resume re-runs what it lost
        flusher = loop.create_task(flush())

    async def worker() -> None:
        nonlocal flush_soon
        for i in pending:
            if failure:
                return
            br = branches[i]
            nid = br.node
            node = nodes[nid]
            bstate = br.input
            if bstate is None:
                bstate = decode(state_b)  # type: ignore[arg-type]
            try:
                if emitter is not None:
                    eng._emit(Event(run_id, step, nid, "", {"branch": i}, kind=EventKind.NODE_START))
                if node.timeout is None:
                    # The first attempt inline, as `execute` would make it: no coroutine or result
                    # tuple of its own per branch. Retries continue in `execute`.
                    attempt = 1
                    bctx = Context(run_id, step, nid, 1, emitter, None, False, i, None, None)
                    try:
                        res = node.call(bctx, bstate)
                        if node.is_async:
                            res = await res
                        if type(res) is not NodeResult or res.err is not None:
                            res = _outcome(node, res, run_id, step)
                    except InterruptSignal as sig:
                        res = NodeResult(route=interrupt(sig.payload))
                    except GraphError:
                        raise
                    except Exception as exc:
                        delay = _retry_delay(eng, node, exc, 1, run_id, step, i, emitter)
                        if delay > 0:
                            await asyncio.sleep(delay)
                        res, attempt, bctx = await execute(
                            eng, node, run_id, step, bstate, False, None, i, attempt=2
                        )
                else:
                    res, attempt, bctx = await execute(eng, node, run_id, step, bstate, False, None, i)
                route = res.route
                if route is not None and type(route) is not Next:
                    raise _wrong_route(route, run_id, step, nid)
                if route is not None and route.kind is _INTERRUPT:
                    raise GraphError(
                        f"branch {i} (node {nid!r}) of the fan-out at step {step} interrupted; "
                        "interrupts are not supported inside fan-out branches (use a subgraph or interrupt at the join)",
                        run_id=run_id,
                        step=step,
                        node_id=nid,
                    )
                d = res.delta
                if d is not None:
                    if not is_state(d):
                        raise _wrong_delta(eng, d, run_id, step, nid)
                    what = f"branch {i} delta"
                    try:
                        delta_b: bytes | None = encode_delta(d)
                        deltas[i] = decode_delta(delta_b)  # type: ignore[arg-type]
                    except Exception as exc:
                        raise _unstorable(exc, d, run_id, step, nid, what) from exc
                    if b"null" in delta_b:  # type: ignore[operator]
                        _check_finite(d, run_id, step, nid, what)
                else:
                    delta_b = None
                evs = res.events
                calls_b = (
                    None
                    if bctx.calls is None and not evs
                    else record_calls(bctx, False, run_id, step, nid, evs)
                )
                if evs:
                    bevents[i] = [_event_doc(ev, run_id, step, nid) for ev in evs]
            except Exception as exc:
                failure.append((i, exc))
                if emitter is not None:  # each failed branch reports itself (the join reports the first)
                    eng._emit(
                        Event(
                            run_id,
                            step,
                            nid,
                            str(exc),
                            {"branch": i, "error": type(exc.__cause__ or exc).__name__},
                            kind=EventKind.ERROR,
                        )
                    )
                return
            buf.append(
                _branch_record(BranchRecord, (run_id, step, i, nid, delta_b, attempt, calls_b, _now()))
            )
            if flush_soon is None and (flusher is None or flusher.done()):
                flush_soon = loop.call_soon(start_flush)
            if emitter is not None:
                for ev in evs:
                    eng._emit(ev)
                eng._emit(
                    Event(run_id, step, nid, "", {"branch": i, "attempt": attempt}, kind=EventKind.NODE_END)
                )

    async def drain() -> None:
        nonlocal flush_soon
        if flush_soon is not None:  # nothing awaited since the last landing: write it here
            flush_soon.cancel()
            flush_soon = None
        if flusher is not None:
            await flusher
        if buf:
            await flush()

    workers = min(eng.options.max_concurrency, k - len(done))
    helpers: list[asyncio.Future[None]] = []
    handle: asyncio.Handle | None = None

    def spawn() -> None:
        helpers.extend(asyncio.ensure_future(worker()) for _ in range(workers - 1))

    try:
        if workers == 1:
            await worker()
        elif workers > 1:
            # One worker runs in this task; the others are started by a callback on the loop's
            # next turn, that is only once this worker has yielded (a branch awaited). Branches
            # that never await then all run here, in order, without creating workers - 1 tasks
            # that would find nothing left to do; branches that do await get the full
            # `max_concurrency` one tick later.
            handle = loop.call_soon(spawn)
            await worker()
            handle.cancel()
            if helpers:
                await asyncio.gather(*helpers)
    except BaseException:  # cancelled: take the helpers down with us, as gather would
        if handle is not None:
            handle.cancel()
        for h in helpers:
            h.cancel()
        if helpers:
            await asyncio.gather(*helpers, return_exceptions=True)
        # Keep what landed, so that resume re-runs only the branches that had not finished.
        try:
            await asyncio.shield(drain())
        except Exception as lost:
            _log.warning(
                "run %r: landed branches of step %d not stored on cancellation: %r", run_id, step, lost
            )
        raise
    await drain()

    join = goto(nxt.target)
    if failure:
        i, exc = min(failure, key=lambda f: f[0])
        if isinstance(exc, GraphError) and not isinstance(exc, NodeError):
            raise exc
        bnode = nodes[branches[i].node]
        err = NodeError(
            f"fan-out at step {step} of run {run_id!r} failed: {exc}",
            run_id=run_id,
            step=step,
            node_id=bnode.id,
            attempts=getattr(exc, "attempts", 1),
            branch=i,
        )
        err.__cause__ = exc.__cause__ if exc.__cause__ is not None else exc
        if bnode.error_route is None:
            raise err
        state, route, msg, snap = await _route_error(
            eng, g, rc, run_id, step, bnode.id, state, err, err.attempts
        )
        return state, route, (msg, bnode.id), snap

    reducer = eng.reducer
    present = [d for d in deltas if d is not None]
    many = getattr(reducer, "many", None)
    try:
        if many is not None and present:
            state = many(state, present)  # one copy for all branches (default model reducer)
        else:
            for d in present:
                state = reducer(state, d)
    except Exception as exc:
        raise _reducer_failed(exc, run_id, step, FAN_OUT_NODE) from exc
    state_b, state = snapshot_of(eng, state, run_id, step, FAN_OUT_NODE)
    events_b = None
    if bevents:
        events_b = b"[" + b",".join(to_json(e) for i in sorted(bevents) for e in bevents[i]) + b"]"
    await store.save_step(
        StepRecord(
            run_id,
            step,
            FAN_OUT_NODE,
            None,
            rc.encode(join),
            state_b,
            1,
            None,
            None,
            events_b,
            _now(),
        )
    )
    return state, join, None, len(state_b)


def isolated_bytes(eng: Engine[Any], state: Any, run_id: str, step: int) -> bytes:
    """The encoded state a fan-out's branches start from (each decodes its own copy)."""
    try:
        return eng.codec.encode(state)
    except Exception as exc:
        raise _unstorable(exc, state, run_id, step, FAN_OUT_NODE, "state") from exc
