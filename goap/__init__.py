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
from goap.errors import ModelError, PlanningError, ProblemFormatError
from goap.explain import NoPlanExplanation, UnreachableCondition
from goap.goals import GoalSpec, MultiGoal
from goap.heuristics import HEURISTICS
from goap.planner import plan
from goap.problem import Problem, load_problem, problem_from_dict
from goap.result import Plan, PlanResult, SearchStats
from goap.strategies import STRATEGIES, AStar, GreedyBestFirst, PlanningStrategy

__all__ = [
    "AStar",
    "ActionSpec",
    "Add",
    "Compare",
    "CostFunction",
    "GoalSpec",
    "GreedyBestFirst",
    "HEURISTICS",
    "ModelError",
    "MultiGoal",
    "NoPlanExplanation",
    "OneOf",
    "Plan",
    "PlanResult",
    "PlanningError",
    "PlanningStrategy",
    "Problem",
    "ProblemFormatError",
    "STRATEGIES",
    "SearchStats",
    "UnreachableCondition",
    "add",
    "eq",
    "ge",
    "gt",
    "in_",
    "le",
    "load_problem",
    "lt",
    "ne",
    "plan",
    "problem_from_dict",
    "sub",
]
