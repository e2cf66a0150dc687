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

Timing: per problem, the two planners run in back-to-back pairs, alternating which goes first
(``--repeat`` pairs, 15 by default; past ``--max-seconds`` on one problem, no new pair starts once 5
are done). Each pair sees the same machine load, so the reported ratio, the median over the pairs
of ours / langgoap, does not flip with the load of the moment as two separately timed series do.
What is timed is unchanged: one call of :func:`run_ours` or :func:`run_langgoap`. A problem counts
as won when ours is faster (ratio < 1) with an equal or better objective on a feasible plan.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from bench.peers import quiet_langgoap
from goap import (
    ActionSpec,
    CspPipeline,
    GoalSpec,
    Objective,
    ResourceConstraint,
    SolverReport,
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
    report = res.report(SolverReport)
    status = report.status if report is not None else res.status
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


Planner = Callable[[Problem], tuple[str, tuple[str, ...] | None]]
"""A planner under test: a problem in, its status and plan (action names, None if none) out."""


@dataclass(frozen=True, slots=True)
class Comparison:
    """Both planners timed on one problem in interleaved pairs (see :func:`compare`)."""

    ours: list[float]
    """Seconds of each of our runs, in repetition order."""
    theirs: list[float]
    """Seconds of each of langgoap's runs, in repetition order."""
    ours_out: tuple[str, tuple[str, ...] | None]
    """Status and plan of our last run."""
    theirs_out: tuple[str, tuple[str, ...] | None]
    """Status and plan of langgoap's last run."""

    @property
    def ratio(self) -> float:
        """Median over the pairs of our time / langgoap's (each pair ran back to back)."""
        return statistics.median(o / t for o, t in zip(self.ours, self.theirs, strict=True))


def compare(
    p: Problem,
    repeat: int,
    ours: Planner,
    theirs: Planner,
    *,
    max_seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Comparison:
    """Time ``ours`` and ``theirs`` on ``p`` back to back, ``repeat`` times, alternating who goes first.

    Interleaving puts both runs of a pair under the same machine load, so the paired ratio is
    stable where the medians of two separate series are not. With ``max_seconds`` the pairs
    stop early once at least 5 are done and the problem has taken that long (a slow peer would
    otherwise dominate the run); only whole pairs are ever measured.
    """
    times: dict[int, list[float]] = {0: [], 1: []}
    outs: dict[int, tuple[str, tuple[str, ...] | None]] = {0: ("error", None), 1: ("error", None)}
    fns = (ours, theirs)
    started = clock()
    for r in range(repeat):
        for side in (0, 1) if r % 2 == 0 else (1, 0):
            t0 = clock()
            outs[side] = fns[side](p)
            times[side].append(clock() - t0)
        if max_seconds is not None and r + 1 >= 5 and clock() - started >= max_seconds:
            break
    return Comparison(times[0], times[1], outs[0], outs[1])


def verdict(p: Problem, cmp: Comparison) -> tuple[dict[str, Any], dict[str, Any], bool, bool]:
    """Judged plans of both sides, whether ours has an equal or better objective, whether faster."""
    ours, theirs = judge(p, cmp.ours_out[1]), judge(p, cmp.theirs_out[1])
    better = bool(ours["feasible"]) and (
        not theirs["feasible"] or ours["objective"] <= theirs["objective"] + 1e-9
    )
    return ours, theirs, better, cmp.ratio < 1.0


def main(argv: list[str]) -> int:
    """Run every family at every size with both planners and print one markdown table."""
    ap = argparse.ArgumentParser(prog="python -m bench strategies", description=__doc__.splitlines()[0])
    ap.add_argument(
        "--repeat", type=int, default=15, help="interleaved pairs of runs per problem (median times)"
    )
    ap.add_argument(
        "--max-seconds",
        type=float,
        default=30.0,
        help="seconds per problem after which pairs stop (at least 5 pairs); 0: run every pair",
    )
    ap.add_argument("--sizes", default="3,6", help="comma-separated component counts")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error(f"--repeat must be >= 1, got {args.repeat}")
    sizes = [int(s) for s in args.sizes.split(",")]
    # langgoap logs every rejected alternative at WARNING; the table is the output
    with quiet_langgoap():
        return _table(args.repeat, args.max_seconds, sizes)


def _table(repeat: int, max_seconds: float, sizes: list[int]) -> int:
    """Print the comparison table (see the module docstring); 0."""
    # warm both up once (imports, OR-Tools load) so the first row is not charged for them
    warm = budget(2)
    run_ours(warm)
    run_langgoap(warm)
    print(
        "| problem | planner | pairs | time ms | ours/langgoap | status | feasible | objective | makespan |"
    )
    print("|---|---|---:|---:|---:|---|---|---:|---:|")
    rows = objective = faster = both = 0
    for family in FAMILIES.values():
        for k in sizes:
            p = family(k)
            cmp = compare(p, repeat, run_ours, run_langgoap, max_seconds=max_seconds or None)
            ours, theirs, better, quicker = verdict(p, cmp)
            for label, times, out, j in (
                ("graphengine", cmp.ours, cmp.ours_out, ours),
                ("langgoap", cmp.theirs, cmp.theirs_out, theirs),
            ):
                ratio = f"{cmp.ratio:.2f}" if label == "graphengine" else ""
                obj = "-" if j["objective"] is None else f"{j['objective']:g}"
                ms = "-" if j["makespan"] is None else f"{j['makespan']:g}"
                print(
                    f"| {p.name} | {label} | {len(times)} | {statistics.median(times) * 1e3:.1f} | {ratio} "
                    f"| {out[0]} | {j['feasible']} | {obj} | {ms} |"
                )
            rows += 1
            objective += int(better)
            faster += int(quicker)
            both += int(better and quicker)
    print()
    print(f"equal or better objective (feasible) on {objective}/{rows} problems; faster on {faster}/{rows}")
    print(f"faster with equal-or-better objective: {both}/{rows}")
    return 0
