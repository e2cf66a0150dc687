"""Problem files: the JSON format of ``shared/problems/FORMAT.md`` read into the model.

:func:`load_problem` validates every field and raises :class:`goap.ProblemFormatError` naming
the file and the JSON path of the first bad field, e.g.
``blocksworld-4.json: actions[3].cost: expected a number ≥ 0, got "x"``. A goal, precondition or
effect value must have its fact's type in ``initial`` (bool, number or string; see
:mod:`goap.planning._typecheck`): ``"goal": {"done": 1}`` on ``"done": false`` is an error, not a goal.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from goap.planning._actions import ActionSpec
from goap.planning._conditions import Add, Compare
from goap.planning._errors import ProblemFormatError
from goap.planning._goals import GoalSpec
from goap.planning._typecheck import first_type_error

__all__ = ["Problem", "load_problem", "problem_from_dict"]

_OPS = ("==", "!=", "<", "<=", ">", ">=")


@dataclass(frozen=True, slots=True)
class Problem:
    """One planning problem read from a file."""

    name: str
    """Unique name (the file name without ``.json``)."""
    family: str
    """Problem family, e.g. ``blocksworld``."""
    description: str
    """Free text."""
    initial: Mapping[str, Any]
    """The initial world state (read-only)."""
    goal: GoalSpec
    """The goal."""
    actions: tuple[ActionSpec, ...]
    """The actions, in file order."""
    optimal_cost: float | None
    """Proven least plan cost, or None."""
    expect: Literal["plan", "no_plan"]
    """Whether the goal is reachable."""


_DUMP_MAX = 80
"""Characters of a bad value quoted in an error message (longer values are cut)."""


def _dump(value: object) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= _DUMP_MAX else text[: _DUMP_MAX - 3] + "..."


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _is_scalar(v: object) -> bool:
    t = type(v)
    if t is bool or t is str or t is int:
        return True
    return isinstance(v, bool | str) or _is_number(v)


class _Reader:
    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, field: str, detail: str) -> ProblemFormatError:
        return ProblemFormatError(self.file, field, detail)

    def obj(self, value: object, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(field, f"expected an object, got {_dump(value)}")
        return value

    def string(self, value: object, field: str) -> str:
        if not isinstance(value, str):
            raise self.fail(field, f"expected a string, got {_dump(value)}")
        return value

    def condition(self, value: object, field: str) -> object:
        if isinstance(value, dict):
            if set(value) != {"op", "value"}:
                raise self.fail(
                    field, f'expected a scalar or {{"op": OP, "value": NUMBER}}, got {_dump(value)}'
                )
            op = value["op"]
            if op not in _OPS:
                raise self.fail(f"{field}.op", f"expected one of {', '.join(_OPS)}, got {_dump(op)}")
            if not _is_scalar(value["value"]):
                raise self.fail(f"{field}.value", f"expected a number, got {_dump(value['value'])}")
            return Compare(op, value["value"])
        if not _is_scalar(value):
            raise self.fail(field, f"expected a JSON scalar or a condition object, got {_dump(value)}")
        return value

    def effect(self, value: object, field: str) -> object:
        if isinstance(value, dict):
            if set(value) != {"add"}:
                raise self.fail(field, f'expected a scalar or {{"add": NUMBER}}, got {_dump(value)}')
            if not _is_number(value["add"]):
                raise self.fail(f"{field}.add", f"expected a number, got {_dump(value['add'])}")
            return Add(value["add"])
        if not _is_scalar(value):
            raise self.fail(field, f'expected a JSON scalar or {{"add": NUMBER}}, got {_dump(value)}')
        return value

    def facts(self, value: object, field: str, known: Mapping[str, Any], effect: bool) -> dict[str, object]:
        out: dict[str, object] = {}
        for k, v in self.obj(value, field).items():
            if k not in known:
                raise self.fail(f"{field}.{k}", "unknown fact key (every key must appear in initial)")
            t = type(v)
            if t is bool or t is str or t is int or (t is float and math.isfinite(v)):
                out[k] = v  # the common case, without building the field's name for an error
            else:
                out[k] = self.effect(v, f"{field}.{k}") if effect else self.condition(v, f"{field}.{k}")
        return out


def problem_from_dict(data: object, source: str = "<dict>") -> Problem:
    """Build a :class:`Problem` from parsed JSON; ``source`` names it in errors."""
    r = _Reader(source)
    top = r.obj(data, "")
    for key in ("name", "initial", "goal", "actions"):
        if key not in top:
            raise r.fail(key, "missing required field")
    name = r.string(top["name"], "name")
    family = r.string(top.get("family", ""), "family")
    description = r.string(top.get("description", ""), "description")
    initial = r.obj(top["initial"], "initial")
    for k, v in initial.items():
        if not _is_scalar(v):
            raise r.fail(f"initial.{k}", f"expected a bool, number or string, got {_dump(v)}")
    goal = r.facts(top["goal"], "goal", initial, effect=False)
    raw_actions = top["actions"]
    if not isinstance(raw_actions, list):
        raise r.fail("actions", f"expected an array, got {_dump(raw_actions)}")
    actions: list[ActionSpec] = []
    names: set[str] = set()
    for i, raw in enumerate(raw_actions):
        where = f"actions[{i}]"
        a = r.obj(raw, where)
        if "name" not in a:
            raise r.fail(f"{where}.name", "missing required field")
        aname = r.string(a["name"], f"{where}.name")
        if not aname:
            raise r.fail(f"{where}.name", "expected a non-empty string")
        if aname in names:
            raise r.fail(f"{where}.name", f"duplicate action name {_dump(aname)}")
        names.add(aname)
        pre = r.facts(a.get("preconditions", {}), f"{where}.preconditions", initial, effect=False)
        eff = r.facts(a.get("effects", {}), f"{where}.effects", initial, effect=True)
        cost = a.get("cost", 1)
        if not _is_number(cost) or cost < 0:
            raise r.fail(f"{where}.cost", f"expected a number ≥ 0, got {_dump(cost)}")
        actions.append(ActionSpec(aname, pre, eff, float(cost)))
    opt = top.get("optimal_cost")
    if opt is not None and (not _is_number(opt) or opt < 0):
        raise r.fail("optimal_cost", f"expected a number ≥ 0 or null, got {_dump(opt)}")
    expect = top.get("expect", "plan")
    if expect not in ("plan", "no_plan"):
        raise r.fail("expect", f'expected "plan" or "no_plan", got {_dump(expect)}')
    goal_spec = GoalSpec(goal, name=name)
    bad = first_type_error(initial, (goal_spec,), actions)
    if bad is not None:
        where = {"goal": "goal", "precondition": "preconditions", "effect": "effects"}[bad.where]
        field = f"goal.{bad.key}" if bad.where == "goal" else f"actions[{bad.index}].{where}.{bad.key}"
        raise r.fail(field, bad.message)
    return Problem(
        name=name,
        family=family,
        description=description,
        initial=MappingProxyType(dict(initial)),
        goal=goal_spec,
        actions=tuple(actions),
        optimal_cost=None if opt is None else float(opt),
        expect=expect,
    )


def load_problem(path: str | os.PathLike[str]) -> Problem:
    """Read a problem file; raises :class:`goap.ProblemFormatError` naming the file and field."""
    name = os.path.basename(os.fspath(path))
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise ProblemFormatError(name, "", f"cannot read file: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ProblemFormatError(name, "", f"not UTF-8 text: {exc.reason}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProblemFormatError(
            name, "", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    except RecursionError as exc:
        raise ProblemFormatError(name, "", "invalid JSON: arrays or objects nested too deeply") from exc
    except ValueError as exc:  # e.g. an integer literal longer than int's digit limit
        raise ProblemFormatError(name, "", f"invalid JSON: {exc}") from exc
    return problem_from_dict(data, name)
