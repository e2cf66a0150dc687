"""Per-action retry policy with LangGOAP's field names; :meth:`ActionQos.to_goap` gives goap's."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goap.planning import ActionQos as GoapQos

__all__ = ["DEFAULT_RETRY_POLICY", "FIRE_ONCE", "ActionQos"]


@dataclass(slots=True, frozen=True)
class ActionQos:
    """How often a failing action is tried again, and how long to wait in between (milliseconds)."""

    max_attempts: int = 1
    idempotent: bool = False
    retryable_exceptions: tuple[type[BaseException], ...] = (TimeoutError,)
    backoff_initial_ms: float = 250.0
    backoff_multiplier: float = 2.0
    backoff_max_ms: float = 30_000.0
    jitter: float = 0.1

    def __post_init__(self) -> None:
        for bad, what in (
            (self.max_attempts < 1, "max_attempts must be >= 1"),
            (self.backoff_initial_ms < 0, "backoff_initial_ms must be >= 0"),
            (self.backoff_multiplier < 1.0, "backoff_multiplier must be >= 1.0"),
            (self.backoff_max_ms < self.backoff_initial_ms, "backoff_max_ms must be >= backoff_initial_ms"),
            (not 0.0 <= self.jitter <= 1.0, "jitter must be in [0, 1]"),
        ):
            if bad:
                raise ValueError(f"{what}; got {self!r}")

    def compute_backoff_ms(self, attempt: int, *, rng: random.Random | None = None) -> float:
        """Milliseconds to wait after failed attempt number ``attempt`` (1-based), jittered."""
        if attempt < 1:
            raise ValueError(f"attempt must be >= 1, got {attempt}")
        wait = min(self.backoff_initial_ms * self.backoff_multiplier ** (attempt - 1), self.backoff_max_ms)
        spread = (rng or random.Random()).uniform(-self.jitter, self.jitter) if self.jitter else 0.0
        return wait * (1.0 + spread) if self.jitter else wait

    def should_retry(self, exception: BaseException, attempt: int) -> bool:
        """Whether failed attempt ``attempt`` with ``exception`` is tried again (goap's retryable)."""
        return attempt < self.max_attempts and self.to_goap().retryable(exception)

    def to_goap(self, *, read_only: bool = False, can_rerun: bool = True) -> GoapQos:
        """goap's :class:`goap.ActionQos` with the same attempts and waits (seconds, no jitter)."""
        from goap.planning import ActionQos as GoapQos

        first, most = self.backoff_initial_ms / 1000.0, self.backoff_max_ms / 1000.0
        flags = (self.retryable_exceptions, self.idempotent, read_only, can_rerun)
        return GoapQos(self.max_attempts, first, self.backoff_multiplier, most, *flags)


FIRE_ONCE = ActionQos(max_attempts=1)
"""One attempt, never retried."""

DEFAULT_RETRY_POLICY = ActionQos(
    5, backoff_initial_ms=10_000.0, backoff_multiplier=5.0, backoff_max_ms=60_000.0
)
"""Five attempts, waits from 10 s growing fivefold up to 60 s."""
