"""Run options: limits, retries, timeouts."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["NodeOptions", "Options"]


# Each check names the field and the value: a NaN compares false with everything, so a plain
# `x < 1` lets it through and the limit is then off (max_steps=nan never stops a run).


def _int(name: str, value: Any, low: int) -> None:
    """Refuse anything but an int >= `low` (a bool, a float, NaN included)."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise ValueError(f"{name} must be an int >= {low}, got {value!r} ({type(value).__name__})")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")


def _seconds(name: str, value: Any, *, zero: bool, finite: bool = True) -> None:
    """Refuse anything but a number of seconds (> 0, or >= 0 with `zero`; finite unless not `finite`)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value)
    if ok:
        ok = (value >= 0 if zero else value > 0) and (math.isfinite(value) or not finite)
    if not ok:
        bound = ">= 0" if zero else "> 0"
        raise ValueError(f"{name} must be a finite number of seconds {bound}, got {value!r}")


def _retry_on(name: str, value: Any) -> None:
    """Refuse a `retry_on` that is not a tuple of exception types (names fail only at the first failure)."""
    if not isinstance(value, tuple):
        raise TypeError(
            f"{name} must be a tuple of exception types, got {value!r} ({type(value).__name__}); "
            f"e.g. ({getattr(value, '__name__', 'ValueError')},)"
        )
    for t in value:
        if not (isinstance(t, type) and issubclass(t, BaseException)):
            raise TypeError(
                f"{name} must hold exception types, got {t!r} ({type(t).__name__}); "
                "pass the class itself (ValueError), not its name"
            )


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

    def __post_init__(self) -> None:
        if self.retries is not None:
            _int("retries", self.retries, 0)
        if self.timeout is not None:
            _seconds("timeout", self.timeout, zero=False)
        if self.backoff is not None:
            _seconds("backoff", self.backoff, zero=True)
        if self.retry_on is not None:
            _retry_on("retry_on", self.retry_on)


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

    clock: Callable[[], float] = time.time
    """The wall clock of durable waits (`ctx.sleep`, `ctx.wait_for` timeouts, `sleep_until`), in
    seconds since the epoch: deadlines are computed and found due by it. Give tests a controllable
    one; a `graphengine.TimerWaker` reads the same clock unless given its own."""

    def __post_init__(self) -> None:
        if not callable(self.clock):
            raise TypeError(f"clock must be a callable returning seconds since the epoch, got {self.clock!r}")
        _int("max_steps", self.max_steps, 1)
        _int("retries", self.retries, 0)
        _int("snapshot_every", self.snapshot_every, 1)
        _int("max_concurrency", self.max_concurrency, 1)
        _int("seed", self.seed, -(2**63))
        ratio = self.snapshot_ratio
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not (0 < ratio < math.inf):
            raise ValueError(f"snapshot_ratio must be a finite number > 0, got {ratio!r}")
        if self.timeout is not None:
            _seconds("timeout", self.timeout, zero=False)
        _seconds("backoff", self.backoff, zero=True)
        _seconds("lease_ttl", self.lease_ttl, zero=False)
        _seconds("max_backoff", self.max_backoff, zero=True, finite=False)
        _retry_on("retry_on", self.retry_on)
        if not isinstance(self.field_budgets, Mapping):
            raise TypeError(f"field_budgets must map field names to byte counts, got {self.field_budgets!r}")
        for name, budget in self.field_budgets.items():
            if not isinstance(name, str):
                raise TypeError(f"field_budgets keys are state field names, got {name!r}")
            _int(f"field_budgets[{name!r}]", budget, 0)
        if not isinstance(self.node, Mapping):
            raise TypeError(f"node must map node ids to NodeOptions, got {self.node!r}")
        for nid, over in self.node.items():
            if not isinstance(over, NodeOptions):
                raise TypeError(
                    f"node[{nid!r}] must be a NodeOptions, got {over!r:.60} ({type(over).__name__}); "
                    f"write node={{{nid!r}: NodeOptions(...)}}"
                )

    def with_(self, **changes: Any) -> Options:
        """Return a copy with some fields changed."""
        return replace(self, **changes)
