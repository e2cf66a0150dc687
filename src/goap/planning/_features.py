"""Cheap features of a planning problem.

:func:`extract_features` reads the problem without searching it (a pass over the goal and the
actions), so a :class:`goap.StrategyRouter` can afford it on every planning call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from goap.planning._actions import ActionSpec
from goap.planning._conditions import holds
from goap.planning._constraints import ConstrainedGoal, ConstraintSet
from goap.planning._goals import GoalSpec
from goap.planning._transitions import DeterministicTransitionModel, TransitionModel

__all__ = ["ProblemFeatures", "RiskProfile", "extract_features"]

RiskProfile: TypeAlias = Literal["strict", "risk-averse", "learned", "hierarchical", "other"]
"""``strict``: the model's expectation is the declared effects; else its divergence policy's kind."""


@dataclass(frozen=True, slots=True)
class ProblemFeatures:
    """What a router may look at: counts and flags, all computed without search."""

    action_count: int
    """Actions available (blacklisted ones excluded)."""
    goal_condition_count: int
    """Conditions in the goal."""
    has_hard_constraints: bool
    """Hard constraints or capacities are declared."""
    has_soft_objectives: bool
    """Soft constraints or objectives are declared."""
    has_trajectory_metrics: bool
    """Some action declares a duration, so makespan (a whole-trajectory metric) matters."""
    is_stochastic: bool
    """The transition model is not the deterministic default."""
    risk_profile: RiskProfile
    """See :data:`RiskProfile`."""
    unsatisfied_goal_conditions: int = 0
    """Goal conditions false in the initial state (a lower bound on the plan length)."""
    horizon_estimate: int = 0
    """``unsatisfied_goal_conditions * action_count``: a coarse size of the search horizon."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def extract_features(
    initial: Mapping[str, Any],
    goal: GoalSpec,
    actions: Sequence[ActionSpec],
    *,
    constraints: ConstraintSet | None = None,
    transition_model: TransitionModel | None = None,
    blacklist: frozenset[str] = frozenset(),
) -> ProblemFeatures:
    """The features of one planning problem (pure: same inputs, same features).

    ``constraints`` are the ones a pipeline would solve for; a :class:`goap.ConstrainedGoal`
    contributes its own as well.
    """
    cs = constraints or ConstraintSet()
    if isinstance(goal, ConstrainedGoal):
        cs = cs + goal.constraint_set
    model = transition_model
    stochastic = model is not None and not isinstance(model, DeterministicTransitionModel)
    policy = getattr(model, "divergence_policy", None) if model is not None else None
    risk: RiskProfile = "strict" if policy is None else policy.kind
    usable = [a for a in actions if a.name not in blacklist]
    unsat = sum(1 for k, c in goal.conditions.items() if not holds(c, initial.get(k)))
    return ProblemFeatures(
        action_count=len(usable),
        goal_condition_count=len(goal.conditions),
        has_hard_constraints=bool(cs.capacities) or any(c.level == "hard" for c in cs.constraints),
        has_soft_objectives=bool(cs.objectives) or any(c.level == "soft" for c in cs.constraints),
        has_trajectory_metrics=any(a.duration for a in usable),
        is_stochastic=stochastic,
        risk_profile=risk,
        unsatisfied_goal_conditions=unsat,
        horizon_estimate=unsat * max(1, len(usable)),
    )
