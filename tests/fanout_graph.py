"""The graph `tests/workers/test_distributed_fanout.py` (and `bench scale`) serve: one wide fan-out.

`start` fans out to `$GRAPHENGINE_TEST_WIDTH` (default 1,000) branches of `work`, each with its
own input `item`; `join` marks the run joined and stops. Branch deltas set a declared-order
field (`items`, appended), a sum (`total`) and a commuting one (`top`, `max`), so the joined
state shows both merge orders. With `$GRAPHENGINE_TEST_SIDE_LOG` set, every `work` execution
appends two lines to that file (one `os.write` each on an `O_APPEND` descriptor, so a line is
whole or absent after a SIGKILL):

    start <pid> <branch> <claim token>      when the node starts
    exec <pid> <branch> <claim token>       just before it returns

With `$GRAPHENGINE_TEST_HOLD_DIR` set too, a `work` execution in a process whose pid names a file
in that directory writes `hold <pid> <branch> <claim token>` and waits (its claim renewed) until
the file is removed: a test holds a worker inside branches it has claimed, so a kill or a stop
always lands on unfinished ones.

No tests live here.
"""

from __future__ import annotations

import asyncio
import operator
import os
from typing import Annotated

from pydantic import BaseModel

from graphengine import Branch, Context, Engine, NodeResult, Options, append, fan_out, stop
from graphengine.store import Store
from graphengine.workers import current_lease

WIDTH = int(os.environ.get("GRAPHENGINE_TEST_WIDTH", "1000"))
"""Branches of the fan-out."""
NODE_SLEEP = float(os.environ.get("GRAPHENGINE_TEST_NODE_SLEEP", "0.02"))
"""Seconds each branch sleeps (so a stop lands inside one)."""


class FState(BaseModel):
    """State of the fan-out graph."""

    item: int = 0
    """A branch's own input."""
    items: Annotated[list[int], append] = []
    """Every branch's item, in declared branch order."""
    total: Annotated[int, operator.add] = 0
    """Sum of the squares of the items."""
    top: Annotated[int, max] = 0
    """The largest item (a commuting reducer)."""
    joined: bool = False
    """Set by the join."""


def build(store: Store) -> Engine[FState]:
    """The fan-out graph on `store`."""
    path = os.environ.get("GRAPHENGINE_TEST_SIDE_LOG")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) if path else None
    pid = os.getpid()
    hold_dir = os.environ.get("GRAPHENGINE_TEST_HOLD_DIR")
    hold = os.path.join(hold_dir, str(pid)) if hold_dir else None

    def held() -> bool:
        return hold is not None and os.path.exists(hold)

    def log(what: str, ctx: Context) -> None:
        if fd is not None:
            lease = current_lease()
            token = -1 if lease is None else lease.token
            os.write(fd, f"{what} {pid} {ctx.branch} {token}\n".encode())

    async def start(ctx: Context, s: FState) -> NodeResult[FState]:
        return NodeResult(route=fan_out([Branch("work", FState(item=k)) for k in range(WIDTH)], join="join"))

    async def work(ctx: Context, s: FState) -> NodeResult[FState]:
        log("start", ctx)
        if held():
            log("hold", ctx)
            # Another process (the test) releases it by removing a file: polled, not an Event.
            while held():  # noqa: ASYNC110
                await asyncio.sleep(0.02)
        await asyncio.sleep(NODE_SLEEP)
        log("exec", ctx)
        return NodeResult(delta=FState(items=[s.item], total=s.item * s.item, top=s.item))

    async def join(ctx: Context, s: FState) -> NodeResult[FState]:
        return NodeResult(delta=FState(joined=True), route=stop())

    g = Engine(FState, store=store, options=Options(max_steps=10, max_concurrency=64))
    g.add("start", start).add("work", work).add("join", join).start_at("start")
    return g
