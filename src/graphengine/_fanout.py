"""A fan-out step: branches run concurrently, their deltas merged and committed as one step."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic_core import to_json

from graphengine.emit import Event, EventKind
from graphengine.store import BranchRecord, StepRecord

from ._attempts import execute, outcome_of, retry_delay, route_error
from ._checks import branch_routed, dropped_delta_keys, reducer_failed, wrong_delta, wrong_route
from ._encoding import (
    FAN_OUT_NODE,
    check_finite,
    check_size,
    event_doc,
    isolated_bytes,
    may_hide,
    record_calls,
    snapshot_of,
    unstorable,
)
from ._runtime import undeclared_keys
from .branches import merge_landed
from .context import Context, InterruptSignal
from .errors import (
    GraphError,
    NodeError,
)
from .graph import CompiledGraph, CompiledNode
from .result import NodeResult
from .route_codec import RouteCodec
from .routing import Branch, Next, NextKind, goto, interrupt

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
    fo = _FanOut.of(eng, g, run_id, step, state, nxt)
    # Phases: what is stored already; the branches still to run (here, in this process: the seam
    # where they could run elsewhere and leave their results in the store); then the join.
    await _load_landed(fo, versions)
    if fo.pending:
        _isolate_state(fo, state, state_b)
        await _run_branches(fo)
    if fo.failure:
        return await _failed_join(fo, rc, state)
    return await _commit_join(fo, rc, goto(nxt.target))


@dataclass(slots=True)
class _FanOut(Generic[S]):
    """One fan-out step: its lookups, the branches' results as they land, and their group commit.

    The phases of the step (and the branch workers, which run concurrently) share this object:
    what one worker lands, another's flush writes and the join merges.
    """

    eng: Runtime[S]
    g: CompiledGraph[S]
    run_id: str
    step: int
    branches: tuple[Branch[Any], ...]
    emitter: Any
    limit: int | None
    """The store's `max_value_bytes` (None: it declares no limit)."""
    loop: asyncio.AbstractEventLoop
    is_state: Callable[[Any], bool]
    encode_delta: Callable[[Any], bytes]
    decode_delta: Callable[[bytes], Any]
    reducer: Callable[[S, Any], S]
    check_nulls: bool
    commutes: Callable[[Any], bool] | None
    """`Runtime.delta_commutes`: whether a delta may merge as it lands (None: none may)."""
    deltas: list[Any]
    """Each branch's delta (decoded back from its stored bytes) until it is merged; None: none, or merged."""
    bevents: dict[int, list[Any]]
    """Events the branches returned, by branch: stored with each branch's tool calls (a branch
    record has no field of its own for them), and on the fan-out's step record in branch order."""
    pending: list[int]
    """The branches with no stored result, in declared order."""
    todo: Iterator[int]
    """What the workers take the next branch from (one iterator over `pending`, shared)."""
    state_b: bytes | None
    """The state before the fan-out, encoded: what a branch without an input starts from."""
    merged: S
    """The state with the commutative deltas merged as they landed (see `graphengine.commute`)."""
    buf: list[BranchRecord]
    """Landed results not yet handed to the store."""
    flusher: asyncio.Task[None] | None
    flush_soon: asyncio.Handle | None
    failure: list[tuple[int, BaseException]]
    """The branches that failed, with their errors (the join reports the first in branch order)."""

    @classmethod
    def of(
        cls, eng: Runtime[S], g: CompiledGraph[S], run_id: str, step: int, state: S, nxt: Next
    ) -> _FanOut[S]:
        """A fan-out step with nothing landed yet."""
        branches = nxt.branches
        return cls(
            eng,
            g,
            run_id,
            step,
            branches,
            eng.emitter,
            getattr(eng.store, "max_value_bytes", None),
            asyncio.get_running_loop(),
            eng.is_state,
            eng.codec.encode_delta,
            eng.decode_delta,
            eng.reducer,
            eng.check_nulls,
            eng.delta_commutes,
            [None] * len(branches),
            {},
            [],
            iter(()),
            None,
            state,
            [],
            None,
            None,
            [],
        )


async def _load_landed(fo: _FanOut[S], versions: Any) -> None:
    """Take in the branch results stored already (an earlier attempt at this step); the rest are pending."""
    eng, run_id, step = fo.eng, fo.run_id, fo.step
    done: set[int] = set()
    stored = await eng.store.load_branches(run_id, step)
    for rec in stored:
        done.add(rec.branch)
        if rec.calls is not None and b'"events"' in rec.calls:
            doc = json.loads(rec.calls)
            if isinstance(doc, dict) and doc.get("events"):
                fo.bevents[rec.branch] = doc["events"]
        if rec.delta is not None:
            fo.deltas[rec.branch] = eng.decode(
                rec.delta, run_id, step, f"branch {rec.branch} delta", versions
            )
    if stored:
        # Merged as the in-process landing merges: those that commute in the order they landed
        # (a distributed fan-out's join, a resume), the rest later in declared order.
        fo.merged = merge_landed(eng, fo.merged, stored, fo.deltas, run_id, step)
    fo.pending = [i for i in range(len(fo.branches)) if i not in done]
    fo.todo = iter(fo.pending)


def _isolate_state(fo: _FanOut[S], state: S, state_b: bytes | None) -> None:
    """Have `state` encoded for the branches without an input (each decodes its own copy of it).

    `state_b` is its encoding when the caller has it (the snapshot the step before stored).
    """
    if state_b is None and any(b.input is None for b in fo.branches):
        state_b = isolated_bytes(fo.eng, state, fo.run_id, fo.step)
    fo.state_b = state_b


async def _run_branches(fo: _FanOut[S]) -> None:
    """Run the pending branches in this process, up to `max_concurrency` at once; each result stored as it lands.

    One worker runs in this task; the others are started by a callback on the loop's next turn,
    that is only once this worker has yielded (a branch awaited). Branches that never await then
    all run here, in order, without creating workers - 1 tasks that would find nothing left to
    do; branches that do await get the full `max_concurrency` one tick later. Returns once every
    landed result is stored; a failed branch is left in `fo.failure` for the join.
    """
    workers = min(fo.eng.options.max_concurrency, len(fo.pending))
    helpers: list[asyncio.Future[None]] = []
    handle: asyncio.Handle | None = None

    def spawn() -> None:
        helpers.extend(asyncio.ensure_future(_worker(fo)) for _ in range(workers - 1))

    try:
        if workers == 1:
            await _worker(fo)
        elif workers > 1:
            handle = fo.loop.call_soon(spawn)
            await _worker(fo)
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
            await asyncio.shield(_drain(fo))
        except Exception as lost:
            _log.warning(
                "run %r: landed branches of step %d not stored on cancellation: %r", fo.run_id, fo.step, lost
            )
        raise
    await _drain(fo)


async def _worker(fo: _FanOut[S]) -> None:
    """Run branches one after the other, taking each from the shared `todo`, until none is left or one failed.

    Per branch: run its node (the first attempt inline, retries in `_retried`), check and encode
    its result (`_landed`), hand the record to the group commit, report it (`_emit_landed`), and
    merge its delta now if it commutes (`_merge_landed`). A failure goes to `_branch_failed`.
    """
    eng, run_id, step, emitter = fo.eng, fo.run_id, fo.step, fo.emitter
    nodes = fo.g.nodes
    decode = eng.codec.decode
    given = eng.context
    loop, commutes = fo.loop, fo.commutes
    for i in fo.todo:
        if fo.failure:
            return
        br = fo.branches[i]
        nid = br.node
        node = nodes[nid]
        bstate = br.input
        if bstate is None:
            bstate = decode(fo.state_b)  # type: ignore[arg-type]
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
                    res, attempt, bctx = await _retried(fo, node, bstate, i, exc)
            else:
                res, attempt, bctx = await execute(eng, node, run_id, step, bstate, False, None, i)
            rec = _landed(fo, i, nid, res, attempt, bctx)
        except Exception as exc:
            _branch_failed(fo, i, nid, exc)
            return
        # Persist: hand the record to the group commit (its writer starts once the loop turns).
        fo.buf.append(rec)
        if fo.flush_soon is None and (fo.flusher is None or fo.flusher.done()):
            fo.flush_soon = loop.call_soon(_start_flush, fo)
        if emitter is not None:
            _emit_landed(fo, i, rec, res.events)
        if (
            commutes is not None
            and rec.delta is not None
            and commutes(fo.deltas[i])
            and not _merge_landed(fo, i)
        ):
            return


async def _retried(
    fo: _FanOut[S], node: CompiledNode[S], bstate: Any, i: int, exc: Exception
) -> tuple[NodeResult[S], int, Context]:
    """Branch `i`'s first attempt raised `exc`: its further attempts (in `execute`), or its `NodeError`."""
    delay = retry_delay(fo.eng, node, exc, 1, fo.run_id, fo.step, i, fo.emitter)
    if delay > 0:
        await asyncio.sleep(delay)
    return await execute(fo.eng, node, fo.run_id, fo.step, bstate, False, None, i, attempt=2)


def _landed(
    fo: _FanOut[S], i: int, nid: str, res: NodeResult[S], attempt: int, bctx: Context
) -> BranchRecord:
    """Branch `i`'s result, checked and encoded as it is stored; its delta decoded back into `fo.deltas`.

    What is committed must read back: the delta merged at the join is the one decoded from the
    bytes written, so no branch shares an object with another or with the run's state.
    """
    run_id, step = fo.run_id, fo.step
    if res.route is not None:
        raise _routed(res.route, i, run_id, step, nid)
    d = res.delta
    if d is None:
        delta_b = None
    else:
        if not fo.is_state(d):
            raise wrong_delta(fo.eng, d, run_id, step, nid)
        try:
            delta_b = fo.encode_delta(d)
            back = fo.deltas[i] = fo.decode_delta(delta_b)
        except Exception as exc:
            raise unstorable(exc, d, run_id, step, nid, f"branch {i} delta") from exc
        if type(back) is dict:  # a TypedDict codec drops undeclared keys
            lost = undeclared_keys(d, back)
            if lost:
                raise dropped_delta_keys(fo.eng, lost, run_id, step, nid)
        if fo.check_nulls and may_hide(delta_b):  # JSON writes NaN and infinity as null
            check_finite(d, run_id, step, nid, f"branch {i} delta")
    evs = res.events
    calls_b = None if bctx.calls is None and not evs else record_calls(bctx, False, run_id, step, nid, evs)
    if evs:
        fo.bevents[i] = [event_doc(ev, run_id, step, nid) for ev in evs]
    if fo.limit is not None:
        check_size(
            fo.limit, run_id, step, nid, **{f"branch {i} delta": delta_b, f"branch {i} calls": calls_b}
        )
    rec: BranchRecord = _branch_record(
        BranchRecord, (run_id, step, i, nid, delta_b, attempt, calls_b, _now())
    )
    return rec


def _routed(route: Any, i: int, run_id: str, step: int, nid: str) -> GraphError:
    """The error for a branch that returned a route: a branch's hop cannot be followed.

    The join decides where the run goes after a fan-out; a branch's own hop (goto, stop, a nested
    fan-out) cannot be honoured, and dropping it would run something else than the node asked for.
    """
    if type(route) is not Next:
        return wrong_route(route, run_id, step, nid)
    if route.kind is _INTERRUPT:
        return GraphError(
            f"branch {i} (node {nid!r}) of the fan-out at step {step} interrupted; "
            "interrupts are not supported inside fan-out branches (use a subgraph or interrupt at the join)",
            run_id=run_id,
            step=step,
            node_id=nid,
        )
    return branch_routed(route, i, run_id, step, nid)


def _emit_landed(fo: _FanOut[S], i: int, rec: BranchRecord, evs: Sequence[Event]) -> None:
    """Report a landed branch: the events it returned, then its end."""
    eng = fo.eng
    for ev in evs:
        eng.emit(ev)
    meta = {"branch": i, "attempt": rec.attempt}
    eng.emit(Event(fo.run_id, fo.step, rec.node_id, "", meta, kind=EventKind.NODE_END))


def _merge_landed(fo: _FanOut[S], i: int) -> bool:
    """Merge branch `i`'s commuting delta into `fo.merged` now; False when the reducer failed.

    Deltas whose every field commutes merge as they land; the others wait in `fo.deltas` and
    merge in declared branch order after them. Field by field, that is the state the declared
    order gives (see `graphengine.commute`). A failure is left in `fo.failure`.
    """
    try:
        fo.merged = fo.reducer(fo.merged, fo.deltas[i])
    except Exception as exc:
        err = reducer_failed(exc, fo.run_id, fo.step, FAN_OUT_NODE)
        err.__cause__ = exc
        fo.failure.append((i, err))
        return False
    fo.deltas[i] = None
    return True


def _branch_failed(fo: _FanOut[S], i: int, nid: str, exc: Exception) -> None:
    """Record branch `i`'s failure for the join; the other workers start no further branch."""
    fo.failure.append((i, exc))
    if fo.emitter is not None:  # each failed branch reports itself (the join reports the first)
        meta = {"branch": i, "error": type(exc.__cause__ or exc).__name__}
        fo.eng.emit(Event(fo.run_id, fo.step, nid, str(exc), meta, kind=EventKind.ERROR))


async def _flush(fo: _FanOut[Any]) -> None:
    """Group commit: whatever landed while the previous write was in flight goes in one transaction.

    Bounded, as stores cap the rows of one statement.
    """
    buf = fo.buf
    while buf:
        batch = buf[:_FLUSH_MAX]
        del buf[:_FLUSH_MAX]
        await fo.eng.store.save_branches(batch)


def _start_flush(fo: _FanOut[Any]) -> None:
    """Start writing what landed (a loop callback).

    It runs only once the loop turns, that is once a branch awaited: landed results are then
    written while the others run. Branches that never await all land before this could run, and
    are written after them in one batch without a task or a loop turn.
    """
    fo.flush_soon = None
    flusher = fo.flusher
    if flusher is not None and not flusher.cancelled() and flusher.exception() is not None:
        return  # keep the failed write: `_drain` raises its error, and resume re-runs what it lost
    fo.flusher = fo.loop.create_task(_flush(fo))


async def _drain(fo: _FanOut[Any]) -> None:
    """Store every landed result (raises what a write raised)."""
    if fo.flush_soon is not None:  # nothing awaited since the last landing: write it here
        fo.flush_soon.cancel()
        fo.flush_soon = None
    if fo.flusher is not None:
        await fo.flusher
    if fo.buf:
        await _flush(fo)


async def _failed_join(fo: _FanOut[S], rc: RouteCodec[S], state: S) -> tuple[S, Next, tuple[str, str], int]:
    """A branch failed: raise the fan-out's `NodeError` (or the engine's error), or take its error route.

    The first failed branch in declared order stands for the fan-out.
    """
    run_id, step = fo.run_id, fo.step
    i, exc = min(fo.failure, key=lambda f: f[0])
    if isinstance(exc, GraphError) and not isinstance(exc, NodeError):
        raise exc
    bnode = fo.g.nodes[fo.branches[i].node]
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
        fo.eng, fo.g, rc, run_id, step, bnode.id, state, err, err.attempts
    )
    return state, route, (msg, bnode.id), snap


async def _commit_join(fo: _FanOut[S], rc: RouteCodec[S], join: Next) -> tuple[S, Next, None, int]:
    """Merge what is stored into the state (declared order after the commutative deltas) and commit the step."""
    run_id, step, eng = fo.run_id, fo.step, fo.eng
    state = fo.merged
    present = [d for d in fo.deltas if d is not None]
    reducer = fo.reducer
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
    if fo.bevents:
        bevents = fo.bevents
        events_b = b"[" + b",".join(to_json(e) for i in sorted(bevents) for e in bevents[i]) + b"]"
    join_s = rc.encode(join)
    check_size(fo.limit, run_id, step, FAN_OUT_NODE, state=state_b, route=join_s, events=events_b)
    await eng.store.save_step(
        StepRecord(run_id, step, FAN_OUT_NODE, None, join_s, state_b, 1, None, None, events_b, _now())
    )
    return state, join, None, len(state_b)
