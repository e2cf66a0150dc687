"""Small LangGOAP helpers its tests import from ``graph.nodes`` (private names, thin over goap)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from goap.compat._convert import goap_actions, to_goap_goal, to_goap_score
from goap.runtime import GoapState as RtState
from goap.runtime import independent_batch


def _get_last_failed_action(state: Mapping[str, Any]) -> str | None:
    history = reversed(state.get("execution_history") or [])
    return next((r.action_name for r in history if not r.success), None)


def _get_max_retries(action_name: str, actions: Sequence[Any]) -> int:
    return next((a.max_retries for a in actions if a.name == action_name), 0)


def _find_parallel_group(actions: Sequence[Any], start: int) -> list[int]:
    """Plan indices from ``start`` that may run together (goap's independent batch; at least one)."""
    if start >= len(actions):
        return []
    acts = goap_actions(actions)
    world = {k: v for a in reversed(acts[start:]) for k, v in a.preconditions.items()}  # the first one wins
    s = RtState.model_construct(plan=[a.name for a in acts], current_step=start, world_state=world)
    batch = independent_batch({a.name: a for a in acts}, s)
    return list(range(start, start + max(1, len(batch))))


def _is_better_plan(candidate: Any, incumbent: Any) -> bool:
    """Feasible beats infeasible; then the better score of one kind, else the lower total cost."""
    fc, fi = candidate.score.is_feasible(), incumbent.score.is_feasible()
    if fc != fi:
        return bool(fc)
    if (
        fc
        and type(candidate.score) is type(incumbent.score)
        and type(candidate.score).__name__ != "SimpleScore"
    ):
        try:
            return to_goap_score(candidate.score).better_than(to_goap_score(incumbent.score))
        except (TypeError, ValueError):
            pass
    return bool(candidate.total_cost < incumbent.total_cost)


def _is_goal_satisfied(goal: Any, world_state: Mapping[str, Any]) -> bool:
    """Whether the goal holds in ``world_state`` (goap's check; a Nirvana goal never holds)."""
    from goap.compat.graph.nodes._bridge import split
    from goap.compat.planner.utility import is_nirvana

    return not is_nirvana(goal) and to_goap_goal(goal).satisfied_by(split(world_state)[0])
