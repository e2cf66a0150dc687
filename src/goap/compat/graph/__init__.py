"""LangGOAP's GOAP loop as a LangGraph graph, running goap.runtime's planner, executor and observer."""

from goap.compat.graph.builder import GoapGraph
from goap.compat.graph.nodes import GoapExecutor, GoapObserver, GoapPlanner, ParallelGoapExecutor
from goap.compat.graph.state import ActionResult, GoapState, successful_action_names

__all__ = [
    "ActionResult",
    "GoapExecutor",
    "GoapGraph",
    "GoapObserver",
    "GoapPlanner",
    "GoapState",
    "ParallelGoapExecutor",
    "successful_action_names",
]
