"""`ActionQos`: how an action may be retried and re-run, mapped onto the engine's node retries.

The executor is one engine node; `GoapGraph` gives it as many engine retries as the most
demanding action needs (`retry_on=(ActionRetry,)`). When an action's call fails with an
exception its QoS calls retryable and attempts remain, the executor raises `ActionRetry` and the
engine runs the executor step again (`ctx.attempt` + 1): there is no second retry loop, the
failed attempt's recorded calls are dropped like any failed attempt's, and the step record keeps
the attempt count. The executor waits `ActionQos.delay(...)` at the start of a retry attempt,
because the wait is per action while the engine's backoff is per node.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from goap.planning._checks import freeze_field
from goap.planning._errors import ModelError
from goap.planning.exports import publish

if TYPE_CHECKING:
    from goap.planning._actions import ActionSpec

__all__ = ["ActionQos", "ActionRetry", "FIRE_ONCE", "RetryableActionError", "qos_of"]


@dataclass(frozen=True, slots=True)
class ActionQos:
    """Retry and re-run policy of one action (``ActionSpec(..., qos=ActionQos(...))``).

    A retry happens when the action's ``execute`` raises an exception that is retryable
    (``idempotent`` or ``read_only``: any exception; otherwise one of ``retry_on``) and fewer
    than ``attempts`` attempts were made. ``can_rerun=False`` makes the action single-use: once
    it has been executed in a run it never runs again and the planner stops using it.
    """

    attempts: int = 1
    """Total attempts allowed (1: no retry)."""
    backoff: float = 0.0
    """Seconds to wait before the first retry."""
    multiplier: float = 2.0
    """Factor applied to the wait before each later retry."""
    max_backoff: float = 30.0
    """Upper bound of one wait, in seconds."""
    retry_on: tuple[type[BaseException], ...] = (TimeoutError, ConnectionError)
    """Exception types retried for an action that is neither idempotent nor read-only."""
    idempotent: bool = False
    """Running it twice has the effect of running it once: retried on any exception."""
    read_only: bool = False
    """It only reads the world (implies idempotent); a deviation after it is not its doing."""
    can_rerun: bool = True
    """False: single-use, never executed twice in a run (and not planned again once executed)."""

    def __post_init__(self) -> None:
        if isinstance(self.attempts, bool) or not isinstance(self.attempts, int) or self.attempts < 1:
            raise ModelError(f"ActionQos.attempts must be an int >= 1, got {self.attempts!r}")
        for name in ("backoff", "max_backoff"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise ModelError(f"ActionQos.{name} must be a finite number >= 0, got {v!r}")
        if not (math.isfinite(self.multiplier) and self.multiplier >= 1.0):
            raise ModelError(f"ActionQos.multiplier must be >= 1, got {self.multiplier!r}")
        freeze_field(self, "retry_on", tuple)

    def delay(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (1 = the second attempt)."""
        if retry < 1 or self.backoff <= 0:
            return 0.0
        return float(min(self.backoff * self.multiplier ** (retry - 1), self.max_backoff))

    def retryable(self, exc: BaseException) -> bool:
        """Whether an exception raised by ``execute`` may be retried (attempts aside)."""
        return self.idempotent or self.read_only or isinstance(exc, self.retry_on)


FIRE_ONCE = ActionQos()
"""One attempt, no retry (the default)."""


def qos_of(action: ActionSpec) -> ActionQos:
    """The action's QoS; without one, ``max_retries`` retries on any exception (the older field)."""
    if action.qos is not None:
        return action.qos
    if action.max_retries > 0:
        return ActionQos(attempts=1 + action.max_retries, idempotent=True)
    return FIRE_ONCE


class RetryableActionError(Exception):
    """An action's ``execute`` raised a retryable exception (its type name is what gets recorded).

    Recording the decision, not the exception class, keeps a replay's decision identical to the
    live one: a replay only sees the recorded error type name.
    """


class ActionRetry(Exception):
    """Raised by the executor to make the engine retry its step (the only exception it retries)."""


# Errors report `goap` from the start (see goap.planning._errors).
publish("goap", globals(), ["RetryableActionError"])
