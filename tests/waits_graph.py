"""The graph the durable-wait tests serve in subprocesses (`graphengine worker waits_graph:build`).

One node, `nap`, sleeps `$GRAPHENGINE_TEST_NAP` seconds with `ctx.sleep` (default 0.5), then
waits for the signal `go` when `$GRAPHENGINE_TEST_WAIT_SIGNAL` is set, and stops. Every execution
of `nap` appends one line to `$GRAPHENGINE_TEST_SIDE_LOG` (one `os.write` on an `O_APPEND`
descriptor, so a line is whole or absent after a SIGKILL):

    exec <pid> <run> <step> <phase>

where phase is `before` (the sleep is still ahead: the run is about to wait) or `after` (woken:
the sleep returned at once). No tests live here.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Annotated

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, append
from graphengine.store import Store


class NapState(BaseModel):
    """State of the nap graph: what the run did after it woke."""

    done: Annotated[list[str], append] = []
    """`woke` once the sleep returned, then `signal:<payload>` when it waited for a signal."""


def build(store: Store) -> Engine[NapState]:
    """The nap graph on `store`, logging node executions to `$GRAPHENGINE_TEST_SIDE_LOG`."""
    fd = os.open(os.environ["GRAPHENGINE_TEST_SIDE_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    nap = float(os.environ.get("GRAPHENGINE_TEST_NAP", "0.5"))
    wait_signal = bool(os.environ.get("GRAPHENGINE_TEST_WAIT_SIGNAL"))
    pid = os.getpid()

    async def nap_node(ctx: Context, s: NapState) -> NodeResult[NapState]:
        phase = "after" if ctx.woken else "before"
        os.write(fd, f"exec {pid} {ctx.run_id} {ctx.step} {phase}\n".encode())
        await ctx.sleep(timedelta(seconds=nap))
        done = ["woke"]
        if wait_signal:
            sig = await ctx.wait_for("go", timeout=timedelta(minutes=5))
            done.append(f"signal:{sig.payload}")
        return NodeResult(delta=NapState(done=done))

    return Engine(NapState, store=store).add("nap", nap_node).start_at("nap")
