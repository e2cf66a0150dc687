"""A natural-language request becomes a :class:`~goap.compat.goals.GoalSpec`, through a chat model's
structured output (LangGOAP's interpreter).

The model is shown the action catalog and the world state and answers with an
:class:`InterpretedGoal` (``with_structured_output``); :func:`to_goal_spec` checks and converts
it. Any LangChain chat model that supports structured output works. Our own runtime's
interpreter (:mod:`goap.runtime`) validates against the effects vocabulary and retries; this one
keeps LangGOAP's contract: one call, a ValueError on an unusable answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Any, Literal, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from goap.compat.actions import ActionSpec
from goap.compat.goals import ConstraintSpec, GoalSpec
from goap.compat.types import ObjectiveDirection

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "GoalInterpreter",
    "InterpretedConstraint",
    "InterpretedGoal",
    "InterpretedObjective",
    "build_action_catalog",
    "to_goal_spec",
]


class InterpretedConstraint(BaseModel):
    """A resource bound read from the request (``"under $5"``); soft for "ideally" language."""

    key: str = Field(description="Resource key (e.g. 'cost_usd', 'total_tokens')")
    max: float | None = Field(default=None, description="Upper bound, or null")
    min: float | None = Field(default=None, description="Lower bound, or null")
    weight: float = Field(default=1.0, description="Relative importance (default 1.0)")
    level: Literal["hard", "soft"] = Field(
        default="hard",
        description=(
            "'hard' (must not violate) or 'soft' (prefer not to violate; incurs a weighted penalty). "
            "Use 'soft' for language like 'ideally', 'preferably', 'nice to have'."
        ),
    )


class InterpretedObjective(BaseModel):
    """What to optimise, read from the request (``"cheapest"``)."""

    metric: str = Field(description="Metric name to optimize")
    direction: Literal["minimize", "maximize"] = Field(
        description="Optimization direction — must be 'minimize' or 'maximize'"
    )


class InterpretedGoal(BaseModel):
    """The model's answer (mutable, transient); :func:`to_goal_spec` turns it into a goal.

    ``conditions`` defaults to empty so that any answer parses; emptiness is rejected later.
    """

    conditions: dict[str, Any] = Field(
        default_factory=dict, description="Required world-state conditions (key → hashable scalar value)"
    )
    constraints: list[InterpretedConstraint] = Field(
        default_factory=list, description="Hard resource/budget constraints"
    )
    objectives: list[InterpretedObjective] = Field(
        default_factory=list, description="Optimization targets (minimize/maximize)"
    )
    reasoning: str = Field(default="", description="Brief explanation of how the goal was derived")


def build_action_catalog(actions: Sequence[ActionSpec]) -> str:
    """The actions as a bulleted list for the prompt: name, preconditions, effects, description, resources."""
    if not actions:
        return "(no actions available)"
    entries: list[str] = []
    for a in actions:
        lines = [f"- **{a.name}**"]
        shown = a.declared()
        if "preconditions" in shown:
            lines.append(f"  Preconditions: {shown['preconditions']}")
        if "effect_keys" in shown:
            lines.append(f"  Effects: <dynamic, keys={shown['effect_keys']}>")
        elif "effects" in shown:
            lines.append(f"  Effects: {shown['effects']}")
        description = (a.metadata or {}).get("description")
        if description:
            lines.append(f"  Description: {description}")
        if a.resources:
            lines.append(f"  Resources: {dict(a.resources)}")
        entries.append("\n".join(lines))
    return "\n".join(entries)


_DIRECTIONS: dict[str, ObjectiveDirection] = {
    "minimize": ObjectiveDirection.MINIMIZE,
    "maximize": ObjectiveDirection.MAXIMIZE,
}


def to_goal_spec(interpreted: InterpretedGoal) -> GoalSpec:
    """Convert the model's answer into a goal.

    Raises ValueError when there are no conditions, when a condition value is not a bool, int,
    float or str, or when a constraint's ``min > max``: the caller should ask the user to rephrase.
    """
    if not interpreted.conditions:
        raise ValueError(
            "LLM returned empty conditions — cannot create a meaningful GoalSpec. "
            "Ask the user to rephrase the request with a concrete end-state."
        )
    bad = {
        k: type(v).__name__
        for k, v in interpreted.conditions.items()
        if not isinstance(v, bool | int | float | str)
    }
    if bad:
        raise ValueError(
            f"Condition values must be bool, int, float, or str. Non-scalar keys returned by LLM: {bad}. "
            f"Ask the user to rephrase so the goal uses only scalar values."
        )
    constraints = tuple(
        ConstraintSpec(key=c.key, max=c.max, min=c.min, weight=c.weight, level=c.level)
        for c in interpreted.constraints
    )
    objectives = (
        MappingProxyType({o.metric: _DIRECTIONS[o.direction] for o in interpreted.objectives})
        if interpreted.objectives
        else None
    )
    return GoalSpec(
        conditions=MappingProxyType(interpreted.conditions), constraints=constraints, objectives=objectives
    )


DEFAULT_SYSTEM_PROMPT = """\
You are a goal interpreter for a Goal-Oriented Action Planning (GOAP) system.
Given a natural language request, extract a structured goal specification.

## Available Actions
{action_catalog}

## Current World State
{world_state}

## Instructions
1. **conditions**: Identify the desired end-state as key-value pairs. Use \
condition keys that appear in the action effects above. Values must be \
hashable scalars: bool, str, int, or float.
2. **constraints**: Extract resource constraints from budget/limit language \
(e.g. "under $5" → key="cost_usd", max=5.0). Only include constraints \
explicitly stated in the request.
3. **objectives**: Extract optimization targets from language like \
"minimize", "cheapest", "fastest", "maximize quality". Map to the \
appropriate metric and direction ("minimize" or "maximize").
4. **reasoning**: Briefly explain how you derived the goal from the request.

Return ONLY the structured goal. Do not include actions or plans.\
"""
"""The default system prompt; ``{action_catalog}`` and ``{world_state}`` are filled in."""


def _default_structured_output_kwargs(llm: BaseChatModel) -> dict[str, Any]:
    """OpenAI's strict JSON-schema mode rejects the open ``conditions`` dict: use function calling there."""
    try:
        from langchain_openai import ChatOpenAI  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return {}
    return {"method": "function_calling"} if isinstance(llm, ChatOpenAI) else {}


class GoalInterpreter:
    """Interprets requests with ``llm.with_structured_output(InterpretedGoal, **structured_output_kwargs)``.

    ``system_prompt`` must contain ``{action_catalog}`` and ``{world_state}``;
    ``structured_output_kwargs=None`` picks provider defaults (function calling for OpenAI).
    """

    def __init__(
        self,
        llm: BaseChatModel,
        actions: Sequence[ActionSpec],
        system_prompt: str | None = None,
        structured_output_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self._llm = llm
        self._actions = list(actions)
        self._system_prompt = system_prompt or DEFAULT_SYSTEM_PROMPT
        kwargs = (
            _default_structured_output_kwargs(llm)
            if structured_output_kwargs is None
            else structured_output_kwargs
        )
        self._structured_llm = llm.with_structured_output(InterpretedGoal, **kwargs)

    def build_messages(
        self, request: str, world_state: dict[str, Any] | None
    ) -> list[SystemMessage | HumanMessage]:
        """The system prompt (catalog and world state filled in) and the request."""
        system = self._system_prompt.format(
            action_catalog=build_action_catalog(self._actions),
            world_state=str(world_state) if world_state else "{}",
        )
        return [SystemMessage(content=system), HumanMessage(content=request)]

    def interpret(self, request: str, world_state: dict[str, Any] | None = None) -> GoalSpec:
        """The goal for ``request``; ValueError from :func:`to_goal_spec` on an unusable answer."""
        return to_goal_spec(self.interpret_raw(request, world_state=world_state))

    async def ainterpret(self, request: str, world_state: dict[str, Any] | None = None) -> GoalSpec:
        """Async :meth:`interpret`."""
        return to_goal_spec(await self.ainterpret_raw(request, world_state=world_state))

    def interpret_raw(self, request: str, world_state: dict[str, Any] | None = None) -> InterpretedGoal:
        """The model's answer itself (keeps ``reasoning``)."""
        return cast(InterpretedGoal, self._structured_llm.invoke(self.build_messages(request, world_state)))

    async def ainterpret_raw(
        self, request: str, world_state: dict[str, Any] | None = None
    ) -> InterpretedGoal:
        """Async :meth:`interpret_raw`."""
        return cast(
            InterpretedGoal, await self._structured_llm.ainvoke(self.build_messages(request, world_state))
        )
