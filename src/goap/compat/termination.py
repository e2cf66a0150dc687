"""LangGOAP's early-termination policies as goap termination policies.

Each built-in subclasses its goap counterpart (``MaxActionsPolicy`` is a `goap.runtime.MaxActions`),
so a `goap.runtime.GoapGraph` runs it unchanged; ``should_terminate(state)`` answers for a
LangGOAP state dict by reading it through the same ``check``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from goap.runtime import (
    AllOf,
    FirstOf,
    MaxActions,
    MaxCost,
    MaxLLMCalls,
    MaxTokens,
    MaxWallClock,
    OnStuck,
    Termination,
)
from goap.runtime._termination import RunView

if TYPE_CHECKING:
    from goap.runtime import GoapState

__all__ = [
    "AllOfPolicy",
    "EarlyTermination",
    "FirstOfPolicy",
    "MaxActionsPolicy",
    "MaxCostPolicy",
    "MaxLLMCallsPolicy",
    "MaxTokensPolicy",
    "MaxWallClockPolicy",
    "OnStuckPolicy",
    "TerminationPolicy",
    "as_goap_termination",
]


@dataclass(frozen=True, slots=True)
class EarlyTermination:
    """A policy's decision to stop the run (LangGOAP's shape of `goap.runtime.Termination`)."""

    policy_name: str
    reason: str
    error: bool = True


@runtime_checkable
class TerminationPolicy(Protocol):
    """LangGOAP's policy protocol: a ``name`` and ``should_terminate(state)``."""

    @property
    def name(self) -> str:
        """The name reported when it fires."""
        ...

    def should_terminate(self, state: Any) -> EarlyTermination | None:
        """An `EarlyTermination` to stop, None to go on."""
        ...


class _DictRun:
    """A LangGOAP state dict seen through the attributes goap's policies read."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw
        self.world_state: Mapping[str, Any] = raw.get("world_state") or {}
        self.execution_history: list[Any] = list(raw.get("execution_history") or [])


def _view(state: Mapping[str, Any]) -> RunView:
    start = state.get("wall_clock_started_at")
    elapsed = None if start is None else time.monotonic() - float(start)
    return RunView(cast("GoapState", _DictRun(state)), elapsed, state.get("status") == "no_plan")


def _lg_state(view: RunView) -> Any:
    """The LangGOAP state dict a user policy is given for ``view``."""
    if isinstance(view.state, _DictRun):
        return view.state.raw
    from goap.compat._convert import state_to_langgoap

    out = dict(state_to_langgoap(view.state))
    if view.elapsed is not None:
        out["wall_clock_started_at"] = time.monotonic() - view.elapsed
    if view.stuck:
        out["status"] = "no_plan"
    return out


def _early(t: Termination | None) -> EarlyTermination | None:
    return None if t is None else EarlyTermination(t.policy, t.reason, t.error)


def _worded(t: Termination | None, reason: str) -> Termination | None:
    return None if t is None else replace(t, reason=reason)


class _Decides:
    """``should_terminate`` for a class whose ``check`` is goap's."""

    def should_terminate(self, state: Any) -> EarlyTermination | None:
        """The decision for a LangGOAP state dict."""
        return _early(cast(Any, self).check(_view(state)))


class MaxActionsPolicy(_Decides, MaxActions):
    """Stop once ``max_actions`` actions were executed."""

    def __init__(self, max_actions: int, name: str = "MaxActionsPolicy") -> None:
        MaxActions.__init__(self, max_actions, name)

    @property
    def max_actions(self) -> int:
        """The limit."""
        return self.limit

    def check(self, view: RunView) -> Termination | None:
        """goap's decision, with LangGOAP's wording."""
        return _worded(MaxActions.check(self, view), f"Max actions limit hit: {self.limit}")


class MaxWallClockPolicy(_Decides, MaxWallClock):
    """Stop once ``seconds`` passed since the run started."""

    def __init__(self, seconds: float, name: str = "MaxWallClockPolicy") -> None:
        MaxWallClock.__init__(self, seconds, name)

    def check(self, view: RunView) -> Termination | None:
        """goap's decision, with LangGOAP's wording."""
        reason = f"Wall-clock budget {self.seconds:.3f}s used up after {view.elapsed or 0.0:.3f}s"
        return _worded(MaxWallClock.check(self, view), reason)


def _fact(view: RunView, key: str) -> float:
    v = view.state.world_state.get(key, 0)
    return float(v) if isinstance(v, int | float) else 0.0


class MaxCostPolicy(_Decides, MaxCost):
    """Stop once ``world_state['total_cost_usd']`` reaches ``usd``."""

    def __init__(self, usd: float, name: str = "MaxCostPolicy") -> None:
        MaxCost.__init__(self, usd, "total_cost_usd", name)

    @property
    def usd(self) -> float:
        """The budget in USD."""
        return self.limit

    def check(self, view: RunView) -> Termination | None:
        """goap's decision, with LangGOAP's wording."""
        spent = _fact(view, "total_cost_usd")
        reason = f"Cost budget ${self.limit:.4f} reached (spent ${spent:.4f})"
        return _worded(MaxCost.check(self, view), reason)


class MaxTokensPolicy(_Decides, MaxTokens):
    """Stop once ``world_state['total_tokens']`` reaches ``tokens``."""

    def __init__(self, tokens: int, name: str = "MaxTokensPolicy") -> None:
        MaxTokens.__init__(self, tokens, "total_tokens", name)

    @property
    def tokens(self) -> int:
        """The token budget."""
        return self.limit

    def check(self, view: RunView) -> Termination | None:
        """goap's decision, with LangGOAP's wording."""
        used = int(_fact(view, self.key))
        return _worded(MaxTokens.check(self, view), f"Token budget {self.limit} reached ({used} used)")


class MaxLLMCallsPolicy(_Decides, MaxLLMCalls):
    """Stop once ``world_state['llm_call_count']`` reaches ``max_calls``."""

    def __init__(self, max_calls: int, name: str = "MaxLLMCallsPolicy") -> None:
        MaxLLMCalls.__init__(self, max_calls, "llm_call_count", name)

    @property
    def max_calls(self) -> int:
        """The call budget."""
        return self.limit

    def check(self, view: RunView) -> Termination | None:
        """goap's decision, with LangGOAP's wording."""
        used = int(_fact(view, self.key))
        return _worded(MaxLLMCalls.check(self, view), f"LLM-call budget {self.limit} reached ({used} made)")


class OnStuckPolicy(_Decides, OnStuck):
    """Stop gracefully (``error=False``) when no plan exists."""

    def __init__(self, name: str = "OnStuckPolicy") -> None:
        OnStuck.__init__(self, name)

    def check(self, view: RunView) -> Termination | None:
        """goap's decision, with LangGOAP's wording."""
        return _worded(OnStuck.check(self, view), "Stuck: no plan available")


class _Foreign:
    """A LangGOAP-only policy (``should_terminate``) as a goap policy."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.name: str = getattr(policy, "name", type(policy).__name__)

    def check(self, view: RunView) -> Termination | None:
        d = self.policy.should_terminate(_lg_state(view))
        return None if d is None else Termination(d.policy_name, d.reason, d.error)


def _goap(policy: Any) -> Any:
    return policy if hasattr(policy, "check") else _Foreign(policy)


class FirstOfPolicy(_Decides, FirstOf):
    """Fires with the first of its policies that fires."""

    def __init__(self, *policies: Any) -> None:
        FirstOf.__init__(self, *(_goap(p) for p in policies))
        self.name = "FirstOfPolicy"


class AllOfPolicy(_Decides, AllOf):
    """Fires when every one of its (at least one) policies fires; the reasons are joined."""

    def __init__(self, *policies: Any) -> None:
        if not policies:
            raise ValueError("AllOfPolicy needs at least one policy")
        AllOf.__init__(self, *(_goap(p) for p in policies))
        self.name = "AllOfPolicy"


def as_goap_termination(policies: Iterable[Any] | None) -> Any:
    """One goap termination policy for LangGOAP's ``termination_policies`` list (None if empty)."""
    ps = [_goap(p) for p in policies or ()]
    if not ps:
        return None
    return ps[0] if len(ps) == 1 else FirstOf(*ps)
