"""What both phases of the CP-SAT pipeline share: candidates, objective levels, scores and
violations, and the constants of its fixed-point arithmetic."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal, TypeAlias

from goap.planning import (
    ActionSpec,
    BendableScore,
    ConstraintSet,
    ConstraintViolation,
    HardSoftScore,
    ModelError,
    Objective,
    Plan,
    ResourceConstraint,
    Score,
)
from goap.planning.kit import RESERVED_METRICS

SolverStatus: TypeAlias = Literal["OPTIMAL", "FEASIBLE", "INFEASIBLE", "UNKNOWN", "SKIPPED"]
"""CP-SAT's verdict: ``FEASIBLE`` means a time limit ended the search before optimality was proven."""


@dataclass(frozen=True, slots=True)
class SolverReport:
    """What CP-SAT did, with the settings that make the result reproducible (``PlanResult.solver``)."""

    kind: ClassVar[str] = "solver"
    """The :class:`goap.planning.StrategyReport` kind."""

    status: SolverStatus
    """``OPTIMAL`` over the candidates, ``FEASIBLE`` (time limit hit: best found, not proven), ..."""
    seed: int
    """CP-SAT ``random_seed``."""
    workers: int
    """CP-SAT ``num_workers`` (1 keeps the search deterministic)."""
    time_limit: float | None
    """Seconds CP-SAT was allowed in total (None: unlimited)."""
    seconds: float = 0.0
    """Wall time spent in CP-SAT."""
    candidates: int = 0
    """Candidate plans the selection model chose from."""
    selected: int = -1
    """Index of the chosen candidate (-1: none)."""
    levels: tuple[float, ...] = ()
    """Objective value of each lexicographic level for the chosen plan (lower is better)."""
    metrics: tuple[tuple[str, float], ...] = ()
    """Metric values of the chosen plan, sorted by name."""
    violations: tuple[ConstraintViolation, ...] = ()
    """The hard constraints in the infeasibility core (INFEASIBLE only)."""
    soft_violations: tuple[tuple[str, float], ...] = ()
    """(constraint label, amount) of each violated soft constraint of the chosen plan."""
    time_limit_hit: bool = False
    """Whether a time limit ended some solve before optimality was proven."""

    @property
    def message(self) -> str:
        """One line, e.g. ``OPTIMAL over 5 candidates (seed=0, workers=1)``."""
        extra = (
            "; time limit reached, best solution found is not proven optimal" if self.time_limit_hit else ""
        )
        return f"{self.status} over {self.candidates} candidates (seed={self.seed}, workers={self.workers}){extra}"


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


def _metric_value(cand: _Candidate, metric: str, makespan: float) -> float:
    return makespan if metric == "makespan" else cand.metrics.get(metric, 0.0)


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
