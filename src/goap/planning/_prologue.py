"""The start every strategy's ``solve`` shares: refuse a goal it cannot honour, start the clock, merge
the blacklists, drop blacklisted actions, and answer "no plan" when relaxed reachability proves it.

Strategies differ after this point only; keeping the start in one place (:class:`StrategyBase`)
keeps their answers to the same unreachable or constrained goal the same.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from goap.planning._actions import ActionSpec, check_initial
from goap.planning._goals import GoalSpec
from goap.planning._result import PlanResult, SearchStats

__all__ = ["SolveStart", "StrategyBase"]


@dataclass(frozen=True, slots=True)
class SolveStart:
    """A ``solve`` call after its common start: the call's arguments and what the start derived."""

    name: str
    """The strategy's name, reported in ``PlanResult.strategy``."""
    t0: float
    """``time.perf_counter()`` when the call started."""
    black: frozenset[str]
    """The strategy's own blacklist and the call's together."""
    usable: Sequence[ActionSpec]
    """The actions not blacklisted (the given sequence itself when nothing is)."""
    initial: Mapping[str, Any]
    """The call's initial state."""
    goal: GoalSpec
    """The call's goal."""
    actions: Sequence[ActionSpec]
    """The call's actions, blacklisted ones included."""
    blacklist: frozenset[str]
    """The call's blacklist alone (what a strategy passes on to the one it delegates to)."""

    def seconds(self) -> float:
        """Wall time since the call started."""
        return time.perf_counter() - self.t0

    def timed(self, stats: SearchStats) -> SearchStats:
        """``stats`` with ``seconds`` set to the wall time of the whole call."""
        return replace(stats, seconds=self.seconds())

    def unreachable(self, *, optimal: bool) -> PlanResult | None:
        """A ``"no_plan"`` result when relaxed reachability proves the goal unreachable, else None."""
        from goap.planning._explain import explain_unreachable  # only when a strategy asks

        goal = self.goal
        why = explain_unreachable(self.initial, goal.conditions, self.actions, self.black, goal.label)
        if why is None:
            return None
        return PlanResult("no_plan", None, why, SearchStats(seconds=self.seconds()), optimal, self.name)


class StrategyBase:
    """The ``solve`` the planning strategies share (see :class:`goap.PlanningStrategy` for its contract).

    ``solve`` raises :class:`goap.ModelError` naming a NaN fact of the initial state,
    :class:`goap.UnsupportedConstraintError` when the goal carries constraints and
    the strategy does not honour them (``honours_constraints``), starts the clock, merges the
    strategy's own ``blacklist`` field (when it has one) with the call's, and hands the rest to
    :meth:`solve_started`, which each strategy implements.
    """

    __slots__ = ()

    @property
    def name(self) -> str:
        """Short description, e.g. ``astar(lmcut)``."""
        raise NotImplementedError

    def solve(
        self,
        initial: Mapping[str, Any],
        goal: GoalSpec,
        actions: Sequence[ActionSpec],
        *,
        blacklist: frozenset[str] = frozenset(),
    ) -> PlanResult:
        """Plan for ``goal``; blacklisted action names never appear in the plan."""
        return self.solve_started(self.prologue(initial, goal, actions, blacklist=blacklist))

    def prologue(
        self,
        initial: Mapping[str, Any],
        goal: GoalSpec,
        actions: Sequence[ActionSpec],
        *,
        blacklist: frozenset[str] = frozenset(),
    ) -> SolveStart:
        """The common start of :meth:`solve` (for a strategy's own entry points that return more)."""
        name = self.name
        check_initial(initial)  # every strategy: a NaN fact would make it search in vain
        if type(goal) is not GoalSpec:  # only a subclass (ConstrainedGoal) can carry constraints
            from goap.planning._constraints import honours_constraints, refuse_constraints

            if not honours_constraints(self):
                refuse_constraints(name, goal)
        t0 = time.perf_counter()
        own: frozenset[str] = getattr(self, "blacklist", frozenset())
        black = own | blacklist
        usable = [a for a in actions if a.name not in black] if black else actions
        return SolveStart(name, t0, black, usable, initial, goal, actions, blacklist)

    def solve_started(self, call: SolveStart) -> PlanResult:
        """Plan ``call.goal`` from ``call.initial`` with ``call.usable`` (the strategy's own part)."""
        raise NotImplementedError
