"""The goal-count heuristic: how many goal conditions the state does not satisfy yet."""

from __future__ import annotations

from goap.planning._conditions import holds
from goap.planning._task import State, Task
from goap.planning.heuristics.base import INF

__all__ = ["GoalCount"]


class GoalCount:
    """The number of unsatisfied goal conditions (numeric ones included).

    Admissible only when every action costs at least 1, so it is declared inadmissible. It is the
    estimate of classic game-AI GOAP planners; with ``AStar(tie_break="fifo")`` it reproduces their
    order of expansion.
    """

    name = "goalcount"
    admissible = False

    def __init__(self, task: Task) -> None:
        self._task = task
        self._impossible = task.impossible
        finite = []
        for facts in task.goal_facts:
            var = task.variables[task.fact_var[facts[0]]] if facts else None
            if var is not None:
                finite.append((var.shift, var.mask, frozenset(f - var.base for f in facts)))
        self._finite = tuple(finite)
        self._numeric = task.numeric_goal

    def __call__(self, state: State) -> float:
        """The count of goal conditions ``state`` misses (``INF`` for an impossible goal)."""
        if self._impossible:
            return INF
        task = self._task
        p = task.packed(state)
        n = sum(1 for sh, m, ok in self._finite if (p >> sh) & m not in ok)
        if self._numeric:
            nums = state[1]
            n += sum(1 for i, c in self._numeric if not holds(c, nums[i]))
        return float(n)
