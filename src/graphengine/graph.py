"""The graph's wiring and its compiled, validated form.

`Wiring` collects what `Engine.add/start_at/connect/fan_out/on_error` declare; `compile_graph`
validates it and builds the tables the step loop uses (decide once, run many): each node's
invoker, limits, error route and static routing.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ._fingerprint import changes, describe, fingerprint_of
from .errors import GraphValidationError, NoStartNodeError, UnknownNodeError
from .node import Invoker
from .options import NodeOptions, Options
from .routing import STOP, Branch, Next, NextKind, goto

__all__ = [
    "CompiledGraph",
    "CompiledNode",
    "Edge",
    "NodeSpec",
    "Wiring",
    "changes",
    "check_predicate",
    "compile_graph",
    "describe",
    "fingerprint",
]

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class Edge(Generic[S]):
    """A static edge: after `src`, go to `dst` if `when(state)` holds (None: always)."""

    src: str
    """Node the edge leaves."""
    dst: str
    """Node the edge enters."""
    when: Callable[[S], bool] | None = None
    """Predicate on the state after the merge; edges are tried in declaration order."""
    branches: tuple[str, ...] = ()
    """For a static fan-out edge: the branch nodes (then `dst` is the join)."""


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """What was declared about one node."""

    obj: Any
    invoker: Invoker
    options: NodeOptions
    interrupt_before: bool = False
    replaces_state: bool = False
    """The node's delta is a whole new state (a subgraph of the same type without a mapping)."""


@dataclass(slots=True)
class Wiring(Generic[S]):
    """Mutable declarations of a graph, before validation."""

    nodes: dict[str, NodeSpec] = field(default_factory=dict)
    """Node id -> its declaration, in insertion order."""
    edges: list[Edge[S]] = field(default_factory=list)
    """Static edges in declaration order."""
    start: str | None = None
    """The start node."""
    error_routes: dict[str | None, str] = field(default_factory=dict)
    """Failing node id (None: any node) -> handler node."""


@dataclass(frozen=True, slots=True)
class CompiledNode(Generic[S]):
    """Everything the step loop needs about one node."""

    id: str
    call: Callable[[Any, Any], Any]
    is_async: bool
    retries: int
    timeout: float | None
    backoff: float
    retry_on: tuple[type[BaseException], ...]
    interrupt_before: bool
    replaces_state: bool
    error_route: str | None
    # Static routing: either a constant hop, or predicates tried in order.
    fixed: Next | None
    branches: tuple[tuple[Callable[[S], bool] | None, Next], ...]
    sync_call: Callable[[Any, Any], Any] | None = None
    """The sync form of a `DualNode` (the engine runs `call`; sync hosts such as LangGraph's
    `invoke` run this)."""

    def resolve(self, state: S) -> Next:
        """The hop the static edges give for `state` (stop when none holds)."""
        if self.fixed is not None:
            return self.fixed
        for when, nxt in self.branches:
            if when is None:
                return nxt
            held = when(state)
            if held is True:
                return nxt
            if held is False:
                continue
            if inspect.isawaitable(held):
                # A coroutine is truthy: taking the edge on it would be silently wrong.
                if inspect.iscoroutine(held):
                    held.close()  # never awaited, on purpose: no "never awaited" warning
                raise TypeError(
                    f"the predicate {_describe(when)} returned an awaitable ({type(held).__name__}); "
                    "edge predicates are sync functions of the state: compute the condition in the "
                    "node (async there) and route with NodeResult(route=goto(...))"
                )
            if held:
                return nxt
        return STOP


@dataclass(frozen=True, slots=True)
class CompiledGraph(Generic[S]):
    """A validated graph ready to run; shared by every run of the engine."""

    nodes: dict[str, CompiledNode[S]]
    start: str
    fingerprint: str
    """What runs record and resume compares (see `graphengine._fingerprint`)."""
    description: dict[str, Any]
    """What the fingerprint hashes; runs record it, so a refusal can say what changed."""
    legacy_fingerprint: str = ""
    """The fingerprint this graph had when code was named with its module (older runs recorded it)."""
    legacy_description: dict[str, Any] = field(default_factory=dict)
    """The description that fingerprint hashed."""


def _is_async_callable(fn: Any) -> bool:
    """Whether calling `fn` gives a coroutine: an `async def`, a partial of one, or an object with `async __call__`."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004


def check_predicate(src: str, dst: str, when: Any) -> None:
    """Refuse an edge predicate that can never decide: not callable, or async (its coroutine is always truthy)."""
    if when is None:
        return
    if not callable(when):
        raise GraphValidationError(
            f"connect({src!r}, {dst!r}, when={when!r:.60}): the predicate must be a function of the "
            "state returning a bool, or None for an edge always taken",
            node_id=src,
        )
    if _is_async_callable(when):
        raise GraphValidationError(
            f"edge {src!r} -> {dst!r}: the predicate {_describe(when)} is async; its coroutine would "
            "always count as true. Use a sync function of the state, or decide in the node and "
            "return NodeResult(route=goto(...))",
            node_id=src,
        )


def _describe(fn: Callable[..., Any] | None) -> str:
    if fn is None:
        return ""
    return f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', type(fn).__qualname__)}"


def fingerprint(wiring: Wiring[Any]) -> str:
    """A stable hash of the graph's shape: node ids and the qualified names of their code, start,
    edges (with predicate names), error routes and interrupt_before marks (see `_fingerprint`)."""
    return fingerprint_of(describe(wiring))


def _require(wiring: Wiring[Any], node_id: str, what: str) -> None:
    if node_id not in wiring.nodes:
        raise UnknownNodeError(
            f"{what} names unknown node {node_id!r}; add it with add({node_id!r}, ...)", node_id=node_id
        )


def state_fields(tp: Any) -> frozenset[str] | None:
    """The field names of a state type (pydantic model, dataclass, TypedDict); None when it has no fixed fields."""
    fields = getattr(tp, "model_fields", None)
    if isinstance(fields, dict):
        return frozenset(fields)
    if dataclasses.is_dataclass(tp):
        return frozenset(f.name for f in dataclasses.fields(tp))
    keys = getattr(tp, "__required_keys__", None)
    if keys is not None:
        return frozenset(keys) | frozenset(getattr(tp, "__optional_keys__", ()))
    return None


def compile_graph(
    wiring: Wiring[S], options: Options, fields: frozenset[str] | None = None
) -> CompiledGraph[S]:
    """Validate the wiring and build the run tables.

    Raises `NoStartNodeError`, `UnknownNodeError` or `GraphValidationError` naming the culprit;
    also for `options` about things the graph does not have (a per-node override of an unknown
    node, a size budget for a field not among the state's `fields`), which would be ignored.
    """
    start = _checked_start(wiring, options, fields)
    nodes = {nid: _compile_node(wiring, options, nid, spec) for nid, spec in wiring.nodes.items()}
    desc, legacy = describe(wiring), describe(wiring, with_module=True)
    return CompiledGraph(
        nodes=nodes,
        start=start,
        fingerprint=fingerprint_of(desc),
        description=desc,
        legacy_fingerprint=fingerprint_of(legacy),
        legacy_description=legacy,
    )


def _checked_start(wiring: Wiring[Any], options: Options, fields: frozenset[str] | None) -> str:
    """The start node, once the wiring is checked.

    Refuses options about what the graph lacks, a missing start, and edges naming unknown nodes.
    """
    unknown = [n for n in options.node if n not in wiring.nodes]
    if unknown:
        raise UnknownNodeError(
            f"Options.node names {unknown[0]!r}, which is not a node of the graph "
            f"(nodes: {', '.join(wiring.nodes) or 'none'}); its overrides would be ignored",
            node_id=unknown[0],
        )
    if fields is not None:
        stray = [f for f in options.field_budgets if f not in fields]
        if stray:
            raise GraphValidationError(
                f"Options.field_budgets names {stray[0]!r}, which is not a field of the state "
                f"(fields: {', '.join(sorted(fields))}); its budget would never be checked"
            )
    if wiring.start is None:
        raise NoStartNodeError("no start node: call start_at(node_id) before running")
    if wiring.start not in wiring.nodes:
        raise UnknownNodeError(
            f"start node {wiring.start!r} is not in the graph (nodes: {', '.join(wiring.nodes) or 'none'})",
            node_id=wiring.start,
        )
    for e in wiring.edges:
        _require(wiring, e.src, f"edge {e.src!r} -> {e.dst!r}")
        if e.branches:
            _require(wiring, e.dst, f"fan-out from {e.src!r}: join")
            for b in e.branches:
                _require(wiring, b, f"fan-out from {e.src!r}: branch")
        else:
            _require(wiring, e.dst, f"edge {e.src!r} -> {e.dst!r}")
    for src, handler in wiring.error_routes.items():
        if src is not None:
            _require(wiring, src, f"on_error({src!r}, {handler!r})")
        _require(wiring, handler, f"on_error({src!r}, {handler!r}): handler")
    return wiring.start


def _compile_node(wiring: Wiring[S], options: Options, nid: str, spec: NodeSpec) -> CompiledNode[S]:
    """One node's run table: its static hops, and its retries, timeout and backoff resolved.

    Raises `GraphValidationError` for negative retries or a timeout the engine cannot enforce.
    """
    per = options.node.get(nid, NodeOptions())
    nopts = spec.options
    out: list[tuple[Callable[[S], bool] | None, Next]] = []
    for e in wiring.edges:
        if e.src != nid:
            continue
        if e.branches:
            out.append((e.when, Next(NextKind.FAN_OUT, e.dst, tuple(Branch(b) for b in e.branches))))
        else:
            out.append((e.when, goto(e.dst)))
    fixed: Next | None = None
    if not out:
        fixed = STOP
    elif out[0][0] is None:
        fixed = out[0][1]
    retries = _first(nopts.retries, per.retries, options.retries)
    if retries < 0:
        raise GraphValidationError(f"node {nid!r}: retries must be >= 0, got {retries}", node_id=nid)
    own_timeout = _first(nopts.timeout, per.timeout)
    if own_timeout is not None:
        _check_timeout(nid, spec, own_timeout, retries)
        timeout = own_timeout
    else:
        # The engine-wide default applies where it can be enforced: not to a sync node on the
        # loop, which nothing can interrupt (a timeout given for the node itself is refused).
        timeout = options.timeout if spec.invoker.is_async else None
    return CompiledNode(
        id=nid,
        call=spec.invoker.call,
        is_async=spec.invoker.is_async,
        retries=retries,
        timeout=timeout,
        backoff=_first(nopts.backoff, per.backoff, options.backoff),
        retry_on=_first(nopts.retry_on, per.retry_on, options.retry_on),
        interrupt_before=spec.interrupt_before,
        replaces_state=spec.replaces_state,
        error_route=wiring.error_routes.get(nid, wiring.error_routes.get(None)),
        fixed=fixed,
        branches=tuple(out),
        sync_call=spec.invoker.sync_call,
    )


def _check_timeout(nid: str, spec: NodeSpec, timeout: float, retries: int) -> None:
    """Refuse a timeout the engine cannot enforce (`GraphValidationError` naming the node)."""
    if not spec.invoker.is_async:
        raise GraphValidationError(
            f"node {nid!r} is a sync function run on the event loop: its timeout={timeout} cannot interrupt "
            "it; make it async, add it with thread=True, or drop the timeout",
            node_id=nid,
        )
    if spec.invoker.thread and retries > 0:
        raise GraphValidationError(
            f"node {nid!r} runs in a thread with timeout={timeout} and retries={retries}: a timed-out thread "
            "cannot be stopped, so its retry would run beside it; drop the retries or the timeout "
            "(or make the node async)",
            node_id=nid,
        )


def _first(*vals: Any) -> Any:
    for v in vals:
        if v is not None:
            return v
    return None
