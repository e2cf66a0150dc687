"""The runs an HTTP server drives: one asyncio task per run, its recent events, its SSE listeners.

Memory stays bounded however long a run is: a live run keeps only its `events_kept` most recent
events (a ring buffer), plus two integers per committed step (the step's number and the
number of its `step` event). An SSE client asking for older events (`Last-Event-ID` or `?after=`
before the buffer's start) gets them rebuilt from the store: the `step` event of every committed
step in between, with its original number, then the buffer. What the store does not hold
(`node_start`, `node_end`, `token`, custom events of those old steps) is not repeated. A listener that
falls more than `events_kept` events behind is resynchronised the same way instead of growing a
queue without bound.
"""

from __future__ import annotations

import asyncio
import math
from array import array
from bisect import bisect_left, bisect_right
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphengine.emit import Event
from graphengine.store import RunStatus

from ..engine import Engine
from .errors import AlreadyRunningError, NotRunningError, status_of
from .forms import event_doc

__all__ = ["EVENTS_KEPT", "RunManager"]

EVENTS_KEPT = 1000
"""Default number of recent events a live run keeps in memory."""

_DURATIONS_KEPT = 1000  # runs whose node durations are remembered
_STORE_CHUNK = 256  # step records read at once when rebuilding old events


class Durations:
    """Node durations (ms) of the steps this server drove for one run: 8 bytes per step."""

    __slots__ = ("_base", "_ms")

    def __init__(self) -> None:
        self._base = 0
        self._ms: array[float] = array("d")

    def record(self, step: int, ms: float) -> None:
        """Remember that step `step`'s node ran `ms` milliseconds."""
        if not self._ms:
            self._base = step
        i = step - self._base
        if i < 0:  # a step before the first one seen: not expected in one drive; keep it simple
            return
        if i >= len(self._ms):
            self._ms.extend([math.nan] * (i + 1 - len(self._ms)))
        self._ms[i] = ms

    def get(self, step: int) -> float | None:
        """The duration of step `step`, when this server saw it."""
        i = step - self._base
        if 0 <= i < len(self._ms) and not math.isnan(self._ms[i]):
            return self._ms[i]
        return None


class _Listener:
    """One SSE client's queue; bounded: past `cap` items it is emptied and marked lagged."""

    __slots__ = ("cap", "items", "lagged", "wake")

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.items: deque[dict[str, Any] | None] = deque()
        self.wake = asyncio.Event()
        self.lagged = False

    def put(self, doc: dict[str, Any] | None) -> None:
        if doc is not None and len(self.items) >= self.cap:
            # The client reads slower than the run writes: drop its queue; it re-reads from
            # the buffer and the store (see `RunManager.events`).
            self.items.clear()
            self.lagged = True
        else:
            self.items.append(doc)
        self.wake.set()


@dataclass(eq=False)
class _Live:
    """A run this server drives: its task, its recent events and the SSE clients listening."""

    run_id: str
    keep: int
    started: asyncio.Event = field(default_factory=asyncio.Event)
    log: deque[dict[str, Any]] = field(default_factory=deque)
    next_seq: int = 0
    step_nos: array[int] = field(default_factory=lambda: array("q"))
    step_seqs: array[int] = field(default_factory=lambda: array("q"))
    listeners: set[_Listener] = field(default_factory=set)
    task: asyncio.Task[None] | None = None
    error: BaseException | None = None
    began: bool = False
    done: bool = False

    def publish(self, doc: dict[str, Any]) -> None:
        self.next_seq = doc["seq"] + 1
        if doc["kind"] == "step":
            self.step_nos.append(doc["step"])
            self.step_seqs.append(doc["seq"])
        self.log.append(doc)
        if len(self.log) > self.keep:
            self.log.popleft()
        for lis in self.listeners:
            lis.put(doc)


class RunManager:
    """The runs this server drives, each an asyncio task reading the run's stream.

    A late SSE client gets every event of the current drive: the recent ones from memory,
    older steps from the store (see the module docstring).
    """

    def __init__(self, engine: Engine[Any], *, events_kept: int = EVENTS_KEPT) -> None:
        if events_kept < 1:
            raise ValueError(f"events_kept must be at least 1, not {events_kept}")
        self.engine = engine
        """The engine runs are driven with."""
        self.events_kept = events_kept
        """Recent events kept in memory per live run."""
        self.live: dict[str, _Live] = {}
        """Run id -> its live drive."""
        self.node_ms: OrderedDict[str, Durations] = OrderedDict()
        """Run id -> node durations seen by this server (the newest runs only)."""

    def is_live(self, run_id: str) -> bool:
        """Whether this server drives the run now."""
        return run_id in self.live

    async def start(self, run_id: str, state: Any, *, wait: bool) -> None:
        """Start `run_id` from a validated `state`; returns once the run exists (or after it ends with `wait`)."""
        if run_id in self.live:
            raise AlreadyRunningError(f"run {run_id!r} is already running in this server", run_id=run_id)
        await self._launch(run_id, lambda: self.engine.stream(run_id, state), wait=wait)

    async def resume(self, run_id: str, kw: Mapping[str, Any], *, wait: bool) -> None:
        """Resume `run_id` (`kw` may hold `input`); 409 if this server drives it already."""
        await self.not_live(run_id)
        await self._launch(run_id, lambda: self.engine.stream_resume(run_id, **kw), wait=wait)

    async def continue_run(self, run_id: str, input: Any, kw: Mapping[str, Any], *, wait: bool) -> None:
        """Begin the next turn of `run_id` with `input` (`Engine.continue_run`); 409 if this server drives it."""
        await self.not_live(run_id)
        await self._launch(run_id, lambda: self.engine.stream_continue(run_id, input, **kw), wait=wait)

    async def not_live(self, run_id: str) -> None:
        """404 for an unknown run, 409 (`AlreadyRunningError`) for one this server drives."""
        if run_id in self.live:
            raise AlreadyRunningError(
                f"run {run_id!r} is already running in this server; cancel it or wait for it", run_id=run_id
            )
        await self.engine.get_run(run_id)  # 404 before anything starts
        if run_id in self.live:  # started by another request while the store answered
            raise AlreadyRunningError(f"run {run_id!r} is already running in this server", run_id=run_id)

    async def cancel(self, run_id: str) -> None:
        """Cancel the task driving `run_id` and wait until its status is stored as cancelled."""
        live = self.live.get(run_id)
        if live is None or live.task is None:
            await self.engine.get_run(run_id)  # 404 for an unknown run
            raise NotRunningError(
                f"run {run_id!r} is not running in this server; only runs it drives can be cancelled",
                run_id=run_id,
            )
        live.task.cancel()
        await asyncio.wait([live.task])

    async def close(self) -> None:
        """Cancel every live run (they stay resumable)."""
        tasks = [lv.task for lv in self.live.values() if lv.task is not None]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.wait(tasks)

    async def _launch(self, run_id: str, open_stream: Callable[[], Any], *, wait: bool) -> None:
        live = _Live(run_id, self.events_kept)
        self.live[run_id] = live
        live.task = asyncio.create_task(self._drive(live, open_stream), name=f"run {run_id}")
        if wait:
            await asyncio.wait([live.task])
        else:
            waiter = asyncio.ensure_future(live.started.wait())
            await asyncio.wait([live.task, waiter], return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
        if live.error is not None and not live.began:
            # The run never started (its id exists, its state is refused, the graph changed...):
            # the request fails with that error rather than describing a run it did not make.
            raise live.error

    def _durations(self, run_id: str) -> Durations:
        self.node_ms.pop(run_id, None)
        durations = self.node_ms[run_id] = Durations()
        while len(self.node_ms) > _DURATIONS_KEPT:
            self.node_ms.popitem(last=False)
        return durations

    async def _drive(self, live: _Live, open_stream: Callable[[], Any]) -> None:
        status: str | None = None
        durations: Durations | None = None
        stream = open_stream()
        # The opener's closure holds the request's initial state: not kept while the run lives.
        del open_stream
        try:
            async with stream:
                async for ev in stream:
                    if durations is None:
                        live.began = True
                        durations = self._durations(live.run_id)
                    if ev.kind == "node_end" and "branch" not in ev.meta and "ms" in ev.meta:
                        durations.record(ev.step, float(ev.meta["ms"]))
                    live.publish(event_doc(ev, live.next_seq))
                    live.started.set()
        except asyncio.CancelledError:
            status = str(RunStatus.CANCELLED)
        except Exception as exc:
            live.error = exc
            live.publish(
                {
                    "seq": live.next_seq,
                    "run_id": live.run_id,
                    "kind": "failed",
                    "msg": f"{type(exc).__name__}: {exc}",
                    "meta": {"status_code": status_of(exc)},
                }
            )
        finally:
            live.done = True
            if self.live.get(live.run_id) is live:
                del self.live[live.run_id]
            if status is None and live.began:
                try:
                    rec = await self.engine.store.get_run(live.run_id)
                    status = str(rec.status) if rec is not None else None
                except Exception:  # the end event must go out whatever the store does
                    status = None
            live.publish({"seq": live.next_seq, "run_id": live.run_id, "kind": "end", "status": status})
            for lis in live.listeners:
                lis.put(None)
            live.started.set()

    async def events(self, run_id: str, after: int) -> AsyncIterator[dict[str, Any]]:
        """The events of the live drive of `run_id` with `seq > after`, then its end; just an end if none."""
        live = self.live.get(run_id)
        if live is None:
            rec = await self.engine.get_run(run_id)
            yield {"seq": after + 1, "run_id": run_id, "kind": "end", "status": str(rec.status)}
            return
        last = after
        while True:
            # Snapshot and subscribe with no await in between: every later event reaches `lis`.
            lis = _Listener(live.keep)
            backlog = [d for d in live.log if d["seq"] > last]
            oldest = live.log[0]["seq"] if live.log else live.next_seq
            done = live.done
            live.listeners.add(lis)
            try:
                if last + 1 < oldest:
                    async for doc in self._from_store(live, last, oldest):
                        yield doc
                        last = doc["seq"]
                for doc in backlog:
                    yield doc
                    last = doc["seq"]
                if done:
                    return
                while not lis.lagged:
                    if not lis.items:
                        lis.wake.clear()
                        await lis.wake.wait()
                        continue
                    item = lis.items.popleft()
                    if item is None:
                        return
                    if item["seq"] > last:
                        yield item
                        last = item["seq"]
            finally:
                live.listeners.discard(lis)

    async def _from_store(self, live: _Live, after: int, before: int) -> AsyncIterator[dict[str, Any]]:
        """The `step` events numbered in (after, before), rebuilt from the run's stored steps."""
        lo = bisect_right(live.step_seqs, after)
        hi = bisect_left(live.step_seqs, before)
        if lo >= hi:
            return
        eng = self.engine.runtime()
        eng.compiled()
        seq_of = {live.step_nos[i]: live.step_seqs[i] for i in range(lo, hi)}
        first, last = live.step_nos[lo], live.step_nos[hi - 1]
        cursor = first - 1
        while cursor < last:
            recs = await eng.store.load_steps(live.run_id, after=cursor, limit=_STORE_CHUNK)
            if not recs:
                return
            for rec in recs:
                cursor = rec.step
                if rec.step > last:
                    return
                seq = seq_of.get(rec.step)
                if seq is None:
                    continue
                meta = await eng.step_meta(rec)
                ev = Event(live.run_id, rec.step, rec.node_id, "", meta, kind="step", ts=rec.ts)
                yield event_doc(ev, seq)
