"""Phase 1 of the CP-SAT pipeline: searches collecting diverse candidate plans, and the proof that
the best so far is unbeatable (see :mod:`goap.strategies._csp`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from goap.planning import (
    ActionSpec,
    Add,
    AStar,
    ConstraintSet,
    GoalSpec,
    Plan,
    PlanningStrategy,
    ResourceConstraint,
    SearchStats,
    dependencies,
    ge,
    holds,
    le,
    plan_cost,
)
from goap.planning import add as add_effect
from goap.strategies._csp_common import (
    _BOUND,
    _COST_MARGIN,
    _EPS,
    _FACT,
    _WEIGHT_SCALE,
    _Candidate,
    _canonical,
    _critical_path,
    _Level,
    _use,
)
from goap.strategies._csp_model import _asap_only, _fixed_makespan_terms

if TYPE_CHECKING:
    from goap.strategies._csp import CspPipeline


def _candidate(
    plan: Plan, origin: str, scale: int, edges: tuple[tuple[int, int], ...] | None = None
) -> _Candidate:
    """A phase-2 candidate of ``plan``: its metrics (``plan.cost`` as ``cost``), scaled durations
    and precedence edges."""
    steps = plan.actions
    metrics: dict[str, float] = {"cost": plan.cost, "length": float(len(steps))}
    for a in steps:
        for res, use in (a.resources or {}).items():
            metrics[res] = metrics.get(res, 0.0) + float(use)
    durations = tuple(round((a.duration or 0.0) * scale) for a in steps)
    return _Candidate(plan, origin, metrics, durations, dependencies(steps) if edges is None else edges)


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
        cost = plan_cost(self.initial, steps)
        self.candidates.append(_candidate(Plan(tuple(steps), cost), origin, self.owner.scale, edges))

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
        if self.owner.enumeration == "blacklist":
            # LangGOAP's enumeration: the base plan with each of its actions blacklisted in turn
            for name in dict.fromkeys(base.plan.names):
                if self.full:
                    break
                self._search(f"without:{name}", extra_black=frozenset({name}))
            return False
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
                cost = plan_cost(gen.initial, res.plan.actions) - _COST_MARGIN
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
