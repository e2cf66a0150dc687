"""An engine as a compiled LangGraph graph (`to_langgraph`), and a LangGraph graph as an engine
(`from_langgraph`).

LangGraph is imported by this module; `import graphengine` never imports it. Install it with
`pip install 'graphengine[langgraph]'`.

## `to_langgraph(engine)`: how the engine's semantics are carried

- **One state channel, the engine's reducer.** The LangGraph state has one public key,
  `"state"`, holding the engine's state `S`; its channel merges every node's delta with the
  engine's own reducer (so `model_fields_set`, per-field `Annotated` reducers and any custom
  whole-state reducer behave exactly as on the engine). Per-field LangGraph channels could not
  carry a custom reducer of the whole state, nor the "only fields the delta set" rule.
  `graph.invoke({"state": initial})` returns `{"state": final}`; the input is validated like
  `Engine.run` validates it. Writes and checkpoints hold the engine codec's bytes (the JSON
  the engine stores), never pickled or class-importing msgpack values, so any LangGraph
  checkpointer (and `GraphEngineSaver`) stores them safely.
- **Nodes** become LangGraph nodes returning `Command(update=..., goto=...)`. They run the
  engine's node through the engine's own executor, so retries (`retries`, `retry_on`,
  deterministic backoff) and timeouts are the engine's, not LangGraph's `RetryPolicy` (whose
  exception filter and jitter differ). `route=None` follows the static edges, evaluated on the
  merged state in declaration order, as on the engine.
- **Fan-out** (a static fan-out edge, or `fan_out(...)` with named or map branches) becomes one
  `Send` per branch, each carrying its own state (the pre-fan-out state, or the branch's
  input); the state channel merges branch deltas in declared branch order whatever order
  LangGraph applies them in, then the join runs.
- **Interrupts.** A node that interrupts (`route=interrupt(p)` or `ctx.interrupt(p)`) has its
  delta merged and committed, as on the engine; the adapted graph then pauses with LangGraph's
  `interrupt(p)`, and `Command(resume=v)` re-runs the node with `ctx.resume_input == v`. A node
  added with `interrupt_before=True` pauses before it runs (payload None). Interrupts need a
  checkpointer, as everywhere in LangGraph.
- **Error routes.** A node that fails after its retries goes to its `on_error` handler with the
  state's `last_error` set, as on the engine; a failing fan-out branch with an error route
  discards the other branches' deltas and goes to the handler (the branches then meet in a
  private node, `__ge_fanin__`, which decides between the join and the handler).
- **Subgraphs** (an `Engine` added as a node) run as one LangGraph node through the engine's
  `Subgraph` (the child run is kept in the child engine's store, under
  `"{thread_id}/{node}/{step}"`); interrupts inside them pause and resume the adapted graph.
- `Options.max_steps` becomes the graph's `recursion_limit` (LangGraph raises its own
  `GraphRecursionError` at the limit); the run id a node sees (`ctx.run_id`) is the
  `thread_id` of the LangGraph config (a fresh id per node execution without one), `ctx.step`
  LangGraph's step. Child runs of subgraphs are keyed by thread and step: reuse a thread id
  only with a checkpointer (whose steps keep counting), as LangGraph intends.

What is not carried: the engine's store, emitter spans, replay and fork (LangGraph's
checkpointer and time travel take their place); node ids containing LangGraph's reserved
characters (`|`, `:`) or names (`__start__`, `__end__`, `__ge_fanin__`) raise
`UnsupportedFeature`.

## `from_langgraph(builder)`

Runs a LangGraph `StateGraph` on the engine with LangGraph's semantics and returns an
`AdaptedGraph` whose `run`/`resume` take and return what LangGraph's `invoke` does (its
`engine` is the `Engine` that stores, replays and emits). Each superstep is a fan-out of its
tasks (one engine node per LangGraph node) and a barrier applying their writes through
LangGraph's channels; see `graphengine.adapters._from_langgraph` for the mapping.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import uuid
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, NotRequired, TypedDict, TypeVar

from graphengine._attempts import execute
from graphengine._checks import wrong_delta
from graphengine.engine import Engine
from graphengine.errors import GraphError, NodeError, UnknownNodeError, UnsupportedFeature
from graphengine.graph import CompiledNode
from graphengine.routing import Next, NextKind

try:
    from langgraph._internal._runnable import RunnableCallable
    from langgraph._internal._typing import MISSING as _MISSING
    from langgraph.channels.base import BaseChannel
    from langgraph.errors import EmptyChannelError
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, Send
    from langgraph.types import interrupt as lg_interrupt
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "graphengine.adapters.langgraph needs LangGraph. Install it with: pip install 'graphengine[langgraph]'"
    ) from exc

from ._from_langgraph import AdaptedGraph, from_langgraph

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig


__all__ = ["FANIN_NODE", "STATE_KEY", "AdaptedGraph", "UnsupportedFeature", "from_langgraph", "to_langgraph"]

S = TypeVar("S")

STATE_KEY = "state"
"""The key of the adapted graph's state: `invoke({"state": initial}) -> {"state": final}`."""
FANIN_NODE = "__ge_fanin__"
"""Private node where fan-out branches meet when the graph has error routes."""
_CTL_KEY = "ge_ctl"
_RESERVED = frozenset({START, END, FANIN_NODE})
_MERGE = b"+"
_REPLACE = b"="
_GOTO = NextKind.GOTO
_STOP = NextKind.STOP
_INTERRUPT = NextKind.INTERRUPT


# --------------------------------------------------------------------------- channels


class EngineStateChannel(BaseChannel[Any, Any, bytes]):
    """The LangGraph channel holding an engine's state, merged with the engine's reducer.

    Updates are the engine codec's bytes: `b"+" + delta` (merged), `b"=" + state` (replaces,
    a subgraph's final state), or a fan-out branch's `("b", index, delta | None)` /
    `("f", index, error delta | None)`; input values (a state or a mapping) are validated as
    `Engine.run` validates its input. Branch updates are applied in branch order; when a
    branch failed, only the error delta of the first failing branch is applied. The
    checkpoint is the codec's encoding of the state.
    """

    __slots__ = ("decode_delta", "engine", "value")

    def __init__(
        self,
        engine: Engine[Any],
        typ: Any = Any,
        key: str = "",
        decode_delta: Callable[[bytes], Any] | None = None,
    ) -> None:
        super().__init__(typ, key)
        self.engine = engine
        """The engine whose codec and reducer the channel uses."""
        self.decode_delta: Callable[[bytes], Any] = decode_delta or delta_decoder(engine)
        """Decodes an encoded delta (partial for TypedDict states)."""
        self.value: Any = _MISSING

    @property
    def ValueType(self) -> Any:
        """The engine's state type."""
        return self.engine.state_type

    @property
    def UpdateType(self) -> Any:
        """Encoded deltas (bytes), branch tuples, or an initial state."""
        return Any

    def copy(self) -> EngineStateChannel:
        """A channel sharing the (immutable) state."""
        new = EngineStateChannel(self.engine, self.typ, self.key, self.decode_delta)
        new.value = self.value
        return new

    def checkpoint(self) -> Any:
        """The state encoded by the engine's codec."""
        if self.value is _MISSING:
            return _MISSING
        return self.engine.codec.encode(self.value)

    def from_checkpoint(self, checkpoint: Any) -> EngineStateChannel:
        """A channel holding the state decoded from `checkpoint` (empty when missing)."""
        new = EngineStateChannel(self.engine, self.typ, self.key, self.decode_delta)
        if isinstance(checkpoint, bytes | bytearray):
            new.value = self.engine.codec.decode(bytes(checkpoint))
        return new

    def get(self) -> Any:
        """The current state; `EmptyChannelError` before the input."""
        if self.value is _MISSING:
            raise EmptyChannelError()
        return self.value

    def is_available(self) -> bool:
        """Whether the channel holds a state."""
        return self.value is not _MISSING

    def update(self, values: Sequence[Any]) -> bool:
        """Merge the updates of one LangGraph step (see the class docstring)."""
        if not values:
            return False
        eng = self.engine
        codec = eng.codec
        decode = self.decode_delta
        reducer = eng.reducer
        branches: list[tuple[int, bytes | None]] = []
        failed: tuple[int, bytes | None] | None = None
        state = self.value
        for v in values:
            if isinstance(v, bytes):
                tag, body = v[:1], v[1:]
                if tag == _MERGE:
                    state = reducer(state, decode(body))
                elif tag == _REPLACE:
                    state = codec.decode(body)
                else:
                    raise GraphError(f"state channel: unknown update tag {tag!r}")
            elif isinstance(v, list | tuple) and len(v) == 3 and v[0] in ("b", "f"):
                entry = (int(v[1]), v[2])
                if v[0] == "f":
                    if failed is None or entry[0] < failed[0]:
                        failed = entry
                else:
                    branches.append(entry)
            else:
                state, _ = eng.runtime().validated(v, "langgraph")
        if failed is not None:
            if failed[1] is not None:
                state = reducer(state, decode(failed[1]))
        else:
            for _, d in sorted(branches, key=lambda e: e[0]):
                if d is not None:
                    state = reducer(state, decode(d))
        self.value = state
        return True


def delta_decoder(engine: Engine[Any]) -> Callable[[bytes], Any]:
    """How the adapted graph decodes a delta the engine's codec encoded (its `decode_delta`: a
    delta may leave out required keys)."""
    codec: Any = engine.codec
    return codec.decode_delta if hasattr(codec, "decode_delta") else codec.decode  # type: ignore[no-any-return]


class ControlChannel(BaseChannel[Any, Any, Any]):
    """Private control value of an adapted graph: a pending pause, a fan-out's join, a branch failure.

    Several writes in one step keep the failure of the lowest branch; otherwise the last write.
    Values are small JSON-compatible dicts (or None).
    """

    __slots__ = ("value",)

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.value: Any = None

    @property
    def ValueType(self) -> Any:
        """A dict or None."""
        return Any

    @property
    def UpdateType(self) -> Any:
        """A dict or None."""
        return Any

    def copy(self) -> ControlChannel:
        """A copy sharing the value."""
        new = ControlChannel(self.typ, self.key)
        new.value = self.value
        return new

    def checkpoint(self) -> Any:
        """The value itself (JSON-compatible)."""
        return self.value

    def from_checkpoint(self, checkpoint: Any) -> ControlChannel:
        """A channel holding `checkpoint` (None when missing)."""
        new = ControlChannel(self.typ, self.key)
        new.value = checkpoint if isinstance(checkpoint, dict) else None
        return new

    def get(self) -> Any:
        """The value (None: nothing pending)."""
        return self.value

    def is_available(self) -> bool:
        """Always readable."""
        return True

    def update(self, values: Sequence[Any]) -> bool:
        """Keep the lowest failing branch, else the last value written."""
        if not values:
            return False
        fails = [v for v in values if isinstance(v, dict) and "fail" in v]
        self.value = min(fails, key=lambda v: int(v["i"])) if fails else values[-1]
        return True


# --------------------------------------------------------------------------- running engine nodes


_local = threading.local()


def _run_coro(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine to completion from synchronous code (LangGraph's `invoke`)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        runner: asyncio.Runner | None = getattr(_local, "runner", None)
        if runner is None:
            runner = _local.runner = asyncio.Runner()
        return runner.run(coro)
    # Called from inside a running loop (sync invoke from async code): use another thread.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _run_inline(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never suspends (a sync node with no timeout and no backoff)."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()  # pragma: no cover - guarded by the choice of path
    raise RuntimeError("an inline node suspended")  # pragma: no cover


class _Adapted:
    """Everything the adapted nodes of one engine share, decided once in `to_langgraph`."""

    def __init__(self, engine: Engine[Any], use_fanin: bool) -> None:
        rt = engine.runtime()
        g = rt.graph
        self.engine = rt
        self.graph = g
        self.nodes = g.nodes
        self.use_fanin = use_fanin
        self.codec = rt.codec
        self.reducer = rt.reducer
        self.is_state = rt.is_state
        self.error_delta = rt.error_delta

    def make(self, node: CompiledNode[Any]) -> RunnableCallable:
        """The LangGraph node (sync and async) running engine node `node`."""
        inline = not node.is_async and node.timeout is None and node.backoff <= 0
        run_sync = _run_inline if inline else _run_coro
        step_fn = self.step

        def sync_fn(inp: Any, config: RunnableConfig) -> Any:
            return run_sync(step_fn(node, inp, config))

        async def async_fn(inp: Any, config: RunnableConfig) -> Any:
            return await step_fn(node, inp, config)

        sync_fn.__name__ = async_fn.__name__ = node.id
        return RunnableCallable(sync_fn, async_fn, name=node.id, trace=False)

    async def step(self, node: CompiledNode[Any], inp: Any, config: RunnableConfig) -> Any:
        """Run one engine node for LangGraph and translate its result into a `Command`."""
        conf = config.get("configurable") or {}
        tid = conf.get("thread_id")
        # Without a thread there is nothing to resume: a fresh id keeps subgraph child runs apart.
        run_id = str(tid) if tid is not None else f"langgraph-{uuid.uuid4().hex}"
        meta = config.get("metadata") or {}
        step = int(meta.get("langgraph_step", 0))
        if "ge_branch" in inp:
            return await self._branch(node, inp, run_id, step)
        state = inp[STATE_KEY]
        ctl = inp.get(_CTL_KEY)
        resumed = False
        resume_input: Any = None
        interrupted_at: int | None = None
        clear_ctl = False
        if ctl is not None and ctl.get("pause_node") == node.id:
            resume_input = lg_interrupt(ctl.get("payload"))
            resumed, interrupted_at, clear_ctl = True, int(ctl["step"]), True
        elif node.interrupt_before:
            resume_input = lg_interrupt(None)
            resumed = True
        eng = self.engine
        try:
            res, _attempt, _ctx = await execute(
                eng, node, run_id, step, state, resumed, resume_input, None, interrupted_at
            )
        except NodeError as exc:
            handler = node.error_route
            if handler is None:
                raise
            update: dict[str, Any] = {}
            d = self._error_update(exc)
            if d is not None:
                update[STATE_KEY] = _MERGE + d
            if clear_ctl:
                update[_CTL_KEY] = None
            return Command(update=update, goto=handler)
        if eng.emitter is not None:
            for ev in res.events:
                eng.emit(ev)
        update = {}
        delta = res.delta
        if delta is not None:
            if not self.is_state(delta):
                raise wrong_delta(eng, delta, run_id, step, node.id)
            if node.replaces_state:
                state = delta
                update[STATE_KEY] = _REPLACE + self.codec.encode(delta)
            else:
                state = self.reducer(state, delta)
                update[STATE_KEY] = _MERGE + self.codec.encode_delta(delta)
        route = res.route
        if route is None:
            route = node.resolve(state)
        kind = route.kind
        if kind is _GOTO:
            if route.target not in self.nodes:
                raise _unknown(route, run_id, step, node.id)
            if clear_ctl:
                update[_CTL_KEY] = None
            return Command(update=update, goto=route.target)
        if kind is _STOP:
            if clear_ctl:
                update[_CTL_KEY] = None
            return Command(update=update, goto=END)
        if kind is _INTERRUPT:
            update[_CTL_KEY] = {"pause_node": node.id, "payload": route.payload, "step": step}
            return Command(update=update, goto=node.id)
        return self._fan_out(route, state, update, run_id, step, node.id)

    def _fan_out(
        self, route: Next, state: Any, update: dict[str, Any], run_id: str, step: int, node_id: str
    ) -> Any:
        missing = [n for n in (route.target, *(b.node for b in route.branches)) if n not in self.nodes]
        if missing:
            raise _unknown(route, run_id, step, node_id)
        base: bytes | None = None
        sends = []
        for i, br in enumerate(route.branches):
            if br.input is not None:
                data = self.codec.encode(br.input)
            else:
                if base is None:
                    base = self.codec.encode(state)
                data = base
            sends.append(Send(br.node, {"ge_branch": i, "ge_in": data, "ge_join": route.target}))
        update[_CTL_KEY] = {"join": route.target} if self.use_fanin else None
        return Command(update=update, goto=sends)

    async def _branch(self, node: CompiledNode[Any], inp: Mapping[str, Any], run_id: str, step: int) -> Any:
        i = int(inp["ge_branch"])
        join = str(inp["ge_join"])
        state = self.codec.decode(inp["ge_in"])
        nxt = FANIN_NODE if self.use_fanin else join
        try:
            res, _attempt, _ctx = await execute(self.engine, node, run_id, step, state, False, None, i)
        except NodeError as exc:
            handler = node.error_route
            if handler is None or not self.use_fanin:
                raise
            fail = {"fail": handler, "i": i, "join": join}
            return Command(update={STATE_KEY: ("f", i, self._error_update(exc)), _CTL_KEY: fail}, goto=nxt)
        if res.route is not None and res.route.kind is _INTERRUPT:
            raise GraphError(
                f"branch {i} (node {node.id!r}) of the fan-out at step {step} interrupted; "
                "interrupts are not supported inside fan-out branches (use a subgraph or interrupt at the join)",
                run_id=run_id,
                step=step,
                node_id=node.id,
            )
        d = res.delta
        if d is not None and not self.is_state(d):
            raise wrong_delta(self.engine, d, run_id, step, node.id)
        return Command(
            update={STATE_KEY: ("b", i, self.codec.encode_delta(d) if d is not None else None)}, goto=nxt
        )

    def _error_update(self, exc: NodeError) -> bytes | None:
        if self.error_delta is None:
            return None
        cause = exc.__cause__ if exc.__cause__ is not None else exc
        return self.codec.encode_delta(self.error_delta(f"{type(cause).__name__}: {cause}"))

    def fanin(self, inp: Any) -> Any:
        """The private node where branches meet: go to the failing branch's handler, else the join."""
        ctl = inp.get(_CTL_KEY) or {}
        target = ctl.get("fail") or ctl.get("join")
        if not target:
            raise GraphError("fan-in reached without a pending fan-out (corrupt control channel)")
        return Command(update={_CTL_KEY: None}, goto=target)


def _unknown(route: Next, run_id: str, step: int, node_id: str) -> UnknownNodeError:
    return UnknownNodeError(
        f"node {node_id!r} routed to an unknown node ({route!r})", run_id=run_id, step=step, node_id=node_id
    )


def to_langgraph(engine: Engine[Any], checkpointer: Any = None) -> Any:
    """Compile `engine` into a LangGraph graph (`CompiledStateGraph`) that behaves like it.

    `graph.invoke({"state": initial}, config)` returns `{"state": final}`, the state
    `engine.run` would return on the same input (see the module docstring for how each
    feature is carried). `checkpointer` is any LangGraph checkpointer (needed for interrupts
    and resume); None compiles without one (a parent graph's is then inherited).
    Raises `GraphValidationError` for a malformed engine and `UnsupportedFeature` naming the
    node for a node id LangGraph reserves. The engine may be a GOAP graph's engine: nothing here
    depends on what its nodes do.
    """
    engine.validate()
    g = engine.runtime().graph
    for nid in g.nodes:
        if nid in _RESERVED or "|" in nid or ":" in nid:
            raise UnsupportedFeature(
                f"node id {nid!r} is reserved or contains a character LangGraph reserves ('|', ':'); rename the node",
                feature="node id",
                node_id=nid,
            )
    spec = engine.spec()
    use_fanin = bool(spec.error_routes)
    ad = _Adapted(engine, use_fanin)
    channel = EngineStateChannel(engine)
    state_ann = Annotated[Any, channel]
    ctl_ann = Annotated[Any, ControlChannel()]
    name = f"{spec.type_name}Graph"
    full = TypedDict(name, {STATE_KEY: state_ann, _CTL_KEY: NotRequired[ctl_ann]})  # type: ignore[misc]
    io = TypedDict(f"{name}IO", {STATE_KEY: state_ann})  # type: ignore[misc]
    builder = StateGraph(full, input_schema=io, output_schema=io)
    for node in g.nodes.values():
        builder.add_node(node.id, ad.make(node))
    if use_fanin:
        builder.add_node(FANIN_NODE, RunnableCallable(ad.fanin, name=FANIN_NODE, trace=False))
    builder.add_edge(START, g.start)
    compiled = builder.compile(checkpointer=checkpointer, name=name)
    # Stream and inspect the engine's state only, not the private control channel.
    compiled.stream_channels = [STATE_KEY]
    return compiled.with_config({"recursion_limit": 2 * engine.options.max_steps + 5})
