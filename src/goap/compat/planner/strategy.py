"""LangGOAP's pluggable planning strategies: objects with ``plan(start, goal, actions, ...)``."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from goap.compat import _convert as cv
from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.astar import plan as astar_plan
from goap.compat.planner.types import Plan
from goap.compat.state import PlanningState

__all__ = ["PlanningStrategy", "AStarStrategy", "TwoPhasePipelineStrategy", "CSPRefinementStrategy"]
__all__ += ["LazyDecompositionStrategy", "AnytimePlanningStrategy"]


@runtime_checkable
class PlanningStrategy(Protocol):
    """Anything with LangGOAP's ``plan`` method (None when there is no plan)."""

    def plan(
        self,
        start: PlanningState,
        goal: GoalSpec,
        actions: Sequence[ActionSpec],
        *,
        blacklisted_actions: Sequence[str] | None = None,
        prior_plan: Plan | None = None,
        current_step: int = 0,
    ) -> Plan | None:
        """A plan from ``start`` to ``goal``; ``prior_plan``/``current_step`` are hints for repairers."""
        ...


_Kw = dict[str, Any]


class _Base:
    """``plan`` taking LangGOAP's keywords and handing them to :meth:`_run`."""

    def plan(
        self, start: PlanningState, goal: GoalSpec, actions: Sequence[ActionSpec], **kw: Any
    ) -> Plan | None:
        """A plan from ``start`` to ``goal`` or None (LangGOAP's planning keywords)."""
        if kw.get("prior_plan") is None:  # an inner strategy may not know the repair hints
            kw = {"blacklisted_actions": kw.get("blacklisted_actions")}
        out: Plan | None = self._run(start, goal, actions, kw)
        return out

    def _run(self, start: PlanningState, goal: GoalSpec, actions: Sequence[ActionSpec], kw: _Kw) -> Any:
        raise NotImplementedError


class AStarStrategy(_Base):
    """goap's A* alone (no CSP phase); ``time_budget_ms`` bounds the search."""

    def __init__(self, *, time_budget_ms: float | None = None) -> None:
        self._time_budget_ms = time_budget_ms

    def _run(self, start: PlanningState, goal: GoalSpec, actions: Sequence[ActionSpec], kw: _Kw) -> Any:
        black = kw["blacklisted_actions"]
        return astar_plan(start, goal, actions, black, time_budget_ms=self._time_budget_ms)


class CSPRefinementStrategy(_Base):
    """Checks and scores a given candidate plan against the goal's constraints (no search)."""

    def __init__(self, candidate: Plan) -> None:
        self._candidate = candidate

    def _run(self, start: PlanningState, goal: GoalSpec, actions: Sequence[ActionSpec], kw: _Kw) -> Any:
        from goap.compat.planner.csp import validate_plan
        from goap.compat.planner.pipeline import with_csp

        return with_csp(self._candidate, goal, validate_plan(self._candidate, goal))


class TwoPhasePipelineStrategy(_Base):
    """A*, then the CSP phase over up to ``max_alternatives`` candidates (LangGOAP's default)."""

    def __init__(self, *, max_alternatives: int = 5) -> None:
        self._max_alternatives = max_alternatives

    def _run(self, start: PlanningState, goal: GoalSpec, actions: Sequence[ActionSpec], kw: _Kw) -> Any:
        from goap.compat.planner.pipeline import plan as pipeline_plan

        black = kw["blacklisted_actions"]
        return pipeline_plan(
            start, goal, actions, blacklisted_actions=black, max_alternatives=self._max_alternatives
        )


class LazyDecompositionStrategy(_Base):
    """Plans with ``inner`` (default A*) and keeps the first ``lookahead`` actions."""

    def __init__(self, *, lookahead: int = 1, inner: PlanningStrategy | None = None) -> None:
        if lookahead < 1:
            raise ValueError(f"lookahead must be >= 1, got {lookahead}")
        self._lookahead = lookahead
        self._inner: PlanningStrategy = inner or AStarStrategy()

    def _run(self, start: PlanningState, goal: GoalSpec, actions: Sequence[ActionSpec], kw: _Kw) -> Any:
        whole = self._inner.plan(start, goal, actions, **kw)
        if whole is None or len(whole) <= self._lookahead:
            return whole
        head = cv.to_plan(whole.actions[: self._lookahead], start)
        return Plan(head.actions, head.expected_states, head.total_cost, whole.metadata, head.score)


class AnytimePlanningStrategy(_Base):
    """Runs ``inner`` (default: A* with the same budget) and gives up with None after ``time_budget_ms``."""

    def __init__(self, time_budget_ms: float, *, inner: PlanningStrategy | None = None) -> None:
        self._budget_ms = time_budget_ms
        self._inner: PlanningStrategy = inner or AStarStrategy(time_budget_ms=time_budget_ms)

    def _run(self, start: PlanningState, goal: GoalSpec, actions: Sequence[ActionSpec], kw: _Kw) -> Any:
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        job = pool.submit(self._inner.plan, start, goal, actions, **kw)
        try:
            return job.result(timeout=self._budget_ms / 1000.0)
        except concurrent.futures.TimeoutError:
            job.cancel()
            return None
        finally:
            pool.shutdown(wait=False)
