"""Plan-quality metrics over a plan's expected states (minimised; the CSP step subtracts
``weight * evaluate(plan)`` from the soft score)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from goap.compat.planner.types import Plan
from goap.compat.state import PlanningState

__all__ = [
    "MinimizeFinalStateExpression",
    "MinimizeTrajectoryMax",
    "MinimizeTrajectorySum",
    "PlanQualityMetric",
    "StateExpressionMetric",
]

StateExpression = Callable[[PlanningState], float]
"""A number computed from one expected state."""


@runtime_checkable
class PlanQualityMetric(Protocol):
    """A deterministic, minimised measure of a plan; 0 for a plan with no expected states."""

    name: str
    """Label shown in traces."""
    weight: float
    """Factor in the soft score."""

    def evaluate(self, plan: Plan) -> float:
        """The metric's value for ``plan``."""
        ...


@dataclass(frozen=True)
class StateExpressionMetric:
    """A named, weighted expression over expected states; subclasses say how the states are combined."""

    name: str
    """Label."""
    expression: StateExpression
    """What to measure in one state."""
    weight: float = 1.0
    """Factor in the soft score."""

    def evaluate(self, plan: Plan) -> float:
        """The combined value over the plan's states (0 without states)."""
        return (
            float(self.combine([self.expression(s) for s in plan.expected_states]))
            if plan.expected_states
            else 0.0
        )

    def combine(self, values: list[float]) -> float:
        """One number from the per-state values (never empty)."""
        raise NotImplementedError(f"{type(self).__name__} must define combine(values)")


@dataclass(frozen=True)
class MinimizeFinalStateExpression(StateExpressionMetric):
    """``expression`` on the last expected state."""

    def combine(self, values: list[float]) -> float:
        """The last value."""
        return values[-1]


@dataclass(frozen=True)
class MinimizeTrajectorySum(StateExpressionMetric):
    """Sum of ``expression`` over every expected state (an integral along the trajectory)."""

    def combine(self, values: list[float]) -> float:
        """The sum."""
        return sum(values)


@dataclass(frozen=True)
class MinimizeTrajectoryMax(StateExpressionMetric):
    """Largest ``expression`` over the expected states (the peak along the trajectory)."""

    def combine(self, values: list[float]) -> float:
        """The maximum."""
        return max(values)
