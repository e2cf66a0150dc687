"""Phase 2 of the CP-SAT pipeline: one CP-SAT model over every candidate chooses, schedules and
names the violated constraints (see :mod:`goap.strategies._csp`)."""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from goap.planning import ConstraintSet
from goap.strategies._csp_common import (
    _EPS,
    _EXACT_LIMIT,
    _WEIGHT_SCALE,
    SolverStatus,
    _Candidate,
    _Level,
    _Outcome,
    _use,
)

if TYPE_CHECKING:
    from goap.strategies._csp import CspPipeline


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
