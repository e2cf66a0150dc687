"""Best-first search over a compiled task: A*, weighted A* and greedy best-first.

The open list holds ``(key, h, counter, g, state)``. ``key`` is ``g + w * h`` (A*: ``w = 1``;
greedy: ``key = h``). Ties on ``key`` go to the smaller ``h`` (the node closer to the goal), then
to the earlier insertion (the counter), so the same inputs always give the same plan.

Heuristic values are computed lazily: a child enters the open list with the bound it inherits
from its parent (``max(0, h(parent) - cost)``, admissible whenever ``h`` is) and is evaluated
only when popped; if its real value raises its key, it goes back to the open list. Expensive
heuristics like LM-cut then run only on states that are actually expanded. A state reached again
more cheaply is reopened, so A* returns a least-cost plan whenever ``h`` is admissible.

Symmetry folding (``canon``) stores each generated state as its representative and the
permutation that maps it there. A* on representatives is optimal whatever representative ``canon``
picks, as long as it is the state mapped by a symmetry of the task (a permutation of objects that
maps operators to operators of the same cost and the goal to itself): a plan's states mapped one by
one to representatives give a path of the same cost through stored states (the operator mapped by
the same symmetry is applicable), and a path through representatives maps back to a real plan of
the same cost (:meth:`goap.planning._symmetry.Symmetry.realize`). So the cheapest path among stored states
costs the optimum, and a state and its representative have the same optimal cost to the goal, so an
admissible heuristic stays admissible. ``canon`` need not be a true canonical form (a state may have
several representatives, a state may be its own representative under a non-trivial permutation):
that only costs expansions.

Folding can start mid-search (``detect_symmetry``, called once when the expansion count reaches
``symmetry_after``). When it finds symmetry, the search starts again from the initial state with
folding on, keeping only what is a property of a state and not of a path: heuristic values (each
representative also gets the largest value known for a state it stands for, admissible as above)
and LM-cut landmarks. From then on it is A* with folding from the first expansion, hence optimal;
the restart repeats at most ``symmetry_after`` expansions, mostly without heuristic evaluations.
The open list is not folded in place: the closed states stay unfolded, their ``best_g`` entries
then stand for states no entry holds any more, and a folded entry dropped in favour of such an
entry (or of a state that is its own representative, whose entry was itself replaced) loses its
part of the state space. That returned cost 31 with ``optimal=True`` on a 10-ball gripper whose
optimum is 29 (``tests/goap/planning/test_goap_optimal_oracles.py``).

:func:`search` is the entry point: it runs :func:`best_first` in C (``goap.planning._lmcut``'s
``Core.search``, a step-for-step port that returns the same outcome) when the heuristic is the C
LM-cut and every operator of the task is pure mask arithmetic, and in Python otherwise.
"""

from __future__ import annotations

import heapq
import sys
import time
from collections.abc import Callable
from typing import Any, Literal

from goap.planning._task import CompiledOp, State, Task
from goap.planning.heuristics.base import INF, Heuristic

__all__ = ["OnPop", "SearchOutcome", "best_first", "search"]

_EPS = 1e-12
"""Relative tolerance of cost comparisons: a path is cheaper only when it beats the known one by
more than ``_EPS`` times its cost. It absorbs the rounding of float sums (paths of one cost summed
in another order) and, being relative, never hides a real difference however small the costs are
(an absolute 1e-9 made a 2e-10 plan lose to a 3e-10 one that was then claimed optimal)."""
_clock: Callable[[], float] = time.perf_counter
"""The clock deadlines are read from (a module attribute so tests can count its reads).

Both loops read it after every heuristic evaluation and every expansion: on a big task one
LM-cut evaluation can outlast thousands of expansions of a small one, so a fixed count of
expansions between reads (it was 128) let a 1 s timeout run 13 s on 10,000 random actions. A
read costs ~50 ns, noise beside either unit of work."""
_LM_BYTES_MIN = 16 << 20
"""Landmark bytes held before the first drop of dead ones (``_drop_landmarks``; C: LM_BYTES_MIN)."""
_ENTRY_BYTES = 130
"""Bytes of one open-list entry's objects (its tuple and floats), for ``max_memory``."""
_STATE_BYTES = 112
"""Bytes of the objects the Python loop holds per stored state beyond the state itself (its parent
link tuple, g and h floats); the dicts' and the set's own tables are measured (``_memory``)."""

Canon = Callable[[State], tuple[State, Any]]
"""Symmetry canonicalizer: ``state -> (representative, permutation)``."""
OnPop = Callable[[int, int | None, CompiledOp | None, State, float, float], None]
"""Observer of the search: ``on_pop(node, parent, op, state, g, h)`` (see :func:`best_first`)."""


class SearchOutcome:
    """Raw result of one search (the planner turns it into a PlanResult).

    A plain slotted class (not a dataclass): the planning path creates no dataclass it can do
    without, each one costing start-up time of ``python -m goap plan``."""

    __slots__ = (  # noqa: RUF023 (the constructor's argument order)
        "status",
        "path",
        "cost",
        "expanded",
        "generated",
        "evaluated",
        "reopened",
        "initial_h",
        "budget",
        "loop",
    )

    def __init__(
        self,
        status: Literal["found", "no_plan", "budget_exhausted"],
        path: list[tuple[CompiledOp, Any]],
        cost: float,
        expanded: int,
        generated: int,
        evaluated: int,
        reopened: int,
        initial_h: float,
        budget: str | None = None,
        loop: str = "python",
    ) -> None:
        self.status = status
        self.path = path
        """(operator applied to the parent representative, permutation of the child)."""
        self.cost = cost
        self.expanded = expanded
        self.generated = generated
        self.evaluated = evaluated
        self.reopened = reopened
        self.initial_h = initial_h
        self.budget = budget
        """The budget that ran out (``status == "budget_exhausted"``): ``"max_expansions"``,
        ``"timeout"`` or ``"max_memory_mb"``."""
        self.loop = loop
        """Which loop searched: ``"c"`` or ``"python"`` (not compared: both give the same outcome)."""

    def __repr__(self) -> str:
        return (
            f"SearchOutcome(status={self.status!r}, cost={self.cost!r}, expanded={self.expanded!r},"
            f" generated={self.generated!r}, evaluated={self.evaluated!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SearchOutcome):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in SearchOutcome.__slots__ if f != "loop")

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value (as the dataclass was)


def search(
    task: Task,
    h: Heuristic,
    *,
    weight: float = 1.0,
    greedy: bool = False,
    max_expansions: int | None = None,
    deadline: float | None = None,
    canon: Canon | None = None,
    detect_symmetry: Callable[[], Canon | None] | None = None,
    symmetry_after: int = 0,
    max_memory: int | None = None,
    fifo_ties: bool = False,
    on_pop: OnPop | None = None,
) -> SearchOutcome:
    """:func:`best_first` (same arguments, same outcome), in C when the task and heuristic allow it.

    ``max_memory`` bounds the bytes the search holds (its state tables, open list and landmarks,
    as each loop counts them): beyond it the search ends ``budget_exhausted``.
    """
    native = getattr(h, "native_search", None)
    if native is None or not task.mask_only or task.initial != 0 or fifo_ties or on_pop is not None:
        return best_first(
            task,
            h,
            weight=weight,
            greedy=greedy,
            max_expansions=max_expansions,
            deadline=deadline,
            canon=canon,
            detect_symmetry=detect_symmetry,
            symmetry_after=symmetry_after,
            max_memory=max_memory,
            fifo_ties=fifo_ties,
            on_pop=on_pop,
        )
    switch_at = symmetry_after if detect_symmetry is not None and symmetry_after > 0 else -1
    if detect_symmetry is not None and switch_at < 0:
        canon = detect_symmetry()
        detect_symmetry = None
    status, path, cost, expanded, generated, evaluated, reopened, h0 = native(
        task.ops,
        task.bucket_facts,
        [d[0] for d in task.goal_facts],
        weight,
        greedy,
        -1 if max_expansions is None else max_expansions,
        deadline,
        _clock,
        canon,
        detect_symmetry,
        switch_at,
        -1 if max_memory is None else max_memory,
        _LM_BYTES_MIN,
    )
    ops = task.ops
    budget = None
    if status == "budget_exhausted":
        # The C loop checks the same three limits as best_first and says only that one ran out.
        if max_expansions is not None and expanded >= max_expansions:
            budget = "max_expansions"
        elif deadline is not None and time.perf_counter() >= deadline:
            budget = "timeout"
        else:
            budget = "max_memory_mb"
    return SearchOutcome(
        status,
        [(ops[i], perm) for i, perm in path],
        cost,
        expanded,
        generated,
        evaluated,
        reopened,
        h0,
        budget,
        "c",
    )


def best_first(
    task: Task,
    h: Heuristic,
    *,
    weight: float = 1.0,
    greedy: bool = False,
    max_expansions: int | None = None,
    deadline: float | None = None,
    canon: Canon | None = None,
    detect_symmetry: Callable[[], Canon | None] | None = None,
    symmetry_after: int = 0,
    max_memory: int | None = None,
    fifo_ties: bool = False,
    on_pop: OnPop | None = None,
) -> SearchOutcome:
    """Run A* (``weight=1``), weighted A* or greedy best-first search from the initial state.

    ``canon`` folds symmetric states from the start; ``detect_symmetry`` instead returns a
    canonicalizer (or None) once ``symmetry_after`` states have been expanded, so a search that
    ends sooner never pays for symmetry detection (it replaces ``canon``). ``max_memory`` (bytes,
    an estimate of the loop's own tables) ends the search ``budget_exhausted`` when exceeded.
    ``fifo_ties`` gives the textbook order: successors generated in operator order, each
    evaluated when generated, and ties on the key broken by insertion order alone (the
    earlier-generated node first) rather than by the smaller ``h``. ``on_pop(node, parent, op,
    state, g, h)`` is called for each entry taken from the open list, before anything else is done
    with it (entries superseded by a cheaper path included; node ids number the pushes, the root is
    0; ``parent`` and ``op`` are None for the root; ``h`` is its best known value).
    """
    switch_at = symmetry_after if detect_symmetry is not None and symmetry_after > 0 else -1
    if detect_symmetry is not None and switch_at < 0:
        canon = detect_symmetry()
    start = task.initial
    # incremental heuristics (LM-cut) hand their landmarks down to the children (not across a
    # symmetry fold: a child stored as a permuted representative starts afresh)
    incremental = getattr(h, "incremental", False)
    lms: dict[State, Any] = {}
    lm_bytes = 0
    lm_trigger = _LM_BYTES_MIN
    if incremental:
        h0, lms[start] = h.evaluate(start, ())  # type: ignore[attr-defined]
        lm_bytes = len(lms[start])
    else:
        h0 = h(start)
    evaluated = 1
    if h0 == INF:
        return SearchOutcome("no_plan", [], 0.0, 0, 0, evaluated, 0, h0)
    hcache: dict[State, float] = {start: h0}
    best_g: dict[State, float] = {start: 0.0}
    parent: dict[State, tuple[State, CompiledOp, Any] | None] = {start: None}
    closed: set[State] = set()
    counter = 0
    born: dict[int, tuple[int, CompiledOp]] = {}  # node id -> (parent node id, operator), for on_pop
    open_: list[tuple[float, float, int, float, State]] = [(h0 if greedy else weight * h0, h0, 0, 0.0, start)]
    expanded = generated = reopened = 0
    expand = task.expand
    is_goal = task.is_goal
    push = heapq.heappush
    pop = heapq.heappop
    limit = max_expansions if max_expansions is not None else -1
    per_state = _STATE_BYTES + _size(start)
    mem_limit = max_memory if max_memory is not None else -1
    clock = _clock
    while open_:
        key, hk, cid, g, s = pop(open_)
        if on_pop is not None:
            up, via = born.get(cid, (None, None))
            on_pop(cid, up, via, s, g, hcache.get(s, hk))
        bg = best_g[s]
        if g > bg + _EPS * bg:
            continue  # a cheaper path to s was pushed later
        if is_goal(s):
            return SearchOutcome("found", _path(parent, s), g, expanded, generated, evaluated, reopened, h0)
        hv = hcache.get(s)
        if hv is None:
            if incremental:
                link = parent[s]
                inherited: Any = ()
                if link is not None and link[2] is None and link[0] in lms:
                    inherited = h.inherit(lms[link[0]], link[1])  # type: ignore[attr-defined]
                hv, lm = h.evaluate(s, inherited)  # type: ignore[attr-defined]
                if lm_bytes + len(lm) > lm_trigger:
                    lm_bytes = _drop_landmarks(lms, parent, hcache, closed)
                    lm_trigger = max(_LM_BYTES_MIN, 2 * lm_bytes)
                lms[s] = lm
                lm_bytes += len(lm)
            else:
                hv = h(s)
            evaluated += 1
            if deadline is not None and clock() > deadline:
                return SearchOutcome(
                    "budget_exhausted", [], 0.0, expanded, generated, evaluated, reopened, h0, "timeout"
                )
            if hv < hk:
                hv = hk  # pathmax: the inherited bound is admissible too
            hcache[s] = hv
            if hv == INF:
                continue
            nkey = hv if greedy else g + weight * hv
            if nkey > key + _EPS * abs(key):
                counter += 1
                push(open_, (nkey, 0.0 if fifo_ties else hv, counter, g, s))
                if on_pop is not None and cid in born:
                    born[counter] = born[cid]
                continue
        elif hv == INF:
            continue
        if expanded == switch_at:
            # about to expand one more state than the threshold: detect symmetry; when there is
            # some, restart from the start with folding on (see the module docstring: why not fold)
            switch_at = -1
            canon = detect_symmetry()  # type: ignore[misc]
            if canon is not None:
                _carry_h(hcache, canon)
                best_g = {start: 0.0}
                parent = {start: None}
                closed = set()
                hs = hcache[start]
                counter += 1
                open_ = [(hs if greedy else weight * hs, hs, counter, 0.0, start)]
                continue
        if s in closed:
            reopened += 1
        closed.add(s)
        expanded += 1
        if expanded == limit:
            return SearchOutcome(
                "budget_exhausted", [], 0.0, expanded, generated, evaluated, reopened, h0, "max_expansions"
            )
        if (
            mem_limit >= 0
            and expanded & 7 == 0
            and _memory(best_g, parent, hcache, closed, open_, per_state) + lm_bytes > mem_limit
        ):
            return SearchOutcome(
                "budget_exhausted", [], 0.0, expanded, generated, evaluated, reopened, h0, "max_memory_mb"
            )
        if deadline is not None and clock() > deadline:
            return SearchOutcome(
                "budget_exhausted", [], 0.0, expanded, generated, evaluated, reopened, h0, "timeout"
            )
        succ = expand(s)
        if fifo_ties:
            succ.sort(key=_op_order)
        for op, child, c in succ:
            if child == s:
                continue  # effects that already hold give the same state again, never cheaper
            generated += 1
            perm = None
            if canon is not None:
                child, perm = canon(child)
            ng = g + c
            old = best_g.get(child)
            if old is not None and ng >= old - _EPS * old:
                continue
            best_g[child] = ng
            parent[child] = (s, op, perm)
            hc = hcache.get(child)
            if hc is None and fifo_ties:
                hc = hcache[child] = h(child)  # evaluated when generated, as in textbook A*
                evaluated += 1
                if deadline is not None and clock() > deadline:
                    return SearchOutcome(
                        "budget_exhausted", [], 0.0, expanded, generated, evaluated, reopened, h0, "timeout"
                    )
                if hc == INF:
                    continue
            elif hc is None:
                hc = hv - c
                if hc < 0.0:
                    hc = 0.0
            elif hc == INF:
                continue
            counter += 1
            push(open_, (hc if greedy else ng + weight * hc, 0.0 if fifo_ties else hc, counter, ng, child))
            if on_pop is not None:
                born[counter] = (cid, op)
    return SearchOutcome("no_plan", [], 0.0, expanded, generated, evaluated, reopened, h0)


def _op_order(item: tuple[CompiledOp, State, float]) -> int:
    return item[0].index


def _carry_h(hcache: dict[State, float], canon: Canon) -> None:
    """Give each representative the best heuristic value known for a state it stands for.

    The task's symmetries map operators to operators of the same cost and the goal to itself, so a
    state and its representative have the same optimal cost to the goal: a value admissible for
    one is admissible for the other, and the larger of two admissible values is admissible.
    """
    for s, hs in list(hcache.items()):
        rep = canon(s)[0]
        if rep != s:
            old = hcache.get(rep)
            if old is None or hs > old:
                hcache[rep] = hs


def _memory(
    best_g: dict[State, float],
    parent: dict[State, Any],
    hcache: dict[State, float],
    closed: set[State],
    open_: list[Any],
    per_state: int,
) -> int:
    """Bytes the Python loop holds: its tables as allocated (a dict or set grows in steps, so its
    size runs ahead of its length), plus the objects they refer to. Half the tables again is
    counted for the moment a table grows, when the old and the new one are both held."""
    tables = sys.getsizeof(best_g) + sys.getsizeof(parent) + sys.getsizeof(hcache)
    tables += sys.getsizeof(closed) + sys.getsizeof(open_)
    return tables + tables // 2 + len(best_g) * per_state + len(open_) * _ENTRY_BYTES


def _size(state: State) -> int:
    """Bytes of a state object (an int, or a tuple of an int and numbers)."""
    if isinstance(state, tuple):
        return sys.getsizeof(state) + sum(_size(x) for x in state)
    return sys.getsizeof(state)


def _drop_landmarks(
    lms: dict[State, Any],
    parent: dict[State, tuple[State, CompiledOp, Any] | None],
    hcache: dict[State, float],
    closed: set[State],
) -> int:
    """Drop the landmarks no child will inherit; the bytes kept.

    A state's landmarks are kept while it is open (its children will inherit them) or one of its
    children, linked to it without a permutation, is not evaluated yet. A closed state reopened
    later evaluates its children afresh (admissible all the same). Without this every evaluated
    state's landmarks stay: a chain of n actions holds n^2 / 2 of them. The C loop drops the same.
    """
    live = {link[0] for c, link in parent.items() if link is not None and link[2] is None and c not in hcache}
    for st in [st for st in lms if st in closed and st not in live]:
        del lms[st]
    return sum(len(v) for v in lms.values())


def _path(
    parent: dict[State, tuple[State, CompiledOp, Any] | None], s: State
) -> list[tuple[CompiledOp, Any]]:
    out: list[tuple[CompiledOp, Any]] = []
    link = parent[s]
    while link is not None:
        prev, op, perm = link
        out.append((op, perm))
        link = parent[prev]
    out.reverse()
    return out
