"""``python -m bench search``: the planner command line on problems that stress the search loop.

Each case is written as a problem file and run as ``python -m goap plan FILE --json`` in a fresh
process; reported are its wall time, CPU time and peak resident memory (``os.wait4``'s rusage of
that process alone), the status and cost it printed, and the expansions:

- ``chain-N``: the ``chain`` family of the problem set (FORMAT.md) with N actions: ``advance_i``
  needs ``s_i`` and sets ``s_{i+1}``, so every state has i applicable actions of which i - 1 give
  the same state again (optimum N).
- ``counters``: three numeric counters that grow without end and a goal no state reaches: the
  search never ends by itself (timeout or memory budget).
- ``random-N``: N random actions over 120 boolean facts (two preconditions, two effects each,
  fixed seed) and a goal of 30 facts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]


def chain(n: int) -> dict[str, Any]:
    """The chain family with ``n`` actions and no distractors."""
    return {
        "name": f"chain-{n}",
        "family": "chain",
        "description": f"{n} actions in sequence, each enabling the next",
        "initial": {f"s{i}": i == 0 for i in range(n + 1)},
        "goal": {f"s{n}": True},
        "actions": [
            {
                "name": f"advance_{i}",
                "preconditions": {f"s{i}": True},
                "effects": {f"s{i + 1}": True},
                "cost": 1,
            }
            for i in range(n)
        ],
        "optimal_cost": n,
        "expect": "plan",
    }


def counters() -> dict[str, Any]:
    """Three unbounded counters and an unreachable goal (numeric extension of FORMAT.md)."""
    actions: list[dict[str, Any]] = [
        {"name": f"inc_{k}", "preconditions": {}, "effects": {k: {"add": 1}}, "cost": 1} for k in "xyz"
    ]
    actions.append(
        {
            "name": "win",
            "preconditions": {"x": {"op": "==", "value": -1}},
            "effects": {"done": True},
            "cost": 1,
        }
    )
    return {
        "name": "counters",
        "family": "numeric",
        "description": "unbounded counters, unreachable goal",
        "initial": {"x": 0, "y": 0, "z": 0, "done": False},
        "goal": {"done": True},
        "actions": actions,
        "optimal_cost": None,
        "expect": "no_plan",
    }


def random_actions(n: int, facts: int = 120, seed: int = 7, goal_size: int = 30) -> dict[str, Any]:
    """``n`` random actions over ``facts`` boolean facts, two preconditions and effects each."""
    rng = random.Random(seed)
    keys = [f"f{i}" for i in range(facts)]
    initial = {k: rng.random() < 0.3 for k in keys}
    actions = []
    for i in range(n):
        pre = rng.sample(keys, 2)
        eff = rng.sample(keys, 2)
        actions.append(
            {
                "name": f"a{i}",
                "preconditions": {k: rng.random() < 0.7 for k in pre},
                "effects": {k: rng.random() < 0.6 for k in eff},
                "cost": rng.randint(1, 5),
            }
        )
    goal = {k: not initial[k] for k in rng.sample(keys, goal_size)}
    return {
        "name": f"random-{n}",
        "family": "random",
        "description": f"{n} random actions",
        "initial": initial,
        "goal": goal,
        "actions": actions,
        "optimal_cost": None,
        "expect": "plan",
    }


def run(path: Path, extra: Sequence[str]) -> dict[str, Any]:
    """Run the command on ``path``; its outcome with wall and CPU seconds and peak RSS in MiB."""
    command = [sys.executable, "-m", "goap", "plan", str(path), "--json", *extra]
    # Output goes to files: a long plan fills a pipe nobody reads while os.wait4 waits.
    with open(path.with_suffix(".out"), "w+b") as out, open(path.with_suffix(".err"), "w+b") as err:
        start = time.perf_counter()
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(
                filter(None, (str(REPO_ROOT / "src"), os.environ.get("PYTHONPATH")))
            ),
        }
        proc = subprocess.Popen(command, cwd=REPO_ROOT, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    row: dict[str, Any] = {
        "wall_s": round(wall, 3),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "exit": proc.returncode,
    }
    try:
        doc = json.loads(stdout)
    except json.JSONDecodeError:
        row["error"] = stderr.decode(errors="replace").strip().splitlines()[-1:]
        return row
    row.update(status=doc["status"], cost=doc["cost"], expanded=doc["stats"]["expanded"])
    return row


def main(argv: Sequence[str]) -> int:
    """Run the cases and print one JSON line per case."""
    parser = argparse.ArgumentParser(prog="python -m bench search", description=__doc__.splitlines()[0])
    parser.add_argument("--chain", type=int, default=10_000, help="chain length (default 10000)")
    parser.add_argument("--random", type=int, default=10_000, help="random actions (default 10000)")
    parser.add_argument("--only", help="run only cases whose name contains this")
    parser.add_argument("goap_args", nargs="*", help="extra options for goap plan (after --)")
    args = parser.parse_args(argv)
    cases = [chain(args.chain), counters(), random_actions(args.random)]
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        for case in cases:
            if args.only and args.only not in case["name"]:
                continue
            path = Path(tmp) / f"{case['name']}.json"
            path.write_text(json.dumps(case), encoding="utf-8")
            print(json.dumps({"case": case["name"], **run(path, args.goap_args)}), flush=True)
    return 0
