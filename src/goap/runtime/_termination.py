"""Termination policies: end a run early; the terminal status names the policy that fired.

The observer asks the graph's policy after every action (and the planner or observer again, with
``stuck=True``, when the run is stuck and no stuck handler helped). A policy that fires ends the
run with status ``"terminated"`` and ``GoapState.termination`` = ``{"policy", "reason",
"error"}``. Policies are pure functions of a `RunView`; the elapsed time in it comes from the
recorded clock, so a replay decides the same way.

    policy = FirstOf(MaxActions(20), MaxWallClock(60), MaxCost(10.0))
    graph = GoapGraph(actions, termination=policy)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

if TYPE_CHECKING:
    from goap.runtime._state import GoapState

__all__ = [
    "AllOf",
    "FirstOf",
    "MaxActions",
    "MaxCost",
    "MaxLLMCalls",
    "MaxTokens",
    "MaxWallClock",
    "OnStuck",
    "RunView",
    "Termination",
    "TerminationPolicy",
]


@dataclass(frozen=True, slots=True)
class RunView:
    """What a policy sees."""

    state: GoapState
    """The run's state (world readings merged)."""
    elapsed: float | None
    """Seconds since the run started, by the recorded clock (None when unknown)."""
    stuck: bool = False
    """True when no plan exists or the replan budget is spent and no stuck handler helped."""


@dataclass(frozen=True, slots=True)
class Termination:
    """A policy's decision to stop."""

    policy: str
    """The name of the policy that fired."""
    reason: str
    """Why, for people."""
    error: bool = True
    """Whether stopping is a failure (False for a graceful stop such as `OnStuck`)."""


@runtime_checkable
class TerminationPolicy(Protocol):
    """Decides whether a run stops now; must be pure and never raise."""

    @property
    def name(self) -> str:
        """The name recorded when it fires."""
        ...

    def check(self, view: RunView) -> Termination | None:
        """A `Termination`, or None to go on."""
        ...


@dataclass(frozen=True, slots=True)
class MaxActions:
    """Stop once ``limit`` actions have been executed (failed ones included)."""

    limit: int
    """Most actions."""
    name: str = "MaxActions"
    """Recorded name."""

    def check(self, view: RunView) -> Termination | None:
        """Fire when the execution history reaches ``limit``."""
        n = len(view.state.execution_history)
        return (
            Termination(self.name, f"{n} actions executed, limit {self.limit}") if n >= self.limit else None
        )


@dataclass(frozen=True, slots=True)
class MaxWallClock:
    """Stop once ``seconds`` have passed since the run started."""

    seconds: float
    """Most seconds."""
    name: str = "MaxWallClock"
    """Recorded name."""

    def check(self, view: RunView) -> Termination | None:
        """Fire when the recorded elapsed time reaches ``seconds``."""
        if view.elapsed is None or view.elapsed < self.seconds:
            return None
        return Termination(self.name, f"{view.elapsed:.3f}s elapsed, limit {self.seconds:g}s")


@dataclass(frozen=True, slots=True)
class MaxCost:
    """Stop once the cost spent reaches ``limit``.

    The cost spent is ``world_state[key]`` when ``key`` is set (e.g. ``"total_cost_usd"`` kept
    up to date by the actions), else the sum of the costs of the actions executed so far.
    """

    limit: float
    """Most cost."""
    key: str | None = None
    """World fact holding the cost spent (None: sum of executed actions' costs)."""
    name: str = "MaxCost"
    """Recorded name."""

    def check(self, view: RunView) -> Termination | None:
        """Fire when the cost spent reaches ``limit``."""
        s = view.state
        if self.key is not None:
            v = s.world_state.get(self.key)
            spent = float(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0.0
        else:
            spent = sum(o.cost for o in s.execution_history)
        return (
            Termination(self.name, f"cost {spent:g} spent, limit {self.limit:g}")
            if spent >= self.limit
            else None
        )


def _count(view: RunView, key: str) -> int:
    v = view.state.world_state.get(key)
    return int(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0


@dataclass(frozen=True, slots=True)
class _CountLimit:
    """Stop once the count the actions keep in ``world_state[key]`` reaches ``limit``."""

    limit: int
    """The most allowed."""
    key: str
    """World fact holding the count."""
    name: str
    """Recorded name."""
    counted: ClassVar[str]
    """What is counted, as the reason says it (``tokens used``)."""

    def check(self, view: RunView) -> Termination | None:
        """Fire when the count reaches ``limit``."""
        used = _count(view, self.key)
        return (
            None
            if used < self.limit
            else Termination(self.name, f"{used} {self.counted}, limit {self.limit}")
        )


@dataclass(frozen=True, slots=True)
class MaxTokens(_CountLimit):
    """Stop once ``world_state[key]`` (tokens used, kept by the actions) reaches ``limit``."""

    key: str = "total_tokens"
    """World fact holding the tokens used."""
    name: str = "MaxTokens"
    """Recorded name."""
    counted: ClassVar[str] = "tokens used"


@dataclass(frozen=True, slots=True)
class MaxLLMCalls(_CountLimit):
    """Stop once ``world_state[key]`` (model calls made, kept by the actions) reaches ``limit``."""

    key: str = "llm_call_count"
    """World fact holding the calls made."""
    name: str = "MaxLLMCalls"
    """Recorded name."""
    counted: ClassVar[str] = "model calls"


@dataclass(frozen=True, slots=True)
class OnStuck:
    """Stop gracefully (``error=False``) when the run is stuck, instead of failing with no_plan."""

    name: str = "OnStuck"
    """Recorded name."""

    def check(self, view: RunView) -> Termination | None:
        """Fire when the view says the run is stuck."""
        return (
            Termination(self.name, "no way forward: stopping gracefully", error=False) if view.stuck else None
        )


class FirstOf:
    """Fires with the first of its policies that fires (its name is recorded)."""

    def __init__(self, *policies: TerminationPolicy) -> None:
        self.policies: Sequence[TerminationPolicy] = policies
        """The policies, in order."""
        self.name = "FirstOf(" + ", ".join(p.name for p in policies) + ")"
        """Its name."""

    def check(self, view: RunView) -> Termination | None:
        """The first firing policy's termination."""
        for p in self.policies:
            t = p.check(view)
            if t is not None:
                return t
        return None


class AllOf:
    """Fires when every one of its policies fires (recorded under its own name)."""

    def __init__(self, *policies: TerminationPolicy) -> None:
        self.policies: Sequence[TerminationPolicy] = policies
        """The policies."""
        self.name = "AllOf(" + ", ".join(p.name for p in policies) + ")"
        """Its name."""

    def check(self, view: RunView) -> Termination | None:
        """Fire when all fire; the reasons are joined."""
        fired = [p.check(view) for p in self.policies]
        if not fired or any(t is None for t in fired):
            return None
        ts = [t for t in fired if t is not None]
        return Termination(self.name, "; ".join(t.reason for t in ts), error=any(t.error for t in ts))


def needs_clock(policy: object) -> bool:
    """Whether a policy (or one inside it) reads the elapsed time, so the clock must be read."""
    if isinstance(policy, MaxWallClock):
        return True
    inner = getattr(policy, "policies", None)
    if inner is not None:
        return any(needs_clock(p) for p in inner)
    return not isinstance(policy, MaxActions | MaxCost | MaxTokens | MaxLLMCalls | OnStuck)
