"""LangGOAP's utility planner (one step of goap's UtilityStrategy) and the Nirvana goal."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import goap.planning as gp
import goap.strategies as gs
from goap.compat import _convert as cv
from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.types import Plan, PlanMetadata
from goap.compat.score import SimpleScore
from goap.compat.state import PlanningState, Start

__all__ = ["NIRVANA_NAME", "NirvanaGoal", "UtilityStrategy", "is_nirvana"]

NIRVANA_NAME: str = "Nirvana"
"""The conventional name of the Nirvana goal."""


class NirvanaGoal(GoalSpec):
    """A goal that never counts as reached: the run goes on until no action applies."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("conditions", {})
        super().__init__(**kwargs)


def is_nirvana(goal: Any) -> bool:
    """Whether ``goal`` is a :class:`NirvanaGoal`."""
    return isinstance(goal, NirvanaGoal)


def _utility(action: ActionSpec, state: Mapping[str, Any]) -> float:
    u = action.utility
    return 0.0 if u is None else float(u(dict(state)) if callable(u) else u)


class UtilityStrategy:
    """The applicable action of highest net value, as a one-step plan (None when nothing applies)."""

    name: str = "UtilityStrategy"

    def plan(self, start: Start, goal: GoalSpec, actions: Sequence[ActionSpec], **hints: Any) -> Plan | None:
        """One step of greedy net value; the goal is not consulted."""
        t0 = time.perf_counter()
        st = start if isinstance(start, PlanningState) else PlanningState.from_dict(start)
        black = set(hints.get("blacklisted_actions") or ())
        usable = {a.name: a for a in actions if a.name not in black}
        value = lambda a, s: _utility(usable[a.name], cv.decode_state(s))  # noqa: E731
        res = gs.UtilityStrategy(max_actions=1, positive_only=False, value_in=value).solve(
            cv.encode_state(st), gp.GoalSpec({}), cv.goap_actions(usable.values())
        )
        if res.plan is None or not res.plan.actions:
            return None
        best = usable[res.plan.actions[0].name]
        now = st.to_dict()
        cost = best.get_cost(now)
        ms = (time.perf_counter() - t0) * 1000
        meta = PlanMetadata(applicable_count=res.stats.evaluated, planning_time_ms=ms)
        return Plan((best,), (st.apply(best.get_effects(now)),), cost, meta, SimpleScore(scalar=cost))
