"""Records a store keeps: runs, steps and named checkpoints.

Stores hold encoded state (`bytes`, JSON by default) and never decode it: the engine owns the
state type and its codec, so one store can serve engines of different state types and a store
bug can never change a value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

__all__ = [
    "BranchRecord",
    "Checkpoint",
    "Latest",
    "RunRecord",
    "RunStatus",
    "SignalRecord",
    "StepRecord",
    "TimerRecord",
]


class RunStatus(StrEnum):
    """Lifecycle of a run."""

    RUNNING = "running"
    """Started or resumed and not finished (or its process died)."""
    DONE = "done"
    """Reached a stop."""
    INTERRUPTED = "interrupted"
    """Paused for input; resume continues it."""
    FAILED = "failed"
    """A node failed after its retries, or a limit was hit; resume retries from the last step."""
    CANCELLED = "cancelled"
    """Its task was cancelled; resume continues it."""
    WAITING = "waiting"
    """Holds no task while something else happens, for one of two reasons: it waits for a time or
    a signal (`ctx.sleep`, `ctx.wait_for`, `sleep_until`), and its `TimerRecord` says until when
    and for what; or its fan-out's branches run as jobs on other workers (`graphengine.branches`),
    and it is resumed when they are all stored. The timer row tells the two apart: only a run
    waiting for a time or a signal has one, so timer wakers never touch a run waiting for its
    branches (their timer reads join on the timer table)."""


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One run: its identity, status and what it started from."""

    run_id: str
    """Unique id chosen by the caller."""
    status: RunStatus
    """Where the run is in its lifecycle."""
    initial: bytes
    """Encoded initial state (the state before step 1)."""
    fingerprint: str = ""
    """Fingerprint of the graph the run started with (nodes and edges)."""
    state_version: int = 1
    """Version of the state schema the run started with."""
    created_at: float = 0.0
    """Creation time, seconds since the epoch."""
    updated_at: float = 0.0
    """Time of the last status change."""
    error: str | None = None
    """Why the run failed, for FAILED runs: the error type and message."""
    error_node: str | None = None
    """The node that failed, when one did."""
    meta: bytes = b"{}"
    """Encoded JSON object of extra run metadata."""


class StepRecord(NamedTuple):
    """What one executed step left behind; written atomically, never updated.

    `state` is a full snapshot of the state after the merge and is present only on some steps
    (the engine decides, e.g. every N steps and at the end); between snapshots the state is the
    fold of `delta`s over the last snapshot, so stored bytes per step stay proportional to what
    the step changed rather than to the size of the whole state.

    A `NamedTuple` rather than a frozen dataclass: it is immutable too, and one is built per
    step, where a frozen dataclass's constructor costs four times as much. Use `_replace` to
    derive a changed copy.
    """

    run_id: str
    """The run this step belongs to."""
    step: int
    """1-based position of the step in the run."""
    node_id: str
    """The node that ran."""
    delta: bytes | None
    """Encoded delta the node returned (None: no change)."""
    route: str
    """Encoded next hop resolved after the step (JSON text)."""
    state: bytes | None = None
    """Encoded full state after the merge, on snapshot steps."""
    attempt: int = 1
    """How many attempts the node took (1 = first try succeeded)."""
    error: str | None = None
    """Error the node reported and that was routed (not a failure of the run)."""
    calls: bytes | None = None
    """Encoded recorded side-effect results (`ctx.call`), for replay."""
    events: bytes | None = None
    """Encoded events the node returned in its result."""
    ts: float = 0.0
    """Commit time, seconds since the epoch (not part of the deterministic content)."""


class BranchRecord(NamedTuple):
    """The result of one fan-out branch, persisted as soon as it lands.

    When every branch of a fan-out has a record, the engine merges their deltas in `branch`
    order and commits the fan-out step; after a crash, only branches without a record run again.
    """

    run_id: str
    """The run the fan-out belongs to."""
    step: int
    """The step number of the fan-out (the step the merge will be committed as)."""
    branch: int
    """Position of the branch in the fan-out's declared order (0-based)."""
    node_id: str
    """The node the branch ran."""
    delta: bytes | None
    """Encoded delta the branch returned."""
    attempt: int = 1
    """Attempts the branch took."""
    calls: bytes | None = None
    """Encoded recorded tool calls of the branch (`ctx.call`), for replay."""
    ts: float = 0.0
    """Commit time."""


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A labelled copy of a run's state at a step."""

    run_id: str
    """The run the state was taken from."""
    label: str
    """Name given by the caller; unique per run (saving again replaces it)."""
    step: int
    """The step whose state this is."""
    state: bytes
    """Encoded state."""
    ts: float = 0.0
    """When it was saved."""


@dataclass(frozen=True, slots=True)
class Latest:
    """What resume needs: the run, its newest snapshot and the steps after it, oldest first."""

    run: RunRecord
    """The run record."""
    base_step: int
    """Step of the newest snapshot (0: the initial state)."""
    base_state: bytes
    """Encoded state at `base_step`."""
    tail: tuple[StepRecord, ...] = field(default=())
    """Steps after `base_step`, in order; fold their deltas over `base_state` to get the latest state."""
    last: StepRecord | None = None
    """The newest committed step (the snapshot step itself when `tail` is empty; None: no step yet)."""

    @property
    def last_step(self) -> int:
        """Number of the newest committed step (0 when none ran yet)."""
        return self.last.step if self.last is not None else 0


@dataclass(frozen=True, slots=True)
class TimerRecord:
    """What a waiting run waits for: a time, a signal, or both (the first to come wakes it)."""

    run_id: str
    """The waiting run."""
    step: int
    """The committed step the run waits after (a wake is conditioned on it)."""
    wake_at: float | None
    """When the run is due, seconds since the epoch; None: only a signal wakes it."""
    signal: str | None = None
    """The signal name the run waits for, or None for a plain sleep."""


@dataclass(frozen=True, slots=True)
class SignalRecord:
    """One signal sent to a run (`Engine.signal`), stored once per (run, signal id)."""

    run_id: str
    """The run it was sent to."""
    signal_id: str
    """The sender's id: a second signal with this id is the same signal (stored once)."""
    name: str
    """What `ctx.wait_for(name)` waits for."""
    payload: bytes
    """The payload, as JSON bytes."""
    ts: float = 0.0
    """When it was received, seconds since the epoch (0: now, when stored)."""
    taken_step: int | None = None
    """The step whose node took it (`ctx.wait_for`), or None while it is buffered."""
