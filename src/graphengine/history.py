"""`StepView`: a decoded step record, as `Engine.history` returns it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from graphengine.emit import Event

from .routing import Next

__all__ = ["StepView", "field_sizes"]

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
    sizes: dict[str, int] = field(default_factory=dict)
    """Encoded size in bytes of each field the delta set (what the step added to storage)."""
    events: tuple[Event, ...] = ()
    """The events the node returned (`NodeResult.events`), stored with the step; for a fan-out's
    step, those of its branches in branch order. Meta values are as JSON read them back."""
    turn: int = 0
    """The turn the step belongs to: 0 for the run's first, n for the one the n-th
    `continue_run` began (its first step has node id `INPUT_NODE` and holds the input)."""
    as_node: str | None = None
    """For an `update_state` edit (node id `UPDATE_NODE`): the node it acted as (None otherwise)."""


def field_sizes(delta: bytes | None) -> dict[str, int]:
    """Encoded size of each top-level field of an encoded (JSON object) delta."""
    if not delta:
        return {}
    try:
        doc = json.loads(delta)
    except ValueError:
        return {}
    if not isinstance(doc, dict):
        return {"": len(delta)}
    return {k: len(json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode()) for k, v in doc.items()}
