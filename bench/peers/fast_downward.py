"""Fast Downward ``astar(lmcut())`` on the PDDL translation, through the ``up-fast-downward`` wheel.

The wheel ships the compiled search binary and the ``fast-downward.py`` driver; the driver runs the
translator (Python) and then the search (C++), exactly as a user would. We time the driver end to
end and parse the search time and expansions it prints.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import time
from pathlib import Path

from bench.pddl import NumericProblemError, to_pddl
from bench.peers import Outcome
from bench.validate import load

SEARCH = "astar(lmcut())"
"""Fast Downward search configuration: optimal A* with the LM-cut heuristic, no alias."""

_SEARCH_TIME = re.compile(r"Search time: ([0-9.]+)s")
_EXPANDED = re.compile(r"Expanded (\d+) state\(s\)\.")
# Driver exit codes (driver/returncodes.py): 0 plan found; 10/11 task proved unsolvable by the
# translator/search; 12 search ended without a plan (incomplete configuration).
_UNSOLVABLE = {10, 11}


class FastDownwardMissingError(RuntimeError):
    """The ``up-fast-downward`` wheel (or its driver script) is not installed."""


def driver_path() -> Path:
    """Location of ``fast-downward.py`` inside the installed ``up_fast_downward`` package.

    Raises:
        FastDownwardMissingError: the package or its driver is missing.
    """
    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or spec.origin is None:
        raise FastDownwardMissingError(
            "Fast Downward is not available. Install it with: pip install up-fast-downward"
        )
    driver = Path(spec.origin).parent / "downward" / "fast-downward.py"
    if not driver.is_file():
        raise FastDownwardMissingError(f"up_fast_downward has no driver at {driver}")
    return driver


def run(problem_path: Path, workdir: Path) -> Outcome:
    """Translate, write the PDDL files into ``workdir`` and run the driver there once."""
    problem = load(problem_path)
    try:
        task = to_pddl(problem, action_costs=True)
    except NumericProblemError:
        return Outcome("n/a", note="n/a: numeric")
    (workdir / "domain.pddl").write_text(task.domain, encoding="utf-8")
    (workdir / "problem.pddl").write_text(task.problem, encoding="utf-8")
    command = [sys.executable, str(driver_path()), "domain.pddl", "problem.pddl", "--search", SEARCH]
    start = time.perf_counter()
    # The driver starts the translator and the search as children; the benchmark's time limit
    # kills this worker's whole process group, them included.
    done = subprocess.run(command, cwd=workdir, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    log = done.stdout + done.stderr
    search = _SEARCH_TIME.search(log)
    expanded = _EXPANDED.search(log)
    note = "" if task.exact_costs else f"costs rounded at x{task.cost_scale}"
    search_seconds = float(search.group(1)) if search else None
    nodes = int(expanded.group(1)) if expanded else None
    extra = {"cost_scale": task.cost_scale, "exact_costs": task.exact_costs, "exit_code": done.returncode}
    plan_file = workdir / "sas_plan"
    if done.returncode == 0 and plan_file.is_file():
        names = task.plan_names(plan_file.read_text(encoding="utf-8").splitlines())
        return Outcome("found", names, seconds, search_seconds, nodes, note, extra)
    if done.returncode in _UNSOLVABLE:
        return Outcome("no_plan", None, seconds, search_seconds, nodes, note, extra)
    tail = " | ".join(log.strip().splitlines()[-3:])
    return Outcome(
        "error", None, seconds, search_seconds, nodes, f"driver exit {done.returncode}: {tail}"[:300], extra
    )
