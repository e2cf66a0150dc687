"""`Context`: what a node knows about the run it is part of."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from emit import Emitter, Event, EventKind, safe_emit

__all__ = ["Context", "InterruptSignal"]


class InterruptSignal(BaseException):
    """Raised by `Context.interrupt` to pause the run; the engine catches it.

    A BaseException so that a node's `except Exception` does not swallow the pause.
    """

    def __init__(self, payload: Any) -> None:
        super().__init__(payload)
        self.payload = payload
        """What the interrupt shows."""


_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(slots=True)
class Context:
    """Per-execution facts handed to a node: run id, step, node id, attempt and the emitter.

    Treat it as read-only. (It is not a frozen dataclass because one is built per node
    execution and frozen construction would double its cost on the step path.)

    Cancellation is asyncio's: a cancelled run cancels the running node's task.
    """

    run_id: str
    """The run being executed."""
    step: int
    """Number of the step being executed (1-based)."""
    node_id: str
    """The node being executed."""
    attempt: int = 1
    """1 on the first try, 2 on the first retry, ..."""
    emitter: Emitter | None = None
    """Where `emit` sends events (None: dropped)."""
    resume_input: Any = None
    """The value passed to `resume(run_id, input=...)` when this execution continues an interrupt."""
    resumed: bool = False
    """Whether this execution continues an interrupt (then `resume_input` holds the answer)."""
    branch: int | None = None
    """Index of the fan-out branch this execution is, or None outside a fan-out."""
    interrupted_at: int | None = None
    """When this execution continues the node's own interrupt: the step at which it interrupted."""

    @property
    def idempotency_key(self) -> str:
        """A key that is the same for every attempt of this step, in this and any resumed process.

        A node that was running when its process died runs again on resume; side effects keyed
        by this value can be made to happen once.
        """
        return f"{self.run_id}:{self.step}:{self.node_id}"

    def interrupt(self, payload: Any = None) -> Any:
        """Pause the run for outside input, or return the input when the run was resumed with it.

        The first time, this raises (do not catch it: it derives from BaseException): the run
        stops with status `interrupted` and `payload` is stored. `resume(run_id, input=v)` runs
        the node again from its start, and this call then returns `v`.
        """
        if self.resumed:
            return self.resume_input
        raise InterruptSignal(payload)

    def emit(
        self, msg: str, meta: Mapping[str, Any] | None = None, *, kind: EventKind | str = EventKind.CUSTOM
    ) -> None:
        """Emit a custom event from inside a node (never raises)."""
        if self.emitter is not None:
            safe_emit(
                self.emitter,
                Event(self.run_id, self.step, self.node_id, msg, meta or _EMPTY, kind=kind, ts=time.time()),
            )
