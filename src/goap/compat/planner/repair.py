"""LangGOAP's plan repair over goap's RepairStrategy (valid prefix kept, the rest replanned)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import goap.strategies as gs
from goap.compat import _convert as cv
from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.types import Plan
from goap.compat.state import PlanningState, Start

__all__ = ["RepairResult", "RepairStrategy", "repair_plan"]


@dataclass(slots=True, frozen=True)
class RepairResult:
    """A repair's plan (None: failed) and what it kept of the old one."""

    repaired_plan: Plan | None
    repair_applied: bool
    valid_prefix_length: int  # old actions still applicable in a row
    suffix_replanned: bool
    suffix_length: int


def repair_plan(
    plan: Plan,
    current_state: PlanningState | Mapping[str, Any],
    goal: GoalSpec,
    actions: Sequence[ActionSpec],
    *,
    current_step: int = 0,
    blacklisted_actions: Iterable[str] | None = None,
) -> RepairResult:
    """Repair ``plan`` from step ``current_step`` on, in ``current_state``."""
    st = current_state if isinstance(current_state, PlanningState) else PlanningState.from_dict(current_state)
    if st.satisfies(goal.conditions):
        return RepairResult(Plan.empty(), False, 0, False, 0)
    t0 = time.monotonic()
    old, black = [a.name for a in plan.actions[current_step:]], frozenset(blacklisted_actions or ())
    repairer = gs.RepairStrategy(cv.LANGGOAP_ASTAR)
    res = repairer.repair(*cv.problem(st, goal, cv.by_specificity(actions)), old, blacklist=black)
    rep = res.report(gs.RepairReport)
    valid = rep.valid_prefix if rep is not None else 0
    kept = rep.kept if rep is not None else 0
    if res.plan is None or kept != valid:  # the suffix after the kept prefix failed
        return RepairResult(None, valid > 0, valid, True, 0)
    by_name = {a.name: a for a in actions}
    steps = [by_name[a.name] for a in res.plan.actions]
    ms = (time.monotonic() - t0) * 1000.0
    return RepairResult(
        cv.to_plan(steps, st, nodes=res.stats.expanded, ms=ms), valid > 0, valid, True, len(steps) - valid
    )


class RepairStrategy:
    """Repairs ``prior_plan`` when given (and a prefix survives), else plans with ``inner`` (A* by default)."""

    def __init__(self, inner: Any = None) -> None:
        if inner is None:
            from goap.compat.planner.strategy import AStarStrategy

            inner = AStarStrategy()
        self._inner = inner

    def plan(self, start: Start, goal: GoalSpec, actions: Sequence[ActionSpec], **hints: Any) -> Plan | None:
        """A repaired plan of ``prior_plan`` from ``current_step`` (hints), or the inner strategy's."""
        black, prior = hints.get("blacklisted_actions"), hints.get("prior_plan")
        if prior is not None:
            step = hints.get("current_step", 0)
            r = repair_plan(prior, start, goal, actions, current_step=step, blacklisted_actions=black)
            if r.repair_applied and r.repaired_plan is not None:
                return r.repaired_plan
        return self._inner.plan(start, goal, actions, blacklisted_actions=black)  # type: ignore[no-any-return]
