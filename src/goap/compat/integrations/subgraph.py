"""A GOAP agent as one node of a LangGraph application, behind two keys of the parent's state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from goap.compat.goals import GoalSpec


class GoapSubgraph:
    """Actions and a goal, compiled on demand into the GOAP graph (``{"world_state", "goal"}`` in)."""

    def __init__(self, actions: Sequence[Any], goal: GoalSpec) -> None:
        self.actions = actions
        """The actions planned with."""
        self.goal = goal
        """The goal the parent node pursues."""

    def compile(self, **kwargs: Any) -> Any:
        """``GoapGraph(actions).compile(**kwargs)``: a LangGraph ``CompiledStateGraph``."""
        from goap.compat.graph.builder import GoapGraph

        return GoapGraph(actions=list(self.actions)).compile(**kwargs)


def add_goap_subgraph(
    parent_builder: Any,
    *,
    name: str,
    actions: Sequence[Any],
    goal: GoalSpec,
    input_key: str = "world_state",
    output_key: str = "plan_result",
) -> None:
    """Add node ``name`` running the agent from ``state[input_key]`` into ``state[output_key]``."""
    agent = GoapSubgraph(actions, goal).compile()

    def node(state: dict[str, Any]) -> dict[str, Any]:
        final = agent.invoke({"world_state": dict(state.get(input_key) or {}), "goal": goal})
        return {output_key: dict(final)}

    parent_builder.add_node(name, node)
