"""Plan-quality metrics over expected states (lower is better; subtracted from soft score)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from goap.compat.planner.types import Plan, PlanningState

__all__ = ["PlanQualityMetric", "MinimizeFinalStateExpression"]
__all__ += ["MinimizeTrajectorySum", "MinimizeTrajectoryMax"]

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
class _Folded:
    """``fold`` of ``expression`` over the chosen expected states (0.0 when there are none)."""

    name: str
    expression: StateExpression
    weight: float = 1.0

    def _values(self, states: Sequence[PlanningState]) -> Iterable[float]:
        return map(self.expression, states)

    def evaluate(self, plan: Plan) -> float:
        """The metric's value for ``plan``."""
        return float(self._fold(list(self._values(plan.expected_states))) or 0.0)

    @staticmethod
    def _fold(values: list[float]) -> float:
        return sum(values)


class MinimizeFinalStateExpression(_Folded):
    """``expression`` of the last expected state."""

    def _values(self, states: Sequence[PlanningState]) -> Iterable[float]:
        return map(self.expression, states[-1:])


class MinimizeTrajectorySum(_Folded):
    """``expression`` summed over every expected state."""


class MinimizeTrajectoryMax(_Folded):
    """The largest ``expression`` over the expected states."""

    @staticmethod
    def _fold(values: list[float]) -> float:
        return max(values, default=0.0)
