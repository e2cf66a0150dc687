"""Steps no node ran: a new turn's input (`Engine.continue_run`) and an edit (`Engine.update_state`).

Each is one ordinary step record, committed as atomically as a node's step, so history, replay,
fork and every store backend see it without a schema of its own: `INPUT_NODE` holds a turn's
input merged through the reducer and routes to the start node; `UPDATE_NODE` holds an edit's
delta and the hop it resolved, and its `calls` field names the node it acted as (and, for a run
paused inside a node, that node). Both store a full snapshot: a turn boundary is where a resume
or a fork most often starts reading.

A run is claimed before either is written: its status moves to `running` by compare-and-set on
the step and status just read, so of two callers acting on the same finished run one writes and
the other gets `RunBusyError`, and a run still running is refused by name.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from graphengine.emit import EventKind
from graphengine.store import Latest, RunStatus, StatusConflictError, StepRecord

from ._encoding import FAN_OUT_NODE, INPUT_NODE, UPDATE_NODE, check_finite, read_back_change, snapshot_of
from ._loop import FirstHop, drive
from ._runtime import dumps, run_meta, settled
from ._waits import keep_waiting, waiting_step
from .errors import GraphValidationError, RunBusyError, RunNotFinishedError, StateValidationError
from .routing import NextKind, goto
from .versions import VersionMap

if TYPE_CHECKING:
    from ._runtime import Runtime

__all__ = ["continue_turn", "edit_state", "upgraded_meta"]

S = TypeVar("S")


async def continue_turn(rt: Runtime[S], run_id: str, input: Any, allow_graph_change: bool) -> S:
    """Begin a new turn of `run_id` with `input` and drive it; see `Engine.continue_run`."""
    latest, state = await _editable(rt, run_id, "continue", allow_graph_change)
    g, rc = rt.compiled()
    step = latest.last_step + 1
    delta, delta_b = as_delta(rt, input, run_id, step, INPUT_NODE)
    state = rt.merge(state, delta, run_id, step, INPUT_NODE)
    meta, vm = upgraded_meta(rt, latest, step)
    # Constant-size bookkeeping for `max_steps` per turn (history finds turns from the steps). A
    # crash between this write and the step's leaves a later resume of the previous turn a few
    # steps more budget, never less.
    turn = int(meta.get("turns", 0)) + 1
    meta["turns"], meta["turn_start"] = turn, step
    start = goto(g.start)
    state_b, state = snapshot_of(rt, state, run_id, step, INPUT_NODE)
    try:
        await _claim(rt, latest)
        await rt.store.update_meta(run_id, dumps(meta))
        await _commit(rt, run_id, step, INPUT_NODE, delta_b, state_b, rc.encode(start), None)
    except asyncio.CancelledError:
        await _cancelled(rt, run_id)
        raise
    rt.notify(run_id, step, INPUT_NODE, "run continued", {"turn": turn}, EventKind.RUN_RESUME)
    first = FirstHop(snap_size=len(state_b), versions=vm, turn_start=step)
    return await drive(rt, g, rc, run_id, state, step, start, first)


async def edit_state(
    rt: Runtime[S],
    run_id: str,
    values: Any,
    as_node: str | None,
    then: str | None,
    allow_graph_change: bool,
) -> S:
    """Record an edit of `run_id`'s state as node `as_node`; see `Engine.update_state`."""
    latest, state = await _editable(rt, run_id, "update the state of", allow_graph_change)
    g, rc = rt.compiled()
    for what, name in (("as_node", as_node), ("goto", then)):
        if name is not None and name not in g.nodes:
            raise GraphValidationError(
                f"update_state({run_id!r}, {what}={name!r}): no such node; the graph has {sorted(g.nodes)}",
                run_id=run_id,
                node_id=name,
            )
    step = latest.last_step + 1
    delta, delta_b = as_delta(rt, values, run_id, step, UPDATE_NODE)
    state = rt.merge(state, delta, run_id, step, UPDATE_NODE)
    pending = rt.next_of(latest)
    doc: dict[str, Any] = {"as_node": as_node}
    if (
        latest.run.status is RunStatus.INTERRUPTED
        or pending.kind is NextKind.INTERRUPT
        or pending.kind is NextKind.WAIT
    ):
        route = pending  # a paused (or waiting) run stays so where it was, now with the edited state
        if pending.kind is NextKind.INTERRUPT and latest.last is not None:
            doc["paused"] = list(rt.interrupted(latest.last))
        if pending.kind is NextKind.WAIT and latest.last is not None:
            doc["waiting"] = waiting_step(rt, latest.last)
    else:
        acting = as_node if as_node is not None else _last_node(rt, latest)
        doc["as_node"] = acting
        if then is not None:
            route = goto(then)
        elif acting == INPUT_NODE:
            route = goto(g.start)
        else:
            route = g.nodes[acting].resolve(state)
    meta, _ = upgraded_meta(rt, latest, step)
    state_b, state = snapshot_of(rt, state, run_id, step, UPDATE_NODE)
    try:
        await _claim(rt, latest)
        await rt.store.update_meta(run_id, dumps(meta))
        await _commit(rt, run_id, step, UPDATE_NODE, delta_b, state_b, rc.encode(route), dumps(doc))
    except asyncio.CancelledError:
        await _cancelled(rt, run_id)
        raise
    # Waiting for `resume` to go on (LangGraph's `next`), unless the edit's hop ends the run; a
    # waiting run waits on, for what it waited for.
    status = RunStatus.DONE if route.kind is NextKind.STOP else RunStatus.INTERRUPTED
    if route.kind is NextKind.WAIT:
        await keep_waiting(rt, run_id, step, route)
        status = RunStatus.WAITING
    await settled(rt.store.set_status(run_id, status, expect_step=step))
    rt.notify(run_id, step, UPDATE_NODE, "state updated", {"as_node": doc["as_node"]}, EventKind.CUSTOM)
    return state


def as_delta(rt: Runtime[S], value: Any, run_id: str, step: int, node_id: str) -> tuple[S, bytes]:
    """`value` (the state type, or a mapping of some of its fields) as a stored delta, read back.

    Raises `StateValidationError` naming the run and what did not validate.
    """
    what = "input" if node_id == INPUT_NODE else "update"
    given = dict(value) if isinstance(value, Mapping) else value  # compared with what reads back
    try:
        if isinstance(value, Mapping):  # validated from its JSON form (for a dict state, any dict "is" one)
            value = rt.decode_delta(json.dumps(to_jsonable_python(value)).encode())
        elif not rt.is_state(value):
            raise TypeError(
                f"expected a {rt.type_name} or a mapping of its fields, got {type(value).__name__}"
            )
        data = rt.codec.encode_delta(value)
        back = rt.decode_delta(data)
        where = read_back_change(rt.state_type, given, back)
        if where is not None:
            raise ValueError(f"it would not read back as itself, at {where}")
    except (ValidationError, ValueError, TypeError) as exc:
        raise StateValidationError(
            f"the {what} of run {run_id!r} does not validate as a delta of {rt.type_name}: {exc}",
            run_id=run_id,
            step=step,
        ) from exc
    if rt.check_nulls and b"null" in data:  # JSON would store NaN and infinity as null
        check_finite(back, run_id, step, node_id, "delta")
    return back, data


def upgraded_meta(rt: Runtime[Any], latest: Latest, step: int) -> tuple[dict[str, Any], VersionMap | None]:
    """The run's meta, recording that step `step` on is stored in the engine's state version, and
    the run's versions after that (None: everything current). Nothing is written here."""
    run = latest.run
    meta = run_meta(run)
    vm = rt.versions(run)
    if vm is None or vm.at(step) == rt.state_version:
        return meta, vm
    ups = list(meta.get("migrations", []))
    ups.append({"from": vm.at(step), "to": rt.state_version, "at_step": step - 1, "ts": time.time()})
    meta["migrations"] = ups
    return meta, VersionMap.of(run.run_id, run.state_version, meta)


async def _editable(rt: Runtime[S], run_id: str, verb: str, allow_graph_change: bool) -> tuple[Latest, S]:
    """The run's latest records and state, refusing a run that is still running."""
    latest = await rt.latest(run_id)
    run = latest.run
    if run.status is RunStatus.RUNNING:
        raise RunNotFinishedError(
            f"cannot {verb} run {run_id!r}: it is running (step {latest.last_step} is its last "
            f"committed); wait until it stops or pauses, or resume({run_id!r}) first if its process died",
            run_id=run_id,
            step=latest.last_step,
        )
    rt.check_fingerprint(run, allow_graph_change)
    return latest, rt.fold(latest)


async def _claim(rt: Runtime[Any], latest: Latest) -> None:
    """Move the run to `running` if it still is as read; else `RunBusyError` (nothing written).

    Settled: cancelled meanwhile, the write has landed when the cancel is raised (see `_cancelled`).
    """
    run = latest.run
    try:
        await settled(
            rt.store.set_status(
                run.run_id,
                RunStatus.RUNNING,
                expect_step=latest.last_step,
                expect_status=run.status,
            )
        )
    except StatusConflictError as exc:
        raise RunBusyError(
            f"run {run.run_id!r} changed while this call read it (now {exc.status} at step {exc.step}, "
            f"read as {run.status} at step {latest.last_step}); nothing was written: read it again",
            run_id=run.run_id,
            step=latest.last_step,
        ) from exc


async def _cancelled(rt: Runtime[Any], run_id: str) -> None:
    """Mark `cancelled` a run this call had moved to `running` (`_claim`) and was cancelled before
    handing on: it will not be driven, and `running` with no driver would never change."""
    await settled(rt.store.set_status(run_id, RunStatus.CANCELLED))


async def _commit(
    rt: Runtime[Any],
    run_id: str,
    step: int,
    node_id: str,
    delta_b: bytes,
    state_b: bytes,
    route: str,
    calls: bytes | None,
) -> None:
    """Write the step, with the snapshot `state_b`."""
    rec = StepRecord(run_id, step, node_id, delta_b, route, state_b, 1, None, calls, None, time.time())
    await rt.store.save_step(rec)


def _last_node(rt: Runtime[Any], latest: Latest) -> str:
    """The node an edit acts as when none is named: the one that wrote the run's last step."""
    last = latest.last
    if last is None:
        return INPUT_NODE
    if last.node_id == UPDATE_NODE:
        acted = json.loads(last.calls or b"{}").get("as_node")
        return acted if isinstance(acted, str) else INPUT_NODE
    if last.node_id == FAN_OUT_NODE:
        raise GraphValidationError(
            f"update_state({last.run_id!r}): the last step is a fan-out's merge, so the node to act as "
            "is ambiguous; pass as_node=...",
            run_id=last.run_id,
            step=last.step,
        )
    return last.node_id
