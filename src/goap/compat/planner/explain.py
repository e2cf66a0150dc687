"""Which hard constraints a plan breaks, and why no plan exists (goap's analyses)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from goap.compat import _convert as cv
from goap.compat.goals import ConstraintSpec, GoalSpec

if TYPE_CHECKING:
    from goap.compat.actions import ActionSpec
    from goap.compat.planner.csp import CSPMetadata
    from goap.compat.planner.types import Plan
    from goap.compat.state import PlanningState


@dataclass(slots=True, frozen=True)
class ResourceShortfall:
    """How far one resource total lies past its hard bound (``overrun`` >= 0)."""

    key: str
    required: float
    available_max: float | None = None
    available_min: float | None = None
    overrun: float = 0.0
    """Distance from ``required`` to the bound it breaks."""


@dataclass(slots=True, frozen=True)
class InfeasibilityExplanation:
    """A minimal set of hard constraints the plan cannot meet together, their shortfalls, advice."""

    conflicting_constraints: tuple[ConstraintSpec, ...]
    resource_shortfalls: tuple[ResourceShortfall, ...]
    suggestion: str


def _check_feasibility(totals: Mapping[str, float], constraints: Sequence[ConstraintSpec]) -> bool:
    return not any(c.level == "hard" and _shortfall(c, totals.get(c.key, 0.0)) for c in constraints)


def _shortfall(c: ConstraintSpec, total: float) -> ResourceShortfall | None:
    if c.max is not None and total > c.max:
        return ResourceShortfall(c.key, total, available_max=c.max, overrun=total - c.max)
    if c.min is not None and total < c.min:
        return ResourceShortfall(c.key, total, available_min=c.min, overrun=c.min - total)
    return None


def _advice(shortfalls: Sequence[ResourceShortfall], keys: Sequence[str]) -> str:
    lines = [
        f"Resource '{s.key}' totals {s.required:.4g}, "
        + (
            f"over its hard limit {s.available_max:.4g} (overrun: {s.overrun:.4g}); relax it or use cheaper actions."
            if s.available_max is not None
            else f"under its hard minimum {s.available_min:.4g} (shortfall: {s.overrun:.4g}); add providers."
        )
        for s in shortfalls
    ]
    if not lines and keys:
        lines.append(f"The constraints on {', '.join(keys)} cannot hold together; relax one of them.")
    return " ".join(lines) or "No constraint violations detected."


def explain_infeasibility(plan: Plan, goal: GoalSpec, meta: CSPMetadata) -> InfeasibilityExplanation | None:
    """The hard constraints ``plan`` breaks, pared down to a minimal conflicting set (None: none broken)."""
    from goap.compat.planner.csp import compute_resource_totals
    from goap.strategies import minimal_conflict

    totals = compute_resource_totals(plan.actions)
    broken = [c for c in goal.constraints if not _check_feasibility(totals, [c])]
    if not broken:
        return None
    core = minimal_conflict(broken, lambda rest, _: not _check_feasibility(totals, rest)) or broken
    shortfalls = tuple(s for c in core if (s := _shortfall(c, totals.get(c.key, 0.0))) is not None)
    return InfeasibilityExplanation(tuple(core), shortfalls, _advice(shortfalls, [c.key for c in core]))


@dataclass(slots=True, frozen=True)
class NoPlanExplanation:
    """Why no plan was found: goal keys no action can make hold, preconditions nothing establishes."""

    unreachable_conditions: tuple[str, ...]
    missing_preconditions: tuple[str, ...]
    suggestion: str

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (lists for the tuples)."""
        keys = ("unreachable_conditions", "missing_preconditions")
        return {**{k: list(getattr(self, k)) for k in keys}, "suggestion": self.suggestion}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NoPlanExplanation:
        """Inverse of :meth:`to_dict`."""
        return cls(
            tuple(data.get("unreachable_conditions", ())),
            tuple(data.get("missing_preconditions", ())),
            str(data.get("suggestion", "")),
        )


def explain_no_plan(start: PlanningState, goal: GoalSpec, actions: Sequence[ActionSpec]) -> NoPlanExplanation:
    """Goal conditions no action produces and preconditions nothing establishes, with advice."""
    from goap.planning.kit import Reachability, explain_unreachable

    dynamic = {str(k) for a in actions if a.has_dynamic_effects for k in a.effect_key_set()}
    initial = cv.encode_state(start)
    acts = cv.goap_actions(actions)
    why = explain_unreachable(initial, cv.to_goap_goal(goal).conditions, acts, frozenset())
    unreachable = sorted(
        u.key for u in (why.unreachable if why else ()) if u.reason == "no_producer" and u.key not in dynamic
    )
    produced = {k for a in acts for k in a.effects} | dynamic
    reach = Reachability(initial, acts)
    needs = [(k, c) for a in acts for k, c in a.preconditions.items() if k not in produced]
    missing = sorted({k for k, c in needs if not reach.can_hold(k, c)})
    advice = []
    if unreachable:
        advice.append(f"No action produces goal condition(s) {unreachable}: add one or check for typos.")
    if missing:
        advice.append(f"Precondition(s) {missing} never hold: check the actions' dependency chain.")
    cycle = "Every goal condition has a producer, yet no ordering reaches the goal: look for cycles."
    return NoPlanExplanation(tuple(unreachable), tuple(missing), " ".join(advice) or cycle)
