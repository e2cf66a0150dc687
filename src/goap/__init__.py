"""Goal-oriented action planning (GOAP): model, optimal A* planner, explanations, problem files.

Pure planning, independent of the engine::

    from goap import ActionSpec, GoalSpec, plan, ge, add

    chop = ActionSpec("chop", {"axe": True}, {"wood": add(2)})
    result = plan({"axe": True, "wood": 0}, GoalSpec({"wood": ge(4)}), [chop])
    assert result.plan is not None and result.plan.names == ("chop", "chop")

The default strategy is :class:`AStar` with the LM-cut heuristic: optimal (least total cost).
"""

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
