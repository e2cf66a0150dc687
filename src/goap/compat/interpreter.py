"""LangGOAP's goal interpreter: a model's structured output as a GoalSpec (no retries)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, cast

from pydantic import BaseModel, Field

from goap.compat.goals import ConstraintSpec, GoalSpec
from goap.compat.types import ObjectiveDirection


class InterpretedConstraint(BaseModel):
    """A bound on a resource total named in the request (hard by default)."""

    key: str = Field(description="Resource to bound, e.g. 'cost_usd'.")
    max: float | None = Field(default=None, description="Upper bound or null.")
    min: float | None = Field(default=None, description="Lower bound or null.")
    weight: float = Field(default=1.0, description="Importance, 1.0 by default.")
    level: Literal["hard", "soft"] = Field(default="hard", description="'soft' for wishes ('ideally').")


class InterpretedObjective(BaseModel):
    """A metric the request wants made small or large."""

    metric: str = Field(description="The metric.")
    direction: Literal["minimize", "maximize"] = Field(description="'minimize' or 'maximize'.")


class InterpretedGoal(BaseModel):
    """What the model read from the request; :func:`to_goal_spec` makes the goal of it."""

    conditions: dict[str, Any] = Field(default_factory=dict, description="Fact -> required scalar value.")
    constraints: list[InterpretedConstraint] = Field(default_factory=list, description="Resource bounds.")
    objectives: list[InterpretedObjective] = Field(default_factory=list, description="Metrics to optimise.")
    reasoning: str = Field(default="", description="Why these conditions.")


def build_action_catalog(actions: Sequence[Any]) -> str:
    """The actions as prompt text: name, then the non-empty preconditions, effects, description, resources."""
    blocks = []
    for a in actions:
        dynamic = getattr(a, "has_dynamic_effects", False)
        shown = {
            "Preconditions": dict(a.preconditions),
            "Effects": f"set at run time: {sorted(a.effect_key_set())}" if dynamic else dict(a.effects),
            "Description": (a.metadata or {}).get("description"),
            "Resources": dict(a.resources or {}),
        }
        blocks.append("\n".join([f"* {a.name}"] + [f"    {k}: {v}" for k, v in shown.items() if v]))
    return "\n".join(blocks) if blocks else "(no actions available)"


def to_goal_spec(interpreted: InterpretedGoal) -> GoalSpec:
    """The goal an interpretation describes; ValueError for no conditions, non-scalar values, min > max."""
    conds = interpreted.conditions
    if not conds:
        raise ValueError("the model gave empty conditions: ask for a request that names an end state")
    odd = {k: type(v).__name__ for k, v in conds.items() if not isinstance(v, bool | int | float | str)}
    if odd:
        raise ValueError(f"Non-scalar keys in the conditions (use bool, int, float, str): {odd}")
    objectives = {o.metric: ObjectiveDirection(o.direction) for o in interpreted.objectives}
    cons = tuple(ConstraintSpec(**c.model_dump()) for c in interpreted.constraints)
    objs = MappingProxyType(objectives) if objectives else None
    return GoalSpec(conditions=MappingProxyType(dict(conds)), constraints=cons, objectives=objs)


DEFAULT_SYSTEM_PROMPT = """Turn the user's request into a goal for a GOAP planner (the goal only, no plan).
Actions:\n{action_catalog}\nFacts now: {world_state}
conditions: end-state facts from the action effects, with bool/str/int/float values; constraints:
only limits the request states ("under $5": key cost_usd, max 5); objectives: metrics to minimize
("cheapest", "fastest") or maximize; reasoning: a sentence on how you read the request."""


def _default_structured_output_kwargs(llm: Any) -> dict[str, Any]:
    """OpenAI's strict schema mode rejects an open ``conditions`` object: use function calling there."""
    try:
        from langchain_openai import ChatOpenAI  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return {}
    return {"method": "function_calling"} if isinstance(llm, ChatOpenAI) else {}


class GoalInterpreter:
    """Asks ``llm.with_structured_output(InterpretedGoal)`` what a request means, over ``actions``."""

    def __init__(
        self,
        llm: Any,
        actions: Sequence[Any],
        system_prompt: str | None = None,
        structured_output_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self._llm, self._actions = llm, list(actions)
        self._system_prompt = system_prompt or DEFAULT_SYSTEM_PROMPT
        if structured_output_kwargs is None:
            structured_output_kwargs = _default_structured_output_kwargs(llm)
        self._structured_llm = llm.with_structured_output(InterpretedGoal, **structured_output_kwargs)

    def build_messages(self, request: str, world_state: Mapping[str, Any] | None) -> list[Any]:
        """The system message (catalog, world) and the request as the user's message."""
        from langchain_core.messages import HumanMessage, SystemMessage

        catalog = build_action_catalog(self._actions)
        system = self._system_prompt.format(action_catalog=catalog, world_state=str(dict(world_state or {})))
        return [SystemMessage(content=system), HumanMessage(content=request)]

    def interpret_raw(self, request: str, world_state: Mapping[str, Any] | None = None) -> InterpretedGoal:
        """The model's interpretation, reasoning included."""
        return cast(InterpretedGoal, self._structured_llm.invoke(self.build_messages(request, world_state)))

    async def ainterpret_raw(self, request: str, world_state: Mapping[str, Any] | None = None) -> Any:
        """:meth:`interpret_raw` (an :class:`InterpretedGoal`), asynchronously."""
        return await self._structured_llm.ainvoke(self.build_messages(request, world_state))

    def interpret(self, request: str, world_state: Mapping[str, Any] | None = None) -> GoalSpec:
        """The goal the request means (see :func:`to_goal_spec` for the errors)."""
        return to_goal_spec(self.interpret_raw(request, world_state))

    async def ainterpret(self, request: str, world_state: Mapping[str, Any] | None = None) -> GoalSpec:
        """:meth:`interpret`, asynchronously."""
        return to_goal_spec(await self.ainterpret_raw(request, world_state))
