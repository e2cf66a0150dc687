"""`GoapState`: the durable state of a GOAP run on the engine."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer

from goap.planning import GoalSpec, MultiGoal
from goap.runtime._lineage import PlanVersion
from goap.runtime._serialize import goal_from_dict, goal_to_dict
from graphengine import append

__all__ = ["ActionOutcome", "GoapState", "GoapStatus", "PolicyEvent", "ReplanReason"]

GoapStatus = Literal[
    "planning",
    "executing",
    "achieved",
    "no_plan",
    "max_replans_exceeded",
    "budget_exhausted",
    "failed",
    "terminated",
]
"""Where a GOAP run is; all but the first two are terminal (``terminated``: see ``termination``)."""

ReplanReason = Literal[
    "action_failed",
    "state_deviation",
    "every_action_replan",
    "plan_exhausted",
    "max_replans_exceeded",
    "subgoal_achieved",
    "approval_rejected",
    "stuck_resolved",
    "sensor_change",
]
"""Why the observer sent the run back to the planner (or gave up)."""

Fact = bool | int | float | str | None

GoalField = Annotated[
    GoalSpec | MultiGoal | None,
    BeforeValidator(lambda v: None if v is None else goal_from_dict(v)),
    PlainSerializer(lambda g: None if g is None else goal_to_dict(g), return_type=Any),
]


class ActionOutcome(BaseModel):
    """One executed action, as appended to `execution_history`."""

    model_config = ConfigDict(frozen=True)

    action: str
    """The action's name."""
    success: bool
    """Whether it ran without raising (and its preconditions held)."""
    step: int = 0
    """The engine step that ran it."""
    plan_index: int = 0
    """Its position in the plan being executed."""
    error: str | None = None
    """Why it failed."""
    effects: dict[str, Fact] = {}
    """What it changed in the world state (as observed)."""
    subgoal: int = 0
    """The sub-goal being pursued."""
    executed: bool = True
    """Whether ``execute`` was called (False: preconditions, a pre guard or single-use stopped it)."""
    cost: float = 0.0
    """The action's cost in the world it ran in (0 when it did not run)."""
    guard: str | None = None
    """The guard that blocked it, if one did."""
    warnings: list[str] = []
    """Messages of guards that warned."""


class PolicyEvent(BaseModel):
    """Something a policy did: a guard warned or blocked, a sensor failed, a handler rescued..."""

    model_config = ConfigDict(frozen=True)

    step: int
    """The engine step."""
    kind: str
    """``guard_warn``, ``guard_block``, ``sensor_error``, ``stuck_resolved``, ``stuck_unresolved``,
    ``approval_granted``, ``approval_rejected`` or ``terminated``."""
    name: str
    """The guard, sensor, handler, action or policy concerned."""
    message: str = ""
    """What happened."""


class GoapState(BaseModel):
    """State of a GOAP run: world, goal, plan and the bookkeeping of replanning.

    Every field round-trips through every store (goals are stored as JSON).
    `execution_history` and `reflection_context` are append-only.
    """

    world_state: dict[str, Fact] = {}
    """The facts as last observed."""
    goal: GoalField = None
    """The goal (a GoalSpec, or a MultiGoal whose sub-goals are pursued per its mode)."""
    plan: list[str] = []
    """Action names of the current plan."""
    plan_cost: float = 0.0
    """Planned cost of the current plan."""
    current_step: int = 0
    """Index in `plan` of the next action to execute."""
    execution_history: Annotated[list[ActionOutcome], append] = []
    """Every executed action, in order (append-only)."""
    replan_count: int = 0
    """Replans for the current (sub-)goal; reset when a sequential MultiGoal advances."""
    replan_reason: ReplanReason | None = None
    """Why the last replan (or give-up) happened."""
    status: GoapStatus = "planning"
    """Where the run is."""
    blacklisted_actions: list[str] = []
    """Actions the planner may no longer use (failed too often)."""
    action_failure_counts: dict[str, int] = {}
    """Failures per action name."""
    current_subgoal_index: int = 0
    """Index of the sub-goal being pursued (sequential MultiGoal)."""
    no_plan_explanation: dict[str, Any] | None = None
    """Serialised `NoPlanExplanation` when planning failed, else None."""
    reflection_context: Annotated[list[str], append] = []
    """"[action_name] suggestion" notes produced after failures, in order (append-only)."""
    wall_clock_started_at: float | None = None
    """When the run started (recorded once, so replays see the same time)."""
    expected_world_state: dict[str, Fact] | None = None
    """What the last action was expected to produce (for deviation checks)."""
    plans_made: int = 0
    """How many plans this run has made (the first plan included)."""
    plan_lineage: Annotated[list[PlanVersion], append] = []
    """Every planning round of the run, in order (append-only; see `goap.runtime._lineage`)."""
    policy_events: Annotated[list[PolicyEvent], append] = []
    """What guards, sensors, stuck handlers, approvals and termination policies did (append-only)."""
    pending_approval: dict[str, Any] | None = None
    """The approval the run waits for: action, plan index, plan version and the form's schema."""
    approval_granted: dict[str, Any] | None = None
    """The approval given for the next action: action, plan index, plan version, arguments."""
    termination: dict[str, Any] | None = None
    """When a termination policy ended the run: ``{"policy", "reason", "error"}``."""
    stuck_resolutions: int = 0
    """How often stuck handlers rescued this run."""
    last_error: str = Field(default="", description="Last error routed by the engine, if any.")
    """Last error routed by the engine, if any."""
