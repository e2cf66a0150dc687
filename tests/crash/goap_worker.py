"""Child process for the GOAP crash test: runs or resumes one release run on SQLite.

    python goap_crash_worker.py DB RUN_ID LOG

Every action execution appends "pid step action" to LOG (O_APPEND, one write) before it
returns; the worker first logs "start pid last_committed_step". With ``GOAP_HANG_AT=ACTION`` in
the environment, executing ACTION logs "hang pid ACTION" and sleeps, so a test can SIGKILL the
worker at a known point of the run.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Mapping
from typing import Any

from goap import ActionSpec, GoalSpec, GoapGraph, GoapState
from graphengine.store import SQLiteStore

WORLD = {"source": False, "tested": False, "built": False, "signed": False, "published": False}
GOAL = GoalSpec({"published": True})


def graph(store: SQLiteStore, log: str | None) -> GoapGraph:
    """A release agent whose actions log their executions and take a few ms."""
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT) if log else None

    def act(name: str, out: dict[str, Any], fail: bool = False) -> Any:
        def execute(world: Mapping[str, Any]) -> dict[str, Any]:
            if fd is not None and os.environ.get("GOAP_HANG_AT") == name:
                os.write(fd, f"hang {os.getpid()} {name}\n".encode())
                time.sleep(60)
            time.sleep(0.004)
            if fd is not None:
                os.write(fd, f"{os.getpid()} {name}\n".encode())
            if fail:
                raise TimeoutError("hsm down")
            return out

        return execute

    return GoapGraph(
        [
            ActionSpec("fetch", {}, {"source": True}, execute=act("fetch", {"source": True})),
            ActionSpec(
                "test", {"source": True}, {"tested": True}, cost=2, execute=act("test", {"tested": True})
            ),
            ActionSpec(
                "build", {"tested": True}, {"built": True}, cost=2, execute=act("build", {"built": True})
            ),
            ActionSpec("sign_hsm", {"built": True}, {"signed": True}, execute=act("sign_hsm", {}, fail=True)),
            ActionSpec(
                "sign_local",
                {"built": True},
                {"signed": True},
                cost=3,
                execute=act("sign_local", {"signed": True}),
            ),
            ActionSpec(
                "publish", {"signed": True}, {"published": True}, execute=act("publish", {"published": True})
            ),
        ],
        store=store,
        max_replans=5,
        blacklist_after=2,
    )


async def drive(db: str, run_id: str, log: str | None) -> GoapState:
    """Run or resume the run to its end."""
    async with SQLiteStore(db) as store:
        g = graph(store, log)
        latest = await store.load_latest(run_id)
        if log:
            line = f"start {os.getpid()} {latest.last_step if latest else 0}\n"
            os.write(os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT), line.encode())
        if latest is None:
            return await g.run(run_id, WORLD, GOAL)
        return await g.resume(run_id)


if __name__ == "__main__":
    # Imports are done: the parent starts its kill timer from here, so slow start-ups (a cold
    # .pyc cache, a loaded machine) do not swallow the kills.
    print("ready", flush=True)
    asyncio.run(drive(sys.argv[1], sys.argv[2], sys.argv[3]))
