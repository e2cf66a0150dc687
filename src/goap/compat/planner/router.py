"""LangGOAP's strategy router over goap's StrategyRouter."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, astuple, dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import goap.planning as gp
import goap.strategies as gs
from goap.compat import _convert as cv
from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.transitions import to_goap_model
from goap.compat.planner.types import Plan
from goap.compat.state import PlanningState, Start
from goap.planning import RiskProfile

__all__ = ["ProblemFeatures", "RiskProfile", "RuleBasedClassifier", "StrategyClassifier", "StrategyRouter"]
__all__ += ["extract_features"]


@dataclass(slots=True, frozen=True)
class ProblemFeatures:
    """LangGOAP's routing features (goap's, with ``admissible_h_at_start`` for the unsatisfied count)."""

    action_count: int
    goal_condition_count: int
    has_hard_constraints: bool
    has_soft_objectives: bool  # the goal has objectives
    has_trajectory_metrics: bool
    is_stochastic: bool
    risk_profile: RiskProfile  # the model's divergence kind, or strict
    admissible_h_at_start: int
    horizon_estimate: int

    def to_goap(self) -> gp.ProblemFeatures:
        """goap's features with the same values."""
        return gp.ProblemFeatures(*astuple(self))


def _from_goap(f: gp.ProblemFeatures, goal: GoalSpec) -> ProblemFeatures:
    # LangGOAP reads constraints, objectives and metrics off the goal, not off strategies or durations.
    d = f.to_dict()
    d["admissible_h_at_start"] = d.pop("unsatisfied_goal_conditions")
    d.update(has_hard_constraints=bool(goal.constraints), has_soft_objectives=goal.objectives is not None)
    d["has_trajectory_metrics"] = bool(goal.metrics)
    return ProblemFeatures(**d)


def extract_features(
    start: PlanningState | Mapping[str, Any],
    goal: GoalSpec,
    actions: list[ActionSpec],
    *,
    transition_model: Any = None,
) -> ProblemFeatures:
    """The routing features of a problem (goap's :func:`goap.extract_features`)."""
    model = to_goap_model(transition_model, actions)
    return _from_goap(gp.extract_features(*cv.problem(start, goal, actions), transition_model=model), goal)


@runtime_checkable
class StrategyClassifier(Protocol):
    """Features -> the name of a registered strategy."""

    def __call__(self, features: ProblemFeatures) -> str:
        """The strategy name."""
        ...


@dataclass
class RuleBasedClassifier:
    """goap's rule classifier in LangGOAP's order (its rules 2 and 4 need no stochastic model)."""

    branching_threshold: int = 30
    horizon_threshold: int = 20
    prefer_mcts_for_stochastic: bool = False

    def __call__(self, f: ProblemFeatures) -> str:
        """The strategy name for ``f``."""
        return gs.RuleBasedClassifier(**asdict(self), stochastic_gate=False)(f.to_goap())


@dataclass
class StrategyRouter:
    """Routes each call to one of ``strategies`` by the classifier's choice of name."""

    strategies: Mapping[str, Any]
    classifier: Callable[[ProblemFeatures], str]
    transition_model: Any = None
    default: str = "astar"
    on_unknown: Literal["raise", "default"] = "raise"
    on_strategy_chosen: Callable[[str], None] | None = None  # told the name that runs
    last_chosen: str | None = field(default=None, init=False, repr=False)

    def plan(self, start: Start, goal: GoalSpec, actions: Sequence[ActionSpec], **hints: Any) -> Plan | None:
        """Plan with the strategy the classifier names (KeyError for an unknown one)."""
        router = gs.StrategyRouter(
            strategies=self.strategies,
            classifier=lambda f: self.classifier(_from_goap(f, goal)),
            transition_model=to_goap_model(self.transition_model, actions),
            default=self.default,
            on_unknown="raise" if self.default not in self.strategies else self.on_unknown,
        )
        try:
            name = router.route(*cv.problem(start, goal, actions)).chosen
        except gp.ModelError as e:
            raise KeyError(str(e)) from None
        self.last_chosen = name
        if self.on_strategy_chosen is not None:
            self.on_strategy_chosen(name)
        black = hints.get("blacklisted_actions")
        return self.strategies[name].plan(start, goal, actions, blacklisted_actions=black)  # type: ignore[no-any-return]
