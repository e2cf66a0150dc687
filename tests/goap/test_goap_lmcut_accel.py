"""The C accelerator of LM-cut (``goap._lmcut``) agrees with the pure-Python LM-cut exactly.

Both run the same search on every shared problem and on generated tasks; every evaluated state
must get the same h value and the same landmarks, and the searches the same path. The extension
must reject bad input with an exception, never crash.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, given, settings

from goap import ActionSpec, AStar, GoalSpec, add, ge, in_, load_problem, lt, ne, plan
from goap.astar import SearchOutcome, best_first
from goap.compile import Task, compile_task
from goap.heuristics import lmcut as lmcut_module
from goap.heuristics.lmcut import LMCut

pytestmark = pytest.mark.skipif(
    lmcut_module._core is None, reason="goap._lmcut is not built (or GOAP_PURE_PYTHON=1)"
)

PROBLEMS = os.environ.get("GOAP_PROBLEMS", str(Path(__file__).resolve().parents[3] / "shared" / "problems"))
PROBLEM_FILES = sorted(glob.glob(f"{PROBLEMS}/*.json")) + sorted(glob.glob(f"{PROBLEMS}/ipc/*.json"))

_EXPANSIONS = 3000
"""Expansion cap per search (the largest problems are only compared on their first states)."""


def _landmarks(h: LMCut, lms: Any) -> list[tuple[frozenset[int], float]]:
    if h.accelerated:
        return [(frozenset(ops), m) for ops, m in h._core.decode(lms)]
    return [(ops, m) for ops, m in lms]


def _traced_search(task: Task, accelerated: bool) -> tuple[SearchOutcome, list[Any]]:
    """Best-first search recording (state, h, landmarks) of every evaluation."""
    h = LMCut(task, accelerated=accelerated)
    trace: list[Any] = []
    evaluate = h.evaluate

    def traced(state: Any, inherited: Any) -> tuple[float, Any]:
        value, lms = evaluate(state, inherited)
        trace.append((state, value, _landmarks(h, lms)))
        return value, lms

    h.evaluate = traced  # type: ignore[method-assign]
    return best_first(task, h, max_expansions=_EXPANSIONS), trace


def _assert_same(task: Task) -> None:
    out_py, trace_py = _traced_search(task, accelerated=False)
    out_c, trace_c = _traced_search(task, accelerated=True)
    assert trace_c == trace_py
    assert out_c.status == out_py.status
    assert [op.index for op, _ in out_c.path] == [op.index for op, _ in out_py.path]
    assert out_c.cost == out_py.cost


@pytest.mark.skipif(not PROBLEM_FILES, reason="shared problem files not found")
@pytest.mark.parametrize("path", PROBLEM_FILES, ids=lambda p: os.path.basename(p)[:-5])
def test_c_and_python_agree_on_every_state_of_a_shared_problem(path: str) -> None:
    """Every state the search evaluates gets the same h value and landmarks from C and Python."""
    p = load_problem(path)
    goal = p.goal if isinstance(p.goal, GoalSpec) else GoalSpec(p.goal)
    _assert_same(compile_task(p.initial, goal.conditions, list(p.actions)))


COSTS = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 3.5])
ENUM = ["x", "y", "z"]


@st.composite
def tasks(draw: st.DrawFn) -> tuple[dict[str, Any], GoalSpec, list[ActionSpec]]:
    """A small random problem mixing booleans, enumerations and a bounded counter."""
    init: dict[str, Any] = {f"b{i}": draw(st.booleans()) for i in range(draw(st.integers(1, 4)))}
    init.update({f"e{i}": draw(st.sampled_from(ENUM)) for i in range(draw(st.integers(0, 2)))})
    if draw(st.booleans()):
        init["n"] = draw(st.integers(0, 2))
    keys = sorted(init)

    def cond(k: str) -> Any:
        if k.startswith("b"):
            return draw(st.booleans())
        if k.startswith("e"):
            kind = draw(st.integers(0, 2))
            if kind == 0:
                return draw(st.sampled_from(ENUM))
            if kind == 1:
                return ne(draw(st.sampled_from(ENUM)))
            return in_(draw(st.sets(st.sampled_from(ENUM), min_size=1, max_size=2)))
        return ge(draw(st.integers(0, 3)))

    actions: list[ActionSpec] = []
    for i in range(draw(st.integers(1, 9))):
        pre = {k: cond(k) for k in draw(st.sets(st.sampled_from(keys), max_size=3))}
        eff: dict[str, Any] = {}
        for k in draw(st.sets(st.sampled_from(keys), min_size=1, max_size=3)):
            if k.startswith("b"):
                eff[k] = draw(st.booleans())
            elif k.startswith("e"):
                eff[k] = draw(st.sampled_from(ENUM))
            else:
                eff[k] = add(1)
                pre[k] = lt(4)
        actions.append(ActionSpec(f"a{i}", pre, eff, cost=draw(COSTS)))
    goal = {k: cond(k) for k in draw(st.sets(st.sampled_from(keys), min_size=1, max_size=3))}
    return init, GoalSpec(goal), actions


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tasks())
def test_c_and_python_agree_on_generated_tasks(
    problem: tuple[dict[str, Any], GoalSpec, list[ActionSpec]],
) -> None:
    """On generated tasks (fractional and zero costs, set conditions, numbers) both agree state by state."""
    init, goal, actions = problem
    _assert_same(compile_task(init, goal.conditions, actions))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tasks())
def test_plans_are_the_same_with_and_without_the_accelerator(
    problem: tuple[dict[str, Any], GoalSpec, list[ActionSpec]],
) -> None:
    """plan() returns the same answer and the same plan whichever LM-cut runs."""
    init, goal, actions = problem
    fast = plan(init, goal, actions, AStar())
    saved = lmcut_module.ACCELERATED
    lmcut_module.ACCELERATED = False
    try:
        slow = plan(init, goal, actions, AStar())
    finally:
        lmcut_module.ACCELERATED = saved
    assert fast.status == slow.status
    assert fast.plan == slow.plan


def _core_of_example() -> Any:
    task = compile_task({"a": False, "b": False}, {"b": True}, [
        ActionSpec("x", {}, {"a": True}),
        ActionSpec("y", {"a": True}, {"b": True}),
    ])  # fmt: skip
    return LMCut(task, accelerated=True)._core


def test_bad_input_raises_instead_of_crashing() -> None:
    """Malformed landmarks, out-of-range operators and states that do not fit raise errors."""
    core = _core_of_example()
    value, lms = core.evaluate(0, ())
    assert value == 2.0
    assert core.decode(lms) and core.evaluate(0, lms)[0] == 2.0
    for bad in (b"\x00", lms[:-1], lms + b"\x01", b"\x00" * 8 + b"\xff\xff\xff\x7f"):
        with pytest.raises(ValueError, match="malformed"):
            core.evaluate(0, bad)
    with pytest.raises(ValueError, match="range"):
        core.inherit(lms, 99)
    with pytest.raises(ValueError, match="range"):
        core.inherit(lms, -1)
    with pytest.raises(TypeError):
        core.evaluate("state", ())
    with pytest.raises(TypeError):
        core.evaluate(0, [1, 2])
    with pytest.raises(ValueError):
        core.evaluate(-1, ())
    with pytest.raises(ValueError):
        core.evaluate(1 << 70, ())
    with pytest.raises(ValueError):
        type(core)(nfacts=3, pres=[[7]], effs=[[0]], costs=[1.0], goal=0, top=1, varinfo=[], relaxed_of=[],
                   integral=True, impossible=False, numeric=False)  # fmt: skip
    with pytest.raises(ValueError):
        type(core)(nfacts=3, pres=[[1]], effs=[[0]], costs=[-1.0], goal=0, top=1, varinfo=[], relaxed_of=[],
                   integral=False, impossible=False, numeric=False)  # fmt: skip


def test_goap_pure_python_forces_the_python_implementation() -> None:
    """With GOAP_PURE_PYTHON=1 the C extension is not used."""
    code = "from goap.heuristics import lmcut; print(lmcut.ACCELERATED, lmcut._core)"
    env = {**os.environ, "GOAP_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "None"]
