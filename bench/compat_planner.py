"""goap.compat's planner modules against langgoap 0.1.2's: ``python -m bench compat-strategies [--repeat N]``.

Each case is built twice from one neutral description, once from each library's classes, and the
same call is timed on both: ``validate_plan`` of a plan with durations (langgoap schedules with
CP-SAT, goap.compat takes the earliest starts), ``optimize_plans`` over candidate plans
(langgoap solves a CP-SAT model, goap.compat enumerates), the two-phase ``pipeline.plan`` on a
problem whose least-cost plan breaks a hard budget (both search alternatives with their A*), and
``MCTSStrategy`` with a fixed seed and iteration count.

Timing: ``--repeat`` back-to-back pairs per case, alternating which library goes first, so both see
the same machine load; the report gives each side's median and the median of the per-pair ratios
(goap.compat / langgoap). Results are compared too: the same status and chosen action names.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import statistics
import time
from collections.abc import Callable
from datetime import timedelta
from types import ModuleType
from typing import Any

from goap.compat.planner.strategy import simulate


def _mods(root: str) -> dict[str, ModuleType]:
    names = (
        "actions",
        "goals",
        "state",
        "types",
        "planner.types",
        "planner.csp",
        "planner.pipeline",
        "planner.mcts",
    )
    return {n: importlib.import_module(f"{root}.{n}") for n in names}


def _actions(m: dict[str, ModuleType], n: int) -> list[Any]:
    """A chain of ``n`` steps, each done fast (cost 1, 5 usd, 1 s) or slow (cost 2, 1 usd, 3 s, more tokens)."""
    spec = m["actions"].ActionSpec
    out = []
    for i in range(n):
        pre = {f"s{i - 1}": True} if i else {}
        for kind, cost, usd, secs, tokens in (("fast", 1.0, 5.0, 1, 10.0), ("slow", 2.0, 1.0, 3, 12.0)):
            out.append(
                spec(
                    name=f"{kind}{i}",
                    preconditions=pre,
                    effects={f"s{i}": True},
                    cost=cost,
                    resources={"usd": usd, "tokens": tokens * (i + 1)},
                    duration=timedelta(seconds=secs),
                )
            )
    return out


def _goal(m: dict[str, ModuleType], n: int, budget: float) -> Any:
    g = m["goals"]
    od = m["types"].ObjectiveDirection
    return g.GoalSpec(
        conditions={f"s{n - 1}": True},
        constraints=(g.ConstraintSpec(key="usd", max=budget),),
        objectives={"tokens": od.MINIMIZE},
    )


def _plan(m: dict[str, ModuleType], actions: list[Any]) -> Any:
    # simulate() only calls the state's and actions' methods, which langgoap's classes share
    states, cost = simulate(m["state"].PlanningState.from_dict({}), actions)
    return m["planner.types"].Plan(actions=tuple(actions), expected_states=states, total_cost=cost)


def _names(plan: Any) -> list[str] | None:
    return None if plan is None else list(plan.action_names)


def _verdict(plan: Any) -> tuple[str, float] | None:
    """CSP status and cost: A* may break cost ties differently, so names are not compared."""
    return None if plan is None else (plan.metadata.csp.status.value, plan.total_cost)


def _cases(m: dict[str, ModuleType], n: int) -> dict[str, Callable[[], Any]]:
    acts = _actions(m, n)
    chain = _plan(m, [a for a in acts if a.name.startswith("fast")])
    cands = [_plan(m, [acts[2 * i + ((i + k) % 2)] for i in range(n)]) for k in range(8)]
    start = m["state"].PlanningState.from_dict({})
    mcts = m["planner.mcts"]
    strategy = mcts.MCTSStrategy(exploration=mcts.MCTSExploration(iterations=200, wall_clock_ms=0, seed=1))
    return {
        "validate+schedule": lambda: (
            m["planner.csp"].validate_plan(chain, _goal(m, n, 10.0 * n)).status.value
        ),
        "optimize_plans(8)": lambda: (
            m["planner.csp"].optimize_plans(cands, _goal(m, n, 3.0 * n))[0].action_names
        ),
        "pipeline.plan": lambda: _verdict(
            m["planner.pipeline"].plan(start, _goal(m, n, 5.0 * n - 4.0), acts)
        ),
        "mcts(200 it)": lambda: _names(strategy.plan(start, _goal(m, n, 1e9), acts)),
    }


def main(argv: list[str]) -> int:
    """Print, per case, both medians (ms), the median per-pair ratio and whether the results agree."""
    ap = argparse.ArgumentParser(prog="python -m bench compat-strategies")
    ap.add_argument("--repeat", type=int, default=15, help="timed pairs per case")
    ap.add_argument("--steps", type=int, default=6, help="chain length of the problems")
    args = ap.parse_args(argv)
    logging.disable(logging.WARNING)  # both pipelines log each infeasible alternative
    ours, theirs = _cases(_mods("goap.compat"), args.steps), _cases(_mods("langgoap"), args.steps)
    print(f"{'case':<20}{'goap.compat ms':>16}{'langgoap ms':>14}{'ratio':>8}  same result")
    for name, mine in ours.items():
        peer = theirs[name]
        a_times: list[float] = []
        b_times: list[float] = []
        same = mine() == peer()  # also warms both up
        for i in range(args.repeat):
            for fn, out in (
                ((mine, a_times), (peer, b_times)) if i % 2 == 0 else ((peer, b_times), (mine, a_times))
            ):
                t0 = time.perf_counter()
                fn()
                out.append((time.perf_counter() - t0) * 1000)
        ratio = statistics.median(a / b for a, b in zip(a_times, b_times, strict=True))
        print(
            f"{name:<20}{statistics.median(a_times):>16.3f}{statistics.median(b_times):>14.3f}{ratio:>8.2f}  {same}"
        )
    return 0
