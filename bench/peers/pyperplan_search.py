"""pyperplan (pure Python) on the cost-free STRIPS translation: ``astar`` + ``lmcut``, ``gbf`` + ``hff``.

pyperplan has no action costs, so A* here minimises plan length; the benchmark prices its plans
with the JSON costs. Parsing, grounding, heuristic set-up and search run in-process and are timed
together (the equivalent of our ``plan()`` call, which also starts from the raw task); the search
alone is reported beside it.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.pddl import NumericProblemError, to_pddl
from bench.peers import Outcome
from bench.validate import load

_EXPANDED = re.compile(r"(\d+) Nodes expanded")


class _ExpansionCounter(logging.Handler):
    """Picks the "N Nodes expanded" line pyperplan's searches log at INFO level."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.nodes: int | None = None

    def emit(self, record: logging.LogRecord) -> None:
        match = _EXPANDED.search(record.getMessage())
        if match:
            self.nodes = int(match.group(1))


def _run(problem_path: Path, workdir: Path, search_name: str, heuristic_name: str) -> Outcome:
    from pyperplan import planner

    problem = load(problem_path)
    try:
        task = to_pddl(problem, action_costs=False)
    except NumericProblemError:
        return Outcome("n/a", note="n/a: numeric")
    domain_file = workdir / "domain.pddl"
    problem_file = workdir / "problem.pddl"
    domain_file.write_text(task.domain, encoding="utf-8")
    problem_file.write_text(task.problem, encoding="utf-8")

    counter = _ExpansionCounter()
    root = logging.getLogger()
    root.addHandler(counter)
    root.setLevel(logging.INFO)
    search: Callable[..., Any] = planner.SEARCHES[search_name]
    heuristic_class = planner.HEURISTICS[heuristic_name]

    # The steps of planner.search_plan(), timed separately so the search time can be shown.
    start = time.perf_counter()
    parsed = planner._parse(str(domain_file), str(problem_file))
    grounded = planner._ground(parsed)
    heuristic = heuristic_class(grounded)
    search_start = time.perf_counter()
    solution = search(grounded, heuristic)
    end = time.perf_counter()

    if solution is None:
        return Outcome("no_plan", None, end - start, end - search_start, counter.nodes)
    names = task.plan_names(op.name for op in solution)
    return Outcome("found", names, end - start, end - search_start, counter.nodes)


def run_astar_lmcut(problem_path: Path, workdir: Path) -> Outcome:
    """pyperplan ``astar`` with ``lmcut`` (optimal in plan length)."""
    return _run(problem_path, workdir, "astar", "lmcut")


def run_gbf_hff(problem_path: Path, workdir: Path) -> Outcome:
    """pyperplan greedy best-first with ``hff`` (satisficing)."""
    return _run(problem_path, workdir, "gbf", "hff")
