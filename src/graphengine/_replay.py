"""Deterministic replay: re-execute a recorded run and report where it diverges.

Each recorded step's node runs again on the state the record says it saw, with `ctx.call`
served from the recorded results and the recorded resume input; its delta and route are compared
with the record, value by value. Replay writes nothing and calls no tool.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from graphengine.store import StepRecord

from ._attempts import execute
from ._encoding import FAN_OUT_NODE, INPUT_NODE, UPDATE_NODE, encode_events, isolated
from ._runtime import corrupt_step
from .errors import ContextMissingError, GraphError, NodeError
from .routing import Next, NextKind
from .versions import VersionMap, migrate

if TYPE_CHECKING:
    from ._runtime import Runtime
    from .graph import CompiledGraph
    from .route_codec import RouteCodec

__all__ = ["Divergence", "ReplayReport", "diff_values", "replay_run"]

S = TypeVar("S")
_MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<missing>"})()
_WRITTEN = frozenset({INPUT_NODE, UPDATE_NODE})


@dataclass(frozen=True, slots=True)
class Divergence:
    """One value that differs between the record and the replay."""

    step: int
    """The step whose replay differs."""
    node_id: str
    """The node of that step."""
    field: str
    """What differs: "delta", "route", "error", "call" or "events"."""
    path: str
    """Where inside it, e.g. "items[3]" or "" for the whole value."""
    recorded: Any
    """The value in the record (JSON form; `<missing>` when absent)."""
    replayed: Any
    """The value the replay produced."""
    branch: int | None = None
    """The fan-out branch, for a branch's delta."""

    def __str__(self) -> str:
        where = f"step {self.step} node {self.node_id!r}" + (
            f" branch {self.branch}" if self.branch is not None else ""
        )
        at = f"{self.field}.{self.path}" if self.path else self.field
        return f"{where}: {at}: recorded {self.recorded!r}, replayed {self.replayed!r}"


@dataclass(frozen=True, slots=True)
class ReplayReport:
    """The outcome of `Engine.replay`: `ok`, or the divergences of the first diverging step."""

    run_id: str
    """The replayed run."""
    steps: int
    """Steps compared."""
    divergences: tuple[Divergence, ...] = field(default=())
    """Differences of the first step that diverged (empty when the replay is clean)."""

    @property
    def ok(self) -> bool:
        """True when every step replayed to the recorded delta and route."""
        return not self.divergences

    def __str__(self) -> str:
        if self.ok:
            return f"run {self.run_id!r}: {self.steps} steps replayed, no divergence"
        lines = [f"run {self.run_id!r} diverges at step {self.divergences[0].step}:"]
        lines += [f"  {d}" for d in self.divergences]
        return "\n".join(lines)


def diff_values(recorded: Any, replayed: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """Yield (path, recorded, replayed) for every leaf where two JSON-like values differ."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for k in list(recorded) + [k for k in replayed if k not in recorded]:
            sub = f"{path}.{k}" if path else str(k)
            yield from diff_values(recorded.get(k, _MISSING), replayed.get(k, _MISSING), sub)
    elif isinstance(recorded, list) and isinstance(replayed, list) and len(recorded) == len(replayed):
        for i, (a, b) in enumerate(zip(recorded, replayed, strict=True)):
            yield from diff_values(a, b, f"{path}[{i}]")
    elif recorded != replayed or type(recorded) is not type(replayed):
        yield path, recorded, replayed


def _json(data: bytes | str | None, run_id: str = "", step: int = 0, what: str = "") -> Any:
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError as exc:
        raise corrupt_step(run_id, step, what, f"{what} is not JSON: {exc}") from exc


def _event_docs(data: bytes | None, run_id: str, step: int) -> list[Any]:
    """Stored events as compared by replay: what a node said (kind, message, meta), not when."""
    docs = _json(data, run_id, step, "events") or []
    if not isinstance(docs, list):
        raise corrupt_step(run_id, step, "events", "events are not a JSON list")
    return [{k: d.get(k) for k in ("node_id", "kind", "msg", "meta")} for d in docs if isinstance(d, dict)]


async def replay_run(eng: Runtime[S], run_id: str, *, allow_graph_change: bool = False) -> ReplayReport:
    """Re-execute every recorded step of `run_id` and compare; see `Engine.replay`."""
    g, rc = eng.compiled()
    run = await eng.get_run(run_id)
    eng.check_fingerprint(run, allow_graph_change)
    rp = _Replay(eng, g, rc, run_id, eng.versions(run))
    state = eng.decode(run.initial, run_id, 0, "initial", rp.vm)
    prev: Next = eng.start_of(run)
    steps = await eng.store.load_steps(run_id)
    for rec in steps:
        divs: list[Divergence] = []
        if rec.node_id in _WRITTEN:
            pass  # a turn's input or an edit: no node ran; the recorded delta is what happened
        elif rec.node_id == FAN_OUT_NODE:
            if prev.kind is not NextKind.FAN_OUT:
                raise GraphError(
                    f"run {run_id!r} step {rec.step}: a fan-out record follows {prev!r}", run_id=run_id
                )
            divs = await _replay_fan_out(rp, rec, prev, state)
        else:
            divs = await _replay_node(rp, rec, state)
        if divs:
            return ReplayReport(run_id, rec.step, tuple(divs))
        state = _advance(eng, state, rec, rp.vm)
        prev = eng.route(rec)
    return ReplayReport(run_id, len(steps))


@dataclass(frozen=True, slots=True)
class _Replay(Generic[S]):
    """What replaying one run looks up once: the graph, its route codec, the run's value versions."""

    eng: Runtime[S]
    g: CompiledGraph[S]
    rc: RouteCodec[S]
    run_id: str
    vm: VersionMap | None

    def as_recorded(self, data: bytes | str | None, step: int, what: str = "delta") -> Any:
        """A stored value as JSON, migrated to the engine's state version (what a replay compares to)."""
        eng = self.eng
        doc = _json(data, self.run_id, step, what)
        if self.vm is not None and self.vm.at(step) != eng.state_version:
            doc = migrate(
                doc, self.vm.at(step), eng.state_version, eng.migrations, run_id=self.run_id, step=step
            )
        return doc


async def _replay_fan_out(rp: _Replay[S], rec: StepRecord, prev: Next, state: S) -> list[Divergence]:
    """Re-run a fan-out's branches (tools served from their records); where their deltas differ."""
    eng, run_id = rp.eng, rp.run_id
    divs: list[Divergence] = []
    recorded = {b.branch: b for b in await eng.store.load_branches(run_id, rec.step)}
    for i, br in enumerate(prev.branches):
        bstate = br.input if br.input is not None else isolated(eng, state, None)
        got = recorded.get(i)
        bdoc = _json(got.calls, run_id, rec.step, f"branch {i} calls") if got is not None else None
        bcalls = bdoc.get("calls", []) if isinstance(bdoc, dict) else []
        try:
            res, _, _ = await execute(
                eng, rp.g.nodes[br.node], run_id, rec.step, bstate, False, None, i, None, bcalls, None
            )
            replayed = None if res.delta is None else json.loads(eng.codec.encode_delta(res.delta))
        except ContextMissingError:
            raise  # not a divergence: the caller did not hand the run context again
        except Exception as exc:
            replayed = {"error": f"{type(exc).__name__}: {exc}"}
        want = rp.as_recorded(got.delta, rec.step, f"branch {i} delta") if got is not None else _MISSING
        for path, a, b in diff_values(want, replayed):
            divs.append(Divergence(rec.step, br.node, "delta", path, a, b, branch=i))
    return divs


async def _replay_node(rp: _Replay[S], rec: StepRecord, state: S) -> list[Divergence]:
    """Re-run a node step (resume input and tools served from its record); where it differs.

    Compared in turn: whether it failed, its delta, how many tools it called, its events, and
    (when all of those agree) its route.
    """
    eng, run_id = rp.eng, rp.run_id
    node = rp.g.nodes.get(rec.node_id)
    if node is None:
        raise GraphError(
            f"run {run_id!r} step {rec.step}: node {rec.node_id!r} is not in the graph", run_id=run_id
        )
    calls = _json(rec.calls, run_id, rec.step, "calls") or {}
    resumed = "input" in calls
    try:
        res, _, ctx = await execute(
            eng,
            node,
            run_id,
            rec.step,
            state,
            resumed,
            calls.get("input"),
            None,
            None,
            calls.get("calls", []),
            None,
        )
        failed: str | None = None
    except NodeError as exc:
        cause = exc.__cause__ if exc.__cause__ is not None else exc
        failed = f"{type(cause).__name__}: {cause}"
    divs: list[Divergence] = []
    if rec.error is not None or failed is not None:
        if (rec.error is None) != (failed is None):
            divs.append(Divergence(rec.step, rec.node_id, "error", "", rec.error, failed))
        return divs
    if res.delta is None:
        replayed_delta = None
    elif node.replaces_state:
        replayed_delta = json.loads(eng.codec.encode(res.delta))
    else:
        replayed_delta = json.loads(eng.codec.encode_delta(res.delta))
    recorded_delta = rp.as_recorded(
        rec.delta if not node.replaces_state else rec.state,
        rec.step,
        "delta" if not node.replaces_state else "state",
    )
    for path, a, b in diff_values(recorded_delta, replayed_delta):
        divs.append(Divergence(rec.step, rec.node_id, "delta", path, a, b))
    n_rec = len(calls.get("calls", []))
    n_made = len(ctx.calls or [])
    if n_made != n_rec:
        divs.append(Divergence(rec.step, rec.node_id, "call", "count", n_rec, n_made))
    replayed_events = _event_docs(encode_events(res.events, run_id, rec.step, rec.node_id), run_id, rec.step)
    for path, a, b in diff_values(_event_docs(rec.events, run_id, rec.step), replayed_events):
        divs.append(Divergence(rec.step, rec.node_id, "events", path, a, b))
    if not divs:
        after = _advance(eng, state, rec, rp.vm)
        route = res.route if res.route is not None else node.resolve(after)
        recorded_route = _json(rec.route, run_id, rec.step, "route")
        for path, a, b in diff_values(recorded_route, json.loads(rp.rc.encode(route))):
            divs.append(Divergence(rec.step, rec.node_id, "route", path, a, b))
    return divs


def _advance(eng: Runtime[S], state: S, rec: Any, vm: VersionMap | None) -> S:
    """The state after a recorded step, from the record (so later steps see what the run saw)."""
    if rec.state is not None:
        return eng.decode(rec.state, rec.run_id, rec.step, "state", vm)
    if rec.delta is not None:
        delta = eng.decode(rec.delta, rec.run_id, rec.step, "delta", vm)
        # `keep`: the caller may fold the same step twice (the route check, then the advance).
        return eng.merge(state, delta, rec.run_id, rec.step, rec.node_id, keep=True)
    return state
