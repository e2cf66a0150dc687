"""The executor node: goap.runtime's executor on LangGOAP's dict state, with LangGOAP's approval gate."""

from __future__ import annotations

import inspect
import random
from collections.abc import Sequence
from typing import Any

from goap.compat.graph.nodes._bridge import Bridge, Node, active_goal, results, world_out
from goap.compat.graph.state import ActionResult

__all__ = ["GoapExecutor", "async_execute_action"]


def _approved(answer: Any) -> bool:
    return bool(answer.get("approved", True)) if isinstance(answer, dict) else answer is None or bool(answer)


def _refused(action: Any, world: dict[str, Any], error: str) -> dict[str, Any]:
    return {
        "status": "action_failed",
        "execution_history": [ActionResult(action.name, False, dict(world), dict(world), error)],
        "action_failure_counts": {action.name: action.max_retries + 1},
    }


def approval_gate(action: Any, world: dict[str, Any]) -> dict[str, Any] | None:
    """Ask through LangGraph's ``interrupt`` (a form's answer goes into ``world``); None or the failure."""
    need = action.require_human_approval
    if not need:
        return None
    from langgraph.types import interrupt
    from pydantic import BaseModel, ValidationError

    base = {"action": action.name, "preconditions": dict(action.preconditions)}
    if isinstance(need, type) and issubclass(need, BaseModel):
        payload = {"type": "goap_action_form", **base, "form_schema": need.model_json_schema()}
        answer = interrupt({**payload, "model_name": need.__name__, "world_state": dict(world)})
        if not isinstance(answer, dict | BaseModel):
            return _refused(action, world, "human_form_invalid: form payload missing or wrong shape")
        try:
            form = answer if isinstance(answer, BaseModel) else need.model_validate(answer)
        except ValidationError as exc:
            why = f"form payload failed validation: {exc.errors()!r}"
            return _refused(action, world, f"human_form_invalid: {why}")
        world[action.human_input_key or action.name] = form.model_dump(mode="json")
        return None
    base |= {"effects": dict(action.get_effects(world)), "world_state": dict(world)}
    answer = interrupt({"type": "goap_action_approval", **base})
    if _approved(answer):
        return None
    why = answer.get("reason", "denied by operator") if isinstance(answer, dict) else "denied by operator"
    return _refused(action, world, f"human_approval_denied: {why}")


class GoapExecutor(Node):
    """Runs the plan's next action through goap.runtime's executor; returns LangGOAP's update dict."""

    _parallel = False

    def __init__(
        self,
        *,
        tracer: Any = None,
        guards: Sequence[Any] | None = None,
        transition_model: Any = None,
        rng: random.Random | None = None,
        actions: Sequence[Any] | None = None,
    ) -> None:
        self._rng = rng if rng is not None else random.Random()
        self.actions = list(actions or ())
        self._bridge = Bridge(
            tracer=tracer, guards=guards, transition_model=transition_model, parallel=self._parallel
        )

    async def _go(self, state: dict[str, Any], sync: bool) -> dict[str, Any]:
        plan, step = state.get("plan"), int(state.get("current_step", 0) or 0)
        world = dict(state.get("world_state") or {})
        if state.get("status") in ("no_plan", "terminated") or (plan is not None and len(plan) == 0):
            return {}
        if plan is None or step >= len(plan):
            nothing = ActionResult("<none>", False, error="No action to execute")
            return {"status": "error", "execution_history": [nothing]}
        # The graph's own actions win over a plan's restored from a checkpoint (callables, forms).
        action = next((a for a in self.actions if a.name == plan.actions[step].name), plan.actions[step])
        refused = approval_gate(action, world)
        if refused is not None:
            return refused
        acts = self.actions or list(plan.actions)
        (b := self._bridge).begin(sync)
        g = b.graph(active_goal(state.get("goal"), state.get("current_subgoal_index", 0) or 0), acts)
        s = b.view({**state, "world_state": world}, acts)
        before = dict(state.get("world_state") or {})
        after_s, _ = await b.step(g, "executor", s)
        new = after_s.execution_history[len(s.execution_history) :]
        after = world_out(after_s.world_state, b.rich)
        out: dict[str, Any] = {"execution_history": results(new, before, after, b.rich), "world_state": after}
        out["current_step"] = after_s.current_step
        if any(not o.success for o in new):
            out["status"] = "action_failed"  # the observer counts the failure (LangGOAP's order)
            blocked = [o.action for o in new if o.guard is not None]
            if blocked:  # a guard's block blacklists at once, whatever the action's max_retries
                retries = {a.name: a.max_retries for a in acts}
                counts = dict(state.get("action_failure_counts") or {})
                out["action_failure_counts"] = {**counts, **{n: retries.get(n, 0) + 1 for n in blocked}}
        return out


async def async_execute_action(action: Any, world_state: dict[str, Any]) -> Any:
    """Call the action's ``aexecute`` (or ``execute``) on ``world_state`` and await the result."""
    out: Any = (action.aexecute or action.execute or (lambda _: None))(world_state)
    return await out if inspect.isawaitable(out) else out
