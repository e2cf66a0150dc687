"""h^add and h^FF: informative but inadmissible delete-relaxation heuristics (for greedy search)."""

from __future__ import annotations

import heapq

from goap.planning.heuristics.base import INF, RelaxedHeuristic, RelaxedTask

__all__ = ["HAdd", "HFF"]


def _hadd(rt: RelaxedTask, init: list[int]) -> tuple[list[float], list[int]]:
    """h^add of every fact and each fact's best achiever (-1 for initial or unreachable facts)."""
    h = [INF] * rt.nfacts
    best = [-1] * rt.nfacts
    unsat = rt.pre_count[:]
    opval = [0.0] * len(unsat)
    done = bytearray(rt.nfacts)
    heap = [(0.0, f) for f in init]
    for f in init:
        h[f] = 0.0
    pre_of, effs, costs = rt.pre_of, rt.effs, rt.costs
    while heap:
        d, f = heapq.heappop(heap)
        if done[f]:
            continue
        done[f] = 1
        for o in pre_of[f]:
            opval[o] += d
            unsat[o] -= 1
            if unsat[o] == 0:
                nd = opval[o] + costs[o]
                for e in effs[o]:
                    if nd < h[e]:
                        h[e] = nd
                        best[e] = o
                        heapq.heappush(heap, (nd, e))
    return h, best


class HAdd(RelaxedHeuristic):
    """h^add: sum of the goal facts' relaxed costs; inadmissible (counts shared work twice)."""

    name = "add"
    admissible = False

    def _value(self, rt: RelaxedTask, init: list[int]) -> float:
        h, _ = _hadd(rt, init)
        return h[rt.goal]


class HFF(RelaxedHeuristic):
    """h^FF: cost of a relaxed plan extracted from h^add best achievers; inadmissible."""

    name = "ff"
    admissible = False

    def _value(self, rt: RelaxedTask, init: list[int]) -> float:
        """The cost of a relaxed plan (``INF`` when there is none)."""
        h, best = _hadd(rt, init)
        if h[rt.goal] == INF:
            return INF
        used: set[int] = set()
        stack = [rt.goal]
        seen = {rt.goal}
        while stack:
            f = stack.pop()
            o = best[f]
            if o < 0 or o in used:
                continue
            used.add(o)
            for p in rt.pres[o]:
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
        return sum(rt.costs[o] for o in used)
