"""The C grounding (``goap.planning._ground``) compiles plain tasks exactly as the pure-Python compiler does.

Both compile every shared problem and generated tasks; the variables, operators (every field),
goal sets, pruning counts and flags must be equal, and a task the C code cannot decide alone
(set conditions, numeric facts, cost functions, odd input) must go to the Python compiler, which
raises the same errors as before. Bad input never crashes the extension.
"""

from __future__ import annotations

import glob
import math
import os
import subprocess
import sys
from typing import Any

import hypothesis.strategies as st
import pytest
from goap_tasks import RawProblem, on_drawn
from problem_files import PROBLEMS as PROBLEM_DIR

from goap import ActionSpec, AStar, GoalSpec, ModelError, add, in_, load_problem, ne, plan
from goap.planning import _compile as compile_module
from goap.planning._task import CompiledOp, Task

pytestmark = pytest.mark.skipif(
    compile_module._ground is None, reason="goap.planning._ground is not built (or GOAP_PURE_PYTHON=1)"
)

PROBLEMS = PROBLEM_DIR
PROBLEM_FILES = sorted(glob.glob(f"{PROBLEMS}/*.json")) + sorted(glob.glob(f"{PROBLEMS}/ipc/*.json"))


def _fields(op: CompiledOp) -> tuple[Any, ...]:
    return tuple(getattr(op, f) for f in CompiledOp.__slots__)  # type: ignore[attr-defined]


def _signature(task: Task) -> tuple[Any, ...]:
    return (
        [(v.name, v.domain, v.shift, v.mask, v.base) for v in task.variables],
        [_fields(op) for op in task.ops],
        task.num_names,
        task.initial,
        task.goal_facts,
        (task._gmask, task._gval, task._gsets, task._num_goal),
        task.pruned_ops,
        dict(task.dropped_keys),
        task.impossible,
        task.relaxed_reachable,
        task.nfacts,
        list(task.bucket_facts),
        [(sh, m, [[op.index for op in b] for b in t]) for sh, m, t in task._index[0]],
        [op.index for op in task._index[1]],
        task.mask_only,
        task.has_cost_functions,
        getattr(task.expand, "__name__", None),
    )


def _compare(initial: Any, goal: Any, actions: list[ActionSpec]) -> bool:
    """Assert C and Python agree; return whether the C grounding handled the task."""
    try:
        py = compile_module._compile(initial, goal, actions, True, accelerated=False)
    except ModelError as exc:
        with pytest.raises(ModelError, match=str(exc).replace("(", r"\(").replace(")", r"\)")):
            compile_module._compile(initial, goal, actions, True, accelerated=True)
        return compile_module._compile_plain(initial, goal, actions) is not None
    c = compile_module._compile_plain(initial, goal, actions)
    if c is None:
        return False
    assert _signature(c) == _signature(py)
    for a, b in zip(c.ops, py.ops, strict=True):
        assert a.action is b.action
        assert type(a.cost) is float and type(a.pre_mask) is int
    return True


@pytest.mark.skipif(not PROBLEM_FILES, reason="shared problem files not found")
@pytest.mark.parametrize("path", PROBLEM_FILES, ids=lambda p: os.path.basename(p)[:-5])
def test_c_and_python_compile_a_shared_problem_the_same(path: str) -> None:
    """Every shared problem compiles to the same task; every non-numeric one goes through C."""
    p = load_problem(path)
    goal = p.goal if isinstance(p.goal, GoalSpec) else GoalSpec(p.goal)
    handled = _compare(p.initial, goal.conditions, list(p.actions))
    assert handled == (p.family != "numeric")


VALUES = st.one_of(
    st.booleans(),
    st.integers(-2, 3),
    st.sampled_from(["x", "y", "z", "1"]),
    st.sampled_from([0.0, 1.0, 2.5, -0.0]),
    st.none(),
)


@st.composite
def plain_tasks(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]:
    """A random plain task mixing value types (1, 1.0 and True compare equal), with dead actions,
    self-loops, unreachable and impossible goals, and now and then a non-plain condition."""
    keys = [f"k{i}" for i in range(draw(st.integers(1, 6)))]
    init = {k: draw(VALUES) for k in draw(st.sets(st.sampled_from(keys), min_size=1))}
    actions: list[ActionSpec] = []
    for i in range(draw(st.integers(0, 10))):
        pre: dict[str, Any] = {k: draw(VALUES) for k in draw(st.sets(st.sampled_from(keys), max_size=3))}
        eff = {
            k: draw(VALUES.filter(lambda v: v is not None))
            for k in draw(st.sets(st.sampled_from(keys), max_size=3))
        }
        if draw(st.integers(0, 20)) == 0:
            pre[keys[0]] = ne(draw(VALUES.filter(lambda v: v is not None)))
        if draw(st.integers(0, 30)) == 0:
            eff = {keys[-1]: add(1)}
        cost: Any = draw(st.sampled_from([0, 1, 2.5, 1.0]))
        if draw(st.integers(0, 30)) == 0:
            cost = lambda s: 1.0  # noqa: E731
        name = f"a{i}" if draw(st.integers(0, 40)) else "a0"
        actions.append(ActionSpec(name, pre, eff, cost=cost))
    goal: dict[str, Any] = {k: draw(VALUES) for k in draw(st.sets(st.sampled_from(keys), max_size=3))}
    if draw(st.integers(0, 20)) == 0 and goal:
        goal[next(iter(goal))] = in_(["x", "y"])
    return init, goal, actions


@on_drawn(plain_tasks(), examples=400)
def test_c_and_python_compile_generated_tasks_the_same(problem: RawProblem) -> None:
    """On generated tasks the C grounding gives the Python task, or leaves the task to Python."""
    _compare(*problem)


@on_drawn(plain_tasks(), examples=80)
def test_plans_are_the_same_with_and_without_the_accelerator(problem: RawProblem) -> None:
    """plan() gives the same status and plan whichever grounding ran."""
    init, goal, actions = problem

    def run() -> Any:
        compile_module._cache.clear()
        try:
            res = plan(init, goal, actions, AStar(max_expansions=5000))
        except ModelError as exc:
            return str(exc)
        return res.status, res.plan, res.explanation

    fast = run()
    saved = compile_module.ACCELERATED
    compile_module.ACCELERATED = False
    try:
        slow = run()
    finally:
        compile_module.ACCELERATED = saved
    assert fast == slow


def test_values_outside_the_plain_types_go_to_python() -> None:
    """NaN, str subclasses, exotic initial values and non-str keys are left to the Python compiler."""

    class S(str):
        pass

    act = [ActionSpec("a", {"x": 1}, {"x": 2})]
    for initial, goal in (
        ({"x": 1, "y": math.nan}, {"x": 2}),
        ({"x": 1}, {"x": math.nan}),
        ({"x": 1, S("y"): 1}, {"x": 2}),
        ({"x": 1, "y": (1, 2)}, {"x": 2}),
        ({"x": 1, 3: 1}, {"x": 2}),
    ):
        assert compile_module._compile_plain(initial, goal, act) is None
    assert compile_module._compile_plain({"x": 1}, {"x": 2}, act) is not None


def test_bad_input_raises_instead_of_crashing() -> None:
    """Wrong argument types and broken mappings or actions raise errors, never crash."""
    ground: Any = compile_module._ground
    with pytest.raises(TypeError):
        ground.compile_plain({}, {}, [], int)
    with pytest.raises(TypeError):
        ground.compile_plain({}, {}, [])

    class Broken(dict[str, Any]):
        def keys(self) -> Any:
            raise RuntimeError("boom")

    class NotAnAction:
        name = "n"

    # not a mapping: not a plain task, the Python compiler raises its own error for it
    assert ground.compile_plain(1, {}, [], CompiledOp) is None
    assert ground.compile_plain({}, 1, [], CompiledOp) is None
    for args in (
        ({}, {}, 1),
        ({}, {}, [NotAnAction()]),
        ({}, {}, [1]),
    ):
        with pytest.raises((TypeError, AttributeError, RuntimeError)):
            ground.compile_plain(*args, CompiledOp)
    out = ground.compile_plain(Broken(x=1), {"x": 1}, [], CompiledOp)
    assert out is not None and out[5] is False


def test_goap_pure_python_forces_the_python_grounding() -> None:
    """With GOAP_PURE_PYTHON=1 the C grounding is not used."""
    code = "from goap.planning import _compile; print(_compile.ACCELERATED, _compile._ground)"
    env = {**os.environ, "GOAP_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "None"]


def test_an_operator_class_without_slots_gets_its_fields_through_setattr() -> None:
    """CompiledOp's slots are filled directly; any other plain class still gets every field (as
    object.__setattr__ sets them), with the same values."""
    fields = ("index", "action", "pre", "eff", "pre_mask", "pre_val", "keep", "eff_val", "cost", "cost_fn",
              "residual", "residual_facts", "num_pre", "num_eff")  # fmt: skip

    class Loose:
        pass

    actions = [ActionSpec("x", {"a": False}, {"a": True}), ActionSpec("y", {"a": True}, {"b": True}, cost=2)]
    init, goal = {"a": False, "b": False}, {"b": True}
    ground = compile_module._ground
    slots = ground.compile_plain(init, goal, actions, CompiledOp)
    loose = ground.compile_plain(init, goal, actions, Loose)
    assert [type(op) for op in loose[1]] == [Loose, Loose]
    assert [[getattr(op, f) for f in fields] for op in loose[1]] == [
        [getattr(op, f) for f in fields] for op in slots[1]
    ]
