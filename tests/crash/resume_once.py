"""Child program of the concurrent-resume tests: answer one paused run's interrupt, once.

Usage: `python tests/crash/resume_once.py STORE_URL RUN_ID ANSWER LOG GO LEASE_TTL STYLE`

Prints `ready` (flushed) once its imports are done, then resumes RUN_ID (paused for `pay`'s
approval, in STYLE "ask" or "before", see `engine()`) with input ANSWER. `pay` appends `pay RUN_ID ANSWER` to LOG with one O_APPEND write
(the approved side effect), then waits until the file GO exists, so the test decides when the
answer's step may commit (or kills the process before it does). Exits 0 printing `done PAID`
when the run finished, 3 printing `busy` on `RunBusyError`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, Options, RunBusyError
from graphengine.store import Store, open_store

BUSY = 3
"""Exit status of a child whose resume raised `RunBusyError`."""


class Payment(BaseModel):
    """The runs' state: what was paid (the answer of the approval)."""

    paid: str = ""


def engine(store: Store, log: str, go: str, lease_ttl: float = 30.0, style: str = "ask") -> Engine[Payment]:
    """A graph whose `pay` needs an approval: `ctx.interrupt` inside it (style "ask"), or a pause
    before it (`interrupt_before`, style "before"; an `ask` node runs first)."""

    async def pay(ctx: Context, s: Payment) -> NodeResult[Payment]:
        answer = ctx.interrupt("approve?") if style == "ask" else ctx.resume_input
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, f"pay {ctx.run_id} {answer}\n".encode())
        finally:
            os.close(fd)
        # The test's go-ahead, from another process (no asyncio.Event reaches here); bounded by
        # the test's kill or its timeout.
        while not await asyncio.to_thread(os.path.exists, go):  # noqa: ASYNC110
            await asyncio.sleep(0.02)
        return NodeResult(delta=Payment(paid=str(answer)))

    async def ask(ctx: Context, s: Payment) -> NodeResult[Payment]:
        return NodeResult(delta=Payment())

    g = Engine(Payment, store=store, options=Options(lease_ttl=lease_ttl))
    if style == "ask":
        return g.add("pay", pay).start_at("pay")
    return g.add("ask", ask).add("pay", pay, interrupt_before=True).start_at("ask").connect("ask", "pay")


async def main(url: str, run_id: str, answer: str, log: str, go: str, lease_ttl: float, style: str) -> int:
    """Resume the run with the answer; the exit status."""
    store = open_store(url, create=False)
    try:
        final = await engine(store, log, go, lease_ttl, style).resume(run_id, input=answer)
    except RunBusyError:
        print("busy", flush=True)
        return BUSY
    finally:
        await store.close()
    print(f"done {final.paid}", flush=True)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit("usage: resume_once.py STORE_URL RUN_ID ANSWER LOG GO LEASE_TTL STYLE")
    print("ready", flush=True)
    url, run_id, answer, log, go, ttl, style = sys.argv[1:8]
    assert Path(log).parent.is_dir()
    # The graph's nodes must be the ones the test started the run with (the fingerprint names
    # their module): run the module's functions under its import name, not as __main__.
    from crash import resume_once

    sys.exit(asyncio.run(resume_once.main(url, run_id, answer, log, go, float(ttl), style)))
