"""The planning layer: the model (actions, conditions, goals, constraints, results), compilation,
A* search, heuristics, symmetry, explanations, problem files and type checks.

It imports the standard library only (and its optional C accelerators), never the engine, pydantic,
OpenTelemetry, OR-Tools or aiosqlite: ``python -m goap plan`` loads this layer and nothing above it.
"""

from typing import TYPE_CHECKING

from goap.planning._exports import lazy_exports

if TYPE_CHECKING:
    from goap.planning._actions import ActionSpec, CostFunction
    from goap.planning._conditions import Add, Compare, OneOf, add, eq, ge, gt, in_, le, lt, ne, sub
    from goap.planning._constraints import (
        Capacity,
        ConstrainedGoal,
        ConstraintExplanation,
        ConstraintSet,
        ConstraintViolation,
        Objective,
        ResourceConstraint,
    )
    from goap.planning._errors import (
        ModelError,
        PlanningError,
        ProblemFormatError,
        UnsupportedConstraintError,
    )
    from goap.planning._explain import NoPlanExplanation, UnreachableCondition
    from goap.planning._features import ProblemFeatures, RiskProfile, extract_features
    from goap.planning._goals import GoalSpec, MultiGoal, SoftGoal, soft_score
    from goap.planning._planner import DefaultStrategy, plan
    from goap.planning._problem import Problem, load_problem, problem_from_dict
    from goap.planning._qos import ActionQos
    from goap.planning._result import Plan, PlanResult, SearchStats, StrategyReport
    from goap.planning._schedule import Schedule, ScheduledAction, dependencies
    from goap.planning._score import BendableScore, HardSoftScore, Score, SimpleScore
    from goap.planning._strategy import STRATEGIES, AStar, GreedyBestFirst, PlanningStrategy
    from goap.planning._transitions import (
        DeterministicTransitionModel,
        DivergenceKind,
        DivergencePolicy,
        TransitionModel,
        assert_expected_matches_declared,
    )
    from goap.planning.heuristics import HEURISTICS

_EXPORTS: dict[str, str] = {
    "AStar": "goap.planning._strategy",
    "ActionQos": "goap.planning._qos",
    "ActionSpec": "goap.planning._actions",
    "Add": "goap.planning._conditions",
    "BendableScore": "goap.planning._score",
    "Capacity": "goap.planning._constraints",
    "Compare": "goap.planning._conditions",
    "ConstrainedGoal": "goap.planning._constraints",
    "ConstraintExplanation": "goap.planning._constraints",
    "ConstraintSet": "goap.planning._constraints",
    "ConstraintViolation": "goap.planning._constraints",
    "CostFunction": "goap.planning._actions",
    "DefaultStrategy": "goap.planning._planner",
    "DeterministicTransitionModel": "goap.planning._transitions",
    "DivergenceKind": "goap.planning._transitions",
    "DivergencePolicy": "goap.planning._transitions",
    "GoalSpec": "goap.planning._goals",
    "GreedyBestFirst": "goap.planning._strategy",
    "HEURISTICS": "goap.planning.heuristics",
    "HardSoftScore": "goap.planning._score",
    "ModelError": "goap.planning._errors",
    "MultiGoal": "goap.planning._goals",
    "NoPlanExplanation": "goap.planning._explain",
    "Objective": "goap.planning._constraints",
    "OneOf": "goap.planning._conditions",
    "Plan": "goap.planning._result",
    "PlanResult": "goap.planning._result",
    "PlanningError": "goap.planning._errors",
    "PlanningStrategy": "goap.planning._strategy",
    "Problem": "goap.planning._problem",
    "ProblemFeatures": "goap.planning._features",
    "ProblemFormatError": "goap.planning._errors",
    "ResourceConstraint": "goap.planning._constraints",
    "RiskProfile": "goap.planning._features",
    "STRATEGIES": "goap.planning._strategy",
    "Schedule": "goap.planning._schedule",
    "ScheduledAction": "goap.planning._schedule",
    "Score": "goap.planning._score",
    "SearchStats": "goap.planning._result",
    "SimpleScore": "goap.planning._score",
    "SoftGoal": "goap.planning._goals",
    "StrategyReport": "goap.planning._result",
    "TransitionModel": "goap.planning._transitions",
    "UnreachableCondition": "goap.planning._explain",
    "UnsupportedConstraintError": "goap.planning._errors",
    "add": "goap.planning._conditions",
    "assert_expected_matches_declared": "goap.planning._transitions",
    "dependencies": "goap.planning._schedule",
    "eq": "goap.planning._conditions",
    "extract_features": "goap.planning._features",
    "ge": "goap.planning._conditions",
    "gt": "goap.planning._conditions",
    "in_": "goap.planning._conditions",
    "le": "goap.planning._conditions",
    "load_problem": "goap.planning._problem",
    "lt": "goap.planning._conditions",
    "ne": "goap.planning._conditions",
    "plan": "goap.planning._planner",
    "problem_from_dict": "goap.planning._problem",
    "soft_score": "goap.planning._goals",
    "sub": "goap.planning._conditions",
}
"""Public name -> the module defining it (imported on first use)."""

__all__ = [
    "AStar",
    "ActionQos",
    "ActionSpec",
    "Add",
    "BendableScore",
    "Capacity",
    "Compare",
    "ConstrainedGoal",
    "ConstraintExplanation",
    "ConstraintSet",
    "ConstraintViolation",
    "CostFunction",
    "DefaultStrategy",
    "DeterministicTransitionModel",
    "DivergenceKind",
    "DivergencePolicy",
    "GoalSpec",
    "GreedyBestFirst",
    "HEURISTICS",
    "HardSoftScore",
    "ModelError",
    "MultiGoal",
    "NoPlanExplanation",
    "Objective",
    "OneOf",
    "Plan",
    "PlanResult",
    "PlanningError",
    "PlanningStrategy",
    "Problem",
    "ProblemFeatures",
    "ProblemFormatError",
    "ResourceConstraint",
    "RiskProfile",
    "STRATEGIES",
    "Schedule",
    "ScheduledAction",
    "Score",
    "SearchStats",
    "SimpleScore",
    "SoftGoal",
    "StrategyReport",
    "TransitionModel",
    "UnreachableCondition",
    "UnsupportedConstraintError",
    "add",
    "assert_expected_matches_declared",
    "dependencies",
    "eq",
    "extract_features",
    "ge",
    "gt",
    "in_",
    "le",
    "load_problem",
    "lt",
    "ne",
    "plan",
    "problem_from_dict",
    "soft_score",
    "sub",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
