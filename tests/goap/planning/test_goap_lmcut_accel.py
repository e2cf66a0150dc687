"""The C accelerator of LM-cut (``goap.planning._lmcut``) agrees with the pure-Python LM-cut exactly.

Both run the same search on every shared problem and on generated tasks; every evaluated state
must get the same h value and the same landmarks, and the searches the same path. The extension
must reject bad input with an exception, never crash.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from typing import Any

import hypothesis.strategies as st
import pytest
from goap_tasks import ENUM, Problem, draw_action, draw_condition, on_drawn
from problem_files import PROBLEMS as PROBLEM_DIR

from goap import ActionSpec, AStar, GoalSpec, add, ge, load_problem, lt, plan
from goap.planning._compile import compile_task
from goap.planning._search import SearchOutcome, best_first
from goap.planning._task import Task
from goap.planning.heuristics import lmcut as lmcut_module
from goap.planning.heuristics.lmcut import LMCut

pytestmark = pytest.mark.skipif(
    lmcut_module._core is None, reason="goap.planning._lmcut is not built (or GOAP_PURE_PYTHON=1)"
)

PROBLEMS = PROBLEM_DIR
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


@st.composite
def tasks(draw: st.DrawFn) -> tuple[dict[str, Any], GoalSpec, list[ActionSpec]]:
    """A small random problem mixing booleans, enumerations and a bounded counter."""
    init: dict[str, Any] = {f"b{i}": draw(st.booleans()) for i in range(draw(st.integers(1, 4)))}
    init.update({f"e{i}": draw(st.sampled_from(ENUM)) for i in range(draw(st.integers(0, 2)))})
    if draw(st.booleans()):
        init["n"] = draw(st.integers(0, 2))
    keys = sorted(init)

    def cond(k: str) -> Any:
        return draw_condition(draw, k, lambda: ge(draw(st.integers(0, 3))))

    actions = [
        draw_action(draw, f"a{i}", keys, cond, lambda: (add(1), lt(4)), most=3, cost=COSTS)
        for i in range(draw(st.integers(1, 9)))
    ]
    goal = {k: cond(k) for k in draw(st.sets(st.sampled_from(keys), min_size=1, max_size=3))}
    return init, GoalSpec(goal), actions


@on_drawn(tasks(), examples=150)
def test_c_and_python_agree_on_generated_tasks(problem: Problem) -> None:
    """On generated tasks (fractional and zero costs, set conditions, numbers) both agree state by state."""
    init, goal, actions = problem
    _assert_same(compile_task(init, goal.conditions, actions))


@on_drawn(tasks(), examples=60)
def test_plans_are_the_same_with_and_without_the_accelerator(problem: Problem) -> None:
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
    code = "from goap.planning.heuristics import lmcut; print(lmcut.ACCELERATED, lmcut._core)"
    env = {**os.environ, "GOAP_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "None"]


# ---- regression tests of input validation (each of these crashed or misbehaved before) ----


def _tiny_core_kwargs(**changes: Any) -> dict[str, Any]:
    """A hand-built relaxed task: facts 0/1 (one boolean variable), TOP=2, GOAL=3; op 0 sets the
    variable, op 1 reaches the goal from it."""
    kw: dict[str, Any] = dict(nfacts=4, pres=[[2], [1]], effs=[[1], [3]], costs=[1.0, 1.0], goal=3, top=2,
                              varinfo=[(0, 0, 1)], relaxed_of=[0, 1], integral=True, impossible=False,
                              numeric=False)  # fmt: skip
    kw.update(changes)
    return kw


def test_an_int_subclass_state_cannot_supply_its_own_bytes() -> None:
    """A wide encoding (> 64 bits) read the state through ``state.to_bytes``: an int subclass could
    return a non-bytes object or a short buffer, read out of bounds. Its int value is used now."""
    core = lmcut_module._core.Core(**_tiny_core_kwargs(varinfo=[(0, 120, 1)]))

    class Evil(int):
        def to_bytes(self, *args: Any, **kwargs: Any) -> Any:
            return "not bytes"

        def __index__(self) -> int:
            raise AssertionError("not called")

    class Short(int):
        def to_bytes(self, *args: Any, **kwargs: Any) -> bytes:
            return b"\x00\x00"

    expected = core.evaluate(1 << 120, ())
    assert expected[0] == 1.0
    assert core.evaluate(Evil(1 << 120), ()) == expected
    assert core.evaluate(Short(1 << 120), ()) == expected
    assert core.evaluate(Short(0), ())[0] == 2.0
    with pytest.raises(ValueError, match="does not fit"):
        core.evaluate(Short(-1), ())


def test_construction_survives_user_code_that_mutates_the_input_lists() -> None:
    """Converting an item (``__index__``, ``__float__``) may run code that shrinks the list being
    read; the lists were read through borrowed pointers past their new end. They are copied first."""
    Core = lmcut_module._core.Core
    n = 200
    pres: list[Any] = [[2]] + [[1]] * (n - 1)

    class ClearsPres:
        def __index__(self) -> int:
            pres.clear()
            return 2

    pres[0] = [ClearsPres()]
    core = Core(**_tiny_core_kwargs(pres=pres, effs=[[1]] * (n - 1) + [[3]], costs=[1.0] * n, relaxed_of=[]))
    assert core.evaluate(0, ())[0] == 2.0

    costs: list[Any] = [1.0] * n

    class ClearsCosts:
        def __float__(self) -> float:
            costs.clear()
            return 1.0

    costs[0] = ClearsCosts()
    core = Core(**_tiny_core_kwargs(pres=[[2]] + [[1]] * (n - 1), effs=[[1]] * (n - 1) + [[3]], costs=costs,
                                    relaxed_of=[]))  # fmt: skip
    assert core.evaluate(0, ())[0] == 2.0

    varinfo: list[Any] = [(0, 0, 1)]

    class ClearsVarinfo:
        def __index__(self) -> int:
            varinfo.clear()
            return 0

    varinfo[0] = (ClearsVarinfo(), 0, 1)
    assert Core(**_tiny_core_kwargs(varinfo=varinfo)).evaluate(1, ())[0] == 1.0


def test_init_cannot_be_reentered_and_a_failed_init_leaves_nothing_behind() -> None:
    """User code run by __init__'s conversions could call __init__ again on the same object (then a
    bigger task's sizes were mixed with the first one's arrays: heap overflow). It raises now, and a
    failed __init__ frees what it built, so the object is cleanly uninitialised and can be retried."""
    Core = lmcut_module._core.Core
    core = Core.__new__(Core)

    class Reenters(list):  # type: ignore[type-arg]
        def __iter__(self) -> Any:
            core.__init__(**_tiny_core_kwargs(pres=[[2]] * 50, effs=[[3]] * 50, costs=[1.0] * 50))
            return super().__iter__()

    with pytest.raises(RuntimeError, match="being initialised"):
        core.__init__(**_tiny_core_kwargs(pres=[Reenters([2]), [1]]))
    with pytest.raises(RuntimeError, match="not initialised"):
        core.evaluate(0, ())
    with pytest.raises(ValueError, match="relaxed_of"):
        core.__init__(**_tiny_core_kwargs(relaxed_of=[0, 9]))
    core.__init__(**_tiny_core_kwargs())
    assert core.evaluate(0, ())[0] == 2.0
    with pytest.raises(RuntimeError, match="already initialised"):
        core.__init__(**_tiny_core_kwargs())


def test_a_31_bit_domain_cannot_overflow_a_fact_id() -> None:
    """``base + value`` of a 31-bit variable overflowed a C int (undefined behaviour) before the
    domain check; it is computed in 64 bits and rejected."""
    core = lmcut_module._core.Core(**_tiny_core_kwargs(nfacts=10, top=8, goal=9, pres=[[8], [5]], effs=[[5], [9]],
                                                       varinfo=[(5, 0, (1 << 31) - 1)]))  # fmt: skip
    assert core.evaluate(0, ())[0] == 1.0
    with pytest.raises(ValueError, match="outside a domain"):
        core.evaluate((1 << 31) - 1, ())


def test_malformed_varinfo_and_operator_indices_raise_clean_errors() -> None:
    """A varinfo entry that is not a tuple raised SystemError; a huge operator index OverflowError."""
    Core = lmcut_module._core.Core
    with pytest.raises(TypeError, match="varinfo"):
        Core(**_tiny_core_kwargs(varinfo=[[0, 0, 1]]))
    with pytest.raises(TypeError, match="varinfo"):
        Core(**_tiny_core_kwargs(varinfo=[(0, 0)]))
    for bad in [(1 << 70, 0, 1), (0, 1 << 70, 1), (0, 0, 1 << 70), (0, 0, -1), (0, 0, 2), (0, -1, 1)]:
        with pytest.raises(ValueError, match="varinfo"):
            Core(**_tiny_core_kwargs(varinfo=[bad]))
    core = Core(**_tiny_core_kwargs())
    _, lms = core.evaluate(0, ())
    for op in (1 << 70, -(1 << 70), 2):
        with pytest.raises(ValueError, match="out of range"):
            core.inherit(lms, op)


def test_inherited_landmarks_cannot_drive_a_cost_below_zero() -> None:
    """Landmarks of this Core never subtract more than an operator's cost; forged ones that do made
    h^max run on negative costs. They are rejected as malformed."""
    import struct

    core = lmcut_module._core.Core(**_tiny_core_kwargs())
    forged = struct.pack("<di", 5.0, 1) + struct.pack("<i", 0)
    with pytest.raises(ValueError, match="malformed"):
        core.evaluate(0, forged)
    twice = struct.pack("<di", 1.0, 2) + struct.pack("<ii", 0, 0)
    with pytest.raises(ValueError, match="malformed"):
        core.evaluate(0, twice)
    _, lms = core.evaluate(0, ())
    assert core.evaluate(0, lms)[0] == 2.0


def test_a_zero_cost_cut_ends_the_loop_instead_of_hanging() -> None:
    """Operators of cost <= EPS whose costs add up to more than EPS put the state inside the goal
    zone, and the cut then holds a zero-cost operator: the cut loop repeated it forever (holding the
    GIL). The C core stops there with the landmarks found so far, an admissible value (the Python
    core too: test_goap_lmcut_zero_cut.py). Run in a subprocess with a time limit."""
    code = """if True:
        from goap import ActionSpec
        from goap.planning._compile import compile_task
        from goap.planning.heuristics.lmcut import LMCut
        task = compile_task({"a": True, "b": False, "c": False, "d": False}, {"d": True}, [
            ActionSpec("o0", {"a": True}, {"b": True}, cost=0.0),
            ActionSpec("o1", {"b": True}, {"c": True}, cost=0.9e-9),
            ActionSpec("o2", {"c": True}, {"d": True}, cost=0.9e-9),
        ])
        h = LMCut(task, accelerated=True)
        value, lms = h.evaluate(task.initial, ())
        assert 0.0 <= value <= 1.8e-9 + 1e-15, value
        print("ok")
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
