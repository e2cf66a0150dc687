"""The graph `tests/workers/test_workers.py` serves with `graphengine worker workers_graph:build`, and its side log.

A run ticks `i` up to `LAST`; at every `SPLIT_EVERY`-th tick it fans out to `WIDTH` branches of
`work`, joined by `join`. Every node execution, just before its node returns, appends one line to
the side log named by `$GRAPHENGINE_TEST_SIDE_LOG` (one `os.write` on an `O_APPEND` descriptor,
so a line is whole or absent after a SIGKILL):

    exec <pid> <run> <step> <node> <branch or -> <lease token>

and puts `<node>@<step>:<branch>#<token>` into the state's `trace`, so the committed record says
which lease executed each committed step and branch. No tests live here.
"""

from __future__ import annotations

import asyncio
import operator
import os
from typing import Annotated

from pydantic import BaseModel

from graphengine import Branch, Context, Engine, NodeResult, Options, append, fan_out, goto, stop
from graphengine.store import Store
from graphengine.workers import current_lease

LAST = 7
"""A run stops after the tick that brings `i` to this value."""
SPLIT_EVERY = 3
"""Ticks after which the run fans out."""
WIDTH = 3
"""Branches of each fan-out."""
NODE_SLEEP = float(os.environ.get("GRAPHENGINE_TEST_NODE_SLEEP", "0.004"))
"""Seconds each node sleeps (so kills and stops land inside nodes)."""


class WState(BaseModel):
    """State of the worker test graph."""

    i: int = 0
    """Ticks so far."""
    trace: Annotated[list[str], append] = []
    """`<node>@<step>:<branch>#<token>` per committed node execution."""
    acc: Annotated[int, operator.add] = 0
    """Sum of the branches' contributions (`step * (item + 1)` each)."""
    item: int = 0
    """A branch's own input."""


def build(store: Store) -> Engine[WState]:
    """The test graph on `store`, logging node executions to `$GRAPHENGINE_TEST_SIDE_LOG`."""
    fd = os.open(os.environ["GRAPHENGINE_TEST_SIDE_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    pid = os.getpid()

    def mark(ctx: Context) -> str:
        lease = current_lease()
        token = -1 if lease is None else lease.token
        b = "-" if ctx.branch is None else str(ctx.branch)
        os.write(fd, f"exec {pid} {ctx.run_id} {ctx.step} {ctx.node_id} {b} {token}\n".encode())
        return f"{ctx.node_id}@{ctx.step}:{b}#{token}"

    async def tick(ctx: Context, s: WState) -> NodeResult[WState]:
        await asyncio.sleep(NODE_SLEEP)
        i = s.i + 1
        if i >= LAST:
            nxt = stop()
        elif i % SPLIT_EVERY == 0:
            nxt = fan_out([Branch("work", WState(item=k)) for k in range(WIDTH)], join="join")
        else:
            nxt = goto("tick")
        return NodeResult(delta=WState(i=i, trace=[mark(ctx)]), route=nxt)

    async def work(ctx: Context, s: WState) -> NodeResult[WState]:
        await asyncio.sleep(NODE_SLEEP)
        return NodeResult(delta=WState(trace=[mark(ctx)], acc=ctx.step * (s.item + 1)))

    async def join(ctx: Context, s: WState) -> NodeResult[WState]:
        await asyncio.sleep(NODE_SLEEP)
        return NodeResult(delta=WState(trace=[mark(ctx)]), route=goto("tick"))

    g = Engine(WState, store=store, options=Options(max_steps=100))
    g.add("tick", tick).add("work", work).add("join", join).start_at("tick")
    return g
