"""`MemoryCheckpointTable`: LangGraph checkpoints in dicts, for tests and short-lived graphs."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import replace

from ._protocol import LGBlobRow, LGCheckpointRow, LGQuery, LGWriteRow

__all__ = ["MemoryCheckpointTable"]

_Key = tuple[str, str]


class MemoryCheckpointTable:
    """Keeps checkpoint rows, blobs and writes in dicts (bytes, like every other table).

    Every method completes without awaiting, so each call is atomic with respect to other
    tasks of one event loop, and synchronous callers may drive it inline (`inline = True`).
    Not shared between processes.
    """

    inline = True
    """Methods never suspend."""

    def __init__(self) -> None:
        self._cps: dict[_Key, dict[str, LGCheckpointRow]] = {}
        self._blobs: dict[_Key, dict[tuple[str, str], LGBlobRow]] = {}
        self._writes: dict[tuple[str, str, str], dict[tuple[str, int], LGWriteRow]] = {}

    async def put(self, row: LGCheckpointRow, blobs: Sequence[LGBlobRow]) -> None:
        """Store a checkpoint and its new blobs."""
        key = (row.thread_id, row.ns)
        store = self._blobs.setdefault(key, {})
        for b in blobs:
            store[(b.channel, b.version)] = b
        self._cps.setdefault(key, {})[row.checkpoint_id] = row

    async def put_writes(self, rows: Sequence[LGWriteRow], *, replace: bool) -> None:
        """Store pending writes (first write wins unless `replace`)."""
        for w in rows:
            bucket = self._writes.setdefault((w.thread_id, w.ns, w.checkpoint_id), {})
            k = (w.task_id, w.idx)
            if replace or k not in bucket:
                bucket[k] = w

    async def get(self, thread_id: str, ns: str, checkpoint_id: str | None) -> LGCheckpointRow | None:
        """The checkpoint with this id, or the newest one."""
        cps = self._cps.get((thread_id, ns))
        if not cps:
            return None
        if checkpoint_id is None:
            return cps[max(cps)]
        return cps.get(checkpoint_id)

    async def search(self, query: LGQuery) -> AsyncIterator[LGCheckpointRow]:
        """Checkpoints newest first (filtered in Python)."""
        rows = [r for cps in list(self._cps.values()) for r in cps.values() if query.matches(r)]
        rows.sort(key=lambda r: (r.checkpoint_id, r.thread_id, r.ns), reverse=True)
        for r in rows:
            yield r

    async def blobs(self, thread_id: str, ns: str, versions: Mapping[str, str]) -> list[LGBlobRow]:
        """The stored blobs of these versions."""
        store = self._blobs.get((thread_id, ns), {})
        return [b for ch, v in versions.items() if (b := store.get((ch, v))) is not None]

    async def writes(self, thread_id: str, ns: str, checkpoint_id: str) -> list[LGWriteRow]:
        """Pending writes in replay order."""
        bucket = self._writes.get((thread_id, ns, checkpoint_id), {})
        return sorted(bucket.values(), key=lambda w: (w.task_path, w.task_id, w.idx))

    async def delete_thread(self, thread_id: str) -> None:
        """Delete everything of a thread."""
        for d in (self._cps, self._blobs):
            for k in [k for k in d if k[0] == thread_id]:
                del d[k]
        for wk in [k for k in self._writes if k[0] == thread_id]:
            del self._writes[wk]

    def _drop(self, key: _Key, ids: set[str]) -> None:
        cps = self._cps.get(key, {})
        for cid in ids:
            cps.pop(cid, None)
            self._writes.pop((*key, cid), None)
        used = {(ch, v) for r in cps.values() for ch, v in json.loads(r.versions).items()}
        blobs = self._blobs.get(key, {})
        for bk in [bk for bk in blobs if bk not in used]:
            del blobs[bk]

    async def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints of these runs (with their writes and orphaned blobs)."""
        runs = set(run_ids)
        if not runs:
            return
        for key, cps in list(self._cps.items()):
            ids = {cid for cid, r in cps.items() if r.run_id in runs}
            if ids:
                self._drop(key, ids)

    async def copy_thread(self, source: str, target: str) -> None:
        """Copy a thread's rows under another thread id."""
        for (t, ns), cps in list(self._cps.items()):
            if t != source:
                continue
            dst = self._cps.setdefault((target, ns), {})
            for cid, r in cps.items():
                dst[cid] = replace(r, thread_id=target)
            bdst = self._blobs.setdefault((target, ns), {})
            for bk, b in self._blobs.get((t, ns), {}).items():
                bdst[bk] = replace(b, thread_id=target)
        for (t, ns, cid), bucket in list(self._writes.items()):
            if t == source:
                self._writes[(target, ns, cid)] = {k: replace(w, thread_id=target) for k, w in bucket.items()}

    async def prune(self, thread_ids: Sequence[str], *, keep_latest: bool) -> None:
        """Keep only the newest checkpoint per namespace (or none)."""
        for tid in thread_ids:
            for key, cps in list(self._cps.items()):
                if key[0] != tid or not cps:
                    continue
                newest = max(cps)
                self._drop(key, {cid for cid in cps if not keep_latest or cid != newest})

    async def close(self) -> None:
        """Nothing to release."""
