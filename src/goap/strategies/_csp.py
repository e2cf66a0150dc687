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
   no plan better (see ``_Generator._descend`` in :mod:`goap.strategies._csp_search`);
4. one plan minimising each constrained or objective resource on its own;
5. plans avoiding one action of an earlier candidate (diversity, as langgoap does).

Searches 4 and 5 stop early once the best candidate so far is proven unbeatable: its objective
levels are at lower bounds over every plan (see ``_Settle`` there), so phase 2 would choose it whatever
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

:meth:`CspPipeline.evaluate` runs phase 2 alone over plans given by the caller, and
``enumeration="blacklist"`` reduces phase 1 to the base plan and its single-action-blacklisted
variants (LangGOAP's enumeration, which ``goap.compat`` reproduces).

Reproducible: ``num_workers`` and ``random_seed`` are fixed (defaults 1 and 0) and recorded in
``PlanResult.solver``. A time limit that ends a solve keeps the best solution found, with status
``FEASIBLE`` (not ``OPTIMAL``) and ``time_limit_hit=True``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

from goap.planning import (
    ActionSpec,
    AStar,
    Capacity,
    ConstrainedGoal,
    ConstraintExplanation,
    ConstraintSet,
    GoalSpec,
    ModelError,
    MultiGoal,
    Objective,
    Plan,
    PlanningStrategy,
    PlanResult,
    ResourceConstraint,
    Schedule,
    ScheduledAction,
    SearchStats,
)
from goap.planning.kit import (
    SolveStart,
    StrategyBase,
    check_at_least,
    check_seconds,
    freeze_field,
    plain_goal,
)
from goap.strategies._csp_common import (
    SolverReport,
    _Candidate,
    _check_reserved,
    _Level,
    _levels,
    _score,
    _violations,
)
from goap.strategies._csp_model import _solve_model
from goap.strategies._csp_search import _candidate, _Generator

__all__ = ["CspPipeline", "pipeline_plan"]


@dataclass(frozen=True, slots=True)
class CspPipeline(StrategyBase):
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
    enumeration: Literal["full", "blacklist"] = "full"
    """Phase 1's searches: ``full`` (see the module docstring), or ``blacklist``: the inner search's
    plan and the plans it finds with each of that plan's actions blacklisted in turn (LangGOAP's
    enumeration; no constrained, priced or descent search, so ``optimal`` is False)."""

    def __post_init__(self) -> None:
        ConstraintSet(self.constraints, self.objectives, self.capacities)  # validates
        for attr in ("constraints", "objectives", "capacities"):
            object.__setattr__(self, attr, tuple(getattr(self, attr)))
        check_at_least(self, "max_candidates", "workers", "scale")
        if self.enumeration not in ("full", "blacklist"):
            raise ModelError(f"enumeration must be 'full' or 'blacklist', got {self.enumeration!r}")
        check_seconds("time_limit", self.time_limit)
        freeze_field(self, "blacklist", frozenset)

    @property
    def name(self) -> str:
        """``csp-pipeline(<inner strategy>)``."""
        return f"csp-pipeline({self.search.name})"

    def solve_started(self, call: SolveStart) -> PlanResult:
        """Plan for ``goal`` under the constraints; see the class docstring."""
        initial, goal, actions = call.initial, call.goal, call.actions
        black, usable = call.black, call.usable
        cs = ConstraintSet(self.constraints, self.objectives, self.capacities)
        if isinstance(goal, ConstrainedGoal):
            cs = cs + goal.constraint_set
        _check_reserved(actions)
        timed = any(a.duration for a in usable)
        # The inner search only proposes candidates (the constraints are this pipeline's job), so it
        # gets the conditions alone: a condition-only strategy refuses a constrained goal.
        base = self.search.solve(initial, plain_goal(goal), actions, blacklist=black)
        report = SolverReport("SKIPPED", self.seed, self.workers, self.time_limit)
        if base.plan is None or (cs.empty and not timed):
            return replace(base.with_report(report), strategy=self.name, stats=call.timed(base.stats))
        levels = _levels(cs, timed)
        gen = _Generator(self, initial, goal, actions, black, cs, levels)
        gen.add(base.plan, "search")
        gen.stats = base.stats
        exact = gen.run(base.optimal)
        return self._conclude(
            gen.candidates, cs, levels, timed, exact, call.timed(gen.stats), goal.label, gen
        )

    def evaluate(self, plans: Sequence[Plan], goal_label: str = "") -> PlanResult:
        """Phase 2 alone over ``plans`` (each ``Plan.cost`` taken as its cost): choose, schedule
        and score them under this pipeline's constraints, objectives and capacities.

        The result is as :meth:`solve`'s (``found`` with the chosen plan, its schedule and the
        scored ``candidates`` in the given order, or ``no_plan`` naming the violated hard
        constraints), never ``optimal``. Raises :class:`goap.ModelError` when ``plans`` is empty.
        """
        if not plans:
            raise ModelError("evaluate() needs at least one plan")
        cs = ConstraintSet(self.constraints, self.objectives, self.capacities)
        steps = {a.name: a for p in plans for a in p.actions}.values()
        _check_reserved(tuple(steps))
        timed = any(a.duration for a in steps)
        cands = [_candidate(p, "given", self.scale) for p in plans]
        return self._conclude(cands, cs, _levels(cs, timed), timed, False, SearchStats(), goal_label, None)

    def _conclude(
        self,
        cands: list[_Candidate],
        cs: ConstraintSet,
        levels: tuple[_Level, ...],
        timed: bool,
        exact: bool,
        stats: SearchStats,
        goal_label: str,
        gen: _Generator | None,
    ) -> PlanResult:
        """Phase 2 over the candidates, and the result it makes."""
        outcome = _solve_model(self, cands, cs, levels, timed)
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
            proven, compiled = (gen.proven_infeasible, gen.compiled) if gen else (False, frozenset[str]())
            violations = _violations(cs, cands, outcome.core, proven, compiled, self.scale)
            why = ConstraintExplanation(
                unreachable=(),
                proof="exhaustive" if violations and all(v.proven for v in violations) else "relaxed",
                expanded=stats.expanded,
                goal=goal_label,
                violations=violations,
            )
            solver_report = replace(solver_report, violations=violations)
            return PlanResult("no_plan", None, why, stats, False, self.name, reports=(solver_report,))
        if outcome.status == "UNKNOWN":
            return PlanResult(
                "budget_exhausted", None, None, stats, False, self.name, reports=(solver_report,)
            )
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
            reports=(solver_report,),
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
    from goap.planning import plan

    strategy = CspPipeline(tuple(constraints), tuple(objectives), tuple(capacities), **settings)
    return plan(initial, goal, actions, strategy, blacklist=blacklist)
