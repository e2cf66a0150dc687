"""What the GOAP nodes share: :class:`GoapConfig`, the current goal, the replan budget and the
planning call with its limits (:func:`solve`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from goap.planning import (
    ActionSpec,
    ConstrainedGoal,
    DefaultStrategy,
    GoalSpec,
    MultiGoal,
    PlanningStrategy,
    ResourceConstraint,
    TransitionModel,
    plan_any,
    qos_of,
)
from goap.planning import plan as make_plan
from goap.runtime._guards import Guard
from goap.runtime._otel import GoapTelemetry
from goap.runtime._reflexion import ReflexionTracer
from goap.runtime._sensors import Sensor
from goap.runtime._state import GoapState
from goap.runtime._stuck import StuckHandler
from goap.runtime._termination import TerminationPolicy
from goap.runtime._tracing import NullTracer, PlanningTracer
from graphengine import Context

_BATCH_MAX = 16  # the most actions a parallel batch runs (goap.runtime._parallel)


__all__ = ["GoapConfig", "current_goal", "remaining_budget", "solve", "spent_single_use"]


@dataclass(frozen=True, slots=True)
class GoapConfig:
    """Settings the nodes share (built by `GoapGraph`)."""

    actions: Mapping[str, ActionSpec]
    """Actions by name."""
    strategy: PlanningStrategy = field(default_factory=DefaultStrategy)
    """How plans are made (default: A*, or the CP-SAT pipeline for a constrained goal)."""
    max_replans: int | None = 3
    """Replans allowed per (sub-)goal; None: each goal's own `GoalSpec.max_replans`."""
    replan_every_action: bool = False
    """Re-plan after every successful action (for worlds that change under the agent)."""
    never_replan: bool = False
    """Never replan: a failed action or a spent plan ends the run ``failed``; deviations are ignored."""
    blacklist_after: int = 2
    """Failures after which an action is blacklisted (0: never)."""
    blacklist_fallback: bool = False
    """When the blacklist leaves no plan, plan without it and clear it (blacklist and failure counts)."""
    skip_unreachable: bool = False
    """A sequential MultiGoal whose current sub-goal has no plan goes on with the next one that has."""
    any_rank: Callable[[int, Any], Any] | None = None
    """How a ``mode="any"`` MultiGoal orders its goals' plans (lowest first; None: by cost), see `plan_any`."""
    time_budget: float | None = None
    """Seconds a run may take from `wall_clock_started_at` (None: unlimited)."""
    transition_model: TransitionModel | None = None
    """Used when an action has no `execute` (or it returns None); default: declared effects."""
    seed: int = 0
    """Seed of the per-step rng handed to `TransitionModel.sample`."""
    tracer: PlanningTracer = field(default_factory=NullTracer)
    """Told about every planning round and action."""
    guards: tuple[Guard, ...] = ()
    """Guards run around every action (before each action's own guards)."""
    sensors: tuple[Sensor, ...] = ()
    """Sensors read before every planning round and every observation."""
    stuck_handlers: tuple[StuckHandler, ...] = ()
    """Asked in order when the run is stuck (no plan, replan budget spent)."""
    termination: TerminationPolicy | None = None
    """Checked after every action (None: none)."""
    reflexion: ReflexionTracer | None = None
    """Writes the failure notes of `reflection_context` (None: the executor's default note)."""
    max_stuck_resolutions: int = 3
    """How often stuck handlers may rescue one run."""
    parallel: bool = False
    """Run consecutive independent plain actions of a plan concurrently (see `goap.runtime._parallel`)."""
    telemetry: GoapTelemetry = field(default_factory=GoapTelemetry)
    """OpenTelemetry spans and metrics of planning rounds and actions."""


def current_goal(s: GoapState) -> GoalSpec:
    """The goal being pursued now: the goal, the current sub-goal, or the conjunction ("all")."""
    g = s.goal
    if isinstance(g, MultiGoal):
        if g.mode == "all":
            return g.conjunction()
        return g.goals[min(s.current_subgoal_index, len(g.goals) - 1)]
    if g is None:
        raise ValueError("GoapState.goal is not set")
    return g


def _budget(cfg: GoapConfig, goal: GoalSpec) -> int:
    return goal.max_replans if cfg.max_replans is None else cfg.max_replans


async def _clock(ctx: Context) -> float:
    return float(await ctx.call(_now, None, name="clock"))


def _now(_: object) -> float:
    return time.time()


def spent_single_use(cfg: GoapConfig, s: GoapState) -> set[str]:
    """Single-use actions (``can_rerun=False``) this run has already executed."""
    out: set[str] = set()
    for o in s.execution_history:
        a = cfg.actions.get(o.action)
        if o.executed and a is not None and not qos_of(a).can_rerun:
            out.add(o.action)
    return out


def _limits(strategy: Any, planned_by: str = "") -> dict[str, Any]:
    if isinstance(strategy, DefaultStrategy):
        # The limits that mattered are those of the strategy it delegated to (named in the round).
        inner = strategy.constrained if planned_by == strategy.constrained.name else strategy.search
        return _limits(inner, planned_by)
    out: dict[str, Any] = {}
    for name in ("max_expansions", "timeout", "time_budget", "weight", "heuristic", "seed", "time_limit"):
        v = getattr(strategy, name, None)
        if isinstance(v, int | float | str) and not isinstance(v, bool):
            out[name] = v
    return out


def solve(
    cfg: GoapConfig, world: Mapping[str, Any], s: GoapState, blacklist: Sequence[str], previous: Sequence[str]
) -> dict[str, Any]:
    """One planning round as JSON: what the planner records and a ``replan=True`` replay recomputes."""
    actions = list(cfg.actions.values())
    black = frozenset(blacklist)
    goal_index: int | None = None
    g = s.goal
    if isinstance(g, MultiGoal) and g.mode == "any":
        g = MultiGoal(tuple(remaining_budget(cfg, s, leg) for leg in g.goals), mode="any")
        goal_index, result = plan_any(world, g, actions, cfg.strategy, blacklist=black, rank=cfg.any_rank)
    else:
        goal = remaining_budget(cfg, s, current_goal(s))
        repair = getattr(cfg.strategy, "repair", None)
        if previous and callable(repair):
            result = repair(world, goal, actions, previous, blacklist=black)
        else:
            result = make_plan(world, goal, actions, cfg.strategy, blacklist=black)
        if (
            result.plan is None
            and isinstance(g, MultiGoal)
            and g.mode == "sequential"
            and cfg.skip_unreachable
        ):
            # Best effort: the first later sub-goal that does not hold yet and has a plan.
            for i in range(s.current_subgoal_index + 1, len(g.goals)):
                leg = remaining_budget(cfg, s, g.goals[i])
                later = (
                    None
                    if leg.satisfied_by(world)
                    else make_plan(world, leg, actions, cfg.strategy, blacklist=black)
                )
                if later is not None and later.plan is not None:
                    goal_index, result = i, later
                    break
    return {
        "status": result.status,
        "plan": list(result.plan.names) if result.plan is not None else None,
        "cost": result.plan.cost if result.plan is not None else None,
        "strategy": result.strategy,
        "optimal": result.optimal,
        "expanded": result.stats.expanded,
        "generated": result.stats.generated,
        "seconds": result.stats.seconds,
        "explanation": result.explanation.to_dict() if result.explanation is not None else None,
        "goal_index": goal_index,
        "routing": _routing_doc(getattr(result, "routing", None)),
        "solver": _solver_doc(getattr(result, "solver", None)),
    }


def remaining_budget(cfg: GoapConfig, s: GoapState, goal: GoalSpec) -> GoalSpec:
    """``goal`` with its additive bounds reduced by what the run already spent pursuing it.

    A :class:`goap.ConstrainedGoal`'s bounds on ``cost``, ``length`` and resource sums hold for
    the run, not for each plan: after executed actions spent 3 of ``tokens <= 4``, a replan may
    spend 1 more. Actions that ran count (``executed``), failed ones too, since their resources
    were used; for a sequential MultiGoal only those of the current sub-goal. ``makespan`` bounds,
    objectives and capacities are per plan and stay as they are. A bound already exceeded becomes
    negative, so the pipeline answers ``no_plan`` naming the constraint rather than overspending.
    """
    if not isinstance(goal, ConstrainedGoal) or not goal.constraints:
        return goal
    sequential = isinstance(s.goal, MultiGoal) and s.goal.mode == "sequential"
    done = [
        o
        for o in s.execution_history
        if o.executed and (not sequential or o.subgoal == s.current_subgoal_index)
    ]
    if not done:
        return goal

    def spent(key: str) -> float | None:
        if key == "cost":
            return sum(o.cost for o in done)
        if key == "length":
            return float(len(done))
        if key == "makespan":
            return None
        total = 0.0
        for o in done:
            a = cfg.actions.get(o.action)
            if a is not None and a.resources:
                total += float(a.resources.get(key, 0.0))
        return total

    bounds: list[ResourceConstraint] = []
    for c in goal.constraints:
        used = spent(c.key)
        if not used:
            bounds.append(c)
            continue
        bounds.append(
            replace(
                c,
                max=None if c.max is None else c.max - used,
                min=None if c.min is None else c.min - used,
                name=f"{c.label} ({used:g} already spent)",
            )
        )
    return replace(goal, constraints=tuple(bounds))


def _routing_doc(routing: Any) -> dict[str, Any] | None:
    """What a StrategyRouter chose and why (kept with the recorded round for telemetry)."""
    if routing is None:
        return None
    return {"chosen": str(routing.chosen), "reason": str(routing.reason)}


def _solver_doc(solver: Any) -> dict[str, Any] | None:
    """The CP-SAT report of a refined round (status, objective levels, time, seed)."""
    if solver is None:
        return None
    return {
        "status": str(solver.status),
        "seconds": float(solver.seconds),
        "seed": int(solver.seed),
        "candidates": int(solver.candidates),
        "time_limit_hit": bool(solver.time_limit_hit),
        "levels": [float(v) for v in solver.levels],
    }
