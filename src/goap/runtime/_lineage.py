"""Plan lineage: every plan a run makes, why it was made, how it differs from the one before.

The planner appends one `PlanVersion` per planning round to ``GoapState.plan_lineage`` in the
same atomic step write as the plan itself, so the lineage survives a crash exactly as far as the
plans do. Everything in it is deterministic (no timestamps, no solver wall time): a resumed or
replayed run records the same lineage. The solver's wall time is an outside measurement: it is
kept in the planner step's recorded ``plan`` call, and `plan_history` joins it back in.

`replan_divergences` plans every recorded round again with the graph's current actions and
strategy and reports where the plan now differs (``GoapGraph.replay(run_id, replan=True)``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from goap.runtime._state import GoapState
    from graphengine import Engine

__all__ = ["PlanDivergence", "PlanTrigger", "PlanVersion", "plan_diff", "plan_history"]

PlanTrigger = Literal[
    "initial",
    "failure",
    "guard",
    "deviation",
    "sensor_change",
    "every_action",
    "plan_exhausted",
    "subgoal_advance",
    "stuck_handler",
    "approval_rejected",
]
"""What made the planner plan."""


class PlanVersion(BaseModel):
    """One planning round of a run."""

    model_config = ConfigDict(frozen=True)

    version: int
    """1 for the first round, then 2, 3, ..."""
    step: int
    """The engine step of the planner that made it."""
    trigger: PlanTrigger = "initial"
    """Why the planner ran."""
    reason: str | None = None
    """The observer's replan reason (``GoapState.replan_reason``) behind the trigger."""
    detail: str = ""
    """More about the trigger: the failed action and its error, the guard's message..."""
    status: str = "found"
    """``found``, ``no_plan`` or ``budget_exhausted``."""
    plan: list[str] = []
    """The plan's actions (empty when none was found)."""
    cost: float | None = None
    """The plan's cost."""
    subgoal: int = 0
    """The sub-goal planned for."""
    added: list[str] = []
    """Actions in this plan and not in what was left of the previous plan (with multiplicity)."""
    removed: list[str] = []
    """Actions left in the previous plan that this one drops (its executed prefix is not counted)."""
    cost_change: float | None = None
    """This plan's cost minus the cost of what was left of the previous one (None for the first)."""
    solver: dict[str, Any] = {}
    """Strategy, seed, limits, optimality, expansions (``seconds`` is added by `plan_history`)."""


def plan_diff(old: Sequence[str], new: Sequence[str]) -> tuple[list[str], list[str]]:
    """(added, removed) between two plans, as multisets, each in the order of its plan."""
    oc, nc = Counter(old), Counter(new)
    added_c, removed_c = nc - oc, oc - nc
    added: list[str] = []
    for a in new:
        if added_c[a] > 0:
            added.append(a)
            added_c[a] -= 1
    removed: list[str] = []
    for a in old:
        if removed_c[a] > 0:
            removed.append(a)
            removed_c[a] -= 1
    return added, removed


def trigger_of(s: GoapState) -> tuple[PlanTrigger, str]:
    """Why the planner runs now, from the state the observer (or approval step) left."""
    if not s.plans_made and not s.plan_lineage:
        return "initial", ""
    r = s.replan_reason
    last = s.execution_history[-1] if s.execution_history else None
    if r == "action_failed":
        detail = f"{last.action}: {last.error}" if last is not None else ""
        return ("guard" if last is not None and last.guard else "failure"), detail
    table: dict[str, PlanTrigger] = {
        "state_deviation": "deviation",
        "sensor_change": "sensor_change",
        "every_action_replan": "every_action",
        "plan_exhausted": "plan_exhausted",
        "subgoal_achieved": "subgoal_advance",
        "stuck_resolved": "stuck_handler",
        "approval_rejected": "approval_rejected",
    }
    trig = table.get(r or "", "deviation")
    detail = ""
    if trig in ("stuck_handler", "approval_rejected", "sensor_change") and s.policy_events:
        ev = s.policy_events[-1]
        detail = f"{ev.name}: {ev.message}"
    return trig, detail


async def plan_history(engine: Engine[GoapState], run_id: str) -> list[PlanVersion]:
    """The run's plan versions, each with the solver's recorded wall time in ``solver["seconds"]``."""
    state = await engine.get_state(run_id)
    seconds: dict[int, float] = {}
    for rec in await engine.store.load_steps(run_id):
        if rec.node_id != "planner" or not rec.calls:
            continue
        doc = json.loads(rec.calls)
        for call in doc.get("calls", []):
            got = call.get("output")
            if call.get("tool") == "plan" and isinstance(got, dict) and "seconds" in got:
                seconds[rec.step] = float(got["seconds"])
    out: list[PlanVersion] = []
    for v in state.plan_lineage:
        if v.step in seconds:
            v = v.model_copy(update={"solver": {**v.solver, "seconds": seconds[v.step]}})
        out.append(v)
    return out


@dataclass(frozen=True, slots=True)
class PlanDivergence:
    """A planning round whose plan differs when planned again now."""

    version: int
    """The plan version (1-based)."""
    step: int
    """The planner step."""
    recorded: tuple[str, ...]
    """The plan the run made."""
    replanned: tuple[str, ...]
    """The plan planning gives now."""
    recorded_cost: float | None
    """Its cost then."""
    replanned_cost: float | None
    """Its cost now."""

    def __str__(self) -> str:
        return (
            f"plan v{self.version} (step {self.step}): recorded {list(self.recorded)} cost {self.recorded_cost}, "
            f"now {list(self.replanned)} cost {self.replanned_cost}"
        )
