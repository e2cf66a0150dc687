"""Goal-oriented action planning (GOAP): model, optimal A* planner, explanations, problem files.

Pure planning, independent of the engine::

    from goap import ActionSpec, GoalSpec, plan, ge, add

    chop = ActionSpec("chop", {"axe": True}, {"wood": add(2)})
    result = plan({"axe": True, "wood": 0}, GoalSpec({"wood": ge(4)}), [chop])
    assert result.plan is not None and result.plan.names == ("chop", "chop")

The default strategy is :class:`AStar` with the LM-cut heuristic: optimal (least total cost).

The package imports nothing up front: each public name is imported from its module on first use
(PEP 562), so ``python -m goap plan`` and ``import goap.planner`` load only the planning modules,
never the engine, the stores, pydantic or OpenTelemetry that other parts of goap use.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from goap.actions import ActionSpec, CostFunction
    from goap.anytime import AnytimeStrategy
    from goap.approval import Approval
    from goap.conditions import Add, Compare, OneOf, add, eq, ge, gt, in_, le, lt, ne, sub
    from goap.constraints import (
        Capacity,
        ConstrainedGoal,
        ConstraintExplanation,
        ConstraintSet,
        ConstraintViolation,
        Objective,
        ResourceConstraint,
        SolverReport,
    )
    from goap.csp import CspPipeline, pipeline_plan
    from goap.errors import ModelError, PlanningError, ProblemFormatError, UnsupportedConstraintError
    from goap.explain import NoPlanExplanation, UnreachableCondition
    from goap.features import ProblemFeatures, RoutingDecision, extract_features
    from goap.goals import GoalSpec, MultiGoal, SoftGoal, soft_score
    from goap.graph import GoapGraph, GoapReplayReport
    from goap.guards import FunctionalGuard, Guard, GuardResult
    from goap.heuristics import HEURISTICS
    from goap.history import ActionRecord, ExecutionHistory, MemoryExecutionHistory, StoreExecutionHistory
    from goap.infeasibility import Infeasibility, InfeasibleConstraint, explain_infeasibility
    from goap.interpreter import AmbiguousGoalError, GoalInterpretationError, GoalInterpreter, run_nl
    from goap.lineage import PlanDivergence, PlanVersion
    from goap.mcts import Mcts
    from goap.nodes import GoapConfig
    from goap.planner import DefaultStrategy, plan
    from goap.problem import Problem, load_problem, problem_from_dict
    from goap.qos import ActionQos
    from goap.reflexion import Reflection, ReflexionTracer
    from goap.repair import RepairStrategy
    from goap.result import Plan, PlanResult, SearchStats
    from goap.router import RuleBasedClassifier, StrategyClassifier, StrategyRouter
    from goap.schedule import Schedule, ScheduledAction, dependencies
    from goap.score import BendableScore, HardSoftScore, Score, SimpleScore
    from goap.sensors import FunctionalSensor, Sensor
    from goap.serialize import goal_from_dict, goal_to_dict
    from goap.state import ActionOutcome, GoapState, GoapStatus, PolicyEvent, ReplanReason
    from goap.strategies import STRATEGIES, AStar, GreedyBestFirst, PlanningStrategy
    from goap.stuck import FunctionalStuckHandler, StuckHandler, StuckResolution
    from goap.termination import (
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
    from goap.tool import GoapTool, goap_tool
    from goap.tracing import LoggingTracer, MultiTracer, NullTracer, PlanningTracer
    from goap.transitions import (
        DeterministicTransitionModel,
        DivergencePolicy,
        TransitionModel,
        assert_expected_matches_declared,
    )
    from goap.utility import UtilityStrategy
    from goap.visualize import plan_to_dot, plan_to_gantt, plan_to_mermaid

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
    "AStar": "goap.strategies",
    "ActionOutcome": "goap.state",
    "ActionQos": "goap.qos",
    "ActionRecord": "goap.history",
    "ActionSpec": "goap.actions",
    "Add": "goap.conditions",
    "AllOf": "goap.termination",
    "AmbiguousGoalError": "goap.interpreter",
    "AnytimeStrategy": "goap.anytime",
    "Approval": "goap.approval",
    "BendableScore": "goap.score",
    "Capacity": "goap.constraints",
    "Compare": "goap.conditions",
    "ConstrainedGoal": "goap.constraints",
    "ConstraintExplanation": "goap.constraints",
    "ConstraintSet": "goap.constraints",
    "ConstraintViolation": "goap.constraints",
    "CostFunction": "goap.actions",
    "CspPipeline": "goap.csp",
    "DefaultStrategy": "goap.planner",
    "DeterministicTransitionModel": "goap.transitions",
    "DivergencePolicy": "goap.transitions",
    "ExecutionHistory": "goap.history",
    "FirstOf": "goap.termination",
    "FunctionalGuard": "goap.guards",
    "FunctionalSensor": "goap.sensors",
    "FunctionalStuckHandler": "goap.stuck",
    "GoalInterpretationError": "goap.interpreter",
    "GoalInterpreter": "goap.interpreter",
    "GoalSpec": "goap.goals",
    "GoapConfig": "goap.nodes",
    "GoapGraph": "goap.graph",
    "GoapReplayReport": "goap.graph",
    "GoapState": "goap.state",
    "GoapStatus": "goap.state",
    "GoapTool": "goap.tool",
    "GreedyBestFirst": "goap.strategies",
    "Guard": "goap.guards",
    "GuardResult": "goap.guards",
    "HEURISTICS": "goap.heuristics",
    "HardSoftScore": "goap.score",
    "Infeasibility": "goap.infeasibility",
    "InfeasibleConstraint": "goap.infeasibility",
    "LoggingTracer": "goap.tracing",
    "MaxActions": "goap.termination",
    "MaxCost": "goap.termination",
    "MaxLLMCalls": "goap.termination",
    "MaxTokens": "goap.termination",
    "MaxWallClock": "goap.termination",
    "Mcts": "goap.mcts",
    "MemoryExecutionHistory": "goap.history",
    "ModelError": "goap.errors",
    "MultiGoal": "goap.goals",
    "MultiTracer": "goap.tracing",
    "NoPlanExplanation": "goap.explain",
    "NullTracer": "goap.tracing",
    "Objective": "goap.constraints",
    "OnStuck": "goap.termination",
    "OneOf": "goap.conditions",
    "Plan": "goap.result",
    "PlanDivergence": "goap.lineage",
    "PlanResult": "goap.result",
    "PlanVersion": "goap.lineage",
    "PlanningError": "goap.errors",
    "PlanningStrategy": "goap.strategies",
    "PlanningTracer": "goap.tracing",
    "PolicyEvent": "goap.state",
    "Problem": "goap.problem",
    "ProblemFeatures": "goap.features",
    "ProblemFormatError": "goap.errors",
    "Reflection": "goap.reflexion",
    "ReflexionTracer": "goap.reflexion",
    "RepairStrategy": "goap.repair",
    "ReplanReason": "goap.state",
    "ResourceConstraint": "goap.constraints",
    "RoutingDecision": "goap.features",
    "RuleBasedClassifier": "goap.router",
    "STRATEGIES": "goap.strategies",
    "Schedule": "goap.schedule",
    "ScheduledAction": "goap.schedule",
    "Score": "goap.score",
    "SearchStats": "goap.result",
    "Sensor": "goap.sensors",
    "SimpleScore": "goap.score",
    "SoftGoal": "goap.goals",
    "SolverReport": "goap.constraints",
    "StoreExecutionHistory": "goap.history",
    "StrategyClassifier": "goap.router",
    "StrategyRouter": "goap.router",
    "StuckHandler": "goap.stuck",
    "StuckResolution": "goap.stuck",
    "Termination": "goap.termination",
    "TerminationPolicy": "goap.termination",
    "TransitionModel": "goap.transitions",
    "UnreachableCondition": "goap.explain",
    "UnsupportedConstraintError": "goap.errors",
    "UtilityStrategy": "goap.utility",
    "add": "goap.conditions",
    "assert_expected_matches_declared": "goap.transitions",
    "dependencies": "goap.schedule",
    "eq": "goap.conditions",
    "explain_infeasibility": "goap.infeasibility",
    "extract_features": "goap.features",
    "ge": "goap.conditions",
    "goal_from_dict": "goap.serialize",
    "goal_to_dict": "goap.serialize",
    "goap_tool": "goap.tool",
    "gt": "goap.conditions",
    "in_": "goap.conditions",
    "le": "goap.conditions",
    "load_problem": "goap.problem",
    "lt": "goap.conditions",
    "ne": "goap.conditions",
    "pipeline_plan": "goap.csp",
    "plan": "goap.planner",
    "plan_to_dot": "goap.visualize",
    "plan_to_gantt": "goap.visualize",
    "plan_to_mermaid": "goap.visualize",
    "problem_from_dict": "goap.problem",
    "run_nl": "goap.interpreter",
    "soft_score": "goap.goals",
    "sub": "goap.conditions",
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
