"""This project's planner: ``goap.plan(...)`` with the default ``AStar()``.

The problem is loaded with ``goap.load_problem`` before the clock starts; only the ``plan()`` call is
timed, as the planner's "< 1 s per plan() call" target asks.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.peers import Outcome

_NODE_FIELDS = ("nodes_expanded", "expanded", "expansions", "nodes")
"""Names under which the stats may report expansions (first match wins)."""


def nodes_expanded(stats: Any) -> int | None:
    """Expanded-node count from a ``PlanResult.stats`` (object or mapping), if it has one."""
    for field in _NODE_FIELDS:
        value = stats.get(field) if isinstance(stats, Mapping) else getattr(stats, field, None)
        if isinstance(value, int):
            return value
    return None


def run(problem_path: Path, workdir: Path) -> Outcome:
    """Load the problem with ``goap.load_problem`` (not timed) and time one ``plan()`` call."""
    return _run(problem_path, symmetry=True)


def run_no_symmetry(problem_path: Path, workdir: Path) -> Outcome:
    """:func:`run` with ``AStar(symmetry=False)``: no symmetry detection or folding."""
    return _run(problem_path, symmetry=False)


def _run(problem_path: Path, *, symmetry: bool) -> Outcome:
    from goap import AStar, load_problem, plan

    problem = load_problem(problem_path)
    begin = time.perf_counter()
    result = plan(problem.initial, problem.goal, problem.actions, strategy=AStar(symmetry=symmetry))
    seconds = time.perf_counter() - begin
    nodes = nodes_expanded(result.stats)
    if result.status == "found":
        assert result.plan is not None
        return Outcome("found", [a.name for a in result.plan.actions], seconds, None, nodes)
    if result.status == "no_plan":
        return Outcome("no_plan", None, seconds, None, nodes)
    return Outcome("error", None, seconds, None, nodes, note=f"status {result.status!r}")
