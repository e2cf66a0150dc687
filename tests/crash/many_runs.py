"""Child program of the many-runs SIGKILL test: hundreds of concurrent runs on one store, until killed.

Usage: `python tests/crash/many_runs.py STORE_URL PREFIX RUNS STEPS LOG`

Prints `ready` (flushed) once its imports are done, then starts runs `PREFIX-0` .. `PREFIX-{RUNS-1}`
of a one-node loop (`inc` adds one to `n`, and loops until `n` reaches STEPS) all at once on the
store at STORE_URL, or resumes the ones already stored, and exits 0 when every run is done. Their
steps go to the database in group commits. Appends to LOG, one `write` per line (O_APPEND, so a
kill never tears a line):

- `start RUN N` when `inc` starts with `n == N`: step N of RUN must be committed by then (a
  node's successor starts only after the node's step committed);
- `ack RUN STEP` when the engine reports step STEP of RUN done (its node-end event).
"""

from __future__ import annotations

import asyncio
import os
import sys

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, Options, goto, stop
from graphengine.emit import Event, EventKind
from graphengine.store import open_store


class Loop(BaseModel):
    """The runs' state."""

    n: int = 0


class AckLog:
    """Appends `ack RUN STEP` for every node-end event (an emitter)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def emit(self, event: Event) -> None:
        if event.kind == EventKind.NODE_END:
            os.write(self.fd, f"ack {event.run_id} {event.step}\n".encode())


async def main(url: str, prefix: str, runs: int, steps: int, log: str) -> None:
    """Drive every run to its end."""
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    store = open_store(url)

    async def inc(ctx: Context, s: Loop) -> NodeResult[Loop]:
        os.write(fd, f"start {ctx.run_id} {s.n}\n".encode())
        return NodeResult(delta=Loop(n=s.n + 1), route=stop() if s.n + 1 >= steps else goto("inc"))

    g = Engine(Loop, store=store, emitter=AckLog(fd), options=Options(max_steps=steps + 2))
    g.add("inc", inc).start_at("inc")

    async def drive(run_id: str) -> None:
        if await store.get_run(run_id) is None:
            await g.run(run_id, Loop())
        else:
            await g.resume(run_id)

    try:
        await asyncio.gather(*(drive(f"{prefix}-{i}") for i in range(runs)))
    finally:
        await store.close()
        os.close(fd)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit("usage: many_runs.py STORE_URL PREFIX RUNS STEPS LOG")
    print("ready", flush=True)
    url, prefix, runs, steps, log = sys.argv[1:6]
    asyncio.run(main(url, prefix, int(runs), int(steps), log))
