"""`GraphSpec`: a read-only description of an engine's graph, for drawings and inspectors."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .commute import MergeOrder, commuting_fields, is_commutative, state_fields
from .errors import GraphValidationError
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
    commuting_fields: frozenset[str] = frozenset()
    """State fields whose reducer commutes (`graphengine.commute`): fan-out deltas setting only
    these merge in completion order."""
    reducer_commutes: bool = False
    """The engine's reducer commutes as a whole: every fan-out merges in completion order."""
    state_fields: frozenset[str] | None = None
    """The state type's fields, or None when it does not declare them (a plain dict, extra fields)."""

    @property
    def node_ids(self) -> tuple[str, ...]:
        """Node ids in insertion order."""
        return tuple(n.id for n in self.nodes)

    def merge_order(self, writes: Iterable[str] | None = None) -> MergeOrder:
        """The order a fan-out whose branches set the fields `writes` merges them in.

        `completion` (each delta as its branch lands) when the reducer commutes as a whole or
        every field in `writes` has a commutative reducer; `declared` (branch order) otherwise.
        `writes=None` asks about branches that may set any field. Either order gives the same
        state. `GraphValidationError` names a field the state type does not have.
        """
        if writes is None:
            if self.reducer_commutes:
                return "completion"
            known = self.state_fields
            return "completion" if known is not None and known <= self.commuting_fields else "declared"
        wanted = set(writes)
        if self.state_fields is not None:
            unknown = sorted(wanted - self.state_fields)
            if unknown:
                raise GraphValidationError(
                    f"merge_order: {unknown[0]!r} is not a field of {self.type_name!r} "
                    f"(its fields: {', '.join(sorted(self.state_fields))})"
                )
        if self.reducer_commutes or wanted <= self.commuting_fields:
            return "completion"
        return "declared"

    def handler_of(self, node_id: str) -> str | None:
        """The node a failure of `node_id` is routed to, if any."""
        routes = self.error_routes
        return routes.get(node_id, routes.get(None))


def predicate_name(fn: Any) -> str:
    """How a drawing names an edge's predicate ("when" for a lambda)."""
    name = getattr(fn, "__name__", None) or type(fn).__name__
    return "when" if name == "<lambda>" else str(name)


def graph_spec(
    state_type: Any,
    wiring: Wiring[Any],
    fingerprint: str | None,
    reducer: Callable[[Any, Any], Any] | None = None,
) -> GraphSpec:
    """A frozen copy of `wiring`, with what `reducer` says of merge orders."""
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
        commuting_fields=frozenset() if reducer is None else commuting_fields(reducer),
        reducer_commutes=reducer is not None and is_commutative(reducer),
        state_fields=state_fields(state_type),
    )
