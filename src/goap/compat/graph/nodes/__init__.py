"""LangGOAP's GOAP loop nodes, each running goap.runtime's node of the same name."""

from goap.compat.graph.nodes.executor import GoapExecutor, async_execute_action
from goap.compat.graph.nodes.observer import GoapObserver
from goap.compat.graph.nodes.parallel_executor import ParallelGoapExecutor
from goap.compat.graph.nodes.planner import GoapPlanner

__all__ = ["GoapExecutor", "GoapObserver", "GoapPlanner", "ParallelGoapExecutor", "async_execute_action"]
