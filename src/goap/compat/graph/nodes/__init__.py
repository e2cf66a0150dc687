"""LangGOAP's GOAP loop nodes, each running goap.runtime's node of the same name."""

from goap.compat.graph.nodes._helpers import _find_parallel_group as _find_parallel_group
from goap.compat.graph.nodes._helpers import _get_last_failed_action as _get_last_failed_action
from goap.compat.graph.nodes._helpers import _get_max_retries as _get_max_retries
from goap.compat.graph.nodes._helpers import _is_better_plan as _is_better_plan
from goap.compat.graph.nodes._helpers import _is_goal_satisfied as _is_goal_satisfied
from goap.compat.graph.nodes.executor import GoapExecutor as GoapExecutor
from goap.compat.graph.nodes.executor import _approved as _is_approved  # noqa: F401
from goap.compat.graph.nodes.executor import async_execute_action as async_execute_action
from goap.compat.graph.nodes.observer import GoapObserver as GoapObserver
from goap.compat.graph.nodes.parallel_executor import ParallelGoapExecutor as ParallelGoapExecutor
from goap.compat.graph.nodes.planner import GoapPlanner as GoapPlanner
