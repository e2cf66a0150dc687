"""``python -m bench scale``: graphengine on PostgreSQL, one run and many worker processes.

Two sections, on the PostgreSQL server at ``--dsn`` (default: the test server):

one run, a commit per step
    steps/s of one run of a 2-node loop (``inc`` adds 1, ``check`` loops back until the counter
    reaches ``steps / 2``), on (a) our `Engine` with `PostgresStore` and (b) LangGraph with
    ``AsyncPostgresSaver`` (langgraph-checkpoint-postgres) and ``durability="sync"``, both
    committing each step before the next starts; (c) the floor: the driver alone (asyncpg) doing
    one autocommitted INSERT of a step-sized row per step. (d) and (e): our `MySQLStore` and the
    asyncmy floor on the MariaDB server at ``$GRAPHENGINE_TEST_MYSQL`` (LangGraph ships no MySQL
    saver). The variants take turns, one run each per round, so load on the shared machine falls on
    all of them alike; median of ``--repeat`` rounds, setup untimed.

worker processes
    ``--runs`` runs of the same loop are created up front; 1, 2 and 4 processes then each try to
    claim every run (a lease with a fencing token, `PostgresStore.claim`) and drive the ones they
    get with ``resume``, ``--concurrency`` runs at a time per process. Reported: total steps/s
    from the first claim to the last release. The processes share the machine with the server.

MySQL alone (``--sections mysql``, not a default)
    on the MariaDB server at ``$GRAPHENGINE_TEST_MYSQL``: one run, our `MySQLStore` against the
    asyncmy floor (rows (d) and (e) above), then ``--mysql-runs`` runs at once on a `MySQLStore`
    with a pool of `POOL` connections against the same floor run concurrently: as many loops, each
    doing one autocommitted INSERT per step over an asyncmy pool of `POOL` connections. Reported:
    µs/step of the one run, runs/s and steps/s of the many.

fan-out of ``--width`` branches
    one run whose start node fans out to ``--width`` branches (each returns a small delta at
    once) joined by one node, on `PostgresStore`: (a) in process, the branches run concurrently
    by the process that drives the run (``max_concurrency`` 64); (b) distributed, the run
    submitted to the queue and served by ``--fanout-workers`` ``graphengine worker`` processes
    (``--concurrency`` jobs each), each branch a job any worker takes, claimed, run and stored
    under its fenced claim, the join queued by the last result. Reported: seconds from the start
    step's commit to the join's commit (worker start-up and submission untimed), and branches/s.

queued runs through ``graphengine worker``
    the same ``--runs`` runs submitted with `Engine.submit` to a procrastinate queue (on the same
    server), then served by 1, 2 and 4 ``graphengine worker bench.scale:worker_engine`` processes
    (``--concurrency`` jobs each, leases renewed in the background). Reported: steps/s from the
    first committed step to the last (worker start-up and submission untimed), and the time
    the database spent per committed step (``pg_stat_statements`` is not needed: the figure is
    wall time x processes / steps, i.e. what one step costs a process).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import multiprocessing as mp
import operator
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel

from bench.engine import SYNCHRONOUS, Counter, inc, langgraph_loop, make_check, open_langgraph_saver
from graphengine import Branch, Context, Engine, NodeResult, Options, append, fan_out, stop
from graphengine.store import PostgresStore, RunRecord, RunStatus, SQLiteStore

DSN = os.environ.get("GRAPHENGINE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
MYSQL_DSN = os.environ.get("GRAPHENGINE_TEST_MYSQL", "mysql://root@127.0.0.1:3306/test")


def engine(store: Any, steps: int) -> Engine[Counter]:
    """The loop on our engine, compiled before any timing."""
    g = Engine(Counter, store=store, options=Options(max_steps=steps + 2))
    g.add("inc", inc).add("check", make_check(steps // 2)).start_at("inc").connect("inc", "check")
    g.validate()
    return g


async def drop_schema(schema: str, dsn: str = DSN) -> None:
    """Remove a benchmark schema (our name, not user text: identifiers cannot be bound)."""
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        await conn.close()


# ------------------------------------------------------------------------------ one run


async def _timed_run(store: Any, steps: int) -> float:
    """Seconds for one run of the loop on an open ``store`` (the graph is compiled untimed)."""
    g = engine(store, steps)
    t0 = time.perf_counter()
    final = await g.run("bench", Counter())
    dt = time.perf_counter() - t0
    assert final.n == steps // 2
    return dt


async def ours_one_run(steps: int, dsn: str = DSN) -> float:
    """Seconds for one run of ``steps`` steps on `PostgresStore`."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    try:
        async with PostgresStore(dsn, schema=schema, max_size=2) as store:
            return await _timed_run(store, steps)
    finally:
        await drop_schema(schema, dsn)


async def langgraph_one_run(steps: int, dsn: str = DSN) -> float:
    """Seconds for one run of ``steps`` steps on LangGraph's `AsyncPostgresSaver`, durability="sync"."""
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    target = steps // 2
    async with AsyncPostgresSaver.from_conn_string(dsn) as saver:
        await saver.setup()
        app = langgraph_loop(steps, saver)
        cfg = {"recursion_limit": steps + 10, "configurable": {"thread_id": uuid.uuid4().hex}}
        t0 = time.perf_counter()
        out = await app.ainvoke({"n": 0}, cfg, durability="sync")
        dt = time.perf_counter() - t0
        assert out["n"] == target
        return dt


_FLOOR_TABLE = "CREATE TABLE steps (run_id varchar(64) NOT NULL, step integer NOT NULL, node_id text NOT NULL, delta {blob}, route text NOT NULL, ts double precision NOT NULL, PRIMARY KEY (run_id, step))"


async def floor_postgres(steps: int) -> float:
    """Seconds for ``steps`` autocommitted single-row INSERTs of a step's size through asyncpg."""
    import asyncpg

    schema = f"bench_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(DSN)
    try:
        await conn.execute(f"CREATE SCHEMA {schema}")
        await conn.execute(f"SET search_path TO {schema}")
        await conn.execute(_FLOOR_TABLE.format(blob="bytea"))
        insert = "INSERT INTO steps VALUES ($1, $2, $3, $4, $5, $6)"
        delta = Counter(n=1).model_dump_json().encode()
        t0 = time.perf_counter()
        for step in range(1, steps + 1):
            await conn.execute(insert, "bench", step, "inc", delta, '"check"', time.time())
        return time.perf_counter() - t0
    finally:
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        await conn.close()


def _mysql_server() -> dict[str, Any]:
    from urllib.parse import urlsplit

    url = urlsplit(MYSQL_DSN)
    return {
        "host": url.hostname,
        "port": url.port or 3306,
        "user": url.username or "root",
        "password": url.password or "",
    }


async def _mysql_database() -> str:
    """A fresh benchmark database on the MySQL server; returns its name."""
    import asyncmy  # type: ignore[import-untyped]

    name = f"bench_{uuid.uuid4().hex[:12]}"
    conn = await asyncmy.connect(**_mysql_server())
    try:
        async with conn.cursor() as cur:
            await cur.execute(f"CREATE DATABASE {name}")
    finally:
        conn.close()
    return name


async def _drop_mysql_database(name: str) -> None:
    import asyncmy

    conn = await asyncmy.connect(**_mysql_server())
    try:
        async with conn.cursor() as cur:
            await cur.execute(f"DROP DATABASE IF EXISTS {name}")
    finally:
        conn.close()


async def ours_one_run_mysql(steps: int) -> float:
    """Seconds for one run of ``steps`` steps on `MySQLStore`."""
    from urllib.parse import urlsplit

    from graphengine.store import MySQLStore

    db = await _mysql_database()
    try:
        async with MySQLStore(urlsplit(MYSQL_DSN)._replace(path=f"/{db}").geturl(), max_size=2) as store:
            return await _timed_run(store, steps)
    finally:
        await _drop_mysql_database(db)


async def floor_mysql(steps: int) -> float:
    """Seconds for ``steps`` autocommitted single-row INSERTs of a step's size through asyncmy."""
    import asyncmy

    db = await _mysql_database()
    conn = await asyncmy.connect(**_mysql_server(), db=db, autocommit=True)
    try:
        async with conn.cursor() as cur:
            await cur.execute(_FLOOR_TABLE.format(blob="longblob"))
            insert = "INSERT INTO steps VALUES (%s, %s, %s, %s, %s, %s)"
            delta = Counter(n=1).model_dump_json().encode()
            t0 = time.perf_counter()
            for step in range(1, steps + 1):
                await cur.execute(insert, ("bench", step, "inc", delta, '"check"', time.time()))
            return time.perf_counter() - t0
    finally:
        conn.close()
        await _drop_mysql_database(db)


async def _commits(admin: Any, db: str) -> int:
    """Transactions committed in database ``db`` so far, once the counters have settled (a
    backend reports its counts when it exits or at most once a second while idle)."""
    last = -1
    for _ in range(50):
        await admin.execute("SELECT pg_stat_clear_snapshot()")
        now = int(await admin.fetchval("SELECT xact_commit FROM pg_stat_database WHERE datname = $1", db))
        if now == last:
            return now
        last = now
        await asyncio.sleep(0.3)
    return last


async def commits_per_step(steps: int) -> dict[str, float]:
    """Commits per step of our run and of LangGraph's, in a database of their own (so no other
    client's commits count): runs of ``2 * steps`` and ``steps`` steps, the difference over
    ``steps``, so the set-up commits (schema, run record) cancel out."""
    import asyncpg

    db = f"bench_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(DSN)
    try:
        await admin.execute(f"CREATE DATABASE {db}")
        dsn = DSN.rsplit("/", 1)[0] + "/" + db
        out: dict[str, float] = {}
        for key, fn in (("ours-pg", ours_one_run), ("langgraph-pg", langgraph_one_run)):
            await fn(steps, dsn)  # creates what a first run creates (LangGraph's tables)
            counts = []
            for n in (2 * steps, steps):
                before = await _commits(admin, db)
                await fn(n, dsn)
                counts.append(await _commits(admin, db) - before)
            out[key] = (counts[0] - counts[1]) / steps
        return out
    finally:
        await admin.execute(f"DROP DATABASE IF EXISTS {db}")
        await admin.close()


ONE_RUN_LABELS: dict[str, str] = {
    "ours-pg": "(a) graphengine + PostgresStore",
    "langgraph-pg": "(b) LangGraph + AsyncPostgresSaver (sync)",
    "floor-pg": "(c) floor: asyncpg, one INSERT per step",
    "ours-mysql": "(d) graphengine + MySQLStore",
    "floor-mysql": "(e) floor: asyncmy, one INSERT per step",
}
"""The rows of the one-run section (the MySQL section prints (d) and (e))."""


def print_one_run(secs: dict[str, float | None], steps: int, keys: list[str]) -> None:
    """Print the one-run rows `keys` (steps/s and µs/step) of those measured in `secs`."""
    for key in keys:
        sec = secs[key]
        if sec is not None:
            print(f"  {ONE_RUN_LABELS[key]:44} {steps / sec:7.0f} steps/s  {sec / steps * 1e6:7.0f} µs/step")


def one_run_rows(steps: int, repeat: int) -> dict[str, list[float]]:
    """Seconds of every round per variant of the one-run section, the variants taking turns."""
    variants: dict[str, Callable[[int], Any]] = {
        "ours-pg": ours_one_run,
        "langgraph-pg": langgraph_one_run,
        "floor-pg": floor_postgres,
        "ours-mysql": ours_one_run_mysql,
        "floor-mysql": floor_mysql,
    }
    return each_round({k: functools.partial(fn, steps) for k, fn in variants.items()}, repeat)


# ------------------------------------------------------------------------------ one run on SQLite


async def _sqlite_file(fn: Callable[[str], Any]) -> float:
    """Run ``fn(path)`` on a fresh SQLite file in a temporary directory; its result."""
    with tempfile.TemporaryDirectory() as tmp:
        return float(await fn(os.path.join(tmp, "bench.db")))


async def ours_sqlite_one(steps: int) -> float:
    """Seconds for one run of ``steps`` steps on `SQLiteStore` (WAL, synchronous=NORMAL)."""

    async def go(path: str) -> float:
        async with SQLiteStore(path, synchronous=SYNCHRONOUS) as store:
            return await _timed_run(store, steps)

    return await _sqlite_file(go)


async def langgraph_sqlite_one(steps: int) -> float:
    """Seconds for one run on LangGraph's `AsyncSqliteSaver` (WAL, NORMAL), durability="sync"."""

    async def go(path: str) -> float:
        saver, conn = await open_langgraph_saver(Path(path))
        try:
            app = langgraph_loop(steps, saver)
            cfg = {"recursion_limit": steps + 10, "configurable": {"thread_id": "bench"}}
            t0 = time.perf_counter()
            out = await app.ainvoke({"n": 0}, cfg, durability="sync")
            dt = time.perf_counter() - t0
            assert out["n"] == steps // 2
            return dt
        finally:
            await conn.close()

    return await _sqlite_file(go)


def _floor_conn(path: str, synchronous: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    conn.execute(_FLOOR_TABLE.format(blob="BLOB"))
    return conn


_SQLITE_INSERT = "INSERT INTO steps VALUES (?, ?, ?, ?, ?, ?)"


def _floor_row(step: int) -> tuple[Any, ...]:
    return ("bench", step, "inc", b'{"n":1}', '"check"', time.time())


async def hop_aiosqlite(steps: int) -> float:
    """One autocommitted INSERT per step through aiosqlite (a hop to its thread and back)."""
    import aiosqlite

    async def go(path: str) -> float:
        _floor_conn(path, SYNCHRONOUS).close()
        async with aiosqlite.connect(path, isolation_level=None) as conn:
            await conn.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
            t0 = time.perf_counter()
            for step in range(1, steps + 1):
                await conn.execute(_SQLITE_INSERT, _floor_row(step))
            return time.perf_counter() - t0

    return await _sqlite_file(go)


def _on_loop(synchronous: str) -> Callable[[int], Any]:
    async def hop(steps: int) -> float:
        async def go(path: str) -> float:
            conn = _floor_conn(path, synchronous)
            try:
                t0 = time.perf_counter()
                for step in range(1, steps + 1):
                    conn.execute(_SQLITE_INSERT, _floor_row(step))
                    await asyncio.sleep(0)  # the turn of the loop a step of a run gives up
                return time.perf_counter() - t0
            finally:
                conn.close()

        return await _sqlite_file(go)

    hop.__doc__ = f"One INSERT per step with sqlite3 on the loop's thread, synchronous={synchronous}."
    return hop


async def hop_writer_thread(steps: int) -> float:
    """One INSERT per step on a dedicated writer thread (an executor of one thread) and back."""

    async def go(path: str) -> float:
        conn = _floor_conn(path, SYNCHRONOUS)
        loop = asyncio.get_running_loop()
        try:
            with ThreadPoolExecutor(1) as writer:
                t0 = time.perf_counter()
                for step in range(1, steps + 1):
                    await loop.run_in_executor(writer, conn.execute, _SQLITE_INSERT, _floor_row(step))
                return time.perf_counter() - t0
        finally:
            conn.close()

    return await _sqlite_file(go)


SQLITE_ONE: dict[str, tuple[str, Callable[[int], Any]]] = {
    "ours-sqlite": ("(f) graphengine + SQLiteStore", ours_sqlite_one),
    "langgraph-sqlite": ('(g) LangGraph + AsyncSqliteSaver, durability="sync"', langgraph_sqlite_one),
    "hop-aiosqlite": ("(h) INSERT per step: aiosqlite thread hop", hop_aiosqlite),
    "hop-writer": ("(i) INSERT per step: own writer thread", hop_writer_thread),
    "hop-loop": ("(j) INSERT per step: sqlite3 on the loop", _on_loop(SYNCHRONOUS)),
    "hop-loop-full": ("(k) as (j), synchronous=FULL", _on_loop("FULL")),
}
"""The one-run SQLite rows: our store, LangGraph's saver, and the ways to reach SQLite per step."""


def take_turns(variants: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float | None]:
    """Median result per variant, the variants taking turns each round (load falls on all alike)."""
    return {k: statistics.median(v) if v else None for k, v in each_round(variants, repeat).items()}


def each_round(variants: dict[str, Callable[[], Any]], repeat: int) -> dict[str, list[float]]:
    """Every round's result per variant, the variants taking turns each round."""
    got: dict[str, list[float]] = {k: [] for k in variants}
    missing: dict[str, str] = {}
    for _ in range(repeat):
        for key, fn in variants.items():
            if key in missing:
                continue
            try:
                got[key].append(asyncio.run(fn()))
            except (ImportError, OSError) as exc:
                missing[key] = f"{type(exc).__name__}: {exc}"
    for key, why in missing.items():
        print(f"  {key}: not measured ({why})")
    return got


# ------------------------------------------------------------------------------ many runs at once


async def _many(g: Engine[Counter], runs: int, steps: int, tag: str) -> float:
    """Seconds for ``runs`` runs of ``g`` started at once (each ``steps`` steps)."""
    t0 = time.perf_counter()
    finals = await asyncio.gather(*(g.run(f"{tag}-{i}", Counter()) for i in range(runs)))
    dt = time.perf_counter() - t0
    assert all(f.n == steps // 2 for f in finals)
    return dt


async def _lg_many(app: Any, runs: int, steps: int) -> float:
    cfg = [{"recursion_limit": steps + 10, "configurable": {"thread_id": f"t{i}"}} for i in range(runs)]
    t0 = time.perf_counter()
    outs = await asyncio.gather(*(app.ainvoke({"n": 0}, c, durability="sync") for c in cfg))
    dt = time.perf_counter() - t0
    assert all(o["n"] == steps // 2 for o in outs)
    return dt


async def ours_sqlite_many(runs: int, steps: int) -> float:
    """``runs`` concurrent runs on one `SQLiteStore` file."""

    async def go(path: str) -> float:
        async with SQLiteStore(path, synchronous=SYNCHRONOUS) as store:
            return await _many(engine(store, steps), runs, steps, "m")

    return await _sqlite_file(go)


async def langgraph_sqlite_many(runs: int, steps: int) -> float:
    """``runs`` concurrent LangGraph runs (one thread each) on one `AsyncSqliteSaver`."""

    async def go(path: str) -> float:
        saver, conn = await open_langgraph_saver(Path(path))
        try:
            return await _lg_many(langgraph_loop(steps, saver), runs, steps)
        finally:
            await conn.close()

    return await _sqlite_file(go)


POOL = 10
"""Connections of each side's PostgreSQL (and MySQL) pool in the many-runs rows."""


async def ours_pg_many(runs: int, steps: int) -> float:
    """``runs`` concurrent runs on one `PostgresStore` (a pool of `POOL` connections)."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    try:
        async with PostgresStore(DSN, schema=schema, max_size=POOL) as store:
            return await _many(engine(store, steps), runs, steps, "m")
    finally:
        await drop_schema(schema)


async def langgraph_pg_many(runs: int, steps: int) -> float:
    """``runs`` concurrent LangGraph runs on one `AsyncPostgresSaver` over a pool of `POOL` connections."""
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    schema = f"bench_{uuid.uuid4().hex[:12]}"
    conn = await _pg_admin()
    await conn.execute(f"CREATE SCHEMA {schema}")
    await conn.close()
    kwargs = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    dsn = f"{DSN}?options=-csearch_path%3D{schema}"
    try:
        async with AsyncConnectionPool(dsn, max_size=POOL, kwargs=kwargs, open=False) as pool:
            saver = AsyncPostgresSaver(pool)  # type: ignore[arg-type]
            await saver.setup()
            return await _lg_many(langgraph_loop(steps, saver), runs, steps)
    finally:
        await drop_schema(schema)


def _mysql_dsn(db: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(MYSQL_DSN)._replace(path=f"/{db}").geturl()


async def ours_mysql_many(runs: int, steps: int) -> float:
    """``runs`` concurrent runs on one `MySQLStore` (a pool of `POOL` connections)."""
    from graphengine.store import MySQLStore

    db = await _mysql_database()
    try:
        async with MySQLStore(_mysql_dsn(db), max_size=POOL) as store:
            return await _many(engine(store, steps), runs, steps, "m")
    finally:
        await _drop_mysql_database(db)


async def floor_mysql_many(runs: int, steps: int) -> float:
    """The raw-driver floor of `ours_mysql_many`: ``runs`` concurrent loops over an asyncmy pool of
    `POOL` connections, each doing one autocommitted INSERT of a step-sized row per step (as
    `floor_mysql`; no run rows, no reads)."""
    import asyncmy

    db = await _mysql_database()
    try:
        async with asyncmy.create_pool(
            **_mysql_server(), db=db, autocommit=True, minsize=POOL, maxsize=POOL
        ) as pool:
            async with pool.acquire() as conn, conn.cursor() as cur:
                await cur.execute(_FLOOR_TABLE.format(blob="longblob"))
            insert = "INSERT INTO steps VALUES (%s, %s, %s, %s, %s, %s)"
            delta = Counter(n=1).model_dump_json().encode()

            async def one(run_id: str) -> None:
                for step in range(1, steps + 1):
                    async with pool.acquire() as conn, conn.cursor() as cur:
                        await cur.execute(insert, (run_id, step, "inc", delta, '"check"', time.time()))

            t0 = time.perf_counter()
            await asyncio.gather(*(one(f"m-{i}") for i in range(runs)))
            return time.perf_counter() - t0
    finally:
        await _drop_mysql_database(db)


MYSQL_MANY: dict[str, tuple[str, Callable[[int, int], Any]]] = {
    "ours-mysql": (f"graphengine + MySQLStore (pool {POOL})", ours_mysql_many),
    "floor-mysql": (f"floor: asyncmy pool {POOL}, one INSERT per step", floor_mysql_many),
}
"""The MySQL section's many-runs rows (``--mysql-runs`` runs each)."""


def mysql_section(steps: int, repeat: int, runs: int, many_steps: int, many_repeat: int) -> None:
    """Print the MySQL section: one run against the asyncmy floor, then many runs at once."""
    print(f"MariaDB/MySQL at {MYSQL_DSN.split('@')[-1]}")
    print(f"one run of {steps} steps, a commit per step (median of {repeat} rounds):")
    one = {"ours-mysql": ours_one_run_mysql, "floor-mysql": floor_mysql}
    got = take_turns({k: functools.partial(fn, steps) for k, fn in one.items()}, repeat)
    print_one_run(got, steps, list(one))
    o, f = got["ours-mysql"], got["floor-mysql"]
    if o is not None and f is not None:
        print(f"  ours / raw driver floor: {o / f:.2f}x the floor's time")
    print(
        f"{runs} runs at once, {many_steps} steps each, a commit per step (median of {many_repeat} rounds):"
    )
    many = take_turns(
        {k: functools.partial(fn, runs, many_steps) for k, (_, fn) in MYSQL_MANY.items()}, many_repeat
    )
    for key, (label, _) in MYSQL_MANY.items():
        sec = many[key]
        if sec is not None:
            print(f"  {label:48} {runs / sec:7.0f} runs/s  {runs * many_steps / sec:8.0f} steps/s")
    o, f = many["ours-mysql"], many["floor-mysql"]
    if o is not None and f is not None:
        print(f"  ours / raw driver floor: {o / f:.2f}x the floor's time")
    print()


async def _pg_admin() -> Any:
    import asyncpg

    return await asyncpg.connect(DSN)


MANY: dict[str, tuple[str, Callable[[int, int], Any]]] = {
    "ours-sqlite": ("graphengine + SQLiteStore", ours_sqlite_many),
    "langgraph-sqlite": ("LangGraph + AsyncSqliteSaver", langgraph_sqlite_many),
    "ours-pg": (f"graphengine + PostgresStore (pool {POOL})", ours_pg_many),
    "langgraph-pg": (f"LangGraph + AsyncPostgresSaver (pool {POOL})", langgraph_pg_many),
}
"""The many-runs rows; SQLite ones take ``--sqlite-runs`` runs, PostgreSQL ones ``--pg-runs``."""


# ------------------------------------------------------------------------------ workers


async def _worker(schema: str, runs: int, steps: int, concurrency: int, offset: int) -> int:
    """Claim and drive every run this process can get; returns the steps it committed."""
    async with PostgresStore(DSN, schema=schema, max_size=concurrency + 1) as store:
        g = engine(store, steps)
        me = f"{os.getpid()}"
        order = [f"r{(i + offset) % runs}" for i in range(runs)]
        done = 0

        async def lane(ids: list[str]) -> None:
            nonlocal done
            for run_id in ids:
                lease = await store.claim(run_id, me, 60.0)
                if lease is None:
                    continue
                try:
                    rec = await store.get_run(run_id)
                    if rec is not None and rec.status is RunStatus.RUNNING:
                        # The runs were created by the benchmark, not by Engine.run: accept
                        # their empty graph fingerprint.
                        await g.resume(run_id, allow_graph_change=True)
                        done += steps
                finally:
                    await store.release(lease)

        await asyncio.gather(*(lane(order[i::concurrency]) for i in range(concurrency)))
        return done


def _worker_main(args: tuple[str, int, int, int, int]) -> int:
    return asyncio.run(_worker(*args))


async def _create_runs(schema: str, runs: int) -> None:
    async with PostgresStore(DSN, schema=schema) as store:
        initial = Counter().model_dump_json().encode()
        for i in range(runs):
            await store.create_run(RunRecord(f"r{i}", RunStatus.RUNNING, initial))


def workers_throughput(procs: int, runs: int, steps: int, concurrency: int) -> tuple[float, int]:
    """(steps/s, steps committed) of ``procs`` processes sharing ``runs`` runs."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    asyncio.run(_create_runs(schema, runs))
    try:
        ctx = mp.get_context("spawn")
        with ctx.Pool(procs) as pool:
            # Warm the processes (imports, first connection) outside the timing.
            pool.map(int, range(procs))
            t0 = time.perf_counter()
            counts = pool.map(
                _worker_main, [(schema, runs, steps, concurrency, i * runs // procs) for i in range(procs)]
            )
            dt = time.perf_counter() - t0
        total = sum(counts)
        assert total == runs * steps, (total, runs * steps)
        return total / dt, total
    finally:
        asyncio.run(drop_schema(schema))


# ------------------------------------------------------------------------------ queued workers

RUN_STEPS_ENV = "GRAPHENGINE_BENCH_RUN_STEPS"


def worker_engine(store: Any) -> Engine[Counter]:
    """The loop served by ``graphengine worker bench.scale:worker_engine`` (steps from the environment)."""
    return engine(store, int(os.environ.get(RUN_STEPS_ENV, "20")))


async def _submit_all(schema: str, runs: int, steps: int) -> None:
    from graphengine.workers import RunQueue

    async with PostgresStore(DSN, schema=schema, max_size=2) as store, RunQueue(DSN, queue=schema) as q:
        g = engine(store, steps)
        for i in range(runs):
            await g.submit(f"r{i}", Counter(), queue=q)


async def _progress(schema: str) -> tuple[int, int, float, float]:
    """(runs done, steps committed, first step's ts, last step's ts) of the benchmark schema."""
    import asyncpg

    conn = await asyncpg.connect(DSN)
    try:
        done = await conn.fetchval(f"SELECT count(*) FROM {schema}.runs WHERE status = 'done'")
        n, lo, hi = await conn.fetchrow(f"SELECT count(*), min(ts), max(ts) FROM {schema}.steps")
        return int(done), int(n), float(lo or 0.0), float(hi or 0.0)
    finally:
        await conn.close()


async def _drop_queue(queue: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(DSN)
    try:
        await conn.execute("DELETE FROM procrastinate_jobs WHERE queue_name = $1", queue)
    finally:
        await conn.close()


def queued_throughput(procs: int, runs: int, steps: int, concurrency: int) -> tuple[float, int]:
    """(steps/s, steps committed) of ``procs`` ``graphengine worker`` processes serving ``runs`` submitted runs."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    asyncio.run(_submit_all(schema, runs, steps))
    env = dict(os.environ, **{RUN_STEPS_ENV: str(steps)})
    cmd = [sys.executable, "-m", "graphengine", "worker", "bench.scale:worker_engine"]
    cmd += ["--store", f"{DSN}?schema={schema}", "--queue", schema, "--concurrency", str(concurrency)]
    cmd += ["--log-level", "WARNING"]
    workers = [subprocess.Popen(cmd, env=env) for _ in range(procs)]
    try:
        deadline = time.monotonic() + 600
        while True:
            done, n, lo, hi = asyncio.run(_progress(schema))
            if done == runs:
                break
            if time.monotonic() > deadline or any(w.poll() is not None for w in workers):
                raise RuntimeError(f"workers stopped or timed out with {done}/{runs} runs done")
            time.sleep(0.2)
        assert n == runs * steps, (n, runs * steps)
        return n / (hi - lo), n
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait()
        asyncio.run(_drop_queue(schema))
        asyncio.run(drop_schema(schema))


# ------------------------------------------------------------------------------ fan-out

WIDTH_ENV = "GRAPHENGINE_BENCH_WIDTH"


class Wide(BaseModel):
    """State of the fan-out benchmark: every branch's item, in declared order, and their sum."""

    item: int = 0
    items: Annotated[list[int], append] = []
    total: Annotated[int, operator.add] = 0


async def _wide_start(ctx: Context, s: Wide) -> NodeResult[Wide]:
    width = int(os.environ.get(WIDTH_ENV, "1000"))
    return NodeResult(route=fan_out([Branch("work", Wide(item=k)) for k in range(width)], join="join"))


async def _wide_work(ctx: Context, s: Wide) -> NodeResult[Wide]:
    return NodeResult(delta=Wide(items=[s.item], total=s.item))


async def _wide_join(ctx: Context, s: Wide) -> NodeResult[Wide]:
    return NodeResult(route=stop())


def fanout_engine(store: Any) -> Engine[Wide]:
    """The fan-out served by ``graphengine worker bench.scale:fanout_engine`` (width from the environment)."""
    g = Engine(Wide, store=store, options=Options(max_steps=10, max_concurrency=64))
    g.add("start", _wide_start).add("work", _wide_work).add("join", _wide_join).start_at("start")
    g.validate()
    return g


async def _fan_out_span(store: PostgresStore, run_id: str) -> float:
    """Seconds from the run's first step's commit to its last's (the start node to the join)."""
    steps = await store.load_steps(run_id)
    assert [r.node_id for r in steps] == ["start", "__fan_out__", "join"], steps
    return steps[-1].ts - steps[0].ts


async def fanout_in_process(width: int) -> float:
    """Seconds of the fan-out run in this process (start step's commit to the join's)."""
    os.environ[WIDTH_ENV] = str(width)
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    try:
        async with PostgresStore(DSN, schema=schema, max_size=4) as store:
            state = await fanout_engine(store).run("wide", Wide())
            assert len(state.items) == width
            return await _fan_out_span(store, "wide")
    finally:
        await drop_schema(schema)


async def _submit_wide(schema: str) -> None:
    from graphengine.workers import RunQueue

    async with PostgresStore(DSN, schema=schema, max_size=2) as store, RunQueue(DSN, queue=schema) as q:
        await fanout_engine(store).submit("wide", Wide(), queue=q)


async def _wide_done(schema: str) -> float | None:
    async with PostgresStore(DSN, schema=schema, max_size=1) as store:
        run = await store.get_run("wide")
        if run is None or run.status is not RunStatus.DONE:
            return None
        return await _fan_out_span(store, "wide")


def _cpu_seconds(pids: list[int]) -> float:
    """CPU time (user + system) the processes `pids` used so far (Linux /proc; 0 elsewhere)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            return 0.0
        total += int(fields[11]) + int(fields[12])  # utime, stime (clock ticks)
    return total / os.sysconf("SC_CLK_TCK")


def fanout_distributed(width: int, procs: int) -> tuple[float, float]:
    """(seconds, worker CPU seconds) of the fan-out run as branch jobs over ``procs`` worker processes."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    env = dict(os.environ, **{WIDTH_ENV: str(width)})
    os.environ[WIDTH_ENV] = str(width)
    cmd = [sys.executable, "-m", "graphengine", "worker", "bench.scale:fanout_engine"]
    cmd += ["--store", f"{DSN}?schema={schema}", "--queue", schema, "--concurrency", "8"]
    cmd += ["--log-level", "WARNING", "--fan-out-jobs", "8"]
    workers = [subprocess.Popen(cmd, env=env) for _ in range(procs)]
    try:
        time.sleep(3.0)  # worker start-up, untimed
        pids = [w.pid for w in workers]
        cpu0 = _cpu_seconds(pids)
        asyncio.run(_submit_wide(schema))
        deadline = time.monotonic() + 600
        while True:
            span = asyncio.run(_wide_done(schema))
            if span is not None:
                return span, _cpu_seconds(pids) - cpu0
            if time.monotonic() > deadline or any(w.poll() is not None for w in workers):
                raise RuntimeError("fan-out workers stopped or timed out")
            time.sleep(0.2)
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait()
        asyncio.run(_drop_queue(schema))
        asyncio.run(drop_schema(schema))


def fanout_section(width: int, counts: list[int], repeat: int) -> None:
    """Print the in-process and distributed fan-out rows (median of ``repeat`` rounds each)."""
    print(f"\none fan-out of {width} branches and its join on PostgreSQL (median of {repeat} rounds):")
    sec = statistics.median(asyncio.run(fanout_in_process(width)) for _ in range(repeat))
    print(f"  {'in process (the process driving the run)':50} {sec:7.2f} s  {width / sec:8.0f} branches/s")
    for n in counts:
        got = [fanout_distributed(width, n) for _ in range(repeat)]
        sec = statistics.median(t for t, _ in got)
        cpu = statistics.median(c for _, c in got)
        label = f"distributed: branch jobs, {n} worker process(es)"
        print(
            f"  {label:50} {sec:7.2f} s  {width / sec:8.0f} branches/s  "
            f"({cpu / width * 1e3:.1f} ms of worker CPU per branch)"
        )
    print(f"  (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")


def main(argv: list[str]) -> int:
    """Run the benchmark and print its report."""
    p = argparse.ArgumentParser(prog="python -m bench scale", description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=400, help="steps of the one-run loop")
    p.add_argument("--repeat", type=int, default=5, help="runs per one-run variant (median)")
    p.add_argument("--runs", type=int, default=200, help="runs shared by the worker processes")
    p.add_argument("--run-steps", type=int, default=20, help="steps of each worker run")
    p.add_argument("--concurrency", type=int, default=8, help="runs driven at once per process")
    p.add_argument("--workers", default="1,2,4", help="process counts to measure")
    p.add_argument("--sqlite-runs", type=int, default=500, help="concurrent runs on one SQLite file")
    p.add_argument("--pg-runs", type=int, default=1000, help="concurrent runs on one PostgreSQL pool")
    p.add_argument("--many-steps", type=int, default=10, help="steps of each concurrent run")
    p.add_argument("--many-repeat", type=int, default=3, help="rounds of the many-runs rows (median)")
    p.add_argument("--mysql-runs", type=int, default=1000, help="concurrent runs on one MySQL pool")
    p.add_argument("--width", type=int, default=1000, help="branches of the fan-out section")
    p.add_argument("--fanout-workers", default="3", help="worker process counts of the distributed fan-out")
    p.add_argument("--fanout-repeat", type=int, default=1, help="rounds of the fan-out rows (median)")
    p.add_argument(
        "--sections",
        default="sqlite,one,many,claim,queue,fanout",
        help="what to measure: one run on SQLite, one run on the servers, many runs at once, "
        "claiming processes, queued workers, one wide fan-out (in process and distributed); 'mysql' (not a default) measures MySQLStore alone, "
        "one run and --mysql-runs runs at once, against the asyncmy floor",
    )
    a = p.parse_args(argv)

    sections = set(a.sections.split(","))
    counts = [int(x) for x in a.workers.split(",")]
    print(f"PostgreSQL at {DSN.split('@')[-1]}, {os.cpu_count()} CPUs\n")
    if "sqlite" in sections:
        print(f"one run of {a.steps} steps on SQLite, a commit per step (median of {a.repeat} rounds):")
        got = take_turns({k: functools.partial(fn, a.steps) for k, (_, fn) in SQLITE_ONE.items()}, a.repeat)
        for key, (label, _) in SQLITE_ONE.items():
            sec = got[key]
            if sec is not None:
                print(f"  {label:52} {a.steps / sec:7.0f} steps/s  {sec / a.steps * 1e6:7.1f} µs/step")
        ours, lg = got["ours-sqlite"], got["langgraph-sqlite"]
        if ours is not None:
            print(f"  ours on SQLite: {ours / a.steps * 1e6:.1f} µs/step (target <= 100)")
        if ours is not None and lg is not None:
            print(f"  ours / LangGraph on SQLite: {lg / ours:.1f}x")
        print()
    if "mysql" in sections:
        mysql_section(a.steps, a.repeat, a.mysql_runs, a.many_steps, a.many_repeat)
    if "one" in sections:
        print(f"one run of {a.steps} steps, a commit per step (median of {a.repeat} rounds):")
        rounds = one_run_rows(a.steps, a.repeat)
        t = {k: statistics.median(v) if v else None for k, v in rounds.items()}
        print_one_run(t, a.steps, list(ONE_RUN_LABELS))
        ours, lg = t["ours-pg"], t["langgraph-pg"]
        if ours is not None and lg is not None:
            print(f"  ours / LangGraph on PostgreSQL: {lg / ours:.1f}x (target >= 3x)")
            # The two ran back to back in each round, under the same load: their ratio per round.
            per = sorted(b / o for o, b in zip(rounds["ours-pg"], rounds["langgraph-pg"], strict=True))
            print(
                f"  per round: {', '.join(f'{r:.1f}x' for r in per)} (median {statistics.median(per):.1f}x)"
            )
            # Each commit waits for its WAL flush: when flushes are slow (a busy disk), the
            # ratio tends to LangGraph's commits per step over ours.
            cps = asyncio.run(commits_per_step(100))
            floor = t["floor-pg"]
            print(
                f"  commits per step: ours {cps['ours-pg']:.2f}, LangGraph {cps['langgraph-pg']:.2f} "
                f"(pg_stat_database, a database of their own); one commit (c) takes "
                f"{(floor or 0) / a.steps * 1e6:.0f} µs here"
            )
        for db in ("pg", "mysql"):
            o, f = t[f"ours-{db}"], t[f"floor-{db}"]
            if o is not None and f is not None:
                print(f"  ours / raw driver floor on {db}: {o / f:.2f}x the floor's time")
    if "many" in sections:
        print(
            f"\nmany runs at once, {a.many_steps} steps each, a commit per step "
            f"(median of {a.many_repeat} rounds):"
        )
        runs_of = {"sqlite": a.sqlite_runs, "pg": a.pg_runs}
        variants = {
            k: functools.partial(fn, runs_of[k.split("-")[1]], a.many_steps) for k, (_, fn) in MANY.items()
        }
        got = take_turns(variants, a.many_repeat)
        for key, (label, _) in MANY.items():
            sec, runs = got[key], runs_of[key.split("-")[1]]
            if sec is not None:
                print(f"  {runs:5} runs, {label:44} {runs * a.many_steps / sec:8.0f} steps/s")
        for db, target in (("sqlite", 40), ("pg", 10)):
            o, lg = got[f"ours-{db}"], got[f"langgraph-{db}"]
            if o is not None and lg is not None:
                print(f"  ours / LangGraph, {runs_of[db]} runs on {db}: {lg / o:.1f}x (target >= {target}x)")
    if "claim" in sections:
        print(
            f"\nworker processes: {a.runs} runs x {a.run_steps} steps, claimed with leases, "
            f"{a.concurrency} runs at a time per process:"
        )
        base = None
        for n in counts:
            rate, total = workers_throughput(n, a.runs, a.run_steps, a.concurrency)
            base = base or rate
            print(f"  {n} process(es): {rate:9.0f} steps/s  ({total} steps, x{rate / base:.2f} of 1 process)")
    if "queue" in sections:
        print(
            f"\nqueued runs (Engine.submit -> procrastinate -> graphengine worker): {a.runs} runs x "
            f"{a.run_steps} steps, {a.concurrency} jobs at a time per worker:"
        )
        qbase = None
        for n in counts:
            rate, total = queued_throughput(n, a.runs, a.run_steps, a.concurrency)
            qbase = qbase or rate
            print(
                f"  {n} worker(s): {rate:9.0f} steps/s  ({total} steps, x{rate / qbase:.2f} of 1 worker, "
                f"{n / rate * 1e6:6.0f} µs of a process per step)"
            )
    if "fanout" in sections:
        fanout_section(a.width, [int(x) for x in a.fanout_workers.split(",")], a.fanout_repeat)
    return 0
