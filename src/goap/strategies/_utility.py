"""`UtilityStrategy`: greedy net value, for agents with no fixed goal.

Instead of reaching a goal at least cost, the agent repeatedly takes the applicable action with
the highest net value in the current state, until no action has a positive one (or
``max_actions`` were chosen, or the goal, when it has conditions, holds). An action's net value
is the change of the soft score it causes (:class:`goap.SoftGoal` weights and penalties), plus
its own value (``values[name]``, else ``metadata["value"]``, else 0), minus its cost. Ties go to
the action listed first. Actions that change nothing are never chosen, so it cannot loop.

``value_in(action, state)`` gives state-dependent values instead; ``positive_only=False`` keeps
taking the best applicable action, even at a loss or when it changes nothing (``max_actions``
then bounds the plan).

With a goal that has conditions, a greedy run that does not end in it is ``budget_exhausted``
(nothing is proven about the goal). The plans are greedy: ``optimal`` is always False.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from goap.planning import ActionSpec, Plan, PlanResult, SearchStats, SoftGoal, soft_score
from goap.planning.kit import SolveStart, StrategyBase, check_at_least, freeze_field

__all__ = ["UtilityStrategy"]


def _empty() -> Mapping[str, float]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class UtilityStrategy(StrategyBase):
    """Greedy net-value action selection (see the module docstring)."""

    soft_goals: tuple[SoftGoal, ...] = ()
    """What the agent values in a state."""
    values: Mapping[str, float] = field(default_factory=_empty)
    """Value of taking an action, by name (default: its ``metadata["value"]``, else 0)."""
    max_actions: int = 20
    """Most actions in one plan."""
    value_in: Callable[[ActionSpec, Mapping[str, Any]], float] | None = None
    """The action's own value in a state; when set it replaces ``values`` and the metadata."""
    positive_only: bool = True
    """Stop when no action has a positive net value; False: always take the best applicable action
    (one that changes nothing included) until ``max_actions`` or the goal."""

    def __post_init__(self) -> None:
        check_at_least(self, "max_actions")
        freeze_field(self, "soft_goals", tuple)

    @property
    def name(self) -> str:
        """``utility``."""
        return "utility"

    def value_of(self, action: ActionSpec) -> float:
        """The action's own value."""
        if action.name in self.values:
            return float(self.values[action.name])
        meta = action.metadata or {}
        v = meta.get("value", 0.0)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0.0

    def net(self, action: ActionSpec, state: Mapping[str, Any]) -> float:
        """Net value of taking ``action`` in ``state``."""
        after = action.apply(state)
        gain = soft_score(after, self.soft_goals) - soft_score(state, self.soft_goals)
        own = self.value_of(action) if self.value_in is None else float(self.value_in(action, state))
        return gain + own - action.cost_in(state)

    def solve_started(self, call: SolveStart) -> PlanResult:
        """Choose actions greedily by net value (see the module docstring).

        A constrained goal raises :class:`goap.UnsupportedConstraintError`: greedy value ignores budgets."""
        goal = call.goal
        state: dict[str, Any] = dict(call.initial)
        chosen: list[ActionSpec] = []
        cost = 0.0
        evaluated = 0
        usable = call.usable
        while len(chosen) < self.max_actions and not (goal.conditions and goal.satisfied_by(state)):
            best: tuple[float, ActionSpec] | None = None
            for a in usable:
                if not a.applicable(state) or (self.positive_only and a.apply(state) == state):
                    continue
                evaluated += 1
                v = self.net(a, state)
                if best is None or v > best[0]:
                    best = (v, a)
            if best is None or (self.positive_only and best[0] <= 0):
                break
            a = best[1]
            cost += a.cost_in(state)
            state = a.apply(state)
            chosen.append(a)
        stats = SearchStats(expanded=len(chosen), evaluated=evaluated, seconds=call.seconds())
        if goal.conditions and not goal.satisfied_by(state):
            # Greedy choice gave up: nothing is proven about the goal, so this is not "no_plan".
            return PlanResult("budget_exhausted", None, None, stats, False, self.name)
        return PlanResult("found", Plan(tuple(chosen), cost), None, stats, False, self.name)
