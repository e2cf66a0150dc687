"""langgoap 0.1.2's A* (``langgoap.planner.astar.plan``) built from the JSON problem.

langgoap conditions are equalities only. The numeric extension is expressed with the one trick its
model allows: each numeric condition ``key OP n`` becomes a derived boolean fact
``"key OP n"`` that must be ``True``, and every action touching ``key`` gets a *dynamic* effect
(a callable with declared ``effect_keys``) that computes the new value and recomputes the derived
facts from it. The state space is the same as the JSON problem's, so plans translate one to one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bench.peers import Outcome, quiet_langgoap
from bench.validate import OPS, load

Derived = dict[str, list[tuple[str, str, Any]]]
"""Numeric key -> its derived facts as (fact name, op, threshold)."""


def _derived_name(key: str, op: str, value: Any) -> str:
    # The leading marker keeps derived names apart from every JSON key.
    return f"#{key} {op} {value}"


def _conditions(conditions: Mapping[str, Any], derived: Derived) -> dict[str, Any]:
    """Equality conditions, numeric ones replaced by their derived facts (registered in ``derived``)."""
    out: dict[str, Any] = {}
    for key, cond in conditions.items():
        if isinstance(cond, dict) and "op" in cond:
            name = _derived_name(key, cond["op"], cond["value"])
            entries = derived.setdefault(key, [])
            if all(e[0] != name for e in entries):
                entries.append((name, cond["op"], cond["value"]))
            out[name] = True
        else:
            out[key] = cond
    return out


def _dynamic_effects(
    effects: Mapping[str, Any], derived: Derived
) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """A callable computing the new values of ``effects`` and of the derived facts they change."""

    def apply(state: Mapping[str, Any]) -> dict[str, Any]:
        new: dict[str, Any] = {}
        for key, effect in effects.items():
            value = state[key] + effect["add"] if isinstance(effect, dict) else effect
            new[key] = value
            for name, op, threshold in derived.get(key, ()):
                new[name] = OPS[op](value, threshold)
        return new

    return apply


def build(problem: dict[str, Any]) -> tuple[dict[str, Any], Any, list[Any]]:
    """langgoap ``(start, GoalSpec, [ActionSpec])`` equivalent to the JSON ``problem``."""
    from langgoap import ActionSpec, GoalSpec

    derived: Derived = {}
    goal = _conditions(problem["goal"], derived)
    pres = [_conditions(a["preconditions"], derived) for a in problem["actions"]]
    actions = []
    for action, pre in zip(problem["actions"], pres, strict=True):
        effects: dict[str, Any] = action["effects"]
        touched = [k for k in effects if k in derived or isinstance(effects[k], dict)]
        if touched:
            keys = set(effects) | {name for k in effects for name, _, _ in derived.get(k, ())}
            spec = ActionSpec(
                name=action["name"],
                preconditions=pre,
                effects=_dynamic_effects(effects, derived),
                effect_keys=frozenset(keys),
                cost=float(action.get("cost", 1)),
            )
        else:
            spec = ActionSpec(
                name=action["name"], preconditions=pre, effects=effects, cost=float(action.get("cost", 1))
            )
        actions.append(spec)
    start = dict(problem["initial"])
    for key, entries in derived.items():
        for name, op, threshold in entries:
            start[name] = OPS[op](start[key], threshold)
    return start, GoalSpec(conditions=goal), actions


def run(problem_path: Path, workdir: Path) -> Outcome:
    """Build the langgoap objects (not timed), then time one ``plan()`` call."""
    from langgoap.planner.astar import plan

    # Its per-plan INFO/WARNING logging is not part of planning work we want to time.
    with quiet_langgoap():
        start_state, goal, actions = build(load(problem_path))
        begin = time.perf_counter()
        result = plan(start_state, goal, actions)
        seconds = time.perf_counter() - begin
    if result is None:
        return Outcome("no_plan", None, seconds)
    names = [a.name for a in result.actions]
    return Outcome("found", names, seconds, None, result.metadata.nodes_explored)
