"""LangGraph adapter benchmarks: the adapted graph's step rate, and `GraphEngineSaver`'s cost per step.

``python -m bench.langgraph_adapter [--steps N] [--repeat R] [--grow-steps N]`` prints two tables:

1. `adapter_rows`: the 2-node loop of ``bench/engine.py`` (``inc`` async, ``check`` sync) run
   (a) natively on `Engine` + `MemoryStore`, (b) as ``to_langgraph(engine)`` with ``ainvoke``
   and no checkpointer, and (c) as the hand-written LangGraph graph of ``bench/engine.py``.
   Steps/s are engine steps (one node execution each); median of ``repeat`` fresh runs.
2. `saver_rows`: a LangGraph graph whose state grows by one 100-byte list item per step next to
   an unchanged 10 kB field, run ``grow_steps`` steps with ``durability="sync"`` on
   `AsyncSqliteSaver` and on `GraphEngineSaver` over `SQLiteCheckpointTable` (and over
   `MemoryCheckpointTable`, time only). µs per step is wall time over steps; bytes per step
   is the SQLite file (after ``wal_checkpoint(TRUNCATE)`` and ``VACUUM``) over steps.

3. `from_rows`: LangGraph graphs run by LangGraph and by the engine through `from_langgraph`,
   µs per superstep (median of ``repeat`` fresh runs, side by side in one process): a counter
   loop of ``from_steps`` supersteps (one task each) and a map-reduce loop (four `Send` tasks
   and a join per round), on `InMemorySaver` vs `MemoryStore` and on `AsyncSqliteSaver` vs
   `SQLiteStore` (LangGraph with ``durability="sync"``, as the engine commits every step).
   ``--heldout`` measures three graphs of ``tests/lg_corpus_combined.py`` (`COMBINED`) instead,
   µs per LangGraph superstep of one run each.

`adapter_rows` is the row ``python -m bench engine`` can add ("ours via to_langgraph").
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from typing_extensions import TypedDict

from bench.engine import (
    Counter,
    _lg_config,
    growing_graph,
    langgraph_loop,
    measure_file,
    our_engine,
    target_of,
)
from graphengine.store import MemoryStore

BLOB_BYTES = 10_000
"""Size of the unchanged field of the growing state."""


@dataclass(frozen=True, slots=True)
class Rate:
    """One variant of the loop: median µs per step and steps per second."""

    label: str
    steps: int
    us_per_step: float

    @property
    def steps_per_s(self) -> float:
        """Steps per second."""
        return 1e6 / self.us_per_step


async def _median(run: Callable[[], Awaitable[float]], repeat: int) -> float:
    return statistics.median([await run() for _ in range(repeat)])


async def adapter_rows(steps: int = 2000, repeat: int = 5) -> list[Rate]:
    """Steps/s of the 2-node loop: native engine, the same engine through `to_langgraph`, hand-written LangGraph."""
    from graphengine.adapters.langgraph import to_langgraph

    target = target_of(steps)

    async def native() -> float:
        g = our_engine(MemoryStore(), steps)
        t0 = time.perf_counter()
        final = await g.run("bench", Counter())
        dt = time.perf_counter() - t0
        assert final.n == target
        return dt * 1e6 / steps

    async def adapted() -> float:
        app = to_langgraph(our_engine(MemoryStore(), steps))
        t0 = time.perf_counter()
        out = await app.ainvoke(Counter())
        dt = time.perf_counter() - t0
        assert out["n"] == target
        return dt * 1e6 / steps

    async def hand_written() -> float:
        app = langgraph_loop(steps)
        t0 = time.perf_counter()
        out = await app.ainvoke({"n": 0}, _lg_config(steps))
        dt = time.perf_counter() - t0
        assert out["n"] == target
        return dt * 1e6 / steps

    return [
        Rate("ours: Engine + MemoryStore", steps, await _median(native, repeat)),
        Rate("ours via to_langgraph (ainvoke, no checkpointer)", steps, await _median(adapted, repeat)),
        Rate("LangGraph StateGraph (ainvoke, no checkpointer)", steps, await _median(hand_written, repeat)),
    ]


@dataclass(frozen=True, slots=True)
class SaverCost:
    """One checkpointer on the growing-state run."""

    label: str
    steps: int
    us_per_step: float
    bytes_per_step: float | None
    """File bytes over steps (None for an in-memory table)."""


async def _grow_run(steps: int, saver: Any) -> float:
    app = growing_graph(steps, saver)
    t0 = time.perf_counter()
    out = await app.ainvoke(
        {"items": [], "blob": "b" * BLOB_BYTES},
        {"configurable": {"thread_id": "bench"}, "recursion_limit": steps + 10},
        durability="sync",
    )
    dt = time.perf_counter() - t0
    assert len(out["items"]) == steps
    return dt * 1e6 / steps


async def saver_rows(grow_steps: int = 1000, tmp: Path | None = None) -> list[SaverCost]:
    """µs and bytes per step of `AsyncSqliteSaver` and `GraphEngineSaver` on the growing state."""
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from graphengine.adapters.langgraph_saver import GraphEngineSaver
    from graphengine.adapters.langgraph_tables import MemoryCheckpointTable, SQLiteCheckpointTable

    with tempfile.TemporaryDirectory() as d:
        base = tmp or Path(d)
        out: list[SaverCost] = []
        p1 = base / "lg.db"
        async with AsyncSqliteSaver.from_conn_string(str(p1)) as saver:
            us = await _grow_run(grow_steps, saver)
        size, _, _ = measure_file(p1, {})
        out.append(SaverCost("LangGraph AsyncSqliteSaver", grow_steps, us, size / grow_steps))
        p2 = base / "ours.db"
        async with SQLiteCheckpointTable(p2) as table:
            us = await _grow_run(grow_steps, GraphEngineSaver(table))
        size, _, _ = measure_file(p2, {})
        out.append(SaverCost("GraphEngineSaver(SQLiteCheckpointTable)", grow_steps, us, size / grow_steps))
        us = await _grow_run(grow_steps, GraphEngineSaver(MemoryCheckpointTable()))
        out.append(SaverCost("GraphEngineSaver(MemoryCheckpointTable)", grow_steps, us, None))
        return out


class Loop(TypedDict):
    """The counter loop's state."""

    n: int


class Rounds(TypedDict):
    """The map-reduce loop's state: rounds done, and what the tasks of the rounds returned."""

    rounds: int
    got: Annotated[list[int], lambda a, b: [*a, *b]]


def _counter_loop(steps: int) -> Any:
    from langgraph.graph import END, START, StateGraph

    b: Any = StateGraph(Loop)
    b.add_node("inc", lambda s: {"n": s["n"] + 1})
    b.add_edge(START, "inc")
    b.add_conditional_edges("inc", lambda s: END if s["n"] >= steps else "inc")
    return b


def _map_reduce_loop(rounds: int) -> Any:
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Send

    b: Any = StateGraph(Rounds)
    b.add_node("plan", lambda s: {})
    b.add_node("work", lambda s: {"got": [s["i"]]})
    b.add_node("join", lambda s: {"rounds": s["rounds"] + 1})
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", lambda s: [Send("work", {"i": i}) for i in range(4)], ["work"])
    b.add_edge("work", "join")
    b.add_conditional_edges("join", lambda s: END if s["rounds"] >= rounds else "plan")
    return b


HELD_OUT = ("fan_out_of_250_sends", "map_reduce_inside_a_schema_subgraph", "deferred_join_after_sends")
"""The graphs of the held-out set (`tests/lg_corpus_combined.py`) `--heldout` measures."""


def heldout_graphs() -> dict[str, tuple[Any, Any, int]]:
    """`HELD_OUT` graphs with their first input and LangGraph's superstep count (checkpoints after the input's)."""
    from langgraph.checkpoint.memory import InMemorySaver

    tests = str(Path(__file__).resolve().parents[1] / "tests")
    if tests not in sys.path:
        sys.path.append(tests)
    from lg_corpus_combined import COMBINED as CASES

    out: dict[str, tuple[Any, Any, int]] = {}
    for name in HELD_OUT:
        case = CASES[name]
        initial = case.script[0][1]
        app = case.make().compile(checkpointer=InMemorySaver())
        config: Any = {"configurable": {"thread_id": "count"}}
        app.invoke(initial, config)
        out[name] = (case.make(), initial, len(list(app.get_state_history(config))) - 1)
    return out


async def from_rows(
    steps: int = 300, repeat: int = 5, graphs: dict[str, tuple[Any, Any, int]] | None = None
) -> list[Rate]:
    """µs per superstep of LangGraph graphs, natively and through `from_langgraph`, per store.

    `graphs` (name -> builder, input, supersteps) replaces the counter and map-reduce loops.
    """
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from graphengine.adapters.langgraph import from_langgraph
    from graphengine.options import Options
    from graphengine.store import SQLiteStore

    rounds = max(1, steps // 3)  # plan, work, join: three supersteps a round
    if graphs is None:
        graphs = {
            "loop": (_counter_loop(steps), {"n": 0}, steps + 1),
            "map-reduce x4": (_map_reduce_loop(rounds), {"rounds": 0, "got": []}, 3 * rounds + 1),
        }
    out: list[Rate] = []
    with tempfile.TemporaryDirectory() as d:
        runs = iter(range(10**9))

        async def native(builder: Any, initial: Any, supersteps: int, store: str) -> float:
            config: Any = {"configurable": {"thread_id": "bench"}, "recursion_limit": supersteps + 10}
            if store == "sqlite":
                async with AsyncSqliteSaver.from_conn_string(str(Path(d) / f"lg{next(runs)}.db")) as saver:
                    app = builder.compile(checkpointer=saver)
                    t0 = time.perf_counter()
                    await app.ainvoke(initial, config, durability="sync")
                    return (time.perf_counter() - t0) * 1e6 / supersteps
            app = builder.compile(checkpointer=InMemorySaver() if store == "memory" else None)
            t0 = time.perf_counter()
            await app.ainvoke(initial, config, durability="sync" if store == "memory" else None)
            return (time.perf_counter() - t0) * 1e6 / supersteps

        async def ours(builder: Any, initial: Any, supersteps: int, store: str) -> float:
            st: Any = SQLiteStore(Path(d) / f"ours{next(runs)}.db") if store == "sqlite" else MemoryStore()
            g = from_langgraph(builder, store=st, options=Options(max_steps=supersteps + 10))
            t0 = time.perf_counter()
            await g.run("bench", initial)
            dt = time.perf_counter() - t0
            await st.close()
            return dt * 1e6 / supersteps

        for name, (builder, initial, supersteps) in graphs.items():

            def lg_run(store: str, b: Any = builder, i: Any = initial, n: int = supersteps) -> Any:
                return lambda: native(b, i, n, store)

            def our_run(store: str, b: Any = builder, i: Any = initial, n: int = supersteps) -> Any:
                return lambda: ours(b, i, n, store)

            out.append(
                Rate(f"{name}: LangGraph, no checkpointer", supersteps, await _median(lg_run("none"), repeat))
            )
            for store, saver in (("memory", "InMemorySaver"), ("sqlite", "AsyncSqliteSaver")):
                lg = await _median(lg_run(store), repeat)
                us = await _median(our_run(store), repeat)
                out.append(Rate(f"{name}: LangGraph + {saver}", supersteps, lg))
                out.append(Rate(f"{name}: from_langgraph + {store} store", supersteps, us))
    return out


def render_from(rates: list[Rate]) -> str:
    """The `from_rows` table as text."""
    lines = [f"{'LangGraph graphs (per superstep)':55} {'steps':>6} {'µs/step':>9} {'steps/s':>9}"]
    lines += [f"{r.label:55} {r.steps:>6} {r.us_per_step:>9.1f} {r.steps_per_s:>9.0f}" for r in rates]
    return "\n".join(lines)


def render(rates: list[Rate], costs: list[SaverCost]) -> str:
    """Both tables as text."""
    lines = [f"{'2-node loop':55} {'steps':>6} {'µs/step':>9} {'steps/s':>9}"]
    lines += [f"{r.label:55} {r.steps:>6} {r.us_per_step:>9.1f} {r.steps_per_s:>9.0f}" for r in rates]
    lines += [
        "",
        f"{'growing state (+100 B/step, 10 kB unchanged)':55} {'steps':>6} {'µs/step':>9} {'B/step':>9}",
    ]
    for c in costs:
        b = f"{c.bytes_per_step:>9.0f}" if c.bytes_per_step is not None else f"{'-':>9}"
        lines.append(f"{c.label:55} {c.steps:>6} {c.us_per_step:>9.1f} {b}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run both measurements and print the tables."""
    ap = argparse.ArgumentParser(prog="python -m bench.langgraph_adapter", description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--grow-steps", type=int, default=1000)
    ap.add_argument("--from-steps", type=int, default=300, help="supersteps of the from_langgraph graphs")
    ap.add_argument("--only-from", action="store_true", help="print only the from_langgraph table")
    ap.add_argument(
        "--heldout", action="store_true", help="from_langgraph table on held-out graphs (HELD_OUT)"
    )
    a = ap.parse_args(argv)

    async def go() -> str:
        graphs = heldout_graphs() if a.heldout else None
        table = render_from(await from_rows(a.from_steps, a.repeat, graphs))
        if a.only_from or a.heldout:
            return table
        return render(await adapter_rows(a.steps, a.repeat), await saver_rows(a.grow_steps)) + "\n\n" + table

    print(asyncio.run(go()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
