"""Replay a plan against a problem in the shared JSON format and price it with the problem's costs.

Same rules as ``tests/data/problems/validate.py`` (numeric extension included), written again here
so the benchmark judges every planner — ours too — with a checker that shares no code with any of
them.
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JsonProblem = dict[str, Any]
"""A problem file as parsed by :func:`json.load`."""

OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
"""The comparison operators of the problem format (numeric extension)."""

OPTIMAL_TOLERANCE = 1e-6
"""A plan is optimal when its cost is within this of the file's ``optimal_cost`` (FORMAT.md)."""


@dataclass(frozen=True, slots=True)
class Validation:
    """Outcome of replaying one plan."""

    valid: bool
    """Every step was applicable and the goal holds at the end."""
    cost: float
    """Sum of the costs of the steps replayed (all of them when ``valid``)."""
    message: str
    """``"valid"`` or what went wrong, naming the step."""


def load(path: str | Path) -> JsonProblem:
    """Read one problem file."""
    with open(path, encoding="utf-8") as fh:
        problem: JsonProblem = json.load(fh)
    return problem


def is_numeric(problem: JsonProblem) -> bool:
    """Whether the problem uses the numeric extension (some condition or effect is an object)."""
    maps: list[Mapping[str, Any]] = [problem["goal"]]
    for action in problem["actions"]:
        maps.append(action["preconditions"])
        maps.append(action["effects"])
    return any(isinstance(v, dict) for m in maps for v in m.values())


def holds(condition: Any, value: Any) -> bool:
    """Whether a fact's ``value`` satisfies ``condition`` (a plain value or ``{"op", "value"}``)."""
    if isinstance(condition, dict) and "op" in condition:
        return value is not None and OPS[condition["op"]](value, condition["value"])
    return bool(value == condition)


def satisfied(conditions: Mapping[str, Any], state: Mapping[str, Any]) -> bool:
    """Whether every condition holds in ``state``."""
    return all(holds(c, state.get(k)) for k, c in conditions.items())


def apply(effects: Mapping[str, Any], state: Mapping[str, Any]) -> dict[str, Any]:
    """The state after applying ``effects`` (plain values set, ``{"add": n}`` adds)."""
    new = dict(state)
    for key, effect in effects.items():
        if isinstance(effect, dict) and "add" in effect:
            new[key] = new[key] + effect["add"]
        else:
            new[key] = effect
    return new


def check(problem: JsonProblem, names: Sequence[str]) -> Validation:
    """Replay the actions named in ``names`` from the initial state and check the goal."""
    by_name = {a["name"]: a for a in problem["actions"]}
    state: dict[str, Any] = dict(problem["initial"])
    cost = 0.0
    for i, name in enumerate(names):
        action = by_name.get(name)
        if action is None:
            return Validation(False, cost, f"step {i}: unknown action {name!r}")
        if not satisfied(action["preconditions"], state):
            return Validation(False, cost, f"step {i}: preconditions of {name!r} do not hold")
        state = apply(action["effects"], state)
        cost += float(action.get("cost", 1))
    if not satisfied(problem["goal"], state):
        return Validation(False, cost, "goal does not hold at the end")
    return Validation(True, cost, "valid")


def is_optimal(cost: float, optimal_cost: float | None) -> bool | None:
    """Whether ``cost`` equals the proved optimum; ``None`` when the file proves none."""
    if optimal_cost is None:
        return None
    return math.isclose(cost, optimal_cost, rel_tol=0.0, abs_tol=OPTIMAL_TOLERANCE)
