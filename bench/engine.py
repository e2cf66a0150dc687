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

fan-out, K map branches + join (issue 18; ``--fanout 100,1000``, ``--skip-fanout``)
    One run is ``split`` -> K map branches of ``work`` (async; each gets its own input, like
    LangGraph's ``Send``, and appends one result) -> ``join``, timed from ``run`` to the final state
    and reported per branch: (g) ours on `MemoryStore`, (h) ours on `SQLiteStore` (every branch
    result persisted, group commit), (i) LangGraph ``Send`` without a checkpointer, (j) LangGraph
    ``Send`` with ``AsyncSqliteSaver`` and ``durability="sync"``, (k) the floor: the same ``work``
    calls under a bare ``asyncio.gather`` and one merge.
LangGraph adapter (issue 22; ``--skip-adapter``)
    The loop at ``--slow-steps`` steps through `bench.langgraph_adapter.adapter_rows`: (l) the native
    engine, (m) the same engine compiled by ``to_langgraph``, (n) the hand-written LangGraph graph.

A last section measures bytes stored per step on disk (issue 19) for a state with a
``--blob-bytes`` field that never changes and a list growing by one 100-byte item per step, over
``--grow-steps`` steps and, separately, half as many: the first half is the half run's file over
its steps, the second half the growth of the file between the two runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import operator
import os
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel
from typing_extensions import TypedDict

from graphengine import Branch, Context, Engine, NodeResult, Options, append, fan_out, goto, stop
from store import MemoryStore, RunRecord, RunStatus, SQLiteStore, StepRecord

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
    out: Annotated[list[int], append] = []


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
    return f"{i:08d}".ljust(ITEM_BYTES, "x")


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
    """One timed run: wall seconds and the final counter it reached."""

    seconds: float
    final: int


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
    finals: list[int] = field(default_factory=list)
    error: str = ""

    @property
    def median_us(self) -> float | None:
        """Median µs per step over the repetitions (None when the variant failed)."""
        return statistics.median(self.us_per_step) if self.us_per_step and not self.error else None


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
    t0 = time.perf_counter()
    final = await g.run("bench", Counter())
    return Timed(time.perf_counter() - t0, final.n)


async def ours_sqlite(steps: int, tmp: Path) -> Timed:
    """(d) Our engine on `SQLiteStore` (WAL, synchronous=NORMAL, one autocommit INSERT per step)."""
    async with SQLiteStore(tmp / "ours.db", synchronous=SYNCHRONOUS) as store:
        g = our_engine(store, steps)
        t0 = time.perf_counter()
        final = await g.run("bench", Counter())
        return Timed(time.perf_counter() - t0, final.n)


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
    t0 = time.perf_counter()
    out = await app.ainvoke({"n": 0}, _lg_config(steps))
    return Timed(time.perf_counter() - t0, out["n"])


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
        t0 = time.perf_counter()
        out = await app.ainvoke({"n": 0}, _lg_config(steps, "bench"), durability="sync")
        return Timed(time.perf_counter() - t0, out["n"])
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
    t0 = time.perf_counter()
    s = Counter()
    ctx = Context("raw", 0, "inc")
    while True:
        d = (await inc(ctx, s)).delta
        assert d is not None
        s = s.model_copy(update={"n": d.n})
        if check(ctx, s).route == stop():
            break
    return Timed(time.perf_counter() - t0, s.n)


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
        t0 = time.perf_counter()
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
        return Timed(time.perf_counter() - t0, s.n)
    finally:
        await conn.close()


# ------------------------------------------------------------------------------- where SQLite time goes


async def hop_select1(steps: int, tmp: Path) -> Timed:
    """One aiosqlite round trip doing (almost) nothing: ``SELECT 1`` per step (the hop cost)."""
    conn = await open_floor_db(tmp / "hop.db")
    try:
        t0 = time.perf_counter()
        for _ in range(steps):
            await conn.execute("SELECT 1")
        return Timed(time.perf_counter() - t0, target_of(steps))
    finally:
        await conn.close()


async def save_step_alone(steps: int, tmp: Path) -> Timed:
    """Our `SQLiteStore.save_step` in a bare loop: one hop and our INSERT, no engine around it."""
    async with SQLiteStore(tmp / "save.db", synchronous=SYNCHRONOUS) as store:
        await store.create_run(RunRecord(run_id="bench", status=RunStatus.RUNNING, initial=b"{}"))
        delta = Counter(n=1).model_dump_json(exclude_unset=True).encode()
        t0 = time.perf_counter()
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
        return Timed(time.perf_counter() - t0, target_of(steps))


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
            t0 = time.perf_counter()
            for step in range(1, steps + 1):
                conn.execute(_FLOOR_INSERT, ("raw", step, "inc", delta, _ROUTE_CHECK, time.time()))
            return Timed(time.perf_counter() - t0, target_of(steps))
        finally:
            conn.close()

    return timed()


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


async def ours_growing(steps: int, tmp: Path, snapshot_every: int | None = None) -> Stored:
    """Our engine on SQLite, one node appending one item per step."""
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
        final = await g.run("bench", Growing())
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


async def langgraph_growing(steps: int, tmp: Path) -> Stored:
    """LangGraph with `AsyncSqliteSaver`, one node appending one item per step."""
    from langgraph.graph import END, START, StateGraph

    path = tmp / "langgraph-grow.db"

    def add(s: LGGrowing) -> dict[str, list[str]]:
        return {"items": [item(len(s["items"]) + 1)]}

    def route(s: LGGrowing) -> str:
        return END if len(s["items"]) >= steps else "add"

    b: Any = StateGraph(LGGrowing)
    b.add_node("add", add)
    b.add_edge(START, "add")
    b.add_conditional_edges("add", route, {"add": "add", END: END})
    saver, conn = await open_langgraph_saver(path)
    try:
        app = b.compile(checkpointer=saver)
        out = await app.ainvoke({"items": []}, _lg_config(steps, "bench"), durability="sync")
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


MEMORY = "in memory"
SQLITE = f"SQLite file, commit per step (WAL, synchronous={SYNCHRONOUS})"
HOPS = "where a SQLite step goes (diagnostics)"

SPECS: tuple[Spec, ...] = (
    Spec("a", "ours: Engine + MemoryStore", MEMORY, ours_memory),
    Spec("b", "LangGraph StateGraph.ainvoke, no checkpointer", MEMORY, langgraph_memory),
    Spec("c", "floor: raw loop (await + pydantic merge)", MEMORY, raw_memory),
    Spec("d", "ours: Engine + SQLiteStore", SQLITE, ours_sqlite),
    Spec("e", 'LangGraph + AsyncSqliteSaver, durability="sync"', SQLITE, langgraph_sqlite, slow=True),
    Spec("f", "floor: raw aiosqlite INSERT + commit per step", SQLITE, raw_aiosqlite),
    Spec("hop", "aiosqlite round trip, SELECT 1 (one hop)", HOPS, hop_select1),
    Spec("save", "ours: SQLiteStore.save_step alone (hop + our INSERT)", HOPS, save_step_alone),
    Spec("sql", "floor's INSERT, autocommit, sqlite3 in-thread (no hop)", HOPS, inline_insert),
)
"""Every timed row, in table order; ratios compare each row with the group's first row."""


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

    def row(self, key: str) -> Row:
        """The row with this key."""
        return next(r for r in self.rows if r.key == key)


def _missing_peer(exc: ImportError) -> str:
    return f"n/a: {exc.name or exc} not installed (pip install -e '.[dev]')"


async def measure(
    steps: int, slow_steps: int, repeat: int, grow_steps: int, *, keys: set[str] | None = None
) -> Report:
    """Run every variant ``repeat`` times (interleaved, so drift hits all rows alike)."""
    specs = [s for s in SPECS if keys is None or s.key in keys]
    rows = [Row(s.key, s.label, s.group, slow_steps if s.slow else steps) for s in specs]
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as d:
        base = Path(d)
        for rep in range(repeat):
            for spec, row in zip(specs, rows, strict=True):
                if row.error:
                    continue
                tmp = base / f"{spec.key}-{rep}"
                tmp.mkdir()
                try:
                    t = await spec.fn(row.steps, tmp)
                except ImportError as exc:
                    row.error = _missing_peer(exc)
                    continue
                row.us_per_step.append(t.seconds / row.steps * 1e6)
                row.finals.append(t.final)
        stored: list[Stored] = []
        if grow_steps > 0 and (keys is None or "bytes" in keys):
            growers: tuple[tuple[str, Callable[[Path], Awaitable[Stored]]], ...] = (
                ("ours", lambda p: ours_growing(grow_steps, p)),
                ("ours-final-only", lambda p: ours_growing(grow_steps, p, snapshot_every=grow_steps)),
                ("langgraph", lambda p: langgraph_growing(grow_steps, p)),
            )
            for name, grow in growers:
                tmp = base / f"grow-{name}"
                tmp.mkdir()
                try:
                    stored.append(await grow(tmp))
                except ImportError:
                    continue
    return Report(steps, slow_steps, repeat, grow_steps, rows, stored, environment())


def environment() -> dict[str, str]:
    """Versions that matter for the numbers."""
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


def render(rep: Report) -> str:
    """The table, the targets and the bytes per step, as text."""
    out: list[str] = []
    e = rep.env
    out.append(
        f"graphengine engine benchmark: 2-node loop (inc async, check sync); median of {rep.repeat} runs"
    )
    out.append("  " + ", ".join(f"{k} {v}" for k, v in e.items()))
    out.append("  ratio = row's µs/step / ours' µs/step in the same group (>1: slower than ours)")
    w = max(len(r.label) for r in rep.rows) if rep.rows else 10
    head = f"  {'':5} {'variant':{w}} {'steps':>7} {'µs/step':>9} {'steps/s':>10} {'ratio':>7}  {'min-max µs':>15}"
    group = ""
    ref: Row | None = None
    for row in rep.rows:
        if row.group != group:
            group = row.group
            ref = row if row.key in ("a", "d") else None
            out.append("")
            out.append(f"{group}")
            out.append(head)
        m = row.median_us
        if m is None:
            out.append(f"  {row.key + ')':5} {row.label:{w}} {row.steps:>7} {row.error or 'n/a'}")
            continue
        spread = f"{min(row.us_per_step):.1f}-{max(row.us_per_step):.1f}"
        out.append(
            f"  {row.key + ')':5} {row.label:{w}} {row.steps:>7} {m:>9.1f} {1e6 / m:>10,.0f} "
            f"{_ratio(row, ref):>7}  {spread:>15}"
        )
    out.append("")
    out.append("targets (issue 16)")
    for ok, text in targets(rep):
        out.append(f"  [{'ok' if ok else ('MISS' if ok is False else 'n/a')}] {text}")
    if rep.stored:
        out.append("")
        out.append(
            f"bytes stored per step: one node appending one {ITEM_BYTES}-byte string per step, "
            f"{rep.grow_steps} steps, SQLite"
        )
        out.append(
            "  file = database size after wal_checkpoint(TRUNCATE) + VACUUM; "
            "payload = sum(payload) over all tables and indexes (dbstat)"
        )
        lg = next((s for s in rep.stored if s.label.startswith("LangGraph")), None)
        ws = max(len(x.label) for x in rep.stored)
        out.append(
            f"  {'variant':{ws}} {'file B/step':>12} {'payload B/step':>15} {'LG/ours':>8}  where the bytes are"
        )
        for s in rep.stored:
            fb, pb = s.file_bytes / s.steps, s.payload_bytes / s.steps
            ratio = "" if lg is None or s is lg else f"{lg.payload_bytes / s.payload_bytes:.0f}x"
            parts = ", ".join(f"{k} {v / s.steps:,.0f}" for k, v in s.parts.items())
            out.append(f"  {s.label:{ws}} {fb:>12,.0f} {pb:>15,.0f} {ratio:>8}  {parts} B/step")
    return "\n".join(out)


def targets(rep: Report) -> list[tuple[bool | None, str]]:
    """Each target of the issue with whether this run met it."""
    a, b, c, d, ee, f = (rep.row(k) if any(r.key == k for r in rep.rows) else None for k in "abcdef")

    def med(r: Row | None) -> float | None:
        return None if r is None else r.median_us

    res: list[tuple[bool | None, str]] = []
    am, bm, dm, em, fm = med(a), med(b), med(d), med(ee), med(f)
    if am is not None:
        res.append((am <= 10, f"in memory <= 10 µs/step: {am:.1f}"))
    if am is not None and bm is not None:
        res.append((bm / am >= 30, f"in memory >= 30x LangGraph ainvoke: {bm / am:.1f}x"))
    if dm is not None:
        res.append((dm <= 100, f"SQLite <= 100 µs/step: {dm:.1f}"))
    if dm is not None and em is not None:
        res.append((em / dm >= 10, f"SQLite >= 10x LangGraph AsyncSqliteSaver: {em / dm:.1f}x"))
    if dm is not None and fm is not None:
        res.append((dm < fm, f"SQLite faster than the raw aiosqlite floor: {dm:.1f} vs {fm:.1f} µs/step"))
    ours = next((x for x in rep.stored if x.label.startswith("ours") and "default" in x.label), None)
    if ours is not None:
        delta, snap = ours.parts["deltas"] / ours.steps, ours.parts["snapshots"] / ours.steps
        # The end snapshot is one per run, not per step; what must stay flat is the rest.
        res.append(
            (
                snap <= 2 * delta,
                "stored bytes/step do not grow with the unchanged state: deltas "
                f"{delta:,.0f} B/step, mid-run snapshots {snap:,.0f} B/step (bound: 2x deltas)",
            )
        )
    del c
    return res


def to_json(rep: Report) -> dict[str, Any]:
    """The report as JSON-ready data."""
    return {
        "steps": rep.steps,
        "slow_steps": rep.slow_steps,
        "repeat": rep.repeat,
        "grow_steps": rep.grow_steps,
        "synchronous": SYNCHRONOUS,
        "env": rep.env,
        "rows": [
            {
                "key": r.key,
                "label": r.label,
                "group": r.group,
                "steps": r.steps,
                "median_us_per_step": r.median_us,
                "us_per_step": r.us_per_step,
                "finals": r.finals,
                "error": r.error,
            }
            for r in rep.rows
        ],
        "stored": [asdict(s) for s in rep.stored],
        "targets": [{"met": ok, "target": text} for ok, text in targets(rep)],
    }


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench engine``."""
    p = argparse.ArgumentParser(prog="python -m bench engine", description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=10_000, help="steps per run (even; default 10000)")
    p.add_argument(
        "--slow-steps",
        type=int,
        default=None,
        help="steps for LangGraph + AsyncSqliteSaver (default: min(steps, 2000))",
    )
    p.add_argument("--repeat", type=int, default=3, help="runs per variant; the median is shown (default 3)")
    p.add_argument(
        "--grow-steps", type=int, default=1000, help="steps of the bytes-per-step run (0: skip; default 1000)"
    )
    p.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the results as JSON")
    a = p.parse_args(argv)
    slow = a.slow_steps if a.slow_steps is not None else min(a.steps, 2000)
    for name, v in (("--steps", a.steps), ("--slow-steps", slow)):
        if v < 2 or v % 2:
            p.error(f"{name} must be an even number >= 2, got {v}")
    if a.repeat < 1:
        p.error("--repeat must be >= 1")
    rep = asyncio.run(measure(a.steps, slow, a.repeat, a.grow_steps))
    bad = [r for r in rep.rows if r.finals and any(x != target_of(r.steps) for x in r.finals)]
    print(render(rep))
    if a.json is not None:
        a.json.write_text(json.dumps(to_json(rep), indent=2) + "\n")
    if bad:
        print(f"error: wrong final state in {', '.join(r.key for r in bad)}", file=sys.stderr)
        return 1
    return 0
