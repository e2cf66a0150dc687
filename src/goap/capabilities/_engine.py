"""Run a capability :class:`CapabilityPlan` on the engine: one node per action, calling its bound ``Tool``.

Actions are grouped into dependency layers (:meth:`CapabilityPlan.layers`); a layer of one action is a
plain hop, a layer of several is a fan-out whose branches run concurrently and whose results are
merged in plan order by a join node. Every tool call goes through ``ctx.call``, so results are
recorded with the step and a replay serves them instead of calling the tools again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, Field

from goap.capabilities._errors import InvalidCapability
from goap.capabilities._model import CapabilityPlan, PlannedAction
from graphengine import Context, Engine, NodeResult, Options, Tool, merge

__all__ = ["PlanRunState", "plan_to_engine"]


class PlanRunState(BaseModel):
    """State of a plan run: each finished action's tool result, by action id."""

    results: Annotated[dict[str, Any], merge] = Field(default_factory=dict)
    """Action id -> the JSON result its tool returned (merged as branches land, in plan order)."""


class _ActionNode:
    """Calls one action's tool with its arguments and stores the result under the action id."""

    def __init__(self, action: PlannedAction, tool: Tool | Any) -> None:
        self.action = action
        self.tool = tool
        self.args = dict(action.args)

    async def run(self, ctx: Context, state: PlanRunState) -> NodeResult[PlanRunState]:
        out = await ctx.call(self.tool, self.args, name=self.action.tool)
        return NodeResult(delta=PlanRunState(results={self.action.action_id: out}))


def _join(ctx: Context, state: PlanRunState) -> NodeResult[PlanRunState]:
    return NodeResult()


def plan_to_engine(
    plan: CapabilityPlan, tools: Mapping[str, Tool | Any], *, engine: Engine[PlanRunState] | None = None
) -> Engine[PlanRunState]:
    """An engine whose run executes ``plan``: dependencies respected, independent actions fanned out.

    ``tools`` maps each tool name of the plan to a :class:`graphengine.Tool` (or any callable of
    one argument, sync or async); it receives the action's ``args`` as a dict. Node ids are the
    action ids; fan-out layers join at ``join<k>``, and a plan starting with several independent
    actions starts at a no-op ``start`` node. Pass ``engine`` (an empty ``Engine(PlanRunState)``
    with your store and options) to choose where runs are persisted.

    Raises :class:`InvalidCapability` naming a tool of the plan that has no binding.
    """
    missing = sorted({a.tool for a in plan.actions} - set(tools))
    if missing:
        raise InvalidCapability(
            "tools", f"plan uses tools {missing} with no Tool bound; pass tools={{name: Tool}}"
        )
    eng = (
        engine
        if engine is not None
        else Engine(PlanRunState, options=Options(max_steps=10 * len(plan.actions) + 10))
    )
    for a in plan.actions:
        eng.add(a.action_id, _ActionNode(a, tools[a.tool]))
    prev: str | None = None
    for k, layer in enumerate(plan.layers()):
        if len(layer) == 1:
            if prev is None:
                eng.start_at(layer[0])
            else:
                eng.connect(prev, layer[0])
            prev = layer[0]
            continue
        if prev is None:
            eng.add("start", _join)
            eng.start_at("start")
            prev = "start"
        join = f"join{k}"
        eng.add(join, _join)
        eng.connect(prev, list(layer), join=join)
        prev = join
    eng.validate()
    return eng
