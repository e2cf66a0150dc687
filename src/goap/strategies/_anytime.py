"""`AnytimeStrategy`: the best plan found within a time budget, improved while time remains.

It runs weighted A* with falling weights (5, 3, 2, 1.5, 1 by default) on an admissible
heuristic: the first rounds find a plan fast, later ones improve it, and a last round with
weight 1 that completes in time proves the plan optimal (``PlanResult.optimal``). Each round is
bounded by the time left; the best plan so far is returned when the budget runs out
(``optimal=False``: not proved). The improving plans are in ``PlanResult.candidates``, oldest
first. The result depends on the machine's speed, which is why the GOAP runtime records plans
and a replay serves them.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from goap.planning import AStar, ModelError, Plan, PlanResult, SearchStats
from goap.planning.heuristics import check_heuristic
from goap.planning.kit import SolveStart, StrategyBase, check_seconds, freeze_field

__all__ = ["AnytimeStrategy"]


@dataclass(frozen=True, slots=True)
class AnytimeStrategy(StrategyBase):
    """Weighted A* with falling weights within ``time_budget`` seconds (see the module docstring)."""

    time_budget: float = 5.0
    """Seconds for all rounds together."""
    weights: tuple[float, ...] = (5.0, 3.0, 2.0, 1.5, 1.0)
    """The weight of each round, falling; end with 1.0 to be able to prove optimality."""
    heuristic: str = "lmcut"
    """Heuristic of every round (admissible, so weight 1 proves optimality)."""
    max_expansions: int | None = 2_000_000
    """Expansions allowed per round."""

    def __post_init__(self) -> None:
        check_seconds("time_budget", self.time_budget, optional=False)
        if not self.weights or any(not (w >= 1.0 and math.isfinite(w)) for w in self.weights):
            raise ModelError(f"weights must be finite numbers >= 1, got {self.weights!r}")
        check_heuristic(self.heuristic)
        freeze_field(self, "weights", tuple)

    @property
    def name(self) -> str:
        """``anytime(<heuristic>, <budget>s)``."""
        return f"anytime({self.heuristic}, {self.time_budget:g}s)"

    def solve_started(self, call: SolveStart) -> PlanResult:
        """The best plan found in the budget; ``optimal`` when a weight-1 round completed.

        A constrained goal raises :class:`goap.UnsupportedConstraintError` (every round is A*)."""
        t0 = call.t0
        deadline = t0 + self.time_budget
        stats = SearchStats()
        improving: list[Plan] = []
        proved = False
        for w in self.weights:
            left = deadline - time.perf_counter()
            if left <= 0:
                break
            res = AStar(
                heuristic=self.heuristic, weight=w, max_expansions=self.max_expansions, timeout=left
            ).solve(call.initial, call.goal, call.actions, blacklist=call.blacklist)
            stats = stats + res.stats
            if res.status == "no_plan":
                # Unreachability is proven whatever the weight: no later round can do better.
                return PlanResult("no_plan", None, res.explanation, call.timed(stats), True, self.name)
            if res.plan is not None and (not improving or res.plan.cost < improving[-1].cost - 1e-9):
                improving.append(res.plan)
            if res.found and res.optimal:
                proved = True
                break
        if not improving:
            return PlanResult("budget_exhausted", None, None, call.timed(stats), False, self.name)
        return PlanResult(
            "found",
            improving[-1],
            None,
            call.timed(stats),
            proved,
            self.name,
            candidates=tuple(improving),
        )
