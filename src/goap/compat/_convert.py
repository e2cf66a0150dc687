"""Conversions of LangGOAP values to goap's types (non-scalar hashable values travel as tokens)."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import goap.planning as gp

if TYPE_CHECKING:
    from goap.compat.actions import ActionSpec
    from goap.compat.goals import GoalSpec
    from goap.compat.planner.types import Plan
    from goap.compat.score import Score
    from goap.compat.state import PlanningState

_MARK = "\x1fcompat#"
_token_of: dict[Any, str] = {}
_value_of: dict[str, Any] = {}
_lock = threading.Lock()


def encode_value(value: Any) -> Any:
    """``value`` as goap can hold it: plain scalars unchanged, any other hashable value as its token."""
    if isinstance(value, bool | int | float | str):
        return value  # subclasses too (str and int enums compare as their base value)
    tok = _token_of.get(value)
    if tok is None:
        with _lock:
            tok = _token_of.setdefault(value, f"{_MARK}{len(_token_of)}")
            _value_of[tok] = value
    return tok


def decode_value(value: Any) -> Any:
    """The LangGOAP value of a goap fact value (undoes :func:`encode_value`)."""
    return _value_of.get(value, value) if type(value) is str and value.startswith(_MARK) else value


def encode_map(m: Mapping[str, Any]) -> dict[str, Any]:
    """Every value of ``m`` encoded."""
    return {k: encode_value(v) for k, v in m.items()}


def encode_state(state: PlanningState | Mapping[str, Any]) -> dict[str, Any]:
    """A world state (PlanningState or dict; unhashable values left out) as goap's initial state."""
    from goap.compat.state import PlanningState

    st = state if isinstance(state, PlanningState) else PlanningState.from_dict(state)
    return {k: encode_value(v) for k, v in st.conditions}


def decode_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A goap world state with LangGOAP's values (hidden bookkeeping facts left out)."""
    return {k: decode_value(v) for k, v in state.items() if not k.startswith(_USED)}


_USED = "\x1fcompat-used#"


def once_only(a: gp.ActionSpec) -> gp.ActionSpec:
    """``a`` usable once per plan: it needs its hidden "used" fact absent and sets it."""
    used = {_USED + a.name: True}
    return dataclasses.replace(
        a, preconditions={**a.preconditions, **dict.fromkeys(used)}, effects={**a.effects, **used}
    )


def _effect(fn: Callable[[Mapping[str, Any]], Mapping[str, Any]]) -> gp.EffectFunction:
    def effect(state: Mapping[str, Any], /) -> dict[str, Any]:
        out = {}
        for k, v in fn(decode_state(state)).items():
            try:
                out[k] = encode_value(v)
            except TypeError:  # unhashable: LangGOAP's state drops the key, absent reads as None
                out[k] = None
        return out

    return effect


def to_goap_action(a: ActionSpec) -> gp.ActionSpec:
    """goap's action for a LangGOAP-shaped one (values encoded, costs and effects read decoded states)."""
    fn = a.cost
    cost: Any = (lambda st: float(fn(decode_state(st)))) if callable(fn) else float(fn)
    extra: dict[str, Any] = {}
    if a.has_dynamic_effects:
        extra = {"effect_fn": _effect(a.effects), "effect_keys": a.effect_keys}  # type: ignore[arg-type]
    qos = None  # goap derives one from max_retries; a policy or a flag needs goap's ActionQos
    if a.qos is not None or not a.can_rerun or a.read_only:
        from goap.compat.qos import ActionQos

        base = a.qos or ActionQos(max_attempts=1 + a.max_retries, idempotent=a.max_retries > 0)
        qos = base.to_goap(read_only=a.read_only, can_rerun=a.can_rerun)
    effects = {} if a.has_dynamic_effects else encode_map(a.effects)  # type: ignore[arg-type]
    extra |= {"resources": dict(a.resources) if a.resources else None, "metadata": a.metadata, "qos": qos}
    extra |= {"duration": None if a.duration is None else a.duration.total_seconds(), "cost": cost}
    pre, run = encode_map(a.preconditions), a.execute or a.aexecute
    return gp.ActionSpec(a.name, pre, effects, execute=run, max_retries=a.max_retries, **extra)


_cache: dict[int, tuple[Any, gp.ActionSpec]] = {}
_origin: dict[int, tuple[Any, Any]] = {}
"""id of a converted goap action or goal -> (it, the LangGOAP object it came from)."""


def _remember(made: Any, source: Any) -> Any:
    if len(_origin) > 8192:
        _origin.clear()
        _cache.clear()
    _origin[id(made)] = (made, source)
    return made


def _source(made: Any) -> Any:
    hit = _origin.get(id(made))
    return hit[1] if hit is not None and hit[0] is made else None


def goap_actions(actions: Iterable[ActionSpec]) -> list[gp.ActionSpec]:
    """:func:`to_goap_action` of each, cached per action (so goap's compilation cache hits)."""
    out = []
    for a in actions:
        hit = _cache.get(id(a))
        if hit is None or hit[0] is not a:
            hit = _cache[id(a)] = (a, _remember(to_goap_action(a), a))
        out.append(hit[1])
    return out


LANGGOAP_ASTAR = gp.AStar(heuristic="goalcount", max_expansions=None, tie_break="fifo", symmetry=False)
"""goap's A* searching as LangGOAP's planner: goal-count estimate, FIFO ties, no expansion cap, no folding."""


def by_specificity(actions: Iterable[ActionSpec]) -> list[ActionSpec]:
    """``actions``, most preconditions first (the order LangGOAP's planner tries them)."""
    return sorted(actions, key=lambda a: -len(a.preconditions))


def problem(
    start: PlanningState | Mapping[str, Any], goal: GoalSpec, actions: Iterable[ActionSpec]
) -> tuple[dict[str, Any], gp.GoalSpec, list[gp.ActionSpec]]:
    """goap's ``(initial, goal, actions)`` for a LangGOAP problem."""
    return encode_state(start), to_goap_goal(goal), goap_actions(actions)


def to_goap_goal(goal: GoalSpec | Mapping[str, Any]) -> gp.GoalSpec:
    """goap's goal for a LangGOAP GoalSpec (or plain conditions); constraints are not carried."""
    conditions: Mapping[str, Any] = goal if isinstance(goal, Mapping) else goal.conditions
    policy = getattr(goal, "policy", None)
    prio, budget = (policy.priority, policy.max_replans) if policy is not None else (0, 10)
    made = gp.GoalSpec(encode_map(conditions), priority=prio, max_replans=budget)
    return _remember(made, goal) if not isinstance(goal, Mapping) else made


def from_goap_goal(goal: gp.GoalSpec) -> GoalSpec:
    """The LangGOAP goal ``goal`` was converted from, else one with its decoded conditions."""
    from goap.compat.goals import GoalPolicy, GoalSpec

    policy = GoalPolicy(priority=goal.priority, max_replans=goal.max_replans)
    return _source(goal) or GoalSpec(conditions=decode_state(goal.conditions), policy=policy)


class PlannedByLangGoap:
    """The :class:`goap.StrategyReport` carrying the Plan a LangGOAP-shaped strategy made."""

    kind = "langgoap-plan"

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.message = f"LangGOAP plan {plan.action_names}"


class LangGoapStrategy:
    """goap's strategy running a LangGOAP one (``plan``); a found result reports its own Plan."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name = inner, type(inner).__name__

    def _inputs(self, initial: Mapping[str, Any], goal: GoalSpec, actions: Sequence[gp.ActionSpec]) -> Any:
        from goap.compat.state import PlanningState

        return [_source(a) for a in actions], PlanningState.from_dict(decode_state(initial)), {}

    def _keep(self, plan: Plan | None) -> None:
        pass

    def solve(
        self,
        initial: Mapping[str, Any],
        goal: gp.GoalSpec,
        actions: Sequence[gp.ActionSpec],
        *,
        blacklist: frozenset[str] = frozenset(),
    ) -> gp.PlanResult:
        """Plan with the inner strategy; its plan's actions mapped back to ``actions`` by name."""
        t0, sub = time.perf_counter(), from_goap_goal(goal)
        mine, start, hints = self._inputs(initial, sub, actions)
        lg = self.inner.plan(start, sub, mine, blacklisted_actions=sorted(blacklist), **hints)
        self._keep(lg)
        stats = gp.SearchStats(
            expanded=lg.metadata.nodes_explored if lg else 0, seconds=time.perf_counter() - t0
        )
        if lg is None:
            return gp.PlanResult("no_plan", None, None, stats, False, self.name)
        by_name = {a.name: a for a in actions}
        found = gp.Plan(tuple(by_name[n] for n in lg.action_names), lg.total_cost)
        return gp.PlanResult("found", found, None, stats, False, self.name, reports=(PlannedByLangGoap(lg),))


class _LangGoapDefault:
    """LangGOAP's default planning: the two-phase pipeline (A*, then CSP when the goal asks)."""

    def __init__(self, tracer: Any, record_expansions: bool) -> None:
        self.tracer, self.record = tracer, record_expansions

    def plan(self, start: Any, goal: Any, actions: Any, *, blacklisted_actions: Any = None, **_: Any) -> Any:
        from goap.compat.planner.pipeline import plan

        return plan(
            start, goal, actions, blacklisted_actions, tracer=self.tracer, record_expansions=self.record
        )


def to_goap_strategy(strategy: Any = None, *, tracer: Any = None, record_expansions: bool = False) -> Any:
    """goap's strategy for ``strategy`` (a goap one unchanged), by default LangGOAP's A*/CSP."""
    if strategy is not None and hasattr(strategy, "solve"):
        return strategy
    return LangGoapStrategy(strategy or _LangGoapDefault(tracer, record_expansions))


def to_plan(
    actions: Sequence[ActionSpec], start: PlanningState, *, nodes: int = 0, ms: float = 0.0, pruned: int = 0
) -> Plan:
    """LangGOAP's Plan of ``actions`` from ``start``: expected states, cost, metadata, score."""
    from goap.compat.planner.types import Plan, PlanMetadata
    from goap.compat.score import SimpleScore

    states, total, st = [], 0.0, start
    for a in actions:
        now = st.to_dict()
        total += a.get_cost(now)
        st = st.apply(a.get_effects(now))
        states.append(st)
    meta = PlanMetadata(nodes_explored=nodes, planning_time_ms=ms, actions_pruned=pruned)
    return Plan(tuple(actions), tuple(states), total, meta, SimpleScore(scalar=total))


def to_goap_score(score: Score) -> gp.Score:
    """goap's score with the same levels (SimpleScore's cost becomes goap's ``-cost``)."""
    from goap.compat.score import BendableScore, HardSoftScore, SimpleScore

    if isinstance(score, SimpleScore):
        return gp.SimpleScore(-score.scalar)
    if isinstance(score, HardSoftScore):
        return gp.HardSoftScore(min(score.hard, 0.0), score.soft)
    if isinstance(score, BendableScore):
        return gp.BendableScore(tuple(min(h, 0.0) for h in score.hard_levels), score.soft_levels)
    raise TypeError(f"not a LangGOAP score: {score!r}")


def csp_metric(key: str) -> str:
    """The goap metric of a resource key (suffixed when goap reserves it for a plan measure)."""
    from goap.planning.kit import RESERVED_METRICS

    return f"{key}~resource" if key in RESERVED_METRICS else key


def csp_actions(actions: Iterable[ActionSpec]) -> list[gp.ActionSpec]:
    """:func:`goap_actions`, resource keys renamed by :func:`csp_metric` (for the CP-SAT pipeline)."""
    out = []
    for g in goap_actions(actions):
        if g.resources and any(csp_metric(k) != k for k in g.resources):
            g = dataclasses.replace(g, resources={csp_metric(k): v for k, v in g.resources.items()})
        out.append(g)
    return out


_ENDED_AS = {"achieved": "success", "failed": "failed", "no_plan": "failed", "max_replans_exceeded": "failed"}
"""goap's terminal status -> LangGOAP's ExecutionRecord outcome (other statuses are not recorded)."""


def state_to_langgoap(state: Any) -> dict[str, Any]:
    """A LangGOAP state dict for a goap.runtime ``GoapState`` (what LangGOAP-style policies read)."""
    from goap.compat.graph.state import ActionResult

    status = {"achieved": "goal_achieved", "planning": "executing"}.get(state.status, state.status)
    same = ["current_step", "replan_count", "replan_reason", "current_subgoal_index", "no_plan_explanation"]
    out = {k: getattr(state, k) for k in [*same, "wall_clock_started_at"]}
    history = [ActionResult(o.action, o.success, error=o.error) for o in state.execution_history]
    out |= {"world_state": decode_state(state.world_state), "execution_history": history, "status": status}
    return out | {k: list(getattr(state, k)) for k in ("blacklisted_actions", "reflection_context")}


def execution_record(state: Any, goal: Any) -> Any:
    """LangGOAP's ExecutionRecord of a finished run (its active sub-goal), or None."""
    from datetime import UTC, datetime

    from goap.compat.history import ExecutionRecord, compute_goal_hash

    outcome = _ENDED_AS.get(state.status)
    if outcome is None or goal is None:
        return None
    subs = getattr(goal, "goals", None)
    if subs:
        goal = subs[min(state.current_subgoal_index, len(subs) - 1)]
    cost, when = float(state.plan_cost), datetime.now(UTC)
    made = (tuple(state.plan), cost, cost, outcome, state.replan_count, when)
    return ExecutionRecord(compute_goal_hash(goal), dict(goal.conditions), *made)
