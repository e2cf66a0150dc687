"""The graph's wiring and its compiled, validated form.

`Wiring` collects what `Engine.add/start_at/connect` declare; `compile_graph` validates it and
builds the tables the step loop uses (decide once, run many): each node's invoker, limits and
static-edge resolution, and the precomputed JSON of every route a step can store.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from .errors import NoStartNodeError, UnknownNodeError
from .node import Invoker
from .options import NodeOptions, Options
from .routing import STOP, Next, NextKind, goto

__all__ = ["CompiledGraph", "CompiledNode", "Edge", "Wiring", "compile_graph"]

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


@dataclass(slots=True)
class Wiring(Generic[S]):
    """Mutable declarations of a graph, before validation."""

    nodes: dict[str, tuple[Any, Invoker, NodeOptions]] = field(default_factory=dict)
    """Node id -> (the object given, its invoker, its options), in insertion order."""
    edges: list[Edge[S]] = field(default_factory=list)
    """Static edges in declaration order."""
    start: str | None = None
    """The start node."""


@dataclass(frozen=True, slots=True)
class CompiledNode(Generic[S]):
    """Everything the step loop needs about one node."""

    id: str
    call: Callable[[Any, Any], Any]
    is_async: bool
    retries: int
    timeout: float | None
    backoff: float
    # Static routing: either a constant hop, or predicates tried in order.
    fixed: Next | None
    branches: tuple[tuple[Callable[[S], bool] | None, Next], ...]

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
    route_json: dict[Next, str]
    """JSON of every static route, so storing a step formats nothing."""

    def encode_route(self, nxt: Next) -> str:
        """JSON text of a route, from the table when precomputed."""
        s = self.route_json.get(nxt)
        return s if s is not None else nxt.to_json()


def _describe(fn: Callable[..., Any] | None) -> str:
    if fn is None:
        return ""
    return f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', type(fn).__qualname__)}"


def fingerprint(wiring: Wiring[Any]) -> str:
    """A stable hash of the graph's shape: node ids, start and edges (with predicate names).

    Node implementations are not part of it (fixing a bug in a node must not strand its runs);
    adding, removing or rewiring nodes changes it.
    """
    doc = {
        "nodes": sorted(wiring.nodes),
        "start": wiring.start,
        "edges": [[e.src, e.dst, _describe(e.when)] for e in wiring.edges],
    }
    raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(raw).hexdigest()[:16]


def compile_graph(wiring: Wiring[S], options: Options) -> CompiledGraph[S]:
    """Validate the wiring and build the run tables.

    Raises `NoStartNodeError` or `UnknownNodeError` naming the culprit.
    """
    if wiring.start is None:
        raise NoStartNodeError("no start node: call start_at(node_id) before running")
    if wiring.start not in wiring.nodes:
        raise UnknownNodeError(
            f"start node {wiring.start!r} is not in the graph (nodes: {', '.join(wiring.nodes) or 'none'})",
            node_id=wiring.start,
        )
    for e in wiring.edges:
        for end in (e.src, e.dst):
            if end not in wiring.nodes:
                raise UnknownNodeError(
                    f"edge {e.src!r} -> {e.dst!r} names unknown node {end!r}; add it with add({end!r}, ...)",
                    node_id=end,
                )
    route_json: dict[Next, str] = {STOP: STOP.to_json()}
    for nid in wiring.nodes:
        route_json[goto(nid)] = goto(nid).to_json()

    nodes: dict[str, CompiledNode[S]] = {}
    for nid, (_obj, inv, nopts) in wiring.nodes.items():
        per = options.node.get(nid, NodeOptions())
        out = [(e.when, goto(e.dst)) for e in wiring.edges if e.src == nid]
        fixed: Next | None = None
        if not out:
            fixed = STOP
        elif out[0][0] is None:
            fixed = out[0][1]
        nodes[nid] = CompiledNode(
            id=nid,
            call=inv.call,
            is_async=inv.is_async,
            retries=_first(nopts.retries, per.retries, options.retries),
            timeout=_first(nopts.timeout, per.timeout, options.timeout),
            backoff=_first(nopts.backoff, per.backoff, options.backoff),
            fixed=fixed,
            branches=tuple(out),
        )
    return CompiledGraph(
        nodes=nodes, start=wiring.start, fingerprint=fingerprint(wiring), route_json=route_json
    )


T = TypeVar("T")


def _first(*vals: T | None) -> Any:
    for v in vals:
        if v is not None:
            return v
    return None


def is_goto(nxt: Next) -> bool:
    """Whether a hop continues the run."""
    return nxt.kind is NextKind.GOTO
