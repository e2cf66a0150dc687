"""The step loop: run a node, merge, route, commit.

Kept apart from `engine.py` (wiring and the public API) because it is the hot path: everything it
can look up is looked up once per run, and each step does one store write. A node's attempts are
in `_attempts`, fan-out steps in `_fanout`, what a step stores in `_encoding`, the checks of what
nodes return in `_checks`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

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
    wrong_delta,
    wrong_route,
)
from ._encoding import (
    FAN_OUT_NODE,
    check_finite,
    check_size,
    encode_events,
    error_text,
    may_hide,
    record_calls,
    route_checked,
    snapshot_of,
    unstorable,
)
from ._fanout import fan_out_step
from ._runtime import settled, undeclared_keys
from ._waits import Waiter, enter_wait
from .context import WAIT_SCOPE, WaitScope
from .errors import (
    EncodeError,
    GraphError,
    NodeError,
    StepError,
    UnknownNodeError,
)
from .graph import CompiledGraph
from .route_codec import RouteCodec
from .routing import Next, NextKind

if TYPE_CHECKING:
    from ._runtime import Runtime

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


async def _pause(
    eng: Runtime[S],
    run_id: str,
    step: int,
    node_id: str,
    last_err: tuple[str | None, str | None],
    message: str,
    data: dict[str, Any],
) -> None:
    """Mark the run interrupted at `step` (keeping its last routed error) and emit the pause."""
    await settled(
        eng.store.set_status(
            run_id, RunStatus.INTERRUPTED, error=last_err[0], error_node=last_err[1], expect_step=step
        )
    )
    eng.notify(run_id, step, node_id, message, data, EventKind.INTERRUPT)


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
    """The step loop of `drive`."""
    store = eng.store
    codec = eng.codec
    encode_delta = codec.encode_delta
    decode_delta = eng.decode_delta
    check_nulls = eng.check_nulls
    reducer = eng.reducer
    emitter = eng.emitter
    is_state = eng.is_state
    nodes = g.nodes
    max_steps = eng.options.max_steps
    step_cap = first.turn_start + max_steps  # a limit per turn, as LangGraph's per invoke
    snap_every = eng.options.snapshot_every
    snap_ratio = eng.options.snapshot_ratio
    snap_size, since_bytes, since_steps = first.snap_size, first.since_bytes, first.since_steps
    budgets = eng.options.field_budgets
    limit: int | None = getattr(store, "max_value_bytes", None)  # stores that declare no limit: None
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
                    await _pause(eng, run_id, step, node_id, last_err, "paused before node", {"before": True})
                    return state
                approved = False
                if step >= step_cap:
                    raise max_steps_error(run_id, step, node_id, max_steps)
                step += 1
                if emitter is not None:
                    t0 = time.perf_counter()
                    eng.emit(Event(run_id, step, node_id, "", _NO_META, kind=EventKind.NODE_START))
                try:
                    res, attempt, ctx = await execute(
                        eng,
                        node,
                        run_id,
                        step,
                        state,
                        resumed,
                        resume_input,
                        None,
                        interrupted_at,
                    )
                except NodeError as exc:
                    if node.error_route is None:
                        raise
                    state, nxt, msg, snap_size = await route_error(
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
                    state = checked_delta(eng, delta, run_id, step, node_id)
                    delta_b = None
                    snapshot = True
                else:
                    if not is_state(delta):
                        raise wrong_delta(eng, delta, run_id, step, node_id)
                    # What is committed must read back: the delta is decoded from the very bytes
                    # written, and that decoded copy is what the state is built from (so the run
                    # shares nothing with the node's objects and sees what a resume would see).
                    try:
                        delta_b = encode_delta(delta)
                        back = decode_delta(delta_b)
                    except Exception as exc:
                        raise unstorable(exc, delta, run_id, step, node_id, "delta") from exc
                    if type(back) is dict and len(back) < len(delta):  # type: ignore[arg-type]
                        raise dropped_delta_keys(eng, undeclared_keys(delta, back), run_id, step, node_id)
                    if check_nulls and may_hide(delta_b):  # JSON writes NaN and infinity as null
                        check_finite(delta, run_id, step, node_id, "delta")
                    delta = back
                    try:
                        state = reducer(state, delta)
                    except Exception as exc:
                        raise reducer_failed(exc, run_id, step, node_id) from exc
                if budgets and delta is not None:
                    check_budgets(eng, budgets, sizes, delta, state, run_id, step, node_id)
                route = res.route
                if route is None:
                    route = static_route(node, state, run_id, step)
                elif type(route) is not Next:
                    raise wrong_route(route, run_id, step, node_id)
                elif route.kind is not _STOP:
                    check_route(route, nodes, run_id, step, node_id)
                rk = route.kind
                if rk is _GOTO:
                    route_s = rc.encode(route)
                else:
                    # Fan-outs and interrupts carry values (branch inputs, payloads): read back
                    # what is stored, and go on with that (each branch input a fresh copy).
                    route, route_s = route_checked(rc, route, run_id, step, node_id)
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
                if limit is not None:
                    check_size(
                        limit,
                        run_id,
                        step,
                        node_id,
                        delta=delta_b,
                        state=state_b,
                        route=route_s,
                        calls=calls_b,
                        events=events_b,
                    )
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
                        eng.emit(ev)
                    eng.emit(
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
                    await _pause(
                        eng, run_id, step, node_id, last_err, "interrupted", {"payload": route.payload}
                    )
                    return state
                if rk is _WAIT:
                    await enter_wait(eng, run_id, step, node_id, route, last_err)
                    return state
            elif kind is _FAN_OUT:
                node_id = FAN_OUT_NODE
                if step >= step_cap:
                    raise max_steps_error(run_id, step, node_id, max_steps)
                step += 1
                state, nxt, err, snap_size = await fan_out_step(
                    eng, g, rc, run_id, step, state, nxt, first.versions, state_b
                )
                since_bytes = since_steps = 0  # that step stored a snapshot
                if err is not None:
                    last_err = err
            else:
                break
    except GraphError as exc:
        await eng.fail(run_id, step, node_id, exc)
        raise
    except (StoreError, OSError) as exc:
        if not isinstance(exc, ValueRefusedError):
            # The store itself (or the machine) failed, or another worker owns the run: the status
            # is not ours to change, and the store may not take the write anyway. As after a
            # crash, nothing of the step was committed and the run stays resumable.
            raise
        # The store can never take this step: resuming would fail the same way, so the run
        # fails (as for a value the engine itself refuses) instead of staying resumable.
        await _fail(eng, run_id, step, node_id, exc, EncodeError, f"cannot be stored: {exc}")
    except Exception as exc:
        # Whatever else escaped the step: typed, naming where, and the run marked failed.
        await _fail(eng, run_id, step, node_id, exc, StepError, f"failed: {error_text(exc)}")
    except asyncio.CancelledError:
        await settled(store.set_status(run_id, RunStatus.CANCELLED))
        if emitter is not None:  # so emitters can end what they opened (spans, streams)
            eng.emit(Event(run_id, step, "", "cancelled", {"status": "cancelled"}, kind=EventKind.RUN_END))
        raise
    except BaseException as exc:
        # GeneratorExit or a user's own BaseException out of a node or branch: the process lives on,
        # so a run left `running` would never be failed or resumed by anyone. KeyboardInterrupt and
        # SystemExit stay themselves (the process is meant to stop), with the run marked failed.
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            await eng.fail(run_id, step, node_id, exc)
            raise
        await _fail(eng, run_id, step, node_id, exc, StepError, f"failed: {error_text(exc)}")
    # Conditioned on this driver's last step: if another process took the run over and went
    # further, this stale driver must not mark it done.
    # Settled: a cancel landing during this write must not leave the run `running` (see `settled`).
    await settled(
        store.set_status(run_id, RunStatus.DONE, error=last_err[0], error_node=last_err[1], expect_step=step)
    )
    if emitter is not None:
        eng.emit(Event(run_id, step, "", "run finished", {"steps": step}, kind=EventKind.RUN_END))
    return state
