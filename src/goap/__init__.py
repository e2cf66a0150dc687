"""Goal-oriented action planning (GOAP): model, optimal A* planner, explanations, problem files.

Pure planning, independent of the engine::

    from goap import ActionSpec, GoalSpec, plan, ge, add

    chop = ActionSpec("chop", {"axe": True}, {"wood": add(2)})
    result = plan({"axe": True, "wood": 0}, GoalSpec({"wood": ge(4)}), [chop])
    assert result.plan is not None and result.plan.names == ("chop", "chop")

The default strategy is :class:`AStar` with the LM-cut heuristic: optimal (least total cost).

The package is in three layers that import downward only (import-linter contracts in
pyproject.toml): :mod:`goap.planning` (the model, A*, heuristics; standard library only),
:mod:`goap.planning._strategy` (CP-SAT pipeline, MCTS, repair, router...) and :mod:`goap.runtime` (the
engine graph and its policies). It imports nothing up front: each public name is imported from its
module on first use (PEP 562), so ``python -m goap plan`` and ``goap.plan`` load only planning
modules, never the engine, the stores, pydantic or OpenTelemetry that other parts of goap use.
"""

import importlib
from typing import TYPE_CHECKING, Any

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
        SolverReport,
    )
    from goap.planning._errors import (
        ModelError,
        PlanningError,
        ProblemFormatError,
        UnsupportedConstraintError,
    )
    from goap.planning._explain import NoPlanExplanation, UnreachableCondition
    from goap.planning._features import ProblemFeatures, RoutingDecision, extract_features
    from goap.planning._goals import GoalSpec, MultiGoal, SoftGoal, soft_score
    from goap.planning._planner import DefaultStrategy, plan
    from goap.planning._problem import Problem, load_problem, problem_from_dict
    from goap.planning._qos import ActionQos
    from goap.planning._result import Plan, PlanResult, SearchStats
    from goap.planning._schedule import Schedule, ScheduledAction, dependencies
    from goap.planning._score import BendableScore, HardSoftScore, Score, SimpleScore
    from goap.planning._strategy import STRATEGIES, AStar, GreedyBestFirst, PlanningStrategy
    from goap.planning._transitions import (
        DeterministicTransitionModel,
        DivergencePolicy,
        TransitionModel,
        assert_expected_matches_declared,
    )
    from goap.planning.heuristics import HEURISTICS
    from goap.runtime._approval import Approval
    from goap.runtime._config import GoapConfig
    from goap.runtime._graph import GoapGraph, GoapReplayReport
    from goap.runtime._guards import FunctionalGuard, Guard, GuardResult
    from goap.runtime._history import (
        ActionRecord,
        ExecutionHistory,
        MemoryExecutionHistory,
        StoreExecutionHistory,
    )
    from goap.runtime._interpreter import AmbiguousGoalError, GoalInterpretationError, GoalInterpreter, run_nl
    from goap.runtime._lineage import PlanDivergence, PlanVersion
    from goap.runtime._reflexion import Reflection, ReflexionTracer
    from goap.runtime._sensors import FunctionalSensor, Sensor
    from goap.runtime._serialize import goal_from_dict, goal_to_dict
    from goap.runtime._state import ActionOutcome, GoapState, GoapStatus, PolicyEvent, ReplanReason
    from goap.runtime._stuck import FunctionalStuckHandler, StuckHandler, StuckResolution
    from goap.runtime._termination import (
        AllOf,
        FirstOf,
        MaxActions,
        MaxCost,
        MaxLLMCalls,
        MaxTokens,
        MaxWallClock,
        OnStuck,
        Termination,
        TerminationPolicy,
    )
    from goap.runtime._tool import GoapTool, goap_tool
    from goap.runtime._tracing import LoggingTracer, MultiTracer, NullTracer, PlanningTracer
    from goap.runtime._visualize import plan_to_dot, plan_to_gantt, plan_to_mermaid
    from goap.strategies._anytime import AnytimeStrategy
    from goap.strategies._csp import CspPipeline, pipeline_plan
    from goap.strategies._infeasibility import Infeasibility, InfeasibleConstraint, explain_infeasibility
    from goap.strategies._mcts import Mcts
    from goap.strategies._repair import RepairStrategy
    from goap.strategies._router import RuleBasedClassifier, StrategyClassifier, StrategyRouter
    from goap.strategies._utility import UtilityStrategy

__all__ = [
    "AStar",
    "ActionOutcome",
    "ActionQos",
    "ActionRecord",
    "ActionSpec",
    "Add",
    "AllOf",
    "AmbiguousGoalError",
    "AnytimeStrategy",
    "Approval",
    "BendableScore",
    "Capacity",
    "Compare",
    "ConstrainedGoal",
    "ConstraintExplanation",
    "ConstraintSet",
    "ConstraintViolation",
    "CostFunction",
    "CspPipeline",
    "DefaultStrategy",
    "DeterministicTransitionModel",
    "DivergencePolicy",
    "ExecutionHistory",
    "FirstOf",
    "FunctionalGuard",
    "FunctionalSensor",
    "FunctionalStuckHandler",
    "GoalInterpretationError",
    "GoalInterpreter",
    "GoalSpec",
    "GoapConfig",
    "GoapGraph",
    "GoapReplayReport",
    "GoapState",
    "GoapStatus",
    "GoapTool",
    "GreedyBestFirst",
    "Guard",
    "GuardResult",
    "HEURISTICS",
    "HardSoftScore",
    "Infeasibility",
    "InfeasibleConstraint",
    "LoggingTracer",
    "MaxActions",
    "MaxCost",
    "MaxLLMCalls",
    "MaxTokens",
    "MaxWallClock",
    "Mcts",
    "MemoryExecutionHistory",
    "ModelError",
    "MultiGoal",
    "MultiTracer",
    "NoPlanExplanation",
    "NullTracer",
    "Objective",
    "OnStuck",
    "OneOf",
    "Plan",
    "PlanDivergence",
    "PlanResult",
    "PlanVersion",
    "PlanningError",
    "PlanningStrategy",
    "PlanningTracer",
    "PolicyEvent",
    "Problem",
    "ProblemFeatures",
    "ProblemFormatError",
    "Reflection",
    "ReflexionTracer",
    "RepairStrategy",
    "ReplanReason",
    "ResourceConstraint",
    "RoutingDecision",
    "RuleBasedClassifier",
    "STRATEGIES",
    "Schedule",
    "ScheduledAction",
    "Score",
    "SearchStats",
    "Sensor",
    "SimpleScore",
    "SoftGoal",
    "SolverReport",
    "StoreExecutionHistory",
    "StrategyClassifier",
    "StrategyRouter",
    "StuckHandler",
    "StuckResolution",
    "Termination",
    "TerminationPolicy",
    "TransitionModel",
    "UnreachableCondition",
    "UnsupportedConstraintError",
    "UtilityStrategy",
    "add",
    "assert_expected_matches_declared",
    "dependencies",
    "eq",
    "explain_infeasibility",
    "extract_features",
    "ge",
    "goal_from_dict",
    "goal_to_dict",
    "goap_tool",
    "gt",
    "in_",
    "le",
    "load_problem",
    "lt",
    "ne",
    "pipeline_plan",
    "plan",
    "plan_to_dot",
    "plan_to_gantt",
    "plan_to_mermaid",
    "problem_from_dict",
    "run_nl",
    "soft_score",
    "sub",
]

_EXPORTS: dict[str, str] = {
    "AStar": "goap.planning._strategy",
    "ActionOutcome": "goap.runtime._state",
    "ActionQos": "goap.planning._qos",
    "ActionRecord": "goap.runtime._history",
    "ActionSpec": "goap.planning._actions",
    "Add": "goap.planning._conditions",
    "AllOf": "goap.runtime._termination",
    "AmbiguousGoalError": "goap.runtime._interpreter",
    "AnytimeStrategy": "goap.strategies._anytime",
    "Approval": "goap.runtime._approval",
    "BendableScore": "goap.planning._score",
    "Capacity": "goap.planning._constraints",
    "Compare": "goap.planning._conditions",
    "ConstrainedGoal": "goap.planning._constraints",
    "ConstraintExplanation": "goap.planning._constraints",
    "ConstraintSet": "goap.planning._constraints",
    "ConstraintViolation": "goap.planning._constraints",
    "CostFunction": "goap.planning._actions",
    "CspPipeline": "goap.strategies._csp",
    "DefaultStrategy": "goap.planning._planner",
    "DeterministicTransitionModel": "goap.planning._transitions",
    "DivergencePolicy": "goap.planning._transitions",
    "ExecutionHistory": "goap.runtime._history",
    "FirstOf": "goap.runtime._termination",
    "FunctionalGuard": "goap.runtime._guards",
    "FunctionalSensor": "goap.runtime._sensors",
    "FunctionalStuckHandler": "goap.runtime._stuck",
    "GoalInterpretationError": "goap.runtime._interpreter",
    "GoalInterpreter": "goap.runtime._interpreter",
    "GoalSpec": "goap.planning._goals",
    "GoapConfig": "goap.runtime._config",
    "GoapGraph": "goap.runtime._graph",
    "GoapReplayReport": "goap.runtime._graph",
    "GoapState": "goap.runtime._state",
    "GoapStatus": "goap.runtime._state",
    "GoapTool": "goap.runtime._tool",
    "GreedyBestFirst": "goap.planning._strategy",
    "Guard": "goap.runtime._guards",
    "GuardResult": "goap.runtime._guards",
    "HEURISTICS": "goap.planning.heuristics",
    "HardSoftScore": "goap.planning._score",
    "Infeasibility": "goap.strategies._infeasibility",
    "InfeasibleConstraint": "goap.strategies._infeasibility",
    "LoggingTracer": "goap.runtime._tracing",
    "MaxActions": "goap.runtime._termination",
    "MaxCost": "goap.runtime._termination",
    "MaxLLMCalls": "goap.runtime._termination",
    "MaxTokens": "goap.runtime._termination",
    "MaxWallClock": "goap.runtime._termination",
    "Mcts": "goap.strategies._mcts",
    "MemoryExecutionHistory": "goap.runtime._history",
    "ModelError": "goap.planning._errors",
    "MultiGoal": "goap.planning._goals",
    "MultiTracer": "goap.runtime._tracing",
    "NoPlanExplanation": "goap.planning._explain",
    "NullTracer": "goap.runtime._tracing",
    "Objective": "goap.planning._constraints",
    "OnStuck": "goap.runtime._termination",
    "OneOf": "goap.planning._conditions",
    "Plan": "goap.planning._result",
    "PlanDivergence": "goap.runtime._lineage",
    "PlanResult": "goap.planning._result",
    "PlanVersion": "goap.runtime._lineage",
    "PlanningError": "goap.planning._errors",
    "PlanningStrategy": "goap.planning._strategy",
    "PlanningTracer": "goap.runtime._tracing",
    "PolicyEvent": "goap.runtime._state",
    "Problem": "goap.planning._problem",
    "ProblemFeatures": "goap.planning._features",
    "ProblemFormatError": "goap.planning._errors",
    "Reflection": "goap.runtime._reflexion",
    "ReflexionTracer": "goap.runtime._reflexion",
    "RepairStrategy": "goap.strategies._repair",
    "ReplanReason": "goap.runtime._state",
    "ResourceConstraint": "goap.planning._constraints",
    "RoutingDecision": "goap.planning._features",
    "RuleBasedClassifier": "goap.strategies._router",
    "STRATEGIES": "goap.planning._strategy",
    "Schedule": "goap.planning._schedule",
    "ScheduledAction": "goap.planning._schedule",
    "Score": "goap.planning._score",
    "SearchStats": "goap.planning._result",
    "Sensor": "goap.runtime._sensors",
    "SimpleScore": "goap.planning._score",
    "SoftGoal": "goap.planning._goals",
    "SolverReport": "goap.planning._constraints",
    "StoreExecutionHistory": "goap.runtime._history",
    "StrategyClassifier": "goap.strategies._router",
    "StrategyRouter": "goap.strategies._router",
    "StuckHandler": "goap.runtime._stuck",
    "StuckResolution": "goap.runtime._stuck",
    "Termination": "goap.runtime._termination",
    "TerminationPolicy": "goap.runtime._termination",
    "TransitionModel": "goap.planning._transitions",
    "UnreachableCondition": "goap.planning._explain",
    "UnsupportedConstraintError": "goap.planning._errors",
    "UtilityStrategy": "goap.strategies._utility",
    "add": "goap.planning._conditions",
    "assert_expected_matches_declared": "goap.planning._transitions",
    "dependencies": "goap.planning._schedule",
    "eq": "goap.planning._conditions",
    "explain_infeasibility": "goap.strategies._infeasibility",
    "extract_features": "goap.planning._features",
    "ge": "goap.planning._conditions",
    "goal_from_dict": "goap.runtime._serialize",
    "goal_to_dict": "goap.runtime._serialize",
    "goap_tool": "goap.runtime._tool",
    "gt": "goap.planning._conditions",
    "in_": "goap.planning._conditions",
    "le": "goap.planning._conditions",
    "load_problem": "goap.planning._problem",
    "lt": "goap.planning._conditions",
    "ne": "goap.planning._conditions",
    "pipeline_plan": "goap.strategies._csp",
    "plan": "goap.planning._planner",
    "plan_to_dot": "goap.runtime._visualize",
    "plan_to_gantt": "goap.runtime._visualize",
    "plan_to_mermaid": "goap.runtime._visualize",
    "problem_from_dict": "goap.planning._problem",
    "run_nl": "goap.runtime._interpreter",
    "soft_score": "goap.planning._goals",
    "sub": "goap.planning._conditions",
}
"""Public name -> the module defining it (imported on first use)."""


def __getattr__(name: str) -> Any:
    # The first use of a public name imports its module; the value is then cached on the package.
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'goap' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
