"""The observer node: goap.runtime's observer on LangGOAP's dict state, answering a ``Command``."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from langgraph.graph import END
from langgraph.types import Command

from goap.compat._convert import execution_record
from goap.compat.graph.nodes._bridge import Bridge, Node, active_goal, policy_of, world_out
from goap.compat.graph.nodes._helpers import _get_last_failed_action, _get_max_retries
from goap.runtime import count_failure

__all__ = ["GoapObserver"]

_ENDED = {"no_plan", "error", "terminated"}
_FRESH: dict[str, Any] = {"plan": None, "current_step": 0, "replan_count": 0}


class GoapObserver(Node):
    """Decides after each action: end, replan (with a reason) or execute the next action."""

    def __init__(
        self,
        actions: Sequence[Any] | None = None,
        *,
        tracer: Any = None,
        history: Any = None,
        termination_policies: Sequence[Any] | None = None,
    ) -> None:
        self._actions = list(actions or ())
        self._history = history
        self._bridge = Bridge(tracer=tracer, termination=termination_policies)

    def _route(self, state: dict[str, Any]) -> Command[str]:
        return self(state)  # type: ignore[no-any-return]

    async def _go(self, state: dict[str, Any], sync: bool) -> Command[str]:
        cmd, after = await self._decide(state, sync)
        ended = self._history is not None and after is not None and cmd.goto == END
        rec = execution_record(after, state.get("goal")) if ended else None
        if rec is not None:
            done = self._history.record(rec) if sync else self._history.arecord(rec)
            if inspect.isawaitable(done):
                await done
        return cmd

    async def _decide(self, state: dict[str, Any], sync: bool) -> tuple[Command[str], Any]:
        goal = state.get("goal")
        if goal is None:
            return Command(goto=END, update={"status": "error", "replan_reason": "no goal specified"}), None
        status = state.get("status")
        index = int(state.get("current_subgoal_index", 0) or 0)
        sub = active_goal(goal, index)
        plan = state.get("plan")
        acts = self._actions or (list(plan.actions) if plan is not None else [])
        (b := self._bridge).begin(sync)
        if status in _ENDED:
            ended = {"status": "terminated" if status == "terminated" else "no_plan"}
            return Command(goto=END, update={"status": status}), b.view(state, acts).model_copy(update=ended)
        g = b.graph(sub, acts)
        s = b.view(state, acts, observe=True)
        # goap reads a failure from an outcome recorded the step before.
        after, route = await b.step(g, "observer", s, step=1 if status == "action_failed" else 3)
        up: dict[str, Any] = {}
        world = world_out(after.world_state, b.rich)
        if world != state.get("world_state"):
            up["world_state"] = world
        if route is not None and route.target in ("executor", "approval"):
            return Command(goto="executor", update=up or None), after
        if route is not None and route.target == "planner":
            every = policy_of(sub)[0] == "every_action" and after.replan_reason != "action_failed"
            up["replan_reason"] = "every_action_replan" if every else after.replan_reason
            failed = _get_last_failed_action(state) if status == "action_failed" else None
            if failed is not None:
                old = (state.get("action_failure_counts") or {}, state.get("blacklisted_actions") or [])
                counts, black = count_failure(*old, failed, _get_max_retries(failed, self._actions) + 1)
                up.update(action_failure_counts=counts, blacklisted_actions=black)
            if after.current_subgoal_index != index:  # the next sub-goal starts afresh
                up.update(_FRESH, blacklisted_actions=[], action_failure_counts={})
                up["current_subgoal_index"] = after.current_subgoal_index
            return Command(goto="planner", update=up), after
        st = after.status
        if st == "achieved":
            up["status"] = "goal_achieved"
        elif st == "terminated":
            t = after.termination or {}
            up.update(status="terminated", replan_reason=f"{t.get('policy')}: {t.get('reason')}")
        elif st == "max_replans_exceeded":
            up.update(status="failed", replan_reason=f"max_replans_exceeded ({policy_of(sub)[1]})")
        else:
            up.update(status="failed", replan_reason=after.replan_reason or st)
        return Command(goto=END, update=up), after
