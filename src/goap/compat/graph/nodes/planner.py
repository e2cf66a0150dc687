"""The planner node: goap.runtime's planner on LangGOAP's dict state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from goap.compat._convert import from_goap_goal
from goap.compat.goals import GoalSpec, MultiGoal
from goap.compat.graph.nodes._bridge import Bridge, Node, active_goal, make_plan, planning_keys, world_out
from goap.compat.planner.explain import explain_no_plan
from goap.compat.state import PlanningState

__all__ = ["GoapPlanner"]


class GoapPlanner(Node):
    """Plans for the state's goal from its world state; returns LangGOAP's update dict."""

    def __init__(
        self,
        actions: Sequence[Any],
        *,
        strategy: Any = None,
        tracer: Any = None,
        sensors: Sequence[Any] | None = None,
        resolvers: Sequence[Any] | None = None,
        record_expansions: bool = False,
        stuck_handlers: Sequence[Any] | None = None,
        max_stuck_iterations: int = 3,
        termination_policies: Sequence[Any] | None = None,
    ) -> None:
        if max_stuck_iterations < 1:
            raise ValueError(f"max_stuck_iterations must be >= 1, got {max_stuck_iterations}")
        self.actions = list(actions)
        self._max_stuck = max_stuck_iterations
        if resolvers:
            from goap.compat.conditions import resolver_sensor

            keys = sorted(planning_keys(self.actions, None))
            sensors = [*(sensors or ()), resolver_sensor(resolvers, keys)]
        self._tracer = tracer
        more: dict[str, Any] = {"termination": termination_policies, "sensors": sensors}
        more |= {"stuck_handlers": stuck_handlers, "max_stuck_resolutions": max_stuck_iterations}
        self._bridge = Bridge(strategy=strategy, record_expansions=record_expansions, tracer=tracer, **more)

    async def _go(self, state: dict[str, Any], sync: bool) -> dict[str, Any]:
        goal = state.get("goal")
        if goal is None:
            return {"plan": None, "status": "error", "current_step": 0}
        b = self._bridge
        sub = active_goal(goal, state.get("current_subgoal_index", 0) or 0)
        b.begin(sync)
        g = b.graph(sub, self.actions, goal)
        b.replanning = state.get("plan") is not None
        b.prior = (state["plan"], int(state.get("current_step", 0) or 0)) if b.replanning else None
        b.tracer_goal = goal if isinstance(goal, MultiGoal) and goal.mode != "sequential" else sub
        s = b.view(state, self.actions)
        g_goal = s.goal
        count = int(state.get("replan_count", 0) or 0) + (state.get("plan") is not None)
        out: dict[str, Any] = {"current_step": 0, "replan_count": count}
        for _ in range(self._max_stuck + 1):
            s, route = await b.step(g, "planner", s)
            if route is None or route.target != "planner":
                break
        world = world_out(s.world_state, b.rich)
        if world != state.get("world_state"):
            out["world_state"] = world
        out["wall_clock_started_at"] = s.wall_clock_started_at
        index = s.current_subgoal_index
        if index != (state.get("current_subgoal_index") or 0):
            out["current_subgoal_index"] = index
        if s.goal is not g_goal:  # a stuck handler set a new goal
            out["goal"] = from_goap_goal(s.goal)  # type: ignore[arg-type]
        sub = active_goal(out.get("goal", goal), index)
        if s.status == "terminated":
            t = s.termination or {}
            said = f"{t.get('policy')}: {t.get('reason')}"
            return {**out, "plan": None, "status": "terminated", "replan_reason": said}
        if s.status != "executing":
            start = PlanningState.from_dict(world, keys=planning_keys(self.actions, sub))
            why = explain_no_plan(start, sub, self.actions).to_dict() if isinstance(sub, GoalSpec) else None
            return {**out, "plan": None, "status": "no_plan", "no_plan_explanation": why}
        if notes := getattr(self._tracer, "reflections", None):
            out["reflection_context"] = [f"[{r.action_name}] {r.reflection} → {r.suggestion}" for r in notes]
        made = b.planned if b.planned is not None and b.planned.action_names == s.plan else None
        plan = made or make_plan(s.plan, self.actions, world, sub)
        out.update(plan=plan, status="executing", no_plan_explanation=None)
        if set(s.plan) & set(state.get("blacklisted_actions") or ()):  # planned with a blacklisted action
            out.update(blacklisted_actions=[], action_failure_counts={})
        return out
