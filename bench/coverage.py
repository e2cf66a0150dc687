"""Coverage benchmark on larger IPC tasks: ``python -m bench coverage [options]``.

For every instance (an IPC ``domain.pddl`` and ``taskNN.pddl`` under ``--pddl``, by default
``bench/data/ipc-large/``) it runs, each in its own process with the same time limit:

- **ours**: the task grounded to the shared JSON format by :mod:`bench.ipc` (before the clock
  starts), then one worker process (:mod:`bench.peers.worker`) that loads it and calls
  ``goap.plan()`` with ``AStar()`` (or ``AStar(symmetry=False)`` for ``ours-nosym``). Two times are
  shown: the ``plan()`` call, and the worker process from start to exit (interpreter start,
  imports, JSON load, planning);
- **fd**: Fast Downward's driver (``up-fast-downward``) on the original PDDL files with
  ``astar(lmcut())``: translator and search, timed from start to exit, its search time beside.

Every plan (ours and Fast Downward's, whose action names are the ground atoms' names) is replayed
on the JSON task by :mod:`bench.validate`; a run counts as solved only with a valid plan within the
limit. Costs of both planners must agree wherever both solve (both claim optimality); the summary
says where they do not.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from bench.ipc import ground
from bench.peers import Outcome
from bench.peers.fast_downward import SEARCH, driver_path
from bench.planner import (
    REPO_ROOT,
    Settings,
    add_run_options,
    discovered,
    parse_run_options,
    publish,
    run_once,
    run_settings,
)
from bench.validate import JsonProblem, check

DEFAULT_PDDL = REPO_ROOT / "bench" / "data" / "ipc-large"
"""The committed larger instances: one folder per domain with ``domain.pddl`` and ``task*.pddl``."""

OURS = ("ours", "ours-nosym")
"""Our configurations this benchmark can run (peers of :mod:`bench.peers`)."""

_SEARCH_TIME = re.compile(r"Search time: ([0-9.]+)s")
_EXPANDED = re.compile(r"Expanded (\d+) state\(s\)\.")


@dataclass(slots=True)
class Run:
    """One planner on one instance, judged by our validator."""

    status: str = "error"
    """solved | timeout | error | invalid (a plan that does not replay)."""
    seconds: float | None = None
    """Process wall time, start to exit (median over the repeats)."""
    call_seconds: float | None = None
    """ours: the plan() call; fd: the search as Fast Downward reports it (median)."""
    cost: float | None = None
    expanded: int | None = None
    note: str = ""


@dataclass(slots=True)
class Instance:
    """One IPC task and every planner's run on it."""

    name: str
    domain: str
    task: str
    facts: int
    """Ground atoms of the JSON task (one boolean fact each)."""
    actions: int
    """Ground actions of the JSON task."""
    runs: dict[str, Run] = field(default_factory=dict)


def discover(root: Path, only: str | None = None) -> list[tuple[str, Path, Path]]:
    """``(name, domain file, task file)`` for every ``task*.pddl`` under ``root/<domain>/``.

    Raises:
        FileNotFoundError: ``root`` is not a folder.
    """
    if not root.is_dir():
        raise FileNotFoundError(f"instance folder {root} does not exist; pass --pddl DIR")
    out = []
    for folder in sorted(p for p in root.iterdir() if (p / "domain.pddl").is_file()):
        for task in sorted(folder.glob("task*.pddl")):
            name = f"{folder.name}-{task.stem.removeprefix('task')}"
            if only is None or only in name:
                out.append((name, folder / "domain.pddl", task))
    return out


def _judge(problem: JsonProblem, outcome: Outcome) -> tuple[str, float | None, str]:
    """(status, cost, note) of one run: solved only with a plan our validator accepts."""
    if outcome.status == "found" and outcome.plan is not None:
        result = check(problem, outcome.plan)
        if result.valid:
            return "solved", result.cost, ""
        return "invalid", result.cost, result.message[:120]
    if outcome.status == "no_plan":
        return "error", None, "says no plan (every IPC task here has one)"
    return outcome.status, None, outcome.note[:120]


def run_fd(domain: Path, task: Path, problem: JsonProblem, settings: Settings) -> tuple[Outcome, float]:
    """Fast Downward's driver on the original PDDL files; returns (outcome, process seconds)."""
    with tempfile.TemporaryDirectory(prefix="bench-coverage-") as workdir:
        command = [sys.executable, str(driver_path()), str(domain), str(task), "--search", SEARCH]
        start = time.perf_counter()
        proc = subprocess.Popen(
            command,
            cwd=workdir,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # the translator and search are children: a timeout kills them all
        )
        try:
            log, _ = proc.communicate(timeout=settings.timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return Outcome("timeout", note=f"> {settings.timeout:g} s (killed)"), time.perf_counter() - start
        seconds = time.perf_counter() - start
        search = _SEARCH_TIME.search(log)
        expanded = _EXPANDED.search(log)
        search_seconds = float(search.group(1)) if search else None
        nodes = int(expanded.group(1)) if expanded else None
        plan_file = Path(workdir) / "sas_plan"
        if proc.returncode == 0 and plan_file.is_file():
            lines = plan_file.read_text(encoding="utf-8").splitlines()
            # plan lines are "(drive truck0 depot0 distributor0)", the JSON action names
            plan = [ln.strip() for ln in lines if ln.strip() and not ln.startswith(";")]
            return Outcome("found", plan, seconds, search_seconds, nodes), seconds
        tail = " | ".join(log.strip().splitlines()[-2:])
        return Outcome(
            "error", None, seconds, search_seconds, nodes, f"driver exit {proc.returncode}: {tail}"
        ), seconds


def run_ours(peer: str, json_path: Path, settings: Settings) -> tuple[Outcome, float]:
    """One worker process of ``peer`` on the JSON task; returns (outcome, process seconds)."""
    start = time.perf_counter()
    outcome = run_once(peer, json_path, settings)
    return outcome, time.perf_counter() - start


def measure(
    planner: str, domain: Path, task: Path, json_path: Path, problem: JsonProblem, settings: Settings
) -> Run:
    """Up to ``settings.repeat`` runs of ``planner``; medians of the solved ones."""
    walls: list[float] = []
    calls: list[float] = []
    run = Run()
    for _ in range(settings.repeat):
        if planner == "fd":
            outcome, wall = run_fd(domain, task, problem, settings)
        else:
            outcome, wall = run_ours(planner, json_path, settings)
        status, cost, note = _judge(problem, outcome)
        # ours' limit applies to the plan() call (run_once); the process gets a start-up allowance
        if status == "solved" and planner == "fd" and wall > settings.timeout:
            status, note = "timeout", f"> {settings.timeout:g} s"
        if status != "solved":
            run.status, run.note = status, note
            run.expanded = outcome.nodes
            return run
        if run.cost is not None and cost != run.cost:
            run.note = "cost differs between runs"
        run.status, run.cost, run.expanded = status, cost, outcome.nodes
        walls.append(wall)
        call = outcome.search_seconds if planner == "fd" else outcome.seconds
        if call is not None:
            calls.append(call)
    run.seconds = statistics.median(walls)
    run.call_seconds = statistics.median(calls) if calls else None
    return run


# --- report -----------------------------------------------------------------------------------


def _s(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds:.2f}"


def _cell(run: Run | None) -> tuple[str, str, str, str]:
    """(process s, call s, cost, expanded) cells; status words replace the times when unsolved."""
    if run is None:
        return "", "", "", ""
    if run.status != "solved":
        return run.status, "", "", "" if run.expanded is None else str(run.expanded)
    cost = "" if run.cost is None else f"{run.cost:g}"
    return _s(run.seconds), _s(run.call_seconds), cost, "" if run.expanded is None else str(run.expanded)


def table(instances: Sequence[Instance], planners: Sequence[str]) -> str:
    """The markdown table: one line per instance, a group of columns per planner."""
    head = ["instance", "facts", "actions"]
    for p in planners:
        second = "search s" if p == "fd" else "plan() s"
        head += [f"{p} process s", f"{p} {second}", f"{p} cost", f"{p} expanded"]
    head.append("same cost")
    lines = ["| " + " | ".join(head) + " |", "|---|" + "--:|" * (len(head) - 2) + "---|"]
    for inst in instances:
        cells = [inst.name, str(inst.facts), str(inst.actions)]
        for p in planners:
            cells.extend(_cell(inst.runs.get(p)))
        cells.append(_agreement(inst))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _agreement(inst: Instance) -> str:
    costs = {r.cost for r in inst.runs.values() if r.status == "solved"}
    solved = sum(1 for r in inst.runs.values() if r.status == "solved")
    if solved < 2:
        return ""
    return "yes" if len(costs) == 1 else "NO"


def summarise(instances: Sequence[Instance], planners: Sequence[str], settings: Settings) -> dict[str, Any]:
    """Solved counts per planner, cost disagreements and the slowest solved instance."""
    out: dict[str, Any] = {"instances": len(instances), "timeout": settings.timeout}
    for p in planners:
        runs = [(i.name, i.runs[p]) for i in instances if p in i.runs]
        solved = [(n, r) for n, r in runs if r.status == "solved"]
        out[f"solved_{p}"] = len(solved)
        out[f"under_1s_{p}"] = sum(1 for _, r in solved if (r.seconds or 0.0) < 1.0)
        out[f"invalid_{p}"] = [n for n, r in runs if r.status == "invalid"]
    out["cost_mismatch"] = [i.name for i in instances if _agreement(i) == "NO"]
    return out


def summary_text(summary: dict[str, Any], planners: Sequence[str]) -> str:
    """The summary as markdown bullets."""
    lines = ["", "## Summary", ""]
    for p in planners:
        lines.append(
            f"- {p}: solved **{summary[f'solved_{p}']}/{summary['instances']}** within"
            f" {summary['timeout']:g} s ({summary[f'under_1s_{p}']} of them under 1 s, process time)"
        )
        if summary[f"invalid_{p}"]:
            lines.append(f"- {p}: INVALID plans on {', '.join(summary[f'invalid_{p}'])}")
    mismatch = summary["cost_mismatch"]
    lines.append(
        "- costs agree wherever two planners solve"
        if not mismatch
        else f"- COSTS DIFFER on {', '.join(mismatch)}"
    )
    return "\n".join(lines)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(prog="python -m bench coverage", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pddl", type=Path, default=DEFAULT_PDDL, help="instance folder (default bench/data/ipc-large)"
    )
    parser.add_argument("--only", help="run only instances whose name (domain-NN) contains this")
    parser.add_argument(
        "--planners", default="ours,fd", help="comma list of ours, ours-nosym, fd (default ours,fd)"
    )
    add_run_options(parser, unit="instance", repeat=1)
    args = parse_run_options(parser, argv)
    args.planner_list = [p.strip() for p in args.planners.split(",") if p.strip()]
    unknown = [p for p in args.planner_list if p not in (*OURS, "fd")]
    if unknown or not args.planner_list:
        parser.error(f"unknown planner(s) {unknown}; choose from {', '.join((*OURS, 'fd'))}")
    return args


def main(argv: Sequence[str], progress: TextIO = sys.stderr) -> int:
    """Run the benchmark; the report goes to stdout, progress lines to ``progress``."""
    args = parse_args(argv)
    settings = run_settings(args)
    found = discovered(discover, args.pddl, args.only, "instance")
    if found is None:
        return 2
    instances: list[Instance] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-coverage-json-") as tmp:
        for name, domain, task in found:
            problem = ground(domain, task, f"ipc-{name}", f"ipc-{domain.parent.name}")
            json_path = Path(tmp) / f"{name}.json"
            json_path.write_text(json.dumps(problem), encoding="utf-8")
            inst = Instance(
                name, domain.parent.name, task.name, len(problem["initial"]), len(problem["actions"])
            )
            for planner in args.planner_list:
                run = measure(planner, domain, task, json_path, problem, settings)
                inst.runs[planner] = run
                print(
                    f"[{time.perf_counter() - started:7.1f} s] {name:16} {planner:10} {run.status:8}"
                    f" {_s(run.seconds):>7} s  cost {run.cost}  exp {run.expanded}  {run.note[:60]}",
                    file=progress,
                    flush=True,
                )
            instances.append(inst)
    summary = summarise(instances, args.planner_list, settings)
    legend = (
        "# Coverage on larger IPC tasks\n\n"
        f"Time limit {settings.timeout:g} s per run, {settings.repeat} run(s) each (medians), one process per run."
        " `process s`: wall time of the planner's process from start to exit (ours: interpreter, imports,"
        " JSON load and plan(); fd: Fast Downward's driver, translator and search on the original PDDL)."
        " Every plan replayed on the JSON task by bench/validate.py.\n"
    )
    report = (
        legend
        + "\n"
        + table(instances, args.planner_list)
        + "\n"
        + summary_text(summary, args.planner_list)
        + "\n"
    )
    payload = {"settings": asdict(settings), "instances": [asdict(i) for i in instances], "summary": summary}
    publish(args, report, payload)
    return 0
