"""A fan-out step: branches run concurrently, their deltas merged and committed as one step."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic_core import to_json

from graphengine.emit import Event, EventKind
from graphengine.store import BranchRecord, StepRecord

from ._attempts import execute, outcome_of, retry_delay, route_error
from ._checks import branch_routed, dropped_delta_keys, reducer_failed, wrong_delta, wrong_route
from ._encoding import (
    FAN_OUT_NODE,
    check_finite,
    check_read_back,
    check_size,
    event_doc,
    isolated_bytes,
    may_hide,
    plan_for,
    record_calls,
    snapshot_of,
    unstorable,
)
from ._runtime import undeclared_keys
from .context import Context, InterruptSignal
from .errors import (
    GraphError,
    NodeError,
)
from .graph import CompiledGraph
from .result import NodeResult
from .route_codec import RouteCodec
from .routing import Next, NextKind, goto, interrupt

if TYPE_CHECKING:
    from ._runtime import Runtime

__all__ = ["fan_out_step"]

S = TypeVar("S")


_INTERRUPT = NextKind.INTERRUPT
_now = time.time
_log = logging.getLogger("graphengine")
_FLUSH_MAX = 1000
# Every field given: the NamedTuple's generated __new__ (a Python frame per branch) is not needed,
# as long as the record has exactly the fields the fan-out fills in.
_branch_record: Any = tuple.__new__ if len(BranchRecord._fields) == 8 else (lambda cls, values: cls(*values))


async def fan_out_step(
    eng: Runtime[S],
    g: CompiledGraph[S],
    rc: RouteCodec[S],
    run_id: str,
    step: int,
    state: S,
    nxt: Next,
    versions: Any = None,
    state_b: bytes | None = None,
) -> tuple[S, Next, tuple[str, str] | None, int]:
    """Run a fan-out's branches concurrently, persisting each result as it lands; merge; commit.

    A delta whose every field has a commutative reducer (`graphengine.commute`) is merged as its
    branch lands; the others are merged after them in declared branch order. Both give the state
    the declared order alone gives, so the result never depends on which branch finished first.

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
    given = eng.context
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
            deltas[rec.branch] = eng.decode(rec.delta, run_id, step, f"branch {rec.branch} delta", versions)
    pending = iter([i for i in range(k) if i not in done])
    is_state = eng.is_state
    encode_delta = eng.codec.encode_delta
    decode_delta = eng.decode_delta
    decode = eng.codec.decode
    readback = plan_for(eng.state_type)
    limit: int | None = getattr(store, "max_value_bytes", None)  # stores that declare no limit: None
    if state_b is None and len(done) < k and any(b.input is None for b in branches):
        state_b = isolated_bytes(eng, state, run_id, step)
    loop = asyncio.get_running_loop()
    # Deltas whose every field commutes merge as they land, into merged[0]; the others wait in
    # `deltas` and merge in declared branch order after them. Field by field, that is the state
    # the declared order gives (see `graphengine.commute`).
    commutes = eng.delta_commutes
    reducer = eng.reducer
    merged = [state]
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
                    eng.emit(Event(run_id, step, nid, "", {"branch": i}, kind=EventKind.NODE_START))
                if node.timeout is None:
                    # The first attempt inline, as `execute` would make it: no coroutine or result
                    # tuple of its own per branch. Retries continue in `execute`.
                    attempt = 1
                    bctx = Context(run_id, step, nid, 1, emitter, None, False, i, None, None, None, given)
                    try:
                        res = node.call(bctx, bstate)
                        if node.is_async:
                            res = await res
                        if type(res) is not NodeResult or res.err is not None:
                            res = outcome_of(node, res, run_id, step)
                    except InterruptSignal as sig:
                        res = NodeResult(route=interrupt(sig.payload))
                    except GraphError:
                        raise
                    except Exception as exc:
                        delay = retry_delay(eng, node, exc, 1, run_id, step, i, emitter)
                        if delay > 0:
                            await asyncio.sleep(delay)
                        res, attempt, bctx = await execute(
                            eng, node, run_id, step, bstate, False, None, i, attempt=2
                        )
                else:
                    res, attempt, bctx = await execute(eng, node, run_id, step, bstate, False, None, i)
                route = res.route
                if route is not None and type(route) is not Next:
                    raise wrong_route(route, run_id, step, nid)
                if route is not None and route.kind is _INTERRUPT:
                    raise GraphError(
                        f"branch {i} (node {nid!r}) of the fan-out at step {step} interrupted; "
                        "interrupts are not supported inside fan-out branches (use a subgraph or interrupt at the join)",
                        run_id=run_id,
                        step=step,
                        node_id=nid,
                    )
                if route is not None:
                    # The join decides where the run goes after a fan-out; a branch's own hop
                    # (goto, stop, a nested fan-out) cannot be honoured, and dropping it would
                    # run something else than the node asked for.
                    raise branch_routed(route, i, run_id, step, nid)
                d = res.delta
                if d is not None:
                    if not is_state(d):
                        raise wrong_delta(eng, d, run_id, step, nid)
                    what = f"branch {i} delta"
                    try:
                        delta_b: bytes | None = encode_delta(d)
                        deltas[i] = decode_delta(delta_b)  # type: ignore[arg-type]
                    except Exception as exc:
                        raise unstorable(exc, d, run_id, step, nid, what) from exc
                    lost = undeclared_keys(d, deltas[i])
                    if lost:
                        raise dropped_delta_keys(eng, lost, run_id, step, nid)
                    if eng.check_nulls and may_hide(delta_b):  # type: ignore[arg-type]
                        check_finite(d, run_id, step, nid, what)
                    if readback is not None:
                        check_read_back(readback, d, deltas[i], run_id, step, nid, what)
                else:
                    delta_b = None
                evs = res.events
                calls_b = (
                    None
                    if bctx.calls is None and not evs
                    else record_calls(bctx, False, run_id, step, nid, evs)
                )
                if evs:
                    bevents[i] = [event_doc(ev, run_id, step, nid) for ev in evs]
                if limit is not None:
                    check_size(
                        limit,
                        run_id,
                        step,
                        nid,
                        **{f"branch {i} delta": delta_b, f"branch {i} calls": calls_b},
                    )
            except Exception as exc:
                failure.append((i, exc))
                if emitter is not None:  # each failed branch reports itself (the join reports the first)
                    eng.emit(
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
                    eng.emit(ev)
                eng.emit(
                    Event(run_id, step, nid, "", {"branch": i, "attempt": attempt}, kind=EventKind.NODE_END)
                )
            if commutes is not None and delta_b is not None and commutes(deltas[i]):
                try:
                    merged[0] = reducer(merged[0], deltas[i])
                except Exception as exc:
                    err = reducer_failed(exc, run_id, step, FAN_OUT_NODE)
                    err.__cause__ = exc
                    failure.append((i, err))
                    return
                deltas[i] = None

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
        state, route, msg, snap = await route_error(
            eng, g, rc, run_id, step, bnode.id, state, err, err.attempts
        )
        return state, route, (msg, bnode.id), snap

    state = merged[0]
    present = [d for d in deltas if d is not None]
    many = getattr(reducer, "many", None)
    try:
        if many is not None and present:
            state = many(state, present)  # one copy for all branches (default model reducer)
        else:
            for d in present:
                state = reducer(state, d)
    except Exception as exc:
        raise reducer_failed(exc, run_id, step, FAN_OUT_NODE) from exc
    state_b, state = snapshot_of(eng, state, run_id, step, FAN_OUT_NODE)
    events_b = None
    if bevents:
        events_b = b"[" + b",".join(to_json(e) for i in sorted(bevents) for e in bevents[i]) + b"]"
    join_s = rc.encode(join)
    check_size(limit, run_id, step, FAN_OUT_NODE, state=state_b, route=join_s, events=events_b)
    await store.save_step(
        StepRecord(
            run_id,
            step,
            FAN_OUT_NODE,
            None,
            join_s,
            state_b,
            1,
            None,
            None,
            events_b,
            _now(),
        )
    )
    return state, join, None, len(state_b)
