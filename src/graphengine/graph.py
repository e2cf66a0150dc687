"""The graph's wiring and its compiled, validated form.

`Wiring` collects what `Engine.add/start_at/connect/fan_out/on_error` declare; `compile_graph`
validates it and builds the tables the step loop uses (decide once, run many): each node's
invoker, limits, error route and static routing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from .errors import GraphValidationError, NoStartNodeError, UnknownNodeError
from .exports import defined_in
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
            if when is None or when(state):
                return nxt
        return STOP


@dataclass(frozen=True, slots=True)
class CompiledGraph(Generic[S]):
    """A validated graph ready to run; shared by every run of the engine."""

    nodes: dict[str, CompiledNode[S]]
    start: str
    fingerprint: str
    description: dict[str, Any]


def _describe(fn: Callable[..., Any] | None) -> str:
    if fn is None:
        return ""
    module = defined_in(fn) if hasattr(fn, "__module__") else ""
    return f"{module}.{getattr(fn, '__qualname__', type(fn).__qualname__)}"


def _code_identity(obj: Any) -> str:
    """Which code implements a node: its function's or class's qualified name.

    Editing a node's body keeps the identity (a bug fix must not strand runs); swapping in
    another function or class changes it. A subgraph is identified by its own fingerprint.
    """
    from .subgraph import Subgraph

    if isinstance(obj, Subgraph):
        return f"subgraph:{obj.engine.fingerprint}"
    target = obj if callable(obj) and not hasattr(obj, "run") else type(obj)
    if hasattr(obj, "fn") and callable(obj.fn):  # NodeFunc
        target = obj.fn
    return f"{defined_in(target)}.{getattr(target, '__qualname__', type(target).__qualname__)}"


def describe(wiring: Wiring[Any]) -> dict[str, Any]:
    """The graph's shape as JSON-ready data: what the fingerprint hashes and runs record."""
    return {
        "nodes": {k: _code_identity(v.obj) for k, v in sorted(wiring.nodes.items())},
        "start": wiring.start,
        "edges": [[e.src, e.dst, _describe(e.when), list(e.branches)] for e in wiring.edges],
        "errors": sorted([k or "*", v] for k, v in wiring.error_routes.items()),
        "before": sorted(k for k, v in wiring.nodes.items() if v.interrupt_before),
    }


def fingerprint_of(desc: dict[str, Any]) -> str:
    """A stable hash of a graph description."""
    raw = json.dumps(desc, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(raw).hexdigest()[:16]


def fingerprint(wiring: Wiring[Any]) -> str:
    """A stable hash of the graph's shape: node ids and code identity, start, edges (with
    predicate names), error routes and interrupt_before marks."""
    return fingerprint_of(describe(wiring))


def changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Human-readable differences between two graph descriptions."""
    out: list[str] = []
    on, nn = old.get("nodes", {}), new.get("nodes", {})
    out += [f"node {k!r} removed" for k in on if k not in nn]
    out += [f"node {k!r} added" for k in nn if k not in on]
    out += [f"node {k!r} now runs {nn[k]} (was {on[k]})" for k in on if k in nn and on[k] != nn[k]]
    if old.get("start") != new.get("start"):
        out.append(f"start changed from {old.get('start')!r} to {new.get('start')!r}")
    oe = [tuple(map(str, e)) for e in old.get("edges", [])]
    ne = [tuple(map(str, e)) for e in new.get("edges", [])]
    out += [f"edge {e[0]!r} -> {e[1]!r} removed" for e in oe if e not in ne]
    out += [f"edge {e[0]!r} -> {e[1]!r} added" for e in ne if e not in oe]
    if old.get("errors") != new.get("errors"):
        out.append(f"error routes changed from {old.get('errors')} to {new.get('errors')}")
    if old.get("before") != new.get("before"):
        out.append(f"interrupt_before nodes changed from {old.get('before')} to {new.get('before')}")
    return out or ["the graph description differs"]


def _require(wiring: Wiring[Any], node_id: str, what: str) -> None:
    if node_id not in wiring.nodes:
        raise UnknownNodeError(
            f"{what} names unknown node {node_id!r}; add it with add({node_id!r}, ...)", node_id=node_id
        )


def compile_graph(wiring: Wiring[S], options: Options) -> CompiledGraph[S]:
    """Validate the wiring and build the run tables.

    Raises `NoStartNodeError`, `UnknownNodeError` or `GraphValidationError` naming the culprit.
    """
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

    nodes: dict[str, CompiledNode[S]] = {}
    for nid, spec in wiring.nodes.items():
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
        nodes[nid] = CompiledNode(
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
    desc = describe(wiring)
    return CompiledGraph(nodes=nodes, start=wiring.start, fingerprint=fingerprint_of(desc), description=desc)


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
