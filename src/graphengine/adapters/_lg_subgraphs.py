"""Where the subgraphs run by an adapted LangGraph graph's tasks keep their checkpoints.

A subgraph paused at an `interrupt()` (or cut short by a killed process) continues from its own
checkpoints when its task runs again. Keeping them beside the engine's store (the `lg_*` tables
of `langgraph_tables` in the same SQLite file, PostgreSQL schema or MySQL database) lets a run
paused or killed in one process resume in another without re-running the subgraph's committed
steps; a `MemoryStore` gets an in-process table, as its runs live in the process too.

The subgraphs of run `r` are the thread `r` of the table. Nothing touches the table until a
subgraph does, so a graph without subgraphs pays nothing per step or per run:

- a run that starts marks its thread fresh; the first subgraph call on a fresh thread deletes
  what an earlier run of the same id may have left (a run deleted from the store keeps its
  `lg_*` rows), once, before any subgraph reads or writes;
- a run that ends deletes its thread if a subgraph used it in this process or if the run was
  continued here from the store (the subgraph may have run in the process that started it).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple

from graphengine.store import Store

from .langgraph_saver import GraphEngineSaver
from .langgraph_tables import CheckpointTable, MemoryCheckpointTable, SQLiteCheckpointTable, table_beside

__all__ = ["SubgraphSaver", "subgraph_table"]


def subgraph_table(store: Store) -> CheckpointTable:
    """The checkpoint table beside `store`; an in-process one for a `MemoryStore` (its runs live in
    this process too) and for a store kind without LangGraph tables."""
    table = table_beside(store)
    return MemoryCheckpointTable() if table is None else table


class SubgraphSaver(GraphEngineSaver):
    """The checkpointer handed to the subgraphs of one adapted graph's tasks (thread = run id)."""

    def __init__(self, table: CheckpointTable) -> None:
        super().__init__(table)
        self._fresh: set[str] = set()
        self._clearing: dict[str, concurrent.futures.Future[None]] = {}
        self._used: set[str] = set()
        # A subgraph invoked from a sync node reaches this saver from the sync bridge's thread while
        # the superstep's async tasks reach it from the loop's: which caller clears a fresh run's
        # thread is decided under this lock, or both would clear it and the later delete would drop
        # what the other's subgraph had already written (its checkpoint at an interrupt).
        self._lock = threading.Lock()
        # Connections are per event loop and reopen on use: they are closed when the adapted
        # graph's last call on a loop returns, so none outlives the loop (an aiosqlite thread
        # would keep the process from exiting). The sync bridge (a subgraph invoked from a
        # sync node) is stopped too where that does not close the table for good.
        self._release = getattr(table, "release", None)
        self._stop_bridge_too = isinstance(table, SQLiteCheckpointTable)

    def started(self, run_id: str) -> None:
        """Run `run_id` starts: what its thread holds belongs to an earlier run of that id."""
        with self._lock:
            self._fresh.add(run_id)
            self._used.discard(run_id)

    def continued(self, run_id: str) -> None:
        """Run `run_id` continues from the store: its subgraphs may have checkpoints there."""
        with self._lock:
            self._used.add(run_id)

    async def ended(self, run_id: str) -> None:
        """Run `run_id` ended: delete its subgraphs' checkpoints if it may have any."""
        with self._lock:
            self._fresh.discard(run_id)
            self._clearing.pop(run_id, None)
            used = run_id in self._used
            self._used.discard(run_id)
        if used:
            await self.table.delete_thread(run_id)

    async def release(self) -> None:
        """Close this loop's connection to the table (and the sync bridge's); both reopen on next use."""
        if self._release is not None:
            await self._release()
        if self._stop_bridge_too:
            self.close()

    async def _touch(self, config: RunnableConfig) -> None:
        thread = str(config["configurable"]["thread_id"])
        pending: concurrent.futures.Future[None] | None
        with self._lock:
            self._used.add(thread)
            fresh = thread in self._fresh
            if fresh:
                # Tasks of one superstep may reach here together: they all wait for the one delete,
                # through a thread-safe future (a sync node's subgraph runs on the sync bridge's
                # loop, not on the loop of the tasks).
                self._fresh.discard(thread)
                pending = concurrent.futures.Future()
                self._clearing[thread] = pending
            else:
                pending = self._clearing.get(thread)
        if fresh:
            assert pending is not None
            try:
                # An inline table never suspends: driven by hand, as the sync methods drive it
                # for a subgraph invoked from a sync node (no event loop there).
                await self.table.delete_thread(thread)
            except BaseException as exc:
                pending.set_exception(exc)
                raise
            pending.set_result(None)
        elif pending is not None:
            if pending.done() or self.table.inline:
                # Done, or an inline delete finishing on another thread right now (it never
                # suspends, and there may be no event loop here to wait on).
                pending.result()
            else:
                await asyncio.wrap_future(pending)

    # The subgraph loop's reads and writes (sync callers come through these too): each first
    # clears a fresh run's thread. The rest of the signature is the saver's.

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """As `GraphEngineSaver.aget_tuple`, after clearing a fresh run's thread."""
        await self._touch(config)
        return await super().aget_tuple(config)

    async def aput(self, config: RunnableConfig, *rest: Any, **kw: Any) -> RunnableConfig:
        """As `GraphEngineSaver.aput`, after clearing a fresh run's thread."""
        await self._touch(config)
        return await super().aput(config, *rest, **kw)

    async def aput_writes(self, config: RunnableConfig, *rest: Any, **kw: Any) -> None:
        """As `GraphEngineSaver.aput_writes`, after clearing a fresh run's thread."""
        await self._touch(config)
        await super().aput_writes(config, *rest, **kw)
