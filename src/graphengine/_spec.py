"""`GraphSpec`: a read-only description of an engine's graph, for drawings and inspectors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .graph import Wiring

__all__ = ["EdgeSpec", "GraphSpec", "NodeInfo", "graph_spec"]


@dataclass(frozen=True, slots=True)
class NodeInfo:
    """What a drawing needs to know about one node."""

    id: str
    """The node id."""
    interrupt_before: bool
    """The run pauses before this node until it is resumed."""


@dataclass(frozen=True, slots=True)
class EdgeSpec:
    """A static edge as declared with `Engine.connect`."""

    src: str
    """Node the edge leaves."""
    dst: str
    """Node the edge enters (for a fan-out: the join)."""
    when: str | None
    """The predicate's name ("when" for a lambda), or None for an edge always taken."""
    branches: tuple[str, ...] = ()
    """For a static fan-out edge: the branch nodes."""


@dataclass(frozen=True, slots=True)
class GraphSpec:
    """An engine's graph as declared so far (`Engine.spec()`); changing the engine does not change it."""

    state_type: Any
    """The state type."""
    type_name: str
    """The state type's name."""
    start: str | None
    """The start node, if set."""
    nodes: tuple[NodeInfo, ...]
    """The nodes in insertion order."""
    edges: tuple[EdgeSpec, ...]
    """Static edges in declaration order."""
    error_routes: Mapping[str | None, str]
    """Failing node id (None: any node) -> handler node."""
    fingerprint: str | None
    """Hash of the graph's shape, or None while the graph does not validate."""

    @property
    def node_ids(self) -> tuple[str, ...]:
        """Node ids in insertion order."""
        return tuple(n.id for n in self.nodes)

    def handler_of(self, node_id: str) -> str | None:
        """The node a failure of `node_id` is routed to, if any."""
        routes = self.error_routes
        return routes.get(node_id, routes.get(None))


def predicate_name(fn: Any) -> str:
    """How a drawing names an edge's predicate ("when" for a lambda)."""
    name = getattr(fn, "__name__", None) or type(fn).__name__
    return "when" if name == "<lambda>" else str(name)


def graph_spec(state_type: Any, wiring: Wiring[Any], fingerprint: str | None) -> GraphSpec:
    """A frozen copy of `wiring`."""
    return GraphSpec(
        state_type=state_type,
        type_name=getattr(state_type, "__name__", str(state_type)),
        start=wiring.start,
        nodes=tuple(NodeInfo(n, spec.interrupt_before) for n, spec in wiring.nodes.items()),
        edges=tuple(
            EdgeSpec(e.src, e.dst, None if e.when is None else predicate_name(e.when), e.branches)
            for e in wiring.edges
        ),
        error_routes=MappingProxyType(dict(wiring.error_routes)),
        fingerprint=fingerprint,
    )
