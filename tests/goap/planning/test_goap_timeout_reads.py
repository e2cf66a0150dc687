"""A search reads its clock after every unit of work (a heuristic evaluation, an expansion), so a
timeout is overrun by at most one of them, whatever a unit costs on the task at hand.

The proxy is deterministic: a clock that says "past the deadline" from its first read must stop
the search at once. With a fixed count of expansions between reads (128, before), the search went
on for 128 expansions, which on 10,000 random actions took 13 s past a 1 s timeout (the wall-clock
figures are in ``python -m bench search -- --timeout 1``).
"""

from __future__ import annotations

from typing import Any

import pytest

from goap import ActionSpec, AStar, GoalSpec, GreedyBestFirst, add, eq
from goap.planning import _search
from goap.planning.heuristics import lmcut as lmcut_module


class LateClock:
    """A clock already past any deadline, counting its reads."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return float("inf")


def _endless() -> tuple[dict[str, Any], GoalSpec, list[ActionSpec]]:
    """Unbounded counters and a goal no state reaches: only a budget ends the search."""
    acts = [ActionSpec(f"inc_{k}", {}, {k: add(1)}) for k in "xyz"]
    acts.append(ActionSpec("win", {"x": eq(-1)}, {"done": True}))
    return {"x": 0, "y": 0, "z": 0, "done": False}, GoalSpec({"done": True}), acts


def _wide(n: int = 60) -> tuple[dict[str, Any], GoalSpec, list[ActionSpec]]:
    """Boolean facts set one by one (a bitmask-only task: the C loop runs it when built)."""
    init = {f"f{i}": False for i in range(n)}
    acts = [ActionSpec(f"set_{i}", {}, {f"f{i}": True}) for i in range(n)]
    return init, GoalSpec({f"f{i}": True for i in range(n)}), acts


@pytest.mark.parametrize(
    "strategy",
    [
        AStar(timeout=60),
        AStar(timeout=60, heuristic="blind"),
        GreedyBestFirst(timeout=60),
        AStar(timeout=60, tie_break="fifo"),
    ],
    ids=["astar-lmcut", "astar-blind", "greedy", "astar-fifo"],
)
@pytest.mark.parametrize("problem", [_endless, _wide], ids=["endless", "wide"])
def test_a_deadline_passed_at_the_first_read_stops_within_one_unit_of_work(
    monkeypatch: pytest.MonkeyPatch, strategy: Any, problem: Any
) -> None:
    """Once the clock is past the deadline, at most one more expansion and one evaluation happen."""
    clock = LateClock()
    monkeypatch.setattr(_search, "_clock", clock)
    initial, goal, actions = problem()
    res = strategy.solve(initial, goal, actions)
    assert res.status == "budget_exhausted"
    assert clock.reads >= 1
    assert res.stats.expanded <= 1, res.stats
    assert res.stats.evaluated <= 2, res.stats


@pytest.mark.skipif(lmcut_module._core is None, reason="goap.planning._lmcut is not built")
def test_the_c_loop_reads_the_clock_once_per_unit_of_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """In the C loop, a clock never past the deadline is read once per expansion and per evaluation."""
    reads = [0]

    def clock() -> float:
        reads[0] += 1
        return 0.0

    monkeypatch.setattr(_search, "_clock", clock)
    initial, goal, actions = _wide(12)
    res = AStar(timeout=60).solve(initial, goal, actions)
    assert res.status == "found"
    assert reads[0] >= res.stats.expanded + res.stats.evaluated - 1
