"""The A* loop in C (``Core.search``, behind ``goap.planning._search.search``) returns what the Python loop
(``goap.planning._search.best_first``) returns: the same status, path (operators and symmetry permutations),
cost and counts of expanded, generated, evaluated and reopened states, on every shared problem and
on generated tasks, with and without symmetry, for A*, weighted A* and greedy search and under
expansion limits. Bad input raises, never crashes.
"""

from __future__ import annotations

import glob
import os
from typing import Any

import hypothesis.strategies as st
import pytest
from goap_tasks import RawProblem, gripper, on_drawn, outcome_key
from problem_files import PROBLEMS as PROBLEM_DIR

from goap import ActionSpec, AStar, GoalSpec, GreedyBestFirst, load_problem, plan
from goap.planning import _strategy as strategies
from goap.planning._compile import compile_task
from goap.planning._search import SearchOutcome, best_first, search
from goap.planning._strategy import SYMMETRY_AFTER
from goap.planning._symmetry import find_symmetry
from goap.planning._task import Task
from goap.planning.heuristics import lmcut as lmcut_module
from goap.planning.heuristics.lmcut import LMCut

pytestmark = pytest.mark.skipif(
    lmcut_module._core is None, reason="goap.planning._lmcut is not built (or GOAP_PURE_PYTHON=1)"
)

PROBLEMS = PROBLEM_DIR
PROBLEM_FILES = sorted(glob.glob(f"{PROBLEMS}/*.json")) + sorted(glob.glob(f"{PROBLEMS}/ipc/*.json"))

_EXPANSIONS = 3000
"""Expansion cap per search (the largest problems are compared on their first states only)."""


def _task(path: str) -> Task:
    p = load_problem(path)
    goal = p.goal if isinstance(p.goal, GoalSpec) else GoalSpec(p.goal)
    return compile_task(p.initial, goal.conditions, list(p.actions))


def _both(task: Task, **kw: Any) -> tuple[SearchOutcome, SearchOutcome]:
    """(Python outcome, C outcome) of one search configuration, each with its own heuristic and
    its own symmetry detection."""
    outs = []
    for native in (False, True):
        h = LMCut(task, accelerated=True)
        assert h.native_search is not None
        args = dict(kw)
        if args.pop("symmetry", False):
            args["detect_symmetry"] = lambda: (lambda s: s.canon if s is not None else None)(
                find_symmetry(task)
            )
        run = search if native else best_first
        outs.append(run(task, h, **args))
    return outs[0], outs[1]


def _assert_same(task: Task, **kw: Any) -> SearchOutcome:
    py, c = _both(task, **kw)
    assert outcome_key(c) == outcome_key(py)
    return c


MASK_ONLY_FILES = [p for p in PROBLEM_FILES if _task(p).mask_only]
"""The problem files the C loop runs (numeric ones stay in the Python loop)."""


@pytest.mark.skipif(not PROBLEM_FILES, reason="shared problem files not found")
@pytest.mark.parametrize("path", MASK_ONLY_FILES, ids=lambda p: os.path.basename(p)[:-5])
def test_c_and_python_loops_agree_on_a_shared_problem(path: str) -> None:
    """A* with lazy symmetry (as plan() runs it), without symmetry, with symmetry from the start,
    weighted A* and greedy search give the same outcome in C and in Python."""
    task = _task(path)
    out = _assert_same(task, max_expansions=_EXPANSIONS, symmetry=True, symmetry_after=SYMMETRY_AFTER)
    assert out.status in ("found", "no_plan", "budget_exhausted")
    _assert_same(task, max_expansions=_EXPANSIONS)
    _assert_same(task, max_expansions=_EXPANSIONS, symmetry=True, symmetry_after=0)
    _assert_same(task, max_expansions=_EXPANSIONS, weight=2.0, symmetry=True, symmetry_after=SYMMETRY_AFTER)
    _assert_same(task, max_expansions=_EXPANSIONS, greedy=True)


def test_the_shared_problems_take_the_c_loop() -> None:
    """Every shared problem compiles to a mask-only task (so plan() runs the C loop on it) but the
    numeric ones and the one whose goal no value satisfies (answered before any search)."""
    if not PROBLEM_FILES:
        pytest.skip("shared problem files not found")
    python_loop = sorted(os.path.basename(p)[:-5] for p in PROBLEM_FILES if not _task(p).mask_only)
    assert python_loop == ["no-plan-missing-producer", "numeric-counter-23", "numeric-house-1"]


@pytest.mark.parametrize("limit", [1, 2, 5, 21, 40])
def test_expansion_limits_end_the_same_way(limit: int) -> None:
    """An expansion limit ends both loops at the same state, symmetry switching on or not."""
    if not PROBLEM_FILES:
        pytest.skip("shared problem files not found")
    task = _task(next(p for p in PROBLEM_FILES if p.endswith("gripper-6.json")))
    out = _assert_same(task, max_expansions=limit, symmetry=True, symmetry_after=SYMMETRY_AFTER)
    assert out.status == "budget_exhausted" and out.expanded == limit


COSTS = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 3.5])
VALUES = ["x", "y", "z"]


@st.composite
def tasks(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]:
    """A small random plain task (booleans and enumerations, equality conditions), sometimes with
    interchangeable objects so that symmetry is found."""
    init: dict[str, Any] = {f"b{i}": draw(st.booleans()) for i in range(draw(st.integers(1, 5)))}
    init.update({f"e{i}": draw(st.sampled_from(VALUES)) for i in range(draw(st.integers(0, 3)))})
    keys = sorted(init)

    def value(k: str) -> Any:
        return draw(st.booleans()) if k.startswith("b") else draw(st.sampled_from(VALUES))

    actions: list[ActionSpec] = []
    for i in range(draw(st.integers(1, 10))):
        pre = {k: value(k) for k in draw(st.sets(st.sampled_from(keys), max_size=3))}
        eff = {k: value(k) for k in draw(st.sets(st.sampled_from(keys), min_size=1, max_size=3))}
        actions.append(ActionSpec(f"a{i}", pre, eff, cost=draw(COSTS)))
    if draw(st.booleans()):
        # objects o1..o4 that are interchangeable: a class of symmetry
        n = draw(st.integers(3, 4))
        for j in range(1, n + 1):
            init[f"at_o{j}"] = "p"
            actions.append(ActionSpec(f"move_o{j}", {f"at_o{j}": "p"}, {f"at_o{j}": "q"}, cost=1.0))
            actions.append(ActionSpec(f"back_o{j}", {f"at_o{j}": "q"}, {f"at_o{j}": "p"}, cost=1.0))
    goal = {k: value(k) for k in draw(st.sets(st.sampled_from(sorted(init)), min_size=1, max_size=3))}
    return init, goal, actions


@on_drawn(tasks(), st.sampled_from([0, 1, 3]), st.sampled_from([1.0, 1.5]), st.booleans(), examples=200)
def test_c_and_python_loops_agree_on_generated_tasks(
    problem: RawProblem, after: int, weight: float, greedy: bool
) -> None:
    """On generated tasks (zero and fractional costs, dead ends, symmetry found early or late)
    both loops give the same outcome."""
    init, goal, actions = problem
    task = compile_task(init, goal, actions)
    if not task.mask_only:
        return
    _assert_same(task, max_expansions=500, weight=weight, greedy=greedy, symmetry=True, symmetry_after=after)


@on_drawn(tasks(), examples=60)
def test_plans_are_the_same_with_either_loop(problem: RawProblem) -> None:
    """plan() gives the same result whichever loop runs (A* and greedy)."""
    init, goal, actions = problem
    for strategy in (AStar(), GreedyBestFirst(heuristic="lmcut")):
        fast = plan(init, goal, actions, strategy)
        saved = strategies.search
        strategies.search = best_first  # the Python loop for every search
        try:
            slow = plan(init, goal, actions, strategy)
        finally:
            strategies.search = saved
        assert (fast.status, fast.plan, fast.stats.expanded) == (slow.status, slow.plan, slow.stats.expanded)


# ---- the C loop's own checks ----


def _small() -> tuple[Task, LMCut]:
    task = compile_task({"a": False, "b": False}, {"b": True}, [
        ActionSpec("x", {}, {"a": True}),
        ActionSpec("y", {"a": True}, {"b": True}),
    ])  # fmt: skip
    return task, LMCut(task, accelerated=True)


def _args(task: Task, **changes: Any) -> list[Any]:
    kw: dict[str, Any] = dict(
        ops=task.ops, buckets=task.bucket_facts, goal=[d[0] for d in task.goal_facts], weight=1.0,
        greedy=False, limit=-1, deadline=None, clock=None, canon=None, detect=None, switch_at=-1,
    )  # fmt: skip
    kw.update(changes)
    return list(kw.values())


def test_the_small_task_is_solved_by_the_c_loop() -> None:
    """The hand-checked two-step task: plan x then y, cost 2."""
    task, h = _small()
    status, path, cost, expanded, *_ = h.native_search(*_args(task))
    assert (status, [op for op, _ in path], cost, expanded) == ("found", [0, 1], 2.0, 2)


def test_bad_arguments_raise_instead_of_crashing() -> None:
    """Wrong counts, out-of-range ids, bad weights and malformed operators raise errors."""
    task, h = _small()
    core_search = h.native_search
    with pytest.raises(TypeError):
        core_search(*_args(task)[:-1])
    with pytest.raises(ValueError, match="one operator"):
        core_search(*_args(task, ops=task.ops[:1]))
    with pytest.raises(ValueError, match="one bucket"):
        core_search(*_args(task, buckets=[-1]))
    with pytest.raises(ValueError, match="bucket fact"):
        core_search(*_args(task, buckets=[99, -1]))
    with pytest.raises(ValueError, match="goal fact"):
        core_search(*_args(task, goal=[-5]))
    with pytest.raises(ValueError, match="weight"):
        core_search(*_args(task, weight=0.5))
    with pytest.raises(ValueError, match="weight"):
        core_search(*_args(task, weight=float("nan")))
    with pytest.raises(TypeError, match="clock"):
        core_search(*_args(task, deadline=1.0, clock=None))

    class Op:
        def __init__(self, pre: Any, eff: Any, cost: Any) -> None:
            self.pre, self.eff, self.cost = pre, eff, cost

    good = [Op(op.pre, op.eff, op.cost) for op in task.ops]
    assert core_search(*_args(task, ops=good))[0] == "found"
    for bad, match in (
        (Op((99,), (1,), 1.0), "out of range"),
        (Op((0,), (-1,), 1.0), "out of range"),
        (Op((0,), (1,), -1.0), "costs"),
        (Op((0,), (1,), float("inf")), "costs"),
    ):
        with pytest.raises(ValueError, match=match):
            core_search(*_args(task, ops=[bad, good[1]]))
    with pytest.raises(AttributeError):
        core_search(*_args(task, ops=[object(), good[1]]))


def test_a_callback_that_raises_or_returns_garbage_fails_the_search() -> None:
    """Exceptions from canon, detect and clock propagate; a canon that returns a value that is not a
    state of the task is refused."""
    task, h = _small()
    core_search = h.native_search

    def boom(*_: Any) -> Any:
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        core_search(*_args(task, canon=boom))
    with pytest.raises(KeyError, match="boom"):
        core_search(*_args(task, detect=boom, switch_at=0))
    with pytest.raises(KeyError, match="boom"):  # read after the first unit of work
        core_search(*_args(task, deadline=1.0, clock=boom))
    for garbage, error in (
        (lambda s: s, TypeError),
        (lambda s: (s,), TypeError),
        (lambda s: ("0", None), TypeError),
        (lambda s: (-1, None), ValueError),
        (lambda s: (1 << 80, None), ValueError),
    ):
        with pytest.raises(error):
            core_search(*_args(task, canon=garbage))
    # a three-valued fact takes two bits: the fourth value is outside its domain
    task = compile_task({"e": "x"}, {"e": "z"}, [ActionSpec("y", {"e": "x"}, {"e": "y"}),
                                                 ActionSpec("z", {"e": "y"}, {"e": "z"})])  # fmt: skip
    assert len(task.variables[0].domain) == 3 and task.variables[0].mask == 3
    with pytest.raises(ValueError, match="outside a domain"):
        LMCut(task, accelerated=True).native_search(*_args(task, canon=lambda s: (3, None)))


def test_a_clock_past_the_deadline_ends_the_search_after_one_expansion() -> None:
    """The clock is read after every evaluation and expansion; past the deadline the search is out of budget."""
    actions = [ActionSpec(f"s{i}", {"n": i}, {"n": i + 1}) for i in range(300)]
    task = compile_task({"n": 0}, {"n": 300}, actions)
    h = LMCut(task, accelerated=True)
    reads: list[int] = []

    def clock() -> float:
        reads.append(1)
        return 10.0

    status, _, _, expanded, *_ = h.native_search(*_args(task, deadline=5.0, clock=clock))
    assert (status, expanded, len(reads)) == ("budget_exhausted", 1, 1)
    status, *_ = h.native_search(*_args(task, deadline=50.0, clock=clock))
    assert status == "found"

    def boom() -> float:
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        h.native_search(*_args(task, deadline=5.0, clock=boom))


def test_a_wide_state_crosses_into_canon_and_back() -> None:
    """States wider than 64 bits are converted to Python ints for canon and read back exactly."""
    init = {f"f{i:03d}": False for i in range(150)}
    actions = [ActionSpec(f"a{i}", {}, {f"f{i:03d}": True}) for i in range(150)]
    task = compile_task(init, {f"f{i:03d}": True for i in range(0, 140, 2)}, actions)
    h = LMCut(task, accelerated=True)
    seen: list[int] = []

    def identity(s: int) -> tuple[int, None]:
        seen.append(s)
        return s, None

    status, _, cost, *_ = h.native_search(*_args(task, canon=identity))
    assert status == "found" and cost == 70.0
    assert len(task.variables) == 70 and any(s.bit_length() > 64 for s in seen)


# ---- the canonical form in C (goap.planning._lmcut.Canon) ----


def _gripper(n: int) -> tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]:
    return gripper([f"b{i}" for i in range(n)])


def _canon_checked(task: Task) -> tuple[Any, list[int]]:
    """The task's symmetry (C canon) and a canon that checks C against Python on every call."""
    sym = find_symmetry(task)
    assert sym is not None
    assert sym.canon.__class__.__name__ == "Canon"  # the C port
    calls: list[int] = []

    def both(state: int) -> tuple[int, Any]:
        calls.append(1)
        got = sym.canon(state)
        assert got == sym._canon(state)
        return got

    return both, calls


SYMMETRIC = (
    "gripper-4",
    "gripper-6",
    "gripper-8",
    "gripper-12",
    "ipc-gripper-02",
    "ipc-movie-01",
    "ipc-satellite-02",
)
"""The shared problems on which symmetry is found (tests/goap/planning/test_goap_symmetry_classes.py pins
their classes)."""


@pytest.mark.skipif(not PROBLEM_FILES, reason="shared problem files not found")
@pytest.mark.parametrize(
    "path",
    [p for p in PROBLEM_FILES if os.path.basename(p)[:-5] in SYMMETRIC],
    ids=lambda p: os.path.basename(p)[:-5],
)
def test_c_canon_matches_python_on_every_generated_state(path: str) -> None:
    """On the problems with symmetry, the C canonical form equals the Python one (representative
    and permutation) on every state a search generates."""
    task = _task(path)
    both, calls = _canon_checked(task)
    best_first(task, LMCut(task, accelerated=True), canon=both, max_expansions=_EXPANSIONS)
    assert calls


@pytest.mark.parametrize("balls", [6, 31])
def test_c_canon_and_c_loop_on_gripper(balls: int) -> None:
    """Gripper with few balls and with states wider than 64 bits: C canon equals Python canon on every
    generated state, and the C loop with the C canon gives the Python loop's outcome with the Python
    canon."""
    init, goal, actions = _gripper(balls)
    task = compile_task(init, goal, actions)
    assert (max(v.shift + v.mask.bit_length() for v in task.variables) > 64) == (balls > 30)
    both, _ = _canon_checked(task)
    limit = 400
    best_first(task, LMCut(task, accelerated=True), canon=both, max_expansions=limit)
    sym = find_symmetry(task)
    assert sym is not None
    py = best_first(task, LMCut(task, accelerated=True), canon=sym._canon, max_expansions=limit)
    c = search(task, LMCut(task, accelerated=True), canon=sym.canon, max_expansions=limit)
    assert outcome_key(c) == outcome_key(py)


@on_drawn(tasks(), examples=150)
def test_c_canon_matches_python_on_generated_tasks(problem: RawProblem) -> None:
    """On generated tasks with a class of interchangeable objects both canonical forms agree."""
    init, goal, actions = problem
    task = compile_task(init, goal, actions)
    if not task.mask_only or find_symmetry(task) is None:
        return
    both, _ = _canon_checked(task)
    best_first(task, LMCut(task, accelerated=True), canon=both, max_expansions=300)


def test_canon_rejects_bad_tables_and_states() -> None:
    """Malformed tables and states that do not fit raise errors, never crash."""
    Canon = lmcut_module._core.Canon
    init, goal, actions = _gripper(4)
    task = compile_task(init, goal, actions)
    sym = find_symmetry(task)
    assert sym is not None
    varinfo = [(v.shift, v.mask.bit_length()) for v in task.variables]
    tables = [c.tables() for c in sym._classes]
    good = Canon(varinfo=varinfo, classes=tables)
    assert good(task.initial) == sym._canon(task.initial)
    for bad in (-1, 1 << 200, "0"):
        with pytest.raises((ValueError, TypeError)):
            good(bad)
    with pytest.raises(TypeError):
        good()
    with pytest.raises(RuntimeError, match="already"):
        good.__init__(varinfo=varinfo, classes=tables)

    def broken(**change: Any) -> dict[str, Any]:
        return {**tables[0], **change}

    nv = len(varinfo)
    for change in (
        {"n": 0},
        {"own": [99] * nv},
        {"own": [0]},
        {"ref": [[(99, 0)]] * nv},
        {"ref": [[None] * 99] * nv},
        {"owned": [[0]]},
        {"tv": [(0, 99, 0)]},
        {"vmap": [(0, 0, 0, 99)]},
        {"touch": [nv]},
        {"refvars": [-1]},
    ):
        with pytest.raises((ValueError, TypeError)):
            Canon(varinfo=varinfo, classes=[broken(**change)])
    with pytest.raises(KeyError):
        Canon(varinfo=varinfo, classes=[{"n": 2}])
    with pytest.raises(ValueError, match="varinfo"):
        Canon(varinfo=[(0, 40)], classes=[])
    with pytest.raises(ValueError, match="varinfo"):
        Canon(varinfo=[], classes=[])


def test_canon_refuses_a_nested_call_from_a_collection_it_triggered() -> None:
    """A gc callback that calls canon never corrupts an outer call: a nested call from inside canon
    is refused, any other call returns the right form, and the outer results stay those of the
    Python canonical form.

    Canon itself runs no Python code, so a collection is its only way back in. CPython 3.11 collects
    inside an allocation, so there the callback runs in the middle of canon and must be refused;
    CPython 3.12 and later collect only at the evaluation loop's eval-breaker checks (gh-97922),
    after canon has returned, so every callback call is a plain, correct call."""
    import gc
    import sys

    init, goal, actions = _gripper(6)
    task = compile_task(init, goal, actions)
    sym = find_symmetry(task)
    assert sym is not None
    states = [child for s in [task.initial] for _, child, _ in task.expand(s)]
    frontier = list(states)
    for _ in range(3):
        frontier = [c for s in frontier for _, c, _ in task.expand(s)]
    states += frontier
    nested: list[str] = []

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            try:
                sym.canon(task.initial)
                nested.append("ran")
            except RuntimeError as exc:
                nested.append(str(exc))

    old = gc.get_threshold()
    gc.callbacks.append(callback)
    gc.set_threshold(1)
    try:
        got = [sym.canon(s) for s in states]
    finally:
        gc.set_threshold(*old)
        gc.callbacks.remove(callback)
    assert got == [sym._canon(s) for s in states]
    assert nested
    assert set(nested) <= {"ran", "Canon is not re-entrant"}
    if sys.version_info < (3, 12):
        assert "Canon is not re-entrant" in nested
