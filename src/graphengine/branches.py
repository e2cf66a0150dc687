"""Fan-out branches run as jobs elsewhere: the seam between the step loop and a job queue.

In process, a fan-out step runs its branches concurrently and commits the merge (`_fanout`).
A queue (`graphengine.workers`) can run them on other workers instead:

1. A run driven under `dispatching(d)` that reaches a fan-out of at least `d.min_branches`
   branches, on a `BranchLeaseStore`, does not run them: the run is marked `waiting` (its last
   committed step is the one that routed the fan-out), `d.dispatch(run_id, step, branches)` is
   told which branches have no stored result, and the driver returns. The run holds no task.
2. Each branch is run by `run_branch` wherever its job lands, under a claim of its own; the job
   stores the result it returns with `BranchLeaseStore.save_branch` (fenced per branch).
3. Once every result is stored the run is resumed: the fan-out step finds every branch result
   in the store, runs none, merges them and commits, exactly as a resume after a crash does.

The merge is the in-process one over stored results: declared branch order, which for
reducers that commute (`graphengine.commute`) gives the state completion order gives; so the
join's state equals the in-process run's. A branch whose node failed is marked failed; the
join then runs the fan-out in process over the branches without a stored result, so the
failure ends the step as it would in process (its error route, or the run failed).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from graphengine.emit import EventKind
from graphengine.store import BranchLeaseStore, BranchRecord, RunStatus, Store, WaitStore

from ._attempts import execute
from ._checks import branch_delta, branch_routed, reducer_failed, wrong_route
from ._encoding import (
    FAN_OUT_NODE,
    check_size,
    isolated_bytes,
    plan_for,
    record_calls,
)
from ._runtime import settled
from ._wrapped import unwrapped
from .errors import GraphError
from .routing import Next, NextKind

if TYPE_CHECKING:
    from ._runtime import Runtime
    from .engine import Engine

__all__ = [
    "BranchDispatcher",
    "BranchOutcome",
    "FanOutGone",
    "dispatching",
    "fan_out_width",
    "merge_landed",
    "run_branch",
]

S = TypeVar("S")

_INTERRUPT = NextKind.INTERRUPT
_FAN_OUT = NextKind.FAN_OUT


class BranchDispatcher(Protocol):
    """What hands a run's fan-out branches to other workers (a queue's side of the seam)."""

    min_branches: int
    """Fan-outs with fewer branches run in process (a job per branch costs more than it saves)."""

    def dispatch(self, run_id: str, step: int, branches: Sequence[int]) -> None:
        """Take note that `branches` of the fan-out at `step` must run (called once the run waits)."""
        ...


_dispatcher: ContextVar[BranchDispatcher | None] = ContextVar("graphengine_branch_dispatcher", default=None)


@contextmanager
def dispatching(dispatcher: BranchDispatcher) -> Iterator[None]:
    """Runs driven in this context hand their large fan-outs to `dispatcher` (see the module)."""
    token = _dispatcher.set(dispatcher)
    try:
        yield
    finally:
        _dispatcher.reset(token)


def hands_out() -> bool:
    """Whether runs driven here may hand fan-outs out (cheap: the step loop asks per fan-out)."""
    return _dispatcher.get() is not None


async def hand_out(
    eng: Runtime[Any], run_id: str, step: int, nxt: Next, last_err: tuple[str | None, str | None]
) -> bool:
    """At the fan-out `step`: hand its unfinished branches to the dispatcher and mark the run waiting.

    False (run it in process) without a dispatcher, for a small fan-out, on a store without
    branch claims, once every result is stored (the join) or once a branch failed (the join
    re-runs the failed one here, so the failure takes its in-process course).
    """
    d = _dispatcher.get()
    store = unwrapped(eng.store)
    k = len(nxt.branches)
    if d is None or k < d.min_branches or not isinstance(store, BranchLeaseStore):
        return False
    if await store.failed_branches(run_id, step):
        return False
    stored = await store.count_branches(run_id, step)
    if stored >= k:
        return False
    done = {b.branch for b in await store.load_branches(run_id, step)} if stored else set()
    missing = [i for i in range(k) if i not in done]
    # Conditioned on the step that routed the fan-out: a driver that lost the run writes nothing.
    await settled(
        store.set_status(
            run_id, RunStatus.WAITING, error=last_err[0], error_node=last_err[1], expect_step=step - 1
        )
    )
    await _drop_old_due_time(store, run_id)
    d.dispatch(run_id, step, missing)
    # The run's segment ends here (emitters close what they opened for it, as for a pause).
    eng.notify(
        run_id,
        step,
        "",
        "waiting for branches",
        {"status": "waiting", "branches": k, "dispatched": len(missing)},
        EventKind.RUN_END,
    )
    return True


async def _drop_old_due_time(store: Store, run_id: str) -> None:
    """Clear the due time of a timer the run left behind (a process that died between waking the
    run and clearing it): both waits are status `waiting`, and timer wakers find runs by due
    timers, so a run waiting for its branches must have none."""
    store = unwrapped(store)
    if not isinstance(store, WaitStore):
        return
    timer = await store.get_timer(run_id)
    if timer is not None and timer.wake_at is not None:
        await store.clear_timer(run_id, timer.step)


def merge_landed(
    eng: Runtime[S], state: S, stored: Sequence[BranchRecord], deltas: list[Any], run_id: str, step: int
) -> S:
    """Merge the stored branch deltas that commute into `state` in the order they landed.

    Completion order is the records' commit times (`BranchRecord.ts`, ties by branch); each
    delta merged is taken out of `deltas` (indexed by branch), so the others stay for the
    merge in declared branch order. With no commuting reducer nothing is merged here.
    """
    commutes = eng.delta_commutes
    if commutes is None:
        return state
    reducer = eng.reducer
    for rec in sorted(stored, key=_landing):
        d = deltas[rec.branch]
        if d is not None and commutes(d):
            try:
                state = reducer(state, d)
            except Exception as exc:
                raise reducer_failed(exc, run_id, step, FAN_OUT_NODE) from exc
            deltas[rec.branch] = None
    return state


def _landing(rec: BranchRecord) -> tuple[float, int]:
    return rec.ts, rec.branch


class FanOutGone(GraphError):
    """A branch job's fan-out is no longer pending: the run went past it, or it is not a fan-out."""


@dataclass(frozen=True, slots=True)
class BranchOutcome:
    """What one branch run by `run_branch` left: its record to store, or the error it failed with."""

    record: BranchRecord | None
    """The result to store (`BranchLeaseStore.save_branch`), None when the branch failed."""
    error: BaseException | None = None
    """Why the branch failed (a `NodeError` after its retries, or a `GraphError`)."""
    total: int = 0
    """How many branches the fan-out has."""


@dataclass(slots=True)
class _Pending:
    # The pre-fan-out state (encoded) and the fan-out's route, read once per worker.
    state_b: bytes
    nxt: Next


_cache: dict[tuple[int, str, str, int], _Pending] = {}
_CACHE_MAX = 16


async def _pending(rt: Runtime[Any], run_id: str, step: int) -> _Pending:
    key = (id(rt.store), rt.graph.fingerprint, run_id, step)
    got = _cache.get(key)
    if got is not None:
        return got
    latest = await rt.store.load_latest(run_id)
    if latest is None:
        raise FanOutGone(f"no run {run_id!r} in the store (deleted?)", run_id=run_id, step=step)
    if latest.last_step != step - 1:
        raise FanOutGone(
            f"run {run_id!r} is at step {latest.last_step}: its fan-out at step {step} is not pending",
            run_id=run_id,
            step=step,
        )
    nxt = rt.next_of(latest)
    if nxt.kind is not _FAN_OUT:
        raise FanOutGone(f"run {run_id!r} step {step} is not a fan-out", run_id=run_id, step=step)
    # Step records never change, so what a fan-out starts from can be kept while it is pending.
    state_b = isolated_bytes(rt, rt.fold(latest), run_id, step)
    if len(_cache) >= _CACHE_MAX:
        _cache.pop(next(iter(_cache)))
    got = _cache[key] = _Pending(state_b, nxt)
    return got


async def fan_out_width(engine: Engine[Any], run_id: str, step: int) -> int:
    """How many branches the pending fan-out at `step` of `run_id` has (`FanOutGone` if none is pending)."""
    return len((await _pending(engine.runtime(), run_id, step)).nxt.branches)


async def run_branch(engine: Engine[Any], run_id: str, step: int, branch: int) -> BranchOutcome:
    """Run branch `branch` of the pending fan-out at `step` of `run_id` as the in-process fan-out does.

    The branch starts from its own copy of the state before the fan-out (or its map input),
    with its attempts, timeout and retries, and the checks of what it returns; nothing is
    stored. Raises `FanOutGone` when the fan-out is not pending any more (and `IndexError`
    for a branch it does not have); a failing branch is an outcome with `error`.
    """
    rt = engine.runtime()
    p = await _pending(rt, run_id, step)
    branches = p.nxt.branches
    k = len(branches)
    if not 0 <= branch < k:
        raise IndexError(f"run {run_id!r}: the fan-out at step {step} has {k} branches, not branch {branch}")
    try:
        rec = await _run(rt, run_id, step, branch, p)
    except Exception as exc:
        rt.notify(
            run_id,
            step,
            branches[branch].node,
            str(exc),
            {"branch": branch, "error": type(exc.__cause__ or exc).__name__},
            EventKind.ERROR,
        )
        return BranchOutcome(None, exc, k)
    return BranchOutcome(rec, None, k)


async def _run(rt: Runtime[Any], run_id: str, step: int, i: int, p: _Pending) -> BranchRecord:
    """One branch: run its node, check and encode what it returned (see `_fanout.fan_out_step`)."""
    br = p.nxt.branches[i]
    nid = br.node
    node = rt.graph.nodes[nid]
    bstate = br.input if br.input is not None else rt.codec.decode(p.state_b)
    rt.notify(run_id, step, nid, "", {"branch": i}, EventKind.NODE_START)
    res, attempt, bctx = await execute(rt, node, run_id, step, bstate, False, None, i)
    route = res.route
    if route is not None and type(route) is not Next:
        raise wrong_route(route, run_id, step, nid)
    if route is not None and route.kind is _INTERRUPT:
        raise GraphError(
            f"branch {i} (node {nid!r}) of the fan-out at step {step} interrupted; interrupts are not "
            "supported inside fan-out branches (use a subgraph or interrupt at the join)",
            run_id=run_id,
            step=step,
            node_id=nid,
        )
    if route is not None:
        raise branch_routed(route, i, run_id, step, nid)
    delta_b = _delta_bytes(rt, res.delta, run_id, step, nid, i)
    evs = res.events
    calls_b = None if bctx.calls is None and not evs else record_calls(bctx, False, run_id, step, nid, evs)
    limit: int | None = getattr(rt.store, "max_value_bytes", None)
    check_size(limit, run_id, step, nid, **{f"branch {i} delta": delta_b, f"branch {i} calls": calls_b})
    for ev in evs:
        rt.emit(ev)
    rt.notify(run_id, step, nid, "", {"branch": i, "attempt": attempt}, EventKind.NODE_END)
    return BranchRecord(run_id, step, i, nid, delta_b, attempt, calls_b, 0.0)


def _delta_bytes(rt: Runtime[Any], d: Any, run_id: str, step: int, nid: str, i: int) -> bytes | None:
    """The branch's delta encoded, refused unless it reads back as itself (the in-process branches' check)."""
    if d is None:
        return None
    plan = plan_for(rt.state_type)
    return branch_delta(rt, d, rt.codec.encode_delta, rt.decode_delta, plan, run_id, step, nid, i)[0]
