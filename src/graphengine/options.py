"""Run options: limits, retries, timeouts."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["NodeOptions", "Options"]


@dataclass(frozen=True, slots=True)
class NodeOptions:
    """Per-node overrides of `Options`; a field left None uses the engine's value."""

    retries: int | None = None
    """Extra attempts after a failure."""
    timeout: float | None = None
    """Seconds one attempt may take."""
    backoff: float | None = None
    """Base delay in seconds before the first retry (doubles each time)."""
    retry_on: tuple[type[BaseException], ...] | None = None
    """Exception types that are retried; others fail at once."""


@dataclass(frozen=True, slots=True)
class Options:
    """Limits and failure handling for runs of an engine.

    Retry delays are `backoff * 2**(attempt-1)`, capped at `max_backoff`, times a jitter in
    [0.5, 1.0) drawn from a generator seeded by (`seed`, run id, step, attempt), so the same run
    waits the same way every time.
    """

    max_steps: int = 1000
    """Most steps a run may take in total; reaching it raises `MaxStepsExceeded`."""
    retries: int = 0
    """Extra attempts after a node fails (raises, returns `err`, or times out)."""
    backoff: float = 0.0
    """Base delay in seconds before the first retry."""
    max_backoff: float = 30.0
    """Upper bound of one retry delay."""
    timeout: float | None = None
    """Seconds one node attempt may take (None: no limit).

    Applies to async nodes and to nodes added with `thread=True`; a sync node running on the event
    loop cannot be interrupted, so this default leaves it alone, and a timeout given for such a
    node itself (`add(..., timeout=)`, `node=`) is refused when the graph is validated, as is one
    for a thread node that also has retries (a timed-out thread cannot be stopped).
    """
    retry_on: tuple[type[BaseException], ...] = (Exception,)
    """Exception types that are retried; any other fails the node at once."""
    max_concurrency: int = 100
    """Most fan-out branches of one run executing at once."""
    seed: int = 0
    """Seed of the retry jitter."""
    snapshot_every: int = 500
    """Most steps between two full state snapshots; deltas in between (a snapshot is also stored at the end)."""
    snapshot_ratio: float = 2.0
    """Also snapshot once the deltas stored since the last snapshot outweigh it this many times.

    Snapshots then cost at most 1/ratio of the delta bytes, so bytes stored per step stay flat
    however large the unchanged part of the state is, and rebuilding the latest state folds a
    bounded number of deltas.
    """
    field_budgets: Mapping[str, int] = field(default_factory=dict)
    """Encoded-size budget in bytes per state field; passing one emits a `warning` event."""
    strict_budgets: bool = False
    """Fail the step (`BudgetExceededError`, nothing committed) instead of warning."""
    node: dict[str, NodeOptions] = field(default_factory=dict)
    """Per-node overrides by node id (also settable with `Engine.add(..., retries=, timeout=)`)."""
    lease_ttl: float = 30.0
    """Seconds the lease a `resume(run_id, input=...)` claims on a `LeaseStore` run lasts unrenewed.

    Renewed every third of it while the run is driven, so another process's resume gets
    `RunBusyError` instead of running the answered node again; if the driver dies, the run can
    be answered again this long after its last renewal. A node that blocks the event loop longer
    than this loses the lease (its step is then refused, and runs again on the next resume).
    """

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {self.max_steps}")
        if self.retries < 0:
            raise ValueError(f"retries must be >= 0, got {self.retries}")
        if self.snapshot_ratio <= 0:
            raise ValueError(f"snapshot_ratio must be > 0, got {self.snapshot_ratio}")
        if self.snapshot_every < 1:
            raise ValueError(f"snapshot_every must be >= 1, got {self.snapshot_every}")
        if self.max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, got {self.max_concurrency}")
        if self.timeout is not None and not (self.timeout > 0 and math.isfinite(self.timeout)):
            raise ValueError(f"timeout must be a finite number of seconds > 0, got {self.timeout}")
        if not (self.backoff >= 0 and math.isfinite(self.backoff)):
            raise ValueError(f"backoff must be a finite number of seconds >= 0, got {self.backoff}")
        if not (self.lease_ttl > 0 and math.isfinite(self.lease_ttl)):
            raise ValueError(f"lease_ttl must be a finite number of seconds > 0, got {self.lease_ttl}")
        if not self.max_backoff >= 0:
            raise ValueError(f"max_backoff must be >= 0, got {self.max_backoff}")

    def with_(self, **changes: Any) -> Options:
        """Return a copy with some fields changed."""
        return replace(self, **changes)
