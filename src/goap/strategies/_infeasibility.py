"""`explain_infeasibility`: a minimal set of hard constraints that cannot hold together.

For a problem the CP-SAT pipeline (:class:`goap.CspPipeline`) proves infeasible, CP-SAT's
assumption core (``sufficient_assumptions_for_infeasibility``) names hard constraints that
conflict, but a core need not be minimal. A deletion filter then drops each constraint of the
core in turn and solves again: when the rest is still infeasible, the constraint was not needed
and stays out. What remains is irreducible: remove any one of its constraints and a plan exists.
Each is named, beside its *shortfall*: dropping it alone admits a plan, and that plan's distance
from its bound is how far it would have to be relaxed.

The deletion filter re-solves once per core member, each solve bounded by the pipeline's own
limits; with ``deterministic`` settings (the pipeline's default seed and one worker) the answer
is reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from goap.planning import ActionSpec, Capacity, ConstraintExplanation, GoalSpec, MultiGoal, ResourceConstraint

__all__ = ["Infeasibility", "InfeasibleConstraint", "explain_infeasibility", "minimal_conflict"]


@dataclass(frozen=True, slots=True)
class InfeasibleConstraint:
    """One hard constraint of the minimal conflicting set."""

    label: str
    """The constraint as the pipeline names it (e.g. ``tokens <= 900``)."""
    key: str
    """Its metric."""
    best_value: float | None
    """Its metric on the plan found when only this constraint of the set is dropped."""
    shortfall: float | None
    """How far past its bound that plan is: what relaxing it alone would take (None when unknown)."""


@dataclass(frozen=True, slots=True)
class Infeasibility:
    """Why no plan fits the hard constraints: the conflicting set and the solves it took."""

    constraints: tuple[InfeasibleConstraint, ...]
    """A minimal set of hard constraints that cannot hold together."""
    core: tuple[str, ...]
    """CP-SAT's assumption core before the deletion filter."""
    solves: int
    """Pipeline solves made (1 + one per core member)."""
    proven: bool
    """Whether the first solve proved infeasibility by exhaustive constrained search."""

    @property
    def message(self) -> str:
        """One sentence naming each constraint and its shortfall."""
        parts = [
            c.label + (f" (short by {c.shortfall:g})" if c.shortfall is not None else "")
            for c in self.constraints
        ]
        return "these hard constraints cannot all hold: " + "; ".join(parts)


T = TypeVar("T")


def minimal_conflict(items: Sequence[T], conflicts: Callable[[Sequence[T], T], bool]) -> list[T]:
    """The deletion filter: ``items`` less each one, in order, whose removal keeps a conflict.

    ``conflicts(rest, dropped)`` says whether ``rest`` (the items kept so far less ``dropped``)
    still conflicts. When ``items`` conflict and the empty set does not, the result is
    irreducible: removing any one of its items ends the conflict.
    """
    keep = list(items)
    for item in list(keep):
        rest = [x for x in keep if x is not item]
        if conflicts(rest, item):
            keep = rest
    return keep


def explain_infeasibility(
    initial: Mapping[str, Any],
    goal: GoalSpec | MultiGoal | Mapping[str, Any],
    actions: Iterable[ActionSpec],
    *,
    constraints: Iterable[ResourceConstraint] = (),
    capacities: Iterable[Capacity] = (),
    **settings: Any,
) -> Infeasibility | None:
    """A minimal conflicting set of hard constraints, or None when a plan satisfies them all.

    ``settings`` go to :class:`goap.CspPipeline` (``seed``, ``time_limit``...). Soft constraints
    never conflict and are ignored; capacities always apply and are never filtered out. Raises
    :class:`goap.ModelError` for invalid input and ``ImportError`` naming the extra when
    OR-Tools is missing (as the pipeline does).
    """
    from goap.strategies._csp import pipeline_plan
    from goap.strategies._csp_common import SolverReport

    acts = tuple(actions)
    hard = [c for c in constraints if c.level == "hard"]
    caps = tuple(capacities)

    def solve(subset: list[ResourceConstraint]) -> tuple[ConstraintExplanation | None, dict[str, float]]:
        res = pipeline_plan(initial, goal, acts, constraints=subset, capacities=caps, **settings)
        if res.found:
            report = res.report(SolverReport)
            return None, dict(report.metrics) if report is not None else {}
        why = res.explanation
        return (why if isinstance(why, ConstraintExplanation) else None), {}

    first, _ = solve(hard)
    if first is None:
        return None
    core = tuple(v.constraint for v in first.violations)
    by_label = {c.label: c for c in hard}
    keep = [by_label[label] for label in core if label in by_label]
    solves = 1
    best: dict[str, float] = {}

    def conflicts(rest: Sequence[ResourceConstraint], dropped: ResourceConstraint) -> bool:
        nonlocal solves
        solves += 1
        still, metrics = solve(list(rest))
        if still is None and dropped.key in metrics:
            # Without it a plan exists: how far that plan is from its bound is its shortfall.
            best[dropped.label] = metrics[dropped.key]
        return still is not None

    keep = minimal_conflict(keep, conflicts)
    out: list[InfeasibleConstraint] = []
    for c in keep:
        v = best.get(c.label)
        out.append(InfeasibleConstraint(c.label, c.key, v, c.violation(v) if v is not None else None))
    if not keep:  # only capacities conflict: report the pipeline's own records
        out = [InfeasibleConstraint(v.constraint, v.key, v.best_value, None) for v in first.violations]
    return Infeasibility(tuple(out), core, solves, first.proof == "exhaustive")
