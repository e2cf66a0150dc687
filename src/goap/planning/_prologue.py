"""The start every strategy's ``solve`` shares: refuse a goal it cannot honour, start the clock, merge
the blacklists, drop blacklisted actions, and answer "no plan" when relaxed reachability proves it.

Strategies differ after this point only; keeping the start in one place keeps their answers to the
same unreachable or constrained goal the same.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from goap.planning._actions import ActionSpec
from goap.planning._goals import GoalSpec
from goap.planning._result import PlanResult, SearchStats

__all__ = ["SolveStart", "start_solve"]


@dataclass(frozen=True, slots=True)
class SolveStart:
    """A ``solve`` call after its common start."""

    name: str
    """The strategy's name, reported in ``PlanResult.strategy``."""
    t0: float
    """``time.perf_counter()`` when the call started."""
    black: frozenset[str]
    """The strategy's own blacklist and the call's together."""
    usable: Sequence[ActionSpec]
    """The actions not blacklisted (the given sequence itself when nothing is)."""

    def seconds(self) -> float:
        """Wall time since the call started."""
        return time.perf_counter() - self.t0

    def unreachable(
        self, initial: Mapping[str, Any], goal: GoalSpec, actions: Sequence[ActionSpec], *, optimal: bool
    ) -> PlanResult | None:
        """A ``"no_plan"`` result when relaxed reachability proves the goal unreachable, else None."""
        from goap.planning._explain import explain_unreachable  # only when a strategy asks

        why = explain_unreachable(initial, goal.conditions, actions, self.black, goal.label)
        if why is None:
            return None
        return PlanResult("no_plan", None, why, SearchStats(seconds=self.seconds()), optimal, self.name)


def start_solve(
    name: str,
    goal: GoalSpec,
    actions: Sequence[ActionSpec],
    blacklist: frozenset[str],
    own: frozenset[str] = frozenset(),
    *,
    refuse: bool = True,
) -> SolveStart:
    """Begin a ``solve``: with ``refuse``, raise :class:`goap.UnsupportedConstraintError` when ``goal``
    carries constraints (the strategy cannot honour them); then start the clock and merge the
    strategy's ``own`` blacklist with the call's."""
    if refuse and type(goal) is not GoalSpec:  # only a subclass (ConstrainedGoal) can carry constraints
        from goap.planning._constraints import refuse_constraints

        refuse_constraints(name, goal)
    t0 = time.perf_counter()
    black = own | blacklist
    usable = [a for a in actions if a.name not in black] if black else actions
    return SolveStart(name, t0, black, usable)
