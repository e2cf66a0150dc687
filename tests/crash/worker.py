"""Child program of the SIGKILL crash test: run or resume the crash graph's run to its end.

Usage: `python tests/crash/worker.py DB RUN_ID LOG`

Environment (used by the targeted tests only): `CRASH_KILL_AFTER_STEP=N` makes the process
SIGKILL itself right after step N commits; `CRASH_KILL_IN_ANSWER=1` makes it SIGKILL itself inside
the node answering the interrupt; `CRASH_DRIVER=status` decides whether to hand over the answer
from `get_interrupt` (the run status) instead of the last committed step's route.

Prints `ready` (flushed) once its imports are done and before it touches the database, so the
parent can time its kill from there; then opens `DB` (a SQLite file, created if missing), runs
`RUN_ID` if it is not stored or resumes it otherwise, answers its interrupt, and exits 0 when the
run is done. Every node execution, store write and fan-out is logged to `LOG` (see `graph.py`).
"""

from __future__ import annotations

import asyncio
import os
import sys

from graph import MarkingStore, SideLog, build, drive_to_end


async def main(db: str, run_id: str, log: str) -> None:
    """Drive `run_id` in `db` to its end, logging to `log`."""
    side = SideLog(log)
    kill_after = os.environ.get("CRASH_KILL_AFTER_STEP")
    store = MarkingStore(db, side, int(kill_after) if kill_after else None)
    g = build(store, side, kill_in_answer=os.environ.get("CRASH_KILL_IN_ANSWER") == "1")
    try:
        await drive_to_end(g, store, side, run_id, by_status=os.environ.get("CRASH_DRIVER") == "status")
    finally:
        await store.close()
        side.close()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: worker.py DB RUN_ID LOG")
    print("ready", flush=True)
    asyncio.run(main(*sys.argv[1:4]))
