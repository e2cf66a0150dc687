"""Goal-oriented action planning (GOAP): model, optimal A* planner, explanations, problem files.

Pure planning, independent of the engine::

    from goap import ActionSpec, GoalSpec, plan, ge, add

    chop = ActionSpec("chop", {"axe": True}, {"wood": add(2)})
    result = plan({"axe": True, "wood": 0}, GoalSpec({"wood": ge(4)}), [chop])
    assert result.plan is not None and result.plan.names == ("chop", "chop")

The default strategy is :class:`AStar` with the LM-cut heuristic: optimal (least total cost).
"""

from goap.actions import ActionSpec, CostFunction
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
from goap.errors import ModelError, PlanningError, ProblemFormatError
from goap.explain import NoPlanExplanation, UnreachableCondition
from goap.features import ProblemFeatures, RoutingDecision, extract_features
from goap.goals import GoalSpec, MultiGoal
from goap.graph import GoapGraph
from goap.heuristics import HEURISTICS
from goap.history import ActionRecord, ExecutionHistory, MemoryExecutionHistory, StoreExecutionHistory
from goap.interpreter import AmbiguousGoalError, GoalInterpretationError, GoalInterpreter, run_nl
from goap.mcts import Mcts
from goap.nodes import GoapConfig
from goap.planner import plan
from goap.problem import Problem, load_problem, problem_from_dict
from goap.result import Plan, PlanResult, SearchStats
from goap.router import RuleBasedClassifier, StrategyClassifier, StrategyRouter
from goap.schedule import Schedule, ScheduledAction, dependencies
from goap.score import BendableScore, HardSoftScore, Score, SimpleScore
from goap.serialize import goal_from_dict, goal_to_dict
from goap.state import ActionOutcome, GoapState, GoapStatus, ReplanReason
from goap.strategies import STRATEGIES, AStar, GreedyBestFirst, PlanningStrategy
from goap.tracing import LoggingTracer, MultiTracer, NullTracer, PlanningTracer
from goap.transitions import (
    DeterministicTransitionModel,
    DivergencePolicy,
    TransitionModel,
    assert_expected_matches_declared,
)

__all__ = [
    "AStar",
    "ActionOutcome",
    "ActionRecord",
    "ActionSpec",
    "Add",
    "AmbiguousGoalError",
    "BendableScore",
    "Capacity",
    "Compare",
    "ConstrainedGoal",
    "ConstraintExplanation",
    "ConstraintSet",
    "ConstraintViolation",
    "CostFunction",
    "CspPipeline",
    "DeterministicTransitionModel",
    "DivergencePolicy",
    "ExecutionHistory",
    "GoalInterpretationError",
    "GoalInterpreter",
    "GoalSpec",
    "GoapConfig",
    "GoapGraph",
    "GoapState",
    "GoapStatus",
    "GreedyBestFirst",
    "HEURISTICS",
    "HardSoftScore",
    "LoggingTracer",
    "Mcts",
    "MemoryExecutionHistory",
    "ModelError",
    "MultiGoal",
    "MultiTracer",
    "NoPlanExplanation",
    "NullTracer",
    "Objective",
    "OneOf",
    "Plan",
    "PlanResult",
    "PlanningError",
    "PlanningStrategy",
    "PlanningTracer",
    "Problem",
    "ProblemFeatures",
    "ProblemFormatError",
    "ReplanReason",
    "ResourceConstraint",
    "RoutingDecision",
    "RuleBasedClassifier",
    "STRATEGIES",
    "Schedule",
    "ScheduledAction",
    "Score",
    "SearchStats",
    "SimpleScore",
    "SolverReport",
    "StoreExecutionHistory",
    "StrategyClassifier",
    "StrategyRouter",
    "TransitionModel",
    "UnreachableCondition",
    "add",
    "assert_expected_matches_declared",
    "dependencies",
    "eq",
    "extract_features",
    "ge",
    "goal_from_dict",
    "goal_to_dict",
    "gt",
    "in_",
    "le",
    "load_problem",
    "lt",
    "ne",
    "pipeline_plan",
    "plan",
    "problem_from_dict",
    "run_nl",
    "sub",
]
