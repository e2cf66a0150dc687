"""The planning entry point: :func:`plan`."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from goap.planning._actions import ActionSpec, check_cost_sum, check_initial
from goap.planning._errors import ModelError
from goap.planning._goals import GoalSpec, MultiGoal
from goap.planning._prologue import SolveStart, StrategyBase
from goap.planning._result import Plan, PlanResult, SearchStats
from goap.planning._strategy import STRATEGIES, AStar, PlanningStrategy
from goap.planning._typecheck import check_types

__all__ = ["DefaultStrategy", "check_problem", "plan", "plan_any"]


def _csp_pipeline() -> PlanningStrategy:
    # By its registry name, imported on first use: the CP-SAT pipeline belongs to goap.strategies,
    # the layer above this one, and stays off the plain planning path.
    return STRATEGIES["csp-pipeline"]()


def _constrained(goal: GoalSpec) -> bool:
    """Whether ``goal`` carries constraints, objectives or capacities (a plain GoalSpec never does)."""
    if type(goal) is GoalSpec:
        return False
    from goap.planning._constraints import goal_constraints

    return not goal_constraints(goal).empty


@dataclass(frozen=True, slots=True)
class DefaultStrategy(StrategyBase):
    """The strategy of :func:`plan` and ``GoapGraph`` when none is given.

    A goal without constraints is planned by ``search`` (optimal A*); a
    :class:`goap.ConstrainedGoal` with constraints, objectives or capacities by ``constrained``
    (the CP-SAT pipeline), so they are honoured rather than dropped. ``PlanResult.strategy``
    names the strategy that planned.
    """

    honours_constraints: ClassVar[bool] = True
    """Constrained goals go to ``constrained``."""

    search: PlanningStrategy = field(default_factory=AStar)
    """Plans goals without constraints."""
    constrained: PlanningStrategy = field(default_factory=_csp_pipeline)
    """Plans goals with constraints; must honour them."""

    def __post_init__(self) -> None:
        from goap.planning._constraints import honours_constraints

        if not honours_constraints(self.constrained):
            raise ModelError(
                f"DefaultStrategy.constrained must honour constraints, got {self.constrained.name!r}"
            )

    @property
    def name(self) -> str:
        """``default(<search>, <constrained>)``."""
        return f"default({self.search.name}, {self.constrained.name})"

    def solve_started(self, call: SolveStart) -> PlanResult:
        """Plan with ``constrained`` when the goal carries constraints, else with ``search``."""
        strategy = self.constrained if _constrained(call.goal) else self.search
        return strategy.solve(call.initial, call.goal, call.actions, blacklist=call.blacklist)


_DEFAULT: list[DefaultStrategy] = []
"""The default strategy, made on first use (it builds the CP-SAT pipeline)."""


def _default() -> DefaultStrategy:
    if not _DEFAULT:
        _DEFAULT.append(DefaultStrategy())
    return _DEFAULT[0]


def check_problem(
    initial: Mapping[str, Any],
    goal: GoalSpec | MultiGoal,
    actions: Sequence[ActionSpec],
    strategy: PlanningStrategy | None = None,
) -> None:
    """Raise before planning what :func:`plan` would refuse: value types and unsupported constraints.

    :class:`goap.ModelError` for a goal, precondition or effect value whose type is not its fact's
    (see :mod:`goap.planning._typecheck`); :class:`goap.UnsupportedConstraintError` when ``strategy``
    (default: :class:`DefaultStrategy`, which honours them) cannot honour a goal's constraints.
    ``GoapGraph.run`` calls it so a bad goal is refused before a run is created.
    """
    legs = (goal.conjunction(),) if isinstance(goal, MultiGoal) and goal.mode == "all" else _legs(goal)
    check_initial(initial)
    check_types(initial, legs, actions)
    check_cost_sum(actions)  # also in compile_task; here so a run is refused before it is created
    for leg in legs:
        _check_strategy(strategy if strategy is not None else _default(), leg)


def _legs(goal: GoalSpec | MultiGoal) -> tuple[GoalSpec, ...]:
    return goal.goals if isinstance(goal, MultiGoal) else (goal,)


def _check_strategy(strategy: PlanningStrategy, goal: GoalSpec) -> None:
    """Refuse a constrained goal for a strategy that does not declare it honours constraints.

    Built-in condition-only strategies raise on their own; this also covers user strategies,
    which would otherwise be handed a ConstrainedGoal they may treat as a plain one.
    """
    if not _constrained(goal):
        return
    from goap.planning._constraints import honours_constraints, refuse_constraints

    if not honours_constraints(strategy):
        refuse_constraints(strategy.name, goal)


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
    a plain mapping of conditions. ``strategy`` defaults to :class:`DefaultStrategy`: optimal A*
    (LM-cut), or :class:`goap.CspPipeline` for a :class:`goap.ConstrainedGoal`.
    Actions named in ``blacklist`` (or the strategy's own blacklist) never appear in the plan.

    Returns a :class:`PlanResult`; "no plan" and "budget exhausted" are statuses, not errors.
    Raises :class:`goap.ModelError` for invalid input (duplicate action names, a numeric effect on
    a non-numeric fact, conflicting goals in a MultiGoal "all", a goal, precondition or effect
    value whose type differs from the fact's type in ``initial``, e.g. ``1`` on a bool fact), and
    :class:`goap.UnsupportedConstraintError` when ``strategy`` cannot honour the goal's constraints.
    """
    strat = strategy if strategy is not None else _default()
    acts: Sequence[ActionSpec] = tuple(actions)
    for i, a in enumerate(acts):
        if not isinstance(a, ActionSpec):
            raise ModelError(f"actions[{i}] must be an ActionSpec, got {type(a).__name__}")
    black = frozenset(blacklist)
    g = goal if isinstance(goal, GoalSpec | MultiGoal) else GoalSpec(goal)
    check_problem(initial, g, acts, strat)
    if isinstance(g, MultiGoal):
        if g.mode == "all":
            return strat.solve(initial, g.conjunction(), acts, blacklist=black)
        if g.mode == "any":
            return plan_any(initial, g, acts, strat, blacklist=black)[1]
        return _sequential(initial, g, acts, strat, black)
    return strat.solve(initial, g, acts, blacklist=black)


def plan_any(
    initial: Mapping[str, Any],
    goal: MultiGoal,
    actions: Sequence[ActionSpec],
    strategy: PlanningStrategy,
    *,
    blacklist: frozenset[str] = frozenset(),
    rank: Callable[[int, PlanResult], Any] | None = None,
) -> tuple[int | None, PlanResult]:
    """Plan for each goal of a ``mode="any"`` MultiGoal; the cheapest found plan and its goal's index.

    ``rank(index, result)`` orders the found plans instead of their cost (lowest first), e.g. by a
    goal's value minus the plan's cost. Ties go to the earlier goal. The result is ``optimal`` only when every goal's search finished
    optimally (a goal whose search ran out of budget may have had a cheaper plan). When no goal
    has a plan the index is None and the result is
    ``budget_exhausted`` if any search ran out of budget (nothing is proven), else the first
    goal's ``no_plan``.
    """
    for leg in goal.goals:
        _check_strategy(strategy, leg)
    t0 = time.perf_counter()
    stats = SearchStats()
    results: list[PlanResult] = []
    for leg in goal.goals:
        res = strategy.solve(initial, leg, actions, blacklist=blacklist)
        stats = stats + res.stats
        results.append(res)
    found = [
        (r.plan.cost if rank is None else rank(i, r), i) for i, r in enumerate(results) if r.plan is not None
    ]
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
    return replace(stats, seconds=time.perf_counter() - t0)
