"""Run a Scheduler on a SQLite file until killed: `python schedule_process.py DB` (for the restart test)."""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime, timedelta

from schedule_graph import Job, build

from graphengine import Scheduler
from graphengine.store import SQLiteStore


async def main(path: str) -> None:
    async with SQLiteStore(path) as store:
        g = build(store)
        if await store.get_schedule("tick") is None:
            start = datetime.now(UTC) + timedelta(seconds=0.5)
            await g.schedule(
                "tick",
                every=timedelta(seconds=0.3),
                start_at=start,
                input=Job(),
                catch_up=timedelta(seconds=10),
                overlap="allow",
            )
        print("ready", flush=True)
        await Scheduler(g, poll=0.05).run()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
