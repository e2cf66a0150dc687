"""The step loop: run a node, merge, route, commit.

Kept apart from `engine.py` (wiring and the public API) because it is the hot path: everything it
can look up is looked up once per run, and each step does one store write. A node's attempts are
in `_attempts`, fan-out steps in `_fanout`, what a step stores in `_encoding`, the checks of what
nodes return in `_checks`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, NoReturn, TypeVar

from graphengine.emit import Event, EventKind
from graphengine.store import RunRecord, RunStatus, StepRecord, Store, StoreError, ValueRefusedError

from ._attempts import execute, route_error
from ._checks import (
    check_budgets,
    check_route,
    checked_delta,
    dropped_delta_keys,
    max_steps_error,
    reducer_failed,
    static_route,
    undeclared_keys,
    wrong_delta,
    wrong_route,
)
from ._encoding import (
    FAN_OUT_NODE,
    check_finite,
    check_read_back,
    check_size,
    encode_events,
    error_text,
    may_hide,
    plan_for,
    record_calls,
    route_checked,
    snapshot_of,
    unstorable,
)
from ._fanout import fan_out_step
from ._runtime import settled
from ._waits import Waiter, enter_wait
from .branches import hand_out, hands_out
from .context import WAIT_SCOPE, WaitScope
from .errors import (
    EncodeError,
    GraphError,
    NodeError,
    StepError,
    UnknownNodeError,
)
from .graph import CompiledGraph, CompiledNode
from .route_codec import RouteCodec
from .routing import Next, NextKind

if TYPE_CHECKING:
    from ._readback import ReadBackPlan
    from ._runtime import Runtime
    from .context import Context
    from .result import NodeResult

__all__ = ["FAN_OUT_NODE", "FirstHop", "drive"]

S = TypeVar("S")
T = TypeVar("T")


_NO_META: Mapping[str, Any] = MappingProxyType({})
_GOTO = NextKind.GOTO
_STOP = NextKind.STOP
_FAN_OUT = NextKind.FAN_OUT
_INTERRUPT = NextKind.INTERRUPT
_WAIT = NextKind.WAIT
_now = time.time
# Every field given: the NamedTuple's generated __new__ (a Python frame per step) is not needed,
# as long as the record has exactly the fields a node step fills in.
_record_of: Any = tuple.__new__ if len(StepRecord._fields) == 11 else (lambda cls, values: cls(*values))


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
    turn_start: int = 0
    """The step that began the current turn (0: the run's first); `max_steps` counts from it."""
    prior: Any = None
    """When the first node continues its own wait: the calls its waiting step recorded."""


_FRESH = FirstHop()


async def create_settled(store: Store, rec: RunRecord) -> None:
    """`store.create_run(rec)`; cancelled meanwhile, the run, if it was stored, is marked cancelled.

    Raises what `create_run` raises, or the cancel once the run's row says `cancelled`.
    """
    create = asyncio.ensure_future(store.create_run(rec))
    try:
        await settled(create)
    except asyncio.CancelledError:
        if create.done() and not create.cancelled() and create.exception() is None:
            await settled(store.set_status(rec.run_id, RunStatus.CANCELLED))
        raise


async def abandoned(store: Store, run_id: str, exc: BaseException) -> None:
    """Mark a stored run that will not be driven: cancelled by a cancel, else failed with `exc`.

    A store that failed (`StoreError`, `OSError`) changes nothing: as after a crash the run stays
    `running` with no step, and `resume` drives it once the store answers again.
    """
    if isinstance(exc, (StoreError, OSError)):
        return
    if isinstance(exc, asyncio.CancelledError):
        await settled(store.set_status(run_id, RunStatus.CANCELLED))
    else:
        msg = error_text(exc)
        await settled(store.set_status(run_id, RunStatus.FAILED, error=msg))


@dataclass(slots=True)
class _Run(Generic[S]):
    """One `drive` call: what it looks up once, and the counters its steps move forward.

    The phases of a step take this object instead of a dozen positional values; the per-run
    lookups live here so that no step repeats them (an attribute read on a slots object is what
    a step pays for them).
    """

    eng: Runtime[S]
    g: CompiledGraph[S]
    rc: RouteCodec[S]
    run_id: str
    store: Store
    emitter: Any
    nodes: Mapping[str, CompiledNode[S]]
    encode_delta: Callable[[Any], bytes]
    decode_delta: Callable[[bytes], Any]
    check_nulls: bool
    readback: ReadBackPlan | None
    """The state type's read-back comparisons (None: every field's type fixes what JSON gives back)."""
    reducer: Callable[[S, Any], S]
    is_state: Callable[[Any], bool]
    budgets: Any
    sizes: dict[str, int]
    limit: int | None
    """The store's `max_value_bytes` (None: it declares no limit)."""
    max_steps: int
    step_cap: int
    """The step past which `max_steps` stops this turn (a limit per turn, as LangGraph's per invoke)."""
    snap_every: int
    snap_ratio: float
    versions: Any
    """`FirstHop.versions`: how the run's older stored values decode."""
    # What the steps move forward.
    state: S
    step: int
    node_id: str
    """The node of the step under way (`FAN_OUT_NODE` for a fan-out): what a failure names."""
    snap_size: int
    since_bytes: int
    since_steps: int
    resumed: bool
    resume_input: Any
    approved: bool
    interrupted_at: int | None
    last_err: tuple[str | None, str | None]
    """The last routed error and its node, kept on the run record until another replaces it."""
    state_b: bytes | None
    """The snapshot the last node step stored (a fan-out's branches start from it); None: none."""
    t0: float
    """When the node under way started (`perf_counter`), for its end event's duration."""

    @classmethod
    def of(
        cls,
        eng: Runtime[S],
        g: CompiledGraph[S],
        rc: RouteCodec[S],
        run_id: str,
        state: S,
        step: int,
        first: FirstHop,
    ) -> _Run[S]:
        """Hoist what a run looks up: everything here is read once per `drive` call."""
        opts = eng.options
        store = eng.store
        return cls(
            eng,
            g,
            rc,
            run_id,
            store,
            eng.emitter,
            g.nodes,
            eng.codec.encode_delta,
            eng.decode_delta,
            eng.check_nulls,
            plan_for(eng.state_type),
            eng.reducer,
            eng.is_state,
            opts.field_budgets,
            {},
            getattr(store, "max_value_bytes", None),
            opts.max_steps,
            first.turn_start + opts.max_steps,
            opts.snapshot_every,
            opts.snapshot_ratio,
            first.versions,
            state,
            step,
            "",
            first.snap_size,
            first.since_bytes,
            first.since_steps,
            first.resumed,
            first.input,
            first.approved,
            first.interrupted_at,
            (first.error, first.error_node),
            None,
            0.0,
        )


async def drive(
    eng: Runtime[S],
    g: CompiledGraph[S],
    rc: RouteCodec[S],
    run_id: str,
    state: S,
    step: int,
    nxt: Next,
    first: FirstHop = _FRESH,
) -> S:
    """Drive a run from `nxt` until it stops, interrupts, waits or fails; returns the state at that point.

    Its nodes' waits (`ctx.sleep`, `ctx.wait_for`) find the run's clock and signals, and for a
    first node continuing its own wait the calls its waiting step recorded, in a context variable.
    """
    woken = step + 1 if first.prior is not None else 0
    token = WAIT_SCOPE.set(WaitScope(Waiter(eng, run_id), woken, first.prior, run_id))
    try:
        return await _drive(eng, g, rc, run_id, state, step, nxt, first)
    finally:
        WAIT_SCOPE.reset(token)


async def _drive(
    eng: Runtime[S],
    g: CompiledGraph[S],
    rc: RouteCodec[S],
    run_id: str,
    state: S,
    step: int,
    nxt: Next,
    first: FirstHop,
) -> S:
    """The step loop of `drive`.

    A node step's phases: enter the node (`_enter`: resolve it, or pause before it), run it
    (`execute`; a routed error goes to `_error_routed`), build what it commits (`_step_record`:
    merge its delta with `_merge`, resolve its route with `_resolve_route`, decide the snapshot
    and take it with `_snapshot`, check the size), commit (`store.save_step`), emit (`_emit_end`),
    and pause (`_pause`) when the route interrupts, or wait (`enter_wait`, in `_waits`) when it is
    a WAIT hop: a new kind of pause is one more check after the commit. A fan-out step is
    `_fan_out`. Whatever escapes a step is settled by `_failed`, a finished run by `_finish`.
    """
    run = _Run.of(eng, g, rc, run_id, state, step, first)
    save_step = eng.store.save_step
    emitter = eng.emitter
    try:
        while True:
            kind = nxt.kind
            if kind is _GOTO:
                node = _enter(run, nxt.target)
                if node is None:
                    await _pause(run, "paused before node", {"before": True})
                    return run.state
                try:
                    res, attempt, ctx = await execute(
                        eng,
                        node,
                        run_id,
                        run.step,
                        run.state,
                        run.resumed,
                        run.resume_input,
                        None,
                        run.interrupted_at,
                    )
                except NodeError as exc:
                    if node.error_route is None:
                        raise
                    nxt = await _error_routed(run, node, exc)
                    continue
                rec, nxt = _step_record(run, node, res, attempt, ctx)
                await save_step(rec)
                if emitter is not None:
                    _emit_end(run, res, nxt, attempt)
                if nxt.kind is _INTERRUPT:
                    await _pause(run, "interrupted", {"payload": nxt.payload})
                    return run.state
                if nxt.kind is _WAIT:
                    await enter_wait(eng, run_id, run.step, run.node_id, nxt, run.last_err)
                    return run.state
            elif kind is _FAN_OUT:
                if hands_out() and await _hand_out(run, nxt):
                    return run.state  # waiting: its branches run as jobs (`graphengine.branches`)
                nxt = await _fan_out(run, nxt)
            else:
                break
    except BaseException as exc:
        await _failed(run, exc)  # raises the typed error that stands for `exc`, if it is not one
        raise
    await _finish(run)
    return run.state


def _enter(run: _Run[S], node_id: str) -> CompiledNode[S] | None:
    """Resolve the node a step goes to and start its step; None: it pauses before it (unanswered)."""
    run.node_id = node_id
    node = run.nodes.get(node_id)
    if node is None:
        raise UnknownNodeError(
            f"step {run.step} routed to unknown node {node_id!r}",
            run_id=run.run_id,
            step=run.step,
            node_id=node_id,
        )
    if node.interrupt_before and not run.approved:
        return None
    run.approved = False
    step = run.step
    if step >= run.step_cap:
        raise max_steps_error(run.run_id, step, node_id, run.max_steps)
    run.step = step = step + 1
    if run.emitter is not None:
        run.t0 = time.perf_counter()
        run.eng.emit(Event(run.run_id, step, node_id, "", _NO_META, kind=EventKind.NODE_START))
    return node


async def _error_routed(run: _Run[S], node: CompiledNode[S], exc: NodeError) -> Next:
    """Take a failed node's error route (its step stores a snapshot); returns where the run goes."""
    run.state, nxt, msg, run.snap_size = await route_error(
        run.eng, run.g, run.rc, run.run_id, run.step, node.id, run.state, exc, exc.attempts
    )
    run.last_err = (msg, node.id)
    run.since_bytes = run.since_steps = 0  # that step stored a snapshot
    run.resumed = False
    run.interrupted_at = None
    return nxt


def _step_record(
    run: _Run[S], node: CompiledNode[S], res: NodeResult[S], attempt: int, ctx: Context[Any]
) -> tuple[StepRecord, Next]:
    """What a node step commits, and where the run goes next: merge, route, snapshot, checked size.

    Moves the run's state (and, when it takes a snapshot, its snapshot counters) forward.
    """
    run_id, step, node_id = run.run_id, run.step, node.id
    resumed = run.resumed
    # `calls` is a list once the node called a tool, even one whose refused result left it empty:
    # `record_calls` must see that refusal (the step fails even if the node caught it).
    calls_b = record_calls(ctx, resumed, run_id, step, node_id) if resumed or ctx.calls is not None else None
    run.resumed = False
    run.interrupted_at = None
    delta = res.delta
    delta_b = None if delta is None else _merge(run, node, delta)
    route, route_s = _resolve_route(run, node, res.route)
    events_b = encode_events(res.events, run_id, step, node_id) if res.events else None
    # Decide the snapshot: forced on a step that replaced the state or does not simply go on to a
    # node; otherwise taken every `snapshot_every` steps, or once the deltas stored since the last
    # one outgrow `snapshot_ratio` times its size. (Inline: it runs on every step.)
    state_b: bytes | None = None
    run.since_steps += 1
    if delta_b is not None:
        run.since_bytes += len(delta_b)
    if (
        route.kind is not _GOTO
        or (delta is not None and node.replaces_state)
        or run.since_steps >= run.snap_every
        or run.since_bytes > run.snap_ratio * run.snap_size
    ):
        state_b = _snapshot(run)
    run.state_b = state_b
    if run.limit is not None:
        check_size(
            run.limit,
            run_id,
            step,
            node_id,
            delta=delta_b,
            state=state_b,
            route=route_s,
            calls=calls_b,
            events=events_b,
        )
    rec = _record_of(
        StepRecord,
        (run_id, step, node_id, delta_b, route_s, state_b, attempt, None, calls_b, events_b, _now()),
    )
    return rec, route


def _merge(run: _Run[S], node: CompiledNode[S], delta: Any) -> bytes | None:
    """Merge a node's delta into the run's state; returns the delta's stored bytes (None: none stored).

    What is committed must read back: the delta is decoded from the very bytes written, and that
    decoded copy is what the state is built from (so the run shares nothing with the node's
    objects and sees what a resume would see). A node that replaces the state stores no delta
    (its step stores a snapshot).
    """
    run_id, step, node_id = run.run_id, run.step, node.id
    if node.replaces_state:
        run.state = checked_delta(run.eng, delta, run_id, step, node_id)
        delta_b = None
    else:
        if not run.is_state(delta):
            raise wrong_delta(run.eng, delta, run_id, step, node_id)
        try:
            delta_b = run.encode_delta(delta)
            back = run.decode_delta(delta_b)
        except Exception as exc:
            raise unstorable(exc, delta, run_id, step, node_id, "delta") from exc
        if type(back) is dict and len(back) < len(delta):
            raise dropped_delta_keys(run.eng, undeclared_keys(delta, back), run_id, step, node_id)
        if run.check_nulls and may_hide(delta_b):  # JSON writes NaN and infinity as null
            check_finite(delta, run_id, step, node_id, "delta")
        if run.readback is not None:
            check_read_back(run.readback, delta, back, run_id, step, node_id, "delta")
        delta = back
        try:
            run.state = run.reducer(run.state, delta)
        except Exception as exc:
            raise reducer_failed(exc, run_id, step, node_id) from exc
    if run.budgets:
        check_budgets(run.eng, run.budgets, run.sizes, delta, run.state, run_id, step, node_id)
    return delta_b


def _resolve_route(run: _Run[S], node: CompiledNode[S], route: Any) -> tuple[Next, str]:
    """Where a node step goes (its returned route, else its static edges) and that route as stored."""
    if route is None:
        route = node.fixed  # a single static hop (the common case): no predicate to call
        if route is None:
            route = static_route(node, run.state, run.run_id, run.step)
    elif type(route) is not Next:
        raise wrong_route(route, run.run_id, run.step, node.id)
    elif route.kind is _GOTO:
        if route.target not in run.nodes:
            check_route(route, run.nodes, run.run_id, run.step, node.id)  # raises, naming it
    elif route.kind is not _STOP:
        check_route(route, run.nodes, run.run_id, run.step, node.id)
    if route.kind is _GOTO:
        return route, run.rc.encode(route)
    # Fan-outs and interrupts carry values (branch inputs, payloads): read back what is stored,
    # and go on with that (each branch input a fresh copy).
    return route_checked(run.rc, route, run.run_id, run.step, node.id)


def _snapshot(run: _Run[S]) -> bytes:
    """Take a snapshot of the run's state: its bytes, with the state decoded back from them."""
    state_b, run.state = snapshot_of(run.eng, run.state, run.run_id, run.step, run.node_id)
    run.snap_size = len(state_b)
    run.since_bytes = run.since_steps = 0
    return state_b


def _emit_end(run: _Run[S], res: NodeResult[S], route: Next, attempt: int) -> None:
    """Emit what a committed node step reports: the node's own events, then its end."""
    eng = run.eng
    for ev in res.events:
        eng.emit(ev)
    meta = {"route": repr(route), "attempt": attempt, "ms": (time.perf_counter() - run.t0) * 1e3}
    eng.emit(Event(run.run_id, run.step, run.node_id, "", meta, kind=EventKind.NODE_END))


async def _hand_out(run: _Run[S], nxt: Next) -> bool:
    """Whether the fan-out's branches went out as jobs, the run now waiting (`graphengine.branches`)."""
    run.node_id = FAN_OUT_NODE
    if run.step >= run.step_cap:
        return False  # `_fan_out` reports the limit
    return await hand_out(run.eng, run.run_id, run.step + 1, nxt, run.last_err)


async def _fan_out(run: _Run[S], nxt: Next) -> Next:
    """Run a fan-out step (`fan_out_step`: branches, merge, commit); returns the join's hop."""
    run.node_id = FAN_OUT_NODE
    if run.step >= run.step_cap:
        raise max_steps_error(run.run_id, run.step, FAN_OUT_NODE, run.max_steps)
    run.step += 1
    run.state, nxt, err, run.snap_size = await fan_out_step(
        run.eng, run.g, run.rc, run.run_id, run.step, run.state, nxt, run.versions, run.state_b
    )
    run.since_bytes = run.since_steps = 0  # that step stored a snapshot
    if err is not None:
        run.last_err = err
    return nxt


async def _pause(run: _Run[Any], message: str, data: dict[str, Any]) -> None:
    """Mark the run interrupted at its current step (keeping its last routed error) and emit the pause."""
    error, error_node = run.last_err
    await settled(
        run.store.set_status(
            run.run_id, RunStatus.INTERRUPTED, error=error, error_node=error_node, expect_step=run.step
        )
    )
    run.eng.notify(run.run_id, run.step, run.node_id, message, data, EventKind.INTERRUPT)


async def _finish(run: _Run[Any]) -> None:
    """Mark the run done after its last step and emit its end."""
    # Conditioned on this driver's last step: if another process took the run over and went
    # further, this stale driver must not mark it done.
    # Settled: a cancel landing during this write must not leave the run `running` (see `settled`).
    error, error_node = run.last_err
    await settled(
        run.store.set_status(
            run.run_id, RunStatus.DONE, error=error, error_node=error_node, expect_step=run.step
        )
    )
    if run.emitter is not None:
        run.eng.emit(
            Event(run.run_id, run.step, "", "run finished", {"steps": run.step}, kind=EventKind.RUN_END)
        )


async def _failed(run: _Run[Any], exc: BaseException) -> None:
    """Settle the run after `exc` escaped a step: mark it failed (or cancelled) as `exc` requires.

    Returns when `exc` itself is what the caller raises on; raises the typed error (`StepError`,
    `EncodeError`, from `exc`) that stands for an exception the engine does not raise as is.
    """
    eng, run_id, step, node_id = run.eng, run.run_id, run.step, run.node_id
    if isinstance(exc, GraphError):
        await eng.fail(run_id, step, node_id, exc)
    elif isinstance(exc, (StoreError, OSError)):
        if isinstance(exc, ValueRefusedError):
            # The store can never take this step: resuming would fail the same way, so the run
            # fails (as for a value the engine itself refuses) instead of staying resumable.
            await _fail(eng, run_id, step, node_id, exc, EncodeError, f"cannot be stored: {exc}")
        # Otherwise the store itself (or the machine) failed, or another worker owns the run: the
        # status is not ours to change, and the store may not take the write anyway. As after a
        # crash, nothing of the step was committed and the run stays resumable.
    elif isinstance(exc, Exception):
        # Whatever else escaped the step: typed, naming where, and the run marked failed.
        await _fail(eng, run_id, step, node_id, exc, StepError, f"failed: {error_text(exc)}")
    elif isinstance(exc, asyncio.CancelledError):
        await settled(run.store.set_status(run_id, RunStatus.CANCELLED))
        if run.emitter is not None:  # so emitters can end what they opened (spans, streams)
            eng.emit(Event(run_id, step, "", "cancelled", {"status": "cancelled"}, kind=EventKind.RUN_END))
    elif isinstance(exc, (KeyboardInterrupt, SystemExit)):
        # The process is meant to stop: they stay themselves, with the run marked failed.
        await eng.fail(run_id, step, node_id, exc)
    else:
        # GeneratorExit or a user's own BaseException out of a node or branch: the process lives on,
        # so a run left `running` would never be failed or resumed by anyone.
        await _fail(eng, run_id, step, node_id, exc, StepError, f"failed: {error_text(exc)}")


async def _fail(
    eng: Runtime[Any],
    run_id: str,
    step: int,
    node_id: str,
    cause: BaseException,
    kind: type[StepError],
    what: str,
) -> NoReturn:
    """Mark the run failed with a `kind` error saying the step `what`, and raise it from `cause`."""
    err = kind(
        f"step {step} (node {node_id!r}) of run {run_id!r} {what}", run_id=run_id, step=step, node_id=node_id
    )
    if isinstance(err, EncodeError):
        err.field = "step"  # the whole record: the store does not say which of its values it refused
    await eng.fail(run_id, step, node_id, err)  # its status write is settled
    raise err from cause
