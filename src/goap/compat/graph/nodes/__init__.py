"""LangGOAP's GOAP loop nodes, each running goap.runtime's node of the same name."""

from goap.compat.graph.nodes._helpers import (
    _find_parallel_group,
    _get_last_failed_action,
    _get_max_retries,
    _is_better_plan,
    _is_goal_satisfied,
)
from goap.compat.graph.nodes.executor import GoapExecutor, async_execute_action
from goap.compat.graph.nodes.executor import _approved as _is_approved
from goap.compat.graph.nodes.observer import GoapObserver
from goap.compat.graph.nodes.parallel_executor import ParallelGoapExecutor
from goap.compat.graph.nodes.planner import GoapPlanner

__all__ = [
    "GoapExecutor",
    "GoapObserver",
    "GoapPlanner",
    "ParallelGoapExecutor",
    "_find_parallel_group",
    "_get_last_failed_action",
    "_get_max_retries",
    "_is_approved",
    "_is_better_plan",
    "_is_goal_satisfied",
    "async_execute_action",
]
