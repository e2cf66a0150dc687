"""`Engine[S]`: wiring, validation and the step loop."""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Generic, TypeVar, cast

from pydantic import TypeAdapter, ValidationError

from emit import Emitter, Event, EventKind, NullEmitter, safe_emit
from store import (
    Checkpoint,
    Codec,
    CorruptRecordError,
    JsonCodec,
    Latest,
    MemoryStore,
    RunRecord,
    RunStatus,
    StepRecord,
    Store,
)
from store import RunExistsError as StoreRunExistsError

from .context import Context
from .errors import (
    DeltaTypeError,
    DuplicateNodeError,
    GraphChangedError,
    GraphError,
    GraphValidationError,
    MaxStepsExceeded,
    NodeError,
    NodeReturnTypeError,
    NodeTimeoutError,
    RunExistsError,
    RunNotFoundError,
    StateValidationError,
    UnknownNodeError,
)
from .graph import CompiledGraph, CompiledNode, Edge, Wiring, compile_graph
from .history import StepView
from .node import NodeLike, make_invoker
from .options import NodeOptions, Options
from .reducer import Reducer, default_reducer
from .result import NodeResult
from .routing import Next, NextKind, goto

__all__ = ["Engine"]

S = TypeVar("S")

_EMPTY_RESULT: NodeResult[Any] = NodeResult()
_NO_META: Mapping[str, Any] = MappingProxyType({})
_GOTO = NextKind.GOTO
_now = time.time


class Engine(Generic[S]):
    """A typed graph of nodes over one state type `S`, with durable, resumable runs.

    Wire it with `add`, `start_at` and `connect`; the graph is validated before the first step
    of the first run (or by `validate()`). One engine serves many concurrent runs: nothing
    about a run lives on the engine object, only in the store.

    Every step is committed to the store before the next one starts: the node's delta, the
    resolved next hop and, every `Options.snapshot_every` steps and at the end, the full state.
    `resume(run_id)` continues from the last committed step; a committed step never runs again.
    """

    def __init__(
        self,
        state_type: type[S],
        *,
        reducer: Reducer[S] | None = None,
        store: Store | None = None,
        emitter: Emitter | None = None,
        options: Options | None = None,
        codec: Codec[S] | None = None,
    ) -> None:
        self.state_type = state_type
        """The state type every node reads and every delta has."""
        r = reducer if reducer is not None else default_reducer(state_type)
        if r is None:
            raise GraphValidationError(
                f"state type {getattr(state_type, '__name__', state_type)!r} has no default reducer; "
                "pass reducer=... (a function (prev, delta) -> new state)"
            )
        self.reducer: Reducer[S] = r
        """Merges a delta into the state."""
        self.store: Store = store if store is not None else MemoryStore()
        """Where runs are persisted."""
        self.emitter: Emitter | None = (
            None if emitter is None or isinstance(emitter, NullEmitter) else emitter
        )
        """Where events go (None: events are not even built)."""
        self.options: Options = options if options is not None else Options()
        """Limits and failure handling."""
        self.codec: Codec[S] = codec if codec is not None else JsonCodec(state_type)
        """Encodes states and deltas for the store."""
        self._wiring: Wiring[S] = Wiring()
        self._compiled: CompiledGraph[S] | None = None
        self._is_state = _state_check(state_type)

    # ------------------------------------------------------------------ wiring

    def add(
        self,
        node_id: str,
        node: NodeLike[S],
        *,
        retries: int | None = None,
        timeout: float | None = None,
        backoff: float | None = None,
        thread: bool = False,
    ) -> Engine[S]:
        """Add a node under `node_id`; returns the engine for chaining.

        `node` is a function of `(ctx, state)` (sync or async) or an object with such a `run`.
        Sync nodes run on the event loop; pass `thread=True` for one that blocks.
        Raises `DuplicateNodeError` if the id is taken.
        """
        if not isinstance(node_id, str) or not node_id:
            raise GraphValidationError(f"node id must be a non-empty string, got {node_id!r}")
        if node_id in self._wiring.nodes:
            raise DuplicateNodeError(f"node {node_id!r} was already added", node_id=node_id)
        try:
            inv = make_invoker(node, thread=thread)
        except TypeError as exc:
            raise GraphValidationError(f"node {node_id!r}: {exc}", node_id=node_id) from exc
        self._wiring.nodes[node_id] = (
            node,
            inv,
            NodeOptions(retries=retries, timeout=timeout, backoff=backoff),
        )
        self._compiled = None
        return self

    def start_at(self, node_id: str) -> Engine[S]:
        """Make `node_id` the first node of every run."""
        self._wiring.start = node_id
        self._compiled = None
        return self

    def connect(self, src: str, dst: str, when: Callable[[S], bool] | None = None) -> Engine[S]:
        """Add a static edge `src -> dst`, taken when `when(state)` holds (None: always).

        Used when a node's result has no `route`; edges are tried in declaration order and the
        run stops when none holds. Unknown nodes are reported by `validate()`.
        """
        self._wiring.edges.append(Edge(src, dst, when))
        self._compiled = None
        return self

    def validate(self) -> None:
        """Check the graph now (runs do it before their first step); raises `GraphValidationError`."""
        self._graph()

    @property
    def fingerprint(self) -> str:
        """Hash of the graph's shape, recorded by each run; changes refuse resume."""
        return self._graph().fingerprint

    @property
    def nodes(self) -> tuple[str, ...]:
        """Node ids in insertion order."""
        return tuple(self._wiring.nodes)

    @property
    def edges(self) -> tuple[Edge[S], ...]:
        """Static edges in declaration order."""
        return tuple(self._wiring.edges)

    @property
    def start(self) -> str | None:
        """The start node, if set."""
        return self._wiring.start

    def _graph(self) -> CompiledGraph[S]:
        g = self._compiled
        if g is None:
            g = self._compiled = compile_graph(self._wiring, self.options)
        return g

    # ------------------------------------------------------------------ runs

    async def run(self, run_id: str, initial: S | Mapping[str, Any]) -> S:
        """Start run `run_id` from `initial` and drive it to the end; returns the final state.

        Raises `RunExistsError` if the id is stored (use `resume`), `StateValidationError` if
        `initial` does not validate, `GraphValidationError` for a malformed graph, `NodeError`
        when a node fails after its retries, `MaxStepsExceeded` at the step limit. After a
        failure every committed step is kept and `resume(run_id)` continues the run.
        """
        g = self._graph()
        state, encoded = self._validated(initial, run_id)
        now = time.time()
        rec = RunRecord(
            run_id=run_id,
            status=RunStatus.RUNNING,
            initial=encoded,
            fingerprint=g.fingerprint,
            created_at=now,
            updated_at=now,
        )
        try:
            await self.store.create_run(rec)
        except StoreRunExistsError as exc:
            raise RunExistsError(f"run {run_id!r} exists; use resume({run_id!r})", run_id=run_id) from exc
        if self.emitter is not None:
            self._emit(Event(run_id, 0, "", "run started", {"start": g.start}, kind=EventKind.RUN_START))
        return await self._drive(g, run_id, state, 0, goto(g.start))

    def run_sync(self, run_id: str, initial: S | Mapping[str, Any]) -> S:
        """`run` for callers without an event loop (uses `asyncio.run`)."""
        return asyncio.run(self.run(run_id, initial))

    async def resume(self, run_id: str) -> S:
        """Continue run `run_id` from its last committed step; returns the final state.

        A finished run returns its final state and runs nothing. A node whose step was
        committed never runs again; the node that was running (or failed) runs again.
        Raises `RunNotFoundError` for an unknown id, `GraphChangedError` if the graph's shape
        differs from the run's, `CorruptRecordError` for a stored record that cannot be decoded.
        """
        g = self._graph()
        latest = await self._latest(run_id)
        run = latest.run
        if run.fingerprint and run.fingerprint != g.fingerprint:
            raise GraphChangedError(
                f"run {run_id!r} was started by a graph with fingerprint {run.fingerprint}, this engine's "
                f"is {g.fingerprint}: nodes or edges changed since; resume it with the graph it started with",
                run_id=run_id,
                stored=run.fingerprint,
                current=g.fingerprint,
            )
        state = self._fold(latest)
        nxt = self._next_of(latest, g)
        if nxt.kind is not _GOTO:
            if run.status is not RunStatus.DONE:
                await self.store.set_status(run_id, RunStatus.DONE)
            return state
        await self.store.set_status(run_id, RunStatus.RUNNING)
        if self.emitter is not None:
            self._emit(
                Event(
                    run_id,
                    latest.last_step,
                    "",
                    "run resumed",
                    {"next": nxt.target, "status": str(run.status)},
                    kind=EventKind.RUN_RESUME,
                )
            )
        return await self._drive(g, run_id, state, latest.last_step, nxt)

    def resume_sync(self, run_id: str) -> S:
        """`resume` for callers without an event loop."""
        return asyncio.run(self.resume(run_id))

    async def get_state(self, run_id: str) -> S:
        """The state after the run's last committed step (`RunNotFoundError` if unknown)."""
        return self._fold(await self._latest(run_id))

    async def get_run(self, run_id: str) -> RunRecord:
        """The run's record: status, error, fingerprint (`RunNotFoundError` if unknown)."""
        rec = await self.store.get_run(run_id)
        if rec is None:
            raise RunNotFoundError(f"no run {run_id!r} in the store", run_id=run_id)
        return rec

    async def history(self, run_id: str) -> list[StepView[S]]:
        """Every committed step of the run, decoded, with the state after each."""
        run = await self.get_run(run_id)
        state = self._decode(run.initial, run_id, 0, "initial")
        out: list[StepView[S]] = []
        for rec in await self.store.load_steps(run_id):
            delta = None if rec.delta is None else self._decode(rec.delta, run_id, rec.step, "delta")
            if rec.state is not None:
                state = self._decode(rec.state, run_id, rec.step, "state")
            elif delta is not None:
                state = self.reducer(state, delta)
            out.append(
                StepView(
                    step=rec.step,
                    node_id=rec.node_id,
                    delta=delta,
                    state=state,
                    route=self._route(rec),
                    attempt=rec.attempt,
                    error=rec.error,
                    ts=rec.ts,
                )
            )
        return out

    async def checkpoint(self, run_id: str, label: str) -> int:
        """Save the run's current state under `label`; returns the step it was taken at."""
        latest = await self._latest(run_id)
        state = self._fold(latest)
        await self.store.save_checkpoint(
            Checkpoint(run_id=run_id, label=label, step=latest.last_step, state=self.codec.encode(state))
        )
        return latest.last_step

    async def load_checkpoint(self, run_id: str, label: str) -> S:
        """The state saved under `label` (`RunNotFoundError` if there is no such checkpoint)."""
        cp = await self.store.load_checkpoint(run_id, label)
        if cp is None:
            raise RunNotFoundError(f"run {run_id!r} has no checkpoint {label!r}", run_id=run_id)
        return self._decode(cp.state, run_id, cp.step, f"checkpoint {label!r}")

    # ------------------------------------------------------------------ the step loop

    async def _drive(self, g: CompiledGraph[S], run_id: str, state: S, step: int, nxt: Next) -> S:
        store = self.store
        codec = self.codec
        reducer = self.reducer
        emitter = self.emitter
        is_state = self._is_state
        nodes = g.nodes
        max_steps = self.options.max_steps
        snap_every = self.options.snapshot_every
        node_id = ""
        try:
            while nxt.kind is _GOTO:
                node_id = nxt.target
                node = nodes.get(node_id)
                if node is None:
                    raise UnknownNodeError(
                        f"step {step} routed to unknown node {node_id!r}",
                        run_id=run_id,
                        step=step,
                        node_id=node_id,
                    )
                if step >= max_steps:
                    raise MaxStepsExceeded(
                        f"run {run_id!r} reached max_steps={max_steps} before stopping (next node {node_id!r}); "
                        "raise Options.max_steps and resume to go on",
                        run_id=run_id,
                        step=step,
                        node_id=node_id,
                    )
                step += 1
                if emitter is not None:
                    t0 = time.perf_counter()
                    self._emit(Event(run_id, step, node_id, "", _NO_META, kind=EventKind.NODE_START))
                res, attempt = await self._execute(node, run_id, step, state)
                delta = res.delta
                if delta is None:
                    delta_b = None
                else:
                    if not is_state(delta):
                        raise DeltaTypeError(
                            f"node {node_id!r} returned a delta of type {type(delta).__name__}, "
                            f"expected {getattr(self.state_type, '__name__', self.state_type)}",
                            run_id=run_id,
                            step=step,
                            node_id=node_id,
                        )
                    state = reducer(state, delta)
                    delta_b = codec.encode_delta(delta)
                route = res.route
                if route is None:
                    route = node.resolve(state)
                elif route.kind is _GOTO and route.target not in nodes:
                    raise UnknownNodeError(
                        f"node {node_id!r} routed to unknown node {route.target!r}",
                        run_id=run_id,
                        step=step,
                        node_id=node_id,
                    )
                final = route.kind is not _GOTO
                await store.save_step(
                    StepRecord(
                        run_id,
                        step,
                        node_id,
                        delta_b,
                        g.encode_route(route),
                        codec.encode(state) if final or step % snap_every == 0 else None,
                        attempt,
                        None,
                        None,
                        None,
                        _now(),
                    )
                )
                if emitter is not None:
                    for ev in res.events:
                        self._emit(ev)
                    self._emit(
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
        except (GraphError, NodeError) as exc:
            await self._fail(run_id, step, node_id, exc)
            raise
        except asyncio.CancelledError:
            await asyncio.shield(self.store.set_status(run_id, RunStatus.CANCELLED))
            raise
        await store.set_status(run_id, RunStatus.DONE)
        if emitter is not None:
            self._emit(Event(run_id, step, "", "run finished", {"steps": step}, kind=EventKind.RUN_END))
        return state

    async def _execute(
        self, node: CompiledNode[S], run_id: str, step: int, state: S
    ) -> tuple[NodeResult[S], int]:
        attempt = 1
        call = node.call
        while True:
            ctx = Context(run_id, step, node.id, attempt, self.emitter)
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
                if res is None:
                    return _EMPTY_RESULT, attempt
                if not isinstance(res, NodeResult):
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
                return cast(NodeResult[S], res), attempt
            except GraphError:
                raise
            except Exception as exc:
                if attempt > node.retries:
                    kind = NodeTimeoutError if isinstance(exc, TimeoutError) else NodeError
                    what = (
                        f"timed out after {node.timeout}s" if kind is NodeTimeoutError else f"raised {exc!r}"
                    )
                    raise kind(
                        f"node {node.id!r} {what} at step {step} of run {run_id!r} "
                        f"(attempt {attempt} of {node.retries + 1}); fix it and resume({run_id!r})",
                        run_id=run_id,
                        step=step,
                        node_id=node.id,
                        attempts=attempt,
                    ) from exc
                delay = self._backoff(node, run_id, step, attempt)
                if self.emitter is not None:
                    self._emit(
                        Event(
                            run_id,
                            step,
                            node.id,
                            f"retrying after {exc!r}",
                            {"attempt": attempt, "delay": delay, "error": repr(exc)},
                            kind=EventKind.RETRY,
                        )
                    )
                if delay > 0:
                    await asyncio.sleep(delay)
                attempt += 1

    def _backoff(self, node: CompiledNode[S], run_id: str, step: int, attempt: int) -> float:
        if node.backoff <= 0:
            return 0.0
        base = min(node.backoff * 2.0 ** (attempt - 1), self.options.max_backoff)
        # Seeded from stable strings (not hash(), which is salted per process) so resumed and
        # replayed runs wait the same way.
        seed = hashlib.sha256(f"{self.options.seed}:{run_id}:{step}:{attempt}".encode()).digest()
        return base * (0.5 + 0.5 * random.Random(seed).random())

    async def _fail(self, run_id: str, step: int, node_id: str, exc: BaseException) -> None:
        msg = f"{type(exc).__name__}: {exc}"
        await self.store.set_status(run_id, RunStatus.FAILED, error=msg, error_node=node_id or None)
        if self.emitter is not None:
            self._emit(Event(run_id, step, node_id, msg, {"error": type(exc).__name__}, kind=EventKind.ERROR))

    def _emit(self, event: Event) -> None:
        if self.emitter is not None:
            safe_emit(self.emitter, event)

    # ------------------------------------------------------------------ decoding

    def _validated(self, initial: S | Mapping[str, Any], run_id: str) -> tuple[S, bytes]:
        """Validate the initial state by a round trip through the codec (what resume will see)."""
        try:
            if not self._is_state(initial):
                initial = TypeAdapter(self.state_type).validate_python(initial)
            encoded = self.codec.encode(cast(S, initial))
            return self.codec.decode(encoded), encoded
        except (ValidationError, ValueError, TypeError) as exc:
            raise StateValidationError(
                f"initial state of run {run_id!r} does not validate as "
                f"{getattr(self.state_type, '__name__', self.state_type)}: {exc}",
                run_id=run_id,
            ) from exc

    async def _latest(self, run_id: str) -> Latest:
        latest = await self.store.load_latest(run_id)
        if latest is None:
            raise RunNotFoundError(
                f"no run {run_id!r} in the store; start it with run({run_id!r}, ...)", run_id=run_id
            )
        return latest

    def _decode(self, data: bytes, run_id: str, step: int, what: str) -> S:
        try:
            return self.codec.decode(data)
        except (ValidationError, ValueError, TypeError) as exc:
            raise CorruptRecordError(
                f"run {run_id!r} step {step}: stored {what} does not decode as "
                f"{getattr(self.state_type, '__name__', self.state_type)}: {exc}",
                run_id=run_id,
                step=step,
                field=what,
            ) from exc

    def _fold(self, latest: Latest) -> S:
        run_id = latest.run.run_id
        state = self._decode(
            latest.base_state, run_id, latest.base_step, "state" if latest.base_step else "initial"
        )
        for rec in latest.tail:
            if rec.delta is not None:
                state = self.reducer(state, self._decode(rec.delta, run_id, rec.step, "delta"))
        return state

    def _route(self, rec: StepRecord) -> Next:
        try:
            return Next.from_json(rec.route)
        except (ValueError, TypeError) as exc:
            raise CorruptRecordError(
                f"run {rec.run_id!r} step {rec.step}: stored route {rec.route!r} is not a route: {exc}",
                run_id=rec.run_id,
                step=rec.step,
                field="route",
            ) from exc

    def _next_of(self, latest: Latest, g: CompiledGraph[S]) -> Next:
        if latest.last is None:
            return goto(g.start)
        return self._route(latest.last)


def _state_check(tp: Any) -> Callable[[Any], bool]:
    if isinstance(tp, type):
        try:
            isinstance(None, tp)
            return lambda x: isinstance(x, tp)
        except TypeError:
            pass
    # TypedDict and other non-class types: deltas are dicts.
    return lambda x: isinstance(x, dict)
