"""``goapify_tool``: a LangChain tool as a LangGOAP action whose planning facts the caller declares."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from langchain_core.tools import BaseTool

from goap.compat.actions import ActionSpec

EffectValidator = Callable[[dict[str, Any], dict[str, Any]], bool]
"""``(state before, state after) -> bool``: whether the action really did what it declared."""


def _arguments(tool: BaseTool, world: Mapping[str, Any]) -> dict[str, Any]:
    """The facts of ``world`` the tool's argument schema names (nothing for a tool without one)."""
    schema: Any = tool.args_schema
    names = schema.get("properties", ()) if isinstance(schema, dict) else getattr(schema, "model_fields", ())
    return {name: world[name] for name in names if name in world}


def goapify_tool(
    tool: BaseTool,
    *,
    preconditions: Mapping[str, Any] | None = None,
    effects: Mapping[str, Any] | None = None,
    result_key: str | None = None,
    cost: float = 1.0,
    max_retries: int = 0,
    resources: Mapping[str, float] | None = None,
    duration: timedelta | None = None,
    effect_validator: EffectValidator | None = None,
) -> ActionSpec:
    """An action calling ``tool`` with the facts it takes; ``result_key`` keeps its answer."""
    if not isinstance(tool, BaseTool):
        raise TypeError(f"goapify_tool needs a LangChain BaseTool, not {type(tool).__name__} (use @tool)")
    declared = dict(effects or {})
    if result_key is not None and result_key in declared:
        raise ValueError(f"result_key={result_key!r} collides with a declared effect; pick another fact name")

    def outcome(returned: Any) -> dict[str, Any]:
        return declared | ({} if result_key is None else {result_key: returned})

    def run(world: dict[str, Any]) -> dict[str, Any]:
        return outcome(tool.invoke(_arguments(tool, world)))

    async def arun(world: dict[str, Any]) -> dict[str, Any]:
        return outcome(await tool.ainvoke(_arguments(tool, world)))

    extra: dict[str, Any] = {"effect_validator": effect_validator, "resources": resources, "cost": cost}
    extra |= {"execute": run, "aexecute": arun, "max_retries": max_retries, "duration": duration}
    return ActionSpec(tool.name, dict(preconditions or {}), declared, **extra)
