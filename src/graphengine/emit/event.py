"""The event record every emitter receives."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

__all__ = ["Event", "EventKind"]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


class EventKind(StrEnum):
    """What an event reports. Emitters may filter on it; users may emit `CUSTOM` events."""

    RUN_START = "run_start"
    RUN_END = "run_end"
    RUN_RESUME = "run_resume"
    NODE_START = "node_start"
    NODE_END = "node_end"
    RETRY = "retry"
    ERROR = "error"
    INTERRUPT = "interrupt"
    WAIT = "wait"
    """The run committed a step and waits (a timer, a signal): meta `until`, `signal`, `then`."""
    WAKE = "wake"
    """A waiting run was woken (due, or its signal came) and is driven again: meta `until`, `signal`."""
    SIGNAL = "signal"
    """A signal was stored for a run (`Engine.signal`): meta `signal` (name), `id`, `woke`."""
    WARNING = "warning"
    TOKEN = "token"  # noqa: S105 (a chat model's answer streaming: models.chat(stream=True))
    CUSTOM = "custom"


@dataclass(frozen=True, slots=True)
class Event:
    """One observation of a run: which run, which step, which node, what happened.

    The positional fields say where and what, in the order a reader locates an event: the run,
    the step within it, the node at that step, then the message and its details
    (`Event(run_id, step, node_id, msg, meta)`). `kind` and `ts` are keyword fields with defaults,
    so a node's own event is one short call and adding a field never shifts a position.
    """

    run_id: str
    """The run this event belongs to."""
    step: int
    """Step number (1 for the first node execution, 0 for run-level events before any step)."""
    node_id: str
    """Node that produced the event, or "" for run-level events."""
    msg: str = ""
    """Human-readable message."""
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    """Structured details (JSON-compatible values)."""
    kind: EventKind | str = EventKind.CUSTOM
    """What the event reports; see `EventKind`."""
    ts: float = field(default_factory=time.time)
    """Wall-clock time in seconds since the epoch."""

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-compatible dict (used by the JSON lines emitter and exporters)."""
        return {
            "run_id": self.run_id,
            "step": self.step,
            "node_id": self.node_id,
            "kind": str(self.kind),
            "msg": self.msg,
            "meta": dict(self.meta),
            "ts": self.ts,
        }
