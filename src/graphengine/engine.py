"""`Engine[S]`: wiring, validation and the public run API (the step loop is in `_loop.py`, what a run works with in `_runtime.py`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, overload

from graphengine.emit import Emitter, Event, EventKind, NullEmitter
from graphengine.store import (
    Codec,
    InvalidIdError,
    JsonCodec,
    Latest,
    MemoryStore,
    RunRecord,
    RunStatus,
    StatusConflictError,
    Store,
    check_id,
)
from graphengine.store import RunExistsError as StoreRunExistsError

from ._blocking import run_blocking
from ._edits import continue_turn, edit_state, upgraded_meta
from ._encoding import RESERVED_NODES, not_json
from ._loop import FirstHop, abandoned, create_settled, drive
from ._owner import is_lease_store, owning
from ._reads import Interrupt, RunReads
from ._replay import ReplayReport, replay_run
from ._runtime import (
    Runtime,
    checked_reducer,
    dumps,
    error_delta,
    settled,
    state_check,
    state_copier,
)
from ._spec import GraphSpec, graph_spec
from ._stream import RunStream, stream_continue, stream_resume, stream_run
from ._waits import Waker, claimed, on_resume, send_signal, signal_of, wait_store
from .context import NOT_GIVEN, Signal
from .errors import (
    DuplicateNodeError,
    EncodeError,
    GraphValidationError,
    RunBusyError,
    RunExistsError,
    RunNotFoundError,
    StateValidationError,
)
from .graph import CompiledGraph, Edge, NodeSpec, Wiring, check_predicate, compile_graph, state_fields
from .node import NodeLike, make_invoker
from .options import NodeOptions, Options
from .reducer import Reducer, _refuse_async_reducer, default_reducer, is_pure
from .route_codec import RouteCodec
from .routing import Next, NextKind, goto
from .schedules import ScheduleMethods
from .subgraph import Subgraph
from .versions import Migration
from .viz import RunPath, render, to_dot, to_mermaid

__all__ = ["Engine", "Interrupt"]

# How often resume re-reads a run whose status another process changed between resume's read
# and its status write (each round that happens, the run moved on; then it usually finished).
_RESUME_RACES = 3

S = TypeVar("S")
C = TypeVar("C")

_NO_INPUT: Any = object()
_GOTO = NextKind.GOTO
_log = logging.getLogger("graphengine")


class Engine(RunReads[S], ScheduleMethods[S]):
    """A typed graph of nodes over one state type `S`, with durable, resumable runs.

    Wire it with `add`, `start_at`, `connect` and `on_error`; the graph is validated before the
    first step of the first run (or by `validate()`). One engine serves many concurrent runs:
    nothing about a run lives on the engine object, only in the store.

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
        state_version: int | None = None,
        migrations: Mapping[int, Migration] | None = None,
    ) -> None:
        self.state_type = state_type
        """The state type every node reads and every delta has."""
        self._type_name = getattr(state_type, "__name__", str(state_type))
        if reducer is not None:
            _refuse_async_reducer(reducer, "reducer=")
        r = checked_reducer(reducer, state_type) if reducer is not None else default_reducer(state_type)
        if r is None:
            raise GraphValidationError(
                f"state type {self._type_name!r} has no default reducer; "
                "pass reducer=... (a function (prev, delta) -> new state)"
            )
        self.reducer: Reducer[S] = r
        """Merges a delta into the state."""
        self._reducer_pure = is_pure(r)
        self.store: Store = store if store is not None else MemoryStore()
        """Where runs are persisted."""
        self.emitter: Emitter | None = (
            None if emitter is None or isinstance(emitter, NullEmitter) else emitter
        )
        """Where events go (None: events are not even built)."""
        self.options: Options = options if options is not None else Options()
        """Limits and failure handling."""
        self.codec: Codec[S] = codec if codec is not None else JsonCodec(state_type)
        # a delta may leave out required keys; a codec written before `decode_delta` decodes it whole
        self._decode_delta: Callable[[bytes], S] = getattr(self.codec, "decode_delta", self.codec.decode)
        """Encodes states and deltas for the store."""
        self.state_version: int = int(
            state_version if state_version is not None else getattr(state_type, "__state_version__", 1)
        )
        """Version of the state schema; runs record it, older runs are migrated on resume."""
        self.migrations: Mapping[int, Migration] = dict(
            migrations if migrations is not None else getattr(state_type, "__migrations__", {})
        )
        """`{v: up_v_to_v_plus_1}` functions over JSON-like data."""
        if self.state_version < 1:
            raise GraphValidationError(f"state_version must be >= 1, got {self.state_version}")
        self._wiring: Wiring[S] = Wiring()
        self._compiled: tuple[CompiledGraph[S], RouteCodec[S]] | None = None
        self._run_meta: tuple[CompiledGraph[S], bytes] | None = None
        self._is_state = state_check(state_type)
        self._copy_state: Callable[[S], S] = state_copier(state_type)
        self._error_delta: Callable[[str], S] | None = error_delta(state_type)
        self.waker: Waker | None = None
        """Told when a run begins to wait or a signal makes it due (`graphengine.TimerWaker`, or
        `RunQueue.waker()` to defer a queue job to the due time); None: the timer is in the store
        and waits there for a `TimerWaker` (`graphengine serve`/`worker` run one) or a `resume`."""

    # ------------------------------------------------------------------ wiring

    def add(
        self,
        node_id: str,
        node: NodeLike[S] | Engine[Any],
        *,
        retries: int | None = None,
        timeout: float | None = None,
        backoff: float | None = None,
        retry_on: tuple[type[BaseException], ...] | None = None,
        thread: bool = False,
        interrupt_before: bool = False,
        state_in: Callable[[S], Any] | None = None,
        state_out: Callable[[S, Any], S] | None = None,
    ) -> Engine[S]:
        """Add a node under `node_id`; returns the engine for chaining.

        `node` is a function of `(ctx, state)` (sync or async), an object with such a `run`, or
        another `Engine` (a subgraph; `state_in`/`state_out` map to and from its state type).
        Sync nodes run on the event loop; pass `thread=True` for one that blocks.
        `interrupt_before=True` pauses the run before this node until `resume` is called.
        Raises `DuplicateNodeError` if the id is taken.
        """
        try:
            check_id(node_id, "node id")  # the stores' id rule: node ids are stored with every step
        except InvalidIdError as exc:
            raise GraphValidationError(str(exc)) from exc
        if node_id in RESERVED_NODES:
            raise GraphValidationError(
                f"node id {node_id!r} is reserved for the engine's own steps; choose another id"
            )
        if node_id in self._wiring.nodes:
            raise DuplicateNodeError(f"node {node_id!r} was already added", node_id=node_id)
        replaces = False
        obj: Any = node
        if isinstance(node, Engine):
            if state_in is None and node.state_type is not self.state_type:
                raise GraphValidationError(
                    f"subgraph {node_id!r} has state type {node._type_name}, not {self._type_name}: "
                    "pass state_in= and state_out= to map between them",
                    node_id=node_id,
                )
            obj = Subgraph(node, state_in, state_out)
            replaces = state_out is None
        try:
            inv = make_invoker(obj, thread=thread)
        except TypeError as exc:
            raise GraphValidationError(f"node {node_id!r}: {exc}", node_id=node_id) from exc
        _check_node_options(node_id, retries, timeout, backoff)
        opts = NodeOptions(retries=retries, timeout=timeout, backoff=backoff, retry_on=retry_on)
        self._wiring.nodes[node_id] = NodeSpec(obj, inv, opts, interrupt_before, replaces)
        self._compiled = None
        return self

    def start_at(self, node_id: str) -> Engine[S]:
        """Make `node_id` the first node of every run."""
        self._wiring.start = node_id
        self._compiled = None
        return self

    @overload
    def connect(self, src: str, dst: str, when: Callable[[S], bool] | None = None) -> Engine[S]: ...

    @overload
    def connect(
        self, src: str, dst: Sequence[str], when: Callable[[S], bool] | None = None, *, join: str
    ) -> Engine[S]: ...

    def connect(
        self,
        src: str,
        dst: str | Sequence[str],
        when: Callable[[S], bool] | None = None,
        *,
        join: str | None = None,
    ) -> Engine[S]:
        """Add a static edge `src -> dst`, taken when `when(state)` holds (None: always).

        Used when a node's result has no `route`; edges are tried in declaration order and the
        run stops when none holds. With a list of nodes as `dst` the edge is a fan-out to them,
        and `join` (required) runs after their deltas are merged. Unknown nodes are reported by
        `validate()`. A predicate that is not callable or is async is refused here
        (`GraphValidationError`); one that returns an awaitable fails its step (`RoutingError`).
        """
        check_predicate(src, dst if isinstance(dst, str) else str(join), when)
        if isinstance(dst, str):
            if join is not None:
                raise GraphValidationError(
                    f"connect({src!r}, {dst!r}): join= is only for a fan-out to several nodes"
                )
            self._wiring.edges.append(Edge(src, dst, when))
        else:
            branches = tuple(dst)
            if not branches:
                raise GraphValidationError(
                    f"connect({src!r}, []): a fan-out needs at least one branch", node_id=src
                )
            if not join:
                raise GraphValidationError(
                    f"connect({src!r}, {list(branches)!r}): a fan-out needs a join node (join=...)",
                    node_id=src,
                )
            self._wiring.edges.append(Edge(src, join, when, branches))
        self._compiled = None
        return self

    def on_error(self, node_id: str | None, handler: str) -> Engine[S]:
        """Route a node's failure (after its retries) to `handler`; `node_id=None` covers every node.

        The failed step is committed with the error (and the state's `last_error` field set when
        it has one) and the run goes on at `handler`; the run record keeps the last error.
        """
        self._wiring.error_routes[node_id] = handler
        self._compiled = None
        return self

    def validate(self) -> None:
        """Check the graph now (runs do it before their first step); raises `GraphValidationError`."""
        self._graph()

    @property
    def fingerprint(self) -> str:
        """Hash of the graph's shape, recorded by each run; changes refuse resume."""
        return self._graph()[0].fingerprint

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

    def _meta_of(self, g: CompiledGraph[S]) -> bytes:
        """The meta a new run records: the graph's description, encoded once per compiled graph."""
        m = self._run_meta
        if m is None or m[0] is not g:
            m = self._run_meta = (g, dumps({"graph": g.description}))
        return m[1]

    def _graph(self) -> tuple[CompiledGraph[S], RouteCodec[S]]:
        c = self._compiled
        if c is None:
            g = compile_graph(self._wiring, self.options, state_fields(self.state_type))
            c = self._compiled = (g, RouteCodec(self.codec, g.nodes))
        return c

    def runtime(self) -> Runtime[S]:
        """What a run of this engine works with now: the compiled graph, codec, reducer, store, emitter, options.

        The graph is validated when first used (`GraphValidationError`). The step loop, replay, streaming, workers
        and adapters receive it; a copy of the engine with another store or emitter makes its own.
        """
        return Runtime(
            state_type=self.state_type,
            reducer=self.reducer,
            reducer_pure=self._reducer_pure,
            store=self.store,
            emitter=self.emitter,
            options=self.options,
            codec=self.codec,
            state_version=self.state_version,
            migrations=self.migrations,
            compile=self._graph,
            decode_delta=self._decode_delta,
            is_state=self._is_state,
            copy_state=self._copy_state,
            error_delta=self._error_delta,
            waker=self.waker,
        )

    def spec(self) -> GraphSpec:
        """The graph as declared so far, read-only: nodes, edges with predicate names, error routes, start.

        Its `fingerprint` is None while the graph does not validate; drawing an unfinished
        graph is allowed. Its `merge_order(writes)` tells whether a fan-out merges its branches
        as they land or in declared order (`graphengine.commute`).
        """
        try:
            fingerprint: str | None = self._graph()[0].fingerprint
        except GraphValidationError:
            fingerprint = None
        return graph_spec(self.state_type, self._wiring, fingerprint, self.reducer)

    # ------------------------------------------------------------------ runs

    async def run(self, run_id: str, initial: S | Mapping[str, Any], *, context: Any = None) -> S:
        """Start run `run_id` from `initial` and drive it until it stops or pauses; returns the state.

        `context` is the run context nodes read as `ctx.context` (a user id, a client, a model
        choice: per-run values that are not state); it is never stored, so `resume`,
        `continue_run` and `replay` take it again. It is typed where it is read, by the node's
        `ctx: Context[Deps]`: the engine stays `Engine[S]`, as a second type parameter would reach
        every node protocol and annotation for a value only nodes look at.

        An interrupt returns the state at that point (status `interrupted`; no exception).
        Raises `RunExistsError` if the id is stored (`resume` finishes it, `continue_run` begins
        its next turn), `StateValidationError` if
        `initial` does not validate, `GraphValidationError` for a malformed graph, `NodeError`
        when a node fails after its retries with no error route, `MaxStepsExceeded` at the step
        limit. After a failure every committed step is kept and `resume(run_id)` continues.
        While it runs, a `resume` of the run in this process, or in another process on a
        `SQLiteStore` file, raises `RunBusyError` (see `resume`).
        """
        driving = await self._created(run_id, initial, context)
        del initial  # while it runs, a run holds its current state only, not the caller's value
        # Owned once stored, so a second run() of the id still gets RunExistsError (not busy).
        async with contextlib.AsyncExitStack() as owned:
            try:
                await owned.enter_async_context(owning(self.store, run_id, lease_ttl=None))
            except BaseException as exc:
                driving.close()  # never started: nothing of it ran
                await abandoned(self.store, run_id, exc)  # stored, so not left `running` by no one
                raise
            return await driving

    async def _created(
        self, run_id: str, initial: S | Mapping[str, Any], context: Any = None
    ) -> Coroutine[Any, Any, S]:
        """Store run `run_id` from `initial`; the drive of its steps (with `context`), not yet started."""
        _check_run_id(run_id)
        rt = self.runtime()
        rt.context = context
        g, rc = rt.compiled()
        state, encoded = rt.validated(initial, run_id)
        now = time.time()
        rec = RunRecord(
            run_id=run_id,
            status=RunStatus.RUNNING,
            initial=encoded,
            fingerprint=g.fingerprint,
            state_version=self.state_version,
            created_at=now,
            updated_at=now,
            meta=self._meta_of(g),
        )
        try:
            await create_settled(self.store, rec)  # a cancel meanwhile leaves it `cancelled`
        except StoreRunExistsError as exc:
            raise RunExistsError(
                f"run {run_id!r} exists; use resume({run_id!r}) to finish it, or "
                f"continue_run({run_id!r}, input) to begin its next turn",
                run_id=run_id,
            ) from exc
        if self.emitter is not None:
            rt.emit(Event(run_id, 0, "", "run started", {"start": g.start}, kind=EventKind.RUN_START))
        return drive(rt, g, rc, run_id, state, 0, goto(g.start), FirstHop(snap_size=len(encoded)))

    def run_sync(self, run_id: str, initial: S | Mapping[str, Any], *, context: Any = None) -> S:
        """`run` from synchronous code: a script, or a Jupyter cell (inside the kernel's running loop).

        Without a running loop it is `asyncio.run(self.run(...))`. Inside one (which cannot be
        re-entered) the run is driven on graphengine's private sync loop, on its own thread,
        while the caller waits; store connections then live on that loop and are kept for the
        next sync call (see `graphengine._blocking` for why that is right for every store, and
        the one thing it cannot do: a sync call while the caller's loop has a call of the same
        store in flight). Interrupting the wait cancels the run (`resume` continues it).
        """
        return run_blocking(self.run(run_id, initial, context=context))

    async def submit(self, run_id: str, initial: S | Mapping[str, Any], *, queue: Any = None) -> int:
        """Store run `run_id` from `initial` and queue it for a worker (`graphengine worker`); returns the job id.

        `queue` is an open `graphengine.workers.RunQueue`, a PostgreSQL DSN, or None (then
        `$GRAPHENGINE_QUEUE_DSN` or this engine's `PostgresStore`). Raises what `run` raises
        before its first step (`RunExistsError`, `StateValidationError`, `GraphValidationError`);
        the run is driven by a worker, see `graphengine.workers`.
        """
        from .workers import submit

        return await submit(self, run_id, initial, queue=queue)

    async def resume(
        self, run_id: str, *, input: Any = _NO_INPUT, allow_graph_change: bool = False, context: Any = None
    ) -> S:
        """Continue run `run_id` from its last committed step; returns the state where it ends or pauses.

        A finished run returns its final state and runs nothing. A node whose step was
        committed never runs again; the node that was running (or failed) runs again. For an
        interrupted run, `input` is handed to the node that paused (`ctx.resume_input`, or the
        return value of `ctx.interrupt`); without `input` a run waiting on a node's interrupt
        keeps waiting and its state is returned (pass `input=None` to continue with no value). Raises `RunNotFoundError` for an unknown id,
        `GraphChangedError` if the graph's shape differs from the run's (unless
        `allow_graph_change`), `CorruptRecordError` for a stored record that cannot be decoded,
        `RunBusyError` (nothing run) when another caller drives the run or took the interrupt's answer.

        One driver at a time, so the answer of a pause (an interrupt's input, or the go-ahead of
        a node marked `interrupt_before`) is taken once: an approved payment is made once, however
        many callers approve it at the same moment. A resume owns the run while it drives it: in
        this process, per store; across processes through the store, when it can tell a live
        driver from a dead one: a `SQLiteStore` lock on `<path>-runlock` that dies with its
        process; on a `LeaseStore` (PostgreSQL, MySQL), a lease taken by a resume that answers a
        pause (unless the caller holds it already: a worker), renewed every `lease_ttl / 3` and
        released at the end. A second caller gets `RunBusyError` instead of running the node
        again, and so does a resume whose status write finds that another one took the answer.
        A run left `running` by a crashed process is resumed like any other, at once, except on a
        server store a run whose answer was in flight when its driver died: it can be answered
        again once that lease runs out (`Options.lease_ttl`). Other resumes take no lease, so
        crash recovery does not wait; a live lease still fences their writes (`LeaseLostError`).
        On a store with no ownership, the status compare-and-set still lets one of two resumes
        take an answer, but a run found `running` at a pause may have a live driver elsewhere, so
        a resume with input refuses it (`RunBusyError`); `resume(run_id)` without input puts such
        a run back to waiting, once its driver is known to be gone. `context` is the run context
        nodes read (see `run`; it is not stored, so pass it again).
        """
        rt = self.runtime()
        rt.context = context
        rt.compiled()
        # Only an answer takes a lease: a run left `running` by a crash is then resumed at once,
        # except one whose answer was in flight, which waits out the dead driver's lease. A
        # resume without input finds out it answers (a pause before a node) once it has read.
        leased = input is not _NO_INPUT
        if leased:
            _check_input(run_id, input)
        while True:
            ttl = self.options.lease_ttl if leased else None
            try:
                async with owning(self.store, run_id, lease_ttl=ttl) as sole:
                    can_lease = not leased and is_lease_store(self.store)
                    for race in range(_RESUME_RACES):
                        try:
                            return await self._resume(rt, run_id, input, allow_graph_change, sole, can_lease)
                        except _MovedOn as moved:
                            if race + 1 == _RESUME_RACES:
                                raise moved.error from None
            except _Answering:
                leased = True

    async def _resume(
        self,
        rt: Runtime[S],
        run_id: str,
        input: Any,
        allow_graph_change: bool,
        sole: bool,
        can_lease: bool,
    ) -> S:
        """One attempt of `resume`; `_MovedOn` when another process changed the run meanwhile.

        `sole`: no other driver of the run can exist anywhere (see `_owner.owning`); `_Answering`
        when this resume answers a pause and would be the sole driver with a lease (`can_lease`).
        """
        latest = await rt.latest(run_id)
        run = latest.run
        has_input = input is not _NO_INPUT
        # Every status write below is conditioned on what was just read, so a resumer that
        # stalled here cannot flip a run its owner finished (or moved on) meanwhile.
        read = _ResumeRead.of(self.store, run_id, latest, has_input)
        rt.check_fingerprint(run, allow_graph_change)
        state = rt.fold(latest)
        nxt = rt.next_of(latest)
        interrupted_at = None
        prior = None
        woke = nxt if nxt.kind is NextKind.WAIT else None
        if woke is not None:
            hop = await on_resume(rt, latest, woke, sole)
            if hop is None:  # not due yet, or claimed by another driver: nothing to run
                if run.status is not RunStatus.WAITING and (sole or run.status is not RunStatus.RUNNING):
                    await read.move_to(RunStatus.WAITING)
                return state
            nxt, prior = hop
        if nxt.kind is NextKind.INTERRUPT:
            assert latest.last is not None
            if not has_input:
                # Still waiting: the answer is what continues an interrupt. (Deciding from the
                # last step, not the run status, keeps this right after a crash that lost the
                # status write.) Pass input=None to continue without a value.
                if run.status is not RunStatus.INTERRUPTED:
                    await read.move_to(RunStatus.INTERRUPTED)
                return state
            paused_node, interrupted_at = rt.interrupted(latest.last)
            nxt = goto(paused_node)
        elif nxt.kind is NextKind.STOP:
            if run.status is not RunStatus.DONE:
                await read.move_to(RunStatus.DONE)
            return state
        if read.answering and not sole:
            if can_lease:
                raise _Answering
            _refuse_taken_answer(rt, read, nxt, interrupted_at, has_input)
        first = await self._first_hop(rt, latest, read, input, sole, interrupted_at, prior)
        await read.move_to(RunStatus.RUNNING)  # for a waiting run: the claim, won by one waker
        if woke is not None:
            await claimed(rt, run_id, read.step)
        if self.emitter is not None:
            _emit_resumed(rt, latest, nxt, woke)
        return await drive(rt, rt.graph, rt.routes, run_id, state, latest.last_step, nxt, first)

    async def _first_hop(
        self,
        rt: Runtime[S],
        latest: Latest,
        read: _ResumeRead,
        input: Any,
        sole: bool,
        interrupted_at: int | None,
        prior: Any = None,
    ) -> FirstHop:
        """How a resume's first step is driven; a run whose stored values predate the engine's state
        version has its version map extended first (its next step stores a snapshot in the new version).

        `input` is `_NO_INPUT` when the resume hands the node none; `prior`, for a node continuing
        its own wait, the calls its waiting step recorded.
        """
        run = latest.run
        has_input = input is not _NO_INPUT
        vm = rt.versions(run)
        forced_snapshot = False
        if vm is not None and vm.at(latest.last_step + 1) != self.state_version:
            meta, vm = upgraded_meta(rt, latest, latest.last_step + 1)
            await self.store.update_meta(read.run_id, dumps(meta))
            forced_snapshot = True  # the first new step stores the state in the new version
        return FirstHop(
            resumed=has_input,
            input=input if has_input else None,
            # A sole driver answering a run left `running` at a pause takes over an answer whose
            # driver died; without input (or ownership) such a run pauses again instead.
            approved=read.status is RunStatus.INTERRUPTED
            or prior is not None  # a node continuing its own wait was past its pause already
            or (has_input and sole and run.status is RunStatus.RUNNING),
            interrupted_at=interrupted_at,
            error=read.error,
            error_node=read.error_node,
            snap_size=len(latest.base_state),
            since_bytes=sum(len(r.delta) for r in latest.tail if r.delta is not None),
            since_steps=self.options.snapshot_every if forced_snapshot else len(latest.tail),
            versions=vm,
            turn_start=rt.turn_start(run),
            prior=prior,
        )

    async def signal(self, run_id: str, name: str, payload: Any = None, *, id: str | None = None) -> Signal:
        """Send signal `name` with `payload` (JSON values) to run `run_id`; returns the stored signal.

        Idempotent by `id`: a second signal with an id the run already has stores nothing and
        returns the first (webhooks retry: pass their delivery id). Without `id` a fresh one is
        made. A signal that comes before its `ctx.wait_for(name)` is buffered and received by
        it; each signal is received once, oldest first. A run waiting for `name` is made due at
        once (and the engine's `waker` told, so a timer waker or worker continues it); without one
        it continues on its next `resume`. Raises `SignalRefusedError` for an unknown run or one
        that is done (nothing was stored), `ValueError` for an empty name or a payload JSON
        cannot hold, `WaitError` when the store keeps no signals.
        """
        rt = self.runtime()
        sig, _, _ = await send_signal(rt, run_id, name, payload, id)
        return sig

    async def signals(self, run_id: str) -> list[Signal]:
        """The signals sent to run `run_id`, in arrival order; `taken_step` names the step that
        received each (None: buffered). `RunNotFoundError` for an unknown run."""
        rt = self.runtime()
        store = wait_store(rt, f"the signals of run {run_id!r}")
        await rt.get_run(run_id)
        return [signal_of(s) for s in await store.list_signals(run_id)]

    def resume_sync(
        self, run_id: str, *, input: Any = _NO_INPUT, allow_graph_change: bool = False, context: Any = None
    ) -> S:
        """`resume` from synchronous code, with or without a running event loop (see `run_sync`)."""
        return run_blocking(
            self.resume(run_id, input=input, allow_graph_change=allow_graph_change, context=context)
        )

    async def continue_run(
        self,
        run_id: str,
        input: S | Mapping[str, Any],
        *,
        context: Any = None,
        allow_graph_change: bool = False,
    ) -> S:
        """Begin the next turn of run `run_id`: merge `input` into its state and run the graph again
        from its start node; returns the state where the turn ends or pauses.

        This is LangGraph's "invoke the same thread again" (a chat's next message). A call of its
        own, not `run` on a stored id (a second `run` of an id stays `RunExistsError`, so a typo'd
        id never silently continues another conversation) nor `resume` (which finishes what was
        left, without input). `input` is a delta (the state type, or a mapping of some of its
        fields) merged through the reducer, as a node's delta is: `Annotated[list[str], append]`
        appends the new message.

        The run must be stopped: finished, paused, failed or cancelled. A pending interrupt or an
        unfinished step of the previous turn is left behind, as LangGraph drops a thread's pending
        tasks on new input. Every turn's steps are in one history with increasing step numbers:
        each turn begins with a step of node `INPUT_NODE` holding the input, so `history`,
        `replay`, `fork(at_step=...)` and time travel reach any turn. `Options.max_steps` counts
        per turn. Raises `RunNotFoundError` for an unknown id, `RunNotFinishedError` (a
        `RunBusyError`) while the run is running, `RunBusyError` when another caller acts on it
        first, `StateValidationError` for an input that is not a delta of the state type, and
        what `run` raises while driving. `context` is this turn's run context (see `run`).
        """
        rt = self.runtime()
        rt.context = context
        rt.compiled()
        async with owning(self.store, run_id, lease_ttl=self.options.lease_ttl):
            return await continue_turn(rt, run_id, input, allow_graph_change)

    def continue_run_sync(self, run_id: str, input: S | Mapping[str, Any], *, context: Any = None) -> S:
        """`continue_run` from synchronous code, with or without a running event loop (see `run_sync`)."""
        return run_blocking(self.continue_run(run_id, input, context=context))

    async def update_state(
        self,
        run_id: str,
        values: S | Mapping[str, Any],
        *,
        as_node: str | None = None,
        goto: str | None = None,
        allow_graph_change: bool = False,
    ) -> S:
        """Edit the state of a stopped run, as a recorded step "as node `as_node`"; returns the new state.

        LangGraph's `update_state`. `values` is a delta merged through the reducer. The edit is a
        committed step of node `UPDATE_NODE` (its `StepView.as_node` names `as_node`), shown by
        `history`, followed by `replay` and `fork`. Where the run goes next: a paused run stays
        paused where it was (an interrupt is still answered with `resume(run_id, input=...)`);
        otherwise the hop is resolved from the edited state as if `as_node` had returned the
        delta (its static edges), and the run waits there (`interrupted`) until `resume`, or is
        `done` when that hop stops. Without `as_node`, the node of the run's last step. `goto`
        names the next node instead of `as_node`'s edges (as a node's `route=goto(...)` would).
        Raises `RunNotFinishedError` while the run is running, `RunBusyError` when another caller
        acts on it first, `GraphValidationError` for an unknown `as_node` or `goto` (or when the last step
        is a fan-out's merge and none is named), `StateValidationError` for a bad delta.
        """
        rt = self.runtime()
        rt.compiled()
        async with owning(self.store, run_id, lease_ttl=self.options.lease_ttl):
            return await edit_state(rt, run_id, values, as_node, goto, allow_graph_change)

    def stream(
        self,
        run_id: str,
        initial: S | Mapping[str, Any],
        *,
        states: bool = False,
        max_buffer: int = 1024,
        context: Any = None,
    ) -> RunStream[S]:
        """`run`, yielding the run's events as they happen: `async for ev in g.stream(...)`.

        Deltas ride on `node_end` events, `states=True` adds the state after each step; the
        buffering policy, ordering and isolation are described in `graphengine._stream` (`RunStream`).
        `context` is the run context, as for `run`.
        """
        return stream_run(self, run_id, initial, states=states, max_buffer=max_buffer, context=context)

    def stream_resume(
        self,
        run_id: str,
        *,
        input: Any = _NO_INPUT,
        states: bool = False,
        max_buffer: int = 1024,
        allow_graph_change: bool = False,
        context: Any = None,
    ) -> RunStream[S]:
        """`resume`, yielding the run's events as they happen (see `stream`)."""
        kw = {} if input is _NO_INPUT else {"input": input}
        return stream_resume(
            self,
            run_id,
            states=states,
            max_buffer=max_buffer,
            allow_graph_change=allow_graph_change,
            context=context,
            **kw,
        )

    def stream_continue(
        self,
        run_id: str,
        input: S | Mapping[str, Any],
        *,
        states: bool = False,
        max_buffer: int = 1024,
        context: Any = None,
        allow_graph_change: bool = False,
    ) -> RunStream[S]:
        """`continue_run`, yielding the turn's events as they happen (see `stream`); the first step
        event is the turn's input step (node `INPUT_NODE`)."""
        return stream_continue(
            self,
            run_id,
            input,
            states=states,
            max_buffer=max_buffer,
            context=context,
            allow_graph_change=allow_graph_change,
        )

    def to_dot(self, *, highlight: RunPath | None = None) -> str:
        """The graph as Graphviz DOT; `highlight=await graphengine.viz.run_path(g, run_id)` marks a run."""
        return to_dot(self, highlight=highlight)

    def to_mermaid(self, *, highlight: RunPath | None = None) -> str:
        """The graph as a Mermaid flowchart (see `to_dot`)."""
        return to_mermaid(self, highlight=highlight)

    def render(
        self, path: str | Path, *, format: str | None = None, highlight: RunPath | None = None
    ) -> Path:
        """Draw the graph to a file through Graphviz `dot` (`RenderError` naming the fix if it is missing)."""
        return render(self, path, format=format, highlight=highlight)

    async def replay(
        self, run_id: str, *, allow_graph_change: bool = False, context: Any = NOT_GIVEN
    ) -> ReplayReport:
        """Re-execute every recorded step against its recorded input and compare; writes nothing.

        The run context is never stored: pass the one the run had as `context=` (None when it had
        none); a node reading `ctx.context` of a replay given none raises `ContextMissingError`.
        Turn inputs (`continue_run`) and edits (`update_state`) are recorded steps no node ran:
        replay folds them in as recorded and goes on.

        Tool calls (`ctx.call`) are served from the record and never made; resume inputs are
        the recorded ones. `report.ok` is True when every step's delta and route match;
        otherwise `report.divergences` lists what differs at the first diverging step (field
        path, recorded value, replayed value). Raises `GraphChangedError` for a changed graph.
        """
        rt = self.runtime()
        rt.context = context
        return await replay_run(rt, run_id, allow_graph_change=allow_graph_change)

    async def fork(
        self,
        run_id: str,
        new_run_id: str,
        *,
        at_step: int | None = None,
        at_label: str | None = None,
        patch: S | None = None,
        context: Any = None,
    ) -> S:
        """Start `new_run_id` from the state of `run_id` at a past step (time travel) and run it.

        Give `at_step` (0: the initial state; default: the latest step) or `at_label` (a
        checkpoint). `patch`, a delta, is merged into that state first. The new run continues
        where the source's step said to go next; the source run is not touched. Returns what
        `run` returns; `context` is the new run's context (see `run`). Any step of a run of many
        turns can be forked, a turn's input step included; the new run is a new thread, continued
        with `continue_run(new_run_id, ...)`. A step that is not a whole number is a
        `GraphValidationError`.
        """
        _check_run_id(new_run_id)
        if at_step is not None and (isinstance(at_step, bool) or not isinstance(at_step, int)):
            raise GraphValidationError(
                f"fork({run_id!r}, at_step={at_step!r}): a step is a whole number (0: the initial "
                "state; history() lists the steps)",
                run_id=run_id,
            )
        async with owning(self.store, new_run_id, lease_ttl=None):
            return await self._fork(run_id, new_run_id, at_step, at_label, patch, context)

    async def _fork(
        self,
        run_id: str,
        new_run_id: str,
        at_step: int | None,
        at_label: str | None,
        patch: S | None,
        context: Any,
    ) -> S:
        rt = self.runtime()
        rt.context = context
        g, rc = rt.compiled()
        src = await self.get_run(run_id)
        if at_label is not None:
            if at_step is not None:
                raise GraphValidationError("fork takes at_step or at_label, not both")
            cp = await self.store.load_checkpoint(run_id, at_label)
            if cp is None:
                raise RunNotFoundError(f"run {run_id!r} has no checkpoint {at_label!r}", run_id=run_id)
            at_step = cp.step
        steps = list(await self.store.load_steps(run_id))
        if at_step is None:
            at_step = len(steps)
        if not 0 <= at_step <= len(steps):
            raise GraphValidationError(
                f"run {run_id!r} has steps 0..{len(steps)}; cannot fork at step {at_step}", run_id=run_id
            )
        vm = rt.versions(src)
        state = rt.decode(src.initial, run_id, 0, "initial", vm)
        for rec in steps[:at_step]:
            if rec.state is not None:
                state = rt.decode(rec.state, run_id, rec.step, "state", vm)
            elif rec.delta is not None:
                delta = rt.decode(rec.delta, run_id, rec.step, "delta", vm)
                state = rt.merge(state, delta, run_id, rec.step, rec.node_id)
        nxt = rt.route(steps[at_step - 1]) if at_step else rt.start_of(src)
        if nxt.kind is NextKind.INTERRUPT:
            nxt = goto(rt.interrupted(steps[at_step - 1])[0])
        elif nxt.kind is NextKind.WAIT:
            nxt = goto(nxt.target)  # a fork does not inherit the wait: its node runs (and waits) anew
        if patch is not None:
            if not rt.is_state(patch):
                raise StateValidationError(
                    f"fork patch must be a {self._type_name}, got {type(patch).__name__}"
                )
            state = rt.merge(state, patch, run_id, at_step, "patch")
        state, encoded = rt.validated(state, new_run_id)
        now = time.time()
        meta = {"graph": g.description, "forked_from": run_id, "at_step": at_step, "start": rc.encode(nxt)}
        new = RunRecord(
            new_run_id,
            RunStatus.RUNNING,
            encoded,
            g.fingerprint,
            self.state_version,
            now,
            now,
            meta=dumps(meta),
        )
        try:
            await self.store.create_run(new)
        except StoreRunExistsError as exc:
            raise RunExistsError(f"run {new_run_id!r} exists; fork into a new id", run_id=new_run_id) from exc
        if nxt.kind is NextKind.STOP:
            await self.store.set_status(new_run_id, RunStatus.DONE)
            return state
        return await drive(rt, g, rc, new_run_id, state, 0, nxt, FirstHop(snap_size=len(encoded)))


def _check_run_id(run_id: Any) -> None:
    """The stores' one id rule (`store.check_id`), raised as the engine's `GraphValidationError`."""
    try:
        check_id(run_id)
    except InvalidIdError as exc:
        raise GraphValidationError(str(exc), run_id=run_id if isinstance(run_id, str) else None) from exc


def _check_node_options(node_id: str, retries: Any, timeout: Any, backoff: Any) -> None:
    """Refuse limits that cannot be enforced, naming the node (`GraphValidationError`)."""
    if retries is not None and (not isinstance(retries, int) or isinstance(retries, bool) or retries < 0):
        raise GraphValidationError(
            f"node {node_id!r}: retries must be an int >= 0, got {retries!r}", node_id=node_id
        )
    for name, v, low in (("timeout", timeout, "> 0"), ("backoff", backoff, ">= 0")):
        if v is None:
            continue
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        if not ok or (v <= 0 if name == "timeout" else v < 0):
            raise GraphValidationError(
                f"node {node_id!r}: {name} must be a finite number of seconds {low}, got {v!r}",
                node_id=node_id,
            )


@dataclass(frozen=True, slots=True)
class _ResumeRead:
    """What one resume attempt read of a run: its status writes are conditioned on it."""

    store: Store
    run_id: str
    step: int
    """The run's last committed step when read."""
    status: RunStatus
    """Its status when read."""
    error: str | None
    """The routed error the run keeps (None after a failure: that is what the resume retries)."""
    error_node: str | None
    answering: bool
    """The resume takes the answer of a pause (it has input, or the run is interrupted): once, by one resume."""

    @classmethod
    def of(cls, store: Store, run_id: str, latest: Latest, has_input: bool) -> _ResumeRead:
        """What `latest` says of run `run_id`, for a resume with or without input."""
        run = latest.run
        # A routed error stays on the run record; a failure is what this resume retries.
        keep_error = run.status is not RunStatus.FAILED
        err, err_node = (run.error, run.error_node) if keep_error else (None, None)
        answering = has_input or run.status is RunStatus.INTERRUPTED
        return cls(store, run_id, latest.last_step, run.status, err, err_node, answering)

    async def move_to(self, status: RunStatus) -> None:
        """Set the run's status if it is still as read; `_MovedOn` (or, answering, `RunBusyError`) if not."""
        await _move_run(
            self.store,
            self.run_id,
            status,
            self.error,
            self.error_node,
            self.step,
            self.status,
            self.answering,
        )


def _emit_resumed(rt: Runtime[Any], latest: Latest, nxt: Next, woke: Next | None) -> None:
    """Emit that a resume drives the run on (`RUN_RESUME`), and, woken from a wait, `WAKE`."""
    run = latest.run
    meta = {"next": repr(nxt), "status": str(run.status)}
    rt.emit(Event(run.run_id, latest.last_step, "", "run resumed", meta, kind=EventKind.RUN_RESUME))
    if woke is not None:
        w = woke.payload
        wake = {"until": w.until, "signal": w.signal, "then": woke.target}
        rt.emit(Event(run.run_id, latest.last_step, woke.target, "woken", wake, kind=EventKind.WAKE))


def _refuse_taken_answer(
    rt: Runtime[Any], read: _ResumeRead, nxt: Next, interrupted_at: int | None, has_input: bool
) -> None:
    """`RunBusyError` when an answer to a pause finds the run `running` and cannot tell who drives it."""
    node = rt.graph.nodes.get(nxt.target) if nxt.kind is _GOTO else None
    at_pause = interrupted_at is not None or (node is not None and node.interrupt_before)
    if has_input and at_pause and read.status is RunStatus.RUNNING:
        # Paused runs wait as `interrupted`: `running` here means another resume took the
        # answer, or its process died after that status write; only ownership tells which.
        raise RunBusyError(
            f"run {read.run_id!r} is running past its pause at step {read.step}: another resume "
            "took the answer, and this store cannot tell whether its driver is alive; "
            f"nothing was run (once it is known to be gone, resume({read.run_id!r}) without input "
            "puts the run back to waiting)",
            run_id=read.run_id,
            step=read.step,
        )


class _Answering(Exception):
    """The resume answers a pause of a `LeaseStore` run without the run's lease: take it, then retry."""


class _MovedOn(Exception):
    """Another process changed the run between resume's read and its status write."""

    def __init__(self, error: StatusConflictError) -> None:
        super().__init__(str(error))
        self.error = error


async def _move_run(
    store: Store,
    run_id: str,
    status: RunStatus,
    err: str | None,
    err_node: str | None,
    seen_step: int,
    seen_status: RunStatus,
    answering: bool,
) -> None:
    """Resume's status write, conditioned on the step and status it read.

    A lost race is `_MovedOn` (retried), or `RunBusyError` when this resume answers a pause (the
    answer was meant for the pause it read). Settled: a server may commit a write its cancelled
    client gave up on; a cancelled move to `running` is followed by `cancelled`, as this resume
    will not drive the run (never `running` with no driver).
    """
    write = store.set_status(
        run_id,
        status,
        error=err,
        error_node=err_node,
        expect_step=seen_step,
        expect_status=seen_status,
    )
    try:
        await settled(write)
    except asyncio.CancelledError:
        if status is RunStatus.RUNNING:
            await _cancelled_before_driving(store, run_id, seen_step, err, err_node)
        raise
    except StatusConflictError as exc:
        if not answering:
            raise _MovedOn(exc) from exc
        raise RunBusyError(
            f"run {run_id!r}: another resume took the answer of its pause at step "
            f"{seen_step} (the run is now {exc.status} at step {exc.step}); nothing was run",
            run_id=run_id,
            step=seen_step,
        ) from exc


async def _cancelled_before_driving(
    store: Store, run_id: str, step: int, err: str | None, err_node: str | None
) -> None:
    """Mark `cancelled` a run a cancelled resume had just marked `running` (at `step`), keeping its
    routed error; a conflict means another driver moved it on, which then owns its status."""
    with contextlib.suppress(StatusConflictError):
        await settled(
            store.set_status(run_id, RunStatus.CANCELLED, error=err, error_node=err_node, expect_step=step)
        )


def _check_input(run_id: str, value: Any) -> None:
    """Refuse a resume input JSON would record as another value (see `_encoding.not_json`).

    The node sees the Python value and the step records its JSON: a set, a datetime or an object
    would make replay of a correct run diverge. Raised before anything runs or is written.
    """
    where = not_json(value, "input")
    if where is not None:
        raise EncodeError(
            f"the resume input of run {run_id!r} cannot be recorded so that it reads back, at {where}; "
            "nothing was run: pass JSON values (None, bool, int, finite float, str, list, dict with "
            "str keys)",
            run_id=run_id,
            field="input",
        )
