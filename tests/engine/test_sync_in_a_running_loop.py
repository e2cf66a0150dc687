"""`run_sync` and `resume_sync` called from inside a running event loop, as a Jupyter cell calls them.

Each test is an `async def` (pytest runs it inside an event loop, as ipykernel runs a cell) that
calls the sync API without awaiting anything, then reads the run back through the async API on
the test's own loop: the store serves both loops, one after the other.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading

import pytest
from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, goto, stop
from graphengine.store import RunStatus, Store


class Count(BaseModel):
    """A counter and the threads its nodes ran on."""

    n: int = 0
    answer: str = ""


def counter(store: Store, *, to: int = 3) -> Engine[Count]:
    """inc -> check, looping until `n` reaches `to`."""
    g = Engine(Count, store=store)
    g.add("inc", lambda ctx, s: NodeResult(delta=Count(n=s.n + 1)))
    g.add("check", lambda ctx, s: NodeResult(route=stop() if s.n >= to else goto("inc")))
    return g.start_at("inc").connect("inc", "check")


async def test_run_sync_inside_a_running_loop_runs_the_graph(store: Store) -> None:
    """run_sync called in a running loop returns the final state, and the run is stored as done."""
    g = counter(store)
    asyncio.get_running_loop()  # the premise: a loop runs here, as in a notebook cell
    assert g.run_sync("r1", Count()) == Count(n=3)
    run = await g.get_run("r1")
    assert run.status is RunStatus.DONE
    assert len(await store.load_steps("r1")) == 6


async def test_sync_and_async_calls_take_turns_on_one_store(store: Store) -> None:
    """Sync calls and awaited calls on the same store alternate, each seeing what the other wrote."""
    g = counter(store, to=2)
    assert g.run_sync("a", Count()) == Count(n=2)
    assert await g.run("b", Count(n=1)) == Count(n=2)
    assert g.run_sync("c", Count(n=5)) == Count(n=6)
    assert (await g.get_state("a")) == Count(n=2)
    assert {r.run_id for r in await store.list_runs()} == {"a", "b", "c"}


async def test_resume_sync_inside_a_running_loop_answers_an_interrupt(store: Store) -> None:
    """A run paused at an interrupt is answered by resume_sync from inside a loop."""
    g = Engine(Count, store=store)

    def ask(ctx: Context, s: Count) -> NodeResult[Count]:
        return NodeResult(delta=Count(answer=str(ctx.interrupt("name?"))))

    g.add("ask", ask).start_at("ask")
    assert g.run_sync("r1", Count()) == Count()
    assert (await g.get_run("r1")).status is RunStatus.INTERRUPTED
    assert g.resume_sync("r1", input="Ada") == Count(answer="Ada")
    assert (await g.get_run("r1")).status is RunStatus.DONE


async def test_run_sync_runs_off_the_callers_thread_and_keeps_its_context() -> None:
    """Inside a loop the nodes run on graphengine's sync thread, and see the caller's context variables."""
    import contextvars

    tag: contextvars.ContextVar[str] = contextvars.ContextVar("tag", default="unset")
    seen: list[tuple[str, str]] = []
    g = Engine(Count)

    def look(ctx: Context, s: Count) -> NodeResult[Count]:
        seen.append((threading.current_thread().name, tag.get()))
        return NodeResult(route=stop())

    g.add("look", look).start_at("look")
    tag.set("cell 3")
    g.run_sync("r1", Count())
    assert seen == [("graphengine-sync", "cell 3")]


async def test_a_node_may_call_run_sync_of_another_engine() -> None:
    """A node driven by run_sync on the sync loop may itself call run_sync (it runs on a loop of its own)."""
    inner = counter(Engine(Count).store, to=4)
    outer = Engine(Count)

    def delegate(ctx: Context, s: Count) -> NodeResult[Count]:
        return NodeResult(delta=inner.run_sync(f"inner-{ctx.run_id}", Count()), route=stop())

    outer.add("delegate", delegate).start_at("delegate")
    assert outer.run_sync("r1", Count()) == Count(n=4)


def test_outside_any_loop_run_sync_uses_a_loop_of_its_own() -> None:
    """Without a running loop run_sync is asyncio.run: the nodes run on the calling thread."""
    here = threading.current_thread().name
    seen: list[str] = []
    g = Engine(Count)
    g.add("look", lambda ctx, s: seen.append(threading.current_thread().name) or NodeResult(route=stop()))
    g.start_at("look")
    g.run_sync("r1", Count())
    assert seen == [here]


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="needs POSIX signals")
async def test_interrupting_the_wait_cancels_the_run_and_resume_continues_it(store: Store) -> None:
    """A KeyboardInterrupt while run_sync waits (a notebook's "interrupt kernel") cancels the run; resume finishes it."""
    first = threading.Event()

    async def slow(ctx: Context, s: Count) -> NodeResult[Count]:
        if not first.is_set():
            first.set()
            os.kill(os.getpid(), signal.SIGINT)  # delivered to the main thread, waiting in run_sync
            await asyncio.sleep(30)  # cancelled long before this ends
        return NodeResult(delta=Count(n=s.n + 1), route=stop())

    g = Engine(Count, store=store)
    g.add("start", lambda ctx, s: NodeResult(delta=Count(n=1))).add("slow", slow)
    g.start_at("start").connect("start", "slow")
    # As in ipykernel: SIGINT raises KeyboardInterrupt in the main thread (pytest's loop runner
    # would otherwise only cancel its task at the next await).
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            g.run_sync("r1", Count())
    finally:
        signal.signal(signal.SIGINT, old)
    run = await g.get_run("r1")
    assert run.status is RunStatus.CANCELLED  # stopped, not going on unseen in the background
    assert [s.node_id for s in await store.load_steps("r1")] == ["start"]
    assert g.resume_sync("r1") == Count(n=2)


async def test_run_blocking_drives_any_coroutine_of_the_engine(store: Store) -> None:
    """graphengine.run_blocking runs replay (or any other coroutine) to its end from inside a loop."""
    from graphengine import run_blocking

    g = counter(store)
    g.run_sync("r1", Count())
    report = run_blocking(g.replay("r1"))
    assert report.ok and report.steps == 6


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
async def test_a_forked_child_gets_a_sync_loop_of_its_own() -> None:
    """After fork, run_sync in the child starts its own sync loop (the parent's thread is not there)."""
    g = counter(Engine(Count).store, to=1)
    assert g.run_sync("parent", Count()) == Count(n=1)  # the parent's sync loop is running now
    pid = os.fork()
    if pid == 0:  # the child: exit with the verdict, never return into pytest
        signal.alarm(20)  # a hang kills the child, and the parent reports it
        ok = g.run_sync("child", Count()) == Count(n=1)
        os._exit(0 if ok else 1)
    _, status = await asyncio.to_thread(os.waitpid, pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
