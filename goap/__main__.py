"""Command line: ``python -m goap plan problem.json [--strategy astar] [--timeout S] [--json]``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from goap.errors import PlanningError
from goap.planner import plan
from goap.problem import load_problem
from goap.strategies import STRATEGIES, AStar, GreedyBestFirst, PlanningStrategy


def _strategy(name: str, timeout: float | None, max_expansions: int | None) -> PlanningStrategy:
    base = STRATEGIES[name]()
    if isinstance(base, AStar | GreedyBestFirst):
        return type(base)(
            heuristic=base.heuristic,
            weight=base.weight,
            max_expansions=max_expansions,
            timeout=timeout,
        )
    return base


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 found, 1 no plan / budget, 2 bad input)."""
    parser = argparse.ArgumentParser(prog="python -m goap", description="GOAP planner")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan", help="plan for a problem file and print the plan, its cost and stats")
    p.add_argument("problem", help="problem file (shared/problems/FORMAT.md)")
    p.add_argument("--strategy", default="astar", choices=sorted(STRATEGIES))
    p.add_argument("--timeout", type=float, default=30.0, help="seconds (default 30)")
    p.add_argument("--max-expansions", type=int, default=None)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    try:
        problem = load_problem(args.problem)
        result = plan(
            problem.initial,
            problem.goal,
            problem.actions,
            _strategy(args.strategy, args.timeout, args.max_expansions),
        )
    except PlanningError as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    s = result.stats
    if args.json:
        out = {
            "problem": problem.name,
            "status": result.status,
            "plan": list(result.plan.names) if result.plan else None,
            "cost": result.plan.cost if result.plan else None,
            "optimal": result.optimal,
            "optimal_cost": problem.optimal_cost,
            "strategy": result.strategy,
            "explanation": result.explanation.to_dict() if result.explanation else None,
            "stats": {
                "expanded": s.expanded,
                "generated": s.generated,
                "evaluated": s.evaluated,
                "seconds": s.seconds,
                "initial_h": s.initial_h,
            },
        }
        print(json.dumps(out, indent=1))
    else:
        print(f"problem: {problem.name}  status: {result.status}  strategy: {result.strategy}")
        if result.plan is not None:
            for i, name in enumerate(result.plan.names, 1):
                print(f"{i:4d}. {name}")
            tag = "optimal" if result.optimal else "not proven optimal"
            print(f"cost: {result.plan.cost:g} ({tag}; file says {problem.optimal_cost})")
        if result.explanation is not None:
            print(f"no plan: {result.explanation.message}")
        print(
            f"stats: expanded={s.expanded} generated={s.generated} evaluated={s.evaluated} "
            f"initial_h={s.initial_h:g} pruned_actions={s.pruned_actions} "
            f"symmetry_classes={s.symmetry_classes} seconds={s.seconds:.4f}"
        )
    return 0 if result.found else 1


if __name__ == "__main__":
    sys.exit(main())
