"""`StepView`: a decoded step record, as `Engine.history` returns it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from .routing import Next

__all__ = ["StepView"]

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class StepView(Generic[S]):
    """One committed step with its values decoded into the state type."""

    step: int
    """1-based step number."""
    node_id: str
    """The node that ran."""
    delta: S | None
    """The delta it returned."""
    state: S
    """The state after the merge."""
    route: Next
    """The hop resolved after the step."""
    attempt: int
    """Attempts the node took."""
    error: str | None
    """A routed error, if any."""
    ts: float
    """Commit time."""
