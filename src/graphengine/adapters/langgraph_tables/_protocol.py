"""`CheckpointTable`: the storage a LangGraph checkpointer needs, kept apart from `Store`.

LangGraph checkpoints are not engine runs: they are keyed by (thread, namespace, checkpoint id),
carry per-channel value blobs shared between checkpoints, and pending writes per task. This
protocol is the smallest storage that holds them soundly; `graphengine.adapters.langgraph_saver`
puts LangGraph's `BaseCheckpointSaver` API on top of it and does all (de)serialisation, so
tables only ever see bytes and strings (this package imports nothing of LangGraph).

Layout (the same in every backend):

- checkpoints: one row per (thread, ns, checkpoint id): parent id, the serialised checkpoint
  *without* its channel values, serialised metadata, the run id (for `delete_for_runs`) and
  `versions`, a JSON object naming the blob version of every channel the checkpoint holds.
- blobs: one row per (thread, ns, channel, version): a channel value is stored once, when its
  version changes, and shared by every later checkpoint that has not changed it (so an
  unchanged 10 kB field costs nothing per step).
- writes: one row per (thread, ns, checkpoint id, task id, idx): a pending write.

Blobs no checkpoint references any more are deleted by `delete_for_runs` and `prune`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["CheckpointTable", "LGBlobRow", "LGCheckpointRow", "LGQuery", "LGWriteRow", "columns"]


class _Row:
    """A row whose fields are its table's columns, in order."""

    __slots__ = ()

    def params(self) -> tuple[Any, ...]:
        """The row's values in column order, for a parameterized INSERT."""
        names: tuple[str, ...] = self.__slots__
        return tuple(getattr(self, f) for f in names)


def columns(rows: Sequence[_Row]) -> list[list[Any]]:
    """The rows' values column by column, for drivers that insert arrays (one list per column)."""
    return [list(col) for col in zip(*(r.params() for r in rows), strict=True)]


@dataclass(frozen=True, slots=True)
class LGCheckpointRow(_Row):
    """One stored LangGraph checkpoint (channel values live in blobs)."""

    thread_id: str
    """The thread."""
    ns: str
    """The checkpoint namespace ("" for the root graph)."""
    checkpoint_id: str
    """The checkpoint's id (monotonic: sorting by it sorts by time)."""
    parent_id: str | None
    """The previous checkpoint of the same thread and namespace, if any."""
    type: str
    """Serialiser tag of `checkpoint`."""
    checkpoint: bytes
    """The serialised checkpoint without `channel_values`."""
    metadata_type: str
    """Serialiser tag of `metadata`."""
    metadata: bytes
    """The serialised metadata."""
    run_id: str | None
    """The run that wrote the checkpoint (from its metadata)."""
    versions: bytes
    """JSON object: channel -> blob version key, for every channel with a value."""


@dataclass(frozen=True, slots=True)
class LGBlobRow(_Row):
    """One channel value at one version."""

    thread_id: str
    """The thread."""
    ns: str
    """The namespace."""
    channel: str
    """The channel."""
    version: str
    """The version key (canonical JSON of LangGraph's version)."""
    type: str
    """Serialiser tag ("empty" for a channel that was cleared)."""
    value: bytes
    """The serialised value."""


@dataclass(frozen=True, slots=True)
class LGWriteRow(_Row):
    """One pending write of a task, attached to the checkpoint it follows."""

    thread_id: str
    """The thread."""
    ns: str
    """The namespace."""
    checkpoint_id: str
    """The checkpoint the write follows."""
    task_id: str
    """The task that wrote it."""
    task_path: str
    """The task's path (writes are replayed in (task_path, task_id, idx) order)."""
    idx: int
    """Index of the write in the task (negative for LangGraph's special writes)."""
    channel: str
    """The channel written."""
    type: str
    """Serialiser tag."""
    value: bytes
    """The serialised value."""


@dataclass(frozen=True, slots=True)
class LGQuery(_Row):
    """Which checkpoints `CheckpointTable.search` lists: each field that is not None narrows.

    `params()` gives the four values in field order, for the backends' one listing statement.
    """

    thread_id: str | None = None
    """Only this thread."""
    ns: str | None = None
    """Only this namespace."""
    checkpoint_id: str | None = None
    """Only the checkpoint with this id."""
    before: str | None = None
    """Only checkpoints whose id sorts below this one (byte order)."""

    def matches(self, row: LGCheckpointRow) -> bool:
        """Whether `row` passes every filter (for a table that filters in Python)."""
        return (
            (self.thread_id is None or row.thread_id == self.thread_id)
            and (self.ns is None or row.ns == self.ns)
            and (self.checkpoint_id is None or row.checkpoint_id == self.checkpoint_id)
            and (self.before is None or row.checkpoint_id < self.before)
        )


@runtime_checkable
class CheckpointTable(Protocol):
    """Durable home of LangGraph checkpoints, channel blobs and pending writes.

    Contract (checked by LangGraph's conformance suite through `GraphEngineSaver`, against every
    implementation): `put` is atomic (the checkpoint row and its new blobs appear together or
    not at all); rows come back byte for byte; listing is newest first by checkpoint id;
    operations on unknown threads or runs are no-ops returning nothing.
    """

    inline: bool
    """True when no method ever suspends (an in-process table); sync callers may then drive
    coroutines directly instead of through an event loop."""

    async def put(self, row: LGCheckpointRow, blobs: Sequence[LGBlobRow]) -> None:
        """Store (or replace) a checkpoint and the blobs of the channels it changed, atomically."""
        ...

    async def put_writes(self, rows: Sequence[LGWriteRow], *, replace: bool) -> None:
        """Store pending writes; an existing (thread, ns, checkpoint, task, idx) is kept unless `replace`."""
        ...

    async def get(self, thread_id: str, ns: str, checkpoint_id: str | None) -> LGCheckpointRow | None:
        """The checkpoint with this id, or the newest of the thread and namespace when None."""
        ...

    def search(self, query: LGQuery) -> AsyncIterator[LGCheckpointRow]:
        """The checkpoints `query` selects, newest first (by checkpoint id, then thread and namespace)."""
        ...

    async def blobs(self, thread_id: str, ns: str, versions: Mapping[str, str]) -> list[LGBlobRow]:
        """The blobs of these channel versions that exist."""
        ...

    async def writes(self, thread_id: str, ns: str, checkpoint_id: str) -> list[LGWriteRow]:
        """The pending writes of a checkpoint in (task_path, task_id, idx) order."""
        ...

    async def delete_thread(self, thread_id: str) -> None:
        """Delete everything of a thread."""
        ...

    async def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints written by these runs, their writes and the blobs left unreferenced."""
        ...

    async def copy_thread(self, source: str, target: str) -> None:
        """Copy every checkpoint, blob and write of `source` to `target`."""
        ...

    async def prune(self, thread_ids: Sequence[str], *, keep_latest: bool) -> None:
        """Keep only the newest checkpoint of each namespace (or nothing), with its writes and blobs."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...
