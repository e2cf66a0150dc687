"""LangGOAP's GOAP loop as a LangGraph graph, running goap.runtime's planner, executor and observer."""

from goap.compat.graph.builder import GoapGraph as GoapGraph
from goap.compat.graph.nodes import GoapExecutor as GoapExecutor
from goap.compat.graph.nodes import GoapObserver as GoapObserver
from goap.compat.graph.nodes import GoapPlanner as GoapPlanner
from goap.compat.graph.nodes import ParallelGoapExecutor as ParallelGoapExecutor
from goap.compat.graph.state import ActionResult as ActionResult
from goap.compat.graph.state import GoapState as GoapState
from goap.compat.graph.state import successful_action_names as successful_action_names
