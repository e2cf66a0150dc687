"""Plan-quality metrics over a plan's expected states (lower is better); the CSP phase subtracts
``weight * value`` from a plan's soft score."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from goap.compat.planner.types import Plan, PlanningState

__all__ = [
    "MinimizeFinalStateExpression",
    "MinimizeTrajectoryMax",
    "MinimizeTrajectorySum",
    "PlanQualityMetric",
]

StateExpression = Callable[[PlanningState], float]
"""A number computed from one expected state."""


@runtime_checkable
class PlanQualityMetric(Protocol):
    """A named, weighted measure of a plan (deterministic; 0.0 for a plan without states)."""

    name: str
    weight: float

    def evaluate(self, plan: Plan) -> float:
        """The plan's value under this metric."""
        ...


@dataclass(frozen=True)
class MinimizeFinalStateExpression:
    """``expression`` of the last expected state."""

    name: str
    expression: StateExpression
    weight: float = 1.0

    def evaluate(self, plan: Plan) -> float:
        """The expression on the final state (0.0 without states)."""
        states = plan.expected_states
        return float(self.expression(states[-1])) if states else 0.0


@dataclass(frozen=True)
class MinimizeTrajectorySum:
    """``expression`` summed over every expected state."""

    name: str
    expression: StateExpression
    weight: float = 1.0

    def evaluate(self, plan: Plan) -> float:
        """The sum over the trajectory (0.0 without states)."""
        return float(sum(map(self.expression, plan.expected_states)))


@dataclass(frozen=True)
class MinimizeTrajectoryMax:
    """The largest ``expression`` over the expected states."""

    name: str
    expression: StateExpression
    weight: float = 1.0

    def evaluate(self, plan: Plan) -> float:
        """The peak over the trajectory (0.0 without states)."""
        return float(max(map(self.expression, plan.expected_states), default=0.0))
