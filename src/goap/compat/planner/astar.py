# The semantics (blacklist fallback, the backward and forward passes, the reachability check) follow
# langgoap 0.1.2, langgoap/planner/astar.py: MIT licence, Copyright (c) 2024 Integrallis Software
# (goap/compat/LICENSE-langgoap); the search is goap's.
"""LangGOAP's ``plan()``: an optimal plan for equality goals, searched by :func:`goap.planning.plan`.

LangGOAP's model is equality on hashable values: a precondition or goal ``{key: value}`` holds when
the state has that key with an equal value (a missing key never holds), and an effect sets keys.
The model is handed to goap's A* (LM-cut) as it is, with every value replaced by an interned integer
so that goap's fact type checks see one type per fact and equality stays Python's (``1 == True``
as in a frozenset lookup). Actions with ``can_rerun=False`` get a hidden "used" fact that their
first run sets. Costs computed from the state (``CostFunction``) see the original values.

LangGOAP's semantics kept here: a goal already satisfied gives the empty plan; with a blacklist,
the search runs on the other actions first and falls back to all actions when that finds nothing;
the found plan is shortened by the backward pass (drop actions none of whose effects are needed
later) and the forward pass (drop actions that change nothing), kept only if the goal still holds.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from goap.compat._logs import get_logger
from goap.compat._search import MAX_NODES, ExpandHook, search_states, step_cost
from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.types import Plan, PlanMetadata
from goap.compat.score import SimpleScore
from goap.compat.state import PlanningState
from goap.planning import ActionSpec as CoreAction
from goap.planning import AStar, ModelError, PlanningStrategy
from goap.planning import GoalSpec as CoreGoal
from goap.planning import plan as core_plan

__all__ = ["CoreSearch", "astar_search", "plan"]

logger = get_logger(__name__)

CoreSearch = Callable[["float | None"], PlanningStrategy]
"""Makes the goap strategy (:mod:`goap.planning`, :mod:`goap.strategies`) of one search, given the
seconds left before the deadline (None: no deadline)."""


def astar_search(timeout: float | None) -> PlanningStrategy:
    """goap's optimal A* (LM-cut); without a deadline it gives up after :data:`MAX_NODES` expansions."""
    return AStar(timeout=timeout, max_expansions=None if timeout is not None else MAX_NODES)


_USED = "goap.compat:used:"
"""Prefix of the hidden facts that mark a ``can_rerun=False`` action as run (never a user key)."""


class _Interner:
    """Maps hashable values to small integers and back; equal values share one integer."""

    def __init__(self) -> None:
        self.ids: dict[Hashable, int] = {}
        self.values: list[Any] = []

    def __call__(self, value: Hashable) -> int:
        found = self.ids.get(value)
        if found is None:
            found = self.ids[value] = len(self.values)
            self.values.append(value)
        return found

    def encode(self, facts: Mapping[str, Any]) -> dict[str, int]:
        return {k: self(v) for k, v in facts.items()}

    def decode(self, state: Mapping[str, Any]) -> dict[str, Any]:
        return {k: self.values[v] for k, v in state.items() if not k.startswith(_USED)}


def _cost(action: ActionSpec, interner: _Interner) -> float | Callable[[Mapping[str, Any]], float]:
    if not callable(action.cost):
        return float(action.cost)
    return lambda state: step_cost(action, interner.decode(state))


def _core_actions(
    actions: Sequence[ActionSpec], interner: _Interner, start: dict[str, int]
) -> list[CoreAction]:
    """The actions in goap's model, in order; a repeated name (langgoap allows them) gets ``#i``."""
    used_yes, used_no = interner(True), interner(False)
    counts = Counter(a.name for a in actions)
    out: list[CoreAction] = []
    for i, a in enumerate(actions):
        name = a.name if counts[a.name] == 1 else f"{a.name}#{i}"
        pre = interner.encode(a.preconditions)
        eff = interner.encode(a.get_effects({}))
        if not a.can_rerun:
            start[f"{_USED}{i}"] = used_no
            pre[f"{_USED}{i}"] = used_no
            eff[f"{_USED}{i}"] = used_yes
        out.append(CoreAction(name, pre, eff, cost=_cost(a, interner)))
    return out


@dataclass(frozen=True, slots=True)
class _Hooks:
    """The tracer's per-node hooks, resolved once (None when not asked for or not defined)."""

    expand: ExpandHook | None = None
    dead_end: Callable[[str, dict[str, Any]], Any] | None = None

    @classmethod
    def of(cls, tracer: Any, record: bool) -> _Hooks:
        if tracer is None or not record:
            return cls()
        return cls(getattr(tracer, "on_search_expand", None), getattr(tracer, "on_search_dead_end", None))


def _check_hashable(owner: str, facts: Mapping[str, Any]) -> None:
    """Raise :class:`~goap.planning.ModelError` naming the first unhashable value of ``facts``."""
    for key, value in facts.items():
        try:
            hash(value)
        except TypeError:
            raise ModelError(
                f"{owner}: {key!r} = {value!r} is not hashable; planning compares states as sets "
                "of (key, value) pairs, so values must be hashable (use a tuple or frozenset)"
            ) from None


def _check_model(goal: Mapping[str, Any], actions: Sequence[ActionSpec]) -> None:
    _check_hashable("goal conditions", goal)
    for a in actions:
        _check_hashable(f"action {a.name!r}: preconditions", a.preconditions)
        if not a.has_dynamic_effects:
            _check_hashable(f"action {a.name!r}: effects", a.get_effects({}))


def _reachable(start: PlanningState, goal: Mapping[str, Any], actions: Sequence[ActionSpec]) -> bool:
    """Whether every unmet goal condition is an effect of some action (necessary for a plan)."""
    producible: set[tuple[str, Any]] = set()
    dynamic: set[str] = set()
    for a in actions:
        if a.has_dynamic_effects:
            dynamic |= a.effect_key_set()
        else:
            producible |= set(a.get_effects({}).items())
    return all(item in start.conditions or item[0] in dynamic or item in producible for item in goal.items())


def _search(
    start: PlanningState,
    goal: Mapping[str, Any],
    actions: Sequence[ActionSpec],
    deadline: float | None,
    hooks: _Hooks,
    attempt: int,
    search: CoreSearch,
) -> tuple[tuple[ActionSpec, ...] | None, int]:
    """One search: the raw action sequence (or None) and the nodes expanded."""
    if not _reachable(start, goal, actions):
        if hooks.dead_end is not None:
            hooks.dead_end("not_reachable", {"goal_conditions": dict(goal), "attempt": attempt})
        return None, 0
    if hooks.expand is not None or any(a.has_dynamic_effects for a in actions):
        # per-node tracer events and state-dependent effects need the states themselves
        raw, nodes = search_states(start, goal, actions, deadline, hooks.expand)
    else:
        raw, nodes = _search_core(start, goal, actions, deadline, search)
    if raw is None and hooks.dead_end is not None:
        hooks.dead_end("exhausted", {"nodes_explored": nodes, "attempt": attempt})
    return raw, nodes


def _search_core(
    start: PlanningState,
    goal: Mapping[str, Any],
    actions: Sequence[ActionSpec],
    deadline: float | None,
    search: CoreSearch,
) -> tuple[tuple[ActionSpec, ...] | None, int]:
    """Search with the goap strategy ``search`` makes, on the interned model."""
    # langgoap prefers more specific actions among equal-cost choices (it expands actions in
    # descending precondition count); handing them over in that order keeps ties alike
    ordered = sorted(actions, key=lambda a: len(a.preconditions), reverse=True)
    interner = _Interner()
    initial = interner.encode(start.to_dict())
    core = _core_actions(ordered, interner, initial)
    timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
    result = core_plan(initial, CoreGoal(interner.encode(goal)), core, search(timeout))
    if result.plan is None:
        return None, result.stats.expanded
    position = {c.name: i for i, c in enumerate(core)}
    return tuple(ordered[position[a.name]] for a in result.plan.actions), result.stats.expanded


def _backward_pass(actions: tuple[ActionSpec, ...], goal: Mapping[str, Any]) -> tuple[ActionSpec, ...]:
    """Keep only actions one of whose effects is needed later (skipped with dynamic effects)."""
    dynamic = [a.name for a in actions if a.has_dynamic_effects]
    if dynamic:
        logger.debug(
            "skipping backward optimization: dynamic-effect action(s) %s read state that cannot "
            "be tracked statically; keeping the plan as searched",
            dynamic,
        )
        return actions
    needed: set[tuple[str, Any]] = set(goal.items())
    kept: list[ActionSpec] = []
    for a in reversed(actions):
        effects = set(a.get_effects({}).items())
        if effects & needed:
            kept.append(a)
            needed -= effects
            needed |= set(a.preconditions.items())
    kept.reverse()
    return tuple(kept)


def _forward_pass(
    actions: tuple[ActionSpec, ...], start: PlanningState, goal: Mapping[str, Any]
) -> tuple[ActionSpec, ...]:
    """Drop actions that change nothing; the input when the result misses the goal.

    The result is replayed with every precondition checked (langgoap checks the goal only): the
    backward pass tracks needs as (key, value) pairs, and a shortened plan that leaves an action
    unable to run is worse than the plan as searched.
    """
    kept: list[ActionSpec] = []
    current = start
    for a in actions:
        now = current.to_dict()
        effects = a.get_effects(now)
        if a.has_dynamic_effects or any(now.get(k) != v for k, v in effects.items()):
            if not current.satisfies(a.preconditions):
                return actions
            kept.append(a)
            current = current.apply(effects)
    return tuple(kept) if current.satisfies(goal) else actions


def _build(
    raw: tuple[ActionSpec, ...], start: PlanningState, goal: Mapping[str, Any], nodes: int, t0: float
) -> Plan:
    actions = _forward_pass(_backward_pass(raw, goal), start, goal)
    expected: list[PlanningState] = []
    state = start
    total = 0.0
    for a in actions:
        now = state.to_dict()
        total += a.get_cost(now)
        state = state.apply(a.get_effects(now))
        expected.append(state)
    return Plan(
        actions=actions,
        expected_states=tuple(expected),
        total_cost=total,
        metadata=PlanMetadata(
            nodes_explored=nodes,
            planning_time_ms=(time.monotonic() - t0) * 1000,
            actions_pruned=len(raw) - len(actions),
        ),
        score=SimpleScore(scalar=total),
    )


def plan(
    start: PlanningState | dict[str, Any],
    goal: GoalSpec,
    actions: list[ActionSpec],
    blacklisted_actions: list[str] | None = None,
    *,
    time_budget_ms: float | None = None,
    tracer: Any = None,
    record_expansions: bool = False,
    search: CoreSearch = astar_search,
) -> Plan | None:
    """An optimal (least total cost) plan from ``start`` to ``goal``, or None when there is none.

    ``blacklisted_actions`` are left out first; when the goal is then unreachable the search is
    repeated with every action. ``time_budget_ms`` bounds each search's wall time (None: no bound
    beyond goap's default expansion limit). With ``record_expansions`` and a ``tracer``, the
    tracer's ``on_search_complete(nodes, elapsed_ms, found)`` is called once.

    ``search`` (goap.compat's addition) makes the goap strategy that searches the compiled model,
    given the seconds left: goap's A* by default; LangGOAP's semantics above stay whatever it is.
    Effects computed from the state and per-node tracing search the states themselves.

    Raises :class:`goap.planning.ModelError` (a ``ValueError``) naming the action or goal when a
    value is not hashable, or a cost is negative, infinite or NaN (langgoap plans with such costs).
    """
    state = start if isinstance(start, PlanningState) else PlanningState.from_dict(start)
    t0 = time.monotonic()
    conditions = goal.conditions
    deadline = None if time_budget_ms is None else t0 + time_budget_ms / 1000.0
    on_complete = getattr(tracer, "on_search_complete", None) if record_expansions else None
    hooks = _Hooks.of(tracer, record_expansions)

    def complete(found: bool, nodes: int) -> None:
        if on_complete is not None:
            on_complete(nodes, (time.monotonic() - t0) * 1000, found)

    _check_model(conditions, actions)
    if state.satisfies(conditions):
        complete(True, 0)
        return Plan(
            actions=(),
            metadata=PlanMetadata(planning_time_ms=(time.monotonic() - t0) * 1000),
            score=SimpleScore(scalar=0.0),
        )
    nodes = 0
    blacklist = set(blacklisted_actions or ())
    if blacklist:
        allowed = [a for a in actions if a.name not in blacklist]
        raw, nodes = _search(state, conditions, allowed, deadline, hooks, 1, search)
        if raw is not None:
            complete(True, nodes)
            return _build(raw, state, conditions, nodes, t0)
        logger.debug("no plan without the blacklisted actions %s; planning with all", sorted(blacklist))
    raw, more = _search(state, conditions, actions, deadline, hooks, 2 if blacklist else 1, search)
    nodes += more
    complete(raw is not None, nodes)
    return None if raw is None else _build(raw, state, conditions, nodes, t0)
