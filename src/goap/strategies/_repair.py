"""`RepairStrategy`: keep the longest still-valid prefix of the old plan and search only the rest.

When a run replans (``GoapGraph(strategy=RepairStrategy())``), the planner hands the strategy
what was left of the old plan. Repair walks it from the current world while each action is
allowed (not blacklisted), applicable and the goal is not yet reached: that is the still-valid
prefix. It then searches, with its ``base`` strategy, only from the state the prefix leaves. When
that suffix search finds nothing, it falls back to planning from scratch. A repaired plan keeps
the work already planned (useful when plans are reviewed or approved), at the price of
optimality: ``optimal`` is True only for a from-scratch plan of an optimal base.

Without an old plan (``solve``) it is its base strategy. A repaired result carries a
:class:`RepairReport`: the length of the still-valid prefix and how much of it was kept.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from goap.planning import (
    ActionSpec,
    AStar,
    GoalSpec,
    Plan,
    PlanningStrategy,
    PlanResult,
    SearchStats,
    plan_cost,
)
from goap.planning.kit import (
    SolveStart,
    StrategyBase,
    goal_constraints,
    honours_constraints,
    refuse_constraints,
)

__all__ = ["RepairReport", "RepairStrategy"]


@dataclass(frozen=True, slots=True)
class RepairReport:
    """What a repair kept of the old plan (``PlanResult.report(RepairReport)``)."""

    kind: ClassVar[str] = "repair"
    """The :class:`goap.planning.StrategyReport` kind."""

    valid_prefix: int
    """Length of the old plan's still-valid prefix."""
    kept: int
    """How many of those start the returned plan (0: planned from scratch)."""

    @property
    def message(self) -> str:
        """One line, e.g. ``kept 2 of 2 still-valid actions``."""
        return f"kept {self.kept} of {self.valid_prefix} still-valid actions"


@dataclass(frozen=True, slots=True)
class RepairStrategy(StrategyBase):
    """Plan repair around a base strategy (see the module docstring)."""

    base: PlanningStrategy = field(default_factory=AStar)
    """Searches the suffix (and plans from scratch)."""
    previous: tuple[str, ...] = ()
    """An old plan to repair when called through ``solve`` (the runtime passes it to ``repair``)."""

    @property
    def honours_constraints(self) -> bool:
        """Whether the base honours a goal's constraints (then a constrained goal is planned afresh)."""
        return honours_constraints(self.base)

    @property
    def name(self) -> str:
        """``repair(<base>)``."""
        return f"repair({self.base.name})"

    def solve_started(self, call: SolveStart) -> PlanResult:
        """Repair ``previous`` when set, else plan with the base strategy."""
        initial, goal, actions = call.initial, call.goal, call.actions
        if self.previous:
            return self.repair(initial, goal, actions, self.previous, blacklist=call.blacklist)
        return replace(self.base.solve(initial, goal, actions, blacklist=call.blacklist), strategy=self.name)

    def repair(
        self,
        initial: Mapping[str, Any],
        goal: GoalSpec,
        actions: Sequence[ActionSpec],
        previous: Sequence[str],
        *,
        blacklist: frozenset[str] = frozenset(),
    ) -> PlanResult:
        """A plan that starts with the longest still-valid prefix of ``previous`` when one can be completed.

        A constrained goal is planned from scratch by the base (which must honour it, else
        :class:`goap.UnsupportedConstraintError`): a kept prefix plus a suffix planned alone
        could together break a budget that each respects.
        """
        if not honours_constraints(self.base):
            refuse_constraints(self.name, goal)
        t0 = time.perf_counter()
        by_name = {a.name: a for a in actions}
        state: dict[str, Any] = dict(initial)
        prefix: list[ActionSpec] = []
        if not goal_constraints(goal).empty:
            previous = ()
        for n in previous:
            a = by_name.get(n)
            if a is None or n in blacklist or goal.satisfied_by(state) or not a.applicable(state):
                break
            prefix.append(a)
            state = a.apply(state)
        stats = SearchStats()
        last: PlanResult | None = None
        for keep in dict.fromkeys((len(prefix), 0)):
            start: dict[str, Any] = dict(initial)
            for a in prefix[:keep]:
                start = a.apply(start)
            res = self.base.solve(start, goal, actions, blacklist=blacklist)
            stats = stats + res.stats
            last = res
            if res.plan is not None:
                steps = (*prefix[:keep], *res.plan.actions)
                plan = Plan(steps, plan_cost(initial, steps))
                optimal = res.optimal and keep == 0
                found = PlanResult("found", plan, None, _timed(stats, t0), optimal, self.name)
                return found.with_report(RepairReport(len(prefix), keep))
        assert last is not None
        return replace(last, stats=_timed(stats, t0), strategy=self.name).with_report(
            RepairReport(len(prefix), 0)
        )


def _timed(stats: SearchStats, t0: float) -> SearchStats:
    return replace(stats, seconds=time.perf_counter() - t0)
