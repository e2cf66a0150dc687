"""What a planning call returns: PlanResult with its Plan, SearchStats and explanation."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias, TypeVar

if TYPE_CHECKING:
    # Annotations only: importing a result must not import what produced it (the planning path
    # loads this module; explanations and scores are loaded by the code that makes them).
    from goap.planning._actions import ActionSpec
    from goap.planning._explain import NoPlanExplanation
    from goap.planning._schedule import Schedule
    from goap.planning._score import Score

__all__ = ["Plan", "PlanResult", "SearchStats", "Status", "StrategyReport"]

Status: TypeAlias = Literal["found", "no_plan", "budget_exhausted"]
"""Outcome of a planning call."""


@dataclass(frozen=True, slots=True)
class Plan:
    """A sequence of actions and its total cost (costs evaluated along the planned states)."""

    actions: tuple[ActionSpec, ...]
    """The actions, in execution order."""
    cost: float
    """Sum of the actions' costs."""
    quality: Score | None = None
    """The score a scoring strategy (the CP-SAT pipeline) gave the plan; None: unscored."""

    @property
    def score(self) -> Score:
        """``quality`` when set, else ``SimpleScore(-cost)``; ``min(plans, key=...)`` picks the best."""
        if self.quality is not None:
            return self.quality
        from goap.planning._score import SimpleScore

        return SimpleScore(-self.cost)

    @property
    def names(self) -> tuple[str, ...]:
        """The action names, in order."""
        return tuple(a.name for a in self.actions)

    def __len__(self) -> int:
        return len(self.actions)

    def __iter__(self) -> Iterator[ActionSpec]:
        return iter(self.actions)


@dataclass(frozen=True, slots=True)
class SearchStats:
    """Counters of one planning call (summed over the pieces of a sequential MultiGoal)."""

    expanded: int = 0
    """States whose successors were generated."""
    generated: int = 0
    """Successor states produced (before duplicate detection)."""
    evaluated: int = 0
    """Heuristic evaluations."""
    reopened: int = 0
    """States expanded again after a cheaper path to them was found."""
    seconds: float = 0.0
    """Wall time of the whole call, compilation included."""
    initial_h: float = 0.0
    """Heuristic value of the initial state."""
    pruned_actions: int = 0
    """Operators removed by reachability and relevance pruning."""
    symmetry_classes: int = 0
    """Classes of interchangeable objects the search folded together."""
    search: str = ""
    """Which best-first loop ran: ``"c"`` (the C extension), ``"python"`` (no compiler when goap
    was installed, ``GOAP_PURE_PYTHON=1``, or a task the C loop does not take), both joined with
    ``+`` when pieces of one call differed, or ``""`` when no search loop ran (the goal was refuted
    before searching, or the strategy is not a best-first search)."""
    budget: str | None = None
    """The budget that ran out when the status is ``"budget_exhausted"``: ``"max_expansions"``,
    ``"timeout"`` or ``"max_memory_mb"`` (the strategy's settings of those names); else None."""

    def __add__(self, other: SearchStats) -> SearchStats:
        searches = [s for s in dict.fromkeys((*self.search.split("+"), *other.search.split("+"))) if s]
        return SearchStats(
            self.expanded + other.expanded,
            self.generated + other.generated,
            self.evaluated + other.evaluated,
            self.reopened + other.reopened,
            self.seconds + other.seconds,
            self.initial_h if self.expanded or self.evaluated else other.initial_h,
            self.pruned_actions + other.pruned_actions,
            max(self.symmetry_classes, other.symmetry_classes),
            "+".join(searches),
            self.budget if self.budget is not None else other.budget,
        )


class StrategyReport(Protocol):
    """What a strategy tells about how it produced a :class:`PlanResult`.

    Planning defines this seam and knows no report type: the strategies implement it (the CP-SAT
    pipeline's ``SolverReport``, a router's ``RoutingDecision``, both in :mod:`goap.strategies`).
    """

    @property
    def kind(self) -> str:
        """What the report is about (``"solver"``, ``"routing"``); one report of a kind per result."""
        ...

    @property
    def message(self) -> str:
        """One line for people."""
        ...


R = TypeVar("R", bound=StrategyReport)


@dataclass(frozen=True, slots=True)
class PlanResult:
    """The outcome of :func:`goap.plan`.

    ``status`` is ``"found"`` (``plan`` is set), ``"no_plan"`` (``explanation`` is set: the goal
    is unreachable, proven by relaxed reachability or exhaustive search) or
    ``"budget_exhausted"`` (``max_expansions``, ``timeout`` or ``max_memory_mb`` hit, named by
    ``stats.budget``; nothing is proven).
    """

    status: Status
    """``"found"``, ``"no_plan"`` or ``"budget_exhausted"``."""
    plan: Plan | None
    """The plan when found."""
    explanation: NoPlanExplanation | None
    """Why there is no plan, when ``status == "no_plan"``."""
    stats: SearchStats
    """Search counters and timing."""
    optimal: bool
    """True when the plan is proven least-cost (A* with weight 1 and an admissible heuristic)."""
    strategy: str = ""
    """Description of the strategy that produced it, e.g. ``astar(lmcut)``."""
    schedule: Schedule | None = None
    """When each action runs (CP-SAT pipeline, when actions declare durations or capacities)."""
    candidates: tuple[Plan, ...] = ()
    """The scored candidate plans a selecting strategy chose from (the chosen one included)."""
    reports: tuple[StrategyReport, ...] = ()
    """What the strategies that produced the result report, at most one of each ``kind``."""

    def report(self, kind: type[R]) -> R | None:
        """The report of class ``kind`` (e.g. ``result.report(SolverReport)``), or None."""
        for r in self.reports:
            if isinstance(r, kind):
                return r
        return None

    def with_report(self, report: StrategyReport) -> PlanResult:
        """This result with ``report`` added, replacing one of the same ``kind``."""
        kept = tuple(r for r in self.reports if r.kind != report.kind)
        return replace(self, reports=(*kept, report))

    def _of_kind(self, kind: str) -> StrategyReport | None:
        return next((r for r in self.reports if r.kind == kind), None)

    @property
    def solver(self) -> StrategyReport | None:
        """The report of kind ``"solver"``: what CP-SAT did and with which settings (CP-SAT pipeline)."""
        return self._of_kind("solver")

    @property
    def routing(self) -> StrategyReport | None:
        """The report of kind ``"routing"``: which strategy a router chose and why."""
        return self._of_kind("routing")

    @property
    def found(self) -> bool:
        """Whether a plan was found."""
        return self.status == "found"
