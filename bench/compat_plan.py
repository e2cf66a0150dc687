"""LangGOAP drop-in planning speed: ``python -m bench compat [--repeat N]``.

The same problems, as LangGOAP's calling style builds them (``ActionSpec(name, preconditions,
effects, cost)``, ``GoalSpec(conditions)``, ``plan(start, goal, actions)``), planned by
:func:`goap.compat.plan` (goap's A* with LM-cut behind LangGOAP's API) and by langgoap 0.1.2's
own ``plan``. Both plans' costs are printed; a problem where they differ is flagged.

Families:

- ``grid-n``: walk an ``n x n`` grid with a wall across the middle to fetch a key in the far
  corner and open a door in another: the goal is one fact, so langgoap's heuristic (unmet goal
  conditions) is nearly blind.
- ``chain-n``: ``n`` actions each advancing a counter by one (a deep plan, little branching).
- ``flags-k``: ``k`` independent flags, one action each of cost 1 to 3: langgoap's heuristic (one
  per unmet flag) undercounts, and its A* visits every subset of flags (``k`` = 40 does not end).

Timing: per problem, the two planners run in back-to-back pairs, alternating which goes first;
the ratio is the median over the pairs of langgoap / compat (above 1: compat is faster), so both
sides of a pair see the same machine load. Each timed call includes building the action objects.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Spec = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem in a neutral form both planners are built from."""

    name: str
    start: dict[str, Any]
    goal: dict[str, Any]
    actions: list[Spec]


def grid(n: int) -> Problem:
    """Fetch a key across a walled ``n x n`` grid, then open a door."""
    acts: list[Spec] = []
    for x in range(n):
        for y in range(n):
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nx, ny = x + dx, y + dy
                if 0 <= nx < n and 0 <= ny < n and not (nx == n // 2 and ny != 0):
                    acts.append(
                        {
                            "name": f"m{x}_{y}_{nx}_{ny}",
                            "preconditions": {"pos": f"{x},{y}"},
                            "effects": {"pos": f"{nx},{ny}"},
                        }
                    )
    acts.append({"name": "pick", "preconditions": {"pos": f"{n - 1},{n - 1}"}, "effects": {"key": True}})
    acts.append(
        {"name": "open", "preconditions": {"pos": f"0,{n - 1}", "key": True}, "effects": {"door": True}}
    )
    return Problem(f"grid-{n}", {"pos": "0,0", "key": False, "door": False}, {"door": True}, acts)


def chain(n: int) -> Problem:
    """Advance a counter from 0 to ``n``, one action per step."""
    acts = [{"name": f"s{i}", "preconditions": {"at": i}, "effects": {"at": i + 1}} for i in range(n)]
    return Problem(f"chain-{n}", {"at": 0}, {"at": n}, acts)


def flags(k: int) -> Problem:
    """Set ``k`` independent flags, each by its own action of cost 1 + i % 3."""
    acts = [{"name": f"f{i}", "effects": {f"flag{i}": True}, "cost": 1.0 + i % 3} for i in range(k)]
    return Problem(
        f"flags-{k}", {f"flag{i}": False for i in range(k)}, {f"flag{i}": True for i in range(k)}, acts
    )


def _planner(module: Any) -> Callable[[Problem], float | None]:
    def run(p: Problem) -> float | None:
        result = module.plan(p.start, module.GoalSpec(p.goal), [module.ActionSpec(**a) for a in p.actions])
        return None if result is None else float(result.total_cost)

    return run


def _timed(run: Callable[[Problem], float | None], p: Problem) -> tuple[float, float | None]:
    t0 = time.perf_counter()
    cost = run(p)
    return time.perf_counter() - t0, cost


def main(argv: list[str]) -> int:
    """Run every problem ``--repeat`` pairs of times and print medians and ratios."""
    parser = argparse.ArgumentParser(prog="python -m bench compat")
    parser.add_argument("--repeat", type=int, default=7, help="timed pairs per problem")
    opts = parser.parse_args(argv)
    import langgoap

    import goap.compat

    ours, theirs = _planner(goap.compat), _planner(langgoap)
    problems = [grid(8), grid(14), chain(60), flags(8), flags(12)]
    print(f"{'problem':10} {'compat ms':>10} {'langgoap ms':>12} {'ratio':>6}  cost compat/langgoap")
    for p in problems:
        mine: list[float] = []
        peer: list[float] = []
        ratios: list[float] = []
        costs: tuple[float | None, float | None] = (None, None)
        for i in range(opts.repeat):
            if i % 2 == 0:
                (a, ca), (b, cb) = _timed(ours, p), _timed(theirs, p)
            else:
                (b, cb), (a, ca) = _timed(theirs, p), _timed(ours, p)
            mine.append(a)
            peer.append(b)
            ratios.append(b / a)
            costs = (ca, cb)
        flag = "" if costs[0] == costs[1] else "  (costs differ)"
        print(
            f"{p.name:10} {statistics.median(mine) * 1e3:10.2f} {statistics.median(peer) * 1e3:12.2f} "
            f"{statistics.median(ratios):6.2f}  {costs[0]}/{costs[1]}{flag}"
        )
    return 0
