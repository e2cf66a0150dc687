"""An engine as a compiled LangGraph graph (`to_langgraph`), and a LangGraph graph as an engine
(`from_langgraph`).

LangGraph is imported by this module; `import graphengine` never imports it. Install it with
`pip install 'graphengine[langgraph]'`.

## `to_langgraph(engine)`: how the engine's semantics are carried

- **One channel per field.** A state merged field by field (the default reducer of a pydantic
  model or TypedDict, with per-field `Annotated` reducers) gets one LangGraph channel per field:
  `BinaryOperatorAggregate` over the field's reducer, `LastValue` for the others. The graph is
  called like one written in LangGraph, `graph.invoke(S(...))` or `graph.invoke({"field": ...})`,
  returns LangGraph's usual dict of the fields written so far, composes as a subgraph node of a
  LangGraph app with ordinary keys, and its input and output schemas are the state type. As in
  LangGraph, input values pass through the fields' reducers (from the type's empty value) and
  each node validates the fields into the state type (a TypedDict state whose engine has a codec
  of its own gets them unvalidated, as a LangGraph node with that TypedDict schema does); the
  checkpointer stores the field values with its own serializer, as it stores any LangGraph
  graph's.
- **One state channel for a custom reducer.** With a reducer of the whole state
  (`Engine(S, reducer=...)`), which per-field channels cannot express, the state lives in one
  channel, `"state"`, merging every delta with the engine's reducer:
  `graph.invoke({"state": initial})` returns `{"state": final}`, the input validated like
  `Engine.run` validates it, and writes and checkpoints hold the engine codec's bytes (the JSON
  the engine stores), never pickled or class-importing values.
- **Nodes** become LangGraph nodes returning `Command(update=..., goto=...)`. They run the
  engine's node through the engine's own executor, so retries (`retries`, `retry_on`,
  deterministic backoff) and timeouts are the engine's, not LangGraph's `RetryPolicy` (whose
  exception filter and jitter differ). `route=None` follows the static edges, evaluated on the
  merged state in declaration order, as on the engine. A `DualNode` runs its sync form under
  `invoke` and its async form under `ainvoke`, as LangGraph runs a `RunnableLambda(func, afunc)`.
- **Compile options.** `store`, `interrupt_before` and `interrupt_after` are LangGraph's own
  (`compile(...)`): the graph pauses before or after the named nodes, `invoke(None)` continues.
- **Fan-out** (a static fan-out edge, or `fan_out(...)` with named or map branches) becomes one
  `Send` per branch, each carrying its own state (the pre-fan-out state, or the branch's
  input). The branches meet in a private node, `__ge_fanin__` (one LangGraph step more per
  fan-out), which merges their deltas in declared branch order whatever order LangGraph ran
  them in, then goes to the join. Branch results and a pending pause travel in two private
  channels, `ge_branches` and `ge_ctl`, which are neither input nor output.
- **Interrupts.** A node that interrupts (`route=interrupt(p)` or `ctx.interrupt(p)`) has its
  delta merged and committed, as on the engine; the adapted graph then pauses with LangGraph's
  `interrupt(p)`, and `Command(resume=v)` re-runs the node with `ctx.resume_input == v`. A node
  added with `interrupt_before=True` is a LangGraph breakpoint (added to the compiled
  `interrupt_before`): the graph pauses before it, `invoke(None)` runs it (`ctx.resume_input` is
  None) and `invoke(Command(resume=v))` runs it with `v`. Interrupts need a checkpointer, as
  everywhere in LangGraph.
- **Errors.** A node that fails after its retries (and has no error route) raises its own
  exception out of `invoke`, as a node written for LangGraph does, with a note naming the node
  and the attempts; the engine's own errors (`GraphError`s) are raised as they are.
- **LangGraph calls in node code.** A node whose code calls LangGraph's `interrupt()` (or
  raises another of LangGraph's `GraphBubbleUp` signals, such as a `Command` for the parent
  graph) passes it to LangGraph as a node written for LangGraph would, after the node's
  retries; on the engine itself such a node fails (there is no LangGraph run to pause).
- **Error routes.** A node that fails after its retries goes to its `on_error` handler with the
  state's `last_error` set, as on the engine; a failing fan-out branch with an error route
  discards the other branches' deltas and goes to the handler (`__ge_fanin__` decides between
  the join and the handler).
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
characters (`|`, `:`) or names (`__start__`, `__end__`, `__ge_fanin__`), and state fields
named like the private channels, raise `UnsupportedFeature`.

## `from_langgraph(builder)`

Runs a LangGraph `StateGraph` on the engine with LangGraph's semantics and returns an
`AdaptedGraph` whose `run`/`resume` take and return what LangGraph's `invoke` does (its
`engine` is the `Engine` that stores, replays and emits). Each superstep is a fan-out of its
tasks (one engine node per LangGraph node) and a barrier applying their writes through
LangGraph's channels; see `graphengine.adapters._from_langgraph` for the mapping. Subgraphs
run by its tasks keep their checkpoints beside the engine's store (`lg_*` tables in the same
SQLite file, PostgreSQL schema or MySQL database), so a subgraph paused or killed mid-way
continues in any process; see `graphengine.adapters._lg_subgraphs`.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import dataclasses
import threading
import uuid
from collections.abc import Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from graphengine.engine import Engine
from graphengine.errors import (
    GraphError,
    NodeError,
    NodeReturnTypeError,
    UnknownNodeError,
    UnsupportedFeature,
)
from graphengine.graph import CompiledNode
from graphengine.routing import Next, NextKind

try:
    from langgraph._internal._constants import CONFIG_KEY_SCRATCHPAD
    from langgraph._internal._runnable import RunnableCallable
    from langgraph.errors import GraphBubbleUp
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, Send
    from langgraph.types import interrupt as lg_interrupt
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "graphengine.adapters.langgraph needs LangGraph. Install it with: pip install 'graphengine[langgraph]'"
    ) from exc

from ._from_langgraph import AdaptedGraph, from_langgraph
from ._lg_state import BRANCH_KEY, CTL_KEY, STATE_KEY, StateLayout, Writes, layout_for

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig


__all__ = ["FANIN_NODE", "STATE_KEY", "AdaptedGraph", "UnsupportedFeature", "from_langgraph", "to_langgraph"]

S = TypeVar("S")

FANIN_NODE = "__ge_fanin__"
"""Private node where a fan-out's branches meet: it merges their deltas in branch order."""
_RESERVED = frozenset({START, END, FANIN_NODE})
_GOTO = NextKind.GOTO
_STOP = NextKind.STOP
_INTERRUPT = NextKind.INTERRUPT


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
            # Closed at exit: a loop left to the garbage collector at shutdown fails noisily.
            atexit.register(_close_at_exit, runner)
        return runner.run(coro)
    # Called from inside a running loop (sync invoke from async code): use another thread.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _close_at_exit(runner: asyncio.Runner) -> None:
    """Close a sync caller's loop at exit. From Python 3.12 no thread may start at interpreter
    shutdown, and closing a loop whose default executor ran starts one to join it; the executor's
    threads were joined before the atexit callbacks ran, so that step is skipped (the loop itself
    is closed either way)."""
    with contextlib.suppress(RuntimeError):
        runner.close()


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

    def __init__(self, engine: Engine[Any], layout: StateLayout) -> None:
        rt = engine.runtime()
        g = rt.graph
        self.engine = rt
        self.graph = g
        self.nodes = g.nodes
        self.layout = layout
        self.codec = rt.codec
        self.reducer = rt.reducer
        self.error_delta = rt.error_delta

    def make(self, node: CompiledNode[Any]) -> RunnableCallable:
        """The LangGraph node (sync and async) running engine node `node`.

        A `DualNode` runs its sync form under `invoke` and its async form under `ainvoke`, as
        LangGraph runs a `RunnableLambda(func, afunc)`; its sync form has no timeout, which sync
        code on the calling thread cannot be held to (the engine's rule for sync nodes).
        """
        sync_node = node
        if node.sync_call is not None:
            sync_node = dataclasses.replace(node, call=node.sync_call, is_async=False, timeout=None)
        inline = not sync_node.is_async and sync_node.timeout is None and sync_node.backoff <= 0
        run_sync = _run_inline if inline else _run_coro
        step_fn = self.step

        def sync_fn(inp: Any, config: RunnableConfig) -> Any:
            return run_sync(step_fn(sync_node, inp, config))

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
        layout = self.layout
        state = layout.read(inp, node.id)
        ctl = inp.get(CTL_KEY)
        resumed = False
        resume_input: Any = None
        interrupted_at: int | None = None
        writes: Writes = []
        if ctl is not None and ctl.get("pause_node") == node.id:
            resume_input = lg_interrupt(ctl.get("payload"))
            resumed, interrupted_at = True, int(ctl["step"])
            writes.append((CTL_KEY, None))
        elif node.interrupt_before:
            # Past LangGraph's breakpoint (the node is in the compiled interrupt_before list):
            # `invoke(None)` goes on, a `Command(resume=v)` hands the node `v`.
            resume_input = _breakpoint_answer(conf)
            resumed = True
        eng = self.engine
        failed: NodeError | None = None
        try:
            res, _attempt, _ctx = await eng.run_node(
                node,
                run_id,
                step,
                state,
                resumed=resumed,
                resume_input=resume_input,
                interrupted_at=interrupted_at,
            )
        except NodeError as exc:
            if isinstance(exc.__cause__, GraphBubbleUp):
                # The node's code called LangGraph itself (`interrupt()`, a parent `Command`):
                # LangGraph handles it, as in a node written for LangGraph.
                raise exc.__cause__ from None
            handler = node.error_route
            if handler is None:
                failed = exc
            else:
                d = self._error_delta(exc)
                if d is not None:
                    layout.merge(writes, d)
                return Command(update=_update(writes), goto=handler)
        if failed is not None:
            raise _own_error(failed)
        if eng.emitter is not None:
            for ev in res.events:
                eng.emit(ev)
        delta = res.delta
        if delta is not None:
            delta = eng.checked_delta(delta, run_id, step, node.id)
            if node.replaces_state:
                state = delta
                layout.replace(writes, delta)
            else:
                state = self.reducer(state, delta)
                layout.merge(writes, delta)
        route = res.route
        if route is None:
            route = node.resolve(state)
        kind = route.kind
        if kind is _GOTO:
            if route.target not in self.nodes:
                raise _unknown(route, run_id, step, node.id)
            return Command(update=_update(writes), goto=route.target)
        if kind is _STOP:
            return Command(update=_update(writes), goto=END)
        if kind is _INTERRUPT:
            writes = [w for w in writes if w[0] != CTL_KEY]
            writes.append((CTL_KEY, {"pause_node": node.id, "payload": route.payload, "step": step}))
            return Command(update=_update(writes), goto=node.id)
        return self._fan_out(route, state, writes, run_id, step, node.id)

    def _fan_out(self, route: Next, state: Any, writes: Writes, run_id: str, step: int, node_id: str) -> Any:
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
        return Command(update=_update(writes), goto=sends)

    async def _branch(self, node: CompiledNode[Any], inp: Mapping[str, Any], run_id: str, step: int) -> Any:
        """Run one fan-out branch; its result goes to the fan-in node as `(kind, index, delta, target)`."""
        i = int(inp["ge_branch"])
        join = str(inp["ge_join"])
        state = self.codec.decode(inp["ge_in"])
        failed: NodeError | None = None
        try:
            res, _attempt, _ctx = await self.engine.run_node(node, run_id, step, state, branch=i)
        except NodeError as exc:
            handler = node.error_route
            if handler is None:
                failed = exc
            else:
                err = self._error_delta(exc)
                enc = self.codec.encode_delta(err) if err is not None else None
                return Command(update=[(BRANCH_KEY, ("f", i, enc, handler))], goto=FANIN_NODE)
        if failed is not None:
            raise _own_error(failed)
        if res.route is not None and res.route.kind is _INTERRUPT:
            raise GraphError(
                f"branch {i} (node {node.id!r}) of the fan-out at step {step} interrupted; "
                "interrupts are not supported inside fan-out branches (use a subgraph or interrupt at the join)",
                run_id=run_id,
                step=step,
                node_id=node.id,
            )
        if res.route is not None:
            # As the engine does: the join decides where the run goes, a branch's hop cannot be followed.
            raise NodeReturnTypeError(
                f"branch {i} (node {node.id!r}) of the fan-out at step {step} of run {run_id!r} returned "
                f"the route {res.route!r:.80}; a branch's route cannot be followed (the fan-out's join runs "
                "next): return no route from branch nodes and route from the join",
                run_id=run_id,
                step=step,
                node_id=node.id,
            )
        d = res.delta
        if d is not None:
            d = self.engine.checked_delta(d, run_id, step, node.id)
        enc = self.codec.encode_delta(d) if d is not None else None
        return Command(update=[(BRANCH_KEY, ("b", i, enc, join))], goto=FANIN_NODE)

    def _error_delta(self, exc: NodeError) -> Any:
        if self.error_delta is None:
            return None
        cause = exc.__cause__ if exc.__cause__ is not None else exc
        return self.error_delta(f"{type(cause).__name__}: {cause}")

    def fanin(self, inp: Any) -> Any:
        """Where branches meet: the lowest failing branch's error delta and handler, else every
        branch's delta in branch order and the join."""
        entries = inp.get(BRANCH_KEY) or []
        if not entries:
            raise GraphError("fan-in reached without the results of a fan-out (corrupt branch channel)")
        fails = [e for e in entries if e[0] == "f"]
        decode = self.engine.decode_delta
        writes: Writes = []
        if fails:
            first = min(fails, key=lambda e: int(e[1]))
            if first[2] is not None:
                self.layout.merge(writes, decode(first[2]))
            return Command(update=_update(writes), goto=first[3])
        ordered = sorted(entries, key=lambda e: int(e[1]))
        self.layout.merge_many(writes, [decode(e[2]) for e in ordered if e[2] is not None])
        return Command(update=_update(writes), goto=ordered[0][3])


def _own_error(failed: NodeError) -> BaseException:
    """What LangGraph's `invoke` raises for a node that failed after its retries: the node's own
    exception, as a node written for LangGraph raises it (the engine's `NodeError` would tell the
    caller to resume a run id that is not theirs), with a note naming the node and the attempts.
    Raised outside the handler that caught the `NodeError`, so the exception's own chain is what
    the traceback shows. Errors of the engine itself (`GraphError`s) stay as they are."""
    cause = failed.__cause__
    if cause is None or isinstance(cause, GraphError) or not isinstance(cause, Exception):
        return failed
    tries = f"{failed.attempts} attempts" if failed.attempts != 1 else "1 attempt"
    cause.add_note(f"raised by graphengine node {failed.node_id!r} after {tries}")
    return cause


def _breakpoint_answer(conf: Mapping[str, Any]) -> Any:
    """The `Command(resume=v)` value given at a breakpoint before the running node, or None
    (`invoke(None)`): read as LangGraph's `interrupt()` reads it, so a node with no `interrupt()`
    of its own is not paused twice."""
    scratchpad = conf.get(CONFIG_KEY_SCRATCHPAD)
    get = getattr(scratchpad, "get_null_resume", None)
    return None if get is None else get(consume=True)


def _node_list(ids: Sequence[str] | str | None, *more: str) -> Any:
    """Node ids for LangGraph's `compile`: None, `"*"` (every node) or a list (with `more` added)."""
    if ids == "*":
        return ids
    listed = [] if ids is None else [ids] if isinstance(ids, str) else list(ids)
    listed += [m for m in more if m not in listed]
    return listed or None


def _update(writes: Writes) -> Any:
    """A `Command` update: a dict when each channel is written once (LangGraph's usual shape, also
    in `stream_mode="updates"`), else the ordered writes."""
    d = dict(writes)
    return d if len(d) == len(writes) else writes


def _unknown(route: Next, run_id: str, step: int, node_id: str) -> UnknownNodeError:
    return UnknownNodeError(
        f"node {node_id!r} routed to an unknown node ({route!r})", run_id=run_id, step=step, node_id=node_id
    )


def _destinations(engine: Engine[Any]) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """Where each node may go, for LangGraph's drawings (routing itself is by `Command`).

    The engine's static edges and error routes; END for a node without an unconditional edge; the
    fan-in node from the branches of static fan-outs (else from every node without static edges,
    which route at run time and may fan out) to their joins and error handlers. Routes a node
    returns at run time cannot be known here.
    """
    spec = engine.spec()
    out: dict[str, list[str]] = {n.id: [] for n in spec.nodes}
    unconditional: set[str] = set()
    branch_nodes: set[str] = set()
    fanin: list[str] = []
    for e in spec.edges:
        if e.branches:
            out[e.src].extend(e.branches)
            branch_nodes.update(e.branches)
            fanin.append(e.dst)
        else:
            out[e.src].append(e.dst)
        if e.when is None:
            unconditional.add(e.src)
    default = spec.error_routes.get(None)
    for nid, targets in out.items():
        handler = spec.error_routes.get(nid, default)
        if handler is not None and handler != nid:
            targets.append(handler)
        if nid not in unconditional:
            targets.append(END)
    for nid in branch_nodes or {nid for nid in out if not any(e.src == nid for e in spec.edges)}:
        out[nid].append(FANIN_NODE)
    fanin.extend(h for h in spec.error_routes.values() if h not in fanin)
    dests = {nid: tuple(dict.fromkeys(t)) for nid, t in out.items()}
    return dests, tuple(dict.fromkeys(fanin)) or (END,)


def to_langgraph(
    engine: Engine[Any],
    checkpointer: Any = None,
    *,
    store: Any = None,
    interrupt_before: Sequence[str] | str | None = None,
    interrupt_after: Sequence[str] | str | None = None,
) -> Any:
    """Compile `engine` into a LangGraph graph (`CompiledStateGraph`) that behaves like it.

    For a state merged field by field, `graph.invoke(S(...))` or `graph.invoke({"field": ...})`
    returns LangGraph's dict of the fields, which `S(**out)` turns into the state `engine.run`
    would return; with a custom whole-state reducer, `graph.invoke({"state": initial})` returns
    `{"state": final}` (see the module docstring for how each feature is carried). `checkpointer`
    is any LangGraph checkpointer (needed for interrupts and resume); None compiles without one
    (a parent graph's is then inherited). Raises `GraphValidationError` for a malformed engine
    and `UnsupportedFeature` naming the node for a node id LangGraph reserves (or the field for
    a state field named like a private channel, `ge_ctl` or `ge_branches`). The engine may be a GOAP graph's engine: nothing here depends on
    what its nodes do.

    `store` (a LangGraph `BaseStore`), `interrupt_before` and `interrupt_after` (node ids, or
    `"*"` for every node) are given to LangGraph's `compile`, as in a graph written in LangGraph:
    the graph pauses before or after those nodes and `invoke(None, config)` continues. An id
    that is not a node of the engine raises `UnknownNodeError` naming it.
    """
    engine.validate()
    rt = engine.runtime()
    layout = layout_for(rt)
    for nid in rt.graph.nodes:
        if nid in _RESERVED or "|" in nid or ":" in nid:
            raise UnsupportedFeature(
                f"node id {nid!r} is reserved or contains a character LangGraph reserves ('|', ':'); rename the node",
                feature="node id",
                node_id=nid,
            )
    for key in (CTL_KEY, BRANCH_KEY):
        if key in layout.keys:
            raise UnsupportedFeature(
                f"state field {key!r} is the name of a private channel of the adapted graph; rename the field",
                feature="state field",
            )
    name = f"{rt.type_name}Graph"
    ad = _Adapted(engine, layout)
    inp, out = layout.io_schemas(name)
    builder = StateGraph(layout.state_schema(name), input_schema=inp, output_schema=out)
    dests, fanin_dests = _destinations(engine)
    for node in rt.graph.nodes.values():
        builder.add_node(node.id, ad.make(node), destinations=dests[node.id])
    builder.add_node(
        FANIN_NODE, RunnableCallable(ad.fanin, name=FANIN_NODE, trace=False), destinations=fanin_dests
    )
    builder.add_edge(START, rt.graph.start)
    for where, ids in (("interrupt_before", interrupt_before), ("interrupt_after", interrupt_after)):
        for nid in [] if ids is None or ids == "*" else [ids] if isinstance(ids, str) else ids:
            if nid not in rt.graph.nodes:
                raise UnknownNodeError(
                    f"{where} names {nid!r}, which is not a node of the engine", node_id=nid
                )
    compiled = builder.compile(
        checkpointer=checkpointer,
        store=store,
        # Nodes added with interrupt_before=True are LangGraph breakpoints, which `invoke(None)` passes.
        interrupt_before=_node_list(
            interrupt_before, *(n.id for n in rt.graph.nodes.values() if n.interrupt_before)
        ),
        interrupt_after=_node_list(interrupt_after),
        name=name,
    )
    # Stream and inspect the engine's state only, not the private channels.
    compiled.stream_channels = list(layout.keys)
    return compiled.with_config({"recursion_limit": 2 * engine.options.max_steps + 5})
