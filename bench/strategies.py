"""Constraint-planning benchmark: ``python -m bench strategies [--repeat N] [--sizes 3,6]``.

Generated scheduling/resource problems, solved by this project's :class:`goap.CspPipeline` and by
langgoap 0.1.2's two-phase pipeline (``langgoap.planner.pipeline.plan``) on the same actions,
goals, constraints and objectives. Every returned plan is judged by the same code: replayed to
the goal, its hard constraints checked, its objective value and its makespan (precedence only,
:func:`goap.dependencies`, so both planners are measured alike) computed.

Families (``k`` components each):

- ``budget-k``: build each component fast (cost 1, budget 4) or slow (cost 3, budget 1); a hard
  budget allows only ``k // 3`` fast builds; objective: least cost.
- ``usd-k``: run each task by API (cost 1, usd 5) or locally (cost 2, usd 1); objective: least usd.
- ``soft-k``: the same tasks, a soft ``usd <= 2k`` (weight 1) and least cost: the objective is cost
  plus the weighted overrun.
- ``deadline-k``: each task quick (duration 1, cost 3) or slow (duration 5, cost 1), all in
  parallel; objective: least makespan, then least cost.

langgoap expresses objectives only as resource sums and has no makespan objective: on
``deadline-k`` it gets the cost objective and its schedule is measured.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from goap import (
    ActionSpec,
    CspPipeline,
    GoalSpec,
    Objective,
    ResourceConstraint,
    dependencies,
    plan,
)


@dataclass(slots=True)
class Problem:
    """One generated problem in a neutral form both planners are built from."""

    name: str
    family: str
    actions: list[dict[str, Any]]
    goal: dict[str, Any]
    constraints: list[ResourceConstraint] = field(default_factory=list)
    objectives: list[Objective] = field(default_factory=list)
    objective: Callable[[dict[str, float]], float] = lambda m: m["cost"]
    """The value judged (lower is better) from a plan's metrics."""


def _act(
    name: str, pre: dict[str, Any], eff: dict[str, Any], cost: float, res: dict[str, float], dur: float
) -> dict[str, Any]:
    return {"name": name, "pre": pre, "eff": eff, "cost": cost, "res": res, "dur": dur}


def budget(k: int) -> Problem:
    acts = []
    for i in range(k):
        acts.append(_act(f"fetch{i}", {}, {f"src{i}": True}, 1, {}, 1))
        acts.append(_act(f"fast{i}", {f"src{i}": True}, {f"built{i}": True}, 1, {"budget": 4}, 2))
        acts.append(_act(f"slow{i}", {f"src{i}": True}, {f"built{i}": True}, 3, {"budget": 1}, 5))
        acts.append(_act(f"test{i}", {f"built{i}": True}, {f"ok{i}": True}, 1, {}, 1))
    acts.append(_act("ship", {f"ok{i}": True for i in range(k)}, {"shipped": True}, 1, {}, 1))
    limit = 4 * (k // 3) + (k - k // 3)
    return Problem(
        f"budget-{k}", "budget", acts, {"shipped": True}, [ResourceConstraint("budget", max=limit)]
    )


def _tasks(k: int) -> list[dict[str, Any]]:
    acts = []
    for i in range(k):
        acts.append(_act(f"api{i}", {}, {f"done{i}": True}, 1, {"usd": 5}, 1))
        acts.append(_act(f"local{i}", {}, {f"done{i}": True}, 2, {"usd": 1}, 3))
    return acts


def usd(k: int) -> Problem:
    p = Problem(f"usd-{k}", "usd", _tasks(k), {f"done{i}": True for i in range(k)})
    p.objectives = [Objective("usd")]
    p.objective = lambda m: m["usd"]
    return p


def soft(k: int) -> Problem:
    p = Problem(f"soft-{k}", "soft", _tasks(k), {f"done{i}": True for i in range(k)})
    p.constraints = [ResourceConstraint("usd", max=2 * k, level="soft")]
    p.objectives = [Objective("cost")]
    p.objective = lambda m: m["cost"] + max(0.0, m["usd"] - 2 * k)
    return p


def deadline(k: int) -> Problem:
    acts = []
    for i in range(k):
        acts.append(_act(f"quick{i}", {}, {f"done{i}": True}, 3, {}, 1))
        acts.append(_act(f"slow{i}", {}, {f"done{i}": True}, 1, {}, 5))
    p = Problem(f"deadline-{k}", "deadline", acts, {f"done{i}": True for i in range(k)})
    p.objectives = [Objective("makespan", priority=1), Objective("cost")]
    p.objective = lambda m: m["makespan"] * 1000 + m["cost"]
    return p


FAMILIES: dict[str, Callable[[int], Problem]] = {
    "budget": budget,
    "usd": usd,
    "soft": soft,
    "deadline": deadline,
}


def ours_actions(p: Problem) -> list[ActionSpec]:
    return [
        ActionSpec(a["name"], a["pre"], a["eff"], cost=a["cost"], resources=a["res"], duration=a["dur"])
        for a in p.actions
    ]


def run_ours(p: Problem) -> tuple[str, tuple[str, ...] | None]:
    """Status and plan names from :class:`goap.CspPipeline`."""
    strategy = CspPipeline(constraints=tuple(p.constraints), objectives=tuple(p.objectives))
    res = plan({}, GoalSpec(p.goal), ours_actions(p), strategy)
    status = res.solver.status if res.solver is not None else res.status
    return status, res.plan.names if res.plan is not None else None


def run_langgoap(p: Problem) -> tuple[str, tuple[str, ...] | None]:
    """Status and plan names from langgoap's A* -> CSP pipeline."""
    from langgoap import ActionSpec as LAction
    from langgoap import GoalSpec as LGoal
    from langgoap.goals import ConstraintSpec
    from langgoap.planner.pipeline import plan as lplan
    from langgoap.types import ObjectiveDirection

    acts = [
        LAction(
            name=a["name"],
            preconditions=a["pre"],
            effects=a["eff"],
            cost=a["cost"],
            resources=a["res"],
            duration=timedelta(seconds=a["dur"]),
        )
        for a in p.actions
    ]
    cons = tuple(
        ConstraintSpec(key=c.key, max=c.max, min=c.min, weight=c.weight, level=c.level)
        for c in p.constraints
        if c.key not in ("cost", "makespan", "length")
    )
    objs = {
        o.metric: ObjectiveDirection.MINIMIZE if o.direction == "minimize" else ObjectiveDirection.MAXIMIZE
        for o in p.objectives
        if o.metric not in ("makespan",)
    }
    goal = LGoal(conditions=p.goal, constraints=cons, objectives=objs or None)
    out = lplan({}, goal, acts)
    if out is None:
        return "no_plan", None
    csp = out.metadata.csp
    status = csp.status.value.upper() if csp is not None else "found"
    return status, tuple(out.action_names)


def judge(p: Problem, names: Sequence[str] | None) -> dict[str, Any]:
    """Replay, hard constraints, objective and precedence-only makespan of a returned plan."""
    if names is None:
        return {"valid": False, "feasible": False, "objective": None, "makespan": None}
    by = {a.name: a for a in ours_actions(p)}
    steps = [by[n] for n in names]
    state: dict[str, Any] = {}
    valid = True
    for a in steps:
        valid = valid and a.applicable(state)
        state = a.apply(state)
    valid = valid and GoalSpec(p.goal).satisfied_by(state)
    metrics: dict[str, float] = {"cost": sum(a.cost_in({}) for a in steps), "length": float(len(steps))}
    for a in steps:
        for key, use in (a.resources or {}).items():
            metrics[key] = metrics.get(key, 0.0) + use
    finish = [0.0] * len(steps)
    for u, v in sorted(dependencies(steps), key=lambda e: e[1]):
        finish[v] = max(finish[v], finish[u] + (steps[u].duration or 0.0))
    metrics["makespan"] = max(
        (f + (a.duration or 0.0) for f, a in zip(finish, steps, strict=True)), default=0.0
    )
    hard_ok = all(c.violation(metrics.get(c.key, 0.0)) == 0 for c in p.constraints if c.level == "hard")
    return {
        "valid": valid,
        "feasible": valid and hard_ok,
        "objective": p.objective(metrics),
        "makespan": metrics["makespan"],
    }


def measure(
    fn: Callable[[Problem], tuple[str, tuple[str, ...] | None]], p: Problem, repeat: int
) -> tuple[float, str, tuple[str, ...] | None]:
    times = []
    out: tuple[str, tuple[str, ...] | None] = ("error", None)
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(p)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out[0], out[1]


def main(argv: list[str]) -> int:
    """Run every family at every size with both planners and print one markdown table."""
    ap = argparse.ArgumentParser(prog="python -m bench strategies", description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per planner and problem (median time)")
    ap.add_argument("--sizes", default="3,6", help="comma-separated component counts")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    # langgoap logs every rejected alternative at WARNING; the table is the output
    logging.getLogger("langgoap").setLevel(logging.ERROR)
    # warm both up once (imports, OR-Tools load) so the first row is not charged for them
    warm = budget(2)
    run_ours(warm)
    run_langgoap(warm)
    print("| problem | planner | time ms | status | feasible | objective | makespan |")
    print("|---|---|---:|---|---|---:|---:|")
    wins = {"objective": 0, "faster": 0, "rows": 0}
    for family in FAMILIES.values():
        for k in sizes:
            p = family(k)
            rows = {}
            for label, fn in (("graphengine", run_ours), ("langgoap", run_langgoap)):
                secs, status, names = measure(fn, p, args.repeat)
                j = judge(p, names)
                rows[label] = (secs, j)
                obj = "-" if j["objective"] is None else f"{j['objective']:g}"
                ms = "-" if j["makespan"] is None else f"{j['makespan']:g}"
                print(
                    f"| {p.name} | {label} | {secs * 1e3:.1f} | {status} | {j['feasible']} | {obj} | {ms} |"
                )
            ours, theirs = rows["graphengine"][1], rows["langgoap"][1]
            wins["rows"] += 1
            better = ours["feasible"] and (
                not theirs["feasible"] or ours["objective"] <= theirs["objective"] + 1e-9
            )
            wins["objective"] += int(better)
            wins["faster"] += int(rows["graphengine"][0] <= rows["langgoap"][0])
    print()
    print(
        f"equal or better objective (feasible) on {wins['objective']}/{wins['rows']} problems; "
        f"faster on {wins['faster']}/{wins['rows']}"
    )
    return 0
