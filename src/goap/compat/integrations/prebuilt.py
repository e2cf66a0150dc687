"""``create_goap_agent``: LangChain tools and a goal in, a compiled LangGraph GOAP agent out."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from goap.compat.goals import GoalSpec
from goap.compat.integrations.tools import EffectValidator, goapify_tool

_log = logging.getLogger(__name__)


def create_goap_agent(
    tools: Sequence[Any],
    goal: str | GoalSpec,
    *,
    llm: Any = None,
    preconditions: Mapping[str, dict[str, Any]] | None = None,
    effects: Mapping[str, dict[str, Any]] | None = None,
    resources: Mapping[str, dict[str, float]] | None = None,
    costs: Mapping[str, float] | None = None,
    result_keys: Mapping[str, str] | None = None,
    max_retries: Mapping[str, int] | None = None,
    durations: Mapping[str, timedelta] | None = None,
    effect_validators: Mapping[str, EffectValidator] | None = None,
    **graph_kwargs: Any,
) -> Any:
    """A compiled ``GoapGraph`` over the tools as actions; ``goap_goal`` holds the goal."""
    options = "preconditions effects resources cost result_key max_retries duration effect_validator".split()  # noqa: SIM905
    given = (preconditions, effects, resources, costs, result_keys, max_retries, durations, effect_validators)
    tables: dict[str, Mapping[str, Any] | None] = dict(zip(options, given, strict=True))
    defaults = {"cost": 1.0, "max_retries": 0}
    actions = [
        goapify_tool(t, **{opt: (tab or {}).get(t.name, defaults.get(opt)) for opt, tab in tables.items()})
        for t in tools
    ]
    if idle := [a.name for a in actions if not a.effects and not a.resources]:
        _log.warning("tools with no effects or resources are no-ops to the planner: %s", idle)
    if isinstance(goal, str):
        if llm is None:
            raise ValueError("create_goap_agent got a string goal but no llm to interpret it")
        from goap.compat.interpreter import GoalInterpreter

        goal = GoalInterpreter(llm, actions).interpret(goal)
    from goap.compat.graph.builder import GoapGraph

    compiled = GoapGraph(actions=actions).compile(**graph_kwargs)
    compiled.goap_goal = goal
    return compiled
