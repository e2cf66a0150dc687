"""LM-cut (Helmert and Domshlak 2009): the default admissible heuristic, computed incrementally.

Repeat until the goal's h^max is 0: compute h^max with the current operator costs, build the
justification graph (each operator's edge runs from its h^max supporter, its most expensive
precondition, to each of its effects), take the *goal zone* (facts from which the goal is reached
through zero-cost edges) and the cut of operators whose supporter is reachable from the state
without entering the goal zone and that add a goal-zone fact. The cut is a disjunctive action
landmark: every relaxed plan uses one of its operators. Add its cheapest cost ``m`` to ``h`` and
subtract ``m`` from every operator in the cut. The landmarks and their ``m`` form a cost
partitioning, so ``h`` never exceeds the optimal cost; zero-cost operators never enter a cut.

Two incremental steps keep it affordable in Python:

- after a cut, h^max is *updated* from the cut operators' effects (costs only fell, so values
  only fall) instead of recomputed from scratch;
- a child state inherits its parent's landmarks that do not contain the operator leading to it
  (Pommerening and Helmert 2013): every plan from the child, prefixed by that operator, is a plan
  from the parent, so each such landmark still holds. Their costs are pre-subtracted and the cut
  loop continues from there, which turns long chains of unit landmarks from O(n^2) work per state
  into O(n).

Which precondition is an operator's supporter when several share the largest h^max is free (any
choice is admissible) but changes the cuts and the value, by up to a fifth on IPC tasks:

- h^max picks the precondition settled last; when the goal zone grows through a zero-cost
  operator, a tied precondition on the zone's border (no zero-cost achiever) or already in the
  zone is preferred, which keeps the zone and the cuts small (Fast Downward's goal-zone and border
  tie-breaking);
- when a cut lowers an operator's supporter, its new one is the highest-ranked of the tied
  preconditions. Which ranking does best depends on the task (the fact id, i.e. the sorted fact
  names, suits rovers; a fixed hash of it satellite), so the first :data:`TIE_PROBES` evaluations
  run both and keep the larger value, counting which ranking gave the strictly larger one; the
  one that did so more often is used alone from then on. An evaluation whose first run chose no
  supporter by rank skips the second, which would repeat it step for step.

The cut itself stops at operators that enter the goal zone (their other effects are not explored
through them, as in Fast Downward): a smaller landmark, still a cut.

State-dependent costs use their ``min_cost`` lower bound and numeric conditions are relaxed away
(see :mod:`goap.planning.heuristics.base`), which keeps admissibility.

The per-state computation runs in the optional C extension :mod:`goap.planning._lmcut` when it is built
(``pip install -e .`` builds it); it follows this module step for step, so h values, landmarks
and plans are the same. Without it, or with ``GOAP_PURE_PYTHON=1`` in the environment, the
pure-Python code below runs. Landmarks are opaque to the search: tuples here, bytes in C.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Sequence
from typing import Any, TypeAlias

from goap.planning._task import CompiledOp, State, Task
from goap.planning.heuristics.base import INF, RelaxedTask

__all__ = ["ACCELERATED", "LMCut", "Landmarks"]

_core: Any = None
if os.environ.get("GOAP_PURE_PYTHON", "") != "1":
    try:
        from goap.planning import _lmcut as _core
    except ImportError:  # the extension was not built: the pure-Python code below runs
        _core = None
        import logging  # here only: `python -m goap plan` loads no logging otherwise

        logging.getLogger(__name__).debug(
            "goap.planning._lmcut is not built (no C compiler when goap was installed?): LM-cut "
            "and the A* loop run in pure Python (same results, slower; `python -m goap plan --json` "
            'says "search": "python")'
        )

ACCELERATED: bool = _core is not None
"""Whether LM-cut runs in the C extension by default (built, and ``GOAP_PURE_PYTHON`` unset)."""

_EPS = 1e-9

TIE_PROBES = 512
"""Evaluations (with a finite value) that run both supporter rankings before one is chosen."""


def hashed_rank(fact: int) -> int:
    """The second ranking's rank of a fact id (see the module docstring): a fixed hash, uncorrelated
    with the id order."""
    return (((fact * 2654435761 + 1) & 0xFFFFFFFF) * 2246822519) & 0xFFFFFFFF


Landmarks: TypeAlias = tuple[tuple[frozenset[int], float], ...]
"""A cost partitioning: (relaxed operator ids of a landmark, the cost it was given)."""


class LMCut:
    """The LM-cut heuristic; admissible and usually the most informative one here."""

    name = "lmcut"
    admissible = True
    incremental = True
    """The search may pass a parent's landmarks to :meth:`evaluate`."""
    native_search: Any = None
    """With the C core: its ``search``, :func:`goap.planning._search.best_first` run in C on this heuristic
    (:func:`goap.planning._search.search` uses it for tasks it applies to)."""

    def __init__(self, task: Task, *, accelerated: bool | None = None) -> None:
        """Precompute the relaxed task; ``accelerated`` (default :data:`ACCELERATED`) picks the C core.

        Raises ``ImportError`` when ``accelerated=True`` but the extension is not available.
        """
        rt = self._rt = RelaxedTask(task)
        use_c = ACCELERATED if accelerated is None else accelerated
        if use_c and _core is None:
            raise ImportError("goap.planning._lmcut is not built; reinstall with: pip install -e .")
        self.accelerated = use_c
        """Whether :meth:`evaluate` runs in the C extension."""
        if use_c:
            relaxed_of = [-1] * len(task.ops)
            for r, src in enumerate(rt.op_source):
                if src >= 0:
                    relaxed_of[src] = r
            core = _core.Core(
                nfacts=rt.nfacts,
                pres=rt.pres,
                effs=rt.effs,
                costs=rt.costs,
                goal=rt.goal,
                top=rt.top,
                varinfo=task._varinfo,
                relaxed_of=relaxed_of,
                integral=rt.integral,
                impossible=rt.impossible,
                numeric=task.numeric,
            )
            self.evaluate = core.evaluate  # type: ignore[method-assign]
            core_inherit = core.inherit

            def inherit(landmarks: Any, op: CompiledOp) -> Any:
                return core_inherit(landmarks, op.index) if landmarks else landmarks

            self.inherit = inherit  # type: ignore[method-assign]
            self._core = core
            self.native_search = core.search
        else:
            self._relaxed_of: dict[int, int] = {src: i for i, src in enumerate(rt.op_source) if src >= 0}
            self._hashed = [hashed_rank(f) for f in range(rt.nfacts)]
            self._tie_use = 0
            self._tie_probes = 0
            self._tie_wins = [0, 0]
            self._tie_hit = False

    def __call__(self, state: State) -> float:
        """The LM-cut value of ``state`` (``INF`` for a relaxed dead end)."""
        return self.evaluate(state, ())[0]

    def inherit(self, landmarks: Landmarks, op: CompiledOp) -> Landmarks:
        """The parent's landmarks still valid after applying ``op``."""
        r = self._relaxed_of.get(op.index, -1)
        if r < 0:
            return landmarks
        return tuple(lm for lm in landmarks if r not in lm[0])

    def evaluate(self, state: State, inherited: Landmarks) -> tuple[float, Landmarks]:
        """LM-cut of ``state`` starting from ``inherited`` landmarks; returns (h, all landmarks).

        While the supporter ranking is not chosen, both run and the larger value is kept (the first
        one's on equal values); see the module docstring.
        """
        rt = self._rt
        if rt.impossible:
            return INF, ()
        use = self._tie_use
        self._tie_hit = False
        first = self._once(state, inherited, self._hashed if use == 2 else None)
        if use != 0 or first[0] == INF:
            return first
        if not self._tie_hit:
            # no supporter was chosen by rank: the second ranking would repeat this run step for
            # step (same value, a probe neither wins), so it is not run
            self._tie_probes += 1
            if self._tie_probes == TIE_PROBES:
                self._tie_use = 2 if self._tie_wins[1] > self._tie_wins[0] else 1
            return first
        second = self._once(state, inherited, self._hashed)
        self._tie_probes += 1
        if second[0] > first[0]:
            self._tie_wins[1] += 1
        elif first[0] > second[0]:
            self._tie_wins[0] += 1
        if self._tie_probes == TIE_PROBES:
            self._tie_use = 2 if self._tie_wins[1] > self._tie_wins[0] else 1
        return second if second[0] > first[0] else first

    def _once(self, state: State, inherited: Landmarks, rank: list[int] | None) -> tuple[float, Landmarks]:
        """LM-cut under one supporter ranking (``rank``; None: the fact id)."""
        rt = self._rt
        init = rt.init_facts(state)
        cost = rt.costs[:]
        total = 0.0
        for ops, m in inherited:
            total += m
            for o in ops:
                cost[o] -= m
        h, supp = rt.hmax_buckets(init, cost) if rt.integral else rt.hmax(init, cost)
        goal = rt.goal
        if h[goal] == INF:
            return INF, ()
        found: list[tuple[frozenset[int], float]] = list(inherited)
        nfacts = rt.nfacts
        achievers = rt.achievers
        effs = rt.effs
        pre_of = rt.pre_of
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
                        if s >= 0:
                            s = _zone_supporter(rt, o, s, h, cost, zone, supp)
                        if s >= 0 and not zone[s]:
                            zone[s] = 1
                            stack.append(s)
            # forward from the state without entering the goal zone; edges into it form the cut
            seen = bytearray(nfacts)
            stack = []
            for f in init:
                if not seen[f]:
                    seen[f] = 1
                    stack.append(f)
            cut: list[int] = []
            while stack:
                f = stack.pop()
                for o in pre_of[f]:
                    if supp[o] != f:
                        continue
                    if any(zone[e] for e in effs[o]):
                        # into the goal zone: in the cut, and its other effects are not explored
                        # through it (a path through them already used a cut operator), so the
                        # cut stays a landmark and a smaller one
                        cut.append(o)
                        continue
                    for e in effs[o]:
                        if not seen[e]:
                            seen[e] = 1
                            stack.append(e)
            m = min(cost[o] for o in cut)
            if not m > 0:
                # a zero-cost operator in the cut (costs each <= EPS, summing above it) would
                # repeat this cut forever; stop with the landmarks so far, as the C core does
                break
            total += m
            for o in cut:
                cost[o] -= m
            found.append((frozenset(cut), m))
            if _decrease(rt, h, supp, cost, cut, rank):
                self._tie_hit = True
        return total, tuple(found)


def _zone_supporter(
    rt: RelaxedTask, o: int, s: int, h: list[float], cost: list[float], zone: bytearray, supp: list[int]
) -> int:
    """The supporter of zero-cost operator ``o`` (now ``s``) as the goal zone grows through it.

    Among the preconditions of ``s``'s value, the first that is on the zone's border (no achiever
    of cost <= EPS) or already in the zone, else ``s``; the choice is kept in ``supp``. Any
    precondition of the largest value is a correct supporter; these keep the goal zone small, so
    cuts are smaller and values larger (Fast Downward's goal-zone and border tie-breaking).
    """
    hs = h[s]
    achievers = rt.achievers
    for p in rt.pres[o]:
        if h[p] != hs:
            continue
        if zone[p] or all(cost[a] > _EPS for a in achievers[p]):
            supp[o] = p
            return p
    return s


def _decrease(
    rt: RelaxedTask,
    h: list[float],
    supp: list[int],
    cost: list[float],
    cut: Sequence[int],
    rank: Sequence[int] | None = None,
) -> bool:
    """Update h^max and supporters in place after the costs of ``cut`` fell.

    Values only fall, so a Dijkstra-style propagation from the cut operators' effects reaches the
    new fixpoint; operators whose preconditions fell get their supporter re-chosen. Returns
    whether a re-chosen supporter was decided by ``rank`` (two preconditions of equal value).
    """
    tie_hit = False
    pres = rt.pres
    effs = rt.effs
    pre_of = rt.pre_of
    heap: list[tuple[float, int]] = []
    for o in cut:
        v = h[supp[o]] + cost[o]
        for e in effs[o]:
            if v < h[e] - _EPS:
                h[e] = v
                heap.append((v, e))
    if not heap:
        return False
    heapq.heapify(heap)
    pop = heapq.heappop
    push = heapq.heappush
    while heap:
        d, f = pop(heap)
        if d > h[f]:
            continue
        for o in pre_of[f]:
            if supp[o] != f:
                # its supporter did not fall (or it is unreachable, and costs do not change
                # reachability): the supporter is still a largest precondition; keeping it keeps
                # the previous cut's justification graph, which gives larger h values
                continue
            best = f
            bv = h[f]
            for p in pres[o]:
                hp = h[p]
                if hp > bv:
                    bv = hp
                    best = p
                elif hp == bv and p != best:
                    # ties: the highest-ranked (the ranking of the module docstring)
                    tie_hit = True
                    if p > best if rank is None else rank[p] > rank[best]:
                        best = p
            supp[o] = best
            v = bv + cost[o]
            for e in effs[o]:
                if v < h[e] - _EPS:
                    h[e] = v
                    push(heap, (v, e))
    return tie_hit
