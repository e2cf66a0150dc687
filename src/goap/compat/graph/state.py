"""The LangGraph state of LangGOAP's GOAP loop: a dict with LangGOAP's keys, and what one action did."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Any

from typing_extensions import TypedDict

from goap.compat.goals import GoalSpec, MultiGoal
from goap.compat.planner.types import Plan

__all__ = ["ActionResult", "GoapState", "successful_action_names"]


@dataclass
class ActionResult:
    """One executed action: its name, whether it worked, the world around it and the error."""

    action_name: str
    success: bool
    state_before: dict[str, Any] = field(default_factory=dict)
    state_after: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class GoapState(TypedDict, total=False):
    """The graph's state: world, goal, plan and the replanning bookkeeping (history accumulates)."""

    action_failure_counts: dict[str, int]
    blacklisted_actions: list[str]
    current_step: int
    current_subgoal_index: int
    execution_history: Annotated[list[ActionResult], operator.add]
    goal: GoalSpec | MultiGoal
    no_plan_explanation: dict[str, Any] | None
    plan: Plan | None
    reflection_context: list[str]
    replan_count: int
    replan_reason: str | None
    status: str
    wall_clock_started_at: float | None
    world_state: dict[str, Any]


def successful_action_names(result: GoapState) -> list[str]:
    """The names of the actions that succeeded, in order."""
    return [r.action_name for r in result["execution_history"] if r.success]
