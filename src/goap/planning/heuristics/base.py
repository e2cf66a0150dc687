"""The delete relaxation every heuristic here works on, and the h^max fixpoint they share.

The relaxed task has one fact per (finite fact, value) pair of the compiled task, plus ``TOP``
(always true: the precondition of operators that have none) and ``GOAL`` (added by a zero-cost
goal operator whose preconditions are the goal facts). A goal fact that allows several values
gets its own auxiliary fact, reached by one zero-cost operator per allowed value.

Numeric conditions and effects, run-time set conditions and state-dependent costs are relaxed
away (numeric conditions count as true, costs use their ``min_cost`` lower bound): the relaxed
task is easier than the real one, so every admissible heuristic on it stays admissible.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from functools import cached_property
from typing import Protocol

from goap.planning._task import State, Task

__all__ = ["INF", "Heuristic", "RelaxedHeuristic", "RelaxedTask"]

INF = float("inf")
"""Heuristic value of a dead end (the goal is unreachable even in the relaxation)."""

_MAX_BUCKET_COST = 1000
"""Largest whole-number cost for which h^max uses buckets (one per value up to the largest h)."""


class Heuristic(Protocol):
    """A goal-distance estimate: ``h(state) -> float`` (``INF`` for a proven dead end)."""

    name: str
    """Registry name, e.g. ``"lmcut"``."""
    admissible: bool
    """Whether it never overestimates the least remaining cost (then A* is optimal)."""

    def __call__(self, state: State, /) -> float:
        """The estimate for ``state``."""
        ...


class RelaxedTask:
    """The delete relaxation of a compiled :class:`goap.planning._task.Task` (see the module docstring)."""

    def __init__(self, task: Task) -> None:
        self.task = task
        nf = task.nfacts
        self.top = nf
        nfacts = nf + 1
        pres: list[tuple[int, ...]] = []
        effs: list[tuple[int, ...]] = []
        costs: list[float] = []
        self.op_source: list[int] = []
        """Compiled operator index of each relaxed operator (-1 for goal operators)."""
        for op in task.ops:
            if not op.eff:
                continue  # only numeric effects: useless in the relaxation
            pres.append(op.pre if op.pre else (self.top,))
            effs.append(op.eff)
            costs.append(op.cost)
            self.op_source.append(op.index)
        goal_pre: list[int] = []
        for disj in task.goal_facts:
            if len(disj) == 1:
                goal_pre.append(disj[0])
                continue
            aux = nfacts
            nfacts += 1
            for f in disj:
                pres.append((f,))
                effs.append((aux,))
                costs.append(0.0)
                self.op_source.append(-1)
            goal_pre.append(aux)
        self.goal = nfacts
        nfacts += 1
        pres.append(tuple(goal_pre) if goal_pre else (self.top,))
        effs.append((self.goal,))
        costs.append(0.0)
        self.op_source.append(-1)
        self.nfacts = nfacts
        self.pres = pres
        self.effs = effs
        self.costs = costs
        self.impossible = task.impossible
        self.integral = all(float(c).is_integer() and 0 <= c <= _MAX_BUCKET_COST for c in costs)
        """Whether every cost is a small whole number (then h^max uses a bucket queue, no heap)."""

    # the indexes below are built on first use: the C LM-cut builds its own and never reads them
    @cached_property
    def pre_count(self) -> list[int]:
        """Number of preconditions of each relaxed operator."""
        return [len(p) for p in self.pres]

    @cached_property
    def pre_of(self) -> tuple[tuple[int, ...], ...]:
        """Relaxed operators that have each fact as a precondition."""
        return _by_fact(self.nfacts, self.pres)

    @cached_property
    def achievers(self) -> tuple[tuple[int, ...], ...]:
        """Relaxed operators that add each fact."""
        return _by_fact(self.nfacts, self.effs)

    def init_facts(self, state: State) -> list[int]:
        """The relaxed facts true in ``state`` (including ``TOP``)."""
        facts = self.task.facts(state)
        facts.append(self.top)
        return facts

    def _fresh(self, init: list[int]) -> tuple[list[float], list[int], list[int], bytearray]:
        """The tables of one h^max pass from ``init``: h (0 on ``init``, else infinite), the count of
        unsettled preconditions and the supporter (-1: none yet) of each operator, settled flags."""
        h = [INF] * self.nfacts
        for f in init:
            h[f] = 0.0
        unsat = self.pre_count[:]
        return h, unsat, [-1] * len(unsat), bytearray(self.nfacts)

    def hmax_buckets(self, init: list[int], cost: list[float]) -> tuple[list[float], list[int]]:
        """:meth:`hmax` for whole-number costs: Dial's bucket queue instead of a binary heap.

        Same result; cheaper because values are small integers and no tuples are allocated.
        """
        h, unsat, supp, done = self._fresh(init)
        pre_of, effs = self.pre_of, self.effs
        buckets: list[list[int]] = [list(init)]
        d = 0
        while d < len(buckets):
            # the list may grow while it is walked (zero-cost operators push into bucket d)
            for f in buckets[d]:
                if done[f]:
                    continue
                done[f] = 1
                for o in pre_of[f]:
                    unsat[o] -= 1
                    if not unsat[o]:
                        supp[o] = f
                        nd = d + int(cost[o])
                        for e in effs[o]:
                            if nd < h[e]:
                                h[e] = nd
                                while len(buckets) <= nd:
                                    buckets.append([])
                                buckets[nd].append(e)
            d += 1
        return h, supp

    def hmax(self, init: list[int], cost: list[float]) -> tuple[list[float], list[int]]:
        """h^max of every fact from ``init`` under operator costs ``cost``.

        Returns ``(h, supporter)``: ``supporter[o]`` is the precondition of operator ``o`` with the
        largest h^max (the last one settled), or -1 when ``o`` is unreachable. A generalized
        Dijkstra: an operator fires when its last precondition is settled, in cost order.
        """
        h, unsat, supp, done = self._fresh(init)
        pre_of, effs = self.pre_of, self.effs
        heap = [(0.0, f) for f in init]
        pop = heapq.heappop
        push = heapq.heappush
        while heap:
            d, f = pop(heap)
            if done[f]:
                continue
            done[f] = 1
            for o in pre_of[f]:
                unsat[o] -= 1
                if unsat[o] == 0:
                    supp[o] = f
                    nd = d + cost[o]
                    for e in effs[o]:
                        if nd < h[e]:
                            h[e] = nd
                            push(heap, (nd, e))
        return h, supp


def _by_fact(nfacts: int, facts_of_op: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    """For each fact, the operators whose list (preconditions or effects) holds it, in order."""
    out: list[list[int]] = [[] for _ in range(nfacts)]
    for o, facts in enumerate(facts_of_op):
        for f in facts:
            out[f].append(o)
    return tuple(tuple(x) for x in out)


class RelaxedHeuristic:
    """A heuristic computed on the delete relaxation: the relaxed task is built once per task, and a
    goal the relaxation proves impossible is ``INF`` in every state."""

    name: str
    """Registry name."""
    admissible: bool
    """Whether it never overestimates the least remaining cost."""

    def __init__(self, task: Task) -> None:
        self._rt = RelaxedTask(task)

    def __call__(self, state: State) -> float:
        """The heuristic value of ``state`` (``INF`` when the relaxation cannot reach the goal)."""
        rt = self._rt
        if rt.impossible:
            return INF
        return self._value(rt, rt.init_facts(state))

    def _value(self, rt: RelaxedTask, init: list[int]) -> float:
        """The value from the relaxed facts ``init`` of a state (the goal is not proven impossible)."""
        raise NotImplementedError
