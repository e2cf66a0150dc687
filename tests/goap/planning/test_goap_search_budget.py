"""Both search loops prune successors equal to their parent, drop landmarks no child will inherit
without changing any outcome, and end ``budget_exhausted`` (not optimal) at a memory budget."""

from __future__ import annotations

import glob
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from goap_tasks import outcome_key
from problem_files import PROBLEMS

from goap import ActionSpec, AStar, GoalSpec, GreedyBestFirst, ModelError, add, eq, load_problem, plan
from goap.planning import _search as astar_module
from goap.planning._compile import compile_task
from goap.planning._search import best_first, search
from goap.planning._task import Task
from goap.planning.heuristics import lmcut as lmcut_module
from goap.planning.heuristics.lmcut import LMCut
from goap.testing import brute_force_optimum

native = pytest.mark.skipif(
    lmcut_module._core is None, reason="goap.planning._lmcut is not built (or GOAP_PURE_PYTHON=1)"
)

PROBLEM_FILES = sorted(glob.glob(f"{PROBLEMS}/*.json")) + sorted(glob.glob(f"{PROBLEMS}/ipc/*.json"))


def chain(n: int, distractors: int = 0) -> tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]:
    """The ``chain`` family of the problem set (FORMAT.md): ``advance_i`` needs ``s_i`` and sets
    ``s_{i+1}``; once ``s_i`` holds, ``advance_i`` gives the same state again. Optimum ``n``."""
    init: dict[str, Any] = {f"s{i}": i == 0 for i in range(n + 1)}
    acts = [ActionSpec(f"advance_{i}", {f"s{i}": True}, {f"s{i + 1}": True}) for i in range(n)]
    for d in range(distractors):
        init[f"d{d}"] = False
        acts.append(ActionSpec(f"noise_{d}", {"s0": True}, {f"d{d}": True}, cost=0.5))
    return init, {f"s{n}": True}, acts


def _task(init: dict[str, Any], goal: dict[str, Any], acts: list[ActionSpec]) -> Task:
    return compile_task(init, goal, acts)


def test_noop_successors_are_not_generated_in_python() -> None:
    """On a chain every state has one successor that is not itself: the Python loop generates n."""
    task = _task(*chain(60))
    out = best_first(task, LMCut(task, accelerated=False))
    assert out.status == "found" and out.cost == 60
    assert out.expanded == 60 and out.generated == 60


@native
def test_noop_successors_are_not_generated_in_c() -> None:
    """The C loop prunes the same successors and returns the Python loop's outcome."""
    task = _task(*chain(300))
    assert task.mask_only
    c = search(task, LMCut(task, accelerated=True))
    py = best_first(task, LMCut(task, accelerated=True))
    assert c.generated == 300 and outcome_key(c) == outcome_key(py)


def test_noop_numeric_effects_are_pruned() -> None:
    """``add(0)`` leaves a numeric state as it is: never a successor, the plan stays optimal."""
    acts = [
        ActionSpec("idle", {}, {"n": add(0)}),
        ActionSpec("step", {"n": eq(0)}, {"n": add(1)}, cost=2.0),
        ActionSpec("finish", {"n": eq(1)}, {"done": True}),
    ]
    init = {"n": 0, "done": False}
    task = _task(init, {"done": True}, acts)
    assert task.numeric
    out = best_first(task, LMCut(task))
    assert out.status == "found" and out.cost == 3.0
    assert all(op.action.name != "idle" for op, _ in out.path)
    assert out.generated == 2  # idle twice pruned


def test_pruned_search_matches_brute_force_on_a_small_chain() -> None:
    """With distractors (actions whose effects hold after one use) the optimum is brute force's."""
    init, goal, acts = chain(5, distractors=3)
    best = brute_force_optimum(init, GoalSpec(goal), acts)
    assert best is not None
    for strategy in (AStar(), AStar(heuristic="blind"), AStar(heuristic="hmax")):
        res = plan(init, goal, acts, strategy)
        assert res.plan is not None and res.plan.cost == pytest.approx(best)


def _file_task(path: str) -> Task:
    p = load_problem(path)
    return compile_task(p.initial, p.goal.conditions, list(p.actions))


@native
@pytest.mark.parametrize(
    "path", [f for f in PROBLEM_FILES if _file_task(f).mask_only], ids=lambda p: p.rsplit("/", 1)[-1]
)
def test_landmark_drops_keep_both_loops_identical(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With landmarks dropped at nearly every evaluation both loops (the C loop runs plain tasks
    only) still agree step for step."""
    p = load_problem(path)
    task = compile_task(p.initial, p.goal.conditions, list(p.actions))
    monkeypatch.setattr(astar_module, "_LM_BYTES_MIN", 64)
    calls: list[int] = []
    real = astar_module._drop_landmarks

    def counting(*args: Any) -> int:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(astar_module, "_drop_landmarks", counting)
    py = best_first(task, LMCut(task, accelerated=True), max_expansions=3000)
    c = search(task, LMCut(task, accelerated=True), max_expansions=3000)
    assert outcome_key(c) == outcome_key(py)
    if py.evaluated > 3:
        assert calls, "the Python loop never dropped landmarks"
    if p.optimal_cost is not None and py.status == "found":
        assert py.cost == pytest.approx(p.optimal_cost)


def _unbounded() -> tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]:
    """Three counters that grow without end and a goal no state reaches: the search never ends."""
    acts = [ActionSpec(f"inc_{k}", {}, {k: add(1)}) for k in "xyz"]
    acts.append(ActionSpec("win", {"x": eq(-1)}, {"done": True}))
    return {"x": 0, "y": 0, "z": 0, "done": False}, {"done": True}, acts


def test_memory_budget_ends_the_python_loop() -> None:
    """An unbounded numeric search under a 2 MiB budget ends budget_exhausted, not optimal."""
    init, goal, acts = _unbounded()
    res = plan(init, goal, acts, AStar(max_memory_mb=2, timeout=None, max_expansions=None))
    assert res.status == "budget_exhausted" and res.plan is None
    assert res.optimal is False
    assert 0 < res.stats.expanded < 100_000


@native
def test_memory_budget_ends_the_c_loop() -> None:
    """gripper-12 needs hundreds of thousands of states: a 2 MiB budget stops the C loop early."""
    p = load_problem(f"{PROBLEMS}/gripper-12.json")
    for strategy in (
        AStar(max_memory_mb=2, symmetry=False),
        GreedyBestFirst(heuristic="ff", max_memory_mb=2, symmetry=False),
    ):
        res = plan(p.initial, p.goal, p.actions, strategy)
        if isinstance(strategy, AStar):
            assert res.status == "budget_exhausted" and res.optimal is False
            assert res.stats.expanded < 50_000
        else:
            assert res.status in ("found", "budget_exhausted")  # greedy may finish first
    unlimited = plan(p.initial, p.goal, p.actions, AStar(max_memory_mb=None))
    assert unlimited.found and unlimited.plan is not None
    assert unlimited.plan.cost == p.optimal_cost


def test_memory_budget_bounds_the_process() -> None:
    """In a fresh process, an unbounded search with a 40 MiB budget ends and its peak RSS stays
    within the budget (plus a margin for the estimate) of what the process held before."""
    code = textwrap.dedent(
        """
        import resource
        from goap import ActionSpec, AStar, add, eq, plan
        acts = [ActionSpec(f"inc_{k}", {}, {k: add(1)}) for k in "xyz"]
        acts.append(ActionSpec("win", {"x": eq(-1)}, {"done": True}))
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        res = plan({"x": 0, "y": 0, "z": 0, "done": False}, {"done": True}, acts,
                   AStar(max_memory_mb=40, timeout=None, max_expansions=None))
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        print(res.status, res.optimal, round(grown))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    status, optimal, grown = done.stdout.split()
    assert (status, optimal) == ("budget_exhausted", "False")
    assert int(grown) < 56, f"the search grew the process by {grown} MiB under a 40 MiB budget"


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "1"])
def test_bad_memory_budgets_are_named(bad: Any) -> None:
    """A budget that is not a positive finite number is a ModelError naming the value."""
    with pytest.raises(ModelError, match="max_memory_mb"):
        AStar(max_memory_mb=bad)
    with pytest.raises(ModelError, match="max_memory_mb"):
        GreedyBestFirst(max_memory_mb=bad)
