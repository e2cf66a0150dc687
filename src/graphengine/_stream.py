"""Streaming a run: `Engine.stream` / `Engine.stream_resume` yield its events as they happen.

    async for ev in g.stream("r1", initial, states=True):
        if ev.kind == STEP:
            print(ev.step, ev.node_id, ev.meta["changes"], ev.meta["state"])
        elif ev.kind == "token":
            print(ev.msg, end="")

What is yielded, in the order it happened (`emit.Event` objects):

- the engine's own events for this run: `run_start`/`run_resume`, `node_start`, `node_end`,
  `retry`, `error`, `interrupt`, `run_end`, `token` (a chat model's text as it streams, from
  `graphengine.models.chat(..., stream=True)`), and custom events the nodes emit. A `node_end`
  of a step (not of a fan-out branch) carries the node's delta in `meta["delta"]` and the
  fields it set in `meta["changes"]`.
- one `STEP` event (`kind == "step"`) right after each step is committed, with
  `meta["changes"]` (the fields the delta set, by name: `graphengine.delta_fields`; a pydantic
  delta's other fields hold defaults the reducer ignores, so printing the whole delta would look
  like a reset), `meta["delta"]` (the decoded delta), `meta["route"]` (the `Next` the run takes), `meta["attempt"]`,
  `meta["error"]` (a routed error or None) and, when `states=True`, `meta["state"]`: the state
  after that step. The commit of a fan-out (`node_id == FAN_OUT_NODE`) also has
  `meta["branches"]`, the branch deltas in merge (declared) order.

The stream ends when the run stops or pauses (after the `interrupt` event); `stream.result` is
then the state `run`/`resume` would have returned. If the run fails, the failure's events are
yielded first and then the exception (`NodeError`, ...) is raised from the iteration.

Isolation: the stream drives its run itself, on a shallow copy of the engine whose emitter is
the engine's own emitter plus this stream's sink, and whose store reports commits to it. Nothing
is registered on the engine, so a stream never sees events of other runs, concurrent or not,
and a run that is not streamed pays nothing.

Buffering policy (a slow consumer): emitters are called synchronously from the step loop, so
an event cannot be refused or awaited at the moment it is emitted, and dropping one would break
the "nothing lost" promise. Instead the stream applies backpressure where the run already
awaits: after each commit (step or fan-out branch batch), while more than `max_buffer` items
wait for the consumer, the run pauses, its step durably committed, until the consumer catches
up. The buffer therefore holds at most `max_buffer` items plus the events of one step (which is
what that step emits: node start/end, retries, custom events, a fan-out's branch events).
Nothing is ever dropped or reordered. A consumer that stops iterating early (`break`,
`aclose()`, leaving `async with`) cancels the run: its status becomes `cancelled` and
`resume` continues it later.

Decoding deltas and folding states happens on the consumer's side, when it reads, so it never
slows the run down.
"""

from __future__ import annotations

import asyncio
import copy
import threading
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from graphengine.emit import Event, MultiEmitter
from graphengine.store import BranchRecord, RunRecord, StepRecord, Store

from .reducer import delta_fields

if TYPE_CHECKING:
    from .engine import Engine

__all__ = ["STEP", "RunStream", "stream_continue", "stream_resume", "stream_run"]

S = TypeVar("S")

STEP = "step"
"""Kind of the event a stream yields after each committed step."""

_NO_INPUT: Any = object()


class _Commit:
    """A committed step (or the created run), queued in order with the events."""

    __slots__ = ("rec",)

    def __init__(self, rec: StepRecord | RunRecord) -> None:
        self.rec = rec


class _Sink:
    """The run-scoped buffer between the step loop (producer) and the stream's reader."""

    def __init__(self, max_buffer: int) -> None:
        self.items: deque[Event | _Commit] = deque()
        self.max_buffer = max_buffer
        self.loop = asyncio.get_running_loop()
        self.thread = threading.get_ident()
        self.wake = asyncio.Event()
        self.room_ = asyncio.Event()
        self.room_.set()
        self.closed = False

    def _push(self, item: Event | _Commit) -> None:
        self.items.append(item)
        if threading.get_ident() == self.thread:
            self.wake.set()
        else:  # a node running in a thread (thread=True) emitted it
            self.loop.call_soon_threadsafe(self.wake.set)

    def emit(self, event: Event) -> None:
        """Queue an event of the streamed run (the `Emitter` protocol)."""
        self._push(event)

    async def room(self) -> None:
        """Backpressure, awaited by the run after a commit: wait while the buffer is over its bound."""
        while len(self.items) > self.max_buffer and not self.closed:
            self.room_.clear()
            await self.room_.wait()


class _TapStore:
    """Delegates to the real store and reports each commit to the sink (then applies backpressure)."""

    def __init__(self, inner: Store, sink: _Sink) -> None:
        self._inner = inner
        self._sink = sink
        self.__wrapped__ = inner  # what the engine keys a run's driver on (`_owner`)

    async def create_run(self, run: RunRecord) -> None:
        await self._inner.create_run(run)
        self._sink._push(_Commit(run))

    async def save_step(self, rec: StepRecord) -> None:
        await self._inner.save_step(rec)
        self._sink._push(_Commit(rec))
        await self._sink.room()

    async def save_branches(self, recs: Sequence[BranchRecord]) -> None:
        await self._inner.save_branches(recs)
        await self._sink.room()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class RunStream(Generic[S]):
    """The events of one run, as an async iterator (and an async context manager that cancels
    the run if left early). The run starts when iteration starts."""

    def __init__(
        self,
        engine: Engine[S],
        run_id: str,
        *,
        initial: Any = None,
        resume_input: Any = _NO_INPUT,
        resume: bool = False,
        states: bool = False,
        max_buffer: int = 1024,
        allow_graph_change: bool = False,
        turn: Any = _NO_INPUT,
        context: Any = None,
    ) -> None:
        if max_buffer < 1:
            raise ValueError(f"max_buffer must be >= 1, got {max_buffer}")
        self.run_id = run_id
        """The streamed run."""
        self.result: S | None = None
        """The state where the run stopped or paused (set when the iteration ends normally)."""
        kw: dict[str, Any] = {"context": context}
        if resume_input is not _NO_INPUT:
            kw["input"] = resume_input
        given = [initial]  # handed over once: the run holds its own state, not the caller's value
        del initial

        async def drive(e: Engine[S]) -> S:
            """The run driven on the stream's engine: a new turn (`turn`, its input), a resume, or a new run."""
            if turn is not _NO_INPUT:
                return await e.continue_run(
                    run_id, turn, context=context, allow_graph_change=allow_graph_change
                )
            if resume:
                return await e.resume(run_id, allow_graph_change=allow_graph_change, **kw)
            return await e.run(run_id, given.pop(), context=context)

        stored = resume or turn is not _NO_INPUT
        self._gen = self._events(engine, run_id, drive, stored, states, max_buffer)

    def __aiter__(self) -> RunStream[S]:
        return self

    async def __anext__(self) -> Event:
        return await self._gen.__anext__()

    async def aclose(self) -> None:
        """Stop reading; a run still going is cancelled (and stays resumable)."""
        await self._gen.aclose()

    async def __aenter__(self) -> RunStream[S]:
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def collect(self) -> list[Event]:
        """Read the whole stream into a list (handy in tests)."""
        return [e async for e in self]

    async def _events(
        self,
        eng: Engine[S],
        run_id: str,
        drive: Callable[[Engine[S]], Awaitable[S]],
        stored: bool,
        states: bool,
        max_buffer: int,
    ) -> AsyncGenerator[Event, None]:
        rt = eng.runtime()
        rt.compiled()  # compile once, shared with the clone below
        sink = _Sink(max_buffer)
        clone = copy.copy(eng)
        clone.emitter = sink if eng.emitter is None else MultiEmitter(eng.emitter, sink)
        clone.store = cast(Store, _TapStore(eng.store, sink))
        state: Any = await eng.get_state(run_id) if stored and states else None
        task: asyncio.Future[S] = asyncio.ensure_future(drive(clone))
        task.add_done_callback(lambda _: sink.wake.set())
        last_delta: tuple[int, str, Any] | None = None
        items = sink.items
        item: Any = None
        rec: Any = None
        try:
            while True:
                if items:
                    item = items.popleft()
                    if len(items) <= max_buffer:
                        sink.room_.set()
                    if isinstance(item, Event):
                        if item.kind == "node_end" and last_delta is not None and "branch" not in item.meta:
                            step, node_id, delta = last_delta
                            if (step, node_id) == (item.step, item.node_id):
                                item = _with(item, {"changes": delta_fields(delta), "delta": delta})
                        yield item
                        continue
                    rec = item.rec
                    if isinstance(rec, RunRecord):
                        if states:
                            state = rt.decode(rec.initial, run_id, 0, "initial")
                        continue
                    meta = await rt.step_meta(rec)
                    delta = meta["delta"]
                    if states:
                        if rec.state is not None:
                            state = rt.decode(rec.state, run_id, rec.step, "state")
                        elif delta is not None:
                            state = rt.merge(state, delta, run_id, rec.step, rec.node_id, keep=True)
                        meta["state"] = state
                    last_delta = (rec.step, rec.node_id, delta)
                    yield Event(run_id, rec.step, rec.node_id, "", meta, kind=STEP, ts=rec.ts)
                    continue
                if task.done():
                    self.result = task.result()  # raises the run's failure after its events
                    return
                sink.wake.clear()
                item = rec = None  # a record read (a snapshot's bytes) is not kept while the run waits
                await sink.wake.wait()
        finally:
            sink.closed = True
            sink.room_.set()
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)


def _with(event: Event, extra: Mapping[str, Any]) -> Event:
    return Event(
        event.run_id,
        event.step,
        event.node_id,
        event.msg,
        {**event.meta, **extra},
        kind=event.kind,
        ts=event.ts,
    )


def stream_run(
    engine: Engine[S],
    run_id: str,
    initial: Any,
    *,
    states: bool = False,
    max_buffer: int = 1024,
    context: Any = None,
) -> RunStream[S]:
    """Start run `run_id` from `initial` and stream its events; see the module docstring."""
    return RunStream(engine, run_id, initial=initial, states=states, max_buffer=max_buffer, context=context)


def stream_resume(
    engine: Engine[S],
    run_id: str,
    *,
    input: Any = _NO_INPUT,
    states: bool = False,
    max_buffer: int = 1024,
    allow_graph_change: bool = False,
    context: Any = None,
) -> RunStream[S]:
    """Resume run `run_id` (with `input` for an interrupt) and stream its events."""
    return RunStream(
        engine,
        run_id,
        resume=True,
        resume_input=input,
        states=states,
        max_buffer=max_buffer,
        allow_graph_change=allow_graph_change,
        context=context,
    )


def stream_continue(
    engine: Engine[S],
    run_id: str,
    input: Any,
    *,
    states: bool = False,
    max_buffer: int = 1024,
    allow_graph_change: bool = False,
    context: Any = None,
) -> RunStream[S]:
    """Begin the next turn of run `run_id` with `input` (`Engine.continue_run`) and stream its events."""
    return RunStream(
        engine,
        run_id,
        turn=input,
        states=states,
        max_buffer=max_buffer,
        allow_graph_change=allow_graph_change,
        context=context,
    )
