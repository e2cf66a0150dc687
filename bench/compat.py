"""``python -m bench compat``: goap.compat against langgoap 0.1.2 on the same programs.

Both libraries get the same LangGOAP-style program, built by one function that is handed either
module, so the only difference is the library. Measured, in one process, alternating the two
sides round by round (so a load change on a shared machine hits both):

plan
    ``planner.astar.plan`` on a chain of ``--actions`` steps with two distractors per step;
invoke
    ``GoapGraph(actions).compile().invoke(...)`` to the goal, every action executing.

Each row prints the median of ``--rounds`` rounds per side and the ratio goap.compat / langgoap
(below 1: goap.compat is faster). Plans and final states are checked equal before timing.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import statistics
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any


def chain(lib: ModuleType, n: int) -> tuple[list[Any], Any]:
    """``n`` steps ``s0 -> s1 -> ...``, each with two dearer distractors, and the goal ``s{n}``."""
    actions = []
    for i in range(n):
        pre = {f"s{i}": True} if i else {}
        actions.append(lib.ActionSpec(name=f"step{i}", preconditions=pre, effects={f"s{i + 1}": True}))
        for k in range(2):
            actions.append(
                lib.ActionSpec(
                    name=f"detour{i}_{k}", preconditions=pre, effects={f"d{i}_{k}": True}, cost=2.0
                )
            )
    return actions, lib.GoalSpec(conditions={f"s{n}": True})


def with_execute(lib: ModuleType, n: int) -> tuple[list[Any], Any]:
    """The chain whose actions run a function returning their effects."""
    actions, goal = chain(lib, n)
    done = []
    for a in actions:
        effects = dict(a.effects)
        done.append(
            lib.ActionSpec(
                name=a.name,
                preconditions=dict(a.preconditions),
                effects=effects,
                cost=a.cost,
                execute=lambda _w, e=effects: e,
            )
        )
    return done, goal


def cases(n: int) -> dict[str, Callable[[ModuleType], Callable[[], Any]]]:
    """Row name -> (library -> a call to time, returning what must agree across libraries)."""

    def plan(lib: ModuleType) -> Callable[[], Any]:
        astar = importlib.import_module(f"{lib.__name__}.planner.astar")
        actions, goal = chain(lib, n)
        return lambda: [a.name for a in astar.plan({}, goal, actions).actions]

    def invoke(lib: ModuleType) -> Callable[[], Any]:
        actions, goal = with_execute(lib, n)
        graph = lib.GoapGraph(actions=actions).compile()
        return lambda: graph.invoke({"goal": goal, "world_state": {}})["world_state"]

    return {"plan": plan, "invoke": invoke}


def timed(call: Callable[[], Any]) -> float:
    """Seconds one call takes."""
    t0 = time.perf_counter()
    call()
    return time.perf_counter() - t0


def main(argv: list[str]) -> int:
    """Print the median time of each row on both libraries and their ratio."""
    parser = argparse.ArgumentParser(prog="python -m bench compat")
    parser.add_argument("--actions", type=int, default=8, help="chain length (default 8)")
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds per side (default 15)")
    args = parser.parse_args(argv)
    logging.getLogger("langgoap").setLevel(logging.ERROR)
    libs = {name: importlib.import_module(name) for name in ("langgoap", "goap.compat")}
    print(f"{'row':8} {'langgoap ms':>12} {'goap.compat ms':>15} {'ratio':>7}")
    for row, build in cases(args.actions).items():
        calls = {name: build(lib) for name, lib in libs.items()}
        results = {name: call() for name, call in calls.items()}
        if results["langgoap"] != results["goap.compat"]:
            print(f"{row}: results differ: {results}")
            return 1
        times: dict[str, list[float]] = {name: [] for name in libs}
        for _ in range(args.rounds):
            for name, call in calls.items():
                times[name].append(timed(call))
        theirs, ours = (statistics.median(times[n]) * 1000 for n in ("langgoap", "goap.compat"))
        print(f"{row:8} {theirs:12.2f} {ours:15.2f} {ours / theirs:7.2f}")
    return 0
