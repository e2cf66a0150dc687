"""Distributed fan-out (issue 45): a 1,000-branch fan-out run as branch jobs by three real worker processes.

The main test starts three `graphengine worker fanout_graph:build` processes (2-second leases,
`tests/fanout_graph.py`), submits one run whose fan-out has 1,000 branches, SIGKILLs one worker
while it runs branches and SIGSTOPs another inside a branch until its claim has expired and its
stalled jobs were re-run elsewhere, then SIGCONTs it. Neither is left to timing: before each
signal the test holds that worker inside the branches it takes next (a file the graph's `work`
waits on, `tests/fanout_graph.py`) and checks in the store that it owns their claims, so the kill
and the stop always land on unfinished claimed branches. Waits are hang guards scaled to the
pace observed on the machine, not speeds. It checks, from the store, the side log
every branch execution appends to and the workers' logs, that:

1. while its branches were out the run was `waiting` (it held no task);
2. every branch result is stored exactly once, and the join committed the fan-out step once;
3. the joined state equals the same graph's in-process run (a `MemoryStore`);
4. the branches the killed worker had started and not finished were executed by other workers;
5. the stopped worker, once continued, finished its branch and the store refused that late
   result (logged by the worker: refused by the fence, or a second result refused).

It runs with the store on PostgreSQL and on MySQL/MariaDB (the queue stays on PostgreSQL:
procrastinate keeps its queue in PostgreSQL only). Under CI=true an unavailable server fails it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

import pytest
from db_servers import MYSQL_DSN, POSTGRES_DSN, mysql_store, require_worker_servers, server_store, unique_name
from fanout_graph import FState, build
from pydantic import BaseModel

from graphengine import Branch, Context, EncodeError, Engine, NodeError, NodeResult, fan_out, stop
from graphengine.branches import FanOutGone, dispatching, run_branch
from graphengine.commute import commutative
from graphengine.crdt import GCounter, converge, replica_id
from graphengine.emit import EventKind, MemoryEmitter
from graphengine.store import MemoryStore, MySQLStore, PostgresStore, RunStatus, SQLiteStore, Store
from graphengine.workers import RunQueue

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 1000
TTL = 2.0
"""Seconds of a lease or branch claim (renewed every TTL / 3); jobs of a silent worker move after 2 * TTL."""
WORKERS = 3
CONCURRENCY = 4
FAN_OUT_STEP = 2
"""The step of the fan-out (`start` is step 1)."""


@dataclass
class Setup:
    """A store (schema or database) and a queue of the test's own."""

    queue: str
    store: PostgresStore | MySQLStore
    tmp: Path

    @property
    def store_url(self) -> str:
        if isinstance(self.store, PostgresStore):
            return f"{POSTGRES_DSN}?schema={self.store.schema}"
        return urlsplit(MYSQL_DSN)._replace(path=f"/{self.store.database}").geturl()


async def _drop_queue(queue: str, schema: str | None) -> None:
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(POSTGRES_DSN)
    try:
        if schema is not None:
            await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        if await conn.fetchval("SELECT to_regclass('procrastinate_jobs') IS NOT NULL"):
            await conn.execute("DELETE FROM procrastinate_jobs WHERE queue_name = $1", queue)
    finally:
        await conn.close()


@pytest.fixture(params=["postgres", "mysql"])
async def setup(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Setup]:
    """An empty store (PostgreSQL schema or MySQL database) and queue name, removed afterwards."""
    require_worker_servers(request.param)
    queue = unique_name("fanout")
    if request.param == "mysql":
        async with mysql_store() as my:
            try:
                yield Setup(queue, my, tmp_path)
            finally:
                await _drop_queue(queue, None)
        return
    async with PostgresStore(POSTGRES_DSN, schema=queue, max_size=4) as pg:
        try:
            yield Setup(queue, pg, tmp_path)
        finally:
            await _drop_queue(queue, queue)


def _spawn(s: Setup, n: int, side: Path, hold: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """Start worker process `n`; its stderr (its log) goes to a file."""
    err = s.tmp / f"worker{n}.err"
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests"), str(ROOT)]),
        GRAPHENGINE_TEST_SIDE_LOG=str(side),
        GRAPHENGINE_TEST_WIDTH=str(WIDTH),
        GRAPHENGINE_TEST_HOLD_DIR=str(hold),
    )
    cmd = [sys.executable, "-m", "graphengine", "worker", "fanout_graph:build", "--store", s.store_url]
    cmd += ["--queue-dsn", POSTGRES_DSN, "--queue", s.queue, "--ttl", str(TTL)]
    cmd += ["--concurrency", str(CONCURRENCY), "--fan-out-jobs", "8"]
    with err.open("wb") as fh:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=fh, stderr=fh)
    return proc, err


@dataclass(frozen=True, slots=True)
class Line:
    """A side-log line: a branch execution starting or finishing."""

    what: str
    pid: int
    branch: int
    token: int


def _side(path: Path) -> list[Line]:
    try:
        text = path.read_text()
    except FileNotFoundError:
        return []
    out = []
    for raw in text.splitlines():
        what, pid, b, token = raw.split()
        out.append(Line(what, int(pid), int(b), int(token)))
    return out


async def _claims(s: Setup, pid: int) -> dict[int, int]:
    """branch -> token of the fan-out's claims the store says worker `pid` owns (`host:pid/job<id>`)."""
    owner = f"{socket.gethostname()}:{pid}/%"
    if isinstance(s.store, PostgresStore):
        import asyncpg  # type: ignore[import-untyped,unused-ignore]

        conn = await asyncpg.connect(POSTGRES_DSN)
        try:
            rows = await conn.fetch(
                f"SELECT branch, token FROM {s.store.schema}.branch_claims"
                " WHERE run_id = $1 AND step = $2 AND owner LIKE $3",
                "wide",
                FAN_OUT_STEP,
                owner,
            )
        finally:
            await conn.close()
        return {int(r[0]): int(r[1]) for r in rows}
    import asyncmy

    url = urlsplit(MYSQL_DSN)
    my = await asyncmy.connect(
        host=url.hostname, port=url.port or 3306, user=url.username or "root", password=url.password or ""
    )
    try:
        async with my.cursor() as cur:
            await cur.execute(
                f"SELECT branch, token FROM {s.store.database}.branch_claims"
                " WHERE run_id = %s AND step = %s AND owner LIKE %s",
                ("wide", FAN_OUT_STEP, owner),
            )
            rows = await cur.fetchall()
    finally:
        my.close()
    return {int(r[0]): int(r[1]) for r in rows}


def _holding(lines: list[Line], pid: int) -> set[tuple[int, int]]:
    """(branch, token) executions `pid` is held inside: it logged `hold` and no `exec` for them."""
    held = {(x.branch, x.token) for x in lines if x.pid == pid and x.what == "hold"}
    return held - {(x.branch, x.token) for x in lines if x.pid == pid and x.what == "exec"}


def _unfinished(lines: list[Line], pid: int) -> set[tuple[int, int]]:
    """(branch, token) executions `pid` started and has not finished."""
    started = {(x.branch, x.token) for x in lines if x.pid == pid and x.what == "start"}
    return started - {(x.branch, x.token) for x in lines if x.pid == pid and x.what == "exec"}


async def _nonempty(found: Awaitable[set[tuple[int, int]]]) -> bool:
    return bool(await found)


async def _wait(
    what: str,
    cond: Callable[[], Awaitable[bool]],
    seconds: float,
    procs: list[tuple[subprocess.Popen[bytes], Path]],
) -> None:
    """Poll `cond()` until true; on a timeout fail with what each worker logged last."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await cond():
            return
        await asyncio.sleep(0.05)
    logs = "".join(
        f"\n--- worker {n} (pid {p.pid}, exit {p.poll()}):\n" + err.read_text()[-2000:]
        for n, (p, err) in enumerate(procs)
    )
    raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what}{logs}")


async def test_a_thousand_branches_over_three_workers_survive_a_kill_and_a_stop(
    setup: Setup, tmp_path: Path
) -> None:
    """Every branch result is stored once and the join equals the in-process run, though one worker is killed and one stopped past its claim."""
    os.environ.setdefault("GRAPHENGINE_TEST_WIDTH", str(WIDTH))
    ref: FState = await build(MemoryStore()).run("ref", FState())
    assert ref.joined and len(ref.items) == WIDTH

    side = tmp_path / "side.log"
    hold = tmp_path / "hold"
    hold.mkdir()
    procs = [_spawn(setup, n, side, hold) for n in range(WORKERS)]
    store = setup.store
    killed, stopped = procs[0][0], procs[1][0]
    seen_waiting = False
    try:
        g = build(store)
        t0 = time.monotonic()
        async with RunQueue(POSTGRES_DSN, queue=setup.queue) as q:
            await g.submit("wide", FState(), queue=q)

        async def stored_at_least(n: int) -> bool:
            nonlocal seen_waiting
            run = await store.get_run("wide")
            seen_waiting = seen_waiting or (run is not None and run.status is RunStatus.WAITING)
            return await store.count_branches("wide", FAN_OUT_STEP) >= n

        await _wait("a quarter of the branches", lambda: stored_at_least(WIDTH // 4), 180, procs)
        # The machine's pace: every later wait is a hang guard of six times what the first quarter
        # took, at least two minutes; not a speed the test asserts.
        bound = max(120.0, 6 * (time.monotonic() - t0))

        async def held_in_store(pid: int) -> set[tuple[int, int]]:
            # Branches `pid` is held inside whose claims the store says it owns, under that token.
            mine = await _claims(setup, pid)
            return {(b, t) for b, t in _holding(_side(side), pid) if mine.get(b) == t}

        # Kill worker 0 while it holds claims of branches it has not finished: it is held inside
        # the ones it takes from now on (its claims renewed) until the SIGKILL.
        (hold / str(killed.pid)).touch()
        await _wait(
            "worker 0 held inside a claimed branch",
            lambda: _nonempty(held_in_store(killed.pid)),
            bound,
            procs,
        )
        claimed = await held_in_store(killed.pid)
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        cut_short = {b for b, _ in _unfinished(_side(side), killed.pid)}
        assert {b for b, _ in claimed} <= cut_short

        # Stop worker 1 inside branches whose claims it owns (held there as worker 0 was).
        await _wait("half of the branches", lambda: stored_at_least(WIDTH // 2), bound, procs)
        (hold / str(stopped.pid)).touch()
        await _wait(
            "worker 1 held inside a claimed branch",
            lambda: _nonempty(held_in_store(stopped.pid)),
            bound,
            procs,
        )
        os.kill(stopped.pid, signal.SIGSTOP)
        held = _unfinished(_side(side), stopped.pid)
        assert await held_in_store(stopped.pid) <= held and held

        async def taken_over() -> bool:
            # Every branch it holds re-run by another worker under a newer claim, and stored.
            lines = _side(side)
            redone = all(
                any(
                    x.pid != stopped.pid and x.branch == b and x.token > t and x.what == "exec" for x in lines
                )
                for b, t in held
            )
            return redone and await stored_at_least(WIDTH)

        await _wait("the other workers to take over the stopped one's branches", taken_over, bound, procs)
        (hold / str(stopped.pid)).unlink()  # continued, it finishes the branches it was held in
        os.kill(stopped.pid, signal.SIGCONT)

        async def done() -> bool:
            run = await store.get_run("wide")
            return run is not None and run.status is RunStatus.DONE

        await _wait("the join", done, bound, procs)
        elapsed = time.monotonic() - t0

        # The continued worker finishes its branch and sends its result, which is refused.
        async def refused() -> bool:
            text = procs[1][1].read_text()
            return "refused by the fence" in text or "this one refused" in text

        await _wait("the stopped worker's late result to be refused", refused, bound, procs)
    finally:
        for p, _ in procs:
            if p.poll() is None:
                os.kill(p.pid, signal.SIGCONT)
                p.terminate()
        for p, _ in procs:
            try:
                p.wait(timeout=TTL * 5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    # 1. The run waited without a task while its branches were out.
    assert seen_waiting
    # 2. Every branch stored once (the key refuses a second), the fan-out step committed once.
    recs = await store.load_branches("wide", FAN_OUT_STEP)
    assert [r.branch for r in recs] == list(range(WIDTH))
    steps = await store.load_steps("wide")
    assert [(r.step, r.node_id) for r in steps] == [(1, "start"), (2, "__fan_out__"), (3, "join")]
    # 3. The joined state is the in-process run's.
    got = await g.get_state("wide")
    assert got == ref
    # 4. What the killed worker had not finished was executed elsewhere.
    lines = _side(side)
    for b in cut_short:
        assert any(x.branch == b and x.what == "exec" and x.pid != killed.pid for x in lines), b
    # 5. The stopped worker executed its held branches to the end, after others had (late).
    for b, t in held:
        assert any(
            x.pid == stopped.pid and x.branch == b and x.token == t and x.what == "exec" for x in lines
        )
    print(f"\n{WIDTH} branches over {WORKERS} workers (one killed, one stopped): {elapsed:.1f} s")


async def test_the_embedded_set_up_keeps_the_fan_out_in_process(tmp_path: Path) -> None:
    """On SQLite (no queue, no branch claims) a wide fan-out runs in the process that drives the run."""
    os.environ.setdefault("GRAPHENGINE_TEST_WIDTH", str(WIDTH))
    async with SQLiteStore(str(tmp_path / "runs.db")) as s:
        state = await build(s).run("local", FState())
        assert state.joined and state.items == list(range(WIDTH))
        assert (await s.get_run("local")).status is RunStatus.DONE  # type: ignore[union-attr]


# ---------------------------------------------------------------- the seam, driven by the test

_MERGED: list[tuple[str, int]] = []
"""(field, item) per call of the recording field reducers, in call order."""


@commutative
def _union(prev: tuple[int, ...], delta: tuple[int, ...]) -> tuple[int, ...]:
    """A commuting field reducer that records the order it is called in."""
    _MERGED.extend(("bag", i) for i in delta)
    return tuple(sorted(set(prev) | set(delta)))


def _concat(prev: list[int], delta: list[int]) -> list[int]:
    """A field reducer that does not commute, recording the order it is called in."""
    _MERGED.extend(("seq", i) for i in delta)
    return prev + delta


class MState(BaseModel):
    """Even branches write a commuting field, odd ones one that does not commute."""

    item: int = 0
    bag: Annotated[tuple[int, ...], _union] = ()
    seq: Annotated[list[int], _concat] = []
    hits: Annotated[GCounter, converge] = GCounter()
    fail_at: int = -1


def _merge_graph(store: Store, width: int, emitter: MemoryEmitter | None = None) -> Engine[MState]:
    async def start(ctx: Context, s: MState) -> NodeResult[MState]:
        return NodeResult(
            route=fan_out(
                [Branch("work", MState(item=k, fail_at=s.fail_at)) for k in range(width)], join="join"
            )
        )

    async def work(ctx: Context, s: MState) -> NodeResult[MState]:
        if s.item == s.fail_at:
            raise ValueError(f"branch {s.item} fails")
        if s.item % 2 == 0:
            return NodeResult(delta=MState(bag=(s.item,), hits=s.hits.increment(replica_id(ctx))))
        return NodeResult(delta=MState(seq=[s.item]))

    async def join(ctx: Context, s: MState) -> NodeResult[MState]:
        return NodeResult(route=stop())

    g = Engine(MState, store=store, emitter=emitter)
    g.add("start", start).add("work", work).add("join", join).start_at("start")
    return g


class _Recorder:
    """A `BranchDispatcher` that keeps what it is handed."""

    def __init__(self) -> None:
        self.min_branches = 2
        self.out: list[tuple[str, int, list[int]]] = []

    def dispatch(self, run_id: str, step: int, branches: Sequence[int]) -> None:
        self.out.append((run_id, step, list(branches)))


@pytest.fixture(params=["postgres", "mysql"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[PostgresStore | MySQLStore]:
    """A fresh server store."""
    async with server_store(request.param) as s:
        yield s


async def test_the_join_merges_commuting_deltas_as_they_landed_and_the_others_in_declared_order(
    server: PostgresStore | MySQLStore,
) -> None:
    """A handed-out fan-out waits; its branches, stored in some order, merge at the join as the engine
    said at wiring: commuting fields in landing order, the others in declared order, to the in-process state."""
    width = 8
    events = MemoryEmitter()
    eng = _merge_graph(server, width, events)
    assert eng.spec().merge_order(["bag", "hits"]) == "completion"
    assert eng.spec().merge_order(["seq"]) == "declared"
    handed = _Recorder()
    with dispatching(handed):
        await eng.run("m", MState())
    assert handed.out == [("m", 2, list(range(width)))]
    assert (await server.get_run("m")).status is RunStatus.WAITING  # type: ignore[union-attr]
    [end] = events.of_kind(EventKind.RUN_END)  # the segment ends: emitters close what they opened
    assert end.meta["status"] == "waiting" and end.meta["dispatched"] == width
    landing = [6, 3, 0, 7, 4, 1, 2, 5]
    for b in landing:
        lease = await server.claim_branch("m", 2, b, "test", 60)
        assert lease is not None
        out = await run_branch(eng, "m", 2, b)
        assert out.record is not None and out.total == width
        await server.save_branch(out.record, lease)
    _MERGED.clear()
    with dispatching(handed):  # every result stored: the join runs here, nothing is handed out again
        got = await eng.resume("m")
    assert len(handed.out) == 1
    assert [i for f, i in _MERGED if f == "bag"] == [b for b in landing if b % 2 == 0]
    assert [i for f, i in _MERGED if f == "seq"] == [1, 3, 5, 7]
    ref = await _merge_graph(MemoryStore(), width).run("m", MState())
    assert got == ref and got.hits.value == width // 2


async def test_a_failed_branch_makes_the_join_fail_the_fan_out_as_in_process(
    server: PostgresStore | MySQLStore,
) -> None:
    """A branch job whose node fails marks it failed; the join re-runs it in process and the run fails with its NodeError."""
    eng = _merge_graph(server, 4)
    handed = _Recorder()
    with dispatching(handed):
        await eng.run("f", MState(fail_at=2))
    for b in (0, 1, 2):
        lease = await server.claim_branch("f", 2, b, "test", 60)
        assert lease is not None
        out = await run_branch(eng, "f", 2, b)
        if b == 2:
            assert out.record is None and isinstance(out.error, NodeError)
            await server.fail_branch(2, b, lease, str(out.error))
        else:
            assert out.record is not None
            await server.save_branch(out.record, lease)
    assert dict(await server.failed_branches("f", 2)) == {2: str(out.error)}
    with dispatching(handed), pytest.raises(NodeError, match="branch 2 fails"):
        await eng.resume("f")
    assert len(handed.out) == 1
    run = await server.get_run("f")
    assert run is not None and run.status is RunStatus.FAILED
    with pytest.raises(FanOutGone):  # no fan-out pending at that step, or no such run
        await run_branch(eng, "f", 5, 0)
    with pytest.raises(FanOutGone):
        await run_branch(eng, "nope", 2, 0)


async def test_serve_refuses_a_fan_out_threshold_below_one(server: PostgresStore | MySQLStore) -> None:
    """`serve(fan_out_jobs=0)` is a `ValueError` naming the setting (None keeps fan-outs in process)."""
    require_worker_servers()
    eng = _merge_graph(server, 2)
    queue = RunQueue(POSTGRES_DSN, queue=unique_name("refuse"))
    with pytest.raises(ValueError, match="fan_out_jobs=0"):
        await queue.serve(eng, fan_out_jobs=0, install_signal_handlers=False)


class LooseState(BaseModel):
    """A state with a field typed Any: what JSON gives back there is not fixed by its type."""

    item: int = 0
    loose: Any = None


def _loose_graph(store: Store) -> Engine[LooseState]:
    async def start(ctx: Context, s: LooseState) -> NodeResult[LooseState]:
        return NodeResult(route=fan_out([Branch("work", LooseState(item=k)) for k in range(3)], join="join"))

    async def work(ctx: Context, s: LooseState) -> NodeResult[LooseState]:
        # Branch 1 puts a tuple in the Any field: stored as JSON it would come back a list.
        return NodeResult(delta=LooseState(loose=(s.item,) if s.item == 1 else [s.item]))

    async def join(ctx: Context, s: LooseState) -> NodeResult[LooseState]:
        return NodeResult(route=stop())

    g = Engine(LooseState, store=store)
    g.add("start", start).add("work", work).add("join", join).start_at("start")
    return g


async def test_a_branch_job_delta_that_would_not_read_back_is_refused_as_in_process(
    server: PostgresStore | MySQLStore,
) -> None:
    """A branch run as a job elsewhere whose delta would read back as another type is refused with the
    in-process fan-out's EncodeError (field "branch 1 delta"), stores nothing, and the join fails the run."""
    with pytest.raises(EncodeError, match="tuple would read back as a list") as local:
        await _loose_graph(MemoryStore()).run("l", LooseState())
    assert local.value.field == "branch 1 delta"
    eng = _loose_graph(server)
    handed = _Recorder()
    with dispatching(handed):
        await eng.run("x", LooseState())
    assert handed.out == [("x", 2, [0, 1, 2])]
    for b in range(3):
        lease = await server.claim_branch("x", 2, b, "test", 60)
        assert lease is not None
        out = await run_branch(eng, "x", 2, b)
        if b == 1:
            assert out.record is None and isinstance(out.error, EncodeError)
            assert out.error.field == "branch 1 delta" and str(out.error) == str(local.value).replace(
                "'l'", "'x'"
            )
            await server.fail_branch(2, b, lease, str(out.error))
        else:
            assert out.record is not None
            await server.save_branch(out.record, lease)
    assert [r.branch for r in await server.load_branches("x", 2)] == [0, 2]
    with dispatching(handed), pytest.raises(EncodeError, match="tuple would read back as a list"):
        await eng.resume("x")
    run = await server.get_run("x")
    assert run is not None and run.status is RunStatus.FAILED
    assert [r.step for r in await server.load_steps("x")] == [1]  # the fan-out step was not committed
