"""`Runtime[S]`: what one run of an engine works with, and the decoding of what runs stored.

The step loop, replay, streaming, workers and adapters receive a `Runtime` (from
`Engine.runtime()`) rather than reading the engine's attributes: it is built per run from the
engine's current store, emitter, options and codec (a copied engine with another store gets its
own), with the compiled graph and its route codec.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, TypeVar, cast

from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import is_typeddict

from graphengine.emit import Emitter, Event, EventKind, safe_emit
from graphengine.store import (
    Codec,
    CorruptRecordError,
    Latest,
    RunRecord,
    RunStatus,
    StepRecord,
    Store,
    adaptable_type,
)

from ._attempts import execute
from ._checks import checked_delta, undeclared_keys
from ._encoding import FAN_OUT_NODE, UPDATE_NODE, error_text, may_hide, non_finite, read_back_change
from ._fingerprint import changes, same_graph, upgraded
from .commute import delta_commutes
from .context import Context
from .errors import GraphChangedError, ReducerError, RunNotFoundError, StateValidationError
from .graph import CompiledGraph, CompiledNode
from .options import Options
from .reducer import Reducer, delta_fields, model_copier
from .result import NodeResult
from .route_codec import RouteCodec
from .routing import Next, goto
from .versions import Migration, VersionMap, migrate_bytes

__all__ = ["Runtime", "dumps", "error_delta", "run_meta", "state_check", "state_copier"]

S = TypeVar("S")
T = TypeVar("T")

_log = logging.getLogger("graphengine")


async def settled(aw: Awaitable[T]) -> T:
    """Await `aw` to its end even when cancelled meanwhile, then pass the cancel on.

    For the writes that say what a run is (its creation, its final status): a cancel that lands
    while the server commits one must not leave the caller unsure of it, or the run `running`
    with no driver (on PostgreSQL and MySQL the server may commit a write the client gave up on).
    A second cancel while waiting is taken as the same one.
    """
    task = asyncio.ensure_future(aw)
    cancelled = False
    while True:
        try:
            result = await asyncio.shield(task)
            break
        except asyncio.CancelledError:
            if task.cancelled():  # the write itself was cancelled (its loop is closing): nothing to wait for
                raise
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return result


class Runtime(Generic[S]):
    """One run's view of an engine: compiled graph, codec, reducer, store, emitter and options.

    Its methods decode what runs stored (migrating older state versions), fold deltas and
    report failures; they raise the engine's typed errors naming the run and step.
    """

    __slots__ = (
        "_compile",
        "_compiled",
        "check_nulls",
        "codec",
        "context",
        "copy_state",
        "decode_delta",
        "delta_commutes",
        "emitter",
        "error_delta",
        "is_state",
        "migrations",
        "options",
        "reducer",
        "reducer_pure",
        "state_type",
        "state_version",
        "store",
        "type_name",
        "waker",
    )

    def __init__(
        self,
        *,
        state_type: Any,
        reducer: Reducer[S],
        reducer_pure: bool,
        store: Store,
        emitter: Emitter | None,
        options: Options,
        codec: Codec[S],
        state_version: int,
        migrations: Mapping[int, Migration],
        compile: Callable[[], tuple[CompiledGraph[S], RouteCodec[S]]],
        decode_delta: Callable[[bytes], S],
        is_state: Callable[[Any], bool],
        copy_state: Callable[[S], S],
        error_delta: Callable[[str], S] | None,
        waker: Any = None,
    ) -> None:
        self.state_type = state_type
        """The state type every node reads and every delta has."""
        self.type_name: str = getattr(state_type, "__name__", str(state_type))
        """The state type's name, for messages."""
        self.reducer = reducer
        """Merges a delta into the state."""
        self.reducer_pure = reducer_pure
        """The reducer is known never to change its previous state in place."""
        self.delta_commutes: Callable[[Any], bool] | None = delta_commutes(reducer, state_type)
        """Whether a fan-out branch's delta may merge as it lands (completion order); None: none may."""
        self.store = store
        """Where the run is persisted."""
        self.emitter = emitter
        """Where events go (None: events are not even built)."""
        self.options = options
        """Limits and failure handling."""
        self.codec = codec
        """Encodes states and deltas for the store."""
        self.check_nulls: bool = not getattr(codec, "keeps_non_finite", False)
        """Whether a `null` in encoded bytes may be a NaN or infinity the codec wrote as null (JSON's
        way), so the value is walked for one; False for a codec that declares `keeps_non_finite`."""
        self.decode_delta = decode_delta
        """Decodes a stored delta."""
        self.state_version = state_version
        """The engine's state schema version."""
        self.migrations = migrations
        """`{v: up_v_to_v_plus_1}` functions over JSON-like data."""
        # compiled on first use: reading a run's state does not need a valid graph
        self._compile = compile
        self._compiled: tuple[CompiledGraph[S], RouteCodec[S]] | None = None
        self.is_state = is_state
        """Whether a value is of the state type."""
        self.copy_state = copy_state
        """A shallow copy of a state (each fan-out branch gets its own top-level container)."""
        self.error_delta = error_delta
        """A delta setting the state's `last_error` field, or None when it has none."""
        self.waker: Any = waker
        """Told when a run of this engine begins to wait (`graphengine._waits.Waker`), or None."""
        self.context: Any = None
        """The run context nodes read as `ctx.context` (`context=` of run/resume/continue_run;
        never stored). Set by the caller that drives one run with this runtime."""

    @property
    def graph(self) -> CompiledGraph[S]:
        """The validated graph (`GraphValidationError` for a malformed one)."""
        return self.compiled()[0]

    @property
    def routes(self) -> RouteCodec[S]:
        """Encodes and decodes the routes steps store."""
        return self.compiled()[1]

    def compiled(self) -> tuple[CompiledGraph[S], RouteCodec[S]]:
        """The validated graph and its route codec."""
        c = self._compiled
        if c is None:
            c = self._compiled = self._compile()
        return c

    # ------------------------------------------------------------------ reporting

    def emit(self, event: Event) -> None:
        """Hand `event` to the emitter, if any (an emitter's failure is logged, not raised)."""
        if self.emitter is not None:
            safe_emit(self.emitter, event)

    def notify(
        self, run_id: str, step: int, node_id: str, msg: str, data: dict[str, Any], kind: EventKind
    ) -> None:
        """Emit one event, built only when there is an emitter (for the paths off the hot loop)."""
        if self.emitter is not None:
            safe_emit(self.emitter, Event(run_id, step, node_id, msg, data, kind=kind))

    async def fail(self, run_id: str, step: int, node_id: str, exc: BaseException) -> None:
        """Record the run as failed with `exc` and emit an error event."""
        msg = error_text(exc)
        try:
            # Settled: a cancel must not leave the run `running`. The write runs in its own task,
            # but the event below is emitted here, where the failure is still being handled (the
            # OpenTelemetry emitter records the exception it finds in `sys.exc_info()`).
            await settled(
                self.store.set_status(run_id, RunStatus.FAILED, error=msg, error_node=node_id or None)
            )
        except Exception as lost:  # the failure being reported matters more than its record
            _log.warning("run %r: could not record its failure (%s): %r", run_id, msg, lost)
        self.notify(run_id, step, node_id, msg, {"error": type(exc).__name__}, EventKind.ERROR)

    # ------------------------------------------------------------------ running nodes

    async def run_node(
        self,
        node: CompiledNode[S],
        run_id: str,
        step: int,
        state: S,
        *,
        resumed: bool = False,
        resume_input: Any = None,
        branch: int | None = None,
        interrupted_at: int | None = None,
    ) -> tuple[NodeResult[S], int, Context]:
        """Run `node` of this graph on `state` as the step loop does: its attempts, timeout and
        retries with backoff. Returns its result, the attempts it took and the last attempt's context.

        `resumed`/`resume_input`/`interrupted_at` describe a node resumed after an interrupt;
        `branch` is its fan-out branch number. Raises `NodeError` (`NodeTimeoutError`) after the
        last failed attempt. Nothing is persisted: the caller (the step loop, an adapter driving
        the node from another runtime) records the outcome.
        """
        return await execute(self, node, run_id, step, state, resumed, resume_input, branch, interrupted_at)

    def checked_delta(self, value: Any, run_id: str, step: int, node_id: str) -> S:
        """`value` as a delta of the state type, or `DeltaTypeError` naming the node and step."""
        return checked_delta(self, value, run_id, step, node_id)

    # ------------------------------------------------------------------ decoding

    def validated(self, initial: S | Mapping[str, Any], run_id: str) -> tuple[S, bytes]:
        """Validate an initial state by a round trip through the codec (what resume will see)."""
        given = initial
        try:
            if not self.is_state(initial):
                initial = TypeAdapter(adaptable_type(self.state_type)).validate_python(initial)
            encoded = self.codec.encode(cast(S, initial))
            if self.check_nulls and may_hide(encoded):  # JSON would store NaN and infinity as null
                where = non_finite(initial, "")
                if where is not None:
                    raise ValueError(
                        f"non-finite float at {where or 'the top'} (JSON has no NaN or infinity)"
                    )
            back = self.codec.decode(encoded)
            lost = undeclared_keys(dict(given) if isinstance(given, Mapping) else given, back)
            if lost:
                raise ValueError(
                    f"keys {lost!r} are not declared by {self.type_name} (they would be dropped)"
                )
            where = read_back_change(self.state_type, initial, back, full=True)
            if where is not None:
                raise ValueError(f"it would not read back as itself, at {where}")
            return back, encoded
        except (ValidationError, ValueError, TypeError) as exc:
            raise StateValidationError(
                f"initial state of run {run_id!r} does not validate as {self.type_name}: {exc}",
                run_id=run_id,
            ) from exc

    async def latest(self, run_id: str) -> Latest:
        """The run's latest snapshot and the steps after it (`RunNotFoundError` if unknown)."""
        latest = await self.store.load_latest(run_id)
        if latest is None:
            raise RunNotFoundError(
                f"no run {run_id!r} in the store; start it with run({run_id!r}, ...)", run_id=run_id
            )
        return latest

    async def get_run(self, run_id: str) -> RunRecord:
        """The run's record (`RunNotFoundError` if unknown)."""
        rec = await self.store.get_run(run_id)
        if rec is None:
            raise RunNotFoundError(f"no run {run_id!r} in the store", run_id=run_id)
        return rec

    def versions(self, run: RunRecord) -> VersionMap | None:
        """The run's per-step versions, or None when everything it stored is current."""
        meta = run_meta(run)
        if run.state_version == self.state_version and not meta.get("migrations"):
            return None
        return VersionMap.of(run.run_id, run.state_version, meta)

    def decode(self, data: bytes, run_id: str, step: int, what: str, vm: VersionMap | None = None) -> S:
        """Decode a stored state or delta (`what` ends with "delta" for one), migrating it to the current version."""
        if vm is not None:
            v = vm.at(step)
            if v != self.state_version:
                try:
                    data = migrate_bytes(
                        data, v, self.state_version, self.migrations, run_id=run_id, step=step
                    )
                except (ValueError, TypeError) as exc:
                    raise corrupt_step(run_id, step, what, f"{what} is not JSON: {exc}") from exc
        try:
            # Fan-out branch deltas ("branch 3 delta") are partial too.
            if what.endswith("delta"):
                return self.decode_delta(data)
            return self.codec.decode(data)
        except (ValidationError, ValueError, TypeError) as exc:
            problem = f"{what} does not decode as {self.type_name}: {exc}"
            raise corrupt_step(run_id, step, what, problem) from exc

    def fold(self, latest: Latest) -> S:
        """The state after the run's last committed step: its latest snapshot with the later deltas merged."""
        run_id = latest.run.run_id
        vm = self.versions(latest.run)
        state = self.decode(
            latest.base_state, run_id, latest.base_step, "state" if latest.base_step else "initial", vm
        )
        for rec in latest.tail:
            if rec.delta is not None:
                delta = self.decode(rec.delta, run_id, rec.step, "delta", vm)
                state = self.merge(state, delta, run_id, rec.step, rec.node_id)
        return state

    def merge(self, state: S, delta: S, run_id: str, step: int, node_id: str, *, keep: bool = False) -> S:
        """Fold a stored delta into `state`; `ReducerError` naming the step if the reducer raises.

        `keep`: the caller still shows `state` (a history view, a streamed state), so a reducer not
        known to be pure is handed a deep copy; otherwise one that changes its previous state in
        place would rewrite what was already shown.
        """
        try:
            if keep and not self.reducer_pure:
                state = copy.deepcopy(state)
            return self.reducer(state, delta)
        except Exception as exc:
            raise ReducerError(
                f"run {run_id!r} step {step}: the reducer raised merging the stored delta of node "
                f"{node_id!r}: {type(exc).__name__}: {exc}",
                run_id=run_id,
                step=step,
                node_id=node_id,
            ) from exc

    def route(self, rec: StepRecord) -> Next:
        """Where the run went after step `rec` (`CorruptRecordError` if the stored route does not decode)."""
        try:
            return self.routes.decode(rec.route)
        except (ValueError, TypeError) as exc:
            problem = f"route {rec.route[:80]!r} is not a route: {exc}"
            raise corrupt_step(rec.run_id, rec.step, "route", problem) from exc

    async def step_meta(self, rec: StepRecord) -> dict[str, Any]:
        """What a `step` event carries of committed step `rec`: the fields its delta set
        (`changes`, see `delta_fields`), delta, route, attempt, error, and a fan-out's branch
        deltas (`branches`, by branch number; None for a branch without one)."""
        run_id = rec.run_id
        delta = None if rec.delta is None else self.decode(rec.delta, run_id, rec.step, "delta")
        meta: dict[str, Any] = {
            "changes": delta_fields(delta),
            "delta": delta,
            "route": self.route(rec),
            "attempt": rec.attempt,
            "error": rec.error,
        }
        if rec.node_id == FAN_OUT_NODE:
            got = {b.branch: b for b in await self.store.load_branches(run_id, rec.step)}
            meta["branches"] = [
                None
                if i not in got or got[i].delta is None
                else self.decode(cast(bytes, got[i].delta), run_id, rec.step, f"branch {i} delta")
                for i in range(max(got, default=-1) + 1)
            ]
        return meta

    def interrupted(self, rec: StepRecord) -> tuple[str, int]:
        """The node whose interrupt the step `rec` left pending, and the step it interrupted at.

        `rec` itself, except for an `update_state` edit of a paused run: that step keeps the
        pause, and its record names the node that paused.
        """
        if rec.node_id != UPDATE_NODE:
            return rec.node_id, rec.step
        try:
            node, step = json.loads(rec.calls or b"{}")["paused"]
            return str(node), int(step)
        except (ValueError, TypeError, KeyError) as exc:
            problem = f"edit {rec.calls!r} does not name the node that paused: {exc!r}"
            raise corrupt_step(rec.run_id, rec.step, "calls", problem) from exc

    def turn_start(self, run: RunRecord) -> int:
        """The step that began the run's current turn (0: its first turn); see `Engine.continue_run`."""
        start = run_meta(run).get("turn_start")
        return start if isinstance(start, int) else 0

    def next_of(self, latest: Latest) -> Next:
        """Where the run goes after its last committed step."""
        if latest.last is None:
            return self.start_of(latest.run)
        return self.route(latest.last)

    def start_of(self, run: RunRecord) -> Next:
        """The first hop of a run: the start node, or where a fork said to continue."""
        meta = run_meta(run)
        start = meta.get("start")
        if isinstance(start, str):
            try:
                return self.routes.decode(start)
            except (ValueError, TypeError) as exc:
                raise CorruptRecordError(
                    f"run {run.run_id!r}: stored fork start {start[:80]!r} is not a route: {exc}",
                    run_id=run.run_id,
                    field="meta",
                ) from exc
        return goto(self.graph.start)

    def same_graph(self, run: RunRecord) -> bool:
        """Whether `run` was started by this graph: its recorded fingerprint names this graph's shape.

        Code is compared by qualified name, whatever module it was imported under, and runs
        recorded before that rule still match (see `graphengine._fingerprint`). A run that
        recorded no fingerprint matches any graph.
        """
        g = self.graph
        if not run.fingerprint or run.fingerprint == g.fingerprint:
            return True
        old = run_meta(run).get("graph")
        return same_graph(run.fingerprint, old, g.fingerprint, g.description, g.legacy_description)

    def check_fingerprint(self, run: RunRecord, allow: bool) -> None:
        """`GraphChangedError` when the run was started by a graph of another shape (unless `allow`)."""
        if allow or self.same_graph(run):
            return
        g = self.graph
        old = run_meta(run).get("graph")
        if isinstance(old, dict) and "names" not in old:
            old = upgraded(old, g.description, g.legacy_description)  # compare like with like
        what = "; ".join(changes(old, g.description)) if isinstance(old, dict) else "nodes or edges changed"
        raise GraphChangedError(
            f"run {run.run_id!r} was started by a graph with fingerprint {run.fingerprint}, this engine's is "
            f"{g.fingerprint} ({what}); resume it with the graph it started with, or allow the change: "
            "allow_graph_change=True in Python, --allow-graph-change on the command line, "
            "?allow_graph_change=true over HTTP",
            run_id=run.run_id,
            stored=run.fingerprint,
            current=g.fingerprint,
        )


def corrupt_step(run_id: str, step: int, field: str, problem: str) -> CorruptRecordError:
    """The error for part `field` of a stored step that cannot be read: "run 'r' step 3: stored `problem`"."""
    return CorruptRecordError(
        f"run {run_id!r} step {step}: stored {problem}", run_id=run_id, step=step, field=field
    )


def dumps(doc: Any) -> bytes:
    """Compact, key-sorted JSON bytes (run meta)."""
    return json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()


def run_meta(run: RunRecord) -> dict[str, Any]:
    """The run's meta document (`CorruptRecordError` when it is not JSON)."""
    try:
        meta = json.loads(run.meta or b"{}")
    except ValueError as exc:
        raise CorruptRecordError(
            f"run {run.run_id!r}: stored meta is not JSON: {exc}", run_id=run.run_id, field="meta"
        ) from exc
    return meta if isinstance(meta, dict) else {}


def state_check(tp: Any) -> Callable[[Any], bool]:
    """A test for "is a value of state type `tp`" (TypedDict and other non-class types: a dict)."""
    if isinstance(tp, type):
        try:
            isinstance(None, tp)
            return lambda x: isinstance(x, tp)
        except TypeError:
            pass
    return lambda x: isinstance(x, dict)


class CheckedReducer:
    """A user's reducer that raises `TypeError` naming what it returned when that is not of the state type.

    Its result is stored through the state type's codec, which would write another model as the
    type's defaults (the run's state silently reset); the step loop reports the `TypeError` as a
    `ReducerError` naming the node and step. Every other attribute is the user's function's, so
    what it declares (`pure`, `commutative`, commuting fields) still reads through.
    """

    __slots__ = ("fn", "is_state", "name")

    def __init__(self, fn: Callable[[Any, Any], Any], tp: Any) -> None:
        self.fn = fn
        self.is_state = state_check(tp)
        self.name: str = getattr(tp, "__name__", str(tp))

    def __call__(self, prev: Any, delta: Any) -> Any:
        out = self.fn(prev, delta)
        if not self.is_state(out):
            raise TypeError(f"the reducer returned a value of type {type(out).__name__}, not {self.name}")
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fn, name)


def checked_reducer(fn: Callable[[Any, Any], Any], tp: Any) -> Callable[[Any, Any], Any]:
    """`fn` wrapped in a `CheckedReducer` for state type `tp`."""
    return CheckedReducer(fn, tp)


def state_copier(tp: Any) -> Callable[[Any], Any]:
    """Shallow copy of a state, for fan-out branches (each gets its own top-level container)."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        copier = model_copier(tp)
        return lambda s: copier(s, {})
    if is_typeddict(tp) or tp is dict:
        return dict
    return lambda s: s


def error_delta(tp: Any) -> Callable[[str], Any] | None:
    """A delta that sets the state's `last_error` field, if the type has one."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        if "last_error" not in tp.model_fields:
            return None
        return lambda msg: tp.model_construct(_fields_set={"last_error"}, last_error=msg)
    if is_typeddict(tp) and "last_error" in getattr(tp, "__annotations__", {}):
        return lambda msg: {"last_error": msg}
    return None
