"""`goap_tool(graph)`: a GOAP agent as a graphengine `Tool` (and a LangChain `StructuredTool`).

A model (or any node) can then hand a sub-task to a planner: ``ctx.call(goap_tool(graph),
{"world_state": {...}, "goal": {...}})`` runs the GOAP graph to its end and returns a summary
(status, the actions executed, the final world, the plan lineage). The call is recorded like any
tool call, so a replay of the calling run serves the summary and never re-runs the agent. The
GOAP run's id is derived from the caller's step (``<run>:<step>:<tool name>``), so a caller
that crashed and runs the step again resumes the same GOAP run instead of starting another.

The goal is a mapping of conditions (``{"published": true, "score": {"op": ">=", "value": 3}}``)
or the stored goal form (``{"conditions": ...}`` / ``{"multi": [...], "mode": ...}``).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from goap.planning import GoalSpec, MultiGoal
from goap.runtime._serialize import condition_from_json, goal_from_dict

if TYPE_CHECKING:
    from goap.runtime._graph import GoapGraph
    from goap.runtime._state import GoapState

__all__ = ["GoapTool", "goap_tool"]

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "world_state": {"type": "object", "description": "The facts that hold now (name -> value)."},
        "goal": {
            "type": "object",
            "description": 'Conditions to reach, e.g. {"published": true} or {"n": {"op": ">=", "value": 3}}.',
        },
        "run_id": {"type": "string", "description": "Optional id of the GOAP run (resumed if it exists)."},
    },
    "required": ["world_state", "goal"],
}


def _goal(doc: Any) -> GoalSpec | MultiGoal:
    if isinstance(doc, GoalSpec | MultiGoal):
        return doc
    if not isinstance(doc, Mapping):
        raise ValueError(f"goal must be an object of conditions, got {doc!r}")
    if "conditions" in doc or "multi" in doc:
        return goal_from_dict(doc)
    return GoalSpec({str(k): condition_from_json(v) for k, v in doc.items()})


def summary(run_id: str, s: GoapState) -> dict[str, Any]:
    """What the tool returns for a finished (or paused) GOAP run."""
    return {
        "run_id": run_id,
        "status": s.status,
        "achieved": s.status == "achieved",
        "executed": [
            {"action": o.action, "success": o.success, "error": o.error} for o in s.execution_history
        ],
        "world_state": dict(s.world_state),
        "plans": [
            {"version": v.version, "trigger": v.trigger, "plan": v.plan, "cost": v.cost}
            for v in s.plan_lineage
        ],
        "termination": s.termination,
        "pending_approval": s.pending_approval,
        "no_plan": s.no_plan_explanation,
    }


class GoapTool:
    """A `GoapGraph` behind the `graphengine.Tool` protocol (see the module docstring)."""

    def __init__(
        self, graph: GoapGraph, *, name: str = "goap_plan_and_act", description: str | None = None
    ) -> None:
        self.graph = graph
        """The agent."""
        self.name = name
        """The tool's name."""
        acts = ", ".join(sorted(graph.actions))
        self.description = description or (
            "Reach a goal by planning and executing actions (a GOAP agent). "
            f"Give the current world_state and the goal conditions. Actions: {acts}."
        )
        """What a model is told the tool does."""
        self.parameters: dict[str, Any] = _SCHEMA
        """JSON schema of the input."""

    @property
    def spec(self) -> Any:
        """The graphengine `ToolSpec` (for ``chat(..., tools=[tool.spec])``)."""
        from graphengine.models import ToolSpec

        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters)

    async def call(self, ctx: Any, input: Any) -> dict[str, Any]:
        """Run (or resume) the GOAP run for ``input`` and return its `summary`."""
        if not isinstance(input, Mapping):
            raise ValueError(f"{self.name}: input must be an object with world_state and goal, got {input!r}")
        world = input.get("world_state") or {}
        if not isinstance(world, Mapping):
            raise ValueError(f"{self.name}: world_state must be an object, got {world!r}")
        goal = _goal(input.get("goal"))
        run_id = input.get("run_id") or (
            f"{ctx.run_id}:{ctx.step}:{self.name}"
            if ctx is not None
            else f"{self.name}-{uuid.uuid4().hex[:12]}"
        )
        engine = self.graph.engine
        if await engine.store.get_run(run_id) is not None:
            final = await self.graph.resume(run_id)
        else:
            final = await self.graph.run(run_id, world, goal)
        return summary(run_id, final)

    async def __call__(
        self, world_state: Mapping[str, Any], goal: Any, run_id: str | None = None
    ) -> dict[str, Any]:
        """Call the tool directly (outside any graph)."""
        return await self.call(None, {"world_state": world_state, "goal": goal, "run_id": run_id})

    def as_langchain(self) -> Any:
        """This tool as a LangChain ``StructuredTool`` (needs ``langchain-core``)."""
        try:
            from langchain_core.tools import StructuredTool
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "goap_tool(...).as_langchain() needs langchain-core: pip install 'graphengine[langchain]'"
            ) from exc

        async def run(
            world_state: dict[str, Any], goal: dict[str, Any], run_id: str | None = None
        ) -> dict[str, Any]:
            return await self(world_state, goal, run_id)

        return StructuredTool.from_function(
            coroutine=run, name=self.name, description=self.description, args_schema=self.parameters
        )


def goap_tool(
    graph: GoapGraph, *, name: str = "goap_plan_and_act", description: str | None = None
) -> GoapTool:
    """``graph`` as a `graphengine.Tool` named ``name`` (see the module docstring)."""
    return GoapTool(graph, name=name, description=description)
