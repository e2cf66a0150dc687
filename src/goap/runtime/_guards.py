"""Guards: checks before and after an action that warn (recorded, the run goes on) or block.

A guard is any object with a ``name``, a ``stage`` (``"pre"`` or ``"post"``) and a ``check``
(sync or async) of ``(action, world) -> GuardResult`` (``True``/``None`` pass, ``False`` fails
with the guard's ``severity``). ``world`` is the world before the action for a pre guard and the
world the action produced for a post guard. A BLOCK pre guard stops the action before it runs;
a BLOCK post guard refuses its result (the world is left as it was). Either way the executor
records a failed outcome naming the guard and its message, and the observer replans with reason
``"action_failed"``. A raising guard is isolated from the others and counts as a WARN.

Each check runs through ``ctx.call``, so a guard that reads the outside world is recorded and a
replay sees the verdict the live run saw.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from goap.planning import ActionSpec, Guard, GuardStage

__all__ = [
    "FunctionalGuard",
    "Guard",
    "GuardResult",
    "GuardSeverity",
    "GuardStage",
    "check_guard",
    "guard_verdict",
]

GuardSeverity = Literal["warn", "block"]
"""What a failed check does: ``warn`` records it, ``block`` stops (or refuses) the action."""


@dataclass(frozen=True, slots=True)
class GuardResult:
    """The verdict of one check."""

    passed: bool
    """Whether the check passed."""
    message: str = ""
    """Why it failed (recorded in the run's history)."""
    severity: GuardSeverity = "warn"
    """What a failure does."""


@dataclass(frozen=True, slots=True)
class FunctionalGuard:
    """A guard from a function ``fn(action, world)`` returning a `GuardResult`, a bool or None.

    A bool False fails with ``severity`` and ``message``; the function may be async.
    """

    name: str
    """Stable name."""
    fn: Callable[[ActionSpec, Mapping[str, Any]], GuardResult | bool | Awaitable[Any] | None]
    """The check."""
    stage: GuardStage = "pre"
    """When it runs."""
    severity: GuardSeverity = "block"
    """Severity of a plain False."""
    message: str = ""
    """Message of a plain False (default: "guard <name> failed")."""

    async def check(self, action: ActionSpec, world: Mapping[str, Any]) -> GuardResult:
        """Run ``fn`` and normalise its answer."""
        out: Any = self.fn(action, world)
        if inspect.isawaitable(out):
            out = await out
        if isinstance(out, GuardResult):
            return out
        if out is None or out is True:
            return GuardResult(True)
        return GuardResult(False, self.message or f"guard {self.name!r} failed", self.severity)


async def check_guard(guard: Any, action: ActionSpec, world: Mapping[str, Any]) -> dict[str, Any]:
    """One guard's verdict as JSON (what `ctx.call` records); a non-verdict answer is a WARN."""
    out: Any = guard.check(action, world)
    if inspect.isawaitable(out):
        out = await out
    return guard_verdict(guard, out)


def guard_verdict(guard: Any, out: Any) -> dict[str, Any]:
    """A guard's answer (`GuardResult`, bool or None) as the JSON verdict `check_guard` returns."""
    if out is None or out is True:
        return {"passed": True, "message": "", "severity": "warn"}
    if out is False:
        return {"passed": False, "message": f"guard {guard.name!r} failed", "severity": "block"}
    if isinstance(out, GuardResult):
        sev = "block" if out.severity == "block" else "warn"
        return {"passed": bool(out.passed), "message": out.message, "severity": sev}
    return {"passed": False, "message": f"guard {guard.name!r} returned {out!r}", "severity": "warn"}


class PolicyCall:
    """A user policy (a guard, a stuck handler) called as a recorded tool call named
    ``<kind>:<policy name>``, so that a replay serves its recorded answer instead of calling it again."""

    kind: ClassVar[str] = "policy"
    """The prefix of the call's name."""

    def __init__(self, policy: Any, subject: Any) -> None:
        self.policy = policy
        """The guard or handler (it has a ``name``)."""
        self.subject = subject
        """What it is called about: the action (a guard), the GOAP state (a stuck handler)."""
        self.name = f"{self.kind}:{policy.name}"
        """The recorded call's name."""


class GuardCall(PolicyCall):
    """A guard's verdict on the world around an action (see :func:`check_guard`)."""

    kind = "guard"

    async def call(self, ctx: Any, world: Any) -> Any:
        """Run the guard on a copy of ``world``."""
        return await check_guard(self.policy, self.subject, dict(world))
