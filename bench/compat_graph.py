"""LangGOAP drop-in run speed: ``python -m bench compat-graph [--repeat N]``.

The same GOAP runs (plan, act, observe until the goal holds) in five ways:

- ``langgoap``: langgoap 0.1.2's ``GoapGraph(actions).compile().invoke(...)`` (its LangGraph graph);
- ``lg-built``: the graph :mod:`goap.compat` built before it ran on the engine: a LangGraph
  ``StateGraph(GoapState)`` of the compat planner, executor and observer nodes
  (``RunnableLambda(__call__, acall)``), rebuilt here as it was;
- ``compat``: ``goap.compat.GoapGraph(actions).compile().invoke(...)``: the engine's nodes in
  LangGraph through ``to_langgraph``;
- ``engine-mem``: ``GoapGraph(actions).engine().run(...)`` on the engine's ``MemoryStore``;
- ``engine-sqlite``: the same on a ``SQLiteStore`` file (every step committed).

Problems: ``chain-n`` (``n`` actions, each enabling the next; declared effects, no callables) and
``flaky-n`` (``n`` levels of two alternatives whose cheaper one raises on its first call, so each
level fails once, is blacklisted and replanned).

Timing: graphs are compiled (engines built) once per problem; each timed call is one run from
the initial state. The sides run in rotating order in each round; the figure is the median over
``--repeat`` rounds, in ms, and the ratio is each side's median over ``lg-built``'s.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any


def actions_for(lib: ModuleType, family: str, n: int) -> tuple[list[Any], Any, dict[str, Any]]:
    """The problem's actions, goal and start state built with ``lib`` (langgoap or goap.compat)."""
    acts: list[Any] = []
    if family == "chain":
        for i in range(n):
            acts.append(
                lib.ActionSpec(name=f"a{i}", preconditions={f"f{i}": True}, effects={f"f{i + 1}": True})
            )
    else:
        calls: dict[str, int] = {}

        def flaky(name: str, level: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
            def execute(ws: dict[str, Any]) -> dict[str, Any]:
                calls[name] = calls.get(name, 0) + 1
                if calls[name] == 1:
                    raise RuntimeError(f"{name} failed")
                return {f"f{level + 1}": True}

            return execute

        for i in range(n):
            for j, cost in ((0, 1.0), (1, 3.0)):
                name = f"a{i}_{j}"
                acts.append(
                    lib.ActionSpec(
                        name=name,
                        preconditions={f"f{i}": True},
                        effects={f"f{i + 1}": True},
                        cost=cost,
                        execute=flaky(name, i) if j == 0 else None,
                    )
                )
    goal = lib.GoalSpec(conditions={f"f{n}": True}, policy=lib.GoalPolicy(max_replans=4 * n))
    world = {f"f{i}": i == 0 for i in range(n + 1)}
    return acts, goal, world


def lg_built(acts: list[Any]) -> Any:
    """The LangGraph graph goap.compat built before running on the engine."""
    from langchain_core.runnables import RunnableLambda
    from langgraph.graph import START, StateGraph

    from goap.compat.graph.nodes import GoapExecutor, GoapObserver, GoapPlanner
    from goap.compat.graph.state import GoapState

    b = StateGraph(GoapState)
    nodes = {
        "planner": GoapPlanner(acts),
        "executor": GoapExecutor(actions=acts),
        "observer": GoapObserver(acts),
    }
    for name, node in nodes.items():
        b.add_node(name, RunnableLambda(func=node.__call__, afunc=node.acall))
    b.add_edge(START, "planner")
    b.add_edge("planner", "executor")
    b.add_edge("executor", "observer")
    return b.compile()


def runners(family: str, n: int, db: Path) -> dict[str, Callable[[int], dict[str, Any]]]:
    """Each side's run: a function of a round number returning the final state."""
    import langgoap

    import goap.compat as compat
    from graphengine.store import SQLiteStore

    cfg = {"recursion_limit": 100_000}
    out: dict[str, Callable[[int], dict[str, Any]]] = {}

    def invoker(lib: ModuleType, build: Callable[[list[Any]], Any]) -> Callable[[int], dict[str, Any]]:
        def run(_: int) -> dict[str, Any]:
            # Fresh actions per run: flaky actions count their calls.
            acts, goal, world = actions_for(lib, family, n)
            return dict(build(acts).invoke({"goal": goal, "world_state": world}, cfg))

        return run

    out["langgoap"] = invoker(langgoap, lambda a: langgoap.GoapGraph(actions=a).compile())
    out["lg-built"] = invoker(compat, lg_built)
    out["compat"] = invoker(compat, lambda a: compat.GoapGraph(actions=a).compile())

    def engine_runner(store: Callable[[], Any], tag: str) -> Callable[[int], dict[str, Any]]:
        async def go(i: int) -> dict[str, Any]:
            acts, goal, world = actions_for(compat, family, n)
            engine = compat.GoapGraph(actions=acts).engine(store=store())
            try:
                final: dict[str, Any] = await engine.run(f"{tag}-{i}", {"goal": goal, "world_state": world})
            finally:
                await engine.store.close()
            return final

        def run(i: int) -> dict[str, Any]:
            return asyncio.run(go(i))

        return run

    out["engine-mem"] = engine_runner(lambda: None, "mem")
    out["engine-sqlite"] = engine_runner(lambda: SQLiteStore(str(db)), "sql")
    return out


def main(argv: list[str]) -> int:
    """Time each side on each problem; print the medians and the ratios to ``lg-built``."""
    parser = argparse.ArgumentParser(prog="python -m bench compat-graph")
    parser.add_argument("--repeat", type=int, default=9, help="timed rounds per problem")
    args = parser.parse_args(argv)
    # Both libraries log each failed action at WARNING: the flaky problems would flood the table.
    logging.disable(logging.WARNING)
    problems = [("chain", 5), ("chain", 30), ("flaky", 3), ("flaky", 10)]
    sides = ["langgoap", "lg-built", "compat", "engine-mem", "engine-sqlite"]
    print("times: median ms per run (ratio to lg-built)")
    print(f"{'problem':10}" + "".join(f"{s:>22}" for s in sides))
    with tempfile.TemporaryDirectory(prefix="bench-compat-graph-") as tmp:
        for k, (family, n) in enumerate(problems):
            run = runners(family, n, Path(tmp) / f"runs-{k}.db")
            results = {s: run[s](-1) for s in sides}  # warm-up, and the check below
            ends = {
                s: (r.get("status"), dict(r["world_state"]), len(r["execution_history"]))
                for s, r in results.items()
            }
            times: dict[str, list[float]] = {s: [] for s in sides}
            for rnd in range(args.repeat):
                for s in sides[rnd % len(sides) :] + sides[: rnd % len(sides)]:
                    t0 = time.perf_counter()
                    run[s](rnd)
                    times[s].append((time.perf_counter() - t0) * 1000)
            med = {s: statistics.median(v) for s, v in times.items()}
            cells = "".join(f"{med[s]:>13.2f} ({med[s] / med['lg-built']:4.2f}x)" for s in sides)
            print(f"{family}-{n:<4}" + cells)
            if len(set(map(repr, ends.values()))) != 1:
                print(f"  ends differ: {ends}")
    return 0
