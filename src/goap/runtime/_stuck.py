"""Stuck handlers: a last chance when no plan exists or the replan budget is spent.

When the planner finds no plan, or the observer would give up because the replan budget is
spent, the graph's `StuckHandler`s are asked in order. The first that returns a
`StuckResolution` wins: its ``state_updates`` are merged into ``world_state``, its ``goal`` (if
any, e.g. a relaxed goal) replaces the goal, the replan budget restarts and the run replans with
reason ``"stuck_resolved"``. When every handler returns None the run ends as it would have
(or as an `OnStuck` termination policy says). ``GoapGraph(max_stuck_resolutions=...)`` bounds
how often a run may be rescued, so a handler that always answers cannot loop forever.

Handlers run through ``ctx.call`` (they may ask a person or a model), so a replay sees the
resolution the live run saw.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from goap.planning import GoalSpec, MultiGoal
from goap.runtime._guards import PolicyCall
from goap.runtime._serialize import goal_to_dict

if TYPE_CHECKING:
    from goap.runtime._state import GoapState

__all__ = ["FunctionalStuckHandler", "StuckHandler", "StuckReason", "StuckResolution"]

StuckReason = Literal["no_plan", "max_replans_exceeded", "budget_exhausted"]
"""Why the run is stuck."""


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class StuckResolution:
    """A way out: facts to set and/or a new (e.g. relaxed) goal, then replan."""

    message: str = ""
    """What the handler did, recorded in the run's policy events."""
    state_updates: Mapping[str, Any] = field(default_factory=_empty)
    """Facts merged into ``world_state``."""
    goal: GoalSpec | MultiGoal | None = None
    """A goal replacing the current one (None: keep it)."""


@runtime_checkable
class StuckHandler(Protocol):
    """Returns a `StuckResolution`, or None for no resolution (sync or async)."""

    @property
    def name(self) -> str:
        """Stable name, used in records and replay."""
        ...

    def handle(self, state: GoapState, reason: StuckReason) -> Any:
        """A `StuckResolution`, None, or an awaitable of one."""
        ...


@dataclass(frozen=True, slots=True)
class FunctionalStuckHandler:
    """A stuck handler from a function ``fn(state, reason)`` (sync or async)."""

    name: str
    """Stable name."""
    fn: Callable[[Any, StuckReason], StuckResolution | Awaitable[StuckResolution | None] | None]
    """The handler."""

    def handle(self, state: GoapState, reason: StuckReason) -> Any:
        """Call ``fn``."""
        return self.fn(state, reason)


class HandlerCall(PolicyCall):
    """One stuck handler's answer (``subject``: the GOAP state) as a recorded tool call: JSON, or None
    for no resolution."""

    kind = "stuck"

    async def call(self, ctx: Any, reason: Any) -> Any:
        """Ask the handler about ``reason``; check and encode its answer."""
        out: Any = self.policy.handle(self.subject, reason)
        if inspect.isawaitable(out):
            out = await out
        if out is None:
            return None
        if not isinstance(out, StuckResolution):
            raise TypeError(f"stuck handler {self.policy.name!r} returned {out!r}, expected StuckResolution")
        return {
            "message": out.message,
            "state_updates": dict(out.state_updates),
            "goal": None if out.goal is None else goal_to_dict(out.goal),
        }
