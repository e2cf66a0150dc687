"""LangGraph nodes of the GOAP loop: planner, executor (sequential or parallel waves), observer.

    planner -> executor -> observer -> (executor | planner | END)

Mirrors ``langgoap.graph.nodes`` (langgoap 0.1.2, MIT licence, Integrallis Software), whose
semantics these nodes reproduce on :mod:`goap.compat`'s planner. The helpers are public names of
the private modules ``_helpers`` and ``_execution``; langgoap's tests import them from here with a
leading underscore, so those spellings are kept as aliases.
"""

from __future__ import annotations

from goap.compat.graph.nodes._execution import (
    apply_result,
    build_failure,
    build_guard_block,
    build_success,
    check_human_approval,
    is_approved,
    prepare_execution,
)
from goap.compat.graph.nodes._helpers import (
    is_better_plan,
    planning_keys,
    safe_tracer_acall,
    safe_tracer_call,
)
from goap.compat.graph.nodes.executor import GoapExecutor, async_execute_action
from goap.compat.graph.nodes.observer import (
    GoapObserver,
    get_last_failed_action,
    get_max_retries,
    is_goal_satisfied,
    outcome_from_status,
    resolve_active_goal,
    route_multi_goal,
    route_replan_limit,
)
from goap.compat.graph.nodes.parallel_executor import (
    ParallelGoapExecutor,
    find_parallel_group,
)
from goap.compat.graph.nodes.planner import GoapPlanner

__all__ = [
    "GoapPlanner",
    "GoapExecutor",
    "ParallelGoapExecutor",
    "GoapObserver",
    "async_execute_action",
    "find_parallel_group",
    "is_better_plan",
    "planning_keys",
    "safe_tracer_call",
    "safe_tracer_acall",
    "apply_result",
    "build_success",
    "build_failure",
    "build_guard_block",
    "is_approved",
    "check_human_approval",
    "prepare_execution",
    "get_last_failed_action",
    "get_max_retries",
    "is_goal_satisfied",
    "outcome_from_status",
    "resolve_active_goal",
    "route_multi_goal",
    "route_replan_limit",
]

# langgoap's spellings (its tests import these names).
_find_parallel_group = find_parallel_group
_is_better_plan = is_better_plan
_planning_keys = planning_keys
_safe_tracer_call = safe_tracer_call
_safe_tracer_acall = safe_tracer_acall
_apply_result = apply_result
_build_success = build_success
_build_failure = build_failure
_build_guard_block = build_guard_block
_is_approved = is_approved
_check_human_approval = check_human_approval
_prepare_execution = prepare_execution
_get_last_failed_action = get_last_failed_action
_get_max_retries = get_max_retries
_is_goal_satisfied = is_goal_satisfied
_outcome_from_status = outcome_from_status
_resolve_active_goal = resolve_active_goal
_route_multi_goal = route_multi_goal
_route_replan_limit = route_replan_limit
