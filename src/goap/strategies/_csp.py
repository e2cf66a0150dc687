"""The CP-SAT two-phase pipeline: search proposes candidate plans, CP-SAT checks, schedules, picks.

Phase 1 (search, constraints mostly ignored) collects diverse candidates, deduplicated by action
sequence, at most ``max_candidates``:

1. the least-cost plan (the inner strategy, A* by default);
2. when some hard budget (a bound on a resource sum, ``cost`` or ``length``) is violated by it or
   the top objective level is additive: the same search on a task where every budget is a
   numeric fact the actions ``add()`` to, guarded by preconditions, and where each action costs
   its contribution to the top level. With an optimal inner search this plan is optimal for the
   top level over *every* plan within the budgets, and when that search proves there is no plan,
   the hard budgets are infeasible for every plan (the explanation says "proven");
3. when the top level is a weighted sum of additive metrics plus soft constraints' violations:
   better plans by a search priced on the sum with each violation replaced by its constraint's
   metric, under a budget on the sum alone just below the best value, until that search proves
   no plan better (see ``_Generator._descend``);
4. one plan minimising each constrained or objective resource on its own;
5. plans avoiding one action of an earlier candidate (diversity, as langgoap does).

Searches 4 and 5 stop early once the best candidate so far is proven unbeatable: its objective
levels are at lower bounds over every plan (see ``_Settle``), so phase 2 would choose it whatever
else was found; the chosen plan, its levels and schedule are the same, the candidate list shorter.

Phase 2 builds one CP-SAT model over all candidates: one ``BoolVar`` per candidate (exactly one is
chosen), hard constraints as implications guarded by assumption literals (so an infeasible model
yields the violated constraints as its core), soft constraints as weighted violation amounts, one
fixed-size ``IntervalVar`` per action of every candidate with the precedence edges of
:func:`goap.planning._schedule.dependencies`, ``AddCumulative`` / ``AddNoOverlap`` for capacities, and the
chosen plan's makespan. Objective levels are solved lexicographically, then ties go to the earlier
candidate: one solve of a weighted sum when each level's bounds keep it exact (below 2**53), else
successive solves, each level fixed at its optimum before the next. Every candidate's schedule is
then compacted (least makespan, earliest starts) so candidate scores are exact: by one more solve
with capacities, or computed (earliest starts under precedence) when that is provably the optimum.
In that case each candidate's makespan is a constant known before the model is built, so the model
holds no interval, start or span variable: only the selection literals, the hard constraints and
the levels as sums over the literals (same choice, levels and schedule, far less to presolve). Its
optimum is then the feasible candidate with the least levels, computed without CP-SAT; the model
is solved only when no candidate is feasible, for the violated constraints it names.

Reproducible: ``num_workers`` and ``random_seed`` are fixed (defaults 1 and 0) and recorded in
``PlanResult.solver``. A time limit that ends a solve keeps the best solution found, with status
``FEASIBLE`` (not ``OPTIMAL``) and ``time_limit_hit=True``.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from goap.planning._actions import ActionSpec
from goap.planning._conditions import Add, ge, holds, le
from goap.planning._conditions import add as add_effect
from goap.planning._constraints import (
    RESERVED_METRICS,
    Capacity,
    ConstrainedGoal,
    ConstraintExplanation,
    ConstraintSet,
    ConstraintViolation,
    Objective,
    ResourceConstraint,
    SolverReport,
    SolverStatus,
    plain_goal,
)
from goap.planning._errors import ModelError
from goap.planning._goals import GoalSpec, MultiGoal
from goap.planning._result import Plan, PlanResult, SearchStats
from goap.planning._schedule import Schedule, ScheduledAction, dependencies
from goap.planning._score import BendableScore, HardSoftScore, Score
from goap.planning._strategy import AStar, PlanningStrategy

__all__ = ["CspPipeline", "pipeline_plan"]

_FACT = "__csp__"
"""Prefix of the numeric facts that carry budgets through constrained search."""
_BOUND = _FACT + "bound"
"""The numeric fact of :meth:`_Generator._descend`'s budget (see :meth:`_Generator._task`)."""
_WEIGHT_SCALE = 1000
"""Objective weights are kept to 1/1000 in CP-SAT's integer arithmetic."""
_EPS = 1e-9
_COST_MARGIN = 1e-7
"""Taken off an optimal search's cost before it bounds other plans' costs (A* compares path costs
to 1e-9); far below the model's resolution of ``1 / (scale * _WEIGHT_SCALE)``."""
_EXACT_LIMIT = 2**53
"""Largest weighted objective (in magnitude) the levels are merged into: exact in a double too."""


@dataclass(frozen=True, slots=True)
class _Candidate:
    plan: Plan
    origin: str
    metrics: dict[str, float]
    durations: tuple[int, ...]
    edges: tuple[tuple[int, int], ...]


@dataclass(slots=True)
class _Outcome:
    status: SolverStatus
    chosen: int
    levels: tuple[float, ...]
    makespans: list[int]
    starts: list[list[int]]
    core: list[str]
    seconds: float
    time_limit_hit: bool


@dataclass(frozen=True, slots=True)
class CspPipeline:
    """A :class:`goap.PlanningStrategy`: search for candidates, then CP-SAT (see the module docstring).

    Constraints come from the fields and, for a :class:`goap.ConstrainedGoal`, from the goal.
    With no constraint, objective, capacity or duration at all it is the inner search plus a
    ``SKIPPED`` solver report. Raises :class:`goap.ModelError` when an action declares a resource
    named like a reserved metric (``cost``, ``length``, ``makespan``).

    ``PlanResult.optimal`` is True only when the chosen plan is proven optimal over every plan,
    not only over the candidates: one objective level, solved to ``OPTIMAL``, whose optimum
    constrained search found or, at a soft-constrained level, the budgeted descent proved. The status over the candidates is ``PlanResult.solver.status``.
    """

    honours_constraints: ClassVar[bool] = True
    """It plans for a :class:`goap.ConstrainedGoal`'s constraints (see :func:`goap.plan`)."""

    constraints: tuple[ResourceConstraint, ...] = ()
    """Hard and soft bounds on plan metrics."""
    objectives: tuple[Objective, ...] = ()
    """What to optimise; empty: plan cost, then makespan when actions have durations."""
    capacities: tuple[Capacity, ...] = ()
    """Renewable resources limiting parallel execution."""
    search: PlanningStrategy = field(default_factory=AStar)
    """Phase 1's strategy (optimal A* by default)."""
    max_candidates: int = 8
    """Most candidate plans phase 2 chooses from."""
    seed: int = 0
    """CP-SAT ``random_seed``."""
    workers: int = 1
    """CP-SAT ``num_workers``; 1 keeps the search deterministic (more may not replay)."""
    time_limit: float | None = 10.0
    """Seconds CP-SAT may take in total over its solves; None: unlimited."""
    scale: int = 1000
    """Fixed-point scale: metrics and durations are rounded to ``1/scale`` in CP-SAT."""
    constrained_search: bool = True
    """Run the budget-constrained search of phase 1 (see the module docstring)."""
    constrained_expansions: int | None = 50_000
    """Expansion budget of the constrained search when ``search`` is A* (None: A*'s own)."""
    blacklist: frozenset[str] = frozenset()
    """Action names never to use."""
    settle: bool = True
    """End phase 1 early once a candidate is proven unbeatable (see :class:`_Settle`); the chosen
    plan, its schedule and levels are the same either way, only fewer candidates are listed."""

    def __post_init__(self) -> None:
        ConstraintSet(self.constraints, self.objectives, self.capacities)  # validates
        for attr in ("constraints", "objectives", "capacities"):
            object.__setattr__(self, attr, tuple(getattr(self, attr)))
        if self.max_candidates < 1:
            raise ModelError(f"max_candidates must be >= 1, got {self.max_candidates}")
        if self.workers < 1:
            raise ModelError(f"workers must be >= 1, got {self.workers}")
        if self.scale < 1:
            raise ModelError(f"scale must be >= 1, got {self.scale}")
        if self.time_limit is not None and not (self.time_limit > 0 and math.isfinite(self.time_limit)):
            raise ModelError(
                f"time_limit must be a positive number of seconds or None, got {self.time_limit}"
            )
        if not isinstance(self.blacklist, frozenset):
            object.__setattr__(self, "blacklist", frozenset(self.blacklist))

    @property
    def name(self) -> str:
        """``csp-pipeline(<inner strategy>)``."""
        return f"csp-pipeline({self.search.name})"

    def solve(
        self,
        initial: Mapping[str, Any],
        goal: GoalSpec,
        actions: Sequence[ActionSpec],
        *,
        blacklist: frozenset[str] = frozenset(),
    ) -> PlanResult:
        """Plan for ``goal`` under the constraints; see the class docstring."""
        t0 = time.perf_counter()
        black = self.blacklist | blacklist
        cs = ConstraintSet(self.constraints, self.objectives, self.capacities)
        if isinstance(goal, ConstrainedGoal):
            cs = cs + goal.constraint_set
        _check_reserved(actions)
        usable = [a for a in actions if a.name not in black]
        timed = any(a.duration for a in usable)
        # The inner search only proposes candidates (the constraints are this pipeline's job), so it
        # gets the conditions alone: a condition-only strategy refuses a constrained goal.
        base = self.search.solve(initial, plain_goal(goal), actions, blacklist=black)
        report = SolverReport("SKIPPED", self.seed, self.workers, self.time_limit)
        if base.plan is None or (cs.empty and not timed):
            return replace(base, strategy=self.name, solver=report, stats=_timed(base.stats, t0))
        levels = _levels(cs, timed)
        gen = _Generator(self, initial, goal, actions, black, cs, levels)
        gen.add(base.plan, "search")
        gen.stats = base.stats
        exact = gen.run(base.optimal)
        cands = gen.candidates
        outcome = _solve_model(self, cands, cs, levels, timed)
        stats = _timed(gen.stats, t0)
        solver_report = SolverReport(
            outcome.status,
            self.seed,
            self.workers,
            self.time_limit,
            seconds=outcome.seconds,
            candidates=len(cands),
            selected=outcome.chosen,
            levels=outcome.levels,
            time_limit_hit=outcome.time_limit_hit,
        )
        if outcome.status == "INFEASIBLE":
            violations = _violations(cs, cands, outcome.core, gen.proven_infeasible, gen.compiled, self.scale)
            why = ConstraintExplanation(
                unreachable=(),
                proof="exhaustive" if violations and all(v.proven for v in violations) else "relaxed",
                expanded=stats.expanded,
                goal=goal.label,
                violations=violations,
            )
            solver_report = replace(solver_report, violations=violations)
            return PlanResult("no_plan", None, why, stats, False, self.name, solver=solver_report)
        if outcome.status == "UNKNOWN":
            return PlanResult("budget_exhausted", None, None, stats, False, self.name, solver=solver_report)
        scored = tuple(
            replace(c.plan, quality=_score(cs, levels, c, outcome.makespans[i] / self.scale))
            for i, c in enumerate(cands)
        )
        chosen = cands[outcome.chosen]
        ms = outcome.makespans[outcome.chosen] / self.scale
        metrics = {**chosen.metrics, "makespan": ms}
        soft = tuple(
            (c.label, v)
            for c in cs.constraints
            if c.level == "soft" and (v := c.violation(metrics.get(c.key, 0.0))) > 0
        )
        solver_report = replace(solver_report, metrics=tuple(sorted(metrics.items())), soft_violations=soft)
        schedule = None
        if timed or cs.capacities:
            starts = outcome.starts[outcome.chosen]
            schedule = Schedule(
                tuple(
                    ScheduledAction(
                        j, a.name, starts[j] / self.scale, (starts[j] + chosen.durations[j]) / self.scale
                    )
                    for j, a in enumerate(chosen.plan.actions)
                ),
                ms,
                chosen.edges,
            )
        optimal = exact and len(levels) == 1 and outcome.status == "OPTIMAL"
        return PlanResult(
            "found",
            scored[outcome.chosen],
            None,
            stats,
            optimal,
            self.name,
            schedule=schedule,
            candidates=scored,
            solver=solver_report,
        )


def pipeline_plan(
    initial: Mapping[str, Any],
    goal: GoalSpec | MultiGoal | Mapping[str, Any],
    actions: Iterable[ActionSpec],
    *,
    constraints: Iterable[ResourceConstraint] = (),
    objectives: Iterable[Objective] = (),
    capacities: Iterable[Capacity] = (),
    blacklist: Iterable[str] = (),
    **settings: Any,
) -> PlanResult:
    """Plan with :class:`CspPipeline` (``settings`` are its other fields: ``seed``, ``time_limit``...).

    Same contract as :func:`goap.plan`; an infeasible problem is ``status == "no_plan"`` with a
    :class:`goap.ConstraintExplanation` naming the violated constraints.
    """
    from goap.planning._planner import plan

    strategy = CspPipeline(tuple(constraints), tuple(objectives), tuple(capacities), **settings)
    return plan(initial, goal, actions, strategy, blacklist=blacklist)


# ---------------------------------------------------------------------------------------------
# phase 1: candidates


def _check_reserved(actions: Sequence[ActionSpec]) -> None:
    for a in actions:
        if a.resources:
            bad = RESERVED_METRICS & set(a.resources)
            if bad:
                raise ModelError(
                    f"action {a.name!r}: resource {sorted(bad)[0]!r} is a reserved metric name; rename it"
                )


def _use(a: ActionSpec, key: str) -> float:
    """An action's contribution to an additive metric (cost uses the static cost or min_cost)."""
    if key == "length":
        return 1.0
    if key == "cost":
        return float(a.cost) if isinstance(a.cost, int | float) else a.min_cost
    return float(a.resources.get(key, 0.0)) if a.resources else 0.0


@dataclass(frozen=True, slots=True)
class _Level:
    terms: tuple[tuple[str, float], ...]
    """(metric, signed weight): minimise the sum of weight * metric."""
    soft: tuple[ResourceConstraint, ...]
    """Soft constraints whose weighted violation is added to this level."""

    def additive(self, actions: Sequence[ActionSpec]) -> bool:
        """Whether the level is a non-negative sum over actions (so search can optimise it)."""
        if self.soft:
            return False
        for metric, w in self.terms:
            if metric == "makespan" or w < 0:
                return False
            if metric == "cost" and any(a.has_cost_function for a in actions):
                return False
            if any(_use(a, metric) < 0 for a in actions):
                return False
        return True


def _levels(cs: ConstraintSet, timed: bool) -> tuple[_Level, ...]:
    objectives = cs.objectives or (Objective("cost", priority=1),) + (
        (Objective("makespan", priority=0),) if timed else ()
    )
    prios = sorted({o.priority for o in objectives}, reverse=True)
    soft = tuple(c for c in cs.constraints if c.level == "soft")
    out = []
    for k, p in enumerate(prios):
        terms = tuple(
            (o.metric, o.weight if o.direction == "minimize" else -o.weight)
            for o in objectives
            if o.priority == p
        )
        out.append(_Level(terms, soft if k == 0 else ()))
    return tuple(out)


def _canonical(steps: Sequence[ActionSpec], edges: Sequence[tuple[int, int]]) -> tuple[str, ...]:
    """The topological order of the plan's partial order that takes the least name first."""
    preds = [0] * len(steps)
    succs: list[list[int]] = [[] for _ in steps]
    for u, v in edges:
        preds[v] += 1
        succs[u].append(v)
    ready = sorted((steps[i].name, i) for i in range(len(steps)) if preds[i] == 0)
    out: list[str] = []
    while ready:
        name, i = ready.pop(0)
        out.append(name)
        for v in succs[i]:
            preds[v] -= 1
            if preds[v] == 0:
                ready.append((steps[v].name, v))
        ready.sort()
    return tuple(out)


def _critical_path(cand: _Candidate) -> int:
    """Length of the longest precedence chain (a lower bound on any schedule's makespan)."""
    finish = [0] * len(cand.durations)
    for u, v in sorted(cand.edges, key=lambda e: e[1]):
        finish[v] = max(finish[v], finish[u] + cand.durations[u])
    return max((f + d for f, d in zip(finish, cand.durations, strict=True)), default=0)


def _replay(initial: Mapping[str, Any], steps: Sequence[ActionSpec]) -> float:
    state: dict[str, Any] = dict(initial)
    cost = 0.0
    for a in steps:
        cost += a.cost_in(state)
        state = a.apply(state)
    return cost


class _Generator:
    """Collects deduplicated candidates (phase 1)."""

    def __init__(
        self,
        owner: CspPipeline,
        initial: Mapping[str, Any],
        goal: GoalSpec,
        actions: Sequence[ActionSpec],
        black: frozenset[str],
        cs: ConstraintSet,
        levels: tuple[_Level, ...],
    ) -> None:
        self.owner = owner
        self.initial = initial
        self.goal = goal if type(goal) is GoalSpec else GoalSpec(goal.conditions, name=goal.name)
        self.actions = tuple(actions)
        self.by_name = {a.name: a for a in actions}
        self.black = black
        self.cs = cs
        self.levels = levels
        self.candidates: list[_Candidate] = []
        self.seen: set[tuple[str, ...]] = set()
        self.stats = SearchStats()
        self.proven_infeasible = False
        self.compiled: frozenset[str] = frozenset()
        self.usable = [a for a in actions if a.name not in black]

    @property
    def full(self) -> bool:
        return len(self.candidates) >= self.owner.max_candidates

    def add(self, plan: Plan, origin: str) -> None:
        steps = [self.by_name[n] for n in plan.names]
        edges = dependencies(steps)
        # two orders of independent actions are one partial-order plan: key on a canonical order
        key = _canonical(steps, edges)
        if key in self.seen or self.full:
            return
        self.seen.add(key)
        cost = _replay(self.initial, steps)
        metrics: dict[str, float] = {"cost": cost, "length": float(len(steps))}
        for a in steps:
            for res, use in (a.resources or {}).items():
                metrics[res] = metrics.get(res, 0.0) + float(use)
        scale = self.owner.scale
        durations = tuple(round((a.duration or 0.0) * scale) for a in steps)
        self.candidates.append(_Candidate(Plan(tuple(steps), cost), origin, metrics, durations, edges))

    def _search(
        self,
        origin: str,
        cost_of: Mapping[str, float] | None = None,
        hard: Sequence[ResourceConstraint] = (),
        extra_black: frozenset[str] = frozenset(),
        capped: bool = False,
    ) -> str:
        """One phase-1 search on a transformed task; returns its status."""
        if not hard and cost_of is None:
            # nothing to transform (the diversity searches): the user's own state, goal and actions
            return self._run(origin, self.owner.search, self.initial, self.goal, self.actions, extra_black)
        search, initial, goal, acts = self._task(cost_of, hard, capped=capped)
        return self._run(origin, search, initial, goal, acts, extra_black)

    def _task(
        self,
        cost_of: Mapping[str, float] | None,
        hard: Sequence[ResourceConstraint],
        bound: Mapping[str, float] | None = None,
        capped: bool = False,
        once: frozenset[str] = frozenset(),
    ) -> tuple[PlanningStrategy, dict[str, Any], GoalSpec, list[ActionSpec]]:
        """The search, initial state, goal and actions of a transformed task: each action costs
        ``cost_of``, each hard budget is a numeric fact guarded by preconditions, and ``bound``
        (a non-negative amount per action) is one more such budget on the fact ``_BOUND``, which
        never exceeds 0: the caller starts it at minus the budget, so one task serves any budget.
        Actions named in ``once`` (one plain effect, see :meth:`_once`) run only while it is unset."""
        initial: dict[str, Any] = dict(self.initial)
        conds: dict[str, Any] = dict(self.goal.conditions)
        acts: list[ActionSpec] = []
        for c in hard:
            initial[_FACT + c.key] = 0.0
            if c.min is not None:
                conds[_FACT + c.key] = ge(c.min - 1e-6)
        if bound is not None:
            initial[_BOUND] = 0.0
        for a in self.actions:
            pre = dict(a.preconditions)
            eff = dict(a.effects)
            if bound is not None and (u := bound[a.name]) > 0:
                eff[_BOUND] = add_effect(u)
                pre[_BOUND] = le(-u)
            if a.name in once:
                (key,) = a.effects
                pre[key] = None
            for c in hard:
                u = _use(a, c.key)
                fact = _FACT + c.key
                if u:
                    eff[fact] = add_effect(u)
                if c.max is not None:
                    if all(_use(b, c.key) >= 0 for b in self.usable):
                        # non-negative uses: prune as soon as the budget is spent
                        if u > 0:
                            pre[fact] = le(c.max - u + 1e-6)
                    else:
                        conds[fact] = le(c.max + 1e-6)
            changes: dict[str, Any] = {}
            if hard or bound is not None or once:
                changes.update(preconditions=pre, effects=eff)
            if cost_of is not None:
                changes.update(cost=cost_of[a.name], min_cost=0.0)
            acts.append(replace(a, **changes) if changes else a)
        search = self.owner.search
        cap = self.owner.constrained_expansions
        if capped and isinstance(search, AStar) and cap is not None:
            # numeric budget facts multiply the states; bound the exact search (unproven if hit)
            limit = cap if search.max_expansions is None else min(cap, search.max_expansions)
            search = replace(search, max_expansions=limit)
        return search, initial, GoalSpec(conds, name=self.goal.name), acts

    def _run(
        self,
        origin: str,
        search: PlanningStrategy,
        initial: Mapping[str, Any],
        goal: GoalSpec,
        actions: Sequence[ActionSpec],
        extra_black: frozenset[str],
    ) -> str:
        res = search.solve(initial, goal, actions, blacklist=self.black | extra_black)
        self.stats = self.stats + res.stats
        if res.plan is not None:
            self.add(res.plan, origin)
        return res.status

    def run(self, base_optimal: bool) -> bool:
        """Collect candidates; True when one of them is optimal for the top level over every plan."""
        base = self.candidates[0]
        hard = [c for c in self.cs.constraints if c.level == "hard" and c.key != "makespan"]
        hard = [c for c in hard if not (c.key == "cost" and any(a.has_cost_function for a in self.usable))]
        self.compiled = frozenset(c.label for c in hard)
        all_hard_compiled = (
            len(hard) == sum(1 for c in self.cs.constraints if c.level == "hard") and not self.cs.capacities
        )
        top = self.levels[0]
        additive = top.additive(self.usable)
        base_ok = all(c.violation(base.metrics.get(c.key, 0.0)) == 0 for c in hard)
        # the inner search already minimises cost: when the top level is cost alone, its plan is
        # exact as soon as it fits the budgets
        cost_top = additive and [m for m, _ in top.terms] == ["cost"]
        exact = cost_top and base_optimal and base_ok and all_hard_compiled
        if hard and not base_ok:
            self._lagrangian(hard)
        if self.owner.constrained_search and ((hard and not base_ok) or (additive and not cost_top)):
            cost_of = None if cost_top else {a.name: self._top_cost(a, top) for a in self.actions}
            status = self._search("constrained", cost_of, hard, capped=True)
            if status == "no_plan" and hard:
                self.proven_infeasible = True
                self.compiled = frozenset(c.label for c in hard)
            elif status == "found" and additive and all_hard_compiled:
                exact = base_optimal  # same inner search, so the same optimality guarantee
        if exact and len(self.levels) == 1:
            return True
        keys: list[str] = []
        for c in self.cs.constraints:
            if c.key not in ("cost", "makespan") and c.max is not None:
                keys.append(c.key)
        for o in self.cs.objectives:
            if o.metric not in ("cost", "makespan") and o.direction == "minimize":
                keys.append(o.metric)
        judge = _Settle(self, base_optimal)
        if self.owner.constrained_search and self._descend(judge, hard) and all_hard_compiled:
            exact = True
        # the searches below only add candidates; they stop once no plan can beat the best one
        settle = judge if self.owner.settle else None
        if any(m == "makespan" for m, w in top.terms if w > 0):
            # total duration is the makespan of a plan run in sequence: a cheap proxy to minimise
            if settle is not None and settle.done():
                return exact
            self._search("min:duration", {a.name: self._tie_cost(a, a.duration or 0.0) for a in self.actions})
        for key in dict.fromkeys(keys):
            if self.full:
                break
            if any(_use(a, key) < 0 for a in self.usable):
                continue
            if settle is not None and settle.done():
                return exact
            self._search(f"min:{key}", {a.name: self._tie_cost(a, _use(a, key)) for a in self.actions})
        tried: set[str] = set()
        attempts = 0
        i = 0
        while not self.full and i < len(self.candidates) and attempts < 2 * self.owner.max_candidates:
            for name in dict.fromkeys(self.candidates[i].plan.names):
                if self.full or attempts >= 2 * self.owner.max_candidates:
                    break
                if name in tried:
                    continue
                if settle is not None and settle.done():
                    return exact
                tried.add(name)
                attempts += 1
                self._search(f"without:{name}", extra_black=frozenset({name}))
            i += 1
        return exact

    def _lagrangian(self, hard: Sequence[ResourceConstraint]) -> None:
        """Price the budgets into the action costs, more each round, until a plan fits them.

        Plain searches (no numeric facts), so each is as fast as the first one: a cheap way to a
        feasible candidate before the exact constrained search, which may run out of budget.
        """
        scales = {c.label: max(abs(c.max if c.max is not None else c.min or 1.0), 1e-9) for c in hard}
        for lam in (0.5, 2.0, 8.0, 32.0):
            if self.full:
                return
            cost_of = {
                a.name: _use(a, "cost")
                + lam * sum(max(_use(a, c.key), 0.0) / scales[c.label] for c in hard if c.max is not None)
                + 1e-9
                for a in self.actions
            }
            before = len(self.candidates)
            self._search(f"lagrangian:{lam:g}", cost_of)
            fresh = self.candidates[before:]
            if any(all(c.violation(x.metrics.get(c.key, 0.0)) == 0 for c in hard) for x in fresh):
                return

    def _descend(self, judge: _Settle, hard: Sequence[ResourceConstraint]) -> bool:
        """Improve the best candidate at a soft-constrained top level until it is proven optimal.

        The top level is ``base + sum(w_c * violation_c)``, ``base`` a non-negative weighted sum
        of additive metrics: no search can price a violation per action, as it depends on the
        whole plan's total. But for each soft ``c`` with a ``max``, ``violation_c >= u_c - max_c``
        (``u_c`` its metric; ``- 1e-9``, the tolerance of :meth:`ResourceConstraint.violation`)
        and ``violation_c >= 0``. So a plan of value at most ``T`` has ``base <= T`` and
        ``base + sum(w_c * u_c) <= T + W`` with ``W = sum(w_c * (max_c + 1e-9))``. One optimal
        search minimising ``base + sum(w_c * u_c)`` (a price per action) under the budget
        ``base <= T`` (a numeric fact), with the compiled hard constraints, finds a least such
        plan: when it costs more than ``T + W``, or no plan fits the budget, no plan is worth
        ``T`` or less. ``T`` is set just below the best candidate's value ``v`` in the model's
        integers (:func:`_level_expr`): a plan the model ranks better has a value that rounds to
        at most ``v - 1``, so it is worth at most ``(v - 0.5) / unit``. Otherwise the plan found,
        when feasible and better, is added and the search repeats from its value. The search
        skips steps that change nothing (:meth:`_once`): dropping them from a plan keeps it a
        plan, within the hard constraints, and lowers neither sum, so the least plan among those
        without such steps is least among all. Without hard constraints the first round first
        searches without the budget: a least plan of all that fits it is a least plan within it.
        The rounds share one expansion budget (``constrained_expansions``).

        Returns True when proven: no plan within the compiled hard constraints is better at the
        top level than the best feasible candidate (so :class:`_Settle` may stop at it).
        """
        top = self.levels[0]
        relax = judge.soft_prices(top)
        if relax is None:
            return False
        base, price, offset = relax
        unit = judge.scale * _WEIGHT_SCALE
        once = self._once(hard)
        search, start, goal, acts = self._task(price, hard, base, capped=True, once=once)
        # the capped search's expansion budget is shared by all the rounds, not given to each
        left = search.max_expansions if isinstance(search, AStar) else None
        free = None if hard else self._task(price, (), capped=True)
        for _ in range(self.owner.max_candidates):
            best = judge.best()
            if best is None:
                return False
            value = best[0][0]
            limit = (value - 0.5) / unit
            # float sums differ in their last bits: the budget admits a hair more (every plan the
            # model ranks better stays in); the optimal search's cost is trusted to _COST_MARGIN,
            # as in the other bounds. Both stay below half a unit, the gap between ``limit`` and
            # a plan tied with the best, so ties are left out of the budget and do not block the proof.
            fuzz = 1e-12 * max(1.0, abs(limit) + abs(offset))
            res = None
            if free is not None:
                # first round: the least plan of all, when it fits the budget, is the least plan
                # within it, found without the budget's numeric fact (a smaller search)
                res = free[0].solve(free[1], free[2], free[3], blacklist=self.black)
                self.stats = self.stats + res.stats
                if left is not None:
                    left -= res.stats.expanded
                free = None
                if res.plan is not None and sum(base[n] for n in res.plan.names) > limit + fuzz:
                    res = None
            if res is None:
                if isinstance(search, AStar) and left is not None:
                    if left <= 0:
                        return False
                    search = replace(search, max_expansions=left)
                res = search.solve({**start, _BOUND: -(limit + fuzz)}, goal, acts, blacklist=self.black)
                self.stats = self.stats + res.stats
                if left is not None:
                    left -= res.stats.expanded
            if not res.optimal:
                return False
            if res.status == "no_plan":
                judge.top_lb = value
                return True
            if res.plan is None:
                return False
            steps = [self.by_name[n] for n in res.plan.names]
            found = sum(price[a.name] for a in steps)
            if found > limit + offset + _COST_MARGIN + fuzz:
                judge.top_lb = value
                return True
            before = len(self.candidates)
            self.add(res.plan, "soft:descent")
            if len(self.candidates) == before:
                return False
            fresh = self.candidates[-1]
            ms = _critical_path(fresh)
            if not judge.feasible(fresh, ms) or judge.level_values(fresh, ms)[0] >= value:
                return False
        return False

    def _once(self, hard: Sequence[ResourceConstraint]) -> frozenset[str]:
        """Actions :meth:`_descend`'s search may skip once their one effect holds.

        An action whose only effect sets ``key`` to ``v``, where every writer of ``key`` writes
        ``v`` and ``key`` starts unset or at ``v``, changes nothing once ``key`` is set (it is
        then ``v``): a plan without such a step reaches the same states, so it is a plan too, no
        more costly on any non-negative sum, within every hard ``max`` on non-negative uses.
        The search may then require ``key`` unset (a plain ``None`` precondition). Empty when a
        hard constraint has a ``min`` or a negative use (removing a step could break it).
        """
        if any(c.min is not None or any(_use(a, c.key) < 0 for a in self.usable) for c in hard):
            return frozenset()
        writes: dict[str, set[tuple[type, Any]]] = {}
        for a in self.actions:
            for key, value in a.effects.items():
                writes.setdefault(key, set()).add((type(value), value))
        out = []
        for a in self.actions:
            if len(a.effects) != 1:
                continue
            ((key, value),) = a.effects.items()
            if value is None or isinstance(value, Add) or key in a.preconditions:
                continue
            if writes[key] != {(type(value), value)}:
                continue
            start = self.initial.get(key)
            if start is None or (type(start) is type(value) and start == value):
                out.append(a.name)
        return frozenset(out)

    @staticmethod
    def _tie_cost(a: ActionSpec, primary: float) -> float:
        # a small share of the real cost breaks ties toward cheap plans
        return max(primary, 0.0) + 1e-6 * _use(a, "cost") + 1e-9

    def _top_cost(self, a: ActionSpec, top: _Level) -> float:
        return self._tie_cost(a, sum(w * _use(a, m) for m, w in top.terms))


class _Settle:
    """Whether phase 1 may stop: the best candidate so far is proven unbeatable by any plan.

    Phase 2 chooses the lexicographically least level values, ties going to the earlier candidate,
    and candidates are only ever appended. So once the best feasible candidate's values are at a
    lower bound over *every* plan, level by level, no further candidate can be chosen instead of
    it, and the remaining diversity searches are skipped: the chosen plan, its levels and its
    schedule stay the same (only ``PlanResult.candidates`` is shorter).

    Applies only where phase 2's choice is computed exactly here: no capacity and nothing
    rewarding a later end (each candidate's makespan is its earliest-start one, as in the compact
    model). The values are the model's own integers (:func:`_level_expr`); the bounds are the same
    expressions evaluated at a lower bound of each metric (non-negative weights only, so IEEE
    rounding keeps them below every plan's value):

    - ``cost``: the inner search's optimal cost (optimal search, no state-dependent costs);
    - a resource: 0 when no action uses a negative amount;
    - ``makespan``: h^max over durations (:func:`_makespan_bound`), a critical-path lower bound
      under the precedence edges of :func:`goap.dependencies`;
    - after a top level that is the makespan alone, met at ``M``: a plan meeting it too runs no
      action longer than ``M``, so ``cost`` is bounded by an optimal search without those actions;
    - a top level with soft constraints on additive metrics: the best candidate's own value, once
      :meth:`_Generator._descend` has proven no feasible plan better (``top_lb``).
    """

    def __init__(self, gen: _Generator, base_optimal: bool) -> None:
        self.gen = gen
        owner = gen.owner
        self.scale = owner.scale
        usable = gen.usable
        self.enabled = _asap_only(gen.cs, gen.levels) and all(
            w >= 0 for lev in gen.levels for _, w in lev.terms
        )
        static_cost = not any(a.has_cost_function for a in usable)
        self.exact_cost = base_optimal and static_cost
        # less a margin for the search's float tolerance on path costs
        self.cost_lb: float | None = (
            gen.candidates[0].metrics["cost"] - _COST_MARGIN if self.exact_cost else None
        )
        self.nonneg: dict[str, bool] = {}
        self.durations = {a.name: round((a.duration or 0.0) * self.scale) for a in usable}
        self._ms_lb: int | None = None
        self._ms_done = False
        self._restricted: dict[int, float | None] = {}
        self.hard = [c for c in gen.cs.constraints if c.level == "hard"]
        self.settled = False
        self.top_lb: int | None = None
        """A proven lower bound on the top level's value over every feasible plan (set by
        :meth:`_Generator._descend`)."""

    def done(self) -> bool:
        if not self.enabled:
            return False
        if not self.settled:
            self.settled = self._check()
        return self.settled

    def best(self) -> tuple[tuple[int, ...], int] | None:
        """The least level values of a feasible candidate, and its makespan (None: none is)."""
        best: tuple[tuple[int, ...], int] | None = None
        for c in self.gen.candidates:
            ms = _critical_path(c)
            if not self.feasible(c, ms):
                continue
            values = self.level_values(c, ms)
            if best is None or values < best[0]:
                best = (values, ms)
        return best

    def level_values(self, c: _Candidate, ms: int) -> tuple[int, ...]:
        """The candidate's level values as the model computes them, at makespan ``ms``."""
        return tuple(self._value(lev, c.metrics, ms) for lev in self.gen.levels)

    def soft_prices(self, level: _Level) -> tuple[dict[str, float], dict[str, float], float] | None:
        """For :meth:`_Generator._descend`: each action's share of the level's base (its weighted
        metrics), its price (base plus each soft constraint's weight times its use) and
        ``W = sum(w_c * (max_c + 1e-9))``; None when the level is not of that form (some
        soft constraint on an additive metric with a ``max``; every weight, every use and the base
        non-negative; static costs) or settling does not apply (see the class docstring).

        Soft constraints on the makespan or with only a ``min`` are left out: their violation is
        never negative, so the level without them is a lower bound of it.
        """
        usable = self.gen.usable
        if not self.enabled or not level.soft or any(m == "makespan" for m, _ in level.terms):
            return None
        used = [c for c in level.soft if c.key != "makespan" and c.max is not None]
        if not used:
            return None
        metrics = {m for m, _ in level.terms} | {c.key for c in used}
        if "cost" in metrics and any(a.has_cost_function for a in usable):
            return None
        if any(_use(a, m) < 0 for a in usable for m in metrics):
            return None
        base = {a.name: sum(w * _use(a, m) for m, w in level.terms) for a in self.gen.actions}
        price = {
            a.name: base[a.name] + sum(c.weight * _use(a, c.key) for c in used) for a in self.gen.actions
        }
        offset = sum(c.weight * (c.max + 1e-9) for c in used if c.max is not None)
        return base, price, offset

    def _check(self) -> bool:
        gen = self.gen
        best = self.best()
        if best is None:
            return False
        values, ms = best
        restrict: int | None = None
        for k, lev in enumerate(gen.levels):
            bound = self._bound(lev, restrict)
            if k == 0 and self.top_lb is not None:
                bound = self.top_lb if bound is None else max(bound, self.top_lb)
            if bound is None or values[k] > bound:
                return False
            if k == 0 and _makespan_only(lev):
                restrict = ms  # a plan as good at the top has this makespan: no longer action
        return True

    def feasible(self, c: _Candidate, ms: int) -> bool:
        """Whether the candidate meets every hard constraint at makespan ``ms``."""
        for rc in self.hard:
            if rc.key == "makespan":
                if rc.max is not None and ms > math.floor(rc.max * self.scale + _EPS):
                    return False
                if rc.min is not None and ms < math.ceil(rc.min * self.scale - _EPS):
                    return False
            elif rc.violation(c.metrics.get(rc.key, 0.0)) > 0:
                return False
        return True

    def _value(self, level: _Level, metrics: Mapping[str, float], ms: int) -> int:
        # the same arithmetic, in the same order, as _level_expr
        total = 0.0
        for metric, w in level.terms:
            if metric != "makespan":
                total += w * metrics.get(metric, 0.0)
        for c in level.soft:
            if c.key != "makespan":
                total += c.weight * c.violation(metrics.get(c.key, 0.0))
        return round(total * self.scale * _WEIGHT_SCALE) + _fixed_makespan_terms(level, ms, self.scale)

    def _bound(self, level: _Level, restrict: int | None) -> int | None:
        """A lower bound on the level's value over every plan (every plan with no action
        longer than ``restrict``), or None when none is known."""
        lows: dict[str, float] = {}
        for metric in [m for m, _ in level.terms] + [c.key for c in level.soft]:
            if metric in lows or metric == "makespan":
                continue
            low = self._metric_bound(metric, restrict)
            if low is None:
                if any(m == metric for m, _ in level.terms):
                    return None
                continue  # a soft constraint on it then contributes at least 0
            lows[metric] = low
        soft = []
        for c in level.soft:
            if c.key == "makespan" or c.key not in lows:
                continue
            low = lows[c.key]
            # the violation grows with the metric above ``max``; below ``min`` it shrinks
            if c.min is None or low >= c.min:
                soft.append(c)
        ms_low = 0
        if any(m == "makespan" for m, _ in level.terms) or any(c.key == "makespan" for c in level.soft):
            bound_ms = self._makespan_lb()
            if bound_ms is None:
                return None
            ms_low = bound_ms
        bounded = _Level(level.terms, tuple(soft) + tuple(c for c in level.soft if c.key == "makespan"))
        return self._value(bounded, lows, ms_low)

    def _metric_bound(self, metric: str, restrict: int | None) -> float | None:
        if metric == "cost":
            if restrict is not None:
                return self._restricted_cost(restrict)
            return self.cost_lb
        if metric == "length":
            return 0.0
        ok = self.nonneg.get(metric)
        if ok is None:
            ok = self.nonneg[metric] = all(_use(a, metric) >= 0 for a in self.gen.usable)
        return 0.0 if ok else None

    def _makespan_lb(self) -> int | None:
        if not self._ms_done:
            self._ms_done = True
            gen = self.gen
            self._ms_lb = _makespan_bound(gen.initial, gen.goal.conditions, gen.usable, self.scale)
        return self._ms_lb

    def _restricted_cost(self, limit: int) -> float | None:
        if limit in self._restricted:
            return self._restricted[limit]
        gen = self.gen
        cost: float | None = None
        if self.exact_cost:
            longer = frozenset(n for n, d in self.durations.items() if d > limit)
            res = gen.owner.search.solve(gen.initial, gen.goal, gen.actions, blacklist=gen.black | longer)
            gen.stats = gen.stats + res.stats
            if res.optimal and res.plan is not None:
                cost = _replay(gen.initial, res.plan.actions) - _COST_MARGIN
        self._restricted[limit] = cost
        return cost


def _makespan_only(level: _Level) -> bool:
    """Whether the level is the makespan alone, with a weight that survives CP-SAT's rounding."""
    return (
        len(level.terms) == 1
        and level.terms[0][0] == "makespan"
        and not level.soft
        and round(level.terms[0][1] * _WEIGHT_SCALE) > 0
    )


def _makespan_bound(
    initial: Mapping[str, Any], goal: Mapping[str, Any], actions: Sequence[ActionSpec], scale: int
) -> int | None:
    """A lower bound on the makespan of every plan, in ``1/scale`` units: h^max over durations.

    A fact value written by a plain effect is ready no earlier than the cheapest way to write it:
    an action's duration after its latest-ready precondition. By :func:`goap.dependencies`, an
    action starts after the last plain writer of each fact it reads, so by induction over the plan
    every action ends no earlier than the bound of what it writes, and the plan no earlier than
    the bound of its goal. Conditions that hold initially, or on facts changed by ``add()``, cost
    0 (a relaxation). None when some duration is negative or the goal looks unreachable.
    """
    durs = [round((a.duration or 0.0) * scale) for a in actions]
    if any(d < 0 for d in durs):
        return None
    numeric = {k for a in actions for k, e in a.effects.items() if isinstance(e, Add)}
    ready: dict[str, list[tuple[Any, int]]] = {}

    def when(key: str, cond: object) -> float:
        if key in numeric or holds(cond, initial.get(key)):
            return 0
        return min((t for v, t in ready.get(key, ()) if holds(cond, v)), default=math.inf)

    changed = True
    while changed:
        changed = False
        for a, d in zip(actions, durs, strict=True):
            start = max((when(k, c) for k, c in a.preconditions.items()), default=0)
            if start == math.inf:
                continue
            end = int(start) + d
            for k, v in a.effects.items():
                if k in numeric:
                    continue
                values = ready.setdefault(k, [])
                for j, (x, t) in enumerate(values):
                    if x == v and type(x) is type(v):
                        if end < t:
                            values[j] = (x, end)
                            changed = True
                        break
                else:
                    values.append((v, end))
                    changed = True
    bound = max((when(k, c) for k, c in goal.items()), default=0)
    return None if bound == math.inf else int(bound)


# ---------------------------------------------------------------------------------------------
# phase 2: CP-SAT


def _solve_model(
    owner: CspPipeline,
    cands: Sequence[_Candidate],
    cs: ConstraintSet,
    levels: tuple[_Level, ...],
    timed: bool,
    *,
    compact: bool = True,
) -> _Outcome:
    """Choose a candidate and schedule it (see the module docstring).

    ``compact=False`` keeps interval, start and span variables even where every candidate's
    schedule is computed (the tests check both models give the same outcome).
    """
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    scale = owner.scale
    # without capacities, and with no level rewarding a later end, each candidate's earliest-start
    # schedule is its unique least-makespan schedule and no level gets worse with it: every
    # candidate's makespan is then a constant, computed here, and the model is the selection alone
    # (no interval, start or span variables)
    asap = _asap_only(cs, levels)
    fixed: list[int] | None = None
    asap_starts: list[list[int]] = []
    if asap and compact:
        asap_starts = [_earliest_starts(c) for c in cands]
        fixed = [
            max((s + d for s, d in zip(st, c.durations, strict=True)), default=0)
            for st, c in zip(asap_starts, cands, strict=True)
        ]
        picked = _pick(cands, cs, levels, fixed, scale)
        if picked is not None:
            seconds = time.perf_counter() - t0
            return _Outcome("OPTIMAL", picked[0], picked[1], fixed, asap_starts, [], seconds, False)
    model = _model_class()()
    n = len(cands)
    sel = [model.new_bool_var(f"sel{i}") for i in range(n)]
    model.add_exactly_one(sel)
    starts: list[list[Any]] = []
    spans: list[Any] = []
    horizon = max([sum(c.durations) for c in cands] + [0])
    assumptions: list[tuple[Any, str]] = []
    cap_lits: dict[str, Any] = {}
    for i, c in enumerate(cands):
        if fixed is not None:
            continue
        h = sum(c.durations)
        st = [model.new_int_var(0, h, f"s{i}_{j}") for j in range(len(c.durations))]
        ivs = [model.new_fixed_size_interval_var(st[j], d, f"iv{i}_{j}") for j, d in enumerate(c.durations)]
        for u, v in c.edges:
            model.add(st[v] >= st[u] + c.durations[u])
        span = model.new_int_var(0, h, f"ms{i}")
        for j, d in enumerate(c.durations):
            model.add(span >= st[j] + d)
        for cap in cs.capacities:
            limit = math.floor(cap.limit * scale + _EPS)
            demands = [round(_use(a, cap.key) * scale) for a in c.plan.actions]
            if any(d > limit for d in demands):
                # this candidate can never run: one action alone needs more than the capacity
                lit = cap_lits.get(cap.key)
                if lit is None:
                    lit = cap_lits[cap.key] = model.new_bool_var(f"cap_{cap.key}")
                    assumptions.append((lit, "capacity:" + cap.key))
                model.add_bool_or([lit.Not(), sel[i].Not()])
                continue
            used = [(ivs[j], d) for j, d in enumerate(demands) if d > 0 and c.durations[j] > 0]
            if len(used) < 2:
                continue
            if all(d1 + d2 > limit for k, (_, d1) in enumerate(used) for _, d2 in used[k + 1 :]):
                model.add_no_overlap([iv for iv, _ in used])  # no two may overlap: the stronger form
            else:
                model.add_cumulative([iv for iv, _ in used], [d for _, d in used], limit)
        starts.append(st)
        spans.append(span)
    makespan: Any = None
    if fixed is None:
        makespan = model.new_int_var(0, horizon, "makespan")
        for i in range(n):
            model.add(makespan == spans[i]).only_enforce_if(sel[i])
    for rc in cs.constraints:
        if rc.level != "hard":
            continue
        lit = model.new_bool_var(f"hard_{len(assumptions)}")
        assumptions.append((lit, rc.label))
        if rc.key == "makespan":
            hi_ms = None if rc.max is None else math.floor(rc.max * scale + _EPS)
            lo_ms = None if rc.min is None else math.ceil(rc.min * scale - _EPS)
            if fixed is not None:
                for i, ms_i in enumerate(fixed):
                    if (hi_ms is not None and ms_i > hi_ms) or (lo_ms is not None and ms_i < lo_ms):
                        model.add_bool_or([lit.Not(), sel[i].Not()])
                continue
            if hi_ms is not None:
                model.add(makespan <= hi_ms).only_enforce_if(lit)
            if lo_ms is not None:
                model.add(makespan >= lo_ms).only_enforce_if(lit)
            continue
        for i, cand in enumerate(cands):
            if rc.violation(cand.metrics.get(rc.key, 0.0)) > 0:
                model.add_bool_or([lit.Not(), sel[i].Not()])
    model.add_assumptions([lit for lit, _ in assumptions])
    bounded = [_level_expr(model, lev, cands, sel, makespan, scale, horizon, fixed) for lev in levels]
    level_exprs = [e for e, _ in bounded]
    tie = sum(i * sel[i] for i in range(n))  # ties: the earlier candidate
    # the levels and the tie-break as one weighted sum when it stays exact: each term is
    # multiplied by the number of values every later term can take, so the weighted optimum is
    # the lexicographic one; one solve instead of one per level (else: one solve per level)
    ranges = [hi - lo + 1 for _, (lo, hi) in bounded]
    mults = [1] * len(levels)
    m = n
    for k in range(len(levels) - 1, -1, -1):
        mults[k] = m
        m *= ranges[k]
    magnitude = n + sum(mults[k] * max(abs(lo), abs(hi)) for k, (_, (lo, hi)) in enumerate(bounded))
    groups: list[tuple[Any, list[int]]]
    if magnitude < _EXACT_LIMIT:
        groups = [(sum(mults[k] * e for k, e in enumerate(level_exprs)) + tie, list(range(len(levels))))]
    else:
        groups = [(e, [k]) for k, e in enumerate(level_exprs)] + [(tie, [])]
    # compaction (least makespan, earliest starts of every candidate): solved for, unless the
    # earliest starts were computed above
    if not asap:
        tidy_weight = sum(len(c.durations) * sum(c.durations) for c in cands) + 1
        groups.append((tidy_weight * sum(spans) + sum(s for st in starts for s in st), []))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = owner.workers
    solver.parameters.random_seed = owner.seed
    deadline = None if owner.time_limit is None else t0 + owner.time_limit
    status: SolverStatus = "OPTIMAL"
    hit = False
    values: list[float] = []
    solution: tuple[int, list[int], list[list[int]]] | None = None
    unit = scale * _WEIGHT_SCALE
    for k, (expr, reported) in enumerate(groups):
        if deadline is not None:
            left = deadline - time.perf_counter()
            if left <= 0:
                if solution is None:
                    return _Outcome("UNKNOWN", -1, (), [], [], [], time.perf_counter() - t0, True)
                hit = True
                status = "FEASIBLE"
                break
            solver.parameters.max_time_in_seconds = left
        model.minimize(expr)
        code = solver.solve(model)
        if code == cp_model.INFEASIBLE and k == 0:
            by_index = {lit.index: (lit, label) for lit, label in assumptions}
            found = solver.sufficient_assumptions_for_infeasibility()
            core = [by_index[i] for i in found if i in by_index] or list(assumptions)
            # CP-SAT's core is sufficient, not minimal: drop each literal whose removal keeps the
            # model infeasible, so the explanation names only constraints that really conflict
            k_drop = 0
            while k_drop < len(core) and len(core) > 1:
                trial = core[:k_drop] + core[k_drop + 1 :]
                model.clear_assumptions()
                model.add_assumptions([lit for lit, _ in trial])
                if solver.solve(model) == cp_model.INFEASIBLE:
                    core = trial
                else:
                    k_drop += 1
            labels = list(dict.fromkeys(label for _, label in core))
            return _Outcome("INFEASIBLE", -1, (), [], [], labels, time.perf_counter() - t0, False)
        if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            if solution is None:
                return _Outcome("UNKNOWN", -1, (), [], [], [], time.perf_counter() - t0, True)
            hit = True
            status = "FEASIBLE"
            break
        if code == cp_model.FEASIBLE:
            hit = True
            status = "FEASIBLE"
        best = round(solver.objective_value)
        values.extend(solver.value(level_exprs[j]) / unit for j in reported)
        chosen = next(i for i in range(n) if solver.value(sel[i]))
        if asap:
            solution = (chosen, [], [])
        else:
            solution = (
                chosen,
                [solver.value(s) for s in spans],
                [[solver.value(s) for s in st] for st in starts],
            )
        if k == 0:
            # later levels are solved with the hard constraints in force, not as assumptions
            model.clear_assumptions()
            for lit, _ in assumptions:
                model.add(lit == 1)
        if k + 1 < len(groups):
            model.add(expr <= best)
    assert solution is not None
    chosen, ms, st_values = solution
    if fixed is not None:
        st_values, ms = asap_starts, fixed
    elif asap:
        st_values = [_earliest_starts(c) for c in cands]
        ms = [
            max((s + d for s, d in zip(st, c.durations, strict=True)), default=0)
            for st, c in zip(st_values, cands, strict=True)
        ]
    return _Outcome(status, chosen, tuple(values), ms, st_values, [], time.perf_counter() - t0, hit)


def _pick(
    cands: Sequence[_Candidate],
    cs: ConstraintSet,
    levels: Sequence[_Level],
    fixed: Sequence[int],
    scale: int,
) -> tuple[int, tuple[float, ...]] | None:
    """The selection model's optimum when every makespan is a constant, without solving it.

    Each literal of that model stands for a candidate whose hard constraints are constants and
    whose levels are constant integers (:func:`_static_values`): its optimum is the feasible
    candidate with the lexicographically least levels, ties to the earlier one, and the levels it
    reports are that candidate's. Returns its index and levels; None when no candidate is feasible
    (the model is then solved, for the core of violated constraints it yields).
    """
    hard = [c for c in cs.constraints if c.level == "hard"]
    feasible = []
    for i, cand in enumerate(cands):
        ok = True
        for rc in hard:
            if rc.key == "makespan":
                hi = None if rc.max is None else math.floor(rc.max * scale + _EPS)
                lo = None if rc.min is None else math.ceil(rc.min * scale - _EPS)
                ok = (hi is None or fixed[i] <= hi) and (lo is None or fixed[i] >= lo)
            else:
                ok = rc.violation(cand.metrics.get(rc.key, 0.0)) <= 0
            if not ok:
                break
        if ok:
            feasible.append(i)
    if not feasible:
        return None
    static = [_static_values(lev, cands, scale, fixed) for lev in levels]
    chosen = min(feasible, key=lambda i: (tuple(s[i] for s in static), i))
    unit = scale * _WEIGHT_SCALE
    return chosen, tuple(s[chosen] / unit for s in static)


@functools.cache
def _model_class() -> Any:
    """``CpModel`` without the camelCase aliases it attaches to every instance (unused here, and
    the larger part of building a small model)."""
    from ortools.sat.python import cp_model

    return type("_CpModel", (cp_model.CpModel,), {"_add_pre_pep8_methods": lambda self: None})


def _asap_only(cs: ConstraintSet, levels: Sequence[_Level]) -> bool:
    """Whether the earliest-start schedule of every candidate is optimal at every level.

    True without capacities (precedence alone: earliest starts are each as early as any schedule
    allows, so every makespan is least too) when nothing prefers a later end: no level maximises
    the makespan and no constraint bounds it from below.
    """
    if cs.capacities:
        return False
    if any(c.key == "makespan" and c.min is not None for c in cs.constraints):
        return False
    return not any(m == "makespan" and w < 0 for lev in levels for m, w in lev.terms)


def _earliest_starts(cand: _Candidate) -> list[int]:
    """Each action's earliest start under the candidate's precedence edges."""
    start = [0] * len(cand.durations)
    for u, v in sorted(cand.edges, key=lambda e: e[1]):
        start[v] = max(start[v], start[u] + cand.durations[u])
    return start


def _metric_value(cand: _Candidate, metric: str, makespan: float) -> float:
    return makespan if metric == "makespan" else cand.metrics.get(metric, 0.0)


def _level_expr(
    model: Any,
    level: _Level,
    cands: Sequence[_Candidate],
    sel: list[Any],
    makespan: Any,
    scale: int,
    horizon: int,
    fixed: Sequence[int] | None = None,
) -> tuple[Any, tuple[int, int]]:
    """The level as an integer expression in units of ``1 / (scale * _WEIGHT_SCALE)``, with
    bounds on its value over the whole model (any candidate, any makespan up to ``horizon``).

    With ``fixed`` (each candidate's makespan, when it is a constant) the makespan terms are folded
    into each candidate's constant, rounded as the variable terms would be, so the level is a sum
    over the selection literals alone.
    """
    static = _static_values(level, cands, scale, fixed)
    expr: Any = sum(static[i] * sel[i] for i in range(len(cands)))
    lo, hi = min(static), max(static)
    if fixed is not None:
        return expr, (lo, hi)
    for metric, w in level.terms:
        if metric == "makespan":
            coef = round(w * _WEIGHT_SCALE)
            expr += coef * makespan
            lo += min(0, coef * horizon)
            hi += max(0, coef * horizon)
    for c in level.soft:
        if c.key != "makespan":
            continue
        w = round(c.weight * _WEIGHT_SCALE)
        if c.max is not None:
            over = model.new_int_var(0, horizon, f"over_{c.label}")
            model.add(over >= makespan - math.floor(c.max * scale + _EPS))
            expr += w * over
            hi += w * horizon
        if c.min is not None:
            ub = math.ceil(c.min * scale)
            under = model.new_int_var(0, ub, f"under_{c.label}")
            model.add(under >= math.ceil(c.min * scale - _EPS) - makespan)
            expr += w * under
            hi += w * ub
    return expr, (lo, hi)


def _static_values(
    level: _Level, cands: Sequence[_Candidate], scale: int, fixed: Sequence[int] | None
) -> list[int]:
    """Each candidate's level value but for its makespan terms (all of it with ``fixed``), in
    the units of :func:`_level_expr`."""
    unit = scale * _WEIGHT_SCALE
    static = []
    for i, cand in enumerate(cands):
        total = 0.0
        for metric, w in level.terms:
            if metric != "makespan":
                total += w * cand.metrics.get(metric, 0.0)
        for c in level.soft:
            if c.key != "makespan":
                total += c.weight * c.violation(cand.metrics.get(c.key, 0.0))
        value = round(total * unit)
        if fixed is not None:
            value += _fixed_makespan_terms(level, fixed[i], scale)
        static.append(value)
    return static


def _fixed_makespan_terms(level: _Level, makespan: int, scale: int) -> int:
    """The level's makespan terms for a known makespan, in the units of :func:`_level_expr`:
    what its variables (weighted makespan, soft overrun and underrun) take at their optimum."""
    value = 0
    for metric, w in level.terms:
        if metric == "makespan":
            value += round(w * _WEIGHT_SCALE) * makespan
    for c in level.soft:
        if c.key != "makespan":
            continue
        w = round(c.weight * _WEIGHT_SCALE)
        if c.max is not None:
            value += w * max(0, makespan - math.floor(c.max * scale + _EPS))
        if c.min is not None:
            value += w * max(0, math.ceil(c.min * scale - _EPS) - makespan)
    return value


# ---------------------------------------------------------------------------------------------
# reporting


def _score(cs: ConstraintSet, levels: tuple[_Level, ...], cand: _Candidate, makespan: float) -> Score:
    """The candidate's score: minus its hard violations, then minus each level's value."""
    metrics = {**cand.metrics, "makespan": makespan}
    hard = 0.0
    for c in cs.constraints:
        if c.level == "hard":
            hard -= max(c.weight, 1e-6) * c.violation(metrics.get(c.key, 0.0))
    for cap in cs.capacities:
        excess = max((_use(a, cap.key) - cap.limit for a in cand.plan.actions), default=0.0)
        hard -= max(excess, 0.0)
    softs = []
    for lev in levels:
        value = sum(w * _metric_value(cand, m, makespan) for m, w in lev.terms)
        value += sum(c.weight * c.violation(metrics.get(c.key, 0.0)) for c in lev.soft)
        softs.append(-value)
    hard = min(hard, 0.0)
    if len(softs) == 1:
        return HardSoftScore(hard, softs[0])
    return BendableScore((hard,), tuple(softs))


def _violations(
    cs: ConstraintSet,
    cands: Sequence[_Candidate],
    core: Sequence[str],
    proven: bool,
    compiled: frozenset[str],
    scale: int,
) -> tuple[ConstraintViolation, ...]:
    """One record per constraint label of CP-SAT's infeasibility core."""
    hard = {c.label: c for c in cs.constraints if c.level == "hard"}
    out: list[ConstraintViolation] = []
    for label in core:
        if label.startswith("capacity:"):
            key = label.split(":", 1)[1]
            cap = next(c for c in cs.capacities if c.key == key)
            worst = [max((_use(a, key) for a in c.plan.actions), default=0.0) for c in cands]
            best = min(range(len(cands)), key=lambda i: worst[i])
            out.append(
                ConstraintViolation(
                    f"capacity {key} <= {cap.limit:g} (an action alone needs {worst[best]:g})",
                    key,
                    worst[best],
                    cands[best].plan.names,
                )
            )
            continue
        c = hard[label]
        if c.key == "makespan":
            # precedence alone bounds the makespan from below; report the shortest such bound
            bounds = [_critical_path(x) for x in cands]
            best = min(range(len(cands)), key=lambda i: bounds[i])
            out.append(ConstraintViolation(c.label, c.key, bounds[best] / scale, cands[best].plan.names))
            continue
        gaps = [c.violation(x.metrics.get(c.key, 0.0)) for x in cands]
        best = min(range(len(cands)), key=lambda i: gaps[i])
        out.append(
            ConstraintViolation(
                c.label,
                c.key,
                cands[best].metrics.get(c.key, 0.0),
                cands[best].plan.names,
                proven and c.label in compiled,
            )
        )
    return tuple(out)


def _timed(stats: SearchStats, t0: float) -> SearchStats:
    return replace(stats, seconds=time.perf_counter() - t0)
