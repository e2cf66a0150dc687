"""`GraphEngineSaver`: a LangGraph checkpointer (`BaseCheckpointSaver`) on graphengine's storage.

For LangGraph users who keep their graphs but want graphengine's stores underneath:

    >>> from langgraph.graph import StateGraph  # doctest: +SKIP
    >>> from graphengine.adapters.langgraph_tables import SQLiteCheckpointTable  # doctest: +SKIP
    >>> saver = GraphEngineSaver(SQLiteCheckpointTable("runs.db"))  # doctest: +SKIP
    >>> graph = builder.compile(checkpointer=saver)  # doctest: +SKIP

Storage is a `graphengine.adapters.langgraph_tables.CheckpointTable` (`MemoryCheckpointTable`,
`SQLiteCheckpointTable`; other backends implement the same small protocol). Channel values
are stored once per version and shared by the checkpoints that did not change them, so an
unchanged field costs nothing per step. Values, checkpoints and metadata are serialised with
LangGraph's `JsonPlusSerializer` with its pickle fallback off (a serde with pickle enabled is
refused); nothing is ever unpickled.

Sync methods (`invoke`) work from any thread, with or without a running event loop (a Jupyter
cell runs inside the kernel's loop): an in-process table is driven inline, an I/O table through
a private event loop of the saver on its own thread, while the caller waits (blocking its own
loop, as LangGraph's `SqliteSaver` does). That is correct for every table because tables keep
one connection (or pool) per event loop, opened in it: the bridge loop has its own, and the
caller loop's connection, bound to the caller loop, is never touched from the bridge. One
limit follows from the caller's loop being blocked: a sync call while an async call of the same
saver is in flight on that loop may wait on that call's SQLite write lock (up to the table's
`busy_timeout`); use one style per loop. The async methods (`ainvoke`) never block.

Like LangGraph's savers it is a context manager, `with GraphEngineSaver(table) as saver:` or
`async with ...` (or `GraphEngineSaver.from_conn_string("sqlite:///cp.db")`, any store URL): the table opens on entry and its connections (and the saver's private loop
thread) close on exit. `list(filter=...)` validates metadata filter keys as LangGraph's SQL
savers do (letters, digits, `_`, `.`, `-`) and reads a dotted key as a path into nested
metadata (`{"source.kind": "x"}` matches `{"source": {"kind": "x"}}`); a None value matches a
missing key too, as in SQL. `aget_delta_channel_history` walks the parent chain in the table,
reading only the requested channels' writes and blobs.

Thread ids follow one rule on every table (`THREAD_ID_BYTES`): at most 764 UTF-8 bytes, no NUL,
no lone surrogate; anything else is a `ValueError` naming the id, on reads as on writes.

Passes LangGraph's conformance suite (`langgraph-checkpoint-conformance`), base and extended
capabilities (`delete_for_runs`, `copy_thread`, `prune`, and `delta_channel_history` where the
installed suite has it); see `tests/adapters/test_saver_conformance.py`.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import re
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, Self, TypeVar, cast

from graphengine.adapters.langgraph_tables import (
    CheckpointTable,
    LGBlobRow,
    LGCheckpointRow,
    LGQuery,
    LGWriteRow,
    open_table,
)

try:
    from langgraph.checkpoint.base import (
        WRITES_IDX_MAP,
        BaseCheckpointSaver,
        ChannelVersions,
        Checkpoint,
        CheckpointMetadata,
        CheckpointTuple,
        DeltaChannelHistory,
        PendingWrite,
        get_checkpoint_id,
        get_checkpoint_metadata,
    )
    from langgraph.checkpoint.serde.base import SerializerProtocol
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "graphengine.adapters.langgraph_saver needs LangGraph. Install it with: pip install 'graphengine[langgraph]'"
    ) from exc

from langchain_core.runnables import RunnableConfig

__all__ = ["GraphEngineSaver"]

THREAD_ID_BYTES = 764
"""Longest thread id in UTF-8 bytes: MySQL's key column (VARBINARY(764)), the narrowest table.

The same rule holds on every table, so a thread that works on one backend works on all:
memory and SQLite would take any length, PostgreSQL any text without NUL, SQLite no lone
surrogate (it stores UTF-8)."""


def _thread_id(value: Any, what: str = "thread_id") -> str:
    """`value` as the str a thread id is stored as; ValueError naming it unless every table can hold it."""
    tid = str(value)
    try:
        size = len(tid.encode("utf-8"))
    except UnicodeEncodeError as exc:
        bad = tid[exc.start]
        raise ValueError(
            f"{what} {tid!r:.80} holds a lone surrogate ({bad!r} at {exc.start}), which no table can "
            "store as UTF-8; decode the id with errors='replace' or pick another"
        ) from None
    if "\x00" in tid:
        raise ValueError(f"{what} {tid!r:.80} holds a NUL character, which PostgreSQL text cannot store")
    if size > THREAD_ID_BYTES:
        raise ValueError(
            f"{what} {tid[:40]!r}... is {size} bytes in UTF-8, over the {THREAD_ID_BYTES} bytes every "
            "table can key on (MySQL's limit); use a shorter id (a hash of a long one)"
        )
    return tid


T = TypeVar("T")
P = ParamSpec("P")


_FILTER_KEY = re.compile(r"^[a-zA-Z0-9_.-]+$")
_ABSENT = object()


def _vkey(version: Any) -> str:
    """Canonical text of a LangGraph channel version (int, float or str)."""
    return json.dumps(version)


def validate_filter(filter: Mapping[str, Any]) -> None:
    """Refuse a metadata filter key LangGraph's SQL savers refuse (`ValueError` naming it)."""
    for key in filter:
        if not isinstance(key, str) or not _FILTER_KEY.match(key):
            raise ValueError(
                f"Invalid filter key: {key!r}. Filter keys must contain only alphanumeric characters, "
                "underscores, dots, and hyphens."
            )


def matches(metadata: Mapping[str, Any], filter: Mapping[str, Any]) -> bool:
    """Whether metadata holds every filter value, a dotted key being a path into nested mappings.

    As SQL's `json_extract(metadata, '$.a.b') IS NULL`, a None value also matches a missing path.
    """
    for key, want in filter.items():
        got: Any = metadata
        for part in key.split("."):
            got = got.get(part, _ABSENT) if isinstance(got, Mapping) else _ABSENT
            if got is _ABSENT:
                break
        if got is _ABSENT:
            if want is not None:
                return False
        elif got != want:
            return False
    return True


def _blocking(
    amethod: Callable[Concatenate[GraphEngineSaver, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[GraphEngineSaver, P], T]:
    """The sync twin of a saver's async method: the same arguments, run through `_sync`.

    The async method is looked up on the instance, not bound here: a subclass that overrides it
    (a subgraph saver clearing a fresh run's thread first) must be reached by sync callers too.
    """
    name = amethod.__name__

    @functools.wraps(amethod)
    def method(self: GraphEngineSaver, /, *args: P.args, **kwargs: P.kwargs) -> T:
        bound: Callable[P, Coroutine[Any, Any, T]] = getattr(self, name)
        return self._sync(bound(*args, **kwargs))

    _rename(method, amethod)
    return method


def _blocking_iter(
    amethod: Callable[Concatenate[GraphEngineSaver, P], AsyncIterator[T]],
) -> Callable[Concatenate[GraphEngineSaver, P], Iterator[T]]:
    """The sync twin of a saver's async generator method: its items collected through `_sync`,
    then yielded (the async method looked up on the instance, as in `_blocking`)."""
    name = amethod.__name__

    @functools.wraps(amethod)
    def method(self: GraphEngineSaver, /, *args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
        bound: Callable[P, AsyncIterator[T]] = getattr(self, name)

        async def collect() -> list[T]:
            return [item async for item in bound(*args, **kwargs)]

        yield from self._sync(collect())

    _rename(method, amethod)
    return method


def _rename(method: Callable[..., Any], amethod: Callable[..., Any]) -> None:
    method.__name__ = amethod.__name__.removeprefix("a")
    method.__qualname__ = amethod.__qualname__.rpartition(".")[0] + "." + method.__name__
    method.__doc__ = f"Sync `{amethod.__name__}`."


class _Bridge:
    """A private event loop on a daemon thread, for sync calls into an I/O table."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="graphengine-saver", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def close(self, last: Coroutine[Any, Any, None]) -> None:
        """Run `last` (closing what was opened on this loop), then stop the loop and its thread."""
        try:
            self.run(last)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join()
            self.loop.close()


class GraphEngineSaver(BaseCheckpointSaver[str]):
    """A LangGraph checkpointer storing into a graphengine `CheckpointTable`.

    Raises `ValueError` for a serializer with pickle enabled. Methods raise what the table
    raises (`store.StoreError` subclasses).
    """

    def __init__(self, table: CheckpointTable, *, serde: SerializerProtocol | None = None) -> None:
        if serde is None:
            serde = JsonPlusSerializer(pickle_fallback=False)
        if getattr(serde, "pickle_fallback", False):
            raise ValueError("GraphEngineSaver never unpickles: pass a serializer with pickle_fallback=False")
        super().__init__(serde=serde)
        self.table = table
        """Where checkpoints, blobs and writes are stored."""
        self._bridge: _Bridge | None = None
        self._bridge_lock = threading.Lock()

    @classmethod
    def from_conn_string(cls, url: str, *, serde: SerializerProtocol | None = None) -> GraphEngineSaver:
        """A saver on the tables beside the store `url` names (`sqlite:///cp.db`,
        `postgresql://host/db?schema=s`, `mysql://host/db`, `memory://`; see
        `langgraph_tables.open_table`), to use as LangGraph's savers are used:
        `with GraphEngineSaver.from_conn_string(url) as saver:` or `async with ...`.
        """
        return cls(open_table(url), serde=serde)

    # ------------------------------------------------------------------ lifetime

    async def __aenter__(self) -> Self:
        """Open the table now, so a bad address fails here rather than at the first use."""
        await self._open_now()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()  # `close` is the sync methods' own

    def __enter__(self) -> Self:
        """Open the table for the sync methods (through the private loop thread for an I/O table)."""
        self._sync(self._open_now())
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    async def _open_now(self) -> None:
        """Open the table (its connections are made on the running loop)."""
        enter = getattr(self.table, "__aenter__", None)
        if enter is not None:
            await enter()

    async def aclose(self) -> None:
        """Close the table's connections on this loop and those the sync methods opened."""
        await self.table.close()
        self._stop_bridge()

    def close(self) -> None:
        """Close what the sync methods opened (on the private loop thread), then stop that thread."""
        if self.table.inline:
            self._sync(self.table.close())
        self._stop_bridge()

    def _stop_bridge(self) -> None:
        with self._bridge_lock:
            bridge, self._bridge = self._bridge, None
        if bridge is not None:
            bridge.close(self.table.close())

    # ------------------------------------------------------------------ sync bridge

    def _sync(self, coro: Coroutine[Any, Any, T]) -> T:
        if self.table.inline:
            try:
                coro.send(None)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            coro.close()
            raise RuntimeError("an inline CheckpointTable suspended")
        with self._bridge_lock:
            if self._bridge is None:
                self._bridge = _Bridge()
            bridge = self._bridge
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is bridge.loop:
            # Code on the bridge loop waiting for the bridge loop would wait forever.
            coro.close()
            raise RuntimeError(
                "a GraphEngineSaver sync method was called from a coroutine the saver's own loop runs; "
                "await its async twin (aget_tuple, aput, ...) there instead"
            )
        # From a thread whose loop is running (a Jupyter cell, sync `invoke` inside async code)
        # this blocks that loop until the bridge answers, as LangGraph's SqliteSaver does.
        return bridge.run(coro)

    # ------------------------------------------------------------------ reading

    async def _tuple(self, row: LGCheckpointRow, config: RunnableConfig | None = None) -> CheckpointTuple:
        t = self.table
        versions: dict[str, str] = json.loads(row.versions)
        values: dict[str, Any] = {}
        for b in await t.blobs(row.thread_id, row.ns, versions):
            if b.type != "empty":
                values[b.channel] = self.serde.loads_typed((b.type, b.value))
        checkpoint = cast(
            Checkpoint, {**self.serde.loads_typed((row.type, row.checkpoint)), "channel_values": values}
        )
        writes = await t.writes(row.thread_id, row.ns, row.checkpoint_id)
        conf: RunnableConfig = config or {
            "configurable": {
                "thread_id": row.thread_id,
                "checkpoint_ns": row.ns,
                "checkpoint_id": row.checkpoint_id,
            }
        }
        parent: RunnableConfig | None = (
            {
                "configurable": {
                    "thread_id": row.thread_id,
                    "checkpoint_ns": row.ns,
                    "checkpoint_id": row.parent_id,
                }
            }
            if row.parent_id
            else None
        )
        return CheckpointTuple(
            config=conf,
            checkpoint=checkpoint,
            metadata=self.serde.loads_typed((row.metadata_type, row.metadata)),
            parent_config=parent,
            pending_writes=[
                (w.task_id, w.channel, self.serde.loads_typed((w.type, w.value))) for w in writes
            ],
        )

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint named by `config` (its id, else the thread's newest), or None."""
        conf = config["configurable"]
        cid = get_checkpoint_id(config)
        row = await self.table.get(_thread_id(conf["thread_id"]), conf.get("checkpoint_ns", ""), cid)
        if row is None:
            return None
        return await self._tuple(row, config if cid else None)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """Checkpoints newest first, narrowed by `config`, metadata `filter`, `before` and `limit`."""
        if filter:
            validate_filter(filter)
        conf = config["configurable"] if config else {}
        tid = conf.get("thread_id")
        rows = self.table.search(
            LGQuery(
                _thread_id(tid) if tid is not None else None,
                conf.get("checkpoint_ns"),
                conf.get("checkpoint_id"),
                get_checkpoint_id(before) if before else None,
            )
        )
        left = limit
        async for row in rows:
            if left is not None and left <= 0:
                break
            if filter:
                md = self.serde.loads_typed((row.metadata_type, row.metadata))
                if not matches(md, filter):
                    continue
            if left is not None:
                left -= 1
            yield await self._tuple(row)

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """Per channel, the writes on the parent chain of `config`'s checkpoint, oldest first, back to
        the nearest ancestor holding a value for the channel (its `seed`, with that ancestor's own
        writes included); the checkpoint's own pending writes are not. Only the requested channels'
        writes and blobs are read and decoded.
        """
        if not channels:
            return {}
        conf = config["configurable"]
        tid, ns = _thread_id(conf["thread_id"]), conf.get("checkpoint_ns", "")
        t = self.table
        wanted = set(channels)
        found: dict[str, list[PendingWrite]] = {c: [] for c in wanted}
        seeds: dict[str, Any] = {}
        target = await t.get(tid, ns, get_checkpoint_id(config))
        cursor = target.parent_id if target is not None else None
        while cursor and wanted:
            row = await t.get(tid, ns, cursor)
            if row is None:
                break
            for w in reversed(await t.writes(tid, ns, row.checkpoint_id)):
                if w.channel in wanted:
                    found[w.channel].append((w.task_id, w.channel, self.serde.loads_typed((w.type, w.value))))
            versions: dict[str, str] = json.loads(row.versions)
            held = {c: versions[c] for c in wanted if c in versions}
            for b in await t.blobs(tid, ns, held) if held else ():
                if b.type != "empty":
                    seeds[b.channel] = self.serde.loads_typed((b.type, b.value))
                    wanted.discard(b.channel)
            cursor = row.parent_id
        out: dict[str, DeltaChannelHistory] = {}
        for c in channels:
            entry: DeltaChannelHistory = {"writes": found[c][::-1]}
            if c in seeds:
                entry["seed"] = seeds[c]
            out[c] = entry
        return out

    # ------------------------------------------------------------------ writing

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store a checkpoint; only the channels in `new_versions` get new blobs."""
        conf = config["configurable"]
        thread_id = _thread_id(conf["thread_id"])
        ns = conf.get("checkpoint_ns", "")
        c: dict[str, Any] = dict(checkpoint)
        values: dict[str, Any] = c.pop("channel_values", {})
        blobs = []
        for ch, ver in new_versions.items():
            typ, data = self.serde.dumps_typed(values[ch]) if ch in values else ("empty", b"")
            blobs.append(LGBlobRow(thread_id, ns, ch, _vkey(ver), typ, data))
        versions = {ch: _vkey(v) for ch, v in checkpoint["channel_versions"].items()}
        md = get_checkpoint_metadata(config, metadata)
        ctype, cdata = self.serde.dumps_typed(c)
        mtype, mdata = self.serde.dumps_typed(md)
        run_id = md.get("run_id")
        row = LGCheckpointRow(
            thread_id,
            ns,
            checkpoint["id"],
            conf.get("checkpoint_id"),
            ctype,
            cdata,
            mtype,
            mdata,
            str(run_id) if run_id is not None else None,
            json.dumps(versions, sort_keys=True).encode(),
        )
        await self.table.put(row, blobs)
        return {
            "configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint["id"]}
        }

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's pending writes (special writes replace, others keep the first)."""
        conf = config["configurable"]
        thread_id = _thread_id(conf["thread_id"])
        ns = conf.get("checkpoint_ns", "")
        cid = str(conf["checkpoint_id"])
        rows = []
        for idx, (ch, value) in enumerate(writes):
            typ, data = self.serde.dumps_typed(value)
            rows.append(
                LGWriteRow(thread_id, ns, cid, task_id, task_path, WRITES_IDX_MAP.get(ch, idx), ch, typ, data)
            )
        await self.table.put_writes(rows, replace=all(w[0] in WRITES_IDX_MAP for w in writes))

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint and write of a thread."""
        await self.table.delete_thread(_thread_id(thread_id))

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints (and their writes) written by these runs."""
        await self.table.delete_for_runs([str(r) for r in run_ids])

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy every checkpoint, blob and write of a thread to another thread id."""
        await self.table.copy_thread(_thread_id(source_thread_id), _thread_id(target_thread_id))

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """`"keep_latest"`: keep the newest checkpoint per namespace; `"delete"`: remove all."""
        if strategy not in ("keep_latest", "delete"):
            raise ValueError(f"prune strategy {strategy!r}: expected 'keep_latest' or 'delete'")
        await self.table.prune([_thread_id(t) for t in thread_ids], keep_latest=strategy == "keep_latest")

    # ------------------------------------------------------------------ sync API
    # Each sync method is its async twin run through `_sync` (the table inline, or the bridge loop).

    get_tuple = _blocking(aget_tuple)
    put = _blocking(aput)
    put_writes = _blocking(aput_writes)
    delete_thread = _blocking(adelete_thread)
    delete_for_runs = _blocking(adelete_for_runs)
    copy_thread = _blocking(acopy_thread)
    prune = _blocking(aprune)
    get_delta_channel_history = _blocking(aget_delta_channel_history)

    list = _blocking_iter(alist)  # collected on the loop, then yielded

    def get_next_version(self, current: str | None, channel: None) -> str:
        """Versions as LangGraph's own savers make them: a zero-padded counter and a random tiebreak."""
        if current is None:
            n = 0
        elif isinstance(current, int):
            n = current
        else:
            n = int(current.split(".")[0])
        return f"{n + 1:032}.{random.random():016}"
