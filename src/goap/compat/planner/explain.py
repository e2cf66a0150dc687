"""Why a plan breaks its constraints, and why no plan was found (LangGOAP's explanation records).

:func:`explain_infeasibility` names a minimal set of violated hard constraints (each constraint
whose removal alone restores feasibility is kept; LangGOAP's greedy deletion) with the shortfall
of each; :func:`explain_no_plan` is a static pass over the actions: goal keys no action can set
and preconditions nothing can establish.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from goap.compat.goals import ConstraintSpec, GoalSpec
from goap.compat.planner.csp import CSPMetadata, compute_resource_totals

if TYPE_CHECKING:
    from goap.compat.actions import ActionSpec
    from goap.compat.planner.types import Plan
    from goap.compat.state import PlanningState

__all__ = [
    "InfeasibilityExplanation",
    "NoPlanExplanation",
    "ResourceShortfall",
    "explain_infeasibility",
    "explain_no_plan",
    "hard_feasible",
]


@dataclass(frozen=True, slots=True)
class ResourceShortfall:
    """One resource outside its bound."""

    key: str
    """Resource name."""
    required: float
    """The plan's total."""
    available_max: float | None = None
    """The upper bound it exceeds (None for a lower-bound violation)."""
    available_min: float | None = None
    """The lower bound it misses (None for an upper-bound violation)."""
    overrun: float = 0.0
    """How far outside the bound (>= 0)."""


@dataclass(frozen=True, slots=True)
class InfeasibilityExplanation:
    """The conflicting hard constraints of a plan, their shortfalls, and what to do."""

    conflicting_constraints: tuple[ConstraintSpec, ...]
    """A minimal set of violated hard constraints."""
    resource_shortfalls: tuple[ResourceShortfall, ...]
    """Per-resource violations of those constraints."""
    suggestion: str
    """Human-readable advice."""


def _violated(c: ConstraintSpec, totals: Mapping[str, float]) -> bool:
    total = totals.get(c.key, 0.0)
    return (c.max is not None and total > c.max) or (c.min is not None and total < c.min)


def _shortfalls(
    totals: Mapping[str, float], constraints: Sequence[ConstraintSpec]
) -> tuple[ResourceShortfall, ...]:
    out: list[ResourceShortfall] = []
    for c in constraints:
        total = totals.get(c.key, 0.0)
        if c.max is not None and total > c.max:
            out.append(ResourceShortfall(c.key, total, available_max=c.max, overrun=total - c.max))
        elif c.min is not None and total < c.min:
            out.append(ResourceShortfall(c.key, total, available_min=c.min, overrun=c.min - total))
    return tuple(out)


def _suggestion(shortfalls: Sequence[ResourceShortfall], mus: Sequence[ConstraintSpec]) -> str:
    if not shortfalls and not mus:
        return "No constraint violations detected."
    parts: list[str] = []
    for sf in shortfalls:
        if sf.available_max is not None:
            parts.append(
                f"Resource '{sf.key}' uses {sf.required:.4g} but the hard limit is {sf.available_max:.4g} "
                f"(overrun: {sf.overrun:.4g}). Consider relaxing the constraint, reducing action costs, "
                f"or removing expensive actions."
            )
        elif sf.available_min is not None:
            parts.append(
                f"Resource '{sf.key}' uses {sf.required:.4g} but the minimum required is "
                f"{sf.available_min:.4g} (shortfall: {sf.overrun:.4g}). Consider adding actions that "
                f"produce more of this resource."
            )
    if not parts:
        parts.append(
            f"Constraints on {', '.join(c.key for c in mus)} are mutually unsatisfiable. "
            f"Relax at least one constraint to make the plan feasible."
        )
    return " ".join(parts)


def hard_feasible(totals: Mapping[str, float], constraints: Sequence[ConstraintSpec]) -> bool:
    """Whether every hard constraint of ``constraints`` holds for ``totals`` (soft ones are ignored)."""
    return not any(c.level == "hard" and _violated(c, totals) for c in constraints)


_check_feasibility = hard_feasible  # LangGOAP's name, which its tests import


def _minimal(violated: list[ConstraintSpec], totals: Mapping[str, float]) -> list[ConstraintSpec]:
    """Greedy deletion: keep a constraint when the others left are satisfied without it."""
    kept: list[ConstraintSpec] = []
    remaining = list(violated)
    for c in violated:
        without = [o for o in remaining if o is not c]
        if hard_feasible(totals, without):
            kept.append(c)
        else:
            remaining = without
    return kept or violated


def explain_infeasibility(plan: Plan, goal: GoalSpec, meta: CSPMetadata) -> InfeasibilityExplanation | None:
    """Explain which hard constraints ``plan`` breaks; None when it breaks none."""
    del meta  # the totals are recomputed from the plan, so any metadata explains the same
    hard = [c for c in goal.constraints if c.level == "hard"]
    totals = compute_resource_totals(plan.actions)
    violated = [c for c in hard if _violated(c, totals)]
    if not violated:
        return None
    mus = tuple(_minimal(violated, totals))
    shortfalls = _shortfalls(totals, mus)
    return InfeasibilityExplanation(mus, shortfalls, _suggestion(shortfalls, mus))


@dataclass(frozen=True, slots=True)
class NoPlanExplanation:
    """Why search found no plan: unreachable goal keys and unestablishable preconditions."""

    unreachable_conditions: tuple[str, ...]
    """Goal keys neither true at the start nor set by any action."""
    missing_preconditions: tuple[str, ...]
    """Preconditions neither true at the start nor set by any action."""
    suggestion: str
    """Human-readable advice."""

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (lists and strings), safe to keep in graph state."""
        return {
            "unreachable_conditions": list(self.unreachable_conditions),
            "missing_preconditions": list(self.missing_preconditions),
            "suggestion": self.suggestion,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NoPlanExplanation:
        """The inverse of :meth:`to_dict` (missing keys read as empty)."""
        return cls(
            tuple(data.get("unreachable_conditions", [])),
            tuple(data.get("missing_preconditions", [])),
            data.get("suggestion", ""),
        )


def _no_plan_suggestion(unreachable: list[str], missing: list[str]) -> str:
    parts: list[str] = []
    if unreachable:
        parts.append(
            f"Goal condition(s) {unreachable} cannot be produced by any available action. Add an action "
            f"whose effects include these keys, or check for typos in the goal conditions."
        )
    if missing:
        parts.append(
            f"Precondition(s) {missing} are required by available actions but cannot be established "
            f"from the current world state or by any other action. Check the action dependency chain."
        )
    if not parts:
        parts.append(
            "The goal conditions appear theoretically reachable but A* found no valid action ordering. "
            "This may indicate circular precondition dependencies or conflicting action effects. "
            "Review action preconditions and effects for internal consistency."
        )
    return " ".join(parts)


def explain_no_plan(start: PlanningState, goal: GoalSpec, actions: Sequence[ActionSpec]) -> NoPlanExplanation:
    """A static explanation of a failed search (keys only; values and orderings are not analysed)."""
    produced = {str(k) for a in actions for k in a.effect_key_set()}
    required = {str(k) for a in actions for k in a.preconditions}
    true_at_start = {str(k) for k, v in start.to_dict().items() if v}
    known = produced | true_at_start
    unreachable = sorted(str(k) for k in goal.conditions if str(k) not in known)
    missing = sorted(p for p in required if p not in known)
    return NoPlanExplanation(tuple(unreachable), tuple(missing), _no_plan_suggestion(unreachable, missing))
