"""``python -m bench engine``: step cost of graphengine against LangGraph and against the floors.

One run prints one table. Every timed variant drives the same 2-node loop: ``inc`` (async) adds 1
to a counter, ``check`` (sync) routes back to ``inc`` until the counter reaches ``steps / 2`` and
then stops, so a run of ``steps`` steps executes ``steps`` nodes. Rows, in two groups:

in memory
    (a) ours: `Engine` on `MemoryStore` (the default reducer, a delta encoded every step);
    (b) LangGraph `StateGraph` compiled without a checkpointer, run with ``ainvoke``;
    (c) the floor: a bare Python loop doing the same work (the same node functions, an ``await``
        and a pydantic ``model_copy(update=...)`` merge per ``inc``).
with a commit per step (all on a real file, WAL journal, ``PRAGMA synchronous=NORMAL``)
    (d) ours: `Engine` on `SQLiteStore` (one ``INSERT`` in autocommit = one thread hop per step);
    (e) LangGraph with ``AsyncSqliteSaver`` and ``durability="sync"`` (each step committed before
        the next starts);
    (f) the floor: raw aiosqlite, the loop of (c) plus one ``INSERT`` and one ``commit()`` per step
        (two thread hops), the row holding what ours holds.

Each row is the median over ``--repeat`` runs of a fresh graph, store and file; setup (compiling
the graph, opening the file, creating the schema) is outside the timing. LangGraph on SQLite is
slow, so it runs ``--slow-steps`` steps; the table reports µs per step, which is what compares.
A diagnostics group splits the SQLite step cost (a bare aiosqlite round trip, the same INSERT
done in-thread with no hop).

fan-out, K map branches + join (``--fanout 100,1000``, ``--skip-fanout``)
    One run is ``split`` -> K map branches of ``work`` (async; each gets its own input, like
    LangGraph's ``Send``, and appends one result) -> ``join``, timed from ``run`` to the final state
    and reported per branch: (g) ours on `MemoryStore`, (h) ours on `SQLiteStore` (every branch
    result persisted, group commit), (i) LangGraph ``Send`` without a checkpointer, (j) LangGraph
    ``Send`` with ``AsyncSqliteSaver`` and ``durability="sync"``, (k) the floor: the same ``work``
    calls under a bare ``asyncio.gather`` and one merge. A fan-out run lasts about a millisecond,
    so each variant runs once untimed right before each of its timed runs (all variants alike).
LangGraph adapter (``--skip-adapter``)
    The loop at ``--slow-steps`` steps through `bench.langgraph_adapter.adapter_rows`: (l) the native
    engine, (m) the same engine compiled by ``to_langgraph``, (n) the hand-written LangGraph graph.

A last section measures bytes stored per step on disk for a state with a
``--blob-bytes`` field that never changes and a list growing by one 100-byte item per step, over
``--grow-steps`` steps and, separately, half as many: the first half is the half run's file over
its steps, the second half the growth of the file between the two runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import operator
import os
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from graphengine import Branch, Context, Engine, NodeResult, Options, append, fan_out, goto, stop
from graphengine.store import MemoryStore, RunRecord, RunStatus, SQLiteStore, StepRecord

SYNCHRONOUS = "NORMAL"
"""``PRAGMA synchronous`` of every SQLite variant (our store's default in WAL mode)."""

ITEM_BYTES = 100
"""Size of the string appended per step in the bytes-per-step measurement."""

BLOB_BYTES = 10_000
"""Default size of the field that never changes in the bytes-per-step measurement."""

FANOUT = (100, 1000)
"""Default branch counts of the fan-out groups."""

# ------------------------------------------------------------------------------- the work


class Counter(BaseModel):
    """The loop's state."""

    n: int = 0


class Growing(BaseModel):
    """A state that grows by one list item per step next to a field that never changes (bytes per step)."""

    items: Annotated[list[str], append] = []
    blob: str = ""
    """Set once, in the initial state."""


class Fan(BaseModel):
    """A fan-out's state: each map branch gets its own ``item`` and appends one result to ``out``."""

    item: int = 0
    # A factory, not `= []`: pydantic deep-copies a mutable default on every construction, which
    # would make building the K branch inputs cost more than running the branches.
    out: Annotated[list[int], append] = Field(default_factory=list)


class LGCounter(TypedDict):
    """LangGraph's state for the loop (a TypedDict: LangGraph's cheapest state type)."""

    n: int


class LGGrowing(TypedDict):
    """LangGraph's growing state; `operator.add` appends, like our `append`."""

    items: Annotated[list[str], operator.add]
    blob: str


class LGFan(TypedDict):
    """LangGraph's fan-out state."""

    item: int
    out: Annotated[list[int], operator.add]


async def inc(ctx: Context, s: Counter) -> NodeResult[Counter]:
    """Add one (async, like a node that awaits I/O)."""
    return NodeResult(delta=Counter(n=s.n + 1))


def make_check(target: int) -> Callable[[Context, Counter], NodeResult[Counter]]:
    """A sync node that loops back to ``inc`` until the counter reaches ``target``."""

    def check(ctx: Context, s: Counter) -> NodeResult[Counter]:
        return NodeResult(route=stop()) if s.n >= target else NodeResult(route=goto("inc"))

    return check


def item(i: int) -> str:
    """The ``i``-th appended string, exactly `ITEM_BYTES` long and distinct from the others."""
    return f"{i:08d}".ljust(ITEM_BYTES, "x")[: max(ITEM_BYTES, 8)]


def target_of(steps: int) -> int:
    """Final counter value of a run of ``steps`` steps (half of them are ``inc``)."""
    return steps // 2


async def work(ctx: Context, s: Fan) -> NodeResult[Fan]:
    """A trivial map branch (async): append twice its item."""
    return NodeResult(delta=Fan(out=[s.item * 2]))


def checksum_of(k: int) -> int:
    """``sum(out)`` after a fan-out of ``k`` branches: every branch landed exactly once."""
    return k * (k - 1)


# ------------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class Timed:
    """One timed run: wall seconds, the final counter it reached, and the CPU seconds it used."""

    seconds: float
    final: int
    cpu: float | None = None
    """Process CPU seconds (every thread: aiosqlite's and LangGraph's executors too); None: not measured."""


def _clock() -> tuple[float, float]:
    """Start a timing: (wall, process CPU)."""
    return time.perf_counter(), time.process_time()


def _since(t0: tuple[float, float], final: int) -> Timed:
    """The `Timed` of a run started at ``t0`` that reached ``final``."""
    return Timed(time.perf_counter() - t0[0], final, time.process_time() - t0[1])


@dataclass(slots=True)
class Row:
    """One variant's repetitions."""

    key: str
    """Short id: a..n (fan-out rows end in their K), or a diagnostic name."""
    label: str
    group: str
    steps: int
    """Steps per run (branches per fan-out for ``unit="branch"``)."""
    ref: str = ""
    """Key of the row the ratio column compares this one with ("": none)."""
    unit: str = "step"
    """What ``us_per_step`` is per: a step, or a fan-out branch."""
    expect: int | None = None
    """The final value every run must reach (None: the variant checks itself)."""
    us_per_step: list[float] = field(default_factory=list)
    cpu_us_per_step: list[float] = field(default_factory=list)
    """Process CPU µs per step of each repetition (the machine's load inflates wall time, this less)."""
    finals: list[int] = field(default_factory=list)
    error: str = ""

    @property
    def median_us(self) -> float | None:
        """Median µs per step over the repetitions (None when the variant failed)."""
        return statistics.median(self.us_per_step) if self.us_per_step and not self.error else None

    @property
    def median_cpu_us(self) -> float | None:
        """Median process CPU µs per step (None when not measured)."""
        c = self.cpu_us_per_step
        return statistics.median(c) if c and not self.error else None


Variant = Callable[[int, Path], Awaitable[Timed]]
"""``(steps, fresh temporary directory) -> Timed``."""


# ------------------------------------------------------------------------------- (a) (d) ours


def our_engine(store: Any, steps: int) -> Engine[Counter]:
    """The loop on our engine, validated (compiled) before the timing starts."""
    g = Engine(Counter, store=store, options=Options(max_steps=steps))
    g.add("inc", inc).add("check", make_check(target_of(steps)))
    g.start_at("inc").connect("inc", "check")
    g.validate()
    return g


async def ours_memory(steps: int, tmp: Path) -> Timed:
    """(a) Our engine on `MemoryStore`."""
    g = our_engine(MemoryStore(), steps)
    t0 = _clock()
    final = await g.run("bench", Counter())
    return _since(t0, final.n)


async def ours_sqlite(steps: int, tmp: Path) -> Timed:
    """(d) Our engine on `SQLiteStore` (WAL, synchronous=NORMAL, one autocommit INSERT per step)."""
    async with SQLiteStore(tmp / "ours.db", synchronous=SYNCHRONOUS) as store:
        g = our_engine(store, steps)
        t0 = _clock()
        final = await g.run("bench", Counter())
        return _since(t0, final.n)


# ------------------------------------------------------------------------------- (b) (e) LangGraph


def langgraph_loop(steps: int, checkpointer: Any = None) -> Any:
    """The loop as a LangGraph `StateGraph` (async ``inc``, sync ``check``, a conditional edge)."""
    from langgraph.graph import END, START, StateGraph

    target = target_of(steps)

    async def lg_inc(s: LGCounter) -> dict[str, int]:
        return {"n": s["n"] + 1}

    def lg_check(s: LGCounter) -> dict[str, int]:
        return {}

    def route(s: LGCounter) -> str:
        return END if s["n"] >= target else "inc"

    b: Any = StateGraph(LGCounter)
    b.add_node("inc", lg_inc)
    b.add_node("check", lg_check)
    b.add_edge(START, "inc")
    b.add_edge("inc", "check")
    b.add_conditional_edges("check", route, {"inc": "inc", END: END})
    return b.compile(checkpointer=checkpointer)


def _lg_config(steps: int, thread: str | None = None) -> dict[str, Any]:
    cfg: dict[str, Any] = {"recursion_limit": steps + 10}
    if thread is not None:
        cfg["configurable"] = {"thread_id": thread}
    return cfg


async def langgraph_memory(steps: int, tmp: Path) -> Timed:
    """(b) LangGraph ``ainvoke`` without a checkpointer."""
    app = langgraph_loop(steps)
    t0 = _clock()
    out = await app.ainvoke({"n": 0}, _lg_config(steps))
    return _since(t0, out["n"])


async def open_langgraph_saver(path: Path) -> tuple[Any, Any]:
    """An `AsyncSqliteSaver` on ``path`` with WAL and `SYNCHRONOUS`, tables created; (saver, conn)."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    conn = await aiosqlite.connect(path)
    await conn.execute("PRAGMA journal_mode=WAL")
    await conn.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
    saver = AsyncSqliteSaver(conn)
    await saver.setup()
    return saver, conn


async def langgraph_sqlite(steps: int, tmp: Path) -> Timed:
    """(e) LangGraph with `AsyncSqliteSaver`, ``durability="sync"``."""
    saver, conn = await open_langgraph_saver(tmp / "langgraph.db")
    try:
        app = langgraph_loop(steps, saver)
        t0 = _clock()
        out = await app.ainvoke({"n": 0}, _lg_config(steps, "bench"), durability="sync")
        return _since(t0, out["n"])
    finally:
        await conn.close()


# ------------------------------------------------------------------------------- (c) (f) floors

_FLOOR_SCHEMA = """CREATE TABLE steps (
    run_id TEXT NOT NULL, step INTEGER NOT NULL, node_id TEXT NOT NULL,
    delta BLOB, route TEXT NOT NULL, ts REAL NOT NULL, PRIMARY KEY (run_id, step))"""
_FLOOR_INSERT = "INSERT INTO steps VALUES (?, ?, ?, ?, ?, ?)"
_ROUTE_INC = '{"goto":"inc"}'
_ROUTE_CHECK = '{"goto":"check"}'
_ROUTE_STOP = '{"stop":true}'


async def raw_memory(steps: int, tmp: Path) -> Timed:
    """(c) The floor: the same node calls and a pydantic merge in a bare loop."""
    check = make_check(target_of(steps))
    t0 = _clock()
    s = Counter()
    ctx = Context("raw", 0, "inc")
    while True:
        d = (await inc(ctx, s)).delta
        assert d is not None
        s = s.model_copy(update={"n": d.n})
        if check(ctx, s).route == stop():
            break
    return _since(t0, s.n)


async def open_floor_db(path: Path) -> Any:
    """A raw aiosqlite connection (default deferred transactions), WAL, `SYNCHRONOUS`, one table."""
    import aiosqlite

    conn = await aiosqlite.connect(path)
    await conn.execute("PRAGMA journal_mode=WAL")
    await conn.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
    await conn.execute(_FLOOR_SCHEMA)
    await conn.commit()
    return conn


async def raw_aiosqlite(steps: int, tmp: Path) -> Timed:
    """(f) The floor with persistence: (c) plus INSERT + commit() per step (two thread hops)."""
    check = make_check(target_of(steps))
    conn = await open_floor_db(tmp / "floor.db")
    try:
        t0 = _clock()
        s = Counter()
        ctx = Context("raw", 0, "inc")
        step = 0
        while True:
            d = (await inc(ctx, s)).delta
            assert d is not None
            s = s.model_copy(update={"n": d.n})
            step += 1
            await conn.execute(
                _FLOOR_INSERT, ("raw", step, "inc", d.model_dump_json().encode(), _ROUTE_CHECK, time.time())
            )
            await conn.commit()
            route = check(ctx, s).route
            step += 1
            done = route == stop()
            await conn.execute(
                _FLOOR_INSERT,
                ("raw", step, "check", None, _ROUTE_STOP if done else _ROUTE_INC, time.time()),
            )
            await conn.commit()
            if done:
                break
        return _since(t0, s.n)
    finally:
        await conn.close()


# ------------------------------------------------------------------------------- where SQLite time goes


async def hop_select1(steps: int, tmp: Path) -> Timed:
    """One aiosqlite round trip doing (almost) nothing: ``SELECT 1`` per step (the hop cost)."""
    conn = await open_floor_db(tmp / "hop.db")
    try:
        t0 = _clock()
        for _ in range(steps):
            await conn.execute("SELECT 1")
        return _since(t0, target_of(steps))
    finally:
        await conn.close()


async def save_step_alone(steps: int, tmp: Path) -> Timed:
    """Our `SQLiteStore.save_step` in a bare loop: one hop and our INSERT, no engine around it."""
    async with SQLiteStore(tmp / "save.db", synchronous=SYNCHRONOUS) as store:
        await store.create_run(RunRecord(run_id="bench", status=RunStatus.RUNNING, initial=b"{}"))
        delta = Counter(n=1).model_dump_json(exclude_unset=True).encode()
        t0 = _clock()
        for step in range(1, steps + 1):
            await store.save_step(
                StepRecord(
                    run_id="bench",
                    step=step,
                    node_id="inc",
                    delta=delta,
                    route=_ROUTE_CHECK,
                    state=None,
                    ts=time.time(),
                )
            )
        return _since(t0, target_of(steps))


def inline_insert(steps: int, tmp: Path) -> Awaitable[Timed]:
    """The floor's INSERT with autocommit on plain sqlite3 in the loop's own thread: what a
    committed step row costs SQLite here, with no thread hop."""
    conn = sqlite3.connect(tmp / "inline.db", isolation_level=None)

    async def timed() -> Timed:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
            conn.execute(_FLOOR_SCHEMA)
            delta = Counter(n=1).model_dump_json().encode()
            t0 = _clock()
            for step in range(1, steps + 1):
                conn.execute(_FLOOR_INSERT, ("raw", step, "inc", delta, _ROUTE_CHECK, time.time()))
            return _since(t0, target_of(steps))
        finally:
            conn.close()

    return timed()


# ------------------------------------------------------------------------------- (g)-(k) fan-out


def our_fan_engine(store: Any, k: int) -> Engine[Fan]:
    """``split`` -> ``k`` map branches of `work` -> ``join`` on our engine, validated before timing."""

    def split(ctx: Context, s: Fan) -> NodeResult[Fan]:
        return NodeResult(route=fan_out((Branch("work", Fan(item=i)) for i in range(k)), join="join"))

    def join(ctx: Context, s: Fan) -> NodeResult[Fan]:
        return NodeResult(route=stop())

    g = Engine(Fan, store=store, options=Options(max_steps=10))
    g.add("split", split).add("work", work).add("join", join).start_at("split")
    g.validate()
    return g


async def _fan_run(g: Engine[Fan], k: int) -> Timed:
    t0 = _clock()
    final = await g.run("bench", Fan())
    t = _since(t0, sum(final.out))
    if final.out != [2 * i for i in range(k)]:  # merged in declared branch order
        raise AssertionError(f"fan-out results out of order or missing: {final.out[:10]}...")
    return t


async def ours_fan_memory(k: int, tmp: Path) -> Timed:
    """(g) Our fan-out on `MemoryStore`."""
    return await _fan_run(our_fan_engine(MemoryStore(), k), k)


async def ours_fan_sqlite(k: int, tmp: Path) -> Timed:
    """(h) Our fan-out on `SQLiteStore`: every branch result is persisted (group commit) before the join."""
    async with SQLiteStore(tmp / "fan.db", synchronous=SYNCHRONOUS) as store:
        return await _fan_run(our_fan_engine(store, k), k)


def langgraph_fan(k: int, checkpointer: Any = None) -> Any:
    """The fan-out as a LangGraph graph: ``split`` sends ``k`` `Send("work", ...)`, then ``join``."""
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Send

    def split(s: LGFan) -> dict[str, Any]:
        return {}

    def send(s: LGFan) -> list[Any]:
        return [Send("work", {"item": i, "out": []}) for i in range(k)]

    async def lg_work(s: LGFan) -> dict[str, list[int]]:
        return {"out": [s["item"] * 2]}

    def join(s: LGFan) -> dict[str, Any]:
        return {}

    b: Any = StateGraph(LGFan)
    b.add_node("split", split)
    b.add_node("work", lg_work)
    b.add_node("join", join)
    b.add_edge(START, "split")
    b.add_conditional_edges("split", send, ["work"])
    b.add_edge("work", "join")
    b.add_edge("join", END)
    return b.compile(checkpointer=checkpointer)


async def langgraph_fan_memory(k: int, tmp: Path) -> Timed:
    """(i) LangGraph ``Send`` fan-out, no checkpointer."""
    app = langgraph_fan(k)
    t0 = _clock()
    out = await app.ainvoke({"item": 0, "out": []})
    return _since(t0, sum(out["out"]))


async def langgraph_fan_sqlite(k: int, tmp: Path) -> Timed:
    """(j) LangGraph ``Send`` fan-out with `AsyncSqliteSaver`, ``durability="sync"``."""
    saver, conn = await open_langgraph_saver(tmp / "langgraph-fan.db")
    try:
        app = langgraph_fan(k, saver)
        t0 = _clock()
        out = await app.ainvoke({"item": 0, "out": []}, _lg_config(10, "bench"), durability="sync")
        return _since(t0, sum(out["out"]))
    finally:
        await conn.close()


async def gather_fan(k: int, tmp: Path) -> Timed:
    """(k) The floor: build the inputs, ``asyncio.gather`` the same `work` calls, merge once."""
    t0 = _clock()
    ctx = Context("raw", 1, "work")
    results = await asyncio.gather(*(work(ctx, Fan(item=i)) for i in range(k)))
    out: list[int] = []
    for r in results:
        assert r.delta is not None
        out += r.delta.out
    final = Fan().model_copy(update={"out": out})
    return _since(t0, sum(final.out))


# ------------------------------------------------------------------------------- bytes per step


@dataclass(frozen=True, slots=True)
class Stored:
    """What one persisted run of the growing state left in its SQLite file."""

    label: str
    steps: int
    file_bytes: int
    """Size of the database file after ``wal_checkpoint(TRUNCATE)`` and ``VACUUM``."""
    payload_bytes: int
    """Sum of ``payload`` over all b-trees (tables and indexes) in the ``dbstat`` table."""
    parts: dict[str, int]
    """Bytes of the main columns (``sum(length(col))``), to show where the bytes are."""
    final_items: int
    half_file_bytes: int = 0
    """File bytes of the same run stopped at ``steps // 2`` (a separate run; 0: not measured)."""
    empty_file_bytes: int = 0
    """File bytes of the same store holding its schema and no run."""

    @property
    def halves(self) -> tuple[float, float] | None:
        """(B/step over the first half, B/step over the second half), from the half and full runs.

        The first half leaves out the empty schema's pages, which no step added.
        """
        h = self.steps // 2
        if not self.half_file_bytes or h == 0:
            return None
        first = (self.half_file_bytes - self.empty_file_bytes) / h
        return first, (self.file_bytes - self.half_file_bytes) / (self.steps - h)


def measure_file(path: Path, parts_sql: dict[str, str]) -> tuple[int, int, dict[str, int]]:
    """Checkpoint and vacuum ``path``, then return (file bytes, dbstat payload bytes, named sums)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        payload = conn.execute("SELECT sum(payload) FROM dbstat").fetchone()[0] or 0
        parts = {name: int(conn.execute(sql).fetchone()[0] or 0) for name, sql in parts_sql.items()}
    finally:
        conn.close()
    wal = Path(f"{path}-wal")
    size = path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
    return size, int(payload), parts


async def ours_growing(
    steps: int, tmp: Path, snapshot_every: int | None = None, blob: int = BLOB_BYTES
) -> Stored:
    """Our engine on SQLite, one node appending one item per step next to a ``blob``-byte field."""
    path = tmp / "ours-grow.db"
    # None: the engine's default snapshot policy. Else a snapshot every `snapshot_every` steps and
    # at the end only, with the size trigger (snapshot_ratio) switched off.
    opts = (
        Options(max_steps=steps)
        if snapshot_every is None
        else Options(max_steps=steps, snapshot_every=snapshot_every, snapshot_ratio=1e12)
    )

    def add(ctx: Context, s: Growing) -> NodeResult[Growing]:
        n = len(s.items) + 1
        return NodeResult(delta=Growing(items=[item(n)]), route=stop() if n >= steps else goto("add"))

    async with SQLiteStore(path, synchronous=SYNCHRONOUS) as store:
        g = Engine(Growing, store=store, options=opts)
        g.add("add", add).start_at("add")
        final = await g.run("bench", Growing(blob="b" * blob))
    file_bytes, payload, parts = measure_file(
        path,
        {
            "deltas": "SELECT sum(length(delta)) FROM steps",
            "snapshots": "SELECT sum(length(state)) FROM steps WHERE step < (SELECT max(step) FROM steps)",
            "final snapshot": "SELECT length(state) FROM steps ORDER BY step DESC LIMIT 1",
        },
    )
    if snapshot_every is None:
        label = (
            f"ours, SQLiteStore, default snapshots (deltas > {opts.snapshot_ratio:g}x last, "
            f"every {opts.snapshot_every}, end)"
        )
    else:
        label = f"ours, SQLiteStore, snapshot only every {snapshot_every} steps and at the end"
    return Stored(label, steps, file_bytes, payload, parts, len(final.items))


async def empty_file(kind: str, tmp: Path) -> int:
    """File bytes of a store of ``kind`` ("ours" or "langgraph") with its schema and nothing else."""
    path = tmp / f"{kind}-empty.db"
    if kind == "langgraph":
        _, conn = await open_langgraph_saver(path)
        await conn.close()
    else:
        async with SQLiteStore(path, synchronous=SYNCHRONOUS):
            pass
    return measure_file(path, {})[0]


def growing_graph(steps: int, checkpointer: Any) -> Any:
    """LangGraph's growing-state graph, compiled with ``checkpointer``: one node appending one item per
    step until there are ``steps``."""
    from langgraph.graph import END, START, StateGraph

    def add(s: LGGrowing) -> dict[str, list[str]]:
        return {"items": [item(len(s["items"]) + 1)]}

    def route(s: LGGrowing) -> str:
        return END if len(s["items"]) >= steps else "add"

    b: Any = StateGraph(LGGrowing)
    b.add_node("add", add)
    b.add_edge(START, "add")
    b.add_conditional_edges("add", route, {"add": "add", END: END})
    return b.compile(checkpointer=checkpointer)


async def langgraph_growing(steps: int, tmp: Path, blob: int = BLOB_BYTES) -> Stored:
    """LangGraph with `AsyncSqliteSaver`, one node appending one item per step next to a ``blob``-byte field."""
    path = tmp / "langgraph-grow.db"
    saver, conn = await open_langgraph_saver(path)
    try:
        app = growing_graph(steps, saver)
        out = await app.ainvoke(
            {"items": [], "blob": "b" * blob}, _lg_config(steps, "bench"), durability="sync"
        )
    finally:
        await conn.close()
    file_bytes, payload, parts = measure_file(
        path,
        {
            "checkpoints": "SELECT sum(length(checkpoint)) FROM checkpoints",
            "writes": "SELECT sum(length(value)) FROM writes",
        },
    )
    return Stored("LangGraph, AsyncSqliteSaver", steps, file_bytes, payload, parts, len(out["items"]))


# ------------------------------------------------------------------------------- driver


@dataclass(frozen=True, slots=True)
class Spec:
    """A timed variant and where it goes in the table."""

    key: str
    label: str
    group: str
    fn: Variant
    slow: bool = False
    """Runs `--slow-steps` steps instead of `--steps`."""
    ref: str = ""
    """Key of the row the ratio column compares this one with."""


MEMORY = "in memory"
SQLITE = f"SQLite file, commit per step (WAL, synchronous={SYNCHRONOUS})"
HOPS = "where a SQLite step goes (diagnostics)"
ADAPTER = "LangGraph adapter: the loop through to_langgraph, no checkpointer"

SPECS: tuple[Spec, ...] = (
    Spec("a", "ours: Engine + MemoryStore", MEMORY, ours_memory),
    Spec("b", "LangGraph StateGraph.ainvoke, no checkpointer", MEMORY, langgraph_memory, ref="a"),
    Spec("c", "floor: raw loop (await + pydantic merge)", MEMORY, raw_memory, ref="a"),
    Spec("d", "ours: Engine + SQLiteStore", SQLITE, ours_sqlite),
    Spec(
        "e", 'LangGraph + AsyncSqliteSaver, durability="sync"', SQLITE, langgraph_sqlite, slow=True, ref="d"
    ),
    Spec("f", "floor: raw aiosqlite INSERT + commit per step", SQLITE, raw_aiosqlite, ref="d"),
    Spec("hop", "aiosqlite round trip, SELECT 1 (one hop)", HOPS, hop_select1),
    Spec("save", "ours: SQLiteStore.save_step alone (hop + our INSERT)", HOPS, save_step_alone),
    Spec("sql", "floor's INSERT, autocommit, sqlite3 in-thread (no hop)", HOPS, inline_insert),
)
"""The loop's timed rows, in table order."""

FAN_SPECS: tuple[Spec, ...] = (
    Spec("g", "ours: Engine + MemoryStore", "", ours_fan_memory),
    Spec("h", "ours: Engine + SQLiteStore, every branch persisted", "", ours_fan_sqlite),
    Spec("i", "LangGraph Send, no checkpointer", "", langgraph_fan_memory, ref="g"),
    Spec("j", 'LangGraph Send + AsyncSqliteSaver, durability="sync"', "", langgraph_fan_sqlite, ref="h"),
    Spec("k", "floor: asyncio.gather of the same work calls + one merge", "", gather_fan, ref="g"),
)
"""The rows of one fan-out group; `fan_rows` gives them their K (key suffix, group, branches)."""

ADAPTER_ROWS: tuple[tuple[str, str], ...] = (
    ("l", ""),
    ("m", "l"),
    ("n", "l"),
)
"""Keys and ratio references of the three `bench.langgraph_adapter.adapter_rows` rows, in its order."""


def fan_group(k: int) -> str:
    """Title of the fan-out group with ``k`` branches."""
    return f"fan-out: split -> K={k:,} map branches (async work) -> join; µs per branch"


def loop_rows(steps: int, slow_steps: int, keys: set[str] | None = None) -> list[tuple[Spec, Row]]:
    """The loop's rows (with their specs), optionally only those with these keys."""
    return [
        (
            s,
            Row(
                s.key,
                s.label,
                s.group,
                slow_steps if s.slow else steps,
                s.ref,
                expect=target_of(slow_steps if s.slow else steps),
            ),
        )
        for s in SPECS
        if keys is None or s.key in keys
    ]


def fan_rows(ks: Sequence[int]) -> list[tuple[Spec, Row]]:
    """One group of `FAN_SPECS` rows per branch count; keys are the spec key plus K (``g100``)."""
    return [
        (
            s,
            Row(
                f"{s.key}{k}",
                s.label,
                fan_group(k),
                k,
                f"{s.ref}{k}" if s.ref else "",
                unit="branch",
                expect=checksum_of(k),
            ),
        )
        for k in ks
        for s in FAN_SPECS
    ]


@dataclass(slots=True)
class Report:
    """Everything one run measured."""

    steps: int
    slow_steps: int
    repeat: int
    grow_steps: int
    rows: list[Row]
    stored: list[Stored]
    env: dict[str, str]
    fanout: tuple[int, ...] = ()
    blob_bytes: int = BLOB_BYTES

    def row(self, key: str) -> Row:
        """The row with this key."""
        return next(r for r in self.rows if r.key == key)

    def get(self, key: str) -> Row | None:
        """The row with this key, or None when it was not measured."""
        return next((r for r in self.rows if r.key == key), None)


def _missing_peer(exc: ImportError) -> str:
    return f"n/a: {exc.name or exc} not installed (pip install -e '.[dev]')"


async def _adapter_rep(rows: list[Row], steps: int) -> None:
    """One repetition of `bench.langgraph_adapter.adapter_rows` into the three adapter rows."""
    if rows[0].error:
        return
    try:
        from bench.langgraph_adapter import adapter_rows

        rates = await adapter_rows(steps, 1)
    except ImportError as exc:
        for r in rows:
            r.error = _missing_peer(exc)
        return
    except AssertionError as exc:  # adapter_rows checks every variant's final state
        for r in rows:
            r.error = f"wrong final state: {exc}"
        return
    for row, rate in zip(rows, rates, strict=True):
        if not row.label:
            row.label = rate.label
        row.us_per_step.append(rate.us_per_step)


async def measure(
    steps: int,
    slow_steps: int,
    repeat: int,
    grow_steps: int,
    *,
    keys: set[str] | None = None,
    fanout: Sequence[int] = (),
    adapter: bool = False,
    blob_bytes: int = BLOB_BYTES,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Run every variant ``repeat`` times (interleaved, so drift hits all rows alike).

    ``keys`` picks loop rows (and ``"bytes"`` for the bytes section); ``fanout`` adds one fan-out
    group per branch count; ``adapter`` adds the LangGraph adapter group. ``progress`` is told
    what runs next (``"round 1/3: ours-sqlite"``), before each measured variant.
    """
    tell = progress if progress is not None else (lambda _: None)
    timed = loop_rows(steps, slow_steps, keys) + fan_rows(fanout)
    adapter_group = (
        [Row(k, "", ADAPTER, slow_steps, ref, expect=None) for k, ref in ADAPTER_ROWS] if adapter else []
    )
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as d:
        base = Path(d)
        for rep in range(repeat):
            for spec, row in timed:
                if row.error:
                    continue
                tell(f"round {rep + 1}/{repeat}: {row.key}")
                tmp = base / f"{row.key}-{rep}"
                tmp.mkdir()
                try:
                    if row.unit == "branch":
                        # A fan-out run lasts about a millisecond: right after other work the
                        # first one runs 2-3x slower (caches, clock), so every variant gets one
                        # untimed run of its own just before each timed one.
                        (warm := base / f"{row.key}-{rep}-warm").mkdir()
                        await spec.fn(row.steps, warm)
                    t = await spec.fn(row.steps, tmp)
                except ImportError as exc:
                    row.error = _missing_peer(exc)
                    continue
                row.us_per_step.append(t.seconds / row.steps * 1e6)
                if t.cpu is not None:
                    row.cpu_us_per_step.append(t.cpu / row.steps * 1e6)
                row.finals.append(t.final)
            if adapter_group:
                tell(f"round {rep + 1}/{repeat}: the LangGraph adapter group")
                await _adapter_rep(adapter_group, slow_steps)
        stored: list[Stored] = []
        if grow_steps > 0 and (keys is None or "bytes" in keys):
            growers: tuple[tuple[str, Callable[[int, Path], Awaitable[Stored]]], ...] = (
                ("ours", lambda n, p: ours_growing(n, p, blob=blob_bytes)),
                (
                    "ours-final-only",
                    lambda n, p: ours_growing(n, p, snapshot_every=n, blob=blob_bytes),
                ),
                ("langgraph", lambda n, p: langgraph_growing(n, p, blob=blob_bytes)),
            )
            for name, grow in growers:
                tell(f"bytes per step: {name}")
                (base / f"grow-{name}").mkdir()
                (base / f"grow-{name}-half").mkdir()
                try:
                    full = await grow(grow_steps, base / f"grow-{name}")
                    half = (
                        await grow(grow_steps // 2, base / f"grow-{name}-half") if grow_steps >= 2 else None
                    )
                    empty = await empty_file(
                        "langgraph" if name == "langgraph" else "ours", base / f"grow-{name}"
                    )
                except ImportError:
                    continue
                if half is not None:
                    full = replace(full, half_file_bytes=half.file_bytes, empty_file_bytes=empty)
                stored.append(full)
    rows = [r for _, r in timed] + adapter_group
    return Report(
        steps, slow_steps, repeat, grow_steps, rows, stored, environment(), tuple(fanout), blob_bytes
    )


def environment() -> dict[str, str]:
    """Versions that matter for the numbers, and the load average when the run ended."""
    from importlib.metadata import PackageNotFoundError, version

    env = {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus",
        "load": "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg()),
    }
    for pkg in ("pydantic", "aiosqlite", "langgraph", "langgraph-checkpoint-sqlite"):
        try:
            env[pkg] = version(pkg)
        except PackageNotFoundError:
            env[pkg] = "not installed"
    return env


# ------------------------------------------------------------------------------- output


def _ratio(row: Row, ref: Row | None) -> str:
    m, r = row.median_us, None if ref is None else ref.median_us
    if m is None or r is None or row is ref:
        return ""
    return f"{m / r:.1f}x"


def _cpu(row: Row) -> str:
    c = row.median_cpu_us
    return "" if c is None else f"{c:.1f}"


_COUNT = {"step": "steps", "branch": "K"}


def render(rep: Report) -> str:
    """The table, the targets and the bytes per step, as text."""
    out: list[str] = []
    e = rep.env
    out.append(f"graphengine engine benchmark; median of {rep.repeat} runs, interleaved")
    out.append("  " + ", ".join(f"{k} {v}" for k, v in e.items()))
    out.append(
        "  µs = wall time; ratio = row's µs / the µs of the row named after it, in the same run (>1: slower)"
    )
    out.append(
        "  cpu µs = median process CPU time, all threads (a loaded machine inflates it less than wall time)"
    )
    w = max(len(r.label) for r in rep.rows) if rep.rows else 10
    kw = max((len(r.key) for r in rep.rows), default=1) + 1
    group = ""
    for row in rep.rows:
        if row.group != group:
            group = row.group
            u = row.unit
            out.append("")
            out.append(f"{group}")
            out.append(
                f"  {'':{kw}} {'variant':{w}} {_COUNT[u]:>7} {'µs/' + u:>10} {u + 'es/s' if u == 'branch' else u + 's/s':>11} "
                f"{'ratio':>10}  {'min-max µs':>17} {'cpu µs':>8}"
            )
        m = row.median_us
        if m is None:
            out.append(f"  {row.key + ')':{kw}} {row.label:{w}} {row.steps:>7} {row.error or 'n/a'}")
            continue
        spread = f"{min(row.us_per_step):.1f}-{max(row.us_per_step):.1f}"
        ref = rep.get(row.ref) if row.ref else None
        ratio = _ratio(row, ref)
        ratio = f"{ratio} {row.ref}" if ratio else ""
        out.append(
            f"  {row.key + ')':{kw}} {row.label:{w}} {row.steps:>7} {m:>10.1f} {1e6 / m:>11,.0f} "
            f"{ratio:>10}  {spread:>17} {_cpu(row):>8}"
        )
    out.append("")
    out.append("targets (the loop, fan-out, storage)")
    for ok, text in targets(rep):
        out.append(f"  [{'ok' if ok else ('MISS' if ok is False else 'n/a')}] {text}")
    if rep.stored:
        out.append("")
        out.append(
            f"bytes stored per step: one node appending one {ITEM_BYTES}-byte string per step next to "
            f"a {rep.blob_bytes:,}-byte field that never changes, {rep.grow_steps} steps, SQLite"
        )
        out.append(
            "  file = database size after wal_checkpoint(TRUNCATE) + VACUUM; "
            "payload = sum(payload) over all tables and indexes (dbstat)"
        )
        out.append(
            f"  1st half = (file of a separate {rep.grow_steps // 2}-step run - the empty schema's file) / its "
            "steps; 2nd half = (full file - that file) / the remaining steps"
        )
        lg = next((s for s in rep.stored if s.label.startswith("LangGraph")), None)
        ws = max(len(x.label) for x in rep.stored)
        out.append(
            f"  {'variant':{ws}} {'file B/step':>12} {'1st half':>9} {'2nd half':>9} {'payload B/step':>15} "
            f"{'LG/ours':>8}  where the bytes are"
        )
        for s in rep.stored:
            fb, pb = s.file_bytes / s.steps, s.payload_bytes / s.steps
            ratio = "" if lg is None or s is lg else f"{lg.file_bytes / s.file_bytes:.0f}x"
            h = s.halves
            h1, h2 = (f"{h[0]:,.0f}", f"{h[1]:,.0f}") if h else ("", "")
            parts = ", ".join(f"{k} {v / s.steps:,.0f}" for k, v in s.parts.items())
            out.append(
                f"  {s.label:{ws}} {fb:>12,.0f} {h1:>9} {h2:>9} {pb:>15,.0f} {ratio:>8}  {parts} B/step"
            )
    return "\n".join(out)


FLAT = 1.5
"""Storage is "flat" when the second half of the run costs at most this many times the first."""


def targets(rep: Report) -> list[tuple[bool | None, str]]:
    """Each benchmark target with whether this run met it."""

    def med(key: str) -> float | None:
        r = rep.get(key)
        return None if r is None else r.median_us

    def cpu(key: str) -> str:
        r = rep.get(key)
        c = None if r is None else r.median_cpu_us
        return "" if c is None else f" (cpu {c:.1f})"

    res: list[tuple[bool | None, str]] = []

    def at_most(key: str, bound: float, what: str, unit: str, extra: str = "") -> None:
        m = med(key)
        if m is not None:
            res.append((m <= bound, f"{what} <= {bound:g} {unit}: {m:.1f}{cpu(key)}{extra}"))

    def times_faster(ours: str, theirs: str, factor: float, what: str, peer: str) -> None:
        a, b = med(ours), med(theirs)
        if a is not None and b is not None:
            res.append((b / a >= factor, f"{what} >= {factor:g}x {peer}: {b / a:.1f}x"))

    at_most("a", 10, "loop in memory", "µs/step")
    times_faster("a", "b", 30, "loop in memory", "LangGraph ainvoke")
    at_most("d", 100, "loop on SQLite", "µs/step")
    times_faster("d", "e", 10, "loop on SQLite", "LangGraph AsyncSqliteSaver")
    dm, fm = med("d"), med("f")
    if dm is not None and fm is not None:
        res.append(
            (dm < fm, f"loop on SQLite faster than the raw aiosqlite floor: {dm:.1f} vs {fm:.1f} µs/step")
        )
    for k in rep.fanout:
        km = med(f"k{k}")
        floor = f", gather floor {km:.1f}{cpu(f'k{k}')}" if km is not None else ""
        at_most(f"g{k}", 15, f"fan-out K={k} in memory", "µs/branch", floor)
        times_faster(f"g{k}", f"i{k}", 15, f"fan-out K={k} in memory", "LangGraph Send")
        at_most(f"h{k}", 60, f"fan-out K={k} on SQLite", "µs/branch")
        times_faster(f"h{k}", f"j{k}", 10, f"fan-out K={k} on SQLite", "LangGraph Send + AsyncSqliteSaver")
    ours = next((x for x in rep.stored if x.label.startswith("ours") and "default" in x.label), None)
    if ours is not None:
        fb = ours.file_bytes / ours.steps
        res.append((fb <= 300, f"storage: ours <= 300 B/step on disk over {ours.steps} steps: {fb:,.0f}"))
        h = ours.halves
        if h is not None:
            res.append(
                (
                    h[1] <= FLAT * h[0],
                    f"storage flat as the run grows: 2nd half {h[1]:,.0f} vs 1st half {h[0]:,.0f} B/step "
                    f"(bound: {FLAT:g}x)",
                )
            )
        delta, snap = ours.parts["deltas"] / ours.steps, ours.parts["snapshots"] / ours.steps
        # The end snapshot is one per run, not per step; what must stay flat is the rest.
        res.append(
            (
                snap <= 2 * delta,
                "stored bytes/step do not grow with the unchanged state: deltas "
                f"{delta:,.0f} B/step, mid-run snapshots {snap:,.0f} B/step (bound: 2x deltas)",
            )
        )
    return res


def to_json(rep: Report) -> dict[str, Any]:
    """The report as JSON-ready data."""
    return {
        "steps": rep.steps,
        "slow_steps": rep.slow_steps,
        "repeat": rep.repeat,
        "grow_steps": rep.grow_steps,
        "blob_bytes": rep.blob_bytes,
        "fanout": list(rep.fanout),
        "synchronous": SYNCHRONOUS,
        "env": rep.env,
        "rows": [
            {
                "key": r.key,
                "label": r.label,
                "group": r.group,
                "steps": r.steps,
                "unit": r.unit,
                "ref": r.ref,
                "median_us_per_step": r.median_us,
                "us_per_step": r.us_per_step,
                "median_cpu_us_per_step": r.median_cpu_us,
                "cpu_us_per_step": r.cpu_us_per_step,
                "finals": r.finals,
                "error": r.error,
            }
            for r in rep.rows
        ],
        "stored": [{**asdict(s), "halves": s.halves} for s in rep.stored],
        "targets": [{"met": ok, "target": text} for ok, text in targets(rep)],
    }


def _branch_counts(text: str) -> tuple[int, ...]:
    try:
        ks = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected branch counts like 100,1000, got {text!r}") from None
    if any(k < 1 for k in ks):
        raise argparse.ArgumentTypeError(f"branch counts must be >= 1, got {text!r}")
    return ks


@contextlib.contextmanager
def _terminal_progress() -> Iterator[Callable[[str], None] | None]:
    """What runs now, on stderr beside a rich spinner when stderr is a terminal (erased when the
    table prints); None, and silence, when it is piped or rich is not installed."""
    if not sys.stderr.isatty():
        yield None
        return
    try:
        from rich.console import Console
    except ImportError:
        yield lambda text: print(f"bench engine: {text}", file=sys.stderr, flush=True)
        return
    with Console(stderr=True).status("bench engine: starting", spinner="dots") as status:
        yield lambda text: status.update(f"bench engine: {text}")


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench engine``."""
    p = argparse.ArgumentParser(prog="python -m bench engine", description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=10_000, help="steps per run (even; default 10000)")
    p.add_argument(
        "--slow-steps",
        type=int,
        default=None,
        help="steps for LangGraph + AsyncSqliteSaver and the adapter group (default: min(steps, 2000))",
    )
    p.add_argument("--repeat", type=int, default=3, help="runs per variant; the median is shown (default 3)")
    p.add_argument(
        "--grow-steps", type=int, default=1000, help="steps of the bytes-per-step run (0: skip; default 1000)"
    )
    p.add_argument(
        "--blob-bytes",
        type=int,
        default=BLOB_BYTES,
        help=f"size of the unchanged field in the bytes-per-step run (default {BLOB_BYTES})",
    )
    p.add_argument(
        "--item-bytes",
        type=int,
        default=ITEM_BYTES,
        help=f"size of the item appended per step in the bytes-per-step run (default {ITEM_BYTES}; "
        "12 matches LangGraph's reference of ~16.7 kB/step)",
    )
    p.add_argument(
        "--fanout",
        type=_branch_counts,
        default=FANOUT,
        metavar="K,K",
        help="branch counts of the fan-out groups (default 100,1000)",
    )
    p.add_argument("--skip-fanout", action="store_true", help="leave out the fan-out groups")
    p.add_argument("--skip-adapter", action="store_true", help="leave out the LangGraph adapter group")
    p.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the results as JSON")
    a = p.parse_args(argv)
    slow = a.slow_steps if a.slow_steps is not None else min(a.steps, 2000)
    for name, v in (("--steps", a.steps), ("--slow-steps", slow)):
        if v < 2 or v % 2:
            p.error(f"{name} must be an even number >= 2, got {v}")
    if a.repeat < 1:
        p.error("--repeat must be >= 1")
    if a.blob_bytes < 0:
        p.error("--blob-bytes must be >= 0")
    if a.item_bytes < 8:
        p.error("--item-bytes must be >= 8")
    globals()["ITEM_BYTES"] = a.item_bytes  # item() reads the module constant
    with _terminal_progress() as progress:
        rep = asyncio.run(
            measure(
                a.steps,
                slow,
                a.repeat,
                a.grow_steps,
                fanout=() if a.skip_fanout else a.fanout,
                adapter=not a.skip_adapter,
                blob_bytes=a.blob_bytes,
                progress=progress,
            )
        )
    bad = [r for r in rep.rows if r.expect is not None and any(x != r.expect for x in r.finals)]
    print(render(rep))
    if a.json is not None:
        a.json.write_text(json.dumps(to_json(rep), indent=2) + "\n")
    if bad:
        print(f"error: wrong final state in {', '.join(r.key for r in bad)}", file=sys.stderr)
        return 1
    return 0
