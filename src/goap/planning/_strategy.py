"""Planning strategies behind one protocol, and their registry.

- :class:`AStar` (default): optimal with the admissible default heuristic (LM-cut); with
  ``weight > 1`` or an inadmissible heuristic it is faster and reports ``optimal=False``.
- :class:`GreedyBestFirst`: expands the state that looks closest to the goal (h^FF by default);
  fast, never claims optimality.

Every strategy first runs relaxed reachability (an unreachable goal is answered "no plan" with
an explanation, without search), then compiles the task (:mod:`goap.planning._compile`), folds symmetric
objects together when it can (:mod:`goap.planning._symmetry`), searches and replays the plan on the user's
actions to compute its cost. Limits end the search with ``"budget_exhausted"``, never a hang.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol, runtime_checkable

from goap.planning._actions import ActionSpec
from goap.planning._checks import check_seconds, freeze_field
from goap.planning._compile import compile_task
from goap.planning._errors import ModelError
from goap.planning._goals import GoalSpec
from goap.planning._prologue import SolveStart, StrategyBase
from goap.planning._result import Plan, PlanResult, SearchStats
from goap.planning._search import Canon, SearchOutcome, search
from goap.planning._task import CompiledOp, Task
from goap.planning.heuristics import HEURISTICS, check_heuristic

if TYPE_CHECKING:
    from goap.planning._symmetry import Symmetry

__all__ = ["STRATEGIES", "AStar", "GreedyBestFirst", "PlanningStrategy", "SearchEvent"]

SYMMETRY_AFTER = 80
"""Expansions before symmetry detection runs (then folding starts mid-search): a search that ends
sooner is cheaper than the detection, so it never pays for it. Detection costs 0.2-1.2 ms on the
shared problems, as much as 30-150 expansions of the C search loop (the Python loop, four to five
times slower per expansion, breaks even near 20). The count, not a clock, decides, so the same call
always gives the same plan."""


@runtime_checkable
class PlanningStrategy(Protocol):
    """Anything that turns (initial state, goal, actions) into a :class:`goap.PlanResult`."""

    @property
    def name(self) -> str:
        """Short description, e.g. ``astar(lmcut)``."""
        ...

    def solve(
        self,
        initial: Mapping[str, Any],
        goal: GoalSpec,
        actions: Sequence[ActionSpec],
        *,
        blacklist: frozenset[str] = frozenset(),
    ) -> PlanResult:
        """Plan for ``goal``; blacklisted action names must never appear in the plan."""
        ...


class SearchEvent(NamedTuple):
    """One node taken from the open list of a best-first search (see ``AStar.on_expand``)."""

    node: int
    """Node id (the root is 0)."""
    parent: int | None
    """The id of the node it was generated from (None for the root)."""
    action: str | None
    """The name of the action leading to it from its parent (None for the root)."""
    state: dict[str, Any]
    """Its world state."""
    g: float
    """Cost of the path to it."""
    h: float
    """Heuristic estimate to the goal."""


DEFAULT_MAX_MEMORY_MB = 1024.0
"""Default memory budget of a best-first search (MiB of its own tables; see ``AStar.max_memory_mb``)."""


def _check_limits(max_expansions: int | None, timeout: float | None, max_memory_mb: float | None) -> None:
    if max_expansions is not None and (
        isinstance(max_expansions, bool) or not isinstance(max_expansions, int) or max_expansions < 1
    ):
        # NaN compares false with 1 and never equals a count: it would switch the limit off.
        raise ModelError(f"max_expansions must be an int >= 1 or None, got {max_expansions!r}")
    check_seconds("timeout", timeout)
    if max_memory_mb is not None and not (
        isinstance(max_memory_mb, int | float) and max_memory_mb > 0 and math.isfinite(max_memory_mb)
    ):
        raise ModelError(f"max_memory_mb must be a positive number of MiB or None, got {max_memory_mb!r}")


@dataclass(frozen=True, slots=True)
class _BestFirst(StrategyBase):
    """What A* and greedy best-first share: their settings (the subclasses set the defaults that
    differ), their validation, and the search itself."""

    heuristic: str = "lmcut"
    """Heuristic name (see :data:`goap.planning.heuristics.HEURISTICS`)."""
    weight: float = 1.0
    """Weight of ``h`` in ``f = g + weight * h`` (1 = optimal A*; unused by greedy search)."""
    greedy: bool = False
    """Expand by ``h`` alone (True for :class:`GreedyBestFirst` only)."""
    max_expansions: int | None = 2_000_000
    """Give up after this many expansions (``budget_exhausted``); None = no limit."""
    timeout: float | None = 30.0
    """Give up after this many seconds (``budget_exhausted``); None = no limit."""
    blacklist: frozenset[str] = frozenset()
    """Action names never to use (merged with ``plan(..., blacklist=...)``)."""
    symmetry: bool = True
    """Fold interchangeable objects (e.g. gripper's balls) into one search state."""
    max_memory_mb: float | None = DEFAULT_MAX_MEMORY_MB
    """Give up (``budget_exhausted``) once the search's own tables (states, open list, landmarks)
    hold more than this many MiB; None = no limit."""
    tie_break: Literal["h", "fifo"] = "h"
    """Order of nodes with equal ``f``: ``"h"`` the smaller ``h`` first (then the earlier one),
    ``"fifo"`` the earlier-generated one first (runs the Python search loop)."""
    prune: bool = True
    """Drop operators that cannot matter (relevance pruning) before searching; False keeps every
    reachable-or-not operator, e.g. so ``on_expand`` sees the expansions of a naive search."""
    on_expand: Callable[[SearchEvent], None] | None = field(default=None, compare=False)
    """Called with a :class:`SearchEvent` for each entry the search takes from its open list
    (entries superseded by a cheaper path and the goal node included); runs the Python loop."""

    def _check(self) -> None:
        """The checks both strategies make: a known heuristic, sane limits, a frozen blacklist."""
        check_heuristic(self.heuristic)
        _check_limits(self.max_expansions, self.timeout, self.max_memory_mb)
        freeze_field(self, "blacklist", frozenset)
        if self.tie_break not in ("h", "fifo"):
            raise ModelError(f"tie_break must be 'h' or 'fifo', got {self.tie_break!r}")

    @property
    def name(self) -> str:
        if self.greedy:
            return f"greedy({self.heuristic})"
        if self.weight != 1.0:
            return f"wastar({self.heuristic}, w={self.weight:g})"
        return f"astar({self.heuristic})"

    @property
    def optimal(self) -> bool:
        return not self.greedy and self.weight == 1.0 and self.heuristic in _ADMISSIBLE

    def solve_started(self, call: SolveStart) -> PlanResult:
        """Compile, then search (see the module docstring)."""
        initial, goal, usable, t0 = call.initial, call.goal, call.usable, call.t0
        deadline = None if self.timeout is None else t0 + self.timeout
        conds = goal.conditions
        try:
            task: Task | None = compile_task(initial, conds, usable, prune=self.prune)
        except ModelError:
            task = None  # an unreachable goal is still answered "no plan" first, as before
        # compilation proves relaxed reachability of most goals on its own: then there is nothing to explain
        if task is None or not task.relaxed_reachable:
            no_plan = call.unreachable(optimal=self.optimal)
            if no_plan is not None:
                return no_plan
            if task is None:
                task = compile_task(initial, conds, usable, prune=self.prune)  # raises the ModelError again
        found: list[Symmetry] = []

        def detect() -> Canon | None:
            # imported here: most searches end before SYMMETRY_AFTER expansions and never need it
            from goap.planning._symmetry import find_symmetry

            sym = find_symmetry(task)
            if sym is None:
                return None
            found.append(sym)
            return sym.canon

        h = HEURISTICS[self.heuristic](task)
        watch = self.on_expand
        on_pop = None
        if watch is not None:
            seen = task

            def on_pop(
                node: int, parent: int | None, op: CompiledOp | None, st: Any, g: float, hv: float
            ) -> None:
                watch(
                    SearchEvent(node, parent, None if op is None else op.action.name, seen.decode(st), g, hv)
                )

        out = search(
            task,
            h,
            weight=self.weight,
            greedy=self.greedy,
            max_expansions=self.max_expansions,
            deadline=deadline,
            detect_symmetry=detect if self.symmetry else None,
            symmetry_after=SYMMETRY_AFTER,
            max_memory=None if self.max_memory_mb is None else int(self.max_memory_mb * 2**20),
            fifo_ties=self.tie_break == "fifo",
            on_pop=on_pop,
        )
        return self._result(initial, goal, task, found[0] if found else None, out, t0)

    def _result(
        self,
        initial: Mapping[str, Any],
        goal: GoalSpec,
        task: Task,
        sym: Symmetry | None,
        out: SearchOutcome,
        t0: float,
    ) -> PlanResult:
        def stats() -> SearchStats:
            return SearchStats(
                expanded=out.expanded,
                generated=out.generated,
                evaluated=out.evaluated,
                reopened=out.reopened,
                seconds=time.perf_counter() - t0,
                initial_h=out.initial_h,
                pruned_actions=task.pruned_ops,
                symmetry_classes=len(sym.classes) if sym is not None else 0,
                search=out.loop,
                budget=out.budget,
            )

        if out.status == "found":
            ops: list[CompiledOp] = sym.realize(out.path) if sym is not None else [op for op, _ in out.path]
            plan = _replay(initial, goal, [op.action for op in ops])
            return PlanResult("found", plan, None, stats(), self.optimal, self.name)
        if out.status == "no_plan":
            from goap.planning._explain import NoPlanExplanation, UnreachableCondition

            why = NoPlanExplanation(
                unreachable=tuple(
                    UnreachableCondition(key=k, condition=_json(c), reason="jointly_unreachable")
                    for k, c in goal.conditions.items()
                ),
                proof="exhaustive",
                expanded=out.expanded,
                goal=goal.label,
            )
            return PlanResult("no_plan", None, why, stats(), self.optimal, self.name)
        return PlanResult("budget_exhausted", None, None, stats(), False, self.name)


def _json(cond: object) -> object:
    from goap.planning._conditions import condition_to_json

    return condition_to_json(cond)


def _replay(initial: Mapping[str, Any], goal: GoalSpec, actions: list[ActionSpec]) -> Plan:
    """Simulate the plan on the user's actions: checks it and evaluates state-dependent costs."""
    state: dict[str, Any] = dict(initial)
    cost = 0.0
    for a in actions:
        if not a.applicable(state):
            raise AssertionError(f"internal error: planned action {a.name!r} is not applicable")
        cost += a.cost_in(state)
        state = a.apply(state)
    if not goal.satisfied_by(state):
        raise AssertionError("internal error: the plan does not reach the goal")
    return Plan(tuple(actions), cost)


_ADMISSIBLE = frozenset(name for name, factory in HEURISTICS.items() if getattr(factory, "admissible", False))


@dataclass(frozen=True, slots=True)
class AStar(_BestFirst):
    """A* search: optimal with an admissible heuristic and ``weight == 1`` (the defaults).

    ``heuristic`` names an entry of :data:`goap.planning.heuristics.HEURISTICS` (``lmcut`` default;
    ``hmax``, ``blind`` are admissible too; ``ff``/``add`` are not). ``weight > 1`` is weighted
    A*: plans cost at most ``weight`` times the optimum with an admissible heuristic, found
    faster; ``PlanResult.optimal`` is then False. ``max_expansions``, ``timeout`` (seconds) and
    ``max_memory_mb`` bound the search; ``blacklist`` names actions never to use; ``symmetry`` folds
    interchangeable objects (sound: it never changes the optimal cost).
    """

    def __post_init__(self) -> None:
        self._check()
        if not (self.weight >= 1.0 and math.isfinite(self.weight)):
            raise ModelError(f"weight must be a finite number >= 1, got {self.weight}")
        if self.greedy:
            raise ModelError("AStar(greedy=True) is not A*; use GreedyBestFirst()")


@dataclass(frozen=True, slots=True)
class GreedyBestFirst(_BestFirst):
    """Greedy best-first search on ``h`` alone: fast, plans not optimal (``optimal=False``).

    The settings are :class:`AStar`'s; ``weight`` is unused and ``greedy`` always True.
    """

    heuristic: str = "ff"
    """Heuristic name (see :data:`goap.planning.heuristics.HEURISTICS`)."""
    greedy: bool = True
    """Always True."""

    def __post_init__(self) -> None:
        self._check()
        object.__setattr__(self, "greedy", True)


def _lazy(module: str, cls: str) -> Callable[[], PlanningStrategy]:
    """A factory importing its strategy on first use (from the strategies layer, whose modules import
    this one)."""

    def make() -> PlanningStrategy:
        import importlib

        strategy: PlanningStrategy = getattr(importlib.import_module(module), cls)()
        return strategy

    make.__doc__ = f"A default-configured {module}.{cls}."
    return make


STRATEGIES: Mapping[str, Callable[[], PlanningStrategy]] = MappingProxyType(
    {
        "astar": AStar,
        "astar-blind": lambda: AStar(heuristic="blind"),
        "astar-hmax": lambda: AStar(heuristic="hmax"),
        "anytime": _lazy("goap.strategies", "AnytimeStrategy"),
        "csp-pipeline": _lazy("goap.strategies", "CspPipeline"),
        "greedy": GreedyBestFirst,
        "greedy-add": lambda: GreedyBestFirst(heuristic="add"),
        "repair": _lazy("goap.strategies", "RepairStrategy"),
        "wastar": lambda: AStar(heuristic="ff", weight=2.0),
    }
)
"""Strategy name -> factory of a default-configured strategy.

Every entry solves classical problems and reports its own name in ``PlanResult.strategy``.
:class:`goap.Mcts` (for stochastic models; weak on long deterministic plans),
:class:`goap.UtilityStrategy` (greedy value, no fixed goal) and :class:`goap.StrategyRouter`
(reports the strategy it chose) are used directly, not from here.
"""
