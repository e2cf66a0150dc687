"""JSON forms of goals and conditions, so goals can live in a durable `GoapState`.

A :class:`goap.ConstrainedGoal` keeps its constraints, objectives and capacities (under those
keys), so a run resumed from the store plans under the same constraints.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from goap.planning import (
    Capacity,
    Compare,
    ConstrainedGoal,
    GoalSpec,
    ModelError,
    MultiGoal,
    Objective,
    OneOf,
    ResourceConstraint,
    condition_to_json,
)

__all__ = ["condition_from_json", "goal_from_dict", "goal_to_dict"]

_OPS = frozenset({"==", "!=", "<", "<=", ">", ">="})


def condition_from_json(value: Any) -> Any:
    """Inverse of `condition_to_json`: `{"op": ">=", "value": 5}`, `{"in": [...]}` or a plain value."""
    if isinstance(value, Mapping):
        if set(value) == {"op", "value"} and value["op"] in _OPS:
            return Compare(value["op"], value["value"])
        if set(value) == {"in"} and isinstance(value["in"], list):
            return OneOf(frozenset(value["in"]))
        raise ModelError(f"not a condition: {dict(value)!r}")
    return value


def _goal(g: GoalSpec) -> dict[str, Any]:
    out: dict[str, Any] = {
        "conditions": {k: condition_to_json(v) for k, v in g.conditions.items()},
        "name": g.name,
        "priority": g.priority,
        "max_replans": g.max_replans,
    }
    if isinstance(g, ConstrainedGoal):
        out["constraints"] = [
            {"key": c.key, "max": c.max, "min": c.min, "level": c.level, "weight": c.weight, "name": c.name}
            for c in g.constraints
        ]
        out["objectives"] = [
            {"metric": o.metric, "direction": o.direction, "weight": o.weight, "priority": o.priority}
            for o in g.objectives
        ]
        out["capacities"] = [{"key": c.key, "limit": c.limit} for c in g.capacities]
    return out


_PARTS: dict[str, tuple[type[Any], frozenset[str]]] = {
    "constraints": (ResourceConstraint, frozenset({"key", "max", "min", "level", "weight", "name"})),
    "objectives": (Objective, frozenset({"metric", "direction", "weight", "priority"})),
    "capacities": (Capacity, frozenset({"key", "limit"})),
}


def _items(d: Mapping[str, Any], part: str) -> tuple[Any, ...]:
    """The constraints, objectives or capacities stored under ``part``, validated by their classes."""
    raw = d.get(part, [])
    cls, fields = _PARTS[part]
    if not isinstance(raw, list):
        raise ModelError(f"goal {part} must be a list, got {raw!r}")
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, Mapping) or not set(item) <= fields:
            raise ModelError(
                f"goal {part}[{i}]: expected an object with keys among {sorted(fields)}, got {item!r}"
            )
        try:
            out.append(cls(**item))
        except TypeError as exc:  # a missing required field
            raise ModelError(f"goal {part}[{i}]: {exc}") from exc
    return tuple(out)


def goal_to_dict(goal: GoalSpec | MultiGoal) -> dict[str, Any]:
    """A JSON-ready dict for a goal or multi-goal."""
    if isinstance(goal, MultiGoal):
        return {"multi": [_goal(g) for g in goal.goals], "mode": goal.mode}
    return _goal(goal)


def _goal_from(d: Mapping[str, Any]) -> GoalSpec:
    conds = d.get("conditions", {})
    if not isinstance(conds, Mapping):
        raise ModelError(f"goal conditions must be an object, got {conds!r}")
    conditions = {k: condition_from_json(v) for k, v in conds.items()}
    name = str(d.get("name", ""))
    priority = int(d.get("priority", 0))
    max_replans = int(d.get("max_replans", 10))
    if any(part in d for part in _PARTS):
        return ConstrainedGoal(
            conditions,
            name=name,
            priority=priority,
            max_replans=max_replans,
            constraints=_items(d, "constraints"),
            objectives=_items(d, "objectives"),
            capacities=_items(d, "capacities"),
        )
    return GoalSpec(conditions, name=name, priority=priority, max_replans=max_replans)


def goal_from_dict(data: Any) -> GoalSpec | MultiGoal:
    """Rebuild a goal from `goal_to_dict` output (GoalSpec/MultiGoal pass through)."""
    if isinstance(data, GoalSpec | MultiGoal):
        return data
    if not isinstance(data, Mapping):
        raise ModelError(f"a goal must be an object, got {type(data).__name__}")
    if "multi" in data:
        return MultiGoal(tuple(_goal_from(g) for g in data["multi"]), mode=data.get("mode", "sequential"))
    return _goal_from(data)
