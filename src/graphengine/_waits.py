"""Durable waits: a run that sleeps or waits for a signal commits its step and holds nothing.

The step loop calls `enter_wait` after committing a step whose route is a WAIT hop (`ctx.sleep`,
`ctx.wait_for`, `sleep_until`); `Engine.resume` calls `on_resume` when the run's next hop is
one; `Engine.signal` is `send_signal`. Nothing here runs per ordinary step.

Waking is claiming: the run's status goes from `waiting` to `running` in one compare-and-set
conditioned on its last step (`Store.set_status(expect_status=WAITING, expect_step=...)`, fenced
by a lease where the store has them), so of any number of timer wakers or workers that find a
timer due, one drives the run and the others find it claimed.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic_core import to_jsonable_python

from graphengine.emit import EventKind
from graphengine.store import (
    CorruptRecordError,
    Latest,
    RunStatus,
    SignalRecord,
    StepRecord,
    TimerRecord,
    WaitStore,
    check_id,
)

from ._encoding import UPDATE_NODE
from ._runtime import settled
from ._wrapped import unwrapped
from .context import Signal
from .errors import SignalRefusedError, WaitError
from .routing import Next, Wait, goto

if TYPE_CHECKING:
    from ._runtime import Runtime

__all__ = [
    "Waiter",
    "Waker",
    "claimed",
    "enter_wait",
    "keep_waiting",
    "on_resume",
    "send_signal",
    "signal_of",
    "wait_store",
    "waiting_step",
]

_log = logging.getLogger("graphengine")


@runtime_checkable
class Waker(Protocol):
    """Told when a run's wait ends at `at` (seconds since the epoch), so it can be continued then.

    The embedded `Scheduler` notes the time; a queue (`RunQueue.waker()`) defers a job to it.
    The timer is in the store either way: a waker that fails or is absent only delays the wake
    until a timer waker reads the store.
    """

    async def wake(self, run_id: str, at: float) -> None:
        """Arrange for `run_id` to be resumed at `at` (now or in the past: at once)."""
        ...


def wait_store(eng: Runtime[Any], what: str) -> WaitStore:
    """The engine's store as a `WaitStore`; `WaitError` naming `what` if it keeps no timers."""
    store = unwrapped(eng.store)
    if not isinstance(store, WaitStore):
        raise WaitError(
            f"{what} needs a store that keeps timers and signals (graphengine.store.WaitStore); "
            f"{type(store).__name__} does not"
        )
    return store


class Waiter:
    """One run's clock and signal box, handed to its nodes' contexts (`ctx.sleep`, `ctx.wait_for`)."""

    __slots__ = ("_store", "now", "run_id")

    def __init__(self, eng: Runtime[Any], run_id: str) -> None:
        self._store = eng.store
        self.run_id = run_id
        self.now = eng.options.clock
        """The wall clock of durable waits (`Options.clock`)."""

    async def take(self, name: str, step: int) -> dict[str, Any] | None:
        """Take the oldest buffered signal `name` for `step`: its id, payload and time, or None."""
        store = unwrapped(self._store)
        if not isinstance(store, WaitStore):
            raise WaitError(f"run {self.run_id!r}: ctx.wait_for needs a store that keeps signals")
        sig = await store.take_signal(self.run_id, name, step)
        if sig is None:
            return None
        return {"id": sig.signal_id, "payload": _payload(sig), "ts": sig.ts}


def _payload(sig: SignalRecord) -> Any:
    try:
        return json.loads(sig.payload)
    except ValueError as exc:
        raise CorruptRecordError(
            f"run {sig.run_id!r}: stored payload of signal {sig.signal_id!r} is not JSON: {exc}",
            run_id=sig.run_id,
            field="payload",
        ) from exc


def signal_of(sig: SignalRecord) -> Signal:
    """The public view of a stored signal."""
    return Signal(sig.name, sig.signal_id, _payload(sig), sig.ts, sig.taken_step)


async def _tell(eng: Runtime[Any], run_id: str, at: float) -> None:
    """Tell the engine's waker (if any) that `run_id` is due at `at`; its failure is only logged."""
    waker = eng.waker
    if waker is None:
        return
    try:
        await waker.wake(run_id, at)
    except Exception as exc:  # the timer is stored: a timer waker reading the store still finds it
        _log.warning(
            "run %r: the waker failed (%r); it wakes when a timer waker finds its timer", run_id, exc
        )


async def _buffered(store: WaitStore, run_id: str, name: str, after: int) -> bool:
    """Whether a signal `name` is buffered for the run (not taken by a committed step up to `after`)."""
    return any(
        s.name == name and (s.taken_step is None or s.taken_step > after)
        for s in await store.list_signals(run_id)
    )


async def enter_wait(
    eng: Runtime[Any],
    run_id: str,
    step: int,
    node_id: str,
    route: Next,
    last_err: tuple[str | None, str | None],
) -> None:
    """The run committed `step` with the WAIT hop `route`: store its timer and mark it `waiting`.

    A signal it waits for that arrived while its node ran is seen here (after the status write,
    which `send_signal` reads after storing the signal): the timer is then due at once.
    """
    store = wait_store(eng, f"run {run_id!r} waiting at step {step}")
    w: Wait = route.payload
    await store.put_timer(TimerRecord(run_id, step, w.until, w.signal))
    await settled(
        store.set_status(
            run_id, RunStatus.WAITING, error=last_err[0], error_node=last_err[1], expect_step=step
        )
    )
    now = eng.options.clock()
    at = w.until
    if w.signal is not None and await _buffered(store, run_id, w.signal, step):
        at = now
        await store.put_timer(TimerRecord(run_id, step, now, w.signal))
    eng.notify(
        run_id,
        step,
        node_id,
        "waiting",
        {"until": w.until, "signal": w.signal, "then": route.target},
        EventKind.WAIT,
    )
    if at is not None:
        await _tell(eng, run_id, at)


def _due(w: Wait, now: float) -> bool:
    return w.until is not None and now >= w.until


async def on_resume(
    eng: Runtime[Any], latest: Latest, nxt: Next, sole: bool
) -> tuple[Next, Sequence[Mapping[str, Any]] | None] | None:
    """A resume found the run's next hop to be the WAIT `nxt`: where to go now, or None to keep waiting.

    Due (its time has come, or a signal it waits for is buffered): the hop to drive, and the
    calls the waiting step recorded when its node continues its own wait. Not due: the timer is
    (re)stored, for a run left `running` by a crash between its step and its status write.
    A run found `running` by a resume that cannot know it is the only driver is left alone: it
    is being driven (it was claimed) or its driver died, which only a sole driver can tell. A
    run that failed (or was cancelled) after it was woken has no driver: it is resumed as due.
    """
    run = latest.run
    last = latest.last
    assert last is not None
    store = wait_store(eng, f"resuming waiting run {run.run_id!r}")
    w: Wait = nxt.payload
    waiting = run.status is RunStatus.WAITING
    if run.status is RunStatus.RUNNING and not sole:
        return None
    due = _due(w, eng.options.clock()) or (
        w.signal is not None and await _buffered(store, run.run_id, w.signal, last.step)
    )
    if not due:
        if not waiting:
            await store.put_timer(TimerRecord(run.run_id, last.step, w.until, w.signal))
        return None
    prior = None
    if w.resume:
        rec = last
        at = waiting_step(eng, last)
        if at != last.step:  # an edit (`update_state`) came after the waiting step
            found = await store.load_steps(run.run_id, after=at - 1, limit=1)
            rec = found[0] if found else last
        prior = _recorded_calls(rec.calls, run.run_id, rec.step)
    return goto(nxt.target), prior


def waiting_step(eng: Runtime[Any], last: StepRecord) -> int:
    """The step whose node waits, for a run whose last step `last` left a WAIT hop: `last` itself,
    or the one an `update_state` edit after it names."""
    if last.node_id != UPDATE_NODE:
        return last.step
    try:
        step = json.loads(last.calls or b"{}")["waiting"]
        return int(step)
    except (ValueError, TypeError, KeyError) as exc:
        raise CorruptRecordError(
            f"run {last.run_id!r} step {last.step}: stored edit {last.calls!r:.80} does not name the "
            f"step that waits: {exc!r}",
            run_id=last.run_id,
            step=last.step,
            field="calls",
        ) from exc


async def keep_waiting(eng: Runtime[Any], run_id: str, step: int, route: Next) -> None:
    """Store the timer of a run that waits on after step `step` (an edit of a waiting run)."""
    w: Wait = route.payload
    await wait_store(eng, f"run {run_id!r}").put_timer(TimerRecord(run_id, step, w.until, w.signal))


def _recorded_calls(calls: bytes | None, run_id: str, step: int) -> Sequence[Mapping[str, Any]]:
    """The tool calls and waits step `step` recorded (served to its node when it runs again)."""
    try:
        doc = json.loads(calls or b"{}")
        made = doc.get("calls", []) if isinstance(doc, dict) else None
    except ValueError:
        made = None
    if not isinstance(made, list) or not all(isinstance(c, dict) for c in made):
        raise CorruptRecordError(
            f"run {run_id!r} step {step}: stored calls {calls!r:.80} are not the record of a wait",
            run_id=run_id,
            step=step,
            field="calls",
        )
    return made


async def claimed(eng: Runtime[Any], run_id: str, step: int) -> bool:
    """Drop the due time of the timer the run was woken from (so the due index keeps live ones)."""
    store = unwrapped(eng.store)
    if isinstance(store, WaitStore):
        await store.clear_timer(run_id, step)
    return True


async def _current(store: WaitStore, timer: TimerRecord) -> bool:
    """Whether `timer` is the run's current wait: no step came after the one it was stored for.

    A woken run keeps its timer row (due time cleared); if it then waits for its fan-out's
    branches (status `waiting` too, `graphengine.branches`), that old row must not make it due.
    """
    return not await store.load_steps(timer.run_id, after=timer.step, limit=1)


async def send_signal(
    eng: Runtime[Any], run_id: str, name: str, payload: Any, signal_id: str | None
) -> tuple[Signal, bool, bool]:
    """Store signal `name` for `run_id` (once per id); (the signal, stored now, woke the run).

    A run waiting for `name` is made due at once and its waker told. Raises `SignalRefusedError`
    for an unknown or finished run, `ValueError` for an empty name or a payload JSON cannot hold.
    """
    check_id(run_id)
    if not isinstance(name, str) or not name:
        raise ValueError(f"a signal needs a name, got {name!r}")
    store = wait_store(eng, f"a signal to run {run_id!r}")
    sid = signal_id if signal_id is not None else uuid.uuid4().hex
    try:
        data = json.dumps(
            to_jsonable_python(payload), separators=(",", ":"), sort_keys=True, allow_nan=False
        ).encode()
    except (ValueError, TypeError) as exc:
        raise ValueError(f"signal {name!r} to run {run_id!r}: the payload is not JSON: {exc}") from exc
    run = await store.get_run(run_id)
    if run is None or run.status is RunStatus.DONE:
        status = None if run is None else run.status.value
        why = "there is no such run" if run is None else "it is done: nothing waits for a signal any more"
        raise SignalRefusedError(
            f"signal {name!r} ({sid!r}) to run {run_id!r} refused: {why}", run_id=run_id, status=status
        )
    now = eng.options.clock()
    stored = await store.add_signal(SignalRecord(run_id, sid, name, data, now))
    # Read after the signal is stored (and `enter_wait` reads signals after its status write), so
    # a run that began waiting meanwhile is seen by one side or the other.
    woke = False
    if stored:
        timer = await store.get_timer(run_id)
        run = await store.get_run(run_id)
        if (
            timer is not None
            and timer.signal == name
            and run is not None
            and run.status is RunStatus.WAITING
            and await _current(store, timer)
        ):
            await store.put_timer(TimerRecord(run_id, timer.step, now, name))
            await _tell(eng, run_id, now)
            woke = True
        eng.notify(
            run_id, 0, "", f"signal {name!r}", {"signal": name, "id": sid, "woke": woke}, EventKind.SIGNAL
        )
    for sig in await store.list_signals(run_id):
        if sig.signal_id == sid:
            return signal_of(sig), stored, woke
    raise SignalRefusedError(  # the run was deleted between the write and this read
        f"signal {name!r} ({sid!r}) to run {run_id!r}: the run is gone", run_id=run_id, status=None
    )
