"""Choosing a strategy per planning call from cheap features of the problem.

:class:`StrategyRouter` is itself a strategy: it extracts :class:`ProblemFeatures`, asks its
classifier for a name and delegates to the strategy registered under it. The default
:class:`RuleBasedClassifier` never sends a problem to MCTS merely because it is stochastic: that
takes a ``"risk-averse"`` divergence policy or ``prefer_mcts_for_stochastic=True``.

Why the features and rules are not goap's (:mod:`goap.strategies` ``StrategyRouter``): LangGOAP's
rule 4 sends a wide, deep problem to MCTS even with deterministic transitions (goap's never trades
optimal A* away there), its features count every action offered and read trajectory metrics
from ``goal.metrics`` (goap's: actions with durations), and its tests check those rules
(``test_configurable_thresholds`` sends a deterministic problem to MCTS).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.strategy import PlanningStrategy, PlanRequest, StrategyBase
from goap.compat.planner.transitions import DeterministicTransitionModel, TransitionModel
from goap.compat.planner.types import Plan
from goap.compat.state import PlanningState
from goap.planning import ProblemFeatures as CoreProblemFeatures
from goap.planning import RiskProfile

__all__ = [
    "ProblemFeatures",
    "RiskProfile",
    "RuleBasedClassifier",
    "StrategyClassifier",
    "StrategyRouter",
    "extract_features",
]


@dataclass(frozen=True, slots=True)
class ProblemFeatures(CoreProblemFeatures):
    """What the classifier sees: goap's :class:`goap.planning.ProblemFeatures`, filled by
    LangGOAP's rules (see the module docstring), under LangGOAP's name for the unmet goal conditions.
    """

    admissible_h_at_start: int = 0
    """Goal conditions not true at the start (a lower bound on the plan length): LangGOAP's name
    for ``unsatisfied_goal_conditions``, which :func:`extract_features` sets to the same count."""


def extract_features(
    start: PlanningState,
    goal: GoalSpec,
    actions: list[ActionSpec],
    *,
    transition_model: TransitionModel | None = None,
) -> ProblemFeatures:
    """The routing features of one problem (pure)."""
    model = transition_model or DeterministicTransitionModel()
    policy = getattr(model, "divergence_policy", None)
    now = start.to_dict()
    unmet = sum(1 for k, v in goal.conditions.items() if now.get(k) != v)
    return ProblemFeatures(
        action_count=len(actions),
        goal_condition_count=len(goal.conditions),
        has_hard_constraints=bool(goal.constraints),
        has_soft_objectives=goal.objectives is not None,
        has_trajectory_metrics=bool(goal.metrics),
        is_stochastic=not isinstance(model, DeterministicTransitionModel),
        risk_profile="strict" if policy is None else policy.kind,
        unsatisfied_goal_conditions=unmet,
        admissible_h_at_start=unmet,
        horizon_estimate=unmet * max(1, len(actions)),
    )


@runtime_checkable
class StrategyClassifier(Protocol):
    """Maps features to a registered strategy name."""

    def __call__(self, features: ProblemFeatures) -> str:
        """The name of the strategy to run."""
        ...


@dataclass
class RuleBasedClassifier:
    """The first rule that fires wins.

    1. constraints, objectives or metrics -> ``"csp-pipeline"``;
    2. a ``"risk-averse"`` divergence policy -> ``"mcts"``;
    3. stochastic and ``prefer_mcts_for_stochastic`` -> ``"mcts"``;
    4. ``action_count >= branching_threshold`` and ``horizon_estimate >= horizon_threshold`` -> ``"mcts"``;
    5. else ``"astar"``.
    """

    branching_threshold: int = 30
    """Rule 4's least action count."""
    horizon_threshold: int = 20
    """Rule 4's least horizon."""
    prefer_mcts_for_stochastic: bool = False
    """Rule 3's switch."""

    def __call__(self, f: ProblemFeatures) -> str:
        """The strategy name for ``f``."""
        if f.has_hard_constraints or f.has_soft_objectives or f.has_trajectory_metrics:
            return "csp-pipeline"
        if f.risk_profile == "risk-averse" or (f.is_stochastic and self.prefer_mcts_for_stochastic):
            return "mcts"
        if f.action_count >= self.branching_threshold and f.horizon_estimate >= self.horizon_threshold:
            return "mcts"
        return "astar"


@dataclass
class StrategyRouter(StrategyBase):
    """A strategy that delegates each call to ``strategies[classifier(features)]``.

    An unknown name raises KeyError (``on_unknown="raise"``) or runs ``strategies[default]``
    (``"default"``). ``on_strategy_chosen`` is called with the name that ran; ``last_chosen`` keeps it.
    """

    strategies: Mapping[str, PlanningStrategy]
    """Name -> strategy."""
    classifier: StrategyClassifier
    """Features -> name."""
    transition_model: TransitionModel | None = None
    """Consulted for ``is_stochastic`` and ``risk_profile``."""
    default: str = "astar"
    """Fallback name for ``on_unknown="default"``."""
    on_unknown: Literal["raise", "default"] = "raise"
    """What an unregistered name does."""
    on_strategy_chosen: Callable[[str], None] | None = None
    """Told the name of the strategy that runs."""
    last_chosen: str | None = field(default=None, init=False, repr=False)
    """The name that ran last."""

    def solve(self, request: PlanRequest) -> Plan | None:
        """The chosen strategy's plan."""
        r = request
        name = self.classifier(
            extract_features(r.start, r.goal, r.actions, transition_model=self.transition_model)
        )
        chosen = self.strategies.get(name)
        if chosen is None:
            if self.on_unknown == "raise":
                raise KeyError(
                    f"Classifier returned {name!r}, not in registered strategies {sorted(self.strategies)}"
                )
            name, chosen = self.default, self.strategies[self.default]
        self.last_chosen = name
        if self.on_strategy_chosen is not None:
            self.on_strategy_chosen(name)
        return r.delegate(chosen)
