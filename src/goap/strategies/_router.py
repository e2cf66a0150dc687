"""Strategy routing: pick a planning strategy per call from cheap problem features.

:class:`StrategyRouter` is itself a :class:`goap.PlanningStrategy`, so ``GoapGraph(strategy=
StrategyRouter())`` routes every (re)plan of a run. Routing is a pure function of the problem
(:meth:`StrategyRouter.route`): the router keeps no state between calls, and the decision,
with the rule that made it and the features it read, is in ``PlanResult.routing``.

A classifier is any ``Callable[[ProblemFeatures], str]`` returning a registered strategy name.
:class:`RuleBasedClassifier` applies these rules, first match wins:

1. hard constraints, soft objectives or trajectory metrics (durations) -> ``"csp-pipeline"``;
2. a stochastic, risk-averse transition model (its divergence policy's kind) -> ``"mcts"``;
3. a stochastic model and ``prefer_mcts_for_stochastic`` -> ``"mcts"``;
4. a stochastic model with high branching (``action_count >= branching_threshold``) and a deep
   horizon (``horizon_estimate >= horizon_threshold``) -> ``"mcts"``;
5. otherwise -> ``"astar"``.

Rules 2 to 4 need a stochastic model (``stochastic_gate=False`` lifts that for rules 2 and 4): with
deterministic transitions optimal A* is exact and MCTS only samples, so the router never trades
optimality away there (a 30-action problem A* solves at cost 2 is not handed to MCTS). A goal with
constraints is never planned by a strategy that would ignore them: when the chosen strategy does
not honour them (see :func:`goap.planning._constraints.honours_constraints`),
:meth:`StrategyRouter.solve` raises :class:`goap.UnsupportedConstraintError` naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, ClassVar, Literal, TypeAlias

from goap.planning import (
    ActionSpec,
    AStar,
    ConstraintSet,
    GoalSpec,
    ModelError,
    PlanningStrategy,
    PlanResult,
    ProblemFeatures,
    TransitionModel,
    extract_features,
)
from goap.planning.kit import goal_constraints, honours_constraints, refuse_constraints
from goap.strategies._csp import CspPipeline
from goap.strategies._mcts import Mcts

__all__ = ["RoutingDecision", "RuleBasedClassifier", "StrategyClassifier", "StrategyRouter"]

StrategyClassifier: TypeAlias = Callable[[ProblemFeatures], str]
"""Maps problem features to a registered strategy name."""


@dataclass(frozen=True, slots=True)
class RoutingDecision:
    """Which strategy a router chose, and why (``PlanResult.routing``)."""

    kind: ClassVar[str] = "routing"
    """The :class:`goap.planning.StrategyReport` kind."""

    chosen: str
    """The registered name of the strategy that ran."""
    reason: str
    """Why, in one sentence (the rule that fired, or the classifier's name)."""
    features: ProblemFeatures
    """The features the decision was made on."""
    requested: str = ""
    """What the classifier returned, when it differs from ``chosen`` (an unknown name)."""

    @property
    def message(self) -> str:
        """One line, e.g. ``astar: rule 5: default``."""
        return f"{self.chosen}: {self.reason}"


@dataclass(frozen=True, slots=True)
class RuleBasedClassifier:
    """The five rules of the module docstring, in order."""

    branching_threshold: int = 30
    """Rule 4: at least this many actions."""
    horizon_threshold: int = 20
    """Rule 4: ``horizon_estimate`` at least this."""
    prefer_mcts_for_stochastic: bool = False
    """Rule 3: send stochastic problems to MCTS (off by default: A* on expected effects plus
    replanning is usually enough)."""
    stochastic_gate: bool = True
    """Rules 2 and 4 need a stochastic model; False: they apply to any model (LangGOAP's order)."""

    def __call__(self, features: ProblemFeatures) -> str:
        """The strategy name for ``features``."""
        return self.decide(features)[0]

    def decide(self, f: ProblemFeatures) -> tuple[str, str]:
        """``(strategy name, the rule that fired)``."""
        if f.has_hard_constraints or f.has_soft_objectives or f.has_trajectory_metrics:
            present = [
                name
                for name, flag in (
                    ("hard constraints", f.has_hard_constraints),
                    ("soft objectives", f.has_soft_objectives),
                    ("trajectory metrics", f.has_trajectory_metrics),
                )
                if flag
            ]
            return "csp-pipeline", f"rule 1: {', '.join(present)} present"
        if not f.is_stochastic and self.stochastic_gate:
            # Deterministic transitions: A* is optimal and exact, MCTS would only be a guess.
            return "astar", "rule 5: default"
        if f.risk_profile == "risk-averse":
            return "mcts", "rule 2: the transition model is stochastic and risk-averse"
        if self.prefer_mcts_for_stochastic and f.is_stochastic:
            return "mcts", "rule 3: stochastic model and prefer_mcts_for_stochastic"
        if f.action_count >= self.branching_threshold and f.horizon_estimate >= self.horizon_threshold:
            return "mcts", (
                f"rule 4: stochastic model, branching {f.action_count} >= {self.branching_threshold} "
                f"and horizon {f.horizon_estimate} >= {self.horizon_threshold}"
            )
        return "astar", "rule 5: default"


def _default_strategies() -> Mapping[str, PlanningStrategy]:
    return MappingProxyType({"astar": AStar(), "csp-pipeline": CspPipeline(), "mcts": Mcts()})


@dataclass(frozen=True, slots=True)
class StrategyRouter:
    """A :class:`goap.PlanningStrategy` that delegates each call to the strategy a classifier names.

    ``strategies`` defaults to A*, a default :class:`goap.CspPipeline` and :class:`goap.Mcts`;
    when ``transition_model`` is given, the default MCTS samples from it. Constraints the
    features see are those of every :class:`goap.CspPipeline` among ``strategies`` (and of a
    :class:`goap.ConstrainedGoal`). An unknown name from the classifier raises
    :class:`goap.ModelError` (``on_unknown="raise"``) or falls back to ``default``.
    """

    honours_constraints: ClassVar[bool] = True
    """A constrained goal is routed to a strategy that honours it, or refused (never ignored)."""

    strategies: Mapping[str, PlanningStrategy] = field(default_factory=_default_strategies)
    """Strategy name -> strategy."""
    classifier: StrategyClassifier = field(default_factory=RuleBasedClassifier)
    """Features -> strategy name."""
    transition_model: TransitionModel | None = None
    """Read for the ``is_stochastic`` and ``risk_profile`` features."""
    default: str = "astar"
    """Fallback name when ``on_unknown="default"``."""
    on_unknown: Literal["raise", "default"] = "raise"
    """What to do when the classifier names an unregistered strategy."""

    def __post_init__(self) -> None:
        strategies = dict(self.strategies)
        if self.transition_model is not None and isinstance(strategies.get("mcts"), Mcts):
            mcts = strategies["mcts"]
            assert isinstance(mcts, Mcts)
            if mcts.transition_model is None:
                strategies["mcts"] = replace(mcts, transition_model=self.transition_model)
        object.__setattr__(self, "strategies", MappingProxyType(strategies))
        if self.on_unknown not in ("raise", "default"):
            raise ModelError(f"on_unknown must be 'raise' or 'default', got {self.on_unknown!r}")
        if self.on_unknown == "default" and self.default not in strategies:
            raise ModelError(f"default {self.default!r} is not a registered strategy: {sorted(strategies)}")

    @property
    def name(self) -> str:
        """``router(<registered names>)``."""
        return f"router({', '.join(sorted(self.strategies))})"

    def _constraints(self) -> ConstraintSet:
        cs = ConstraintSet()
        for s in self.strategies.values():
            if isinstance(s, CspPipeline):
                cs = cs + ConstraintSet(s.constraints, s.objectives, s.capacities)
        return cs

    def route(
        self,
        initial: Mapping[str, Any],
        goal: GoalSpec,
        actions: Sequence[ActionSpec],
        *,
        blacklist: frozenset[str] = frozenset(),
    ) -> RoutingDecision:
        """The routing decision for this problem (pure; nothing is planned)."""
        features = extract_features(
            initial,
            goal,
            actions,
            constraints=self._constraints(),
            transition_model=self.transition_model,
            blacklist=blacklist,
        )
        clf = self.classifier
        if isinstance(clf, RuleBasedClassifier):
            name, reason = clf.decide(features)
        else:
            name = clf(features)
            reason = f"classifier {getattr(clf, '__name__', type(clf).__name__)} chose {name!r}"
        if name in self.strategies:
            return RoutingDecision(name, reason, features)
        if self.on_unknown == "raise":
            raise ModelError(
                f"the classifier chose {name!r}, which is not registered; choose one of "
                f"{sorted(self.strategies)} or pass on_unknown='default'"
            )
        return RoutingDecision(
            self.default, f"{reason}; not registered, fell back to {self.default!r}", features, requested=name
        )

    def solve(
        self,
        initial: Mapping[str, Any],
        goal: GoalSpec,
        actions: Sequence[ActionSpec],
        *,
        blacklist: frozenset[str] = frozenset(),
    ) -> PlanResult:
        """Route, then plan with the chosen strategy; ``PlanResult.routing`` says which and why."""
        decision = self.route(initial, goal, actions, blacklist=blacklist)
        chosen = self.strategies[decision.chosen]
        if not goal_constraints(goal).empty and not honours_constraints(chosen):
            refuse_constraints(f"{self.name} -> {decision.chosen}: {chosen.name}", goal)
        result = chosen.solve(initial, goal, actions, blacklist=blacklist)
        return result.with_report(decision)
