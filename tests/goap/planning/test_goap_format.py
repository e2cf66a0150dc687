"""Problem files: valid ones load into the model, malformed ones raise a typed error naming file and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goap import PlanningError, ProblemFormatError, load_problem
from goap.planning._conditions import Add, Compare


def _valid() -> dict[str, Any]:
    return {
        "name": "tiny",
        "family": "chain",
        "description": "two steps",
        "initial": {"a": False, "n": 0},
        "goal": {"a": True, "n": {"op": ">=", "value": 2}},
        "actions": [
            {"name": "inc", "preconditions": {}, "effects": {"n": {"add": 1}}, "cost": 1},
            {
                "name": "set",
                "preconditions": {"n": {"op": ">", "value": 0}},
                "effects": {"a": True},
                "cost": 0.5,
            },
        ],
        "optimal_cost": 2.5,
        "expect": "plan",
    }


def _write(tmp_path: Path, data: object, name: str = "tiny.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return p


def test_valid_file_loads_into_the_model(tmp_path: Path) -> None:
    """Conditions and numeric effects of the format become condition and Add objects."""
    prob = load_problem(_write(tmp_path, _valid()))
    assert prob.name == "tiny"
    assert prob.family == "chain"
    assert prob.optimal_cost == 2.5
    assert prob.expect == "plan"
    assert prob.goal.conditions["n"] == Compare(">=", 2)
    assert prob.actions[0].effects["n"] == Add(1)
    assert prob.actions[1].cost == 0.5


def _mutate(path: str, value: object) -> dict[str, Any]:
    data = _valid()
    cur: Any = data
    parts = path.split(".")
    for part in parts[:-1]:
        if "[" in part:
            name, idx = part[:-1].split("[")
            cur = cur[name][int(idx)]
        else:
            cur = cur[part]
    if value is _DELETE:
        del cur[parts[-1]]
    else:
        cur[parts[-1]] = value
    return data


_DELETE = object()

BAD = [
    ("actions[1].cost", "x", 'actions[1].cost: expected a number ≥ 0, got "x"'),
    ("actions[0].cost", -1, "actions[0].cost: expected a number ≥ 0, got -1"),
    ("actions[0].cost", True, "actions[0].cost: expected a number ≥ 0, got true"),
    ("actions[0].name", 3, "actions[0].name: expected a string, got 3"),
    ("actions[1].name", "inc", 'actions[1].name: duplicate action name "inc"'),
    ("actions[0].effects", [], "actions[0].effects: expected an object, got []"),
    ("actions[0].effects.n", {"add": "2"}, 'actions[0].effects.n.add: expected a number, got "2"'),
    ("actions[0].effects.zz", 1, "actions[0].effects.zz: unknown fact key"),
    ("actions[1].preconditions.n", {"op": "~", "value": 1}, "actions[1].preconditions.n.op: expected one of"),
    ("goal.n", {"op": ">="}, "goal.n: expected a scalar or"),
    ("goal.a", [1], "goal.a: expected a JSON scalar"),
    ("initial.a", None, "initial.a: expected a bool, number or string, got null"),
    ("actions", {}, "actions: expected an array, got {}"),
    ("name", _DELETE, "name: missing required field"),
    ("expect", "maybe", 'expect: expected "plan" or "no_plan", got "maybe"'),
    ("optimal_cost", "7", 'optimal_cost: expected a number ≥ 0 or null, got "7"'),
]


@pytest.mark.parametrize(("field", "value", "message"), BAD, ids=[b[0] + "=" + repr(b[1]) for b in BAD])
def test_malformed_field_is_named_in_the_error(
    tmp_path: Path, field: str, value: object, message: str
) -> None:
    """A bad field raises ProblemFormatError naming the file, the field and the bad value."""
    path = _write(tmp_path, _mutate(field, value), "blocksworld-4.json")
    with pytest.raises(ProblemFormatError) as info:
        load_problem(path)
    text = str(info.value)
    assert text.startswith("blocksworld-4.json: ")
    assert message in text
    assert info.value.file == "blocksworld-4.json"
    assert info.value.field == message.split(":")[0]


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    """Broken JSON is a ProblemFormatError with its position."""
    with pytest.raises(ProblemFormatError, match=r"bad\.json: invalid JSON at line 1 column"):
        load_problem(_write(tmp_path, "{nope", "bad.json"))


def test_missing_file_is_a_planning_error(tmp_path: Path) -> None:
    """A file that cannot be read is reported through the same error tree."""
    with pytest.raises(PlanningError, match="missing.json: cannot read file"):
        load_problem(tmp_path / "missing.json")


def test_top_level_must_be_an_object(tmp_path: Path) -> None:
    """A JSON array at the top level is rejected."""
    with pytest.raises(ProblemFormatError, match="expected an object"):
        load_problem(_write(tmp_path, [1, 2]))
