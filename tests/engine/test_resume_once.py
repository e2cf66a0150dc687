"""An interrupt's answer is taken once: concurrent resumes of one paused run execute the approved
node once, and every other caller gets `RunBusyError` with nothing run.

The side effect is a line appended to a file by the node (`pay`, in `tests/crash/resume_once.py`),
counted afterwards: the file is the oracle, not the engine's own report. Each backend is checked
in one process (`asyncio.gather`, through one store and through two store objects on the same
database) and, for SQLite, PostgreSQL and MySQL, with two processes; a process killed between the
status move and the node's commit leaves a run that a later resume finishes.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from crash.resume_once import BUSY, Payment, engine
from db_servers import store_url

from graphengine import Context, Engine, NodeResult, RunBusyError
from graphengine.store import (
    MemoryStore,
    RunStatus,
    SQLiteStore,
    Store,
    open_store,
)

CHILD = Path(__file__).resolve().parents[1] / "crash" / "resume_once.py"
WAIT = 60.0  # seconds: generous bound of every wait on a loaded machine (a poll, never a sleep)


@pytest.fixture(params=["ask", "before"])
def style(request: pytest.FixtureRequest) -> str:
    """How `pay` waits for its approval: `ctx.interrupt` inside it, or `interrupt_before`."""
    return str(request.param)


def _pays(log: Path) -> list[str]:
    """The `pay` lines the approved node wrote."""
    return log.read_text().splitlines() if log.exists() else []


async def _paused(g: Engine[Payment], run_id: str) -> None:
    """Start `run_id`; it pauses before `pay`."""
    await g.run(run_id, Payment())
    assert (await g.get_run(run_id)).status is RunStatus.INTERRUPTED


async def _check_done(store: Store, run_id: str, log: Path, answers: Sequence[str]) -> str:
    """The run finished once, with one of `answers`, paid once, and reads back whole; the answer."""
    pays = _pays(log)
    assert len(pays) == 1, pays
    answer = pays[0].split(" ")[2]
    assert answer in answers
    run = await store.get_run(run_id)
    assert run is not None and run.status is RunStatus.DONE, run
    steps = await store.load_steps(run_id)
    # step 1: pay asking (style "ask") or the node before the pause ("before"); step 2: pay paid
    assert [s.step for s in steps] == [1, 2] and steps[-1].node_id == "pay"
    assert json.loads(steps[-1].delta or b"{}") == {"paid": answer}
    g = engine(store, str(log), "")
    assert (await g.get_state(run_id)).paid == answer
    return answer


@asynccontextmanager
async def _same_database(store: Store) -> AsyncIterator[Store]:
    """A second store object on `store`'s data (the same object for a MemoryStore)."""
    if isinstance(store, MemoryStore):
        yield store
        return
    other = open_store(store_url(store), create=False)
    try:
        yield other
    finally:
        await other.close()


# ---------------------------------------------------------------------------- one process


@pytest.mark.parametrize("two_stores", [False, True], ids=["one store", "two store objects"])
async def test_two_resumes_at_once_pay_once(
    store: Store, tmp_path: Path, two_stores: bool, style: str
) -> None:
    """Two resumes of one paused run started together: `pay` runs once, the other gets RunBusyError.

    `pay` waits for the go-ahead, given once one resume has returned: so the other certainly came
    while the answer was being driven (one arriving after the run finished reads it finished).
    """
    log, go = tmp_path / "pay.log", tmp_path / "go"
    a = engine(store, str(log), str(go), style=style)
    await _paused(a, "r")
    async with _same_database(store) as other:
        b = engine(other if two_stores else store, str(log), str(go), style=style)
        tasks = [
            asyncio.ensure_future(a.resume("r", input="alice")),
            asyncio.ensure_future(b.resume("r", input="bob")),
        ]
        await asyncio.wait(tasks, timeout=WAIT, return_when=asyncio.FIRST_COMPLETED)
        go.touch()
        got = await asyncio.gather(*tasks, return_exceptions=True)
    busy = [x for x in got if isinstance(x, RunBusyError)]
    done = [x for x in got if isinstance(x, Payment)]
    assert len(busy) == 1 and len(done) == 1, got
    assert busy[0].run_id == "r" and "nothing was run" in str(busy[0])
    answer = await _check_done(store, "r", log, ["alice", "bob"])
    assert done[0].paid == answer


async def test_resume_while_the_answer_is_being_driven_is_refused(
    store: Store, tmp_path: Path, style: str
) -> None:
    """A resume (with or without input, a stream too) arriving while `pay` runs is refused;
    the run then finishes with the first answer."""
    log, go = tmp_path / "pay.log", tmp_path / "go"
    g = engine(store, str(log), str(go), style=style)
    await _paused(g, "r")
    first = asyncio.ensure_future(g.resume("r", input="alice"))
    await _until(lambda: len(_pays(log)) == 1)
    for late in (g.resume("r", input="bob"), g.resume("r"), g.stream_resume("r", input="bob").collect()):
        with pytest.raises(RunBusyError):
            await late
    go.touch()
    assert (await asyncio.wait_for(first, WAIT)).paid == "alice"
    assert await _check_done(store, "r", log, ["alice"]) == "alice"


async def test_resume_of_a_run_being_started_is_refused(store: Store) -> None:
    """`run` owns its run too: a resume in this process meanwhile is refused, nothing run twice."""
    gate = asyncio.Event()
    calls: list[str] = []

    async def slow(ctx: Context, s: Payment) -> NodeResult[Payment]:
        calls.append(ctx.run_id)
        await gate.wait()
        return NodeResult(delta=Payment(paid="x"))

    g = Engine(Payment, store=store).add("slow", slow).start_at("slow")
    running = asyncio.ensure_future(g.run("r", Payment()))
    await _until(lambda: calls == ["r"])
    with pytest.raises(RunBusyError):
        await g.resume("r")
    gate.set()
    assert (await asyncio.wait_for(running, WAIT)).paid == "x"
    assert calls == ["r"]
    assert (await g.resume("r")).paid == "x"  # finished and free: a resume reads it


async def test_a_run_left_running_past_its_interrupt_is_taken_over(
    store: Store, tmp_path: Path, style: str
) -> None:
    """Status `running` at the interrupt with no live driver (a driver that died after its status
    write): a store that can tell (all four backends here) lets a resume with input finish it."""
    log, go = tmp_path / "pay.log", tmp_path / "go"
    go.touch()
    g = engine(store, str(log), str(go), style=style)
    await _paused(g, "r")
    await store.set_status("r", RunStatus.RUNNING, expect_status=RunStatus.INTERRUPTED)
    assert (await g.resume("r", input="alice")).paid == "alice"
    assert await _check_done(store, "r", log, ["alice"]) == "alice"


# ------------------------------------------------- a store that cannot tell whether a driver lives


class _Blind:
    """Delegates to a MemoryStore without its run locks (a store with no ownership); `load_latest`
    waits until `readers` callers have read, so every resume reads before any writes."""

    def __init__(self, inner: MemoryStore, barrier: asyncio.Barrier | None = None) -> None:
        self._inner = inner
        self._barrier = barrier

    async def load_latest(self, run_id: str) -> Any:
        latest = await self._inner.load_latest(run_id)
        if self._barrier is not None:
            await asyncio.wait_for(self._barrier.wait(), WAIT)
        return latest

    def __getattr__(self, name: str) -> Any:
        if name in ("lock_run", "unlock_run", "claim"):
            raise AttributeError(name)
        return getattr(self._inner, name)


async def test_without_ownership_the_status_compare_and_set_lets_one_answer(
    tmp_path: Path, style: str
) -> None:
    """Two resumes that both read the run paused: the one whose status write loses gets
    RunBusyError ("another resume took the answer") instead of running `pay` again."""
    log, go = tmp_path / "pay.log", tmp_path / "go"
    go.touch()
    inner = MemoryStore()
    await _paused(engine(inner, str(log), str(go), style=style), "r")
    barrier = asyncio.Barrier(2)
    a, b = (engine(_Blind(inner, barrier), str(log), str(go), style=style) for _ in range(2))  # type: ignore[arg-type]
    got = await asyncio.gather(
        a.resume("r", input="alice"), b.resume("r", input="bob"), return_exceptions=True
    )
    busy = [x for x in got if isinstance(x, RunBusyError)]
    assert len(busy) == 1 and "another resume took the answer" in str(busy[0]), got
    await _check_done(inner, "r", log, ["alice", "bob"])


async def test_without_ownership_a_run_running_past_its_interrupt_is_refused_until_put_back(
    tmp_path: Path, style: str
) -> None:
    """No ownership: `running` at the interrupt may have a live driver elsewhere, so an answer is
    refused; `resume(run_id)` without input puts it back to waiting, and then it is answered."""
    log, go = tmp_path / "pay.log", tmp_path / "go"
    go.touch()
    inner = MemoryStore()
    g = engine(_Blind(inner), str(log), str(go), style=style)  # type: ignore[arg-type]
    await _paused(g, "r")
    await inner.set_status("r", RunStatus.RUNNING)
    with pytest.raises(RunBusyError, match="without input puts the run back to waiting"):
        await g.resume("r", input="alice")
    assert _pays(log) == []
    await g.resume("r")
    assert (await inner.get_run("r")).status is RunStatus.INTERRUPTED  # type: ignore[union-attr]
    assert (await g.resume("r", input="alice")).paid == "alice"
    await _check_done(inner, "r", log, ["alice"])


# ---------------------------------------------------------------------------- two processes


@contextmanager
def _children(*args: Sequence[str]) -> Iterator[list[subprocess.Popen[str]]]:
    """Child processes of `resume_once.py`, each ready (imports done); killed if still alive at exit."""
    procs = [
        subprocess.Popen(
            [sys.executable, str(CHILD), *a],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        for a in args
    ]
    try:
        for p in procs:
            assert p.stdout is not None
            line = p.stdout.readline()
            assert line == "ready\n", (line, p.stderr.read() if p.stderr else "")
        yield procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(WAIT)


async def _until(cond: Any, what: str = "condition") -> None:
    """Poll `cond()` until it holds (bounded by WAIT)."""
    deadline = time.monotonic() + WAIT
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def test_two_processes_resume_at_once_pay_once(sql_store: Store, tmp_path: Path, style: str) -> None:
    """Two processes resume the same paused run at once: `pay` runs once; the loser exits with
    RunBusyError while the winner is still inside `pay` (it waits for the go-ahead, given only
    then), and the stored run is the winner's."""
    log, go = tmp_path / "pay.log", tmp_path / "go"
    await _paused(engine(sql_store, str(log), str(go), style=style), "r")
    url = store_url(sql_store)
    with _children(*([url, "r", who, str(log), str(go), "30", style] for who in ("alice", "bob"))) as procs:
        await _until(lambda: any(p.poll() is not None for p in procs), "a child to give up")
        loser = next(p for p in procs if p.poll() is not None)
        winner = next(p for p in procs if p is not loser)
        assert loser.returncode == BUSY, loser.communicate()
        assert winner.poll() is None  # still holding the answer, inside pay or before it
        go.touch()
        out, err = winner.communicate(timeout=WAIT)
        assert winner.returncode == 0, err
    answer = await _check_done(sql_store, "r", log, ["alice", "bob"])
    assert out.split() == ["done", answer]


async def test_sigkill_after_the_status_move_then_a_resume_finishes_the_run(
    sql_store: Store, tmp_path: Path, style: str
) -> None:
    """A process killed inside `pay` (status moved to running, the answer's step not committed):
    a later resume with input finishes the run: at once on SQLite (the dead process's lock died
    with it), once the dead driver's lease ran out on a server store (until then: RunBusyError)."""
    log, go = tmp_path / "pay.log", tmp_path / "go"
    g = engine(sql_store, str(log), str(go), lease_ttl=1.0, style=style)
    await _paused(g, "r")
    with _children([store_url(sql_store), "r", "alice", str(log), str(go), "1.0", style]) as (child,):
        await _until(lambda: len(_pays(log)) == 1, "the child inside pay")
        assert (await sql_store.get_run("r")).status is RunStatus.RUNNING  # type: ignore[union-attr]
        os.kill(child.pid, signal.SIGKILL)
        child.wait(WAIT)
    assert [s.step for s in await sql_store.load_steps("r")] == [1]  # the answer was not committed
    go.touch()
    deadline = time.monotonic() + WAIT
    while True:
        try:
            final = await g.resume("r", input="bob")
            break
        except RunBusyError:
            assert not isinstance(sql_store, SQLiteStore), "the dead process's lock outlived it"
            assert time.monotonic() < deadline, "the dead driver's lease never ran out"
            await asyncio.sleep(0.1)
    assert final.paid == "bob"
    # The killed attempt paid before its step committed (at least once across a crash); the
    # run's record holds the answer that committed.
    assert [line.split(" ")[2] for line in _pays(log)] == ["alice", "bob"]
    log.write_text("pay r bob\n")
    await _check_done(sql_store, "r", log, ["bob"])
