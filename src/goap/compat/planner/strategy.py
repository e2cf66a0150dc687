"""LangGOAP's planning strategies: the protocol and A*, CSP refinement, the two-phase pipeline,
lazy decomposition and anytime planning.

Each strategy has one method, ``plan(start, goal, actions, *, blacklisted_actions=None,
prior_plan=None, current_step=0) -> Plan | None``. The searches are goap's: :class:`CoreStrategy`
hands a problem in LangGOAP's terms to any goap strategy (:mod:`goap.planning`,
:mod:`goap.strategies`) and its plan back, with LangGOAP's semantics around the search kept
(:func:`goap.compat.planner.astar.plan`). A* is goap's :class:`~goap.planning.AStar`;
anytime planning is goap's :class:`~goap.strategies.AnytimeStrategy` (weighted A* rounds that
improve the plan while the budget lasts).
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypedDict, cast, runtime_checkable

from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.astar import CoreSearch, astar_search
from goap.compat.planner.astar import plan as astar_plan
from goap.compat.planner.pipeline import augment_plan
from goap.compat.planner.pipeline import plan as pipeline_plan
from goap.compat.planner.types import Plan
from goap.compat.score import SimpleScore
from goap.compat.state import PlanningState
from goap.planning import PlanningStrategy as CorePlanningStrategy
from goap.strategies import AnytimeStrategy

__all__ = [
    "AStarStrategy",
    "AnytimePlanningStrategy",
    "CSPRefinementStrategy",
    "CoreStrategy",
    "LazyDecompositionStrategy",
    "PlanOptions",
    "PlanRequest",
    "PlanningStrategy",
    "StrategyBase",
    "TwoPhasePipelineStrategy",
]


@runtime_checkable
class PlanningStrategy(Protocol):
    """Anything that plans: a complete :class:`Plan` from ``start`` to ``goal``, or None.

    ``prior_plan`` and ``current_step`` are advisory (repair-style strategies patch the prior
    plan); every strategy accepts them.
    """

    def plan(
        self,
        start: PlanningState,
        goal: GoalSpec,
        actions: list[ActionSpec],
        *,
        blacklisted_actions: list[str] | None = None,
        prior_plan: Plan | None = None,
        current_step: int = 0,
    ) -> Plan | None:
        """A plan for ``goal`` from ``start``, or None when there is none.

        This body serves the classes that name the protocol as their base (:class:`StrategyBase`):
        it hands the call, as a :class:`PlanRequest`, to their ``solve``.
        """
        request = PlanRequest(start, goal, actions, blacklisted_actions, prior_plan, current_step)
        return cast("StrategyBase", self).solve(request)


class PlanOptions(TypedDict, total=False):
    """The keyword arguments of :meth:`PlanningStrategy.plan`, for methods that take them as
    ``**options`` (such as :meth:`~goap.compat.planner.mcts.MCTSStrategy.aplan`)."""

    blacklisted_actions: list[str] | None
    """Action names to avoid."""
    prior_plan: Plan | None
    """The plan being replaced, on a replan."""
    current_step: int
    """How many of the prior plan's actions ran."""


@dataclass(frozen=True, slots=True)
class PlanRequest:
    """The arguments of one ``plan`` call."""

    start: PlanningState
    """The state to plan from."""
    goal: GoalSpec
    """What to reach."""
    actions: list[ActionSpec]
    """The actions on offer."""
    blacklisted_actions: list[str] | None = None
    """Action names to avoid."""
    prior_plan: Plan | None = None
    """The plan being replaced, on a replan."""
    current_step: int = 0
    """How many of the prior plan's actions ran."""

    def delegate(self, inner: PlanningStrategy) -> Plan | None:
        """Ask ``inner``, passing the repair arguments only when there is a prior plan.

        Strategies written before the repair arguments existed then keep working on first plans.
        """
        options: PlanOptions = {"blacklisted_actions": self.blacklisted_actions}
        if self.prior_plan is not None:
            options["prior_plan"] = self.prior_plan
            options["current_step"] = self.current_step
        return inner.plan(self.start, self.goal, self.actions, **options)

    def first(self) -> PlanRequest:
        """This request without the prior plan (planning from scratch)."""
        return replace(self, prior_plan=None, current_step=0)


class StrategyBase(PlanningStrategy):
    """The :class:`PlanningStrategy` signature, written once: :meth:`plan` (the protocol's) hands a
    :class:`PlanRequest` to :meth:`solve`, which each strategy defines."""

    __slots__ = ()

    def solve(self, request: PlanRequest) -> Plan | None:
        """The plan for ``request``; NotImplementedError unless a subclass defines it."""
        raise NotImplementedError(f"{type(self).__name__} must define solve(request)")


class CoreStrategy(StrategyBase):
    """A goap strategy behind LangGOAP's ``plan()`` signature: the search is goap's, the semantics LangGOAP's.

    ``search(seconds_left)`` makes the goap strategy (:mod:`goap.planning`, :mod:`goap.strategies`)
    of each search. The problem is handed to it in goap's model and its plan comes back as a
    LangGOAP :class:`Plan`, with LangGOAP's met goal, blacklist fallback and shortening passes
    around it (see :func:`~goap.compat.planner.astar.plan`). ``time_budget_ms`` bounds each
    search. The prior plan of a replan is not used.
    """

    def __init__(self, search: CoreSearch, *, time_budget_ms: float | None = None) -> None:
        self._search = search
        self._time_budget_ms = time_budget_ms

    def solve(self, request: PlanRequest) -> Plan | None:
        """The plan the goap strategy finds from scratch, or None."""
        r = request
        return astar_plan(
            r.start,
            r.goal,
            r.actions,
            blacklisted_actions=r.blacklisted_actions,
            time_budget_ms=self._time_budget_ms,
            search=self._search,
        )


class AStarStrategy(CoreStrategy):
    """Plain A* (no CSP step): goap's optimal :class:`~goap.planning.AStar`.

    ``time_budget_ms`` bounds the search; A* has no partial plan, so a search that runs out of
    time gives None (:class:`AnytimePlanningStrategy` returns the best plan found in time).
    """

    def __init__(self, *, time_budget_ms: float | None = None) -> None:
        super().__init__(astar_search, time_budget_ms=time_budget_ms)


def anytime_search(timeout: float | None) -> CorePlanningStrategy:
    """goap's :class:`~goap.strategies.AnytimeStrategy` for the seconds left (its default budget without one)."""
    if timeout is None:
        return AnytimeStrategy()
    # a deadline already passed still gets one short round rather than an invalid budget
    return AnytimeStrategy(time_budget=max(timeout, 1e-3))


class CSPRefinementStrategy(StrategyBase):
    """Checks a plan given at construction against each goal it is asked about (no search)."""

    def __init__(self, candidate: Plan) -> None:
        self._candidate = candidate

    def solve(self, request: PlanRequest) -> Plan | None:
        """The candidate with the CSP verdict for the request's goal attached."""
        from goap.compat.planner.csp import validate_plan

        return augment_plan(self._candidate, request.goal, validate_plan(self._candidate, request.goal))


class TwoPhasePipelineStrategy(StrategyBase):
    """A* then the CSP step, as :func:`goap.compat.planner.pipeline.plan` (the default strategy)."""

    def __init__(self, *, max_alternatives: int = 5) -> None:
        self._max_alternatives = max_alternatives

    def solve(self, request: PlanRequest) -> Plan | None:
        """The pipeline's plan (from scratch)."""
        r = request
        return pipeline_plan(
            r.start, r.goal, r.actions, r.blacklisted_actions, max_alternatives=self._max_alternatives
        )


def simulate(start: PlanningState, actions: Sequence[ActionSpec]) -> tuple[tuple[PlanningState, ...], float]:
    """The states after each action of ``actions`` from ``start``, and their summed cost."""
    states: list[PlanningState] = []
    state, cost = start, 0.0
    for a in actions:
        now = state.to_dict()
        cost += a.get_cost(now)
        state = state.apply(a.get_effects(now))
        states.append(state)
    return tuple(states), cost


class LazyDecompositionStrategy(StrategyBase):
    """Plans with ``inner`` (A* by default) and keeps only the first ``lookahead`` actions.

    The loop replans after they ran, from the state they left (ADaPT-style). Raises ValueError
    when ``lookahead < 1``.
    """

    def __init__(self, *, lookahead: int = 1, inner: PlanningStrategy | None = None) -> None:
        if lookahead < 1:
            raise ValueError(f"lookahead must be >= 1, got {lookahead}")
        self._lookahead = lookahead
        self._inner: PlanningStrategy = inner or AStarStrategy()

    def solve(self, request: PlanRequest) -> Plan | None:
        """The inner plan cut to ``lookahead`` actions (states and cost recomputed, metadata kept)."""
        full = request.delegate(self._inner)
        if full is None or len(full) <= self._lookahead:
            return full
        head = full.actions[: self._lookahead]
        states, cost = simulate(request.start, head)
        return Plan(
            actions=head,
            expected_states=states,
            total_cost=cost,
            metadata=full.metadata,
            score=SimpleScore(scalar=cost),
        )


class AnytimePlanningStrategy(StrategyBase):
    """Runs ``inner`` under a wall-clock deadline of ``time_budget_ms``; None when it runs over.

    The default inner strategy is goap's :class:`~goap.strategies.AnytimeStrategy` with the same
    budget: weighted A* rounds with falling weights, so a plan is found early and improved while
    time lasts, and the best one is returned in time (LangGOAP's default, A* with the budget,
    has nothing to return when the budget ends before the optimal plan is found). A black-box
    strategy is run in a worker thread and abandoned at the deadline.
    """

    def __init__(self, time_budget_ms: float, *, inner: PlanningStrategy | None = None) -> None:
        self._budget_ms = time_budget_ms
        # The default search stops at 80% of the budget: the anytime rounds use all the time they
        # are given, and the translation and shortening passes around them must end before the
        # deadline below, or the plan found would be thrown away.
        self._inner: PlanningStrategy = inner or CoreStrategy(
            anytime_search, time_budget_ms=0.8 * time_budget_ms
        )

    def solve(self, request: PlanRequest) -> Plan | None:
        """The inner plan if it arrives within the budget, else None."""
        # Not a `with` block: leaving one joins the worker, which would let an overrunning
        # strategy hold the caller past the deadline.
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        future = pool.submit(request.delegate, self._inner)
        try:
            return future.result(timeout=self._budget_ms / 1000.0)
        except concurrent.futures.TimeoutError:
            future.cancel()
            return None
        finally:
            pool.shutdown(wait=False)
