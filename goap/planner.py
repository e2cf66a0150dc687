"""The planning entry point: :func:`plan`."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from goap.actions import ActionSpec
from goap.errors import ModelError
from goap.goals import GoalSpec, MultiGoal
from goap.result import Plan, PlanResult, SearchStats
from goap.strategies import AStar, PlanningStrategy

__all__ = ["plan", "plan_any"]

_DEFAULT = AStar()


def plan(
    initial: Mapping[str, Any],
    goal: GoalSpec | MultiGoal | Mapping[str, Any],
    actions: Iterable[ActionSpec],
    strategy: PlanningStrategy | None = None,
    *,
    blacklist: Iterable[str] = (),
) -> PlanResult:
    """Find a plan from ``initial`` to ``goal`` with ``actions``.

    ``goal`` is a :class:`GoalSpec`, a :class:`MultiGoal` (``"all"``: one plan for the
    conjunction; ``"sequential"``: one plan per goal in order, concatenated, each leg planned from
    the state the previous leg leaves; ``PlanResult.optimal`` then means every leg is optimal) or
    a plain mapping of conditions. ``strategy`` defaults to ``AStar()`` (optimal, LM-cut).
    Actions named in ``blacklist`` (or the strategy's own blacklist) never appear in the plan.

    Returns a :class:`PlanResult`; "no plan" and "budget exhausted" are statuses, not errors.
    Raises :class:`goap.ModelError` for invalid input (duplicate action names, a numeric effect on
    a non-numeric fact, conflicting goals in a MultiGoal "all").
    """
    strat = strategy if strategy is not None else _DEFAULT
    acts: Sequence[ActionSpec] = tuple(actions)
    for i, a in enumerate(acts):
        if not isinstance(a, ActionSpec):
            raise ModelError(f"actions[{i}] must be an ActionSpec, got {type(a).__name__}")
    black = frozenset(blacklist)
    if isinstance(goal, MultiGoal):
        if goal.mode == "all":
            return strat.solve(initial, goal.conjunction(), acts, blacklist=black)
        if goal.mode == "any":
            return plan_any(initial, goal, acts, strat, blacklist=black)[1]
        return _sequential(initial, goal, acts, strat, black)
    spec = goal if isinstance(goal, GoalSpec) else GoalSpec(goal)
    return strat.solve(initial, spec, acts, blacklist=black)


def plan_any(
    initial: Mapping[str, Any],
    goal: MultiGoal,
    actions: Sequence[ActionSpec],
    strategy: PlanningStrategy,
    *,
    blacklist: frozenset[str] = frozenset(),
) -> tuple[int | None, PlanResult]:
    """Plan for each goal of a ``mode="any"`` MultiGoal; the cheapest found plan and its goal's index.

    Ties go to the earlier goal. The result is ``optimal`` only when every goal's search finished
    optimally (a goal whose search ran out of budget may have had a cheaper plan). When no goal
    has a plan the index is None and the result is
    ``budget_exhausted`` if any search ran out of budget (nothing is proven), else the first
    goal's ``no_plan``.
    """
    t0 = time.perf_counter()
    stats = SearchStats()
    results: list[PlanResult] = []
    for leg in goal.goals:
        res = strategy.solve(initial, leg, actions, blacklist=blacklist)
        stats = stats + res.stats
        results.append(res)
    found = [(r.plan.cost, i) for i, r in enumerate(results) if r.plan is not None]
    if found:
        _, best = min(found)
        r = results[best]
        # the cheapest over the goals only when every goal's search finished: a goal whose search
        # ran out of budget may have a cheaper plan, and a non-optimal plan may hide one
        proven = all(x.optimal and x.status != "budget_exhausted" for x in results)
        return best, PlanResult("found", r.plan, None, _timed(stats, t0), proven, r.strategy)
    if any(r.status == "budget_exhausted" for r in results):
        r = next(r for r in results if r.status == "budget_exhausted")
        return None, PlanResult("budget_exhausted", None, None, _timed(stats, t0), r.optimal, r.strategy)
    r = results[0]
    return None, PlanResult(r.status, None, r.explanation, _timed(stats, t0), r.optimal, r.strategy)


def _sequential(
    initial: Mapping[str, Any],
    goal: MultiGoal,
    actions: Sequence[ActionSpec],
    strategy: PlanningStrategy,
    blacklist: frozenset[str],
) -> PlanResult:
    t0 = time.perf_counter()
    state: dict[str, Any] = dict(initial)
    steps: list[ActionSpec] = []
    cost = 0.0
    stats = SearchStats()
    optimal = True
    for leg in goal.goals:
        res = strategy.solve(state, leg, actions, blacklist=blacklist)
        stats = stats + res.stats
        optimal = optimal and res.optimal
        if res.plan is None:
            return PlanResult(res.status, None, res.explanation, _timed(stats, t0), res.optimal, res.strategy)
        for a in res.plan.actions:
            state = a.apply(state)
        steps.extend(res.plan.actions)
        cost += res.plan.cost
    return PlanResult("found", Plan(tuple(steps), cost), None, _timed(stats, t0), optimal, strategy.name)


def _timed(stats: SearchStats, t0: float) -> SearchStats:
    return SearchStats(
        stats.expanded,
        stats.generated,
        stats.evaluated,
        stats.reopened,
        time.perf_counter() - t0,
        stats.initial_h,
        stats.pruned_actions,
        stats.symmetry_classes,
    )
