"""Timing table of plan() on every shared problem (run by hand: python tests/goap/measure_goap.py)."""

from __future__ import annotations

import glob
import sys
import time

from problem_files import PROBLEMS as PROBLEM_DIR

from goap import AStar, load_problem, plan

ROOT = PROBLEM_DIR


def main() -> None:
    files = sorted(glob.glob(f"{ROOT}/*.json")) + sorted(glob.glob(f"{ROOT}/ipc/*.json"))
    only = sys.argv[1:]
    strat = AStar(timeout=60)
    print(
        f"{'problem':32s} {'status':8s} {'cost':>9s} {'opt':>9s} {'sec':>8s} {'expanded':>9s} {'eval':>7s} {'h0':>6s}"
    )
    for f in files:
        p = load_problem(f)
        if only and not any(o in p.name for o in only):
            continue
        t = time.perf_counter()
        r = plan(p.initial, p.goal, p.actions, strat)
        dt = time.perf_counter() - t
        cost = f"{r.plan.cost:.4f}" if r.plan else "-"
        ok = (
            ""
            if (r.plan is None and p.expect == "no_plan")
            or (
                r.plan is not None and p.optimal_cost is not None and abs(r.plan.cost - p.optimal_cost) < 1e-6
            )
            else " !!"
        )
        print(
            f"{p.name:32s} {r.status:8s} {cost:>9s} {p.optimal_cost!s:>9s} {dt:8.3f} {r.stats.expanded:9d} "
            f"{r.stats.evaluated:7d} {r.stats.initial_h:6.2f}{ok}",
            flush=True,
        )


if __name__ == "__main__":
    main()
