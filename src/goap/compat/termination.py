"""LangGOAP's termination policies: goap's built-ins deciding for LangGOAP state dicts."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from goap import runtime as rt
from goap.runtime import RunView

if TYPE_CHECKING:
    from goap.runtime import GoapState

__all__ = ["AllOfPolicy", "EarlyTermination", "FirstOfPolicy", "MaxActionsPolicy", "MaxCostPolicy",
           "MaxLLMCallsPolicy", "MaxTokensPolicy", "MaxWallClockPolicy", "OnStuckPolicy",
           "TerminationPolicy", "as_goap_termination"]  # fmt: skip


@dataclass(slots=True, frozen=True)
class EarlyTermination:
    """A policy's decision to stop the run (LangGOAP's shape of `goap.runtime.Termination`)."""

    policy_name: str
    reason: str
    error: bool = True


@runtime_checkable
class TerminationPolicy(Protocol):
    """LangGOAP's policy protocol: a ``name`` and ``should_terminate(state) -> EarlyTermination | None``."""

    @property
    def name(self) -> str: ...
    def should_terminate(self, state: Any) -> EarlyTermination | None: ...


def _lg_state(view: RunView) -> Any:
    """The LangGOAP state dict a user policy reads: the one decided on, or one made from goap's run."""
    from goap.compat._convert import state_to_langgoap

    if isinstance(view.state, SimpleNamespace):
        return view.state.raw

    out = state_to_langgoap(view.state)
    if view.elapsed is not None:
        out["wall_clock_started_at"] = time.monotonic() - view.elapsed
    return {**out, "status": "no_plan"} if view.stuck else out


class _Decides:
    """``should_terminate`` over goap's ``check``; goap's reason reworded by ``_words``."""

    _words = ""

    def check(self, view: RunView) -> rt.Termination | None:
        """goap's decision (with LangGOAP's wording of the reason)."""
        t: rt.Termination | None = super().check(view)  # type: ignore[misc]
        if t is None or not self._words:
            return t
        v = view.state.world_state.get(getattr(self, "key", None) or "", 0)
        used = v if isinstance(v, int | float) else 0
        return replace(t, reason=self._words.format(p=self, used=used, elapsed=view.elapsed or 0.0))

    def should_terminate(self, state: Any) -> EarlyTermination | None:
        """The decision for a LangGOAP state dict."""
        start = state.get("wall_clock_started_at")
        since = None if start is None else time.monotonic() - float(start)
        run = SimpleNamespace(raw=state, world_state=state.get("world_state") or {})
        run.execution_history = state.get("execution_history") or []
        t = self.check(RunView(cast("GoapState", run), since, state.get("status") == "no_plan"))
        return None if t is None else EarlyTermination(t.policy, t.reason, t.error)


class MaxActionsPolicy(_Decides, rt.MaxActions):
    """Stop once ``max_actions`` actions were executed."""

    _words = "Max actions limit hit: {p.limit}"
    max_actions = property(lambda self: self.limit, doc="The limit.")

    def __init__(self, max_actions: int, name: str = "MaxActionsPolicy") -> None:
        rt.MaxActions.__init__(self, max_actions, name)


class MaxWallClockPolicy(_Decides, rt.MaxWallClock):
    """Stop once ``seconds`` passed since the run started."""

    _words = "Wall-clock budget {p.seconds:.3f}s used up after {elapsed:.3f}s"

    def __init__(self, seconds: float, name: str = "MaxWallClockPolicy") -> None:
        rt.MaxWallClock.__init__(self, seconds, name)


class MaxCostPolicy(_Decides, rt.MaxCost):
    """Stop once ``world_state['total_cost_usd']`` reaches ``usd``."""

    _words = "Cost budget ${p.limit:.4f} reached (spent ${used:.4f})"
    usd = property(lambda self: self.limit, doc="The budget in USD.")

    def __init__(self, usd: float, name: str = "MaxCostPolicy") -> None:
        rt.MaxCost.__init__(self, usd, "total_cost_usd", name)


class MaxTokensPolicy(_Decides, rt.MaxTokens):
    """Stop once ``world_state['total_tokens']`` reaches ``tokens``."""

    _words = "Token budget {p.limit} reached ({used} used)"
    tokens = property(lambda self: self.limit, doc="The token budget.")

    def __init__(self, tokens: int, name: str = "MaxTokensPolicy") -> None:
        rt.MaxTokens.__init__(self, tokens, "total_tokens", name)


class MaxLLMCallsPolicy(_Decides, rt.MaxLLMCalls):
    """Stop once ``world_state['llm_call_count']`` reaches ``max_calls``."""

    _words = "LLM-call budget {p.limit} reached ({used} made)"
    max_calls = property(lambda self: self.limit, doc="The call budget.")

    def __init__(self, max_calls: int, name: str = "MaxLLMCallsPolicy") -> None:
        rt.MaxLLMCalls.__init__(self, max_calls, "llm_call_count", name)


class OnStuckPolicy(_Decides, rt.OnStuck):
    """Stop gracefully (``error=False``) when no plan exists."""

    _words = "Stuck: no plan available"

    def __init__(self, name: str = "OnStuckPolicy") -> None:
        rt.OnStuck.__init__(self, name)


class _Foreign:
    """A LangGOAP-only policy (``should_terminate``) as a goap policy."""

    def __init__(self, policy: Any) -> None:
        self.policy, self.name = policy, getattr(policy, "name", type(policy).__name__)

    def check(self, view: RunView) -> rt.Termination | None:
        d = self.policy.should_terminate(_lg_state(view))
        return None if d is None else rt.Termination(d.policy_name, d.reason, d.error)


def _goap(policy: Any) -> Any:
    # goap's own check, unless a LangGOAP should_terminate (e.g. a subclass's override) decides instead
    lg = getattr(type(policy), "should_terminate", _Decides.should_terminate)
    return policy if hasattr(policy, "check") and lg is _Decides.should_terminate else _Foreign(policy)


class FirstOfPolicy(_Decides, rt.FirstOf):
    """Fires with the first of its policies that fires."""

    def __init__(self, *policies: Any) -> None:
        rt.FirstOf.__init__(self, *map(_goap, policies))
        self.name = "FirstOfPolicy"


class AllOfPolicy(_Decides, rt.AllOf):
    """Fires when every one of its (at least one) policies fires; their reasons are joined."""

    def __init__(self, *policies: Any) -> None:
        if not policies:
            raise ValueError("AllOfPolicy needs at least one policy")
        rt.AllOf.__init__(self, *map(_goap, policies))
        self.name = "AllOfPolicy"


def as_goap_termination(policies: Iterable[Any] | None) -> Any:
    """One goap termination policy for LangGOAP's ``termination_policies`` list (None if empty)."""
    ps = [_goap(p) for p in policies or ()]
    return (ps[0] if len(ps) == 1 else rt.FirstOf(*ps)) if ps else None
