"""LM-cut (Helmert and Domshlak 2009): the default admissible heuristic.

Repeat until the goal's h^max is 0: compute h^max with the current operator costs, build the
justification graph (each operator's edge runs from its h^max supporter, its most expensive
precondition, to each of its effects), take the *goal zone* (facts from which the goal is reached
through zero-cost edges) and the cut of operators whose supporter is reachable from the state
without entering the goal zone and that add a goal-zone fact. The cut is a disjunctive action
landmark: every plan uses one of its operators. Add its cheapest cost to ``h`` and subtract that
cost from every operator in the cut. The sum never exceeds the optimal cost (cost partitioning),
so ``h`` is admissible; zero-cost operators simply never appear in a cut.

State-dependent costs use their ``min_cost`` lower bound and numeric conditions are relaxed away
(see :mod:`goap.heuristics.base`), which keeps admissibility.
"""

from __future__ import annotations

import heapq

from goap.compile import State, Task
from goap.heuristics.base import INF, RelaxedTask

__all__ = ["LMCut"]

_EPS = 1e-9


class LMCut:
    """The LM-cut heuristic; admissible and usually the most informative one here."""

    name = "lmcut"
    admissible = True

    def __init__(self, task: Task) -> None:
        self._rt = RelaxedTask(task)

    def __call__(self, state: State) -> float:
        """The LM-cut value of ``state`` (``INF`` for a relaxed dead end)."""
        rt = self._rt
        if rt.impossible:
            return INF
        init = rt.init_facts(state)
        cost = rt.costs[:]
        goal = rt.goal
        nfacts = rt.nfacts
        achievers = rt.achievers
        effs = rt.effs
        pres = rt.pres
        pre_of = rt.pre_of
        h, supp = rt.hmax(init, cost)
        if h[goal] == INF:
            return INF
        total = 0.0
        while h[goal] > _EPS:
            # goal zone: facts that reach the goal through zero-cost justification edges
            zone = bytearray(nfacts)
            zone[goal] = 1
            stack = [goal]
            while stack:
                f = stack.pop()
                for o in achievers[f]:
                    if cost[o] <= _EPS:
                        s = supp[o]
                        if s >= 0 and not zone[s]:
                            zone[s] = 1
                            stack.append(s)
            # forward from the state without entering the goal zone; edges leaving into it form the cut
            seen = bytearray(nfacts)
            stack = []
            for f in init:
                if not seen[f]:
                    seen[f] = 1
                    stack.append(f)
            cut: list[int] = []
            in_cut = bytearray(len(cost))
            while stack:
                f = stack.pop()
                for o in pre_of[f]:
                    if supp[o] != f or in_cut[o]:
                        continue
                    crossing = False
                    for e in effs[o]:
                        if zone[e]:
                            crossing = True
                        elif not seen[e]:
                            seen[e] = 1
                            stack.append(e)
                    if crossing:
                        in_cut[o] = 1
                        cut.append(o)
            m = min(cost[o] for o in cut)
            total += m
            for o in cut:
                cost[o] -= m
            h, supp = _hmax_update(rt, h, supp, cost, cut, pres, init)
        return total


def _hmax_update(
    rt: RelaxedTask,
    h: list[float],
    supp: list[int],
    cost: list[float],
    cut: list[int],
    pres: list[tuple[int, ...]],
    init: list[int],
) -> tuple[list[float], list[int]]:
    """h^max after the costs of ``cut`` dropped: recomputed from scratch (simple and exact)."""
    del h, supp, cut, pres
    return rt.hmax(init, cost)


_ = heapq
