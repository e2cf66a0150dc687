"""Running one node: its attempts, timeouts, retries with backoff, and error routes."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import time
from typing import TYPE_CHECKING, Any, TypeVar, cast

from graphengine.emit import Event, EventKind, safe_emit
from graphengine.store import RunStatus, StepRecord, WaitStore

from ._checks import reducer_failed
from ._encoding import error_text, snapshot_of, unstorable
from ._wrapped import unwrapped
from .context import Context, InterruptSignal, WaitSignal
from .errors import (
    GraphError,
    NodeError,
    NodeReturnTypeError,
    NodeTimeoutError,
)
from .graph import CompiledGraph, CompiledNode
from .result import NodeResult
from .route_codec import RouteCodec
from .routing import Next, NextKind, Wait, goto, interrupt

if TYPE_CHECKING:
    from ._runtime import Runtime

__all__ = ["backoff", "execute", "outcome_of", "retry_delay", "route_error"]

S = TypeVar("S")


_EMPTY_RESULT: NodeResult[Any] = NodeResult()
_now = time.time
_log = logging.getLogger("graphengine")
_SAME: Any = object()


async def execute(
    eng: Runtime[S],
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
    given = eng.context
    while True:
        ctx: Context[Any] = Context(
            run_id,
            step,
            node.id,
            attempt,
            emitter,
            resume_input,
            resumed,
            branch,
            interrupted_at,
            recorded,
            None,
            given,
        )
        try:
            if node.timeout is None:
                res = call(ctx, state)
                if node.is_async:
                    res = await res
            else:
                clock = asyncio.get_running_loop().time
                t0 = clock()
                async with asyncio.timeout(node.timeout):
                    res = call(ctx, state)
                    if node.is_async:
                        res = await res
                took = clock() - t0
                if took > node.timeout:
                    overran(node, took, run_id, step, branch, emitter)
            return outcome_of(node, res, run_id, step), attempt, ctx
        except InterruptSignal as sig:
            return NodeResult(route=interrupt(sig.payload)), attempt, ctx
        except WaitSignal as w:
            # The node continues its own wait when woken (`Wait.resume`), served from this record.
            return (
                NodeResult(route=Next(NextKind.WAIT, node.id, payload=Wait(w.until, w.signal, True))),
                attempt,
                ctx,
            )
        except GraphError:
            raise
        except Exception as exc:
            delay = retry_delay(eng, node, exc, attempt, run_id, step, branch, emitter)
        if delay > 0:
            await asyncio.sleep(delay)
        attempt += 1


def overran(
    node: CompiledNode[Any], took: float, run_id: str, step: int, branch: int | None, emitter: Any
) -> None:
    """Say (log and `warning` event) that a node finished past its timeout without being stopped.

    `asyncio.timeout` can only cancel a node at an `await`: one that blocks the event loop (a
    sync call inside `async def`) or swallows the cancellation runs on. Its result is kept (it
    did finish, side effects and all), but the overrun must not pass in silence.
    """
    where = f"branch {branch} (node {node.id!r})" if branch is not None else f"node {node.id!r}"
    msg = (
        f"{where} took {took:.3g}s, over its timeout of {node.timeout}s, at step {step} of run "
        f"{run_id!r}, and could not be stopped: it blocked the event loop (a sync call inside async "
        "def?) or swallowed the cancellation. Its result is kept; await the slow work, or add the "
        "node with thread=True"
    )
    _log.warning("%s", msg)
    if emitter is not None:
        safe_emit(
            emitter,
            Event(
                run_id, step, node.id, msg, {"took": took, "timeout": node.timeout}, kind=EventKind.WARNING
            ),
        )


def outcome_of(node: CompiledNode[S], res: Any, run_id: str, step: int) -> NodeResult[S]:
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


def retry_delay(
    eng: Runtime[Any],
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
    eng: Runtime[Any],
    node: CompiledNode[Any],
    run_id: str,
    step: int,
    attempt: int,
    branch: int | None = None,
) -> float:
    """Delay before retry `attempt + 1`: exponential, capped, with jitter seeded by the run's coordinates."""
    if node.backoff <= 0:
        return 0.0
    base = min(node.backoff * 2.0 ** (attempt - 1), eng.options.max_backoff)
    # Seeded from stable strings (not hash(), which is salted per process) so resumed and
    # replayed runs wait the same way.
    seed = hashlib.sha256(f"{eng.options.seed}:{run_id}:{step}:{branch}:{attempt}".encode()).digest()
    return base * (0.5 + 0.5 * random.Random(seed).random())


async def route_error(
    eng: Runtime[S],
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
    msg = error_text(cause)
    delta_b = None
    if eng.error_delta is not None:
        delta = eng.error_delta(msg)
        try:
            delta_b = eng.codec.encode_delta(delta)
            delta = eng.decode_delta(delta_b)
        except Exception as err:
            raise unstorable(err, delta, run_id, step, node_id, "error delta") from err
        try:
            state = eng.reducer(state, delta)
        except Exception as err:
            raise reducer_failed(err, run_id, step, node_id) from err
    route = goto(handler)
    state_b, state = snapshot_of(eng, state, run_id, step, node_id)
    # The run record first: if the process dies before the step commits, the step is redone
    # (deterministically failing again), so the record never lags behind a committed error step.
    await eng.store.set_status(run_id, RunStatus.RUNNING, error=msg, error_node=node_id)
    # Signals the failed node took (`ctx.wait_for`) go back to the buffer before its step commits:
    # nothing of the node's work with them is kept, so they must stay to be received again.
    # Released first: a crash before the commit redoes the step, which takes them once more.
    store = eng.store
    keeps = unwrapped(store)
    if isinstance(keeps, WaitStore):
        await keeps.release_signals(run_id, step)
    await store.save_step(
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
    eng.notify(
        run_id, step, node_id, msg, {"error": type(cause).__name__, "handler": handler}, EventKind.ERROR
    )
    return state, route, msg, len(state_b)
