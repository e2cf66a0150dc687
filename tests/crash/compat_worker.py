"""Child process for the compat crash test: runs one LangGOAP-style deploy flow on the engine.

    python compat_worker.py DB RUN_ID LOG KILL_AT

Each action appends "pid action" to LOG (O_APPEND, one write) when it runs; the action named
KILL_AT ("-" for none) SIGKILLs its own process instead, the first time it runs (a marker file
beside LOG says it did), so the run dies mid-way at a known point with earlier steps committed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from types import ModuleType
from typing import Any


def actions(lib: ModuleType, log: str | None = None, kill_at: str | None = None) -> list[Any]:
    """checkout -> build (flaky: fails once, then a slower rebuild is planned) -> test -> deploy."""
    state = {"build_calls": 0}

    def act(name: str, out: dict[str, Any]) -> Any:
        def execute(world: dict[str, Any]) -> dict[str, Any]:
            if log is not None:
                marker = Path(f"{log}.killed-{name}")
                if name == kill_at and not marker.exists():
                    marker.write_text("1")
                    os.kill(os.getpid(), signal.SIGKILL)
                fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
                os.write(fd, f"{os.getpid()} {name}\n".encode())
                os.close(fd)
            if name == "build":
                state["build_calls"] += 1
                if state["build_calls"] == 1:
                    raise RuntimeError("build cache corrupt")
            return out

        return execute

    # name, preconditions, cost, what it returns (its declared effects: the boolean facts)
    table: list[tuple[str, dict[str, Any], float, dict[str, Any]]] = [
        ("checkout", {}, 1.0, {"source": True}),
        ("build", {"source": True}, 1.0, {"built": True, "artifact": "app-1.2.tar"}),
        ("clean_build", {"source": True}, 4.0, {"built": True, "artifact": "app-1.2-clean.tar"}),
        ("test", {"built": True}, 1.0, {"tested": True, "coverage": 0.91}),
        ("deploy", {"tested": True}, 2.0, {"deployed": True}),
    ]
    return [
        lib.ActionSpec(
            name=name,
            preconditions=pre,
            effects={k: v for k, v in out.items() if v is True},
            cost=cost,
            execute=act(name, out),
        )
        for name, pre, cost, out in table
    ]


def start(lib: ModuleType) -> dict[str, Any]:
    """The run's initial state in ``lib``'s types."""
    return {"goal": lib.GoalSpec(conditions={"deployed": True}), "world_state": {"source": False}}


def main(db: str, run_id: str, log: str, kill_at: str) -> None:
    import goap.compat as compat
    from graphengine.store import SQLiteStore

    async def go() -> None:
        async with SQLiteStore(db) as store:
            engine = compat.GoapGraph(
                actions=actions(compat, log, None if kill_at == "-" else kill_at)
            ).engine(store=store)
            await engine.run(run_id, start(compat))

    asyncio.run(go())


if __name__ == "__main__":
    main(*sys.argv[1:5])
