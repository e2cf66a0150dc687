"""`NodeResult`: what a node hands back to the engine."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, NamedTuple, TypeVar

from graphengine.emit import Event

from .routing import Next

__all__ = ["NodeResult"]

S = TypeVar("S")


class NodeResult(NamedTuple, Generic[S]):
    """The outcome of one node execution.

    All fields are optional: `NodeResult()` changes nothing and follows the static edges.
    Immutable (a `NamedTuple`: nodes build one per step, and it constructs several times faster
    than a frozen dataclass).
    """

    delta: S | None = None
    """Changes to merge into the state with the engine's reducer (None: no change)."""
    route: Next | None = None
    """Where to go next; None follows the static edges (first predicate that holds, else stop)."""
    events: Sequence[Event] = ()
    """Extra events: emitted, and stored with the step (`StepView.events` in `Engine.history`)
    whether or not an emitter is set. Their meta must be JSON (other values are stored as str)."""
    err: Exception | None = None
    """A failure reported without raising; handled like a raised exception (retries apply)."""
