"""goap.compat's anytime planning under a deadline: ``python -m bench compat-anytime [--repeat N]``.

The same problem and the same wall-clock budget for two goap.compat strategies:
``AnytimePlanningStrategy(budget)`` (goap's :class:`~goap.strategies.AnytimeStrategy`: weighted A*
rounds with falling weights) and ``AStarStrategy(time_budget_ms=budget)`` (goap's optimal A*,
which has no plan to give until it finishes). The optimal cost, from an unbounded A* run, is
printed beside them.

Problems (``collect-n-k``): walk an ``n x n`` grid with a wall across the middle (as in
``python -m bench compat``) and pick up ``k`` items at fixed random cells; the goal is every item.

Timing: per problem, ``--repeat`` runs of each strategy, alternating which goes first; the report
gives each one's median wall time and the cost each run returned (``-``: no plan in the budget).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from bench.compat_plan import grid
from goap.compat import ActionSpec, GoalSpec, PlanningState
from goap.compat.planner.strategy import AnytimePlanningStrategy, AStarStrategy


def collect(n: int, k: int, seed: int = 1) -> tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]:
    """The ``collect-n-k`` problem: start, goal and actions."""
    base = grid(n)
    specs = [a for a in base.actions if a["name"] not in ("pick", "open")]
    rng = random.Random(seed)
    goal: dict[str, Any] = {}
    while len(goal) < k:
        x, y = rng.randrange(n), rng.randrange(n)
        if x == n // 2 and y != 0:
            continue  # a wall cell: nothing there can be reached
        i = len(goal)
        specs.append({"name": f"get{i}", "preconditions": {"pos": f"{x},{y}"}, "effects": {f"item{i}": True}})
        goal[f"item{i}"] = True
    return base.start, goal, [ActionSpec(**s) for s in specs]


def main(argv: list[str]) -> int:
    """Print, per problem and budget, each strategy's median time and the cost it returned."""
    ap = argparse.ArgumentParser(prog="python -m bench compat-anytime")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each strategy per problem")
    args = ap.parse_args(argv)
    print(f"{'problem':<16}{'budget ms':>10}{'optimal':>9}{'strategy':>26}{'median ms':>11}  cost per run")
    for n, k, budget in ((10, 8, 300.0), (14, 14, 300.0), (18, 16, 500.0)):
        start, goal, actions = collect(n, k)
        state, spec = PlanningState.from_dict(start), GoalSpec(conditions=goal)
        best = AStarStrategy().plan(state, spec, actions)
        optimal = "-" if best is None else f"{best.total_cost:g}"
        strategies = {
            "AnytimePlanningStrategy": AnytimePlanningStrategy(budget),
            "AStarStrategy(budget)": AStarStrategy(time_budget_ms=budget),
        }
        times: dict[str, list[float]] = {name: [] for name in strategies}
        costs: dict[str, list[str]] = {name: [] for name in strategies}
        for i in range(args.repeat):
            order = list(strategies.items()) if i % 2 == 0 else list(reversed(strategies.items()))
            for name, strategy in order:
                t0 = time.perf_counter()
                found = strategy.plan(state, spec, actions)
                times[name].append((time.perf_counter() - t0) * 1000)
                costs[name].append("-" if found is None else f"{found.total_cost:g}")
        for name in strategies:
            print(
                f"{f'collect-{n}-{k}':<16}{budget:>10g}{optimal:>9}{name:>26}"
                f"{statistics.median(times[name]):>11.1f}  {'/'.join(costs[name])}"
            )
    return 0
